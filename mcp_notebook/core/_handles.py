"""Handles: explicit, server-minted references to state that spans several tool calls.

The 2026-07-28 protocol has no sessions, so a cart, a browser context or a transaction lives on
the server and the model carries a handle to it (``cart_Xk3...``) from one call to the next.
Following the spec's security advice, a handle is an unpredictable random string, bound to the
client that minted it, and never proof of anything by itself: `HandleStore.resolve` checks the
client and the kind every time. A bad handle becomes an error result (`HandleError`) that tells
the model which tool makes a new one.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._errors import ToolError
from ._idempotency import human_duration
from ._text import t

_KIND_RE = re.compile(r"[A-Za-z][A-Za-z0-9-]{0,31}")
_ECHO_LIMIT = 80  # a handle echoed in an error: enough to recognise, not a dump of whatever was sent


class HandleError(ToolError):
    """A call named a handle that is unknown, expired, of another kind or another client's."""


@dataclass
class _Slot:
    client: str
    kind: str
    value: Any
    expires: float
    creator: str | None


class HandleStore:
    """Mint and resolve handles, each bound to one client, with a time to live.

    Thread-safe. At most `max_size` handles are kept: minting into a full store first drops the
    expired handles, then the oldest ones (a dropped handle reads as unknown, and the error
    still says how to get a new one).

    Parameters
    ----------
    ttl:
        Seconds a handle stays valid after it is minted.
    creator:
        Default name of the tool that mints handles, used in error messages when `mint` names none.
    max_size:
        How many handles the store holds at most.
    clock:
        Seconds from a monotonic clock (injected in tests).
    """

    def __init__(
        self,
        ttl: float = 3600.0,
        *,
        creator: str | None = None,
        max_size: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl <= 0:
            raise ValueError(f"ttl must be > 0 seconds, got {ttl!r}")
        if max_size < 1:
            raise ValueError(f"max_size must be >= 1, got {max_size!r}")
        self.ttl = ttl
        self.creator = creator
        self.max_size = max_size
        self._clock = clock
        self._slots: dict[str, _Slot] = {}  # insertion order = mint order, for eviction
        self._creators: dict[str, str] = {}  # kind -> the tool that last minted one
        self._lock = threading.Lock()

    def mint(self, client: str, kind: str, value: Any, *, creator: str | None = None) -> str:
        """Store `value` and return a new handle for it, such as ``"cart_3q2Yx..."``.

        Parameters
        ----------
        client:
            The identity of the calling client; only it can resolve the handle.
        kind:
            What the handle refers to (``"cart"``): 1-32 letters, digits or ``-``, starting with a
            letter. It prefixes the handle so models and people can tell handles apart.
        value:
            The server-side state (any Python object; it never leaves the server).
        creator:
            The tool that mints handles of this kind, named in error messages.
        """
        if not _KIND_RE.fullmatch(kind):
            raise ValueError(
                f"kind must be 1-32 letters, digits or '-', starting with a letter; got {kind!r}"
            )
        handle = f"{kind}_{secrets.token_urlsafe(18)}"
        with self._lock:
            now = self._clock()
            if len(self._slots) >= self.max_size:
                self._evict(now)
            maker = creator or self._creators.get(kind) or self.creator
            if creator:
                self._creators[kind] = creator
            self._slots[handle] = _Slot(client, kind, value, now + self.ttl, maker)
        return handle

    def resolve(self, handle: str, client: str, kind: str) -> Any:
        """The value behind `handle`, or `HandleError` with what the model should do next.

        Another client's handle is reported exactly like an unknown one: the answer must not
        reveal that the handle exists.
        """
        with self._lock:
            slot = self._slots.get(handle) if isinstance(handle, str) else None
            if slot is None or slot.client != client:
                raise HandleError(t("handle.unknown", handle=_echo(handle), kind=kind, next=self._next(kind)))
            if self._clock() >= slot.expires:
                del self._slots[handle]
                ttl = human_duration(self.ttl)
                raise HandleError(
                    t("handle.expired", handle=_echo(handle), kind=kind, ttl=ttl, next=self._next(kind))
                )
            if slot.kind != kind:
                message = t(
                    "handle.wrong_kind",
                    handle=_echo(handle),
                    actual=slot.kind,
                    kind=kind,
                    next=self._next(kind),
                )
                raise HandleError(message)
            return slot.value

    def discard(self, handle: str, client: str) -> bool:
        """Forget `handle` (a tool that closes the cart, ends the transaction); False if it was not there."""
        with self._lock:
            slot = self._slots.get(handle)
            if slot is None or slot.client != client:
                return False
            del self._slots[handle]
            return True

    def __len__(self) -> int:
        with self._lock:
            return len(self._slots)

    def _evict(self, now: float) -> None:
        for handle in [h for h, slot in self._slots.items() if now >= slot.expires]:
            del self._slots[handle]
        while len(self._slots) >= self.max_size:
            del self._slots[next(iter(self._slots))]

    def _next(self, kind: str) -> str:
        creator = self._creators.get(kind) or self.creator
        if creator:
            return t("handle.next_creator", creator=creator, kind=kind)
        return t("handle.next_unknown", kind=kind)


def _echo(handle: object) -> str:
    text = handle if isinstance(handle, str) else repr(handle)
    return text if len(text) <= _ECHO_LIMIT else text[:_ECHO_LIMIT] + "…"
