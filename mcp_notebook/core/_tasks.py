"""Tasks: a ``tools/call`` that outlives its request, as one record in the `Store`, the same in both eras.

A client that supports tasks gets a task id at once and polls for the result, so a long notebook
function never hits a client's request timeout. The protocol eras spell tasks differently (the
2026-07-28 ``io.modelcontextprotocol/tasks`` extension, the 2025-11-25 tasks utility); both are
thin adapters in the server over the one model here:

- `TaskRecord`: what a task is, as plain JSON (status, progress, result or error, the questions
  it waits on, its lifecycle), so any store holds it and any replica reads it.
- `TaskBook`: where records live: the store's `TASKS` namespace, under ``Scope(server, owner)``
  of the identity that made the call. Another identity's task id reads as unknown.

Statuses: ``working`` and ``input_required`` run; ``completed``, ``failed`` and ``cancelled`` are
terminal, and a record never leaves a terminal status. A tool's ``isError`` result is a
``completed`` task whose result says so; ``failed`` is for JSON-RPC errors (each era renders it).

How long a task is kept (``ttl``): `DEFAULT_TTL` seconds after it ends (1 hour), at most `MAX_TTL`
(24 hours). While a task runs, its process renews it every `HEARTBEAT` seconds; a record whose
process is gone (a kernel restart) is marked failed, saying why (`stale`).

Pure: no threads, no SDK. The live side (jobs, cancellation, the wire) is `mcp_notebook.server._tasks`.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ._store import TASKS, Scope, Store
from ._text import t

EXTENSION = "io.modelcontextprotocol/tasks"
"""The 2026-07-28 tasks extension's identifier (SEP-2663)."""
RELATED_TASK = "io.modelcontextprotocol/related-task"
"""The 2025-11-25 ``_meta`` key that ties a message to its task."""
PROGRESS_META = "io.github.mcp-notebook/progress"
"""Where a task's last progress report travels in ``_meta`` (``{progress, total, message}``), for clients
that show a bar; every client sees it in ``statusMessage`` too."""

TaskSupport = Literal["optional", "required", "never"]
TASK_SUPPORT: tuple[TaskSupport, ...] = ("optional", "required", "never")

WORKING = "working"
INPUT_REQUIRED = "input_required"
COMPLETED = "completed"
FAILED = "failed"
CANCELLED = "cancelled"
TERMINAL = frozenset({COMPLETED, FAILED, CANCELLED})

DEFAULT_TTL = 3600.0
"""Seconds a finished task (and its result) stays readable: one hour."""
MAX_TTL = 86400.0
"""The longest a client may ask a task to be kept (2025-11-25 ``task.ttl``): one day."""
HEARTBEAT = 10.0
"""Seconds between the renewals of a running task by the process that runs it."""
STALE_AFTER = 3 * HEARTBEAT
"""A running task not renewed for this long, by a process on another machine, has lost its process."""
MAX_LISTED = 1000
"""The most recent tasks of one identity that ``tasks/list`` (2025-11-25) can show."""

_INDEX = "#index"  # the tool field of an identity's list of tasks: no tool name holds a '#'
# The tool field of what other processes leave for the process that runs a task (`TaskBook.leave`).
_INBOX = "#inbox"
_RUNNING = "#server"  # the identity of the server's list of running tasks: no client name starts so
_PROCESS = f"{socket.gethostname()}:{os.getpid()}"


def new_task_id() -> str:
    """An unguessable task id: 192 random bits, URL- and header-safe."""
    return secrets.token_urlsafe(24)


def check_task_support(value: Any) -> TaskSupport:
    """`value` if it is a task setting (``"optional"``, ``"required"``, ``"never"``), else ValueError."""
    if value not in TASK_SUPPORT:
        raise ValueError(t("task.bad_support", value=repr(value)))
    return value  # type: ignore[no-any-return]


def check_task_ttl(value: Any) -> float:
    """`value` as seconds to keep finished tasks: above 0 and at most `MAX_TTL`, else ValueError."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_TTL:
        raise ValueError(t("task.bad_ttl", value=repr(value), max=int(MAX_TTL)))
    return float(value)


def iso(moment: float, now: float) -> str:
    """A store time as ISO 8601 in UTC, to the millisecond: ``2026-07-28T10:30:00.000Z``.

    `now` is the store's clock now: a store may count time its own way (a monotonic clock in
    memory, a test's clock), so the moment is placed that far before the wall clock's now.
    """
    wall = time.time() - (now - moment)
    stamp = _dt.datetime.fromtimestamp(wall, _dt.UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


@dataclass
class TaskRecord:
    """One task, as plain data: what the store keeps and every era's answer is made from.

    Attributes
    ----------
    task_id:
        The unguessable id the client holds.
    owner:
        The identity whose call made it (the only one that can read, answer or cancel it).
    claimed:
        What the client said it is (``clientInfo.name``): shown, never trusted.
    tool, arguments:
        The call.
    era:
        The protocol version of the request that made it.
    ttl:
        Seconds the task stays readable after it ends.
    runner:
        The process that runs it (``host:pid``): a restarted kernel is another process.
    status, message:
        The status and the ``statusMessage`` (progress, waiting for a person, why it failed).
    progress:
        The tool's last progress report: ``{"progress", "total", "message"}``.
    result, error:
        A completed task's ``CallToolResult`` (``isError`` included), or a failed one's JSON-RPC error.
    pending:
        The questions it waits on (``input_required``), by key, as the wire shows them.
    used_keys:
        Every question key issued (a key is never reused within a task).
    events:
        Its lifecycle, ``[time, what]``: created, waiting, cancelled by ..., completed ...
    """

    task_id: str
    server: str
    owner: str
    tool: str
    arguments: dict[str, Any]
    era: str
    created: float
    updated: float
    ttl: float = DEFAULT_TTL
    runner: str = _PROCESS
    claimed: str | None = None
    status: str = WORKING
    message: str | None = None
    progress: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)
    used_keys: list[str] = field(default_factory=list)
    events: list[list[Any]] = field(default_factory=list)
    ended: float | None = None
    cancelled_by: str | None = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def is_error(self) -> bool:
        """Whether the task ended without a usable result: an error, a cancel, or an ``isError`` result."""
        return self.status in (FAILED, CANCELLED) or bool((self.result or {}).get("isError"))

    def note(self, now: float, what: str) -> None:
        """Add a step to the lifecycle (and touch `updated`)."""
        self.updated = now
        self.events.append([now, what])

    def end(self, now: float, status: str, *, message: str | None = None) -> bool:
        """Move to the terminal `status` unless already terminal; whether it moved."""
        if self.terminal:
            return False
        self.status, self.ended, self.pending = status, now, {}
        if message is not None:
            self.message = message
        self.note(now, status)
        return True

    def ttl_ms(self, now: float) -> int:
        """The task's time to live in ms from its creation: it grows while the task runs, so no
        running task ever expires; once it ended it is fixed at `ttl` seconds after the end."""
        until = (self.ended if self.ended is not None else now) + self.ttl
        return max(1, round((until - self.created) * 1000))

    def poll_ms(self, now: float) -> int:
        """How often a client should ask: soon at first, less often as the task runs on."""
        if self.status == INPUT_REQUIRED:
            return 1000
        elapsed = now - self.created
        return 500 if elapsed < 10 else 2000 if elapsed < 120 else 5000

    def expires(self, now: float) -> float:
        """Seconds the store keeps it from `now`: the retention after its end, or, while it runs,
        the retention after the last renewal (a record whose process died expires on its own)."""
        base = self.ended if self.ended is not None else now
        return max(1.0, base + self.ttl - now)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> TaskRecord | None:
        """The record `data` holds, or None when it is not one (a store entry of another shape)."""
        if not isinstance(data, dict) or not isinstance(data.get("task_id"), str):
            return None
        names = {f.name for f in dataclasses.fields(cls)}
        try:
            return cls(**{key: value for key, value in data.items() if key in names})
        except TypeError:
            return None


def stale(record: TaskRecord, now: float, *, process: str = _PROCESS) -> bool:
    """Whether a running `record` has lost the process that ran it.

    On this machine, its process no longer exists (a restarted or dead kernel); on another
    machine (a replica), it has not been renewed for `STALE_AFTER` seconds.
    """
    if record.terminal or record.runner == process:
        return False
    host, _, pid = record.runner.rpartition(":")
    if host == socket.gethostname() and pid.isdigit():
        return not _alive(int(pid))
    return now - record.updated > STALE_AFTER


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


class TaskBook:
    """Task records in a `Store`: each under the scope of its owner, found only by its owner.

    Two lists make the records findable without a key: each identity's recent tasks (for
    ``tasks/list``) and the server's running tasks (for the sweep after a restart). Both are
    rewritten under a lock of this process; a record itself is the truth (a list entry whose
    record is gone or ended is dropped when next read).

    Parameters
    ----------
    store:
        Opens (or returns) the server's store.
    server:
        The server's name: tasks of another notebook are never found here.
    """

    def __init__(self, store: Callable[[], Store], server: str) -> None:
        self._store = store
        self.server = server
        self.process = _PROCESS
        self._lock = threading.Lock()

    def now(self) -> float:
        return self._store().now()

    def scope(self, owner: str) -> Scope:
        return Scope(self.server, owner)

    def save(self, record: TaskRecord) -> None:
        """Store `record` as it is now (its time to live follows its status)."""
        store = self._store()
        store.put(
            TASKS, self.scope(record.owner), record.task_id, record.to_json(), ttl=record.expires(store.now())
        )

    def load(self, owner: str, task_id: Any) -> TaskRecord | None:
        """The task `task_id` of `owner`, or None: unknown, expired, or another identity's."""
        if not isinstance(task_id, str) or not 0 < len(task_id) <= 200:
            return None
        record = TaskRecord.from_json(self._store().get(TASKS, self.scope(owner), task_id))
        return record if record is not None and record.task_id == task_id and record.owner == owner else None

    def created(self, record: TaskRecord) -> None:
        """Store a new task and list it: for its owner, and among the server's running tasks."""
        self.save(record)
        with self._lock:
            mine = self._list(self.scope(record.owner), _INDEX)
            mine = [*[task for task in mine if task != record.task_id][-(MAX_LISTED - 1) :], record.task_id]
            self._write_list(self.scope(record.owner), _INDEX, mine)
            running = self._running()
            running[record.task_id] = record.owner
            self._write_running(running)

    def ended(self, record: TaskRecord) -> None:
        """Store a task that ended, and take it off the server's running tasks."""
        self.save(record)
        with self._lock:
            running = self._running()
            if running.pop(record.task_id, None) is not None:
                self._write_running(running)

    def leave(self, owner: str, task_id: str, *, cancel: Mapping[str, Any] | None = None, responses: Mapping[str, Any] | None = None) -> None:  # fmt: skip
        """Leave a cancel or answers for the process that runs `owner`'s task (a replica sharing the store).

        Not in the record, which that process writes as the task goes on and would write over them:
        in an entry of its own that it only reads (`inbox`), kept as long as a task at most lives.
        """
        scope = Scope(self.server, owner, _INBOX)
        store = self._store()
        with self._lock:
            held = self.inbox(owner, task_id)
            note: dict[str, Any] = {"responses": {**held.get("responses", {}), **(responses or {})}}
            if cancel is not None or "cancel" in held:
                note["cancel"] = dict(cancel) if cancel is not None else held["cancel"]
            store.put(TASKS, scope, task_id, note, ttl=MAX_TTL)

    def inbox(self, owner: str, task_id: str) -> dict[str, Any]:
        """What other processes left for `owner`'s task: ``{"cancel": {"message", "by"}, "responses": {...}}``."""
        held = self._store().get(TASKS, Scope(self.server, owner, _INBOX), task_id, {})
        if not isinstance(held, dict):
            return {}
        responses = held.get("responses")
        cancel = held.get("cancel")
        note: dict[str, Any] = {"responses": responses if isinstance(responses, dict) else {}}
        if isinstance(cancel, dict):
            note["cancel"] = cancel
        return note

    def listed(self, owner: str) -> list[str]:
        """The ids of `owner`'s recent tasks, oldest first (some may have expired since)."""
        with self._lock:
            return self._list(self.scope(owner), _INDEX)

    def running(self) -> dict[str, str]:
        """The server's tasks not known to have ended: id -> owner."""
        with self._lock:
            return self._running()

    # -- the lists ----------------------------------------------------------------------------------------
    def _list(self, scope: Scope, tool: str) -> list[str]:
        value = self._store().get(TASKS, Scope(scope.server, scope.identity, tool), "tasks", [])
        return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []

    def _write_list(self, scope: Scope, tool: str, items: list[str]) -> None:
        self._store().put(TASKS, Scope(scope.server, scope.identity, tool), "tasks", items, ttl=MAX_TTL)

    def _running(self) -> dict[str, str]:
        value = self._store().get(TASKS, Scope(self.server, _RUNNING), "running", {})
        return {k: v for k, v in value.items() if isinstance(v, str)} if isinstance(value, dict) else {}

    def _write_running(self, running: dict[str, str]) -> None:
        self._store().put(TASKS, Scope(self.server, _RUNNING), "running", running, ttl=MAX_TTL)
