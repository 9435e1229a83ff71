"""Handles: explicit, server-minted references to state that spans several tool calls.

The 2026-07-28 protocol has no sessions, so a cart, a browser context or a transaction lives on
the server and the model carries a handle to it (``cart_Xk3...``) from one call to the next.
Following the spec's security advice, a handle is an unpredictable random string, bound to the
client that minted it, and never proof of anything by itself: `HandleStore.resolve` checks the
client and the kind every time. A bad handle becomes an error result (`HandleError`) that tells
the model which tool makes a new one.

What a handle points at lives in a `Store` (namespace `HANDLES`, scoped to the notebook and the
client, with the handle's time to live): by default a `MemoryStore` of this process, which keeps
values as they are (a list the tool appends to, a live browser); with a shared store (a
`SQLiteStore` file, a server's ``srv.store``) handles minted by one process resolve in another,
and values are JSON.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from ._errors import ToolError
from ._idempotency import human_duration
from ._identity import default_server_name
from ._store import HANDLES, KEY_MAX, Scope, Store
from ._store_memory import MemoryStore
from ._store_url import open_store, serving_store
from ._text import t

_KIND_RE = re.compile(r"[A-Za-z][A-Za-z0-9-]{0,31}")
_ECHO_LIMIT = 80  # a handle echoed in an error: enough to recognise, not a dump of whatever was sent


class HandleError(ToolError):
    """A call named a handle that is unknown, expired, of another kind or another client's."""


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
        Seconds from a monotonic clock (injected in tests), for the store made here; a given
        `store` has a clock of its own.
    store:
        Where handles and their values live: a `Store` or a store URL such as
        ``"sqlite:///carts.sqlite3"``. Default: a `MemoryStore` of this HandleStore's own (values
        stay Python objects, and live as long as the process). With a shared store, handles
        minted by one process resolve in every process that opens it, and values must be JSON:
        after changing one, store it again with `update`.
    name:
        Scopes the handles in a shared store, with the client: handles of another `name` are
        unknown here. Default: the notebook's server name (the one `serve` uses), so two
        notebooks sharing a store file never see each other's handles.
    shared:
        Keep handles in the store of the server that serves this notebook, under its name: the
        store of ``serve()`` in a kernel, the configured store of an exported app (Redis for
        replicas), so a handle minted by one process or replica resolves in all of them. Looked
        up on first use (the server may start after this cell); values are JSON.
    """

    def __init__(
        self,
        ttl: float = 3600.0,
        *,
        creator: str | None = None,
        max_size: int = 10_000,
        clock: Callable[[], float] | None = None,
        store: Store | str | None = None,
        name: str | None = None,
        shared: bool = False,
    ) -> None:
        if ttl <= 0:
            raise ValueError(f"ttl must be > 0 seconds, got {ttl!r}")
        if max_size < 1:
            raise ValueError(f"max_size must be >= 1, got {max_size!r}")
        if (store is not None or shared) and clock is not None:
            raise ValueError(t("handle.clock_and_store"))
        self.ttl = ttl
        self.creator = creator
        self.max_size = max_size
        self._name = name
        self._shared = shared and store is None
        self._store: Store | None = None
        if not self._shared:
            self._store = (
                open_store(store) if store is not None else MemoryStore(clock=clock or time.monotonic)
            )
        self._creators: dict[str, str] = {}  # kind -> the tool that last minted one (in this process)
        self._lock = threading.Lock()

    @property
    def store(self) -> Store:
        """Where the handles live (with ``shared=True``: the serving server's store, from first use)."""
        if self._store is None:
            self._store = self._served()[0]()
        return self._store

    @property
    def name(self) -> str:
        """The name that scopes the handles (with ``shared=True``: the serving server's)."""
        if self._name is None:
            self._name = self._served()[1] if self._shared else default_server_name()
        return self._name

    def _served(self) -> tuple[Any, str]:
        served = serving_store()
        if served is None:
            raise HandleError(t("handle.no_server"))
        return served

    def mint(self, client: str, kind: str, value: Any, *, creator: str | None = None) -> str:
        """Store `value` and return a new handle for it, such as ``"cart_3q2Yx..."``.

        Parameters
        ----------
        client:
            The identity of the calling client (`current_client()`); only it can resolve the handle.
        kind:
            What the handle refers to (``"cart"``): 1-32 letters, digits or ``-``, starting with a
            letter. It prefixes the handle so models and people can tell handles apart.
        value:
            The server-side state (it never leaves the server). Any Python object in the default
            store; JSON in a shared one.
        creator:
            The tool that mints handles of this kind, named in error messages.
        """
        if not _KIND_RE.fullmatch(kind):
            raise ValueError(
                f"kind must be 1-32 letters, digits or '-', starting with a letter; got {kind!r}"
            )
        if not _is_identity(client):
            raise ValueError(t("handle.bad_client", got=repr(client)[:80]))
        handle = f"{kind}_{secrets.token_urlsafe(18)}"
        with self._lock:
            maker = creator or self._creators.get(kind) or self.creator
            if creator:
                self._creators[kind] = creator
        expires = self.store.now() + self.ttl
        record = {"kind": kind, "value": value, "creator": maker, "expires": expires}
        self.store.put(HANDLES, self._scope(client), handle, record, ttl=self._kept_for)
        self.store.trim(HANDLES, self.name, self.max_size)
        return handle

    def resolve(self, handle: str, client: str, kind: str) -> Any:
        """The value behind `handle`, or `HandleError` with what the model should do next.

        Another client's handle is reported exactly like an unknown one: the answer must not
        reveal that the handle exists.
        """
        return self._record(handle, client, kind)["value"]

    def update(self, handle: str, client: str, kind: str, value: Any) -> None:
        """Store a new `value` behind `handle` (same checks and errors as `resolve`; same expiry).

        Needed with a shared store, whose values are copies: a tool that changed what `resolve`
        gave it stores it back (``items.append(x); carts.update(cart, current_client(), "cart",
        items)``). Harmless with the default store, where the value is the object itself.
        """
        record = self._record(handle, client, kind)
        left = record["expires"] - self.store.now()
        updated = {**record, "value": value}
        self.store.put(HANDLES, self._scope(client), handle, updated, ttl=left + self.ttl)

    def discard(self, handle: str, client: str) -> bool:
        """Forget `handle` (a tool that closes the cart, ends the transaction); False if it was not there."""
        if not _plausible(handle) or not _is_identity(client):
            return False
        return self.store.delete(HANDLES, self._scope(client), handle)

    def __len__(self) -> int:
        return self.store.count(HANDLES, self.name)

    @property
    def _kept_for(self) -> float:
        # An expired handle is remembered for one more `ttl`, so that it reads as expired (which
        # tells the model more) rather than unknown; then the store lets it go.
        return 2 * self.ttl

    def _scope(self, client: str) -> Scope:
        return Scope(self.name, client)

    def _record(self, handle: str, client: str, kind: str) -> dict[str, Any]:
        record = None
        if _plausible(handle) and _is_identity(client):
            record = self.store.get(HANDLES, self._scope(client), handle)
        if not isinstance(record, dict):
            raise HandleError(t("handle.unknown", handle=_echo(handle), kind=kind, next=self._next(kind)))
        if self.store.now() >= record["expires"]:
            self.store.delete(HANDLES, self._scope(client), handle)
            ttl = human_duration(self.ttl)
            known = record.get("creator") if record["kind"] == kind else None
            raise HandleError(
                t("handle.expired", handle=_echo(handle), kind=kind, ttl=ttl, next=self._next(kind, known))
            )
        if record["kind"] != kind:
            message = t(
                "handle.wrong_kind",
                handle=_echo(handle),
                actual=record["kind"],
                kind=kind,
                next=self._next(kind),
            )
            raise HandleError(message)
        return record

    def _next(self, kind: str, known: str | None = None) -> str:
        """What to do next: call the tool that mints `kind` (`known`: the one that minted this handle)."""
        with self._lock:
            creator = self._creators.get(kind) or known or self.creator
        if creator:
            return t("handle.next_creator", creator=creator, kind=kind)
        return t("handle.next_unknown", kind=kind)


def _plausible(handle: object) -> bool:
    return isinstance(handle, str) and 0 < len(handle) <= KEY_MAX


def _is_identity(client: object) -> bool:
    return isinstance(client, str) and bool(client)


def _echo(handle: object) -> str:
    text = handle if isinstance(handle, str) else repr(handle)
    return text if len(text) <= _ECHO_LIMIT else text[:_ECHO_LIMIT] + "…"
