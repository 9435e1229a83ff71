"""The guardrails a server owes its clients, each serving one step of the call pipeline (`_calls`).

Spec 2025-11-25 server/tools "Security Considerations": servers MUST validate inputs, implement
access controls, rate-limit invocations and sanitize outputs. Validation and approval are steps of
their own; `Guardrails` owns the server's store and what outlives a call in it, one part per step:
rate limits (`_rate_limits`, the rate-limit step), idempotency keys (`_idempotent`, the
idempotency step), the cap on what a tool sends back (the sanitize step, `_call_results`). The run
step makes the caller's identity `current_client` while the tool runs (`acting_as`), and applies
the tool's timeout itself.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
from collections.abc import Callable, Iterator

from ..core._store import Store
from ..core._store_sqlite import SQLiteStore
from ..core._store_url import store_opener
from ..core._text import t
from ._idempotent import IdempotentCalls
from ._rate_limits import RateLimits

_client: contextvars.ContextVar[str] = contextvars.ContextVar("mcp_notebook_client", default="notebook")


def current_client() -> str:
    """Who is calling the running tool, as its credential proves it.

    ``"notebook"`` for the notebook itself (``%mcp_call``, ``mcp_notebook.call``, or a tool called
    directly in a cell), ``"owner"`` for a client using the server token (``srv.token``), or the
    name given to ``srv.add_client(name)`` for a client with a token of its own. Never what the
    client says about itself (``clientInfo.name``): a client cannot claim another's identity.

    Use it to bind what a tool hands out (handles, carts, drafts) to the client that made it::

        carts.mint(current_client(), "cart", [])
        carts.resolve(handle, current_client(), "cart")
    """
    return _client.get()


@contextlib.contextmanager
def acting_as(client: str) -> Iterator[None]:
    """Make `client` (an identity, proven by its credential) the `current_client` inside the block."""
    token = _client.set(client)
    try:
        yield
    finally:
        _client.reset(token)


def server_store(
    store: Store | str | None, idempotency_path: str | os.PathLike[str] | None
) -> Callable[[], Store]:
    """What opens the server's store, from `serve`'s ``store=`` and ``idempotency_path=``; nothing opens yet.

    Raises ValueError for settings that cannot work (both given, a malformed URL), saying what to write.
    """
    if store is not None and idempotency_path is not None:
        raise ValueError(t("guard.store_and_path"))
    if store is not None:
        return store_opener(store)
    return lambda: SQLiteStore(idempotency_path)


class Guardrails:
    """What outlives a call, for one server: its store, and in it the rate limits and idempotency keys.

    What outlives a call is scoped to the identity that made it: each identity has its own rate
    limit bucket per tool (one client cannot lock the notebook out of its own tool), and stored
    idempotent results are scoped by server name, identity, tool and the tool's definition.

    Parameters
    ----------
    max_output_chars:
        The most characters of text a tool's result may send back (the sanitize step cuts the rest).
    idempotency_path:
        The SQLite file of the server's store, instead of the default one (as ``store="sqlite:///PATH"``).
    store:
        The server's `Store` (what outlives a call: idempotent results, kept large results), or a
        store URL (``"sqlite:///state.sqlite3"``, ``"memory://"``). Default: the SQLite file in
        the user cache folder. Opened on first use; a store opened here is closed by `close`, one
        given as an instance is its owner's to close.
    server_name:
        This notebook's server name (`ServerHandle.name`): stored results of another notebook
        that defines a tool of the same name are never replayed here.
    shared_limits:
        Keep rate-limit buckets in the store (`Store.take`), shared by every process and replica
        that serves it (an exported app), instead of in this process (a kernel's server).

    Attributes
    ----------
    limits:
        The rate-limit buckets (the rate-limit step).
    keys:
        The idempotency keys (the idempotency step).
    """

    def __init__(
        self,
        *,
        max_output_chars: int = 1_000_000,
        idempotency_path: str | os.PathLike[str] | None = None,
        store: Store | str | None = None,
        server_name: str = "mcp-notebook",
        shared_limits: bool = False,
    ) -> None:
        self._open_store = server_store(store, idempotency_path)  # a bad setting fails here, not later
        self._owns_store = not isinstance(store, Store)
        self.max_output_chars = max_output_chars
        self.server_name = server_name
        self._store: Store | None = None
        self._lock = threading.Lock()
        self.limits = RateLimits(self.store, server_name, shared=shared_limits)
        self.keys = IdempotentCalls(self.store, server_name)

    @property
    def shared_limits(self) -> bool:
        return self.limits.shared

    def store(self) -> Store:
        """The server's `Store`, opened on first use (a server that keeps nothing opens no file)."""
        with self._lock:
            if self._store is None:
                self._store = self._open_store()
            return self._store

    def close(self) -> None:
        if self._store is not None and self._owns_store:
            self._store.close()
