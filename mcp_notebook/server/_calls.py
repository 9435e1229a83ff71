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
from ..core._context import Context, next_progress
from ..core._errors import ToolError
from ..core._idempotency import KEY_PARAMETER
from ..core._identity import NOTEBOOK, Identity, identity_of
from ..core._questions import InputRequired, ProtocolRefusal, RoundLedger, new_state
from ..core._results import error_result, to_result
from ..core._sizes import estimated_size
from ..core._text import t
from ..runtime._execution import KernelBusy, ToolRunner
from ._approval import ApprovalPolicy
from ._contexts import answered_round, context_for, open_round
from ._guardrails import Guardrails
from ._pipeline import SEALED, CallPipeline, CallRecord
from ._session_state import Sessions, session_id_of

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
        self._checkers: anyio.CapacityLimiter | None = None  # threads for checking large arguments

    async def __call__(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> Any:
        identity = identity_of(ctx)  # proven by the credential; clientInfo.name is only a claim
        arguments = dict(params.arguments or {})
        with self.pipeline.open(ctx, "tools/call", params.name, arguments, client=identity.name) as call:
            record = call.record
            entry = self._lookup(record, params.name, identity)
            _note_rounds(record, params)
            client = self.guards.set_client(identity.name)
            try:
                if entry.context:
                    # The SDK's boundary verifies a sealed requestState (a forged, edited or expired one
                    # is a protocol error) and seals the one a result carries.
                    sealed = await self.boundary(
                        ctx, lambda c: self._steps(c, entry, arguments, record, identity)
                    )
                    result = dict(sealed) if isinstance(sealed, dict) else {}  # our own dict, state sealed
                else:
                    result = await self._steps(ctx, entry, arguments, record, identity)
            except ProtocolRefusal as exc:  # a client capability the tool needs is missing, a state reused
                raise MCPError(exc.code, exc.message, data=exc.data) from None
            finally:
                self.guards.reset_client(client)
            return _answer(ctx, record, result)

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
            ended, waited = await self._approve(ctx, entry, arguments, record, identity)
            if ended is not None:
                return ended
        return await self._run(ctx, entry, arguments, record, identity, waited)

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
                await anyio.to_thread.run_sync(lambda: entry.validator)
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
    ) -> tuple[dict[str, Any] | None, float | None]:
        """Ask a person when the policy says so: the result that ends the call (None to run it), and the
        last keep-alive progress value sent while waiting (None if none was), for the tool's Context."""
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
            sent = next_progress(0.0, sent)
            message = t("approval.waiting", tool=entry.name, seconds=math.ceil(left))
            await ctx.session.report_progress(sent, None, message)

        # A handshake-era client that hangs up leaves its call running in the session (the SDK
        # does not cancel it): the Gate tells the session's state (`Sessions.client_gone`), which
        # withdraws the request, as does the end of the session.
        handshake = ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS
        session = self.sessions.get(session_id_of(ctx)) if handshake else None
        request_id = str(ctx.request_id)
        if session is not None:
            session.waiting[request_id] = request
        try:
            decision = await self.approval.decide(request, keep_alive)
        except anyio.get_cancelled_exc_class():
            record.decision = "withdrawn"  # 2026-07-28: the SDK cancels a call whose client left
            raise
        finally:
            if session is not None:
                session.waiting.pop(request_id, None)
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
    ) -> dict[str, Any]:
        """Run the tool under its timeout (or replay a stored result), then sanitize what it returned."""
        context = None
        if entry.context:
            state = self.sessions.get(session_id_of(ctx))
            level = state.log_level if state is not None else None
            context = context_for(ctx, session_level=level, progress_after=waited)
        try:
            result = await self.guards.run(
                entry, arguments, lambda: self._execute(entry, arguments, record, identity, context)
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
    ) -> dict[str, Any]:
        """Call the tool's function (a worker thread or the kernel) and shape what it returns."""
        try:
            kwargs = entry.convert(arguments)
            if entry.idempotency_key and not entry.takes_key:
                kwargs.pop(KEY_PARAMETER, None)
            if context is not None:
                kwargs[entry.context] = context
            value, record.stdout = await self.runner.run(entry.fn, kwargs, entry.run_in, tool=entry.name)
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
        except (TimeoutError, InputRequired, ProtocolRefusal):
            raise  # the tool's own timeout, a question for the client, a protocol error: the caller's
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
            logger.debug("tool %r raised", entry.name, exc_info=True)
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


def _ended(record: CallRecord, outcome: str, message: str) -> dict[str, Any]:
    """End a call at the step that refused it or failed: its outcome on record, its message for the model."""
    record.outcome = outcome
    return error_result(message)
