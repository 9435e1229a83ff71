"""Idempotency keys of one server's calls: the guardrail of the pipeline's idempotency step.

A tool that takes an ``idempotency_key`` runs once per key (`core._idempotency` has the rules): the
step holds the key (`IdempotentCalls.begin`) before the tool runs, and ends it with the result
(`finish`) or without one (`abandon`). A key is scoped to this server, the identity that called,
the tool and the tool's definition.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from ..core._idempotency import KEY_PARAMETER, IdempotencyStore, Scope, definition_fingerprint
from ..core._store import DEFAULT_LEASE, Once, Store
from ..core._tool_entry import ToolEntry


class IdempotentCalls:
    """Holds and ends the idempotency keys of one server's calls, in its store (opened on first use).

    Every method may wait on the store (a file, or the network) and on duplicates still running:
    call them off the loop.
    """

    def __init__(self, store: Callable[[], Store], server_name: str) -> None:
        self._store = store
        self.server_name = server_name
        self._results: IdempotencyStore | None = None
        self._definitions: weakref.WeakKeyDictionary[ToolEntry, str] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def begin(self, entry: ToolEntry, client: str, arguments: Mapping[str, Any]) -> Once:
        """The stored result of this call's key (`Once.done`), or the key held for this call.

        Raises `ToolError` (a malformed key, a duplicate that waited too long) or
        `IdempotencyConflict` (the key used with other arguments, or for another definition).
        """
        key = str(arguments.get(KEY_PARAMETER, ""))  # validated by the input schema already
        scope = Scope(self.server_name, client, entry.name, self.definition(entry))
        # The claim on the key lasts as long as the run may: its timeout bounds it (plus a margin
        # for the answer to be stored); without one, the store's default lease.
        lease = entry.timeout + 60.0 if entry.timeout is not None else DEFAULT_LEASE
        return self.results().begin(scope, key, arguments, lease=lease)

    def finish(self, once: Once, result: dict[str, Any]) -> dict[str, Any]:
        """End a held key with the call's result (kept unless an error result); the result as stored."""
        stored: dict[str, Any] = self.results().finish(once, result)
        return stored

    def abandon(self, once: Once, error: BaseException | None) -> None:
        """End a held key with no result (`IdempotencyStore.abandon`)."""
        self.results().abandon(once, error)

    def definition(self, entry: ToolEntry) -> str:
        """The fingerprint of `entry`'s definition (its schemas), computed once per definition."""
        with self._lock:
            found = self._definitions.get(entry)
            if found is None:
                found = self._definitions[entry] = definition_fingerprint(
                    entry.input_schema, entry.output_schema
                )
            return found

    def results(self) -> IdempotencyStore:
        """Idempotent results, in the server's store."""
        store = self._store()
        with self._lock:
            if self._results is None:
                self._results = IdempotencyStore(store=store)
            return self._results
