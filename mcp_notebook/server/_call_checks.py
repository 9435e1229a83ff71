"""The steps of a ``tools/call`` before anyone is asked or anything runs: find the tool, check the call.

Error layering (spec 2025-11-25 and 2026-07-28, server/tools "Error Handling"): an unknown tool is a
JSON-RPC ``-32602``; arguments that fail the input schema, a rate limit and a tool whose threads
are all held by abandoned calls are tool execution errors (``isError: true``) the model can read
and act on. The SDK does not validate arguments, so it happens here.
"""

from __future__ import annotations

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..core._arguments import argument_problems
from ..core._catalogue import Catalogue
from ..core._errors import ToolError
from ..core._questions import ProtocolRefusal, RoundLedger
from ..core._sizes import estimated_size
from ..core._text import t
from ..runtime._execution import ToolRunner
from ._call_state import CallState, protocol_error
from ._contexts import answered_round
from ._pipeline import SEALED
from ._rate_limits import RateLimits

# Arguments larger than this (estimated bytes) are checked on a worker thread: a 4 MiB body takes
# the validator seconds (and a schema with `uniqueItems` a few thousand rows do), and the server loop
# answers every other client meanwhile. Below it, the thread hop would cost more than the check.
CHECK_OFF_LOOP_BYTES = 16 * 1024


class Lookup:
    """The tool the caller names, if it may see it; else -32602, the same for unknown and hidden.

    Nothing in the answer may tell a hidden tool from one that does not exist (its name is not
    among the suggestions, which are drawn from what this caller may see); only the owner's
    activity and audit logs tell them apart.
    """

    def __init__(self, catalogue: Catalogue) -> None:
        self.catalogue = catalogue

    async def __call__(self, state: CallState) -> None:
        name, identity = state.params.name, state.identity
        entry = self.catalogue.get(name)
        if entry is not None and (entry.expose or identity.is_notebook):
            state.found = entry
            return
        record = state.record
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


async def note_rounds(state: CallState) -> None:
    """Put on record what the client sent for a later round (the state as the client holds it: sealed)."""
    params = state.params
    if params.input_responses is None and params.request_state is None:
        return
    answers = {
        k: v.model_dump(by_alias=True, mode="json", exclude_none=True)
        for k, v in (params.input_responses or {}).items()
    }
    record = state.record
    record.rounds = {"inputResponses": answers} if answers else {}
    if params.request_state is not None:
        record.rounds["requestState"] = SEALED


class AnswerRound:
    """A later round of a 2026-07-28 call answers its round once, before anything else happens.

    A sealed state sent again (a replay, even with new answers) never runs the tool again: -32602.
    The SDK's boundary has verified the state already (this tool, these arguments, this identity).
    """

    def __init__(self, rounds: RoundLedger) -> None:
        self.rounds = rounds

    async def __call__(self, state: CallState) -> None:
        if not state.entry.context:
            return  # only a tool that takes a Context asks, so only its calls come back with a state
        request_state = (state.ctx.params or {}).get("requestState")
        if request_state is None:
            return
        try:
            state.round = await answered_round(self.rounds, request_state, state.identity.name)
        except ProtocolRefusal as refusal:
            raise protocol_error(refusal) from None


class CheckArguments:
    """The arguments against the tool's input schema: what is wrong, and how to fix it, for the model."""

    def __init__(self) -> None:
        self._checkers: anyio.CapacityLimiter | None = None  # threads for checking large arguments

    async def __call__(self, state: CallState) -> None:
        entry, arguments = state.entry, state.arguments
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
        if problems:
            listing = "\n".join(f"- {problem}" for problem in problems)
            state.end("invalid arguments", t("call.invalid_arguments", name=entry.name, problems=listing))


class LimitRate:
    """The tool's rate limit, per identity: after the arguments (a malformed call spends no token),
    before a person is asked (a flood must not flood the person with prompts)."""

    def __init__(self, limits: RateLimits) -> None:
        self.limits = limits

    async def __call__(self, state: CallState) -> None:
        entry, client = state.entry, state.identity.name
        try:
            if entry.rate_limit is not None and self.limits.shared:
                # Buckets shared by replicas live in the store, across the network: off the loop.
                await anyio.to_thread.run_sync(self.limits.check, entry, client)
            else:
                self.limits.check(entry, client)
        except ToolError as exc:
            state.record.decision = "rate limited"
            state.end("rate limited", str(exc))


class CheckWorkers:
    """Refuse a tool whose abandoned calls (past their timeout, still running) hold its share of the
    worker threads: before a person is asked, as a call that cannot get a thread is not worth it."""

    def __init__(self, runner: ToolRunner) -> None:
        self.runner = runner

    async def __call__(self, state: CallState) -> None:
        entry = state.entry
        stuck = self.runner.abandoned(entry.name)
        if stuck < self.runner.workers.share:
            return
        state.record.decision = "refused: earlier calls still running"
        limit = t("call.seconds", seconds=entry.timeout) if entry.timeout is not None else t("none")
        state.end(state.record.decision, t("call.stuck", name=entry.name, count=stuck, timeout=limit))
