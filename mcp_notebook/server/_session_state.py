"""What the server keeps for each handshake-era session (``Mcp-Session-Id``), in one place.

A session's state is made when the session manager admits the session (`http/_sessions`), and
dropped in one place, `Sessions.ended`, however the session ends: a DELETE, the idle timeout, a
crash, or closed to make room for a newer one of the same credential. Handlers only ever update
the state of a session that is open: a late request of an ended session leaves nothing behind.

With a store shared by processes (an exported app's workers or replicas), each session's handshake
is recorded there too (`SessionRecords`), scoped to the identity that opened it: a worker that gets a
request of a session it does not hold takes it over for that identity, and only for it.

2026-07-28 requests have no sessions: what they need comes with each request.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession

from ..core._approval_request import ApprovalRequest
from ..core._store import SESSIONS, Scope, Store, StoreError

logger = logging.getLogger(__name__)


@dataclass(eq=False)
class SessionState:
    """One session: whose it is, how to reach it, and what it asked for."""

    identity: str  # the identity whose credential opened it (its cap of sessions: `http/_sessions`)
    session: ServerSession | None = None  # to notify of changes; None until it says it is initialized
    log_level: str | None = None  # logging/setLevel (2026-07-28 asks per request instead)
    subscriptions: set[str] = field(default_factory=set)  # resources/subscribe: the URIs it follows
    # Calls waiting for a person, by request id: withdrawn when the client hangs up or the session ends.
    waiting: dict[str, ApprovalRequest] = field(default_factory=dict)


class SessionRecords:
    """The handshakes of open sessions in a store that processes share, for any of them to take over.

    A record lives under ``Scope(server, identity)`` of the identity that opened the session, and
    says that identity again: a session id presented with another credential finds nothing. It
    expires `ttl` seconds (the idle expiry) after its last use, and is deleted when the client ends
    the session, so every process then refuses the id.
    """

    def __init__(self, store: Callable[[], Store], server: str, ttl: float) -> None:
        self._store, self.server, self.ttl = store, server, ttl  # `store()`: opened on first use
        self._refreshed: dict[str, float] = {}  # session id: when this process last renewed its TTL

    def record(self, session_id: str, identity: str, initialize_params: Mapping[str, Any]) -> None:
        """The session `session_id` of `identity` was opened with these ``initialize`` params."""
        value = {"identity": identity, "initialize": dict(initialize_params), "spread": False}
        self._put(session_id, identity, value)

    def find(self, session_id: str, identity: str) -> dict[str, Any] | None:
        """The record of `identity`'s session `session_id`; None if it ended, expired, or is another's."""
        try:
            value = self._store().get(SESSIONS, Scope(self.server, identity), session_id)
        except StoreError:
            logger.exception("could not read the record of session %s", session_id[:8])
            return None
        if not isinstance(value, dict) or value.get("identity") != identity:
            return None  # the session id alone is not enough: it must be the same identity's
        return value

    def used(self, session_id: str, record: dict[str, Any], *, taken_over: bool = False) -> None:
        """The session served a request here: renew its TTL (now and then), mark it taken over."""
        if taken_over and not record.get("spread"):
            record = {**record, "spread": True}
        elif time.monotonic() - self._refreshed.get(session_id, -self.ttl) < self.ttl / 10:
            return
        self._put(session_id, record["identity"], record)

    def forget(self, session_id: str, identity: str) -> None:
        """The client ended the session: no process may take it over from now on."""
        self._refreshed.pop(session_id, None)
        try:
            self._store().delete(SESSIONS, Scope(self.server, identity), session_id)
        except StoreError:
            logger.exception("could not delete the record of session %s", session_id[:8])

    def left(self, session_id: str) -> None:
        """This process no longer holds the session (the record stays for the others until it expires)."""
        self._refreshed.pop(session_id, None)

    def _put(self, session_id: str, identity: str, value: dict[str, Any]) -> None:
        try:
            self._store().put(SESSIONS, Scope(self.server, identity), session_id, value, ttl=self.ttl)
        except StoreError:
            logger.exception("could not record session %s", session_id[:8])
            return
        self._refreshed[session_id] = time.monotonic()


class Sessions:
    """The state of every open handshake-era session, by session id, in the order they were opened.

    `records`: the handshakes in a store other processes share (`SessionRecords`), or None (one
    process: nobody else could take a session over).
    """

    def __init__(self, records: SessionRecords | None = None) -> None:
        self._states: dict[str, SessionState] = {}
        self.records = records

    def spread(self, session_id: str | None) -> bool:
        """Whether another process has served this session too: a client's answer may reach it."""
        state = self.get(session_id)
        if state is None or self.records is None or session_id is None:
            return False
        record = self.records.find(session_id, state.identity)
        return record is None or bool(record.get("spread"))

    def opened(self, session_id: str, identity: str) -> None:
        """A session was admitted for `identity`."""
        self._states[session_id] = SessionState(identity)

    def ended(self, session_id: str) -> None:
        """The session ended, however it did: drop all of its state, and withdraw its calls still waiting.

        Nobody can receive the result of a call approved now; a person must not be asked to run it.
        """
        state = self._states.pop(session_id, None)
        if self.records is not None:
            self.records.left(session_id)
        if state is not None:
            for request in list(state.waiting.values()):
                request._resolve("withdrawn")

    def get(self, session_id: str | None) -> SessionState | None:
        """The state of an open session, or None (no session, or one that has ended)."""
        return self._states.get(session_id) if session_id else None

    def of(self, identity: str) -> list[str]:
        """The open sessions of `identity`, oldest first."""
        return [session_id for session_id, state in self._states.items() if state.identity == identity]

    def reachable(self) -> list[SessionState]:
        """The sessions that can be told of a change."""
        return [state for state in self._states.values() if state.session is not None]

    def client_gone(self, session_id: str, request_id: str) -> None:
        """The client of a handshake-era call hung up: withdraw its approval prompt, if it waits.

        Spec 2025-11-25 (basic/transports) says a disconnection is not a cancellation, because a
        client may resume the stream; this server keeps no event store, so nothing can resume it,
        and the result of a call approved now would reach no one. A person must not be asked to
        run it (and a late Approve must not run it).
        """
        state = self._states.get(session_id)
        request = state.waiting.get(request_id) if state is not None else None
        if request is not None:
            request._resolve("withdrawn")

    def __len__(self) -> int:
        return len(self._states)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._states))


def session_id_of(ctx: ServerRequestContext[Any]) -> str | None:
    """The ``Mcp-Session-Id`` of the request behind `ctx` (None: 2026-07-28, or no HTTP request)."""
    request = ctx.request
    return request.headers.get("mcp-session-id") if request is not None else None
