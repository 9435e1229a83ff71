"""What one TCP connection may cost the kernel: how long it may take to send a request, and how many
connections are open at once.

Anyone on the machine can connect to the port, token or not, and uvicorn waits for ever for a
request that never comes (or comes one byte a minute): 1,100 idle sockets once made the kernel's own
cells fail with "Too many open files". So each connection here has deadlines while the *client* is
the one expected to send (`ConnectionLimits`):

- the request line and headers must be complete within ``header_timeout`` seconds of the connection
  opening (or of the previous response on a kept-alive connection);
- the body, within ``body_timeout`` seconds of the headers;
- while the server works on a request or streams its answer, there is no deadline (an approval may
  take minutes, a GET stream lasts a session); uvicorn closes a kept-alive connection that stays
  idle after a response (``timeout_keep_alive``).

And at most ``max_connections`` are open, well below the process's limit on open files
(``RLIMIT_NOFILE``) so the kernel keeps room for its own. A connection over the cap costs almost
nothing: the oldest connection still waiting for its client to send (never a request in progress)
is closed to make room, or, when none is waiting, the new one is closed at once.

`connection_protocol` makes uvicorn's own HTTP/1.1 protocol (h11) class enforce these.

The connection also says whether each response reached its client whole (`_pipeline.Delivery`, in
the request's scope): the audit log records a result cut mid-body (its client gone) as not delivered.
"""

from __future__ import annotations

import asyncio
import math
import os
import resource
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from ...core._text import t
from .._pipeline import DELIVERY, Delivery, delivery_in

HEADER_TIMEOUT_VARIABLE = "MCP_NOTEBOOK_HEADER_TIMEOUT"
BODY_TIMEOUT_VARIABLE = "MCP_NOTEBOOK_BODY_TIMEOUT"
MAX_CONNECTIONS_VARIABLE = "MCP_NOTEBOOK_MAX_CONNECTIONS"
_KERNEL_RESERVE = 256  # open files left to the kernel itself: its zmq sockets, cells' files, the audit log


@dataclass(frozen=True)
class ConnectionLimits:
    """Deadlines for clients that are slow to send, and the cap on open connections."""

    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 1000

    @classmethod
    def from_environment(cls) -> ConnectionLimits:
        """The defaults, each overridable by an environment variable; the cap fits the open-file limit."""
        return cls(
            header_timeout=_number(HEADER_TIMEOUT_VARIABLE, cls.header_timeout),
            body_timeout=_number(BODY_TIMEOUT_VARIABLE, cls.body_timeout),
            max_connections=int(_number(MAX_CONNECTIONS_VARIABLE, default_max_connections(), whole=True)),
        )


def default_max_connections() -> int:
    """Half of what the open-file limit leaves once the kernel has its share, between 16 and 1000."""
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):
        soft = resource.RLIM_INFINITY
    if soft == resource.RLIM_INFINITY:
        return 1000
    return max(16, min(1000, (soft - _KERNEL_RESERVE) // 2))


def _number(variable: str, default: float, *, whole: bool = False) -> float:
    value = os.environ.get(variable, "").strip()
    if not value:
        return default
    try:
        number = float(value)
    except ValueError:
        number = 0.0
    # "inf" would turn a deadline or the cap off without a word (and crash int()): a defence is
    # loosened only to a number someone wrote down.
    if not 0 < number < math.inf or (whole and not number.is_integer()):
        raise ValueError(t("limits.bad_number", variable=variable, example=default, value=value))
    return number


# What the connection is waiting for: its client to send a request (or the rest of its body),
# or the server to answer. Only the first two have deadlines, and only they are closed to make room.
_HEAD, _BODY, _SERVING = "head", "body", "serving"


class _LimitedConnection(H11Protocol):
    """uvicorn's HTTP/1.1 connection with deadlines for the client's side and a cap on how many are open."""

    limits = ConnectionLimits()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._timer: asyncio.TimerHandle | None = None
        self._delivering: list[Delivery] = []  # complete responses whose bytes are still leaving
        self._state: tuple[str, Any] = ("", None)
        self.waiting_since = self.loop.time()
        self._follow()
        if len(self.connections) > self.limits.max_connections:
            waiting = [
                other
                for other in self.connections
                if isinstance(other, _LimitedConnection) and other is not self and other.waits_for_client
            ]
            oldest = min(waiting, key=lambda other: other.waiting_since, default=None)
            (oldest or self).close_now()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._track()
        self._follow()

    def on_response_complete(self) -> None:
        delivery = _delivery(self.cycle)
        if delivery is not None:
            self._deliver(delivery)
        super().on_response_complete()  # may start the next (pipelined) request's cycle
        self._track()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        cycle = self.cycle
        delivery = _delivery(cycle)
        if delivery is not None and cycle is not None and not cycle.response_complete:
            delivery.settle(False)  # the client left before the response ended
        # A clean close flushes what was still buffered first; an error means some of it never left.
        self._delivered(exc is None)
        super().connection_lost(exc)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._delivering and self.transport.get_write_buffer_size() == 0:
            self._delivered(True)
            self.transport.set_write_buffer_limits()  # back to the default high-water mark

    def _track(self) -> None:
        """Give the request being read its `Delivery` (before its app starts: the task is only scheduled)."""
        cycle = self.cycle
        if cycle is not None and DELIVERY not in cycle.scope:
            cycle.scope[DELIVERY] = Delivery()  # type: ignore[literal-required]

    def _deliver(self, delivery: Delivery) -> None:
        """The response's last byte is written: delivered once it has left this process."""
        if self.transport.get_write_buffer_size() == 0:
            delivery.settle(True)
            return
        self._delivering.append(delivery)  # after any earlier response still leaving: its bytes go first
        # A high-water mark of 0 pauses writing now and resumes it (`resume_writing`) once the
        # buffer is empty: the moment the whole response has been handed to the socket.
        self.transport.set_write_buffer_limits(high=0)

    def _delivered(self, delivered: bool) -> None:
        deliveries, self._delivering = self._delivering, []
        for delivery in deliveries:
            delivery.settle(delivered)

    @property
    def waits_for_client(self) -> bool:
        """Whether the connection waits for its client to send (and so may be closed to make room)."""
        return self._state[0] in (_HEAD, _BODY) and not self.transport.is_closing()

    def close_now(self) -> None:
        self._stop_timer()
        if not self.transport.is_closing():
            self.transport.close()

    def _follow(self) -> None:
        """Start the deadline of what the connection now waits for (a new request, a body, or nothing)."""
        cycle = self.cycle
        if cycle is None or cycle.response_complete:
            state = (_HEAD, cycle)  # a new connection, or a kept-alive one after a response
        elif cycle.more_body:
            state = (_BODY, cycle)
        else:
            state = (_SERVING, cycle)
        if state[0] == self._state[0] and state[1] is self._state[1]:
            return  # still waiting for the same thing: a trickle of bytes does not move the deadline
        self._state = state
        self.waiting_since = self.loop.time()
        self._stop_timer()
        if state[0] == _HEAD:
            self._timer = self.loop.call_later(self.limits.header_timeout, self.close_now)
        elif state[0] == _BODY:
            self._timer = self.loop.call_later(self.limits.body_timeout, self.close_now)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _delivery(cycle: Any) -> Delivery | None:
    return delivery_in(cycle.scope) if cycle is not None else None


def connection_protocol(limits: ConnectionLimits) -> type[H11Protocol]:
    """The protocol class for uvicorn's ``http=`` setting, enforcing `limits` (one class per server)."""
    return type("LimitedConnection", (_LimitedConnection,), {"limits": limits})
