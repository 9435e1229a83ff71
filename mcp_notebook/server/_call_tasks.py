"""The steps of a ``tools/call`` that decide where its work runs: in the request, or as a task's job.

A call that becomes a task (`_tasks`: a client that supports tasks, a tool that allows them) runs
the same work steps as a job of the server's own; its one `Call` is handed off and finished when
the task ends, however it ends, with its lifecycle on record. 2025-11-25: the client asks for a
task and gets one at once. 2026-07-28: the server decides; a call done within
`TaskManager.promote_after` is answered as any call is, a longer one becomes a task.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.request_state import RequestStateBoundary
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from ..core._tasks import CANCELLED, COMPLETED, EXTENSION, TaskRecord, new_task_id
from ..core._text import t
from ..core._tracing import annotate, carried, failed, span
from ..runtime._execution import ToolRunner
from . import _tasks_legacy as legacy_tasks
from . import _tasks_modern as modern_tasks
from ._call_state import CallState, Step, Way
from ._pipeline import Call
from ._sdk_compat import answer_instead, notify_task_status
from ._tasks import TaskManager, TaskRun


class ChooseWay:
    """Whether this call runs as a task: ``"modern"`` (2026-07-28, if it takes long), ``"legacy"``
    (2025-11-25, asked for) or None; a protocol error when the tool's setting and the request disagree."""

    def __init__(self, tasks: TaskManager) -> None:
        self.tasks = tasks

    async def __call__(self, state: CallState) -> None:
        state.way = self._way(state)

    def _way(self, state: CallState) -> Way:
        entry = state.entry
        if state.ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
            asked = state.params.task is not None
            if asked and entry.task == "never":
                raise MCPError(types.METHOD_NOT_FOUND, t("task.forbidden", name=entry.name))
            if not asked and entry.task == "required":
                raise MCPError(types.METHOD_NOT_FOUND, t("task.required_legacy", name=entry.name))
            if asked and not self.tasks.available:
                raise MCPError(types.INTERNAL_ERROR, t("task.unavailable"))
            return "legacy" if asked else None
        # 2026-07-28: a legacy `task` parameter means nothing here; the extension declared on this
        # very request does (SEP-2663), and the server decides.
        declared = modern_tasks.declared(state.ctx)
        if entry.task == "required" and not declared:
            raise MCPError(
                modern_tasks.MISSING_CAPABILITY,
                t("task.required_modern", name=entry.name, extension=EXTENSION),
                data=modern_tasks.REQUIRED,
            )
        return "modern" if declared and entry.task != "never" and self.tasks.available else None


class CountTasks:
    """Running tasks per identity: past `TaskManager.max_per_identity`, refused as a rate limit refuses."""

    def __init__(self, tasks: TaskManager) -> None:
        self.tasks = tasks

    async def __call__(self, state: CallState) -> None:
        limit = self.tasks.max_per_identity
        if state.way is not None and self.tasks.running_of(state.identity.name) >= limit:
            state.record.decision = "refused: too many tasks"
            state.end(state.record.decision, t("task.too_many", limit=limit))


class Sealed:
    """The `inner` steps inside the SDK's requestState boundary, for a tool that takes a Context.

    The boundary verifies a sealed requestState (a forged, edited or expired one is a protocol
    error), hands the steps the request with it opened, and seals the one a result carries. Only
    such a tool mints state, so every other call pays nothing for it.
    """

    def __init__(self, boundary: RequestStateBoundary, inner: Step) -> None:
        self.boundary = boundary
        self.inner = inner

    async def __call__(self, state: CallState) -> None:
        if not state.entry.context:
            await self.inner(state)
            return

        async def opened(ctx: Any) -> dict[str, Any]:
            state.ctx = ctx
            await self.inner(state)
            return state.result if state.result is not None else {}

        sealed = await self.boundary(state.ctx, opened)
        state.result = dict(sealed) if isinstance(sealed, dict) else {}  # our own dict, state sealed


class Dispatch:
    """Run the `work` steps in the request, or as a task's job (`CallState.way`)."""

    def __init__(self, tasks: TaskManager, runner: ToolRunner, work: Step) -> None:
        self.tasks = tasks
        self.runner = runner
        self.work = work

    async def __call__(self, state: CallState) -> None:
        if state.way is None:
            await self.work(state)
        elif state.way == "legacy":
            await self._legacy(state)
        else:
            await self._modern(state)

    async def _modern(self, state: CallState) -> None:
        """2026-07-28: the job's result if it is done within `promote_after`, else the task it became."""
        run = self._start(state, self._new_task(state))
        try:
            with anyio.move_on_after(self.tasks.promote_after):
                await run.job.done.wait()
        except anyio.get_cancelled_exc_class():
            withdraw(run)  # the client left before it could learn of a task: nobody could ask for the result
            raise
        if run.job.done.is_set():  # the immediate result (checked and promoted with no await between)
            if run.job.error is not None:
                raise run.job.error
            state.result = run.job.result
            return
        await self._promote(state, run)
        state.answer = modern_tasks.created(run.snapshot(), self.tasks.book.now())

    async def _legacy(self, state: CallState) -> None:
        """2025-11-25: the client asked for a task: it gets one at once (through `TaskAnswers`)."""
        record = self._new_task(state)
        record.ttl = legacy_tasks.requested_ttl(state.params.task) or record.ttl
        run = self._start(state, record)
        session, book = state.ctx.session, self.tasks.book
        # Each change of status, to the session on its own stream (the spec's optional notification).
        run.notify = lambda changed: notify_task_status(session, legacy_tasks.task(changed, book.now()))
        await self._promote(state, run)
        if not answer_instead({"task": legacy_tasks.task(run.snapshot(), book.now())}):
            raise MCPError(types.INTERNAL_ERROR, t("task.unavailable"))
        state.answer = {"content": []}  # what the SDK checks; the client gets the task (`TaskAnswers`)

    def _new_task(self, state: CallState) -> TaskRecord:
        now = self.tasks.book.now()
        return TaskRecord(
            task_id=new_task_id(),
            server=self.tasks.book.server,
            owner=state.identity.name,
            claimed=state.record.claimed,
            tool=state.entry.name,
            arguments=state.record.arguments,
            era=state.ctx.protocol_version,
            created=now,
            updated=now,
            ttl=self.tasks.ttl,
            message=t("task.working"),
        )

    def _start(self, state: CallState, record: TaskRecord) -> TaskRun:
        """Start the work steps as a job (not yet a task any client knows of: `_promote` makes it one)."""

        parent = carried()  # the request's span: the job runs in the manager's task group, not the request's

        def attributes() -> dict[str, Any]:
            return state.span_attributes(**{"mcp_notebook.task.id": record.task_id})

        async def job(run: TaskRun) -> dict[str, Any]:
            state.task = run
            with span("task", attributes, parent=parent) as current:
                await self.work(state)
                annotate(current, **{"mcp_notebook.task.promoted": run.promoted})
                if current is not None and state.result is not None and state.result.get("isError"):
                    failed(current, "tool_error", state.record.outcome)
            return state.result if state.result is not None else {}

        run = self.tasks.start(record, job)
        run.kernel = (state.entry.run_in or self.runner.run_in) == "kernel"
        return run

    async def _promote(self, state: CallState, run: TaskRun) -> None:
        """Make the job a task the client holds; the call is finished when the task ends."""
        call = state.call
        call.hand_off()
        call.record.task = {"id": run.record.task_id, "status": run.record.status, "events": []}
        run.on_finish.append(lambda ended: task_ended(call, ended))
        try:
            await self.tasks.promote(run)
        except BaseException:
            self.tasks.cancel_soon(run.record.task_id, "server")  # no client can know of it: stop the work
            raise


def withdraw(run: TaskRun) -> None:
    """Stop a job no client will ever ask about: its Context, its approval prompt, its steps."""
    run.cancel.set()
    if run.context is not None:
        run.context.cancel()
    if run.approval is not None:
        run.approval._resolve("withdrawn")
    if run.job.scope is not None:
        run.job.scope.cancel()


def task_ended(call: Call, run: TaskRun) -> None:
    """Finish the record of a call that ran as a task, with how the task ended and its lifecycle."""
    ended = run.snapshot()
    record = call.record
    record.task = {"id": ended.task_id, "status": ended.status, "events": ended.events}
    record.is_error = ended.is_error
    if ended.status == COMPLETED:
        record.result = dict(ended.result or {})
    elif ended.status == CANCELLED:
        by = f" by {ended.cancelled_by}" if ended.cancelled_by else ""
        record.outcome = f"cancelled{by}" + (f" ({record.outcome})" if record.outcome else "")
    else:
        record.error = ended.error
        record.outcome = record.outcome or "failed"
    call.finish()
