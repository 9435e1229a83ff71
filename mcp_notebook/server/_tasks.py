"""Tasks while they run: the jobs, their cancellation and questions, one model for both eras.

A task is a ``tools/call`` of the call pipeline (`_calls`) whose steps run as a job in the
server's own task group instead of inside the request: its one `Call` record is finished when the
job ends, however that is, and its state lives in the store (`core._tasks.TaskBook`), written
through before any client learns the task's id. The wire adapters (`_tasks_modern` for the
2026-07-28 extension, `_tasks_legacy` for the 2025-11-25 utility) only render records and route
requests here.

What lives only while a task runs (not in the store) is its `TaskRun`: the job, the event that
cancels it (`Context.cancelled`), the stopper of a kernel call, the approval it waits for, and the
futures of the questions it asked. A task is cancelled at once (its record says ``cancelled``
before the client is answered); the work stops at the tool's next `Context` call, a kernel call is
interrupted like a cell, an approval prompt is withdrawn, and a thread that never looks is
abandoned after `TaskManager.cancel_grace` seconds (counted as the worker pool counts timeouts).

Each running task is renewed in the store every `HEARTBEAT` seconds; a cancel written there by
another process (a replica sharing the store) is seen then. When the server starts, tasks a
previous process left running are marked failed, saying the kernel restarted (`_task_records`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict, Field

from ..core._approval_request import ApprovalRequest
from ..core._context import CallCancelled, Context
from ..core._questions import ProtocolRefusal
from ..core._tasks import (
    CANCELLED,
    COMPLETED,
    DEFAULT_TTL,
    FAILED,
    HEARTBEAT,
    INPUT_REQUIRED,
    WORKING,
    TaskBook,
    TaskRecord,
)
from ..core._text import t
from ..runtime._execution import Interruptible
from ._task_records import TaskRecords

logger = logging.getLogger(__name__)

Listener = Callable[[TaskRecord], None]


class TaskIdParams(BaseModel):
    """The params of ``tasks/get``, ``tasks/cancel`` and ``tasks/result`` (both eras).

    A model of our own, not a subclass of the SDK's (its models carry private machinery): ``_meta``
    and anything else the request holds are ignored here (the SDK has read them already).
    """

    model_config = ConfigDict(extra="ignore")

    task_id: str = Field(alias="taskId")


class TaskUpdateParams(TaskIdParams):
    """The params of ``tasks/update`` (2026-07-28): answers to the task's questions, by key."""

    input_responses: dict[str, Any] | None = Field(default=None, alias="inputResponses")


class Job:
    """One task's steps, run in the manager's task group: awaited for a while, or left running."""

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.result: Any = None
        self.error: BaseException | None = None
        self.scope: anyio.CancelScope | None = None
        self.cancelled = False  # its scope was cancelled (a stuck thread abandoned, the server stopping)


class TaskRun:
    """A task this process runs, and what only a running task has (see the module docstring)."""

    def __init__(self, record: TaskRecord, manager: TaskManager) -> None:
        self.record = record
        self.manager = manager
        self.cancel = threading.Event()
        self.stopper = Interruptible()
        self.job = Job()
        self.promoted = False  # the client holds its id (a record in the store answers for it)
        self.context: Context | None = None
        self.approval: ApprovalRequest | None = None
        self.kernel = False  # its tool runs on the kernel's main thread
        self.answers: dict[str, tuple[asyncio.Future[Any], str]] = {}  # wire key -> (answer, tool's key)
        self.sent: set[str] = set()  # 2025-11-25: questions a tasks/result stream has taken to the client
        self.changed = anyio.Event()  # set (and replaced) at every change: tasks/result waits on it
        self.lock = threading.Lock()  # the record, changed from a tool's thread (progress) and the loop
        self._saving = anyio.Lock()
        self._saved_at = 0.0
        self.on_finish: list[Callable[[TaskRun], None]] = []
        # 2025-11-25: tells the creating session of each change of status (optional in that era).
        self.notify: Callable[[TaskRecord], Awaitable[None]] | None = None
        self.notified = WORKING  # the status the client was last told (the answer told it "working")

    # -- what the tool's Context calls (`core._context.TaskChannel`) -------------------------------------
    def progress(self, value: float, total: float | None, message: str | None) -> None:
        """A progress report from the tool (any thread): the task's status message, stored soon."""
        with self.lock:
            if self.record.terminal:
                return
            self.record.progress = {"progress": value, "total": total, "message": message}
            self.record.message = progress_text(value, total, message)
            self.record.updated = self.manager.book.now()
        self.manager.touched(self, soon=True)

    async def ask(self, requests: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        """Put the questions on the task (``input_required``) and wait for the client's answers."""
        loop = asyncio.get_running_loop()
        asked: dict[str, asyncio.Future[Any]] = {}
        with self.lock:
            for key, request in requests.items():
                wire = key if key not in self.record.used_keys else f"{key}-{len(self.record.used_keys) + 1}"
                self.record.used_keys.append(wire)
                future: asyncio.Future[Any] = loop.create_future()
                self.answers[wire] = (future, key)
                self.record.pending[wire] = dict(request)
                asked[key] = future
            self._set_status(INPUT_REQUIRED, t("task.waiting_input", count=len(self.record.pending)))
        self.manager.touched(self)
        try:
            return {key: await future for key, future in asked.items()}
        except asyncio.CancelledError:
            if self.cancel.is_set() and any(future.cancelled() for future in asked.values()):
                raise CallCancelled(t("context.cancelled")) from None
            raise
        finally:
            with self.lock:
                for wire in [w for w, (f, _) in self.answers.items() if f in asked.values()]:
                    self.answers.pop(wire, None)
                    self.record.pending.pop(wire, None)
                if not self.record.pending and self.record.status == INPUT_REQUIRED:
                    self._set_status(WORKING, t("task.working"))
            self.manager.touched(self)

    def answer(self, responses: Mapping[str, Any]) -> None:
        """The client's answers, by wire key: those to outstanding questions count, the others are ignored."""
        with self.lock:
            for wire, raw in responses.items():
                found = self.answers.pop(wire, None)
                if found is None or found[0].done():
                    continue  # never asked, answered already, or cancelled: ignored (the spec's SHOULD)
                self.record.pending.pop(wire, None)
                found[0].set_result(raw)
            if not self.record.pending and self.record.status == INPUT_REQUIRED:
                self._set_status(WORKING, t("task.working"))
        self.manager.touched(self)

    def waiting(self, message: str) -> None:
        """Say in the status what the task waits for (a person, the kernel)."""
        with self.lock:
            if not self.record.terminal:
                self.record.message = message
                self.record.updated = self.manager.book.now()
        self.manager.touched(self, soon=True)

    def _set_status(self, status: str, message: str) -> None:
        if self.record.terminal:
            return
        if status != self.record.status:
            self.record.status = status
            self.record.note(self.manager.book.now(), status)
        self.record.message = message

    def end(self, status: str, message: str, *, error: dict[str, Any] | None = None) -> bool:
        """Move the record to a terminal status (False: it had one already); its questions are withdrawn."""
        with self.lock:
            moved = self.record.end(self.manager.book.now(), status, message=message)
            if moved and error is not None:
                self.record.error = error
        for future, _ in list(self.answers.values()):
            future.cancel()
        self.changed.set()
        self.changed = anyio.Event()
        return moved

    def stop(self) -> None:
        """Tell the work to stop: its Context, its approval prompt, a kernel call (on the loop)."""
        self.cancel.set()
        if self.context is not None:
            self.context.cancel()
        if self.approval is not None:
            self.approval._resolve("withdrawn")
        self.stopper.stop()

    def bind(self, context: Context) -> None:
        """The job made its tool's `Context`: once a task, it reports and asks through the run."""
        self.context = context
        if self.cancel.is_set():
            context.cancel()
        if self.promoted:
            context.become_task(self)

    def take_in(self, left: Mapping[str, Any]) -> bool:
        """Take in what another process left for this task (`TaskBook.inbox`): a cancel, or answers.

        Whether anything was new: the inbox is read again and again, and what was taken is ignored.
        """
        if self.record.terminal:
            return False
        cancel = left.get("cancel")
        if isinstance(cancel, dict):
            self.end(CANCELLED, str(cancel.get("message") or t("task.cancelled")))  # cancelled elsewhere
            with self.lock:
                self.record.cancelled_by = cancel.get("by")
            self.manager.stop_work(self)
            self.manager.tell(self)
            return True
        with self.lock:
            fresh = {key: value for key, value in left.get("responses", {}).items() if key in self.answers}
        if fresh:
            self.answer(fresh)
            return True
        return False

    def snapshot(self) -> TaskRecord:
        """A copy of the record as it is now, safe to read on any thread."""
        with self.lock:
            copy = TaskRecord.from_json(self.record.to_json())
        assert copy is not None
        return copy

    # -- store writes: in order, the latest state last -------------------------------------------------
    async def save(self) -> None:
        async with self._saving:
            record = self.snapshot()
            self._saved_at = self.manager.book.now()
            if not record.terminal and self.manager.shared:
                # Another process sharing the store may have cancelled it since and written so in the
                # record: take that in first, so as not to write a running task over it.
                left = await anyio.to_thread.run_sync(self.manager.book.inbox, record.owner, record.task_id)
                if self.take_in(left):
                    record = self.snapshot()
            write = self.manager.book.ended if record.terminal else self.manager.book.save
            await anyio.to_thread.run_sync(write, record)


class TaskManager:
    """The tasks of one server: its running `TaskRun`s, their jobs, and the store's records.

    Parameters
    ----------
    book:
        Where records live (the server's store, scoped to its name).
    ttl:
        Seconds a finished task stays readable (`serve(task_ttl=...)`).

    Attributes
    ----------
    promote_after:
        Seconds a 2026-07-28 call of an ``optional`` or ``required`` tool may take before it becomes
        a task; a call done sooner is answered at once (the spec's "immediate result").
    max_per_identity:
        Running tasks one identity may have; more calls are refused as a rate limit refuses.
    cancel_grace:
        Seconds a cancelled task's thread has to stop at its next `Context` call before it is
        abandoned.
    listeners:
        Told of every change of a running task (the panel's list of tasks).
    """

    def __init__(self, book: TaskBook, *, ttl: float = DEFAULT_TTL) -> None:
        self.book = book
        self.records = TaskRecords(book)  # tasks other processes run, through their records
        self.ttl = ttl
        self.promote_after = 0.5
        self.max_per_identity = 128
        self.cancel_grace = 5.0
        # Other processes share the store (an exported app's workers and replicas): a task's record
        # may be cancelled or answered through them, so it is read before it is written, and checked
        # every second rather than at each heartbeat.
        self.shared = False
        self.runs: dict[str, TaskRun] = {}
        self.listeners: list[Listener] = []
        self._group: anyio.abc.TaskGroup | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: anyio.Event | None = None
        self._stopped: anyio.Event | None = None

    @property
    def available(self) -> bool:
        """Whether jobs can run (the served app started the manager); else calls are answered at once."""
        return self._group is not None

    async def run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Own the jobs' task group while the server runs (started beside the HTTP listener)."""
        self._loop = asyncio.get_running_loop()
        self._stopping = stopping = anyio.Event()
        self._stopped = anyio.Event()
        try:
            await anyio.to_thread.run_sync(self.records.sweep)
        except Exception:  # a store that cannot be read now must not keep the server from starting
            logger.warning("could not mark the tasks of an earlier process failed", exc_info=True)
        async with anyio.create_task_group() as group:
            self._group = group
            group.start_soon(self._heartbeat)
            task_status.started()
            await stopping.wait()
            self._group = None  # nothing new starts from here on
            stopped = t("task.server_stopped")
            for run in list(self.runs.values()):
                if run.promoted and run.end(FAILED, stopped, error=_error(types.INTERNAL_ERROR, stopped)):
                    with contextlib.suppress(Exception):
                        await run.save()
                self.stop_work(run)
            group.cancel_scope.cancel()
        self._stopped.set()

    async def shutdown(self) -> None:
        """`stop`, and wait until every running task's end is stored (before the store closes)."""
        self.stop()
        if self._stopped is not None:
            with anyio.move_on_after(10):
                await self._stopped.wait()

    def stop(self) -> None:
        """End the jobs (the server stops): their tasks fail, saying so. Safe from any thread."""
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopping.set)

    # -- starting --------------------------------------------------------------------------------------
    def running_of(self, owner: str) -> int:
        return sum(1 for run in self.runs.values() if run.record.owner == owner and not run.record.terminal)

    def start(self, record: TaskRecord, work: Callable[[TaskRun], Awaitable[Any]]) -> TaskRun:
        """Start `work(run)` as a job (not yet a task any client knows of: `promote` makes it one)."""
        assert self._group is not None
        run = TaskRun(record, self)
        self.runs[record.task_id] = run
        self._group.start_soon(self._run_job, run, work)
        return run

    async def promote(self, run: TaskRun) -> None:
        """Make the job a task: the client is told its id once the store holds it (durably created)."""
        run.promoted = True
        if run.context is not None:
            run.context.become_task(run)
        run.record.note(self.book.now(), "created")
        async with run._saving:
            await anyio.to_thread.run_sync(self.book.created, run.snapshot())
        if run.job.done.is_set():
            await run.save()  # it ended while the record was being written: the end is the latest
        self.tell(run)

    async def _run_job(self, run: TaskRun, work: Callable[[TaskRun], Awaitable[Any]]) -> None:
        job = run.job
        try:
            with anyio.CancelScope() as scope:
                job.scope = scope
                try:
                    job.result = await work(run)
                except anyio.get_cancelled_exc_class():
                    raise
                except BaseException as exc:  # the job's outcome: never raised out of the group
                    job.error = exc
            job.cancelled = scope.cancelled_caught
        finally:
            job.done.set()
            if run.promoted:
                with anyio.CancelScope(shield=True):
                    await self._finished(run)
            else:
                self.runs.pop(run.record.task_id, None)

    async def _finished(self, run: TaskRun) -> None:
        status, message, error = ending(run)
        if status == COMPLETED:
            with run.lock:
                run.record.result = dict(run.job.result or {})
        run.end(status, message, error=error)
        record = run.record
        try:
            await run.save()
        except Exception:  # the store failed: the record in memory is gone with the run, say why in the log
            logger.exception("could not store the end of task %s", record.task_id)
        for callback in list(run.on_finish):  # the call's record, finished before the run is gone
            try:
                callback(run)
            except Exception:
                logger.exception("task finish callback failed")
        self.runs.pop(record.task_id, None)
        self.tell(run)

    # -- cancelling --------------------------------------------------------------------------------------
    async def cancel(self, owner: str, task_id: str, by: str) -> tuple[TaskRecord | None, bool]:
        """Cancel `owner`'s task `task_id`: its record says so at once; the work is told to stop.

        Returns the record and whether this cancelled it (False: it had ended already), or
        ``(None, False)`` when `owner` has no such task.
        """
        run = self.live(owner, task_id)
        if run is not None:
            moved = run.end(CANCELLED, t("task.cancelled_by", who=by))
            if moved:
                with run.lock:
                    run.record.cancelled_by = by
                self.stop_work(run)
                await run.save()
                self.tell(run)
            return run.snapshot(), moved
        record = await self.records.read(owner, task_id)
        if record is None or record.terminal:
            return record, False
        await self.records.cancel(record, by)  # another process runs it (a replica sharing the store)
        return record, True

    def cancel_soon(self, task_id: str, by: str) -> None:
        """Cancel a task of this process from any thread (the panel's Cancel button)."""
        run = self.runs.get(task_id)
        loop = self._loop
        if run is None or loop is None:
            return
        owner = run.record.owner

        def start() -> None:
            if self._group is not None:
                self._group.start_soon(self.cancel, owner, task_id, by)

        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(start)

    def stop_work(self, run: TaskRun) -> None:
        """Tell the work of `run` to stop (on the loop), and abandon a thread that never looks."""
        run.stop()
        if self._group is not None and not run.job.done.is_set():
            self._group.start_soon(self._abandon_if_stuck, run)

    async def _abandon_if_stuck(self, run: TaskRun) -> None:
        with anyio.move_on_after(self.cancel_grace):
            await run.job.done.wait()
        if not run.job.done.is_set() and run.job.scope is not None:
            run.job.scope.cancel()  # a thread that never looks at its Context: abandoned, counted

    # -- reading -----------------------------------------------------------------------------------------
    async def read(self, owner: str, task_id: Any) -> TaskRecord | None:
        """`owner`'s task `task_id` as it is now, or None (unknown, expired, another identity's)."""
        run = self.runs.get(task_id) if isinstance(task_id, str) else None
        if run is not None and run.promoted and run.record.owner == owner:
            return run.snapshot()
        return await self.records.read(owner, task_id)

    def live(self, owner: str, task_id: Any) -> TaskRun | None:
        """The run of `owner`'s task `task_id` if this process runs it."""
        run = self.runs.get(task_id) if isinstance(task_id, str) else None
        return run if run is not None and run.promoted and run.record.owner == owner else None

    # -- telling ------------------------------------------------------------------------------------------
    def touched(self, run: TaskRun, *, soon: bool = False) -> None:
        """A running task changed: wake who waits, tell the listeners, and store it (now, or within a second)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        if soon and self.book.now() - run._saved_at < 1.0:
            loop.call_soon_threadsafe(self.tell, run)
            return

        def later() -> None:
            run.changed.set()
            run.changed = anyio.Event()
            if run.promoted and self._group is not None:
                self._group.start_soon(run.save)
            self.tell(run)

        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(later)

    def tell(self, run: TaskRun) -> None:
        if not run.promoted:
            return
        record = run.snapshot()
        for listener in list(self.listeners):
            try:
                listener(record)
            except Exception:  # a display must never fail a task
                logger.exception("task listener failed")
        if run.notify is not None and record.status != run.notified and self._group is not None:
            run.notified = record.status
            self._group.start_soon(_notify, run.notify, record)

    async def answer(self, owner: str, task_id: Any, responses: Mapping[str, Any]) -> bool:
        """The client's answers to `owner`'s task; False when `owner` has no such task.

        Answers to a task another process runs are left for that process (`TaskBook.leave`, taken by
        its `_heartbeat`), and its record says they arrived.
        """
        run = self.live(owner, task_id)
        if run is not None:
            run.answer(responses)
            return True
        record = await self.records.read(owner, task_id)
        if record is None:
            return False
        await self.records.answer(record, responses)
        return True

    async def _heartbeat(self) -> None:
        """Renew running tasks every `HEARTBEAT` s, and take what another process left in their records
        (a cancel; answers, looked for every second while a task waits for them)."""
        renewed: dict[str, float] = {}
        while True:
            await anyio.sleep(1.0)
            now = self.book.now()
            for run in [r for r in list(self.runs.values()) if r.promoted and not r.record.terminal]:
                task_id = run.record.task_id
                due = now - renewed.get(task_id, run.record.created) >= HEARTBEAT
                if not due and not self.shared and run.record.status != INPUT_REQUIRED:
                    continue
                try:
                    left = await anyio.to_thread.run_sync(self.book.inbox, run.record.owner, task_id)
                    if run.take_in(left):
                        due = True
                    if due:
                        renewed[task_id] = now
                        await run.save()  # renews it: a record whose process died expires on its own
                except Exception:
                    logger.warning("could not renew task %s", task_id, exc_info=True)
            for task_id in [key for key in renewed if key not in self.runs]:
                del renewed[task_id]


def ending(run: TaskRun) -> tuple[str, str, dict[str, Any] | None]:
    """How a job's end reads in its task: the terminal status, its message, and the JSON-RPC error."""
    job, error = run.job, run.job.error
    if run.cancel.is_set() or isinstance(error, CallCancelled):
        return CANCELLED, t("task.cancelled"), None
    if isinstance(error, MCPError):
        return FAILED, error.error.message, _error(error.code, error.error.message, error.error.data)
    if isinstance(error, ProtocolRefusal):
        return FAILED, error.message, _error(error.code, error.message, error.data)
    if error is not None or job.cancelled:
        message = t("task.internal", error=f"{type(error).__name__}: {error}" if error else "cancelled")
        return FAILED, message, _error(types.INTERNAL_ERROR, message)
    result = dict(job.result or {})
    if result.get("isError"):
        return COMPLETED, t("task.tool_error", error=_first_text(result)), None
    return COMPLETED, t("task.completed"), None


async def _notify(notify: Callable[[TaskRecord], Awaitable[None]], record: TaskRecord) -> None:
    try:
        await notify(record)
    except Exception:  # the client's stream is gone or never opened: it polls instead
        logger.debug("could not send the status of task %s", record.task_id, exc_info=True)


def progress_text(value: float, total: float | None, message: str | None) -> str:
    """A progress report as one line: ``3/10 (30%): training``."""
    shown = f"{value:g}/{total:g} ({100 * value / total:.0f}%)" if total else f"{value:g}"
    return f"{shown}: {message}" if message else shown


def _first_text(result: Mapping[str, Any]) -> str:
    for block in result.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "text":
            return str(block.get("text", ""))[:500]
    return ""


def _error(code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return error
