"""The 2025-11-25 tasks utility (task-augmented requests) on the wire.

A thin adapter over `_tasks.TaskManager`, as `_tasks_modern` is for 2026-07-28; the two differ on
almost every wire detail:

- The client asks for a task (``params.task``); the server advertises ``capabilities.tasks`` at
  ``initialize`` and ``execution.taskSupport`` per tool. A tool that may not run as a task refuses a
  task-augmented call, and a tool that must refuses a plain one (both ``-32601``, the spec's MUST).
- ``tools/call`` answers ``{"task": {...}}`` (nested; ``ttl`` and ``pollInterval``), which the SDK's
  check of ``tools/call`` results would refuse: `_sdk_compat.TaskAnswers` sends it instead.
- ``tasks/get`` gives the task alone; ``tasks/result`` waits for the end and gives exactly what the
  call would have given (its result with ``related-task`` ``_meta``, or its JSON-RPC error). While
  a task waits for input, its questions go to the client on that request's stream.
- A tool's ``isError`` result makes the task ``failed`` in this era (``completed`` in 2026-07-28).
- ``tasks/list`` lists the caller's own tasks only; ``tasks/cancel`` answers the cancelled task, and
  refuses one that had ended (``-32602``); ``tasks/update`` does not exist here (``-32601``).
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata

from ..core._identity import identity_of
from ..core._questions import ELICIT, ROOTS, SAMPLE
from ..core._tasks import CANCELLED, COMPLETED, FAILED, MAX_TTL, RELATED_TASK, TaskRecord, iso
from ..core._text import t
from ._tasks import TaskManager, TaskRun
from ._tasks_modern import unknown_task

PAGE = 50
_SHAPES: dict[str, tuple[Any, Any]] = {
    ELICIT: (types.ElicitRequest, types.ElicitResult),
    SAMPLE: (types.CreateMessageRequest, types.CreateMessageResult),
    ROOTS: (types.ListRootsRequest, types.ListRootsResult),
}


def status(record: TaskRecord) -> str:
    """The record's status as this era says it: a tool's ``isError`` result is a failed task."""
    if record.status == COMPLETED and (record.result or {}).get("isError"):
        return FAILED
    return record.status


def task(record: TaskRecord, now: float) -> dict[str, Any]:
    """A `Task` of this era (``ttl`` and ``pollInterval``, in ms)."""
    shown: dict[str, Any] = {
        "taskId": record.task_id,
        "status": status(record),
        "createdAt": iso(record.created, now),
        "lastUpdatedAt": iso(record.updated, now),
        "ttl": record.ttl_ms(now),
        "pollInterval": record.poll_ms(now),
    }
    if record.message:
        shown["statusMessage"] = record.message
    return shown


def requested_ttl(task_params: Any) -> float | None:
    """Seconds the client asked a task to be kept (``task.ttl`` in ms), at most `MAX_TTL`."""
    ttl = getattr(task_params, "ttl", None)
    if isinstance(ttl, int | float) and not isinstance(ttl, bool) and ttl > 0:
        return min(ttl / 1000, MAX_TTL)
    return None


class LegacyTaskMethods:
    """``tasks/get``, ``tasks/result``, ``tasks/list`` and ``tasks/cancel`` of 2025-11-25."""

    def __init__(self, manager: TaskManager) -> None:
        self.manager = manager

    async def _record(self, ctx: ServerRequestContext[Any], task_id: str) -> TaskRecord:
        record = await self.manager.read(identity_of(ctx).name, task_id)
        if record is None:
            raise unknown_task(task_id, self.manager.ttl)
        return record

    async def get(self, ctx: ServerRequestContext[Any], params: Any) -> dict[str, Any]:
        return task(await self._record(ctx, params.task_id), self.manager.book.now())

    async def cancel(self, ctx: ServerRequestContext[Any], params: Any) -> dict[str, Any]:
        identity = identity_of(ctx).name
        record, moved = await self.manager.cancel(identity, params.task_id, by=identity)
        if record is None:
            raise unknown_task(params.task_id, self.manager.ttl)
        if not moved:
            raise MCPError(types.INVALID_PARAMS, t("task.cancel_ended", status=status(record)))
        return task(record, self.manager.book.now())

    async def list(self, ctx: ServerRequestContext[Any], params: Any) -> dict[str, Any]:
        owner = identity_of(ctx).name
        cursor = getattr(params, "cursor", None) if params is not None else None
        if cursor is not None and not (isinstance(cursor, str) and cursor.isdigit()):
            raise MCPError(types.INVALID_PARAMS, t("task.bad_cursor", cursor=repr(str(cursor)[:40])))
        start = int(cursor or 0)
        ids = list(reversed(await anyio.to_thread.run_sync(self.manager.book.listed, owner)))  # newest first
        now = self.manager.book.now()
        tasks = []
        for task_id in ids[start : start + PAGE]:
            record = await self.manager.read(owner, task_id)
            if record is not None:
                tasks.append(task(record, now))
        answer: dict[str, Any] = {"tasks": tasks}
        if start + PAGE < len(ids):
            answer["nextCursor"] = str(start + PAGE)
        return answer

    async def result(self, ctx: ServerRequestContext[Any], params: Any) -> dict[str, Any]:
        """Wait for the task to end and give what its call would have; ask its questions meanwhile."""
        owner, task_id = identity_of(ctx).name, params.task_id
        while True:
            run = self.manager.live(owner, task_id)
            if run is None:
                record = await self._record(ctx, task_id)
                if record.terminal:
                    return payload(record)
                await anyio.sleep(record.poll_ms(self.manager.book.now()) / 1000)  # run by another process
                continue
            changed = run.changed
            record = run.snapshot()
            if record.terminal:
                return payload(record)
            unsent = {key: request for key, request in record.pending.items() if key not in run.sent}
            if unsent:
                await self._ask(ctx, run, unsent)
            else:
                await changed.wait()

    async def _ask(self, ctx: ServerRequestContext[Any], run: TaskRun, questions: dict[str, Any]) -> None:
        """Send the task's questions on this request's stream (the client listens there), until answered
        or until the task ends."""
        run.sent.update(questions)
        async with anyio.create_task_group() as group:

            async def deliver_all() -> None:
                async with anyio.create_task_group() as each:
                    for key, question in questions.items():
                        each.start_soon(self._deliver, ctx, run, key, question)
                group.cancel_scope.cancel()

            async def until_the_end() -> None:
                while not run.record.terminal:
                    await run.changed.wait()
                group.cancel_scope.cancel()

            group.start_soon(deliver_all)
            group.start_soon(until_the_end)

    async def _deliver(self, ctx: ServerRequestContext[Any], run: TaskRun, key: str, question: Any) -> None:
        method = question.get("method")
        request_type, result_type = _SHAPES[method]
        params = dict(question.get("params") or {})
        params["_meta"] = {**params.get("_meta", {}), RELATED_TASK: {"taskId": run.record.task_id}}
        typed = request_type.model_validate({"method": method, "params": params})
        try:
            answer = await ctx.session.send_request(
                typed, result_type, metadata=ServerMessageMetadata(related_request_id=ctx.request_id)
            )
        except Exception:
            run.sent.discard(key)  # this stream could not take it: the next tasks/result asks again
            return
        run.answer({key: answer.model_dump(by_alias=True, mode="json", exclude_none=True)})


def payload(record: TaskRecord) -> dict[str, Any]:
    """What the task's call gives, once it ended: its result (tied to the task), or its error."""
    if record.status == COMPLETED:
        result = dict(record.result or {"content": []})
        result["_meta"] = {**(result.get("_meta") or {}), RELATED_TASK: {"taskId": record.task_id}}
        return result
    if record.status == CANCELLED:
        raise MCPError(types.INTERNAL_ERROR, t("task.no_result_cancelled", message=record.message or ""))
    error = record.error or {"code": types.INTERNAL_ERROR, "message": record.message or ""}
    raise MCPError(
        int(error.get("code", types.INTERNAL_ERROR)), str(error.get("message", "")), data=error.get("data")
    )
