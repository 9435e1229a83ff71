"""Idempotency keys: a retried call returns the first call's result instead of acting twice.

A model retries when an answer is lost (a client timeout, a dropped connection), and a tool that
creates an order would create two. Such a tool takes an ``idempotency_key``; `IdempotencyStore.run`
stores the first result for a key in its `Scope` and returns it for every repeat within the
retention. Results live in a `Store` (namespace `IDEMPOTENCY`), by default the SQLite file in the
user cache folder, so a kernel restart loses nothing.

Rules, each one a choice:

- A key is scoped (`Scope`) to the serving notebook (its server name), the identity that called
  (proven by its credential), and the tool: another notebook, another client or another tool never
  sees the result. The same notebook after a kernel restart keeps its name, so a client's retry
  is still recognised.
- A stored result remembers the definition of the tool it came from (a fingerprint of its input
  and output schemas). A repeat under a changed definition raises `IdempotencyConflict` rather
  than replaying a result the new definition never made, and rather than running the operation
  a second time: the first call did happen, and only the caller can tell whether it must be
  redone (with a new key).
- A repeat must send the same arguments (compared as a hash of their canonical JSON, without the
  key itself); different arguments raise `IdempotencyConflict`, an error result for the model.
- Concurrent duplicates run the function once (`Store.run_once`): the others wait and get its
  result. Duplicates in the same process share its outcome, success or failure; a duplicate in
  another process sharing the store runs the function itself after a failure.
- Failures are not stored: after an exception, or a result with ``isError: true``, a retry with the
  same key runs the function again (the operation did not happen, or the tool itself must make a
  partial one safe to redo).
- Expired entries are purged by the store.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from ._errors import ToolError
from ._store import (
    DEFAULT_LEASE,
    IDEMPOTENCY,
    Once,
    OtherDefinition,
    OtherRequest,
    Scope,
    StillRunning,
    Store,
    default_path,
)
from ._store_sqlite import SQLiteStore
from ._text import t

__all__ = [
    "DEFAULT_RETENTION",
    "KEY_PARAMETER",
    "IdempotencyConflict",
    "IdempotencyStore",
    "Scope",
    "canonical_arguments",
    "default_path",
    "definition_fingerprint",
    "human_duration",
    "idempotency_key_schema",
]


KEY_PARAMETER = "idempotency_key"
DEFAULT_RETENTION = 24 * 3600.0


class IdempotencyConflict(ToolError):
    """The same idempotency key came back with different arguments, or for a redefined tool."""


# Keywords that only describe a schema: rewording a docstring (or switching the message language)
# must not make every earlier key conflict.
_ANNOTATIONS = frozenset({"description", "title", "examples", "$comment"})
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def _shape(schema: Any) -> Any:
    if isinstance(schema, Mapping):
        return {
            key: ({name: _shape(sub) for name, sub in value.items()} if key in _SCHEMA_MAPS and
                  isinstance(value, Mapping) else _shape(value))
            for key, value in schema.items()
            if key not in _ANNOTATIONS
        }  # fmt: skip
    if isinstance(schema, list):
        return [_shape(item) for item in schema]
    return schema


def definition_fingerprint(input_schema: Mapping[str, Any], output_schema: Mapping[str, Any] | None) -> str:
    """A short digest of what a tool takes and returns (its schemas without descriptions and titles)."""
    shape = [_shape(input_schema), _shape(output_schema)]
    text = json.dumps(shape, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def human_duration(seconds: float) -> str:
    """``86400`` → ``"24 hours"`` (``"24시간"`` in Korean): the largest whole unit that fits exactly."""
    if seconds == 3600:
        return t("duration.hour")
    if seconds >= 3600 and seconds % 3600 == 0:
        return t("duration.hours", n=int(seconds // 3600))
    if seconds >= 60 and seconds % 60 == 0:
        return t("duration.minutes", n=int(seconds // 60))
    return t("duration.seconds", n=f"{seconds:g}")


def idempotency_key_schema(retention: float = DEFAULT_RETENTION) -> dict[str, Any]:
    """The JSON Schema of the ``idempotency_key`` parameter, with a description written for the model."""
    return {
        "type": "string",
        "minLength": 16,
        "maxLength": 64,
        "description": t("idem.description", retention=human_duration(retention)),
    }


def canonical_arguments(arguments: Mapping[str, Any]) -> str:
    """The arguments as canonical JSON (sorted keys, no spaces), without the idempotency key."""
    plain = {k: v for k, v in arguments.items() if k != KEY_PARAMETER}
    return json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


class IdempotencyStore:
    """First results of idempotent tool calls, kept in a `Store`.

    Thread-safe; usable as a context manager (which closes a store it opened itself). See the
    module docstring for the rules.

    Parameters
    ----------
    path:
        The SQLite file to open (default: `default_path()`), or ``":memory:"``; ignored with `store`.
        Created readable by its owner only: results can hold private data.
    retention:
        Seconds a key and its result are kept (default 24 hours).
    clock:
        Wall-clock seconds (``time.time``) of the SQLite store opened here; a given `store` has its own.
    wait_timeout:
        Seconds a duplicate waits for the first call to finish before it gets an error asking
        the model to retry; ``None`` waits as long as it takes.
    store:
        The `Store` to keep results in (the server's), instead of opening `path`. Not closed here.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        retention: float = DEFAULT_RETENTION,
        clock: Callable[[], float] = time.time,
        wait_timeout: float | None = None,
        store: Store | None = None,
    ) -> None:
        if retention <= 0:
            raise ValueError(f"retention must be > 0 seconds, got {retention!r}")
        self.retention = retention
        self.wait_timeout = wait_timeout
        self._owns_store = store is None
        self.store = store if store is not None else SQLiteStore(path, clock=clock)
        self.path = getattr(self.store, "path", None)

    def run(
        self,
        scope: Scope,
        key: str,
        arguments: Mapping[str, Any],
        fn: Callable[[], Any],
        *,
        lease: float = DEFAULT_LEASE,
    ) -> Any:
        """The stored result of `key` in `scope`, or `fn()`'s result, stored for the repeats.

        Parameters
        ----------
        scope:
            Which notebook, which identity, which tool (and its definition).
        key:
            The model's idempotency key.
        arguments:
            The call's arguments (the key among them is ignored).
        fn:
            Does the work; returns a JSON-serializable value (usually a ``CallToolResult``-shaped
            dict). Repeats get the value back as stored JSON, so the first caller receives the same
            round-tripped value. A dict with ``"isError": true`` is returned but not stored.
        lease:
            Seconds the call may run before its claim on the key counts as abandoned.

        Raises
        ------
        IdempotencyConflict
            The key was used before with different arguments, or for another definition of the tool.
        ToolError
            The key is malformed, or a duplicate waited longer than `wait_timeout`.
        """
        once = self.begin(scope, key, arguments, lease=lease)
        if once.done:
            return once.value
        try:
            value = fn()
        except BaseException as exc:
            self.abandon(once, exc)
            raise
        return self.finish(once, value)

    def begin(
        self, scope: Scope, key: str, arguments: Mapping[str, Any], *, lease: float = DEFAULT_LEASE
    ) -> Once:
        """The stored result of `key` (`Once.done`), or the key held for the caller to run the call.

        A held key is ended once: `finish` with the result, or `abandon`. Raises as `run` does.
        """
        if not isinstance(key, str) or not 16 <= len(key) <= 64:
            raise ToolError(t("idem.bad_key", got=repr(key)[:80]))
        request = json.loads(canonical_arguments(arguments))
        try:
            return self.store.begin_once(
                IDEMPOTENCY, scope, key, request, lease=lease, wait_timeout=self.wait_timeout
            )
        except OtherDefinition:
            raise IdempotencyConflict(t("idem.definition_changed", key=key, tool=scope.tool)) from None
        except OtherRequest as conflict:
            old = conflict.stored if isinstance(conflict.stored, dict) else {}
            fields = sorted(k for k in old.keys() | request.keys() if old.get(k, ...) != request.get(k, ...))
            message = t("idem.conflict", key=key, tool=scope.tool, fields=", ".join(fields))
            raise IdempotencyConflict(message) from None
        except StillRunning:
            raise ToolError(t("idem.in_progress", tool=scope.tool)) from None

    def finish(self, once: Once, result: Any) -> Any:
        """End a held key with the call's result: stored unless it is an error result; returned as
        stored JSON, so the first caller gets what the repeats will get."""
        try:
            stored = json.loads(json.dumps(result, ensure_ascii=False, allow_nan=False))
        except BaseException as exc:
            self.abandon(once, exc)
            raise
        return self.store.end_once(
            once, stored, ttl=self.retention, keep=lambda kept: not _is_error_result(kept)
        )

    def abandon(self, once: Once, error: BaseException | None) -> None:
        """End a held key with no result: a retry runs the call again; duplicates waiting in this
        process raise `error` (None: the call gave up before any outcome, and one of them runs it)."""
        self.store.fail_once(once, error)

    def __len__(self) -> int:
        """How many unexpired keys are stored."""
        return self.store.count(IDEMPOTENCY)

    def close(self) -> None:
        """Close the store if it was opened here; safe to call twice."""
        if self._owns_store:
            self.store.close()

    def __enter__(self) -> IdempotencyStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _is_error_result(result: Any) -> bool:
    return isinstance(result, dict) and result.get("isError") is True
