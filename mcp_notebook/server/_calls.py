"""tools/call: the steps of the call pipeline (`_pipeline`) between a call's open and its finish.

Look the tool up, check the arguments, rate-limit, ask a person, run the tool, shape the result:
the one request that runs user code, split out of the protocol server (`_protocol`). Error layering
(spec 2025-11-25 and 2026-07-28, server/tools "Error Handling"): an unknown tool is a JSON-RPC
``-32602``; arguments that fail the input schema and exceptions raised by a tool are tool
execution errors (``isError: true``) the model can read and fix. The SDK neither validates
arguments nor catches tool exceptions, so both happen here. Each step writes what it learns
(decision, stdout, outcome) into the call's record, which the pipeline finishes once.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.request_state import RequestStateBoundary
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from ..core._arguments import argument_problems
from ..core._catalogue import Catalogue
from ..core._context import CallCancelled, Context, next_progress
from ..core._errors import ToolError
from ..core._idempotency import KEY_PARAMETER
from ..core._identity import NOTEBOOK, Identity, identity_of
from ..core._questions import InputRequired, ProtocolRefusal, RoundLedger, new_state
from ..core._results import error_result, to_result
from ..core._sizes import estimated_size
from ..core._tasks import CANCELLED, COMPLETED, EXTENSION, TaskRecord, new_task_id
from ..core._text import t
from ..runtime._execution import KernelBusy, ToolRunner
from . import _tasks_legacy as legacy_tasks
from . import _tasks_modern as modern_tasks
from ._approval import ApprovalPolicy
from ._contexts import answered_round, context_for, open_round
from ._guardrails import Guardrails
from ._pipeline import SEALED, Call, CallPipeline, CallRecord
from ._sdk_compat import answer_instead, notify_task_status
from ._session_state import Sessions, session_id_of
from ._tasks import TaskManager, TaskRun

# Arguments larger than this (estimated bytes) are checked on a worker thread: a 4 MiB body takes
# the validator seconds (and a schema with `uniqueItems` a few thousand rows do), and the server loop
# answers every other client meanwhile. Below it, the thread hop would cost more than the check.
CHECK_OFF_LOOP_BYTES = 16 * 1024

logger = logging.getLogger(__name__)


class ToolCalls:
    """The ``tools/call`` handler of one server (the SDK calls the instance): the steps of the pipeline."""

    def __init__(
        self,
        *,
        catalogue: Catalogue,
        runner: ToolRunner,
        approval: ApprovalPolicy,
        guards: Guardrails,
        pipeline: CallPipeline,
        sessions: Sessions,
        boundary: RequestStateBoundary,
        kept: Any,
        rounds: RoundLedger,
        result_limit: int,
        tasks: TaskManager,
    ) -> None:
        self.catalogue = catalogue
        self.runner = runner
        self.approval = approval
        self.guards = guards
        self.pipeline = pipeline
        self.sessions = sessions  # handshake-era sessions: their log level, their calls waiting for a person
        self.boundary = boundary
        self.kept = kept  # where results too large for a model's context are kept, behind a link
        self.rounds = rounds  # 2026-07-28: the rounds still open (each sealed state answers one, once)
        self.result_limit = result_limit
        # A tool's exception goes to the model as an error result; its traceback to this log level.
        # Debug in a kernel (the notebook shows the error already); an exported app's operator has
        # only the log, so the app raises it (`ServiceApp`).
        self.tool_error_level = logging.DEBUG
        self.tasks = tasks  # calls that run as tasks: their jobs, records and cancellation
        self._checkers: anyio.CapacityLimiter | None = None  # threads for checking large arguments
        self._compiler: anyio.CapacityLimiter | None = None  # one thread compiles first-call schemas

    async def __call__(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> Any:
        identity = identity_of(ctx)  # proven by the credential; clientInfo.name is only a claim
        arguments = dict(params.arguments or {})
        with self.pipeline.open(ctx, "tools/call", params.name, arguments, client=identity.name) as call:
            record = call.record
            entry = self._lookup(record, params.name, identity)
            _note_rounds(record, params)
            way = self._way(ctx, entry, params)
            if way is not None and self.tasks.running_of(identity.name) >= self.tasks.max_per_identity:
                record.decision = "refused: too many tasks"
                limit = self.tasks.max_per_identity
                return _answer(ctx, record, _ended(record, record.decision, t("task.too_many", limit=limit)))
            if way == "legacy":
                return await self._legacy_task(ctx, call, entry, arguments, identity, params)
            if way == "modern":
                return await self._modern_task(ctx, call, entry, arguments, identity)
            client = self.guards.set_client(identity.name)
            try:
                result = await self._work(ctx, entry, arguments, record, identity)
            except ProtocolRefusal as exc:  # a client capability the tool needs is missing, a state reused
                raise MCPError(exc.code, exc.message, data=exc.data) from None
            finally:
                self.guards.reset_client(client)
            return _answer(ctx, record, result)

    async def _work(
        self,
        ctx: ServerRequestContext[Any],
        entry: Any,
        arguments: dict[str, Any],
        record: CallRecord,
        identity: Identity,
        task: TaskRun | None = None,
    ) -> dict[str, Any]:
        """The steps after the lookup, for the request itself or for the job of a task."""
        if entry.context:
            # The SDK's boundary verifies a sealed requestState (a forged, edited or expired one
            # is a protocol error) and seals the one a result carries.
            sealed = await self.boundary(
                ctx, lambda c: self._steps(c, entry, arguments, record, identity, task)
            )
            return dict(sealed) if isinstance(sealed, dict) else {}  # our own dict, state sealed
        return await self._steps(ctx, entry, arguments, record, identity, task)

    # -- tasks -----------------------------------------------------------------------------------------
    def _way(
        self, ctx: ServerRequestContext[Any], entry: Any, params: types.CallToolRequestParams
    ) -> str | None:
        """Whether this call runs as a task: ``"modern"`` (2026-07-28, if it takes long), ``"legacy"``
        (2025-11-25, asked for) or None; a protocol error when the tool's setting and the request disagree."""
        if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
            asked = params.task is not None
            if asked and entry.task == "never":
                raise MCPError(types.METHOD_NOT_FOUND, t("task.forbidden", name=entry.name))
            if not asked and entry.task == "required":
                raise MCPError(types.METHOD_NOT_FOUND, t("task.required_legacy", name=entry.name))
            if asked and not self.tasks.available:
                raise MCPError(types.INTERNAL_ERROR, t("task.unavailable"))
            return "legacy" if asked else None
        # 2026-07-28: a legacy `task` parameter means nothing here; the extension declared on this
        # very request does (SEP-2663), and the server decides.
        declared = modern_tasks.declared(ctx)
        if entry.task == "required" and not declared:
            raise MCPError(
                modern_tasks.MISSING_CAPABILITY,
                t("task.required_modern", name=entry.name, extension=EXTENSION),
                data=modern_tasks.REQUIRED,
            )
        return "modern" if declared and entry.task != "never" and self.tasks.available else None

    def _new_task(
        self, ctx: ServerRequestContext[Any], call: Call, entry: Any, identity: Identity
    ) -> TaskRecord:
        now = self.tasks.book.now()
        return TaskRecord(
            task_id=new_task_id(),
            server=self.tasks.book.server,
            owner=identity.name,
            claimed=call.record.claimed,
            tool=entry.name,
            arguments=call.record.arguments,
            era=ctx.protocol_version,
            created=now,
            updated=now,
            ttl=self.tasks.ttl,
            message=t("task.working"),
        )

    def _start(
        self, ctx: ServerRequestContext[Any], call: Call, entry: Any, arguments: dict[str, Any], identity: Identity,
        record: TaskRecord,
    ) -> TaskRun:  # fmt: skip
        async def work(run: TaskRun) -> dict[str, Any]:
            client = self.guards.set_client(identity.name)
            try:
                return await self._work(ctx, entry, arguments, call.record, identity, run)
            finally:
                self.guards.reset_client(client)

        run = self.tasks.start(record, work)
        run.kernel = (entry.run_in or self.runner.run_in) == "kernel"
        return run

    async def _promote(self, call: Call, run: TaskRun) -> None:
        """Make the job a task the client holds; the call is finished when the task ends."""
        call.hand_off()
        call.record.task = {"id": run.record.task_id, "status": run.record.status, "events": []}
        run.on_finish.append(lambda ended: _task_ended(call, ended))
        try:
            await self.tasks.promote(run)
        except BaseException:
            self.tasks.cancel_soon(run.record.task_id, "server")  # no client can know of it: stop the work
            raise

    async def _modern_task(
        self,
        ctx: ServerRequestContext[Any],
        call: Call,
        entry: Any,
        arguments: dict[str, Any],
        identity: Identity,
    ) -> dict[str, Any]:
        """2026-07-28: run the call as a job; a call done within `promote_after` is answered as any
        call is, a longer one becomes a task (and its answer says so)."""
        run = self._start(ctx, call, entry, arguments, identity, self._new_task(ctx, call, entry, identity))
        try:
            with anyio.move_on_after(self.tasks.promote_after):
                await run.job.done.wait()
        except anyio.get_cancelled_exc_class():
            # The client left before it could learn of a task: nobody could ever ask for the result.
            run.cancel.set()
            if run.context is not None:
                run.context.cancel()
            if run.approval is not None:
                run.approval._resolve("withdrawn")
            if run.job.scope is not None:
                run.job.scope.cancel()
            raise
        if run.job.done.is_set():  # the immediate result (checked and promoted with no await between)
            error = run.job.error
            if isinstance(error, ProtocolRefusal):
                raise MCPError(error.code, error.message, data=error.data) from None
            if error is not None:
                raise error
            return _answer(ctx, call.record, run.job.result)
        await self._promote(call, run)
        return modern_tasks.created(run.snapshot(), self.tasks.book.now())

    async def _legacy_task(
        self,
        ctx: ServerRequestContext[Any],
        call: Call,
        entry: Any,
        arguments: dict[str, Any],
        identity: Identity,
        params: types.CallToolRequestParams,
    ) -> dict[str, Any]:
        """2025-11-25: the client asked for a task: it gets one at once (through `TaskAnswers`)."""
        record = self._new_task(ctx, call, entry, identity)
        record.ttl = legacy_tasks.requested_ttl(params.task) or record.ttl
        run = self._start(ctx, call, entry, arguments, identity, record)
        session, book = ctx.session, self.tasks.book
        # Each change of status, to the session on its own stream (the spec's optional notification).
        run.notify = lambda changed: notify_task_status(session, legacy_tasks.task(changed, book.now()))
        await self._promote(call, run)
        if not answer_instead({"task": legacy_tasks.task(run.snapshot(), self.tasks.book.now())}):
            raise MCPError(types.INTERNAL_ERROR, t("task.unavailable"))
        return {"content": []}  # what the SDK checks; the client gets the task (`TaskAnswers`)

    def _lookup(self, record: CallRecord, name: str, identity: Identity) -> Any:
        """The tool the caller names, if it may see it; else -32602, the same for unknown and hidden.

        Nothing in the answer may tell a hidden tool from one that does not exist (its name is not
        among the suggestions, which are drawn from what this caller may see); only the owner's
        activity and audit logs tell them apart.
        """
        entry = self.catalogue.get(name)
        if entry is not None and (entry.expose or identity.is_notebook):
            return entry
        # The activity log shows protocol errors too: learners compare them with tool errors.
        record.decision = "refused: hidden tool" if entry is not None else "refused: unknown tool"
        record.unknown = True
        visible = [e.name for e in self.catalogue.tools() if e.expose or identity.is_notebook]
        near = self.catalogue.near_names(name, among=visible)
        hint = t("did_you_mean", names=", ".join(repr(n) for n in near)) if near else ""
        raise MCPError(
            types.INVALID_PARAMS,
            t("call.unknown_tool", name=name, hint=hint),
            data={"tool": name, "suggestions": near},
        )

    async def _steps(
        self,
        ctx: ServerRequestContext[Any],
        entry: Any,
        arguments: dict[str, Any],
        record: CallRecord,
        identity: Identity,
        task: TaskRun | None = None,
    ) -> dict[str, Any]:
        """The steps after the lookup, in order; the first that ends the call gives its result."""
        # A later round of a 2026-07-28 call answers its round once, before anything else happens: a
        # sealed state sent again (a replay, even with new answers) never runs the tool again.
        request_state = (ctx.params or {}).get("requestState") if entry.context else None
        state = (
            {} if request_state is None else await answered_round(self.rounds, request_state, identity.name)
        )
        # Order matters: validate, then rate-limit (a flood must not flood the person with prompts),
        # then refuse a tool whose abandoned calls hold its share of the workers, then ask, then run.
        ended = await self._check_arguments(entry, arguments, record)
        if ended is None:
            ended = await self._limit_rate(entry, record, identity)
        if ended is None:
            ended = self._check_workers(entry, record)
        if ended is not None:
            return ended
        waited: float | None = None  # the last keep-alive progress sent while a person was asked
        if state.get("approved") is True:
            # A later round of a call a person already approved (the SDK verified the sealed state:
            # this very tool, these very arguments, this identity; the ledger: its first answer).
            record.decision = "approved"
        else:
            ended, waited = await self._approve(ctx, entry, arguments, record, identity, task)
            if ended is not None:
                return ended
        return await self._run(ctx, entry, arguments, record, identity, waited, task)

    async def _check_arguments(
        self, entry: Any, arguments: dict[str, Any], record: CallRecord
    ) -> dict[str, Any] | None:
        if estimated_size(arguments, CHECK_OFF_LOOP_BYTES) > CHECK_OFF_LOOP_BYTES:
            if self._checkers is None:
                self._checkers = anyio.CapacityLimiter(2)  # large requests queue here, not on the loop
            problems = await anyio.to_thread.run_sync(
                lambda: argument_problems(entry.validator, arguments), limiter=self._checkers
            )
        else:
            if "validator" not in entry.__dict__:
                # The first call of a tool compiles its schema, which may wait for jsonschema's import
                # (warming up in the background right after serve()): not on the loop, which serves others.
                # One at a time: a burst of first calls would otherwise start a thread each, idle after.
                if self._compiler is None:
                    self._compiler = anyio.CapacityLimiter(1)
                await anyio.to_thread.run_sync(lambda: entry.validator, limiter=self._compiler)
            problems = argument_problems(entry.validator, arguments)
        if not problems:
            return None
        listing = "\n".join(f"- {problem}" for problem in problems)
        return _ended(
            record, "invalid arguments", t("call.invalid_arguments", name=entry.name, problems=listing)
        )

    async def _limit_rate(self, entry: Any, record: CallRecord, identity: Identity) -> dict[str, Any] | None:
        try:
            if entry.rate_limit is not None and self.guards.shared_limits:
                # Buckets shared by replicas live in the store, across the network: off the loop.
                await anyio.to_thread.run_sync(self.guards.check_rate, entry, identity.name)
            else:
                self.guards.check_rate(entry, identity.name)
        except ToolError as exc:
            record.decision = "rate limited"
            return _ended(record, "rate limited", str(exc))
        return None

    def _check_workers(self, entry: Any, record: CallRecord) -> dict[str, Any] | None:
        stuck = self.runner.abandoned(entry.name)
        if stuck < self.runner.workers.share:
            return None
        # Before asking a person: a call that cannot get a thread is not worth an approval.
        record.decision = "refused: earlier calls still running"
        limit = t("call.seconds", seconds=entry.timeout) if entry.timeout is not None else t("none")
        return _ended(record, record.decision, t("call.stuck", name=entry.name, count=stuck, timeout=limit))

    async def _approve(
        self,
        ctx: ServerRequestContext[Any],
        entry: Any,
        arguments: dict[str, Any],
        record: CallRecord,
        identity: Identity,
        task: TaskRun | None = None,
    ) -> tuple[dict[str, Any] | None, float | None]:
        """Ask a person when the policy says so: the result that ends the call (None to run it), and the
        last keep-alive progress value sent while waiting (None if none was), for the tool's Context.

        A task's prompt says it is one, and covers that task only; while it waits, the task's status
        says so (nothing is sent once the client holds a task id); cancelling the task withdraws it.
        """
        if not self.approval.needs_approval(
            entry.name, entry.read_only, entry.approval, identity.is_notebook, client=identity.name
        ):
            return None, None
        request = self.approval.new_request(
            tool=entry.name,
            title=entry.title,
            description=entry.description,
            annotations=dict(entry.annotations),
            arguments=arguments,
            client=identity.name,
            claimed=record.claimed,
            definition=entry.fingerprint,
            task_id=task.record.task_id if task is not None else None,
        )

        sent: float | None = None

        async def keep_alive(elapsed: float, left: float) -> None:
            # Clients give up on a request after a while (60 s in the TypeScript SDK, and in the
            # clients built on it) unless progress resets their clock; a person may need longer.
            # A no-op for a call without a progressToken. Progress must grow on the token, through
            # the tool's own reports once it runs (its Context starts above `sent`): so a tiny,
            # growing value and no total, not the seconds waited out of the timeout, which a tool's
            # `ctx.progress(0, total=3)` would then have to be pushed far past. The message says
            # what the wait is; the tool's first report shows as its own 0 %.
            nonlocal sent
            message = t("approval.waiting", tool=entry.name, seconds=math.ceil(left))
            if task is not None and task.promoted:
                task.waiting(message)
                return
            sent = next_progress(0.0, sent)
            await ctx.session.report_progress(sent, None, message)

        # A handshake-era client that hangs up leaves its call running in the session (the SDK
        # does not cancel it): the Gate tells the session's state (`Sessions.client_gone`), which
        # withdraws the request, as does the end of the session.
        # A task outlives its request: its client may hang up and come back for the result.
        handshake = ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS
        session = self.sessions.get(session_id_of(ctx)) if handshake and task is None else None
        request_id = str(ctx.request_id)
        if session is not None:
            session.waiting[request_id] = request
        if task is not None:
            task.approval = request
            task.waiting(t("task.waiting_approval"))  # the task's status says what it waits for
            if task.cancel.is_set():
                request._resolve("withdrawn")
        try:
            decision = await self.approval.decide(request, keep_alive)
        except anyio.get_cancelled_exc_class():
            record.decision = "withdrawn"  # 2026-07-28: the SDK cancels a call whose client left
            raise
        finally:
            if session is not None:
                session.waiting.pop(request_id, None)
            if task is not None:
                task.approval = None
                task.waiting(t("task.working"))
        record.decision = decision
        refusal = self.approval.message(decision, entry.name)
        return (_ended(record, decision, refusal) if refusal is not None else None), sent

    async def _run(
        self,
        ctx: ServerRequestContext[Any],
        entry: Any,
        arguments: dict[str, Any],
        record: CallRecord,
        identity: Identity,
        waited: float | None,
        task: TaskRun | None = None,
    ) -> dict[str, Any]:
        """Run the tool under its timeout (or replay a stored result), then sanitize what it returned."""
        context = None
        if entry.context:
            session_id = session_id_of(ctx)
            state = self.sessions.get(session_id)
            level = state.log_level if state is not None else None
            context = context_for(
                ctx,
                session_level=level,
                progress_after=waited,
                cancel=task.cancel if task is not None else None,
                answer_may_go_astray=lambda: self.sessions.spread(session_id),
            )
            if task is not None:
                self.tasks.bind(task, context)
        try:
            result = await self.guards.run(
                entry, arguments, lambda: self._execute(entry, arguments, record, identity, context, task)
            )
        except TimeoutError:
            return _ended(record, "timeout", t("call.timeout", name=entry.name, seconds=entry.timeout))
        except ToolError as exc:  # an idempotency conflict or a malformed key
            return _ended(record, "ToolError", str(exc))
        except InputRequired as asked:
            record.outcome = "input required: " + ", ".join(asked.requests)
            approved = record.decision in ("approved", "not-needed")
            round_id = await open_round(self.rounds, identity.name)
            state_text = new_state(
                asked.answers, approved=approved, asked=list(asked.requests), round_id=round_id
            )
            return {
                "resultType": "input_required",
                "inputRequests": asked.requests,
                "requestState": state_text,
            }
        finally:
            if context is not None:
                context.close()
        return self.guards.finish(result, entry.output_schema)

    async def _execute(
        self,
        entry: Any,
        arguments: dict[str, Any],
        record: CallRecord,
        identity: Identity,
        context: Context | None = None,
        task: TaskRun | None = None,
    ) -> dict[str, Any]:
        """Call the tool's function (a worker thread or the kernel) and shape what it returns."""
        try:
            kwargs = entry.convert(arguments)
            if entry.idempotency_key and not entry.takes_key:
                kwargs.pop(KEY_PARAMETER, None)
            if context is not None:
                kwargs[entry.context] = context
            value, record.stdout = await self.runner.run(
                entry.fn,
                kwargs,
                entry.run_in,
                tool=entry.name,
                # A task can be stopped (a kernel call is interrupted) and waits for a busy kernel.
                stopper=task.stopper if task is not None else None,
                wait_for_kernel=task is not None,
            )
            result = to_result(
                value,
                output_schema=entry.output_schema,
                wraps_output=entry.wraps_output,
                tool_name=entry.name,
            )
            record.outcome = "error result" if result.get("isError") else "ok"
            # A hidden tool's result is the notebook's, whoever asks: never readable from outside.
            owner = identity.name if entry.expose else NOTEBOOK
            return await self._keep_if_large(entry.name, result, owner)
        except ToolError as exc:
            return _ended(record, "ToolError", str(exc))
        except (TimeoutError, InputRequired, ProtocolRefusal, CallCancelled):
            raise  # the tool's own timeout, a question for the client, a protocol error, a cancel: the caller's
        except KernelBusy:
            return _ended(
                record,
                "kernel busy",
                t("call.kernel_busy", name=entry.name, seconds=self.runner.busy_timeout),
            )
        except BaseException as exc:
            if isinstance(exc, anyio.get_cancelled_exc_class()):
                raise  # the client went away or the server is stopping: not the tool's failure
            # Never a traceback and never a protocol error: the model gets what it can act on. Even
            # SystemExit or KeyboardInterrupt from a tool must not end the server.
            logger.log(self.tool_error_level, "tool %r raised", entry.name, exc_info=True)
            return _ended(record, type(exc).__name__, f"{type(exc).__name__}: {exc}")

    async def _keep_if_large(self, tool: str, result: dict[str, Any], owner: str) -> dict[str, Any]:
        """Replace a result too large for a model's context by a summary and a link to all of it.

        The link is unguessable and only `owner` (the identity that made the call) can read it.
        """
        texts = [block["text"] for block in result.get("content", []) if block.get("type") == "text"]
        size = sum(len(text) for text in texts)
        if size <= self.result_limit or result.get("isError"):
            return result
        full = "\n".join(texts)
        mime = "application/json" if "structuredContent" in result else "text/plain"
        # The store may be a file (SQLite): write it off the loop, which serves every other client.
        uri = await anyio.to_thread.run_sync(self.kept.keep, tool, [{"mimeType": mime, "text": full}], owner)
        preview = full[: min(1000, self.result_limit // 2)]
        link = {
            "type": "resource_link",
            "uri": uri,
            "name": f"{tool} result",
            "mimeType": mime,
            "size": len(full),
        }
        others = [block for block in result["content"] if block.get("type") != "text"]
        summary = {"type": "text", "text": t("result.kept", tool=tool, size=size, uri=uri, preview=preview)}
        kept: dict[str, Any] = {"content": [summary, link, *others], "isError": False}
        entry = self.catalogue.get(tool)
        if entry is not None and entry.output_schema is not None and "structuredContent" in result:
            # With an output schema, structured content is required: it stays, only the text shrinks.
            kept["structuredContent"] = result["structuredContent"]
        return kept


def _note_rounds(record: CallRecord, params: types.CallToolRequestParams) -> None:
    """Put on record what the client sent for a later round (the state as the client holds it: sealed)."""
    if params.input_responses is None and params.request_state is None:
        return
    answers = {
        k: v.model_dump(by_alias=True, mode="json", exclude_none=True)
        for k, v in (params.input_responses or {}).items()
    }
    record.rounds = {"inputResponses": answers} if answers else {}
    if params.request_state is not None:
        record.rounds["requestState"] = SEALED


def _answer(ctx: ServerRequestContext[Any], record: CallRecord, result: dict[str, Any]) -> dict[str, Any]:
    """The answer to a call that ran its steps, and what the record shows of it."""
    record.is_error = bool(result.get("isError"))
    # The SDK sieves results per era: 2026-07-28 requires resultType, older eras drop it.
    answer = {"resultType": "complete", **result}
    if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        record.result = result
    elif "requestState" in answer:
        record.result = {**answer, "requestState": SEALED}  # the client got it sealed; the log shows no more
    else:
        record.result = answer
    return answer


def _task_ended(call: Call, run: TaskRun) -> None:
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


def _ended(record: CallRecord, outcome: str, message: str) -> dict[str, Any]:
    """End a call at the step that refused it or failed: its outcome on record, its message for the model."""
    record.outcome = outcome
    return error_result(message)
