"""Idempotency keys: a retried call returns the first call's result instead of acting twice.

A model retries when an answer is lost (a client timeout, a dropped connection), and a tool that
creates an order would create two. Such a tool takes an ``idempotency_key``; `IdempotencyStore.run`
stores the first result for a key in its `Scope` and returns it for every repeat within the
retention. Results live in SQLite, so a kernel restart loses nothing.

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
- Concurrent duplicates in this process run the function once; the others wait and share its
  outcome, success or failure. Processes sharing one file are not coordinated beyond SQLite's
  own locking.
- Failures are not stored: after an exception, or a result with ``isError: true``, a retry with the
  same key runs the function again (the operation did not happen, or the tool itself must make a
  partial one safe to redo).
- Expired entries are deleted lazily, on the next `run`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._errors import ToolError
from ._text import t

KEY_PARAMETER = "idempotency_key"
DEFAULT_RETENTION = 24 * 3600.0
_SCHEMA_VERSION = 2  # 2: scoped by server name and tool definition; older files start empty


class IdempotencyConflict(ToolError):
    """The same idempotency key came back with different arguments, or for a redefined tool."""


@dataclass(frozen=True)
class Scope:
    """Where an idempotency key lives: whose key it is, for what. Part of every stored result's key.

    Attributes
    ----------
    server:
        The serving notebook's (or exported app's) name: ``srv.name``.
    identity:
        Who called, as its credential proves it (`mcp_notebook.current_client`).
    tool:
        The tool's name.
    definition:
        A fingerprint of the tool's definition (`definition_fingerprint`); not part of the lookup:
        a key found under another definition is a conflict, never a replay nor a second run.
    """

    server: str
    identity: str
    tool: str
    definition: str = ""

    @property
    def slot(self) -> tuple[str, str, str]:
        return (self.server, self.identity, self.tool)


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


def default_path() -> Path:
    """``$MCP_NOTEBOOK_CACHE_DIR`` or ``$XDG_CACHE_HOME/mcp-notebook`` (``~/.cache``), then ``idempotency.sqlite3``."""
    folder = os.environ.get("MCP_NOTEBOOK_CACHE_DIR")
    if not folder:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(cache, "mcp-notebook")
    return Path(folder) / "idempotency.sqlite3"


def canonical_arguments(arguments: Mapping[str, Any]) -> str:
    """The arguments as canonical JSON (sorted keys, no spaces), without the idempotency key."""
    plain = {k: v for k, v in arguments.items() if k != KEY_PARAMETER}
    return json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


@dataclass
class _Flight:
    """A first call still running; duplicates wait on `done` and share its outcome."""

    args_hash: str
    args_json: str
    definition: str
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None


class IdempotencyStore:
    """Durable first results of idempotent tool calls, in one SQLite file.

    Thread-safe; usable as a context manager. See the module docstring for the rules.

    Parameters
    ----------
    path:
        The SQLite file (default: `default_path()`), or ``":memory:"``. Created readable by its
        owner only: results can hold private data.
    retention:
        Seconds a key and its result are kept (default 24 hours).
    clock:
        Wall-clock seconds (``time.time``); wall time, because entries outlive the process.
    wait_timeout:
        Seconds a duplicate waits for the first call to finish before it gets an error asking
        the model to retry; ``None`` waits as long as it takes.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        retention: float = DEFAULT_RETENTION,
        clock: Callable[[], float] = time.time,
        wait_timeout: float | None = None,
    ) -> None:
        if retention <= 0:
            raise ValueError(f"retention must be > 0 seconds, got {retention!r}")
        self.path = str(path) if path is not None else str(default_path())
        self.retention = retention
        self.wait_timeout = wait_timeout
        self._clock = clock
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        # One connection shared under a lock: simpler than one per thread, and calls are short.
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()
        self._flights: dict[tuple[str, str, str, str], _Flight] = {}
        with self._lock:
            (version,) = self._db.execute("PRAGMA user_version").fetchone()
            if version < _SCHEMA_VERSION:
                # Results stored before keys were scoped by notebook and definition cannot be told
                # apart by notebook: replaying one could hand over another notebook's result.
                self._db.execute("DROP TABLE IF EXISTS results")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS results (server TEXT NOT NULL, client TEXT NOT NULL, "
                "tool TEXT NOT NULL, key TEXT NOT NULL, definition TEXT NOT NULL, args_hash TEXT NOT NULL, "
                "args_json TEXT NOT NULL, result_json TEXT NOT NULL, created REAL NOT NULL, "
                "PRIMARY KEY (server, client, tool, key))"
            )
            self._db.execute("CREATE INDEX IF NOT EXISTS results_created ON results (created)")
            self._db.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")

    def run(self, scope: Scope, key: str, arguments: Mapping[str, Any], fn: Callable[[], Any]) -> Any:
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

        Raises
        ------
        IdempotencyConflict
            The key was used before with different arguments, or for another definition of the tool.
        ToolError
            The key is malformed, or a duplicate waited longer than `wait_timeout`.
        """
        if not isinstance(key, str) or not 16 <= len(key) <= 64:
            raise ToolError(t("idem.bad_key", got=repr(key)[:80]))
        args_json = canonical_arguments(arguments)
        args_hash = hashlib.sha256(args_json.encode("utf-8")).hexdigest()
        tool, definition = scope.tool, scope.definition
        slot = (*scope.slot, key)
        with self._lock:
            now = self._clock()
            self._db.execute("DELETE FROM results WHERE created <= ?", (now - self.retention,))
            row = self._db.execute(
                "SELECT definition, args_hash, args_json, result_json FROM results "
                "WHERE server=? AND client=? AND tool=? AND key=?",
                slot,
            ).fetchone()
            if row is not None:
                _check_definition(row[0], definition, tool, key)
                self._check(row[1], row[2], args_hash, args_json, tool, key)
                return json.loads(row[3])
            flight = self._flights.get(slot)
            if flight is None:
                flight = self._flights[slot] = _Flight(args_hash, args_json, definition)
                owner = True
            else:
                _check_definition(flight.definition, definition, tool, key)
                self._check(flight.args_hash, flight.args_json, args_hash, args_json, tool, key)
                owner = False
        if not owner:
            if not flight.done.wait(self.wait_timeout):
                raise ToolError(t("idem.in_progress", tool=tool))
            if flight.error is not None:
                raise flight.error
            return flight.result
        try:
            result_json = json.dumps(fn(), ensure_ascii=False, allow_nan=False)
            result = json.loads(result_json)
            if not _is_error_result(result):
                with self._lock:
                    self._db.execute(
                        "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (*slot, definition, args_hash, args_json, result_json, self._clock()),
                    )
        except BaseException as exc:
            flight.error = exc
            raise
        else:
            flight.result = result
            return result
        finally:
            with self._lock:
                self._flights.pop(slot, None)
            flight.done.set()

    def __len__(self) -> int:
        """How many unexpired keys are stored."""
        with self._lock:
            cutoff = self._clock() - self.retention
            (count,) = self._db.execute(
                "SELECT COUNT(*) FROM results WHERE created > ?", (cutoff,)
            ).fetchone()
        return int(count)

    def close(self) -> None:
        """Close the database; safe to call twice."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> IdempotencyStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def _check(old_hash: str, old_json: str, new_hash: str, new_json: str, tool: str, key: str) -> None:
        if old_hash == new_hash:
            return
        old, new = json.loads(old_json), json.loads(new_json)
        fields = sorted(k for k in old.keys() | new.keys() if old.get(k, ...) != new.get(k, ...))
        raise IdempotencyConflict(t("idem.conflict", key=key, tool=tool, fields=", ".join(fields)))


def _check_definition(stored: str, current: str, tool: str, key: str) -> None:
    if stored != current:
        raise IdempotencyConflict(t("idem.definition_changed", key=key, tool=tool))


def _is_error_result(result: Any) -> bool:
    return isinstance(result, dict) and result.get("isError") is True
