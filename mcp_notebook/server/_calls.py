"""tools/call: the steps of the call pipeline (`_pipeline`) between a call's open and its finish.

One request that runs user code, split out of the protocol server (`_protocol`), as an ordered list
of small steps over one `CallState` (`_call_state`); `ToolCalls` writes the order, once. Each step
reads what the earlier ones wrote and writes what it learns into the state and the call's record,
which the pipeline finishes once; a step that refuses or fails ends the call, and no later step
runs. Error layering (spec 2025-11-25 and 2026-07-28, server/tools "Error Handling"): an unknown
tool is a JSON-RPC ``-32602``; arguments that fail the input schema and exceptions raised by a
tool are tool execution errors (``isError: true``) the model can read and fix.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.request_state import RequestStateBoundary

from ..core._catalogue import Catalogue
from ..core._identity import identity_of
from ..core._questions import RoundLedger
from ..runtime._execution import ToolRunner
from ._approval import ApprovalPolicy
from ._call_approval import Approve
from ._call_checks import AnswerRound, CheckArguments, CheckWorkers, LimitRate, Lookup, note_rounds
from ._call_results import KeepIfLarge, Sanitize
from ._call_run import Idempotent, RunTool
from ._call_state import CallState, Steps, answered
from ._call_tasks import ChooseWay, CountTasks, Dispatch, Sealed
from ._data import KeptResults
from ._guardrails import Guardrails
from ._pipeline import CallPipeline
from ._session_state import Sessions
from ._tasks import TaskManager


class ToolCalls:
    """The ``tools/call`` handler of one server (the SDK calls the instance): the steps, in order."""

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
        kept: KeptResults,
        rounds: RoundLedger,
        result_limit: int,
        tasks: TaskManager,
    ) -> None:
        self.pipeline = pipeline
        self.run_tool = RunTool(runner, sessions, tasks, rounds)
        # Order matters: validate, then rate-limit (a flood must not flood the person with prompts),
        # then refuse a tool whose abandoned calls hold its share of the workers, then ask, then run.
        work = Steps(
            AnswerRound(rounds),  # 2026-07-28: a later round answers its round once, before all else
            CheckArguments(),  # the input schema; large arguments off the loop
            LimitRate(guards.limits),  # per identity, per tool
            CheckWorkers(runner),  # earlier calls still holding the tool's threads
            Approve(approval, sessions),  # per identity, per definition
            Idempotent(  # a repeated key gets the first result; a held key runs to its end
                guards.keys,
                Steps(
                    self.run_tool,  # worker thread or kernel; timeout; questions; cancel
                    KeepIfLarge(kept, result_limit),  # a summary and a link, for the caller only
                ),
            ),
            Sanitize(guards.max_output_chars),  # control characters out, text capped
        )
        self.steps = Steps(
            Lookup(catalogue),  # hidden = unknown: -32602
            note_rounds,  # what a later round sent, on record (its state sealed)
            ChooseWay(tasks),  # a task or not; a protocol error if the tool and the request disagree
            CountTasks(tasks),  # running tasks per identity
            Dispatch(tasks, runner, Sealed(boundary, work)),  # in the request, or as a task's job
        )

    @property
    def tool_error_level(self) -> int:
        """The log level of a tool exception's traceback (`RunTool.error_level`)."""
        return self.run_tool.error_level

    @tool_error_level.setter
    def tool_error_level(self, level: int) -> None:
        self.run_tool.error_level = level

    async def __call__(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> Any:
        identity = identity_of(ctx)  # proven by the credential; clientInfo.name is only a claim
        arguments = dict(params.arguments or {})
        with self.pipeline.open(ctx, "tools/call", params.name, arguments, client=identity.name) as call:
            state = CallState(ctx=ctx, params=params, identity=identity, call=call, arguments=arguments)
            await self.steps(state)
            return state.answer if state.answer is not None else answered(state)
