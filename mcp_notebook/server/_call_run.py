"""The steps of a ``tools/call`` that run the tool: once per idempotency key, under its timeout.

A tool's exception is a tool execution error (``isError: true``) with its message, never a
traceback and never a protocol error: the SDK does not catch tool exceptions, so it happens here.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.context import ServerRequestContext

from ..core._context import CallCancelled, Context
from ..core._errors import ToolError
from ..core._idempotency import KEY_PARAMETER
from ..core._questions import InputRequired, ProtocolRefusal, RoundLedger, new_state
from ..core._results import to_result
from ..core._text import t
from ..core._tracing import annotate, failed, span
from ..runtime._execution import KernelBusy, ToolRunner
from ._call_state import CallState, Step, protocol_error
from ._contexts import context_for, open_round
from ._guardrails import acting_as
from ._idempotent import IdempotentCalls
from ._session_state import Sessions, session_id_of
from ._tasks import TaskManager

logger = logging.getLogger(__name__)


class Idempotent:
    """A tool that takes an idempotency key runs its `inner` steps once per key.

    A repeated key gets the stored result instead (and the steps after this one shape it as any
    result); a conflicting or malformed key ends the call with what to do. Once this call holds the
    key, its work runs to its end and its result is stored, even if the client hangs up meanwhile:
    the model retries with the same key exactly then, and must get that result, not a second run.
    """

    def __init__(self, keys: IdempotentCalls, inner: Step) -> None:
        self.keys = keys
        self.inner = inner

    async def __call__(self, state: CallState) -> None:
        entry = state.entry
        if not entry.idempotency_key:
            await self.inner(state)
            return
        with span("run_once", state.span_attributes) as current:
            await self._once(state, current)

    async def _once(self, state: CallState, current: Any) -> None:
        entry = state.entry
        try:
            # The store blocks duplicates until the first finishes (and opens a file on first use).
            once = await anyio.to_thread.run_sync(
                self.keys.begin, entry, state.identity.name, state.arguments
            )
        except ToolError as exc:  # an idempotency conflict or a malformed key
            failed(current, "ToolError", str(exc))
            state.end("ToolError", str(exc))
            return
        annotate(current, **{"mcp_notebook.run_once.replayed": once.done})
        if once.done:
            state.result = once.value
            return
        with anyio.CancelScope(shield=True):
            try:
                await self.inner(state)
            except BaseException as exc:
                await anyio.to_thread.run_sync(self.keys.abandon, once, exc)
                raise
            if state.result is None or state.result.get("resultType") == "input_required":
                # Asked the client first: a duplicate waiting here asks in a round of its own.
                await anyio.to_thread.run_sync(self.keys.abandon, once, None)
            else:
                state.result = await anyio.to_thread.run_sync(self.keys.finish, once, state.result)


class RunTool:
    """Run the tool (a worker thread or the kernel) under its timeout, and shape what it returns.

    A question for the client (2026-07-28) ends the call with ``input_required`` and a new round.
    A failure of the tool is an error result the model reads; a timeout ends the call.

    Attributes
    ----------
    error_level:
        The log level of a tool exception's traceback: debug in a kernel (the notebook shows the
        error already); an exported app's operator has only the log, so the app raises it (`ServiceApp`).
    """

    def __init__(
        self, runner: ToolRunner, sessions: Sessions, tasks: TaskManager, rounds: RoundLedger
    ) -> None:
        self.runner = runner
        self.sessions = sessions  # a handshake-era session's log level, and whether its answers may go astray
        self.tasks = tasks
        self.rounds = rounds
        self.error_level = logging.DEBUG

    async def __call__(self, state: CallState) -> None:
        runner = self.runner
        where = (state.entry.run_in or runner.run_in) if runner.kernel else "thread"

        def attributes() -> dict[str, Any]:
            # The one step that executes the tool (the conventions' "execute_tool"); the others only lead to it.
            return state.span_attributes(
                **{"gen_ai.operation.name": "execute_tool", "mcp_notebook.run.where": where}
            )

        with span("run", attributes) as current:
            # The tool runs inside this span: the runner carries the context to the worker thread or
            # the kernel's main thread, so the tool's own spans are its children.
            await self._run(state)
            if current is not None and state.result is not None:
                if state.result.get("isError"):
                    failed(current, "tool_error", state.record.outcome)
                elif state.result.get("resultType") == "input_required":
                    annotate(current, **{"mcp_notebook.run.outcome": "input_required"})

    async def _run(self, state: CallState) -> None:
        entry = state.entry
        context = self._context(state) if entry.context else None
        try:
            if entry.timeout is None:
                await self._execute(state, context)
            else:
                with anyio.fail_after(entry.timeout):
                    await self._execute(state, context)
        except TimeoutError:
            state.end("timeout", t("call.timeout", name=entry.name, seconds=entry.timeout))
        except InputRequired as asked:
            await self._ask(state, asked)
        except ProtocolRefusal as refusal:  # a client capability the tool needs is missing
            raise protocol_error(refusal) from None
        finally:
            if context is not None:
                context.close()

    def _context(self, state: CallState) -> Context:
        """The tool's `Context`: the session's log level, progress above the keep-alive, the task's cancel."""
        ctx: ServerRequestContext[Any] = state.ctx
        session_id = session_id_of(ctx)
        session = self.sessions.get(session_id)
        task = state.task
        context = context_for(
            ctx,
            session_level=session.log_level if session is not None else None,
            progress_after=state.waited,
            cancel=task.cancel if task is not None else None,
            answer_may_go_astray=lambda: self.sessions.spread(session_id),
        )
        if task is not None:
            task.bind(context)
        return context

    async def _execute(self, state: CallState, context: Context | None) -> None:
        entry, record, task = state.entry, state.record, state.task
        try:
            kwargs = entry.convert(state.arguments)
            if entry.idempotency_key and not entry.takes_key:
                kwargs.pop(KEY_PARAMETER, None)
            if context is not None and entry.context is not None:
                kwargs[entry.context] = context
            with acting_as(state.identity.name):  # what `current_client()` says inside the tool
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
            state.result = result
        except ToolError as exc:
            state.fail("ToolError", str(exc))
        except (TimeoutError, InputRequired, ProtocolRefusal, CallCancelled):
            raise  # the tool's own timeout, a question for the client, a protocol error, a cancel: the step's
        except KernelBusy:
            state.fail(
                "kernel busy", t("call.kernel_busy", name=entry.name, seconds=self.runner.busy_timeout)
            )
        except BaseException as exc:
            if isinstance(exc, anyio.get_cancelled_exc_class()):
                raise  # the client went away or the server is stopping: not the tool's failure
            # Never a traceback and never a protocol error: the model gets what it can act on. Even
            # SystemExit or KeyboardInterrupt from a tool must not end the server.
            logger.log(self.error_level, "tool %r raised", entry.name, exc_info=True)
            state.fail(type(exc).__name__, f"{type(exc).__name__}: {exc}")

    async def _ask(self, state: CallState, asked: InputRequired) -> None:
        """2026-07-28: the tool asked the client; the call ends with the questions and a sealed state."""
        record = state.record
        record.outcome = "input required: " + ", ".join(asked.requests)
        approved = record.decision in ("approved", "not-needed")
        round_id = await open_round(self.rounds, state.identity.name)
        state.result = {
            "resultType": "input_required",
            "inputRequests": asked.requests,
            "requestState": new_state(
                asked.answers, approved=approved, asked=list(asked.requests), round_id=round_id
            ),
        }
        state.done = True
