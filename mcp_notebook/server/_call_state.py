"""What the steps of one ``tools/call`` share (`CallState`), and how steps run in order (`Steps`).

A step is an async callable over the state: it reads what earlier steps wrote, writes what it
learns (the tool, the decision, the result), and may end the call (`CallState.end`: a refusal or a
failure the model reads), after which no later step runs. The order itself is written once, in
`_calls.ToolCalls`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from ..core._identity import Identity
from ..core._questions import ProtocolRefusal
from ..core._results import error_result
from ..core._tool_entry import ToolEntry
from ..core._tracing import call_attributes
from ._pipeline import SEALED, Call, CallRecord
from ._tasks import TaskRun

Way = Literal["legacy", "modern"] | None


@dataclass(eq=False)
class CallState:
    """One ``tools/call`` on its way through the steps.

    Attributes
    ----------
    ctx:
        The SDK's request (for a later 2026-07-28 round, with its ``requestState`` verified and opened).
    params:
        The request's params, as the client sent them.
    identity:
        Who calls, as the credential proves it (``clientInfo.name`` is only a claim).
    call:
        The pipeline's `Call`: its record is what the activity and audit logs show.
    arguments:
        The tool's arguments (the record shows the same dict).
    found:
        The tool, once the lookup step found it (`entry` for the steps after it).
    way:
        Whether the call runs as a task, and in which era's way (None: answered as a call).
    task:
        The task whose job runs the steps, when the call is one.
    round:
        The server's record in a verified ``requestState`` (a later round of a 2026-07-28 call).
    waited:
        The last keep-alive progress sent while a person was asked (the tool's progress goes on above it).
    result:
        The result so far: the tool's, a replayed one, or the error result that ended the call.
    answer:
        What the request answers instead of the result (a task, created or handed to the SDK).
    done:
        The call ended: no later step runs.
    """

    ctx: ServerRequestContext[Any]
    params: types.CallToolRequestParams
    identity: Identity
    call: Call
    arguments: dict[str, Any]
    found: ToolEntry | None = None
    way: Way = None
    task: TaskRun | None = None
    round: dict[str, Any] = field(default_factory=dict)
    waited: float | None = None
    result: dict[str, Any] | None = None
    answer: dict[str, Any] | None = None
    done: bool = False

    @property
    def record(self) -> CallRecord:
        return self.call.record

    @property
    def entry(self) -> ToolEntry:
        """The tool being called (only the lookup step comes before it is known)."""
        if self.found is None:
            raise RuntimeError("the lookup step comes before every step that needs the tool")
        return self.found

    def span_attributes(self, **extra: Any) -> dict[str, Any]:
        """The attributes of a step's span (`core._tracing`): the MCP conventions' and `extra`'s."""
        request = self.ctx.request
        session_id = request.headers.get("mcp-session-id") if request is not None else None
        attributes = call_attributes(
            tool=self.entry.name,
            request_id=self.ctx.request_id,
            session_id=session_id,
            protocol_version=self.ctx.protocol_version,
        )
        attributes.update({key: value for key, value in extra.items() if value is not None})
        return attributes

    def end(self, outcome: str, message: str) -> None:
        """End the call at this step (it refused, or failed): its outcome on record, its message for the model."""
        self.fail(outcome, message)
        self.done = True

    def fail(self, outcome: str, message: str) -> None:
        """The tool failed: an error result the model reads, and the steps that shape a result still run."""
        self.record.outcome = outcome
        self.result = error_result(message)


Step = Callable[[CallState], Awaitable[None]]


class Steps:
    """Steps run in order over one state, until one ends the call; itself a step (steps nest)."""

    __slots__ = ("steps",)

    def __init__(self, *steps: Step) -> None:
        self.steps = steps

    async def __call__(self, state: CallState) -> None:
        for step in self.steps:
            await step(state)
            if state.done:
                return


def protocol_error(refusal: ProtocolRefusal) -> MCPError:
    """A refusal (a client capability the tool needs is missing, a state reused) as the JSON-RPC error."""
    return MCPError(refusal.code, refusal.message, data=refusal.data)


def answered(state: CallState) -> dict[str, Any]:
    """The answer to a call that ran its steps, and what the record shows of it."""
    result = state.result if state.result is not None else {}
    record = state.record
    record.is_error = bool(result.get("isError"))
    # The SDK sieves results per era: 2026-07-28 requires resultType, older eras drop it.
    answer = {"resultType": "complete", **result}
    if state.ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        record.result = result
    elif "requestState" in answer:
        record.result = {**answer, "requestState": SEALED}  # the client got it sealed; the log shows no more
    else:
        record.result = answer
    return answer
