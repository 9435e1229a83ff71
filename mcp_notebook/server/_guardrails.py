"""The guardrails a server owes its clients, applied around every tool call.

Spec 2025-11-25 server/tools "Security Considerations": servers MUST validate inputs, implement
access controls, rate-limit invocations and sanitize outputs. Validation and approval live in the
server; this module adds per-tool rate limits and timeouts, idempotent replays and output
sanitizing, each a step of the call pipeline (`_pipeline`).
"""

from __future__ import annotations

import contextvars
import logging
import os
import threading
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread

from ..core._arguments import argument_problems, compile_validator
from ..core._guards import RateLimited, TokenBucket, sanitize_result
from ..core._idempotency import KEY_PARAMETER, IdempotencyStore, Scope, definition_fingerprint
from ..core._results import error_result
from ..core._store import DEFAULT_LEASE, RATE_LIMITS, Store
from ..core._store_sqlite import SQLiteStore
from ..core._store_url import store_opener
from ..core._text import t

logger = logging.getLogger(__name__)


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
    """Rate limits, timeouts, idempotency and sanitizing for one server.

    What outlives a call is scoped to the identity that made it: each identity has its own rate
    limit bucket per tool (one client cannot lock the notebook out of its own tool), and stored
    idempotent results are scoped by server name, identity, tool and the tool's definition.

    Parameters
    ----------
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
        self.shared_limits = shared_limits
        self._owns_store = not isinstance(store, Store)
        self.max_output_chars = max_output_chars
        self.server_name = server_name
        self._store: Store | None = None
        self._idempotency: IdempotencyStore | None = None
        self._buckets: dict[tuple[str, str], TokenBucket] = {}  # (tool, identity): bounded by identities
        self._definitions: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def set_client(self, client: str) -> contextvars.Token[str]:
        """Make `client` (an identity, proven by its credential) the `current_client` of this call."""
        return _client.set(client)

    def reset_client(self, token: contextvars.Token[str]) -> None:
        _client.reset(token)

    def check_rate(self, entry: Any, client: str | None = None) -> None:
        """Raise `RateLimited` (a tool error saying when to retry) when `client` is over the tool's limit.

        Each identity has a bucket of its own: a client that floods a tool is limited, not the others.
        """
        if entry.rate_limit is None:
            return
        calls, seconds = entry.rate_limit
        slot = (entry.name, client if client is not None else current_client())
        if self.shared_limits:
            scope = Scope(self.server_name, slot[1], entry.name)
            rate, burst = calls / seconds, int(calls)
            wait = self.store().take(RATE_LIMITS, scope, f"{calls}/{seconds}", rate=rate, burst=burst)
            if wait is not None:
                raise RateLimited(entry.name, wait, TokenBucket(rate=rate, burst=burst))
            return
        with self._lock:
            bucket = self._buckets.get(slot)
            # A cell that redefines the tool with another limit gets a fresh bucket with that limit.
            if bucket is None or (bucket.burst, bucket.rate) != (int(calls), calls / seconds):
                bucket = self._buckets[slot] = TokenBucket(rate=calls / seconds, burst=int(calls))
        wait = bucket.try_acquire()
        if wait is not None:
            raise RateLimited(entry.name, wait, bucket)

    async def run(
        self, entry: Any, arguments: dict[str, Any], execute: Callable[[], Awaitable[dict[str, Any]]]
    ) -> dict[str, Any]:
        """Run `execute` under the tool's timeout, replaying a stored result for a repeated key."""
        if entry.timeout is None and not entry.idempotency_key:
            return await execute()  # the common case: nothing to wrap it in

        async def timed() -> dict[str, Any]:
            if entry.timeout is None:
                return await execute()
            with anyio.fail_after(entry.timeout):
                return await execute()

        if not entry.idempotency_key:
            return await timed()
        key = str(arguments.get(KEY_PARAMETER, ""))  # validated by the input schema already
        scope = Scope(self.server_name, current_client(), entry.name, self.definition(entry))
        # The run's claim on the key lasts as long as the run may: its timeout bounds it (plus a
        # margin for the answer to be stored); without one, the store's default lease.
        lease = entry.timeout + 60.0 if entry.timeout is not None else DEFAULT_LEASE

        def replay_or_run() -> dict[str, Any]:
            # The store blocks duplicates until the first finishes (and opens a file on first use),
            # so it runs on a worker thread and hands the real work back to the server loop.
            result: dict[str, Any] = self.idempotency().run(
                scope, key, arguments, lambda: anyio.from_thread.run(timed), lease=lease
            )
            return result

        return await anyio.to_thread.run_sync(replay_or_run)

    def definition(self, entry: Any) -> str:
        """The fingerprint of `entry`'s definition (its schemas), computed once per definition."""
        with self._lock:
            found = self._definitions.get(entry)
            if found is None:
                found = self._definitions[entry] = definition_fingerprint(
                    entry.input_schema, entry.output_schema
                )
            return found

    def store(self) -> Store:
        """The server's `Store`, opened on first use (a server that keeps nothing opens no file)."""
        with self._lock:
            if self._store is None:
                self._store = self._open_store()
            return self._store

    def idempotency(self) -> IdempotencyStore:
        """Idempotent results, in the server's store."""
        store = self.store()
        with self._lock:
            if self._idempotency is None:
                self._idempotency = IdempotencyStore(store=store)
            return self._idempotency

    def finish(
        self, result: dict[str, Any], output_schema: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """`result` sanitized; with an `output_schema`, structured content that still conforms to it.

        Removing control characters from structured content can break a constraint the tool met
        (a ``pattern``, a ``const``, a ``minLength``): the client would then reject the result,
        so the model gets an error result saying why instead.
        """
        clean = sanitize_result(result, self.max_output_chars)
        structured = clean.get("structuredContent")
        if output_schema is None or structured is None or structured is result.get("structuredContent"):
            return clean
        problems = argument_problems(compile_validator(output_schema), structured, output=True)
        if not problems:
            return clean
        return error_result(t("guard.unclean_output", problems="; ".join(problems)))

    def close(self) -> None:
        if self._store is not None and self._owns_store:
            self._store.close()
