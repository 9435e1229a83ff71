"""Each step of a tools/call, alone: what it leaves on the call's state and record for the model.

A step runs over a real `CallState` (real catalogue entries, stores, runners, task manager, the
SDK's requestState boundary); the only stand-in is the SDK session, the seam a step sends progress
through, which records what it is given. The whole pipeline is tests/server/test_pipeline.py.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.server.context import ServerRequestContext
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError

from mcp_notebook import Catalogue, Context, current_client, tool
from mcp_notebook.core._identity import Identity
from mcp_notebook.core._questions import RoundLedger, new_state
from mcp_notebook.core._store_memory import MemoryStore
from mcp_notebook.core._tasks import TaskBook
from mcp_notebook.runtime._execution import KernelPump, ToolRunner
from mcp_notebook.server._approval import ApprovalPolicy
from mcp_notebook.server._call_approval import Approve
from mcp_notebook.server._call_checks import (
    AnswerRound,
    CheckArguments,
    CheckWorkers,
    LimitRate,
    Lookup,
    note_rounds,
)
from mcp_notebook.server._call_results import KeepIfLarge, Sanitize
from mcp_notebook.server._call_run import Idempotent, RunTool
from mcp_notebook.server._call_state import CallState, Steps, answered
from mcp_notebook.server._call_tasks import ChooseWay, CountTasks, Dispatch, Sealed
from mcp_notebook.server._data import KeptResults
from mcp_notebook.server._idempotent import IdempotentCalls
from mcp_notebook.server._pipeline import SEALED, Call, CallRecord
from mcp_notebook.server._rate_limits import RateLimits
from mcp_notebook.server._session_state import Sessions
from mcp_notebook.server._tasks import TaskManager

pytestmark = pytest.mark.anyio

HANDSHAKE, MODERN = "2025-11-25", "2026-07-28"
KEY = "order-0123456789abcdef"


@dataclass
class SessionStandIn:
    """The SDK session as a step sees it: progress it is sent, and what the client declared (nothing)."""

    progress: list[tuple[float, float | None, str | None]] = field(default_factory=list)
    client_params: Any = None
    client_capabilities: Any = None

    async def report_progress(self, progress: float, total: float | None, message: str | None) -> None:
        self.progress.append((progress, total, message))


def tools() -> Catalogue:
    catalogue = Catalogue()

    @tool(catalogue=catalogue, read_only=True)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @tool(catalogue=catalogue, expose=False, read_only=True)
    def internal() -> str:
        """Only for the notebook."""
        return "internal"

    @tool(catalogue=catalogue, read_only=True, rate_limit=(1, 60))
    def limited() -> str:
        """Answer once a minute."""
        return "once"

    @tool(catalogue=catalogue, destructive=True)
    def delete_row(row: int) -> str:
        """Delete one row."""
        return f"deleted {row}"

    @tool(catalogue=catalogue, read_only=True, idempotency_key=True)
    def book(seat: str) -> str:
        """Book a seat."""
        return f"booked {seat}"

    @tool(catalogue=catalogue, read_only=True)
    def who() -> str:
        """Say who calls."""
        return current_client()

    @tool(catalogue=catalogue, read_only=True)
    def fail() -> str:
        """Fail, as tools sometimes do."""
        raise ValueError("no good")

    @tool(catalogue=catalogue, read_only=True, timeout=0.2)
    def stalled() -> str:
        """Take longer than its timeout."""
        threading.Event().wait(5)
        return "never used"

    @tool(catalogue=catalogue, read_only=True)
    def confirm(ctx: Context) -> str:
        """Ask the person at the client first."""
        return str(ctx.elicit("Sure?", {"sure": bool}))

    @tool(catalogue=catalogue, read_only=True, output_schema={"type": "object", "properties": {"code": {"type": "string", "minLength": 3}}, "required": ["code"]})  # fmt: skip
    def code() -> dict[str, str]:
        """A code with a bell in it."""
        return {"code": "ab\x07"}

    @tool(catalogue=catalogue, read_only=True, task="required")
    def crunch() -> str:
        """Crunch for a long time."""
        return "crunched"

    return catalogue


CATALOGUE = tools()


def state(
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    identity: str = "claude",
    era: str = MODERN,
    params: dict[str, Any] | None = None,
    found: bool = True,
    capabilities: types.ClientCapabilities | None = None,
) -> CallState:
    """A call of `name` as the steps after the lookup see it (`found=False`: before the lookup)."""
    arguments = dict(arguments or {})
    sent = {"name": name, "arguments": arguments, **(params or {})}
    ctx = ServerRequestContext(
        session=SessionStandIn(client_capabilities=capabilities),  # type: ignore[arg-type]
        lifespan_context=None,
        protocol_version=era,
        method="tools/call",
        params=sent,
        request_id=7,
    )
    record = CallRecord(tool=name, arguments=arguments, client=identity, protocol_version=era, started=0.0)
    return CallState(
        ctx=ctx,
        params=types.CallToolRequestParams.model_validate(sent),
        identity=Identity(identity),
        call=Call(record, []),
        arguments=arguments,
        found=CATALOGUE.get(name) if found else None,
    )


def text(call: CallState) -> str:
    assert call.result is not None
    return "\n".join(block["text"] for block in call.result["content"] if block["type"] == "text")


def runner() -> ToolRunner:
    return ToolRunner("thread", KernelPump(None), kernel=False)


# -- the order ----------------------------------------------------------------------------------------


async def test_steps_run_in_order_and_none_runs_after_the_one_that_ends_the_call() -> None:
    ran: list[str] = []

    def step(name: str, ends: bool = False) -> Any:
        async def run(call: CallState) -> None:
            ran.append(name)
            if ends:
                call.end("refused", f"{name} said no")

        return run

    call = state("add", {"a": 1, "b": 2})
    await Steps(step("first"), Steps(step("inner"), step("refuses", ends=True)), step("never"))(call)

    assert ran == ["first", "inner", "refuses"]
    assert call.record.outcome == "refused" and call.result is not None and call.result["isError"]


async def test_a_failed_tool_is_an_error_result_that_the_later_steps_still_shape() -> None:
    call = state("add")
    call.fail("ValueError", "ValueError: \x1b[31mred")
    await Steps(Sanitize(1000))(call)
    assert not call.done
    assert text(call) == "ValueError: red"


# -- lookup ---------------------------------------------------------------------------------------------


async def test_lookup_finds_a_tool_and_answers_hidden_like_unknown_to_an_outside_client() -> None:
    found = state("add", found=False)
    await Lookup(CATALOGUE)(found)
    assert found.entry.name == "add"

    answers = []
    for name in ("internal", "no_such_tool"):
        call = state(name, found=False)
        with pytest.raises(MCPError) as refused:
            await Lookup(CATALOGUE)(call)
        assert refused.value.error.code == types.INVALID_PARAMS
        answers.append((refused.value.error.message.replace(name, "NAME"), call.record.unknown))
        assert call.record.decision == f"refused: {'hidden' if name == 'internal' else 'unknown'} tool"
    assert answers[0] == answers[1]  # nothing in the answer tells the hidden tool apart

    inside = state("internal", identity="notebook", found=False)
    await Lookup(CATALOGUE)(inside)
    assert inside.entry.name == "internal"


async def test_a_suggestion_never_names_a_tool_the_caller_may_not_see() -> None:
    call = state("internl", found=False)
    with pytest.raises(MCPError) as refused:
        await Lookup(CATALOGUE)(call)
    assert "internal" not in refused.value.error.message
    assert refused.value.error.data == {"tool": "internl", "suggestions": []}


# -- rounds -------------------------------------------------------------------------------------------


async def test_what_a_later_round_sent_is_on_record_with_its_state_sealed() -> None:
    call = state("confirm", params={"requestState": "opened-by-the-sdk", "inputResponses": {}})
    await note_rounds(call)
    assert call.record.rounds == {"requestState": SEALED}
    assert call.record.wire()["request"]["params"]["requestState"] == SEALED


async def test_a_round_is_answered_once_and_a_replay_is_a_protocol_error() -> None:
    rounds = RoundLedger()
    sent = new_state({}, approved=True, asked=["sure"], round_id=rounds.open("claude"))
    first = state("confirm", params={"requestState": sent})
    await AnswerRound(rounds)(first)
    assert first.round["approved"] is True

    replay = state("confirm", params={"requestState": sent})
    with pytest.raises(MCPError) as refused:
        await AnswerRound(rounds)(replay)
    assert refused.value.error.code == types.INVALID_PARAMS


# -- arguments, limits, workers -----------------------------------------------------------------------------


@pytest.mark.parametrize("size", [10, 40_000], ids=["small", "large, checked off the loop"])
async def test_arguments_that_fail_the_schema_end_the_call_with_what_to_fix(size: int) -> None:
    call = state("add", {"a": "x" * size, "b": 2})
    await CheckArguments()(call)
    assert call.done and call.record.outcome == "invalid arguments"
    assert "add" in text(call) and "- " in text(call)

    good = state("add", {"a": 1, "b": 2})
    await CheckArguments()(good)
    assert not good.done and good.result is None


async def test_a_rate_limit_holds_per_identity() -> None:
    limits = RateLimits(MemoryStore, "nb")
    first, again, other = state("limited"), state("limited"), state("limited", identity="cursor")
    for call in (first, again, other):
        await LimitRate(limits)(call)
    assert not first.done and not other.done
    assert again.done and again.record.decision == "rate limited" and "limited" in text(again)


async def test_replicas_sharing_a_store_share_one_rate_limit() -> None:
    store = MemoryStore()
    one, two = RateLimits(lambda: store, "app", shared=True), RateLimits(lambda: store, "app", shared=True)
    first, second = state("limited"), state("limited")
    await LimitRate(one)(first)
    await LimitRate(two)(second)
    assert not first.done and second.record.outcome == "rate limited"


async def test_a_tool_whose_threads_are_held_by_abandoned_calls_is_refused_before_anyone_is_asked() -> None:
    tools_runner = runner()
    tools_runner.workers.share = 1
    release = threading.Event()
    with anyio.move_on_after(0.1):  # a caller that gives up: the thread goes on, abandoned
        await tools_runner.run(lambda: release.wait(10), {}, tool="delete_row")
    try:
        call = state("delete_row", {"row": 1})
        await CheckWorkers(tools_runner)(call)
        assert call.done and call.record.decision == "refused: earlier calls still running"
        free = state("add", {"a": 1, "b": 2})
        await CheckWorkers(tools_runner)(free)
        assert not free.done
    finally:
        release.set()


# -- approval -------------------------------------------------------------------------------------------


async def test_a_call_that_needs_a_person_waits_and_a_denial_ends_it() -> None:
    policy = ApprovalPolicy("ask", timeout=30)
    policy.listeners.append(lambda request: threading.Thread(target=request.deny).start())
    call = state("delete_row", {"row": 3})
    await Approve(policy, Sessions())(call)
    assert call.record.decision == "denied" and call.done
    assert "delete_row" in text(call)
    assert call.ctx.session.progress  # the client was kept waiting with progress


async def test_an_approved_call_goes_on_and_a_read_only_or_approved_round_is_not_asked() -> None:
    policy = ApprovalPolicy("ask", timeout=30)
    asked: list[str] = []

    def approve(request: Any) -> None:
        asked.append(request.tool)
        threading.Thread(target=request.approve).start()

    policy.listeners.append(approve)
    for call in (state("delete_row", {"row": 3}), state("add", {"a": 1, "b": 2})):
        await Approve(policy, Sessions())(call)
        assert not call.done
    later = state("delete_row", {"row": 3})
    later.round = {"approved": True}
    await Approve(policy, Sessions())(later)
    assert asked == ["delete_row"]
    assert later.record.decision == "approved" and not later.done


# -- idempotency ----------------------------------------------------------------------------------------


class Booking:
    """The inner steps of an idempotent call: count runs; optionally wait, fail or ask first."""

    def __init__(self, result: dict[str, Any] | None = None) -> None:
        self.runs = 0
        self.result = result or {"content": [{"type": "text", "text": "booked"}], "isError": False}
        self.started = anyio.Event()
        self.release: anyio.Event | None = None

    async def __call__(self, call: CallState) -> None:
        self.runs += 1
        self.started.set()
        if self.release is not None:
            await self.release.wait()
        call.result = dict(self.result)
        if self.result.get("resultType") == "input_required":
            call.done = True


async def test_a_repeated_key_gets_the_first_result_and_the_tool_runs_once() -> None:
    keys, inner = IdempotentCalls(MemoryStore, "nb"), Booking()
    answers = []
    for _ in range(2):
        call = state("book", {"seat": "A1", "idempotency_key": KEY})
        await Idempotent(keys, inner)(call)
        answers.append(call.result)
    assert inner.runs == 1 and answers[0] == answers[1]


async def test_a_key_reused_with_other_arguments_ends_the_call_saying_which_differ() -> None:
    keys, inner = IdempotentCalls(MemoryStore, "nb"), Booking()
    await Idempotent(keys, inner)(state("book", {"seat": "A1", "idempotency_key": KEY}))
    other = state("book", {"seat": "B2", "idempotency_key": KEY})
    await Idempotent(keys, inner)(other)
    assert other.done and other.record.outcome == "ToolError" and "seat" in text(other)
    assert inner.runs == 1


@pytest.mark.parametrize(
    "result",
    [
        {"content": [{"type": "text", "text": "no seats"}], "isError": True},
        {"resultType": "input_required", "inputRequests": {}, "requestState": "s"},
    ],
    ids=["error result", "a question first"],
)
async def test_an_error_or_a_question_is_not_stored_so_a_retry_runs_the_tool(result: dict[str, Any]) -> None:
    keys, inner = IdempotentCalls(MemoryStore, "nb"), Booking(result)
    for _ in range(2):
        await Idempotent(keys, inner)(state("book", {"seat": "A1", "idempotency_key": KEY}))
    assert inner.runs == 2


async def test_a_call_holding_its_key_runs_to_its_end_when_the_client_hangs_up() -> None:
    keys, inner = IdempotentCalls(MemoryStore, "nb"), Booking()
    inner.release = anyio.Event()
    async with anyio.create_task_group() as group:
        group.start_soon(Idempotent(keys, inner), state("book", {"seat": "A1", "idempotency_key": KEY}))
        await inner.started.wait()
        group.cancel_scope.cancel()  # the client hangs up while the booking runs
        inner.release.set()
    retry = state("book", {"seat": "A1", "idempotency_key": KEY})
    await Idempotent(keys, Booking())(retry)
    assert inner.runs == 1 and text(retry) == "booked"  # the retry gets the booking, not a second one


async def test_a_call_without_a_key_runs_its_inner_steps_plainly() -> None:
    inner = Booking()
    for _ in range(2):
        await Idempotent(IdempotentCalls(MemoryStore, "nb"), inner)(state("add", {"a": 1, "b": 2}))
    assert inner.runs == 2


# -- run ----------------------------------------------------------------------------------------------


def run_step() -> RunTool:
    return RunTool(runner(), Sessions(), TaskManager(TaskBook(MemoryStore, "nb")), RoundLedger())


async def test_the_tool_runs_as_the_caller_and_its_value_is_shaped_into_a_result() -> None:
    call = state("who", identity="cursor")
    await run_step()(call)
    assert call.record.outcome == "ok" and text(call) == "cursor"
    add = state("add", {"a": 2, "b": 3})
    await run_step()(add)
    assert add.result is not None and add.result["structuredContent"] == {"result": 5}
    assert current_client() == "notebook"  # outside the run, nobody's identity lingers


async def test_a_tool_exception_is_an_error_result_and_a_timeout_ends_the_call() -> None:
    failed = state("fail")
    await run_step()(failed)
    assert not failed.done and failed.record.outcome == "ValueError"
    assert text(failed) == "ValueError: no good"

    stalled = state("stalled")
    await run_step()(stalled)
    assert stalled.done and stalled.record.outcome == "timeout" and "0.2" in text(stalled)


async def test_a_question_for_the_client_ends_the_call_with_a_new_round() -> None:
    rounds = RoundLedger()
    call = state("confirm", capabilities=types.ClientCapabilities(elicitation=types.ElicitationCapability()))
    await RunTool(runner(), Sessions(), TaskManager(TaskBook(MemoryStore, "nb")), rounds)(call)
    assert call.done and call.result is not None
    assert call.result["resultType"] == "input_required" and "requestState" in call.result
    assert call.record.outcome.startswith("input required")


async def test_a_question_the_client_cannot_answer_is_a_protocol_error() -> None:
    call = state("confirm", era=HANDSHAKE)  # a handshake-era client that declared no elicitation
    with pytest.raises(MCPError):
        await run_step()(call)


# -- result -------------------------------------------------------------------------------------------


async def test_a_large_result_becomes_a_summary_and_a_link_only_the_caller_reads() -> None:
    kept = KeptResults()
    call = state("add", identity="claude")
    call.result = {"content": [{"type": "text", "text": "x" * 5000}], "isError": False}
    await KeepIfLarge(kept, 1000)(call)
    link = next(block for block in call.result["content"] if block["type"] == "resource_link")
    assert len(text(call)) < 2000 and link["size"] == 5000
    assert kept.get(link["uri"], "claude") and kept.get(link["uri"], "cursor") is None

    small = state("add")
    small.result = {"content": [{"type": "text", "text": "5"}], "isError": False}
    await KeepIfLarge(kept, 1000)(small)
    assert text(small) == "5"


async def test_sanitizing_that_breaks_the_output_schema_is_an_error_result_saying_so() -> None:
    call = state("code")
    await run_step()(call)
    await Sanitize(1000)(call)
    assert call.result is not None and call.result["isError"]
    assert "code" in text(call)


# -- tasks --------------------------------------------------------------------------------------------


async def test_the_task_setting_and_the_request_must_agree() -> None:
    tasks = TaskManager(TaskBook(MemoryStore, "nb"))
    with pytest.raises(MCPError) as refused:
        await ChooseWay(tasks)(state("crunch"))  # 2026-07-28, the extension not declared
    assert refused.value.error.code == -32021
    with pytest.raises(MCPError) as refused:
        await ChooseWay(tasks)(state("crunch", era=HANDSHAKE))  # 2025-11-25, no task asked for
    assert refused.value.error.code == types.METHOD_NOT_FOUND
    plain = state("add", {"a": 1, "b": 2})
    await ChooseWay(tasks)(plain)
    assert plain.way is None


async def test_an_identity_past_its_running_tasks_is_refused() -> None:
    tasks = TaskManager(TaskBook(MemoryStore, "nb"))
    tasks.max_per_identity = 0
    call = state("crunch")
    call.way = "modern"
    await CountTasks(tasks)(call)
    assert call.done and call.record.decision == "refused: too many tasks"


async def test_a_quick_job_is_answered_as_a_call_and_a_slow_one_becomes_a_task_finished_once() -> None:
    tasks = TaskManager(TaskBook(MemoryStore, "nb"))
    tasks.promote_after = 0.05
    finished: list[CallRecord] = []
    done = anyio.Event()
    async with anyio.create_task_group() as group:
        await group.start(tasks.run)
        quick = state("crunch")
        quick.way = "modern"
        await Dispatch(tasks, runner(), Booking())(quick)
        assert quick.answer is None and text(quick) == "booked"

        slow_work = Booking()
        slow_work.release = anyio.Event()
        slow = state("crunch")
        slow.way = "modern"
        slow.call = Call(slow.record, [lambda record: (finished.append(record), done.set())])
        await Dispatch(tasks, runner(), slow_work)(slow)
        assert slow.answer is not None and slow.answer["resultType"] == "task"
        assert finished == []  # handed off: the task's end finishes it
        slow_work.release.set()
        with anyio.fail_after(10):
            await done.wait()
        tasks.stop()
    assert [record.task["status"] for record in finished if record.task] == ["completed"]


async def test_a_context_tool_runs_inside_the_boundary_and_its_state_leaves_sealed() -> None:
    security = RequestStateSecurity(keys=[os.urandom(32)], bind_principal=lambda ctx: "claude")
    boundary = RequestStateBoundary(security, default_audience="nb")
    seen: list[Any] = []

    async def ask(call: CallState) -> None:
        seen.append((call.ctx.params or {}).get("requestState"))
        call.result = {"resultType": "input_required", "inputRequests": {}, "requestState": "plain"}

    first = state("confirm")
    await Sealed(boundary, ask)(first)
    assert first.result is not None and first.result["requestState"] not in ("plain", None)

    back = state("confirm", params={"requestState": first.result["requestState"]})
    await Sealed(boundary, ask)(back)
    assert seen == [None, "plain"]  # the steps read the state the server minted, opened

    plain = state("add", {"a": 1, "b": 2})
    await Sealed(boundary, ask)(plain)
    assert plain.result is not None and plain.result["requestState"] == "plain"  # no context: no boundary


async def test_the_answer_says_complete_where_the_era_wants_it_and_the_record_shows_state_sealed() -> None:
    modern = state("confirm")
    modern.result = {"resultType": "input_required", "inputRequests": {}, "requestState": "sealed-bytes"}
    assert answered(modern)["resultType"] == "input_required"
    assert modern.record.result["requestState"] == SEALED

    old = state("add", era=HANDSHAKE)
    old.result = {"content": [], "isError": False}
    assert answered(old) == {"resultType": "complete", "content": [], "isError": False}
    assert old.record.result == {"content": [], "isError": False}
