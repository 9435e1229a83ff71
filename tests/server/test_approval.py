"""A person approves outside calls of tools that change things; the notebook's own calls are never asked."""

from __future__ import annotations

import concurrent.futures
import itertools
import re
import threading
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

import mcp_notebook
from mcp_notebook import Catalogue, Context, serve, set_language, tool
from mcp_notebook.core._approval_request import ApprovalRequest
from mcp_notebook.server._approval import ApprovalPolicy
from tests.conftest import connect

pytestmark = pytest.mark.anyio


def define(catalogue: Catalogue) -> list[str]:
    done: list[str] = []

    @tool(catalogue=catalogue, destructive=True)
    def delete_row(row: int) -> str:
        """Delete one row of the table."""
        done.append(f"deleted {row}")
        return f"deleted {row}"

    @tool(catalogue=catalogue, read_only=True)
    def count_rows() -> int:
        """Count the rows."""
        return 3

    @tool(catalogue=catalogue, read_only=True, approval="always")
    def read_secret_notes() -> str:
        """Read private notes (read-only, but the person wants to know)."""
        return "notes"

    @tool(catalogue=catalogue, approval="never")
    def append_log(line: str) -> str:
        """Append a line to the scratch log."""
        return line

    return done


class Asked:
    """Collects approval requests as they are shown (called on the server's thread)."""

    def __init__(self, policy: ApprovalPolicy) -> None:
        self.requests: list[ApprovalRequest] = []
        self._arrived = threading.Event()
        policy.listeners.append(self._on_request)

    def _on_request(self, request: ApprovalRequest) -> None:
        self.requests.append(request)
        self._arrived.set()

    async def next(self) -> ApprovalRequest:
        arrived = await anyio.to_thread.run_sync(self._arrived.wait, 10)
        assert arrived, "no approval request was shown"
        self._arrived.clear()
        return self.requests[-1]


@pytest.fixture
def asking(catalogue: Catalogue) -> Iterator[Any]:
    srv = serve(catalogue=catalogue, approval_timeout=5)
    try:
        yield srv
    finally:
        srv.stop()


async def call_while(srv: Any, name: str, arguments: dict[str, Any], decide: Any, mode: str = "auto") -> Any:
    """Call `name` from an outside client; `decide(request)` answers the approval prompt meanwhile."""
    asked = Asked(srv.approval)
    async with connect(srv, mode) as client:  # type: ignore[arg-type]
        async with anyio.create_task_group() as group:
            results: list[Any] = []

            async def do_call() -> None:
                results.append(await client.call_tool(name, arguments))

            group.start_soon(do_call)
            request = await asked.next()
            decide(request)
        return results[0], request


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_approved_call_runs_and_the_request_showed_everything(
    asking: Any, catalogue: Catalogue, mode: str
) -> None:
    done = define(catalogue)
    result, request = await call_while(asking, "delete_row", {"row": 7}, lambda r: r.approve(), mode)
    assert result.is_error is False and result.content[0].text == "deleted 7"
    assert done == ["deleted 7"]
    assert request.tool == "delete_row" and request.arguments == {"row": 7}
    assert request.description == "Delete one row of the table."
    assert request.annotations["destructiveHint"] is True
    # Who asks is the identity the token proves (the server token: the owner); the name the SDK
    # client gave itself is kept, and shown, only as a claim.
    assert request.client == "owner" and request.claimed == "mcp"
    assert asking.calls[-1].decision == "approved"


async def test_denied_call_does_not_run_and_says_the_person_declined(
    asking: Any, catalogue: Catalogue
) -> None:
    done = define(catalogue)
    result, _ = await call_while(asking, "delete_row", {"row": 1}, lambda r: r.deny())
    assert result.is_error is True
    assert "declined" in result.content[0].text and "Do not call it again" in result.content[0].text
    assert done == []
    assert asking.calls[-1].decision == "denied"


async def test_no_answer_in_time_counts_as_deny(catalogue: Catalogue) -> None:
    done = define(catalogue)
    srv = serve(catalogue=catalogue, approval_timeout=0.2)
    try:
        async with connect(srv, "auto") as client:
            result = await client.call_tool("delete_row", {"row": 2})
        assert result.is_error is True and "within 0.2 s" in result.content[0].text
        assert done == [] and srv.calls[-1].decision == "timeout"
        assert srv.pending == []
    finally:
        srv.stop()


async def test_always_allow_stops_asking_for_that_tool(asking: Any, catalogue: Catalogue) -> None:
    define(catalogue)
    await call_while(asking, "delete_row", {"row": 1}, lambda r: r.always_allow())
    async with connect(asking, "auto") as client:
        again = await client.call_tool("delete_row", {"row": 2})  # would time out if it asked
    assert again.content[0].text == "deleted 2" and asking.calls[-1].decision == "not-needed"
    assert asking.approval.allowed == {("owner", "delete_row")}  # for that identity only


async def test_who_is_asked_about(asking: Any, catalogue: Catalogue) -> None:
    define(catalogue)
    async with connect(asking, "auto") as client:
        assert (await client.call_tool("count_rows", {})).structured_content == {"result": 3}
        assert (await client.call_tool("append_log", {"line": "x"})).content[0].text == "x"
    secret, _ = await call_while(asking, "read_secret_notes", {}, lambda r: r.approve())
    assert secret.content[0].text == "notes"


async def test_always_mode_asks_even_for_read_only_tools(catalogue: Catalogue) -> None:
    define(catalogue)
    srv = serve(catalogue=catalogue, approval="always", approval_timeout=5)
    try:
        result, request = await call_while(srv, "count_rows", {}, lambda r: r.approve())
        assert request.tool == "count_rows" and result.structured_content == {"result": 3}
    finally:
        srv.stop()


def test_the_notebooks_own_calls_are_not_asked_about(asking: Any, catalogue: Catalogue) -> None:
    done = define(catalogue)
    result = mcp_notebook.call("delete_row", {"row": 5})  # would wait 5 s and fail if it asked
    assert result.text == "deleted 5" and done == ["deleted 5"]
    mcp_notebook.list_tools()
    # Every request of the notebook's own client is the notebook's, not only its tool calls.
    assert {record.client for record in asking.activity} == {"notebook"}


def test_a_late_answer_changes_nothing() -> None:
    policy = ApprovalPolicy()
    request = policy.new_request(
        tool="t", title=None, description=None, annotations={}, arguments={}, client=None
    )
    request.deny()
    request.approve()
    assert request.decision == "denied"
    # What a notebook prints of it is the same in every run (no clock in it): nbval can compare it.
    assert repr(request) == (
        "ApprovalRequest(id=1, tool='t', title=None, description=None, annotations={}, arguments={}, "
        "client=None, decision='denied')"
    )


def test_auto_mode_says_loudly_that_it_is_on(catalogue: Catalogue) -> None:
    with pytest.warns(UserWarning, match="Approval is OFF"):
        srv = serve(catalogue=catalogue, approval="auto")
    try:
        assert "Approval is OFF" in srv.status() and "approval='auto'" in repr(srv)
    finally:
        srv.stop()
    with pytest.raises(ValueError, match="'ask', 'always' or 'auto'"):
        serve(catalogue=catalogue, approval="sometimes")


def test_an_outside_style_connection_is_not_reused_for_the_notebooks_own_calls(
    asking: Any, catalogue: Catalogue
) -> None:
    define(catalogue)
    # First as an outside client would (URL and token given): read-only, so nothing is asked.
    assert mcp_notebook.call("count_rows", url=asking.url, token=asking.token).structured_content == {
        "result": 3
    }
    # Then as the notebook itself: must not ride on that connection, or it would wait for approval.
    assert mcp_notebook.call("delete_row", {"row": 9}, timeout=30).text == "deleted 9"


# -- waiting for a person: keep-alive, time left, what the model is told --------------------------------------


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_progress_keeps_a_call_alive_while_it_waits_for_a_person(
    asking: Any, catalogue: Catalogue, mode: str
) -> None:
    done = define(catalogue)
    asking.approval.progress_every = 0.05  # every 10 s by default
    asked = Asked(asking.approval)
    seen: list[tuple[float, float | None, str | None]] = []
    enough = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))
        if len(seen) >= 3:
            enough.set()

    async with connect(asking, mode) as client:  # type: ignore[arg-type]
        results: list[Any] = []
        async with anyio.create_task_group() as group:

            async def do_call() -> None:
                results.append(
                    await client.call_tool("delete_row", {"row": 3}, progress_callback=on_progress)
                )

            group.start_soon(do_call)
            request = await asked.next()
            with anyio.fail_after(10):
                await enough.wait()  # progress arrives while the person has not answered yet
            assert request.pending
            request.approve()
    assert results[0].content[0].text == "deleted 3" and done == ["deleted 3"]
    progress = [value for value, _, _ in seen]
    assert progress == sorted(progress) and len(set(progress)) == len(progress)  # it grows, as it must
    # No total: a waiting call has done nothing yet, and the tool's own progress comes after.
    assert all(total is None for _, total, _ in seen)
    message = seen[-1][2] or ""
    assert "Waiting for a person to approve the call to 'delete_row'" in message and "s left" in message


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_tools_own_progress_keeps_growing_after_the_wait_for_a_person(
    asking: Any, catalogue: Catalogue, mode: str
) -> None:
    @tool(catalogue=catalogue, destructive=True)
    def rebuild_index(ctx: Context) -> str:
        """Rebuild the index in three steps, saying how far it got."""
        for step in range(4):
            ctx.progress(step, total=3, message=f"step {step}")
        return "rebuilt"

    asking.approval.progress_every = 0.05
    asked = Asked(asking.approval)
    seen: list[tuple[float, float | None, str | None]] = []
    waited = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))
        if len(seen) >= 3:
            waited.set()

    async with connect(asking, mode) as client:  # type: ignore[arg-type]
        results: list[Any] = []
        async with anyio.create_task_group() as group:

            async def do_call() -> None:
                results.append(await client.call_tool("rebuild_index", {}, progress_callback=on_progress))

            group.start_soon(do_call)
            request = await asked.next()
            with anyio.fail_after(10):
                await waited.wait()  # keep-alives went out before the tool's own progress
            request.approve()
    assert results[0].content[0].text == "rebuilt"
    progress = [value for value, _, _ in seen]
    assert all(later > earlier for earlier, later in itertools.pairwise(progress)), progress
    own = [
        (value, total, message) for value, total, message in seen if message and message.startswith("step")
    ]
    assert [message for _, _, message in own] == ["step 0", "step 1", "step 2", "step 3"]
    assert own[0][0] < 0.001  # the tool's 0 stays (about) 0, not the seconds waited
    assert [value for value, _, _ in own[1:]] == [1, 2, 3] and all(total == 3 for _, total, _ in own)


async def test_without_a_progress_token_waiting_sends_no_progress(asking: Any, catalogue: Catalogue) -> None:
    define(catalogue)
    asking.approval.progress_every = 0.01
    messages: list[Any] = []

    async def collect(message: Any) -> None:
        messages.append(message)

    asked = Asked(asking.approval)
    async with connect(asking, "legacy", message_handler=collect) as client:
        results: list[Any] = []
        async with anyio.create_task_group() as group:

            async def do_call() -> None:
                results.append(await client.call_tool("delete_row", {"row": 1}))

            group.start_soon(do_call)
            request = await asked.next()
            ticked = threading.Event()
            request._on_tick.append(lambda left: ticked.set())
            await anyio.to_thread.run_sync(ticked.wait, 5)  # the wait loop went round: it could have sent
            request.approve()
    assert results[0].content[0].text == "deleted 1"
    assert not any("progress" in repr(message).lower() for message in messages)


def test_what_the_model_is_told_depends_on_where_a_person_answers() -> None:
    policy = ApprovalPolicy(timeout=45)
    told = {}
    for where in ("notebook", "terminal", "server"):
        policy.answered_in = where  # type: ignore[assignment]
        told[where] = policy.message("timeout", "delete_row")
    assert all(text and text.startswith("Nobody answered the approval request") for text in told.values())
    assert all("within 45 s" in text for text in told.values() if text)
    assert "in the notebook's panel" in (told["notebook"] or "")
    assert "at the terminal where `mcp-notebook serve` runs" in (told["terminal"] or "")
    assert "in the notebook" not in (told["terminal"] or "") + (told["server"] or "")
    policy.answered_in = "terminal"
    assert "notebook" not in (policy.message("denied", "delete_row") or "")
    policy.answered_in = None
    unattended = policy.message("unattended", "delete_row") or ""
    assert "No one can approve calls on this server" in unattended and "--approval auto" in unattended
    assert "approve it in the notebook" not in unattended
    set_language("ko")
    policy.answered_in = "notebook"
    assert "45초 안에 아무도 'delete_row' 호출의 승인 요청에 답하지 않아" in (
        policy.message("timeout", "delete_row") or ""
    )


async def test_with_nobody_to_answer_a_call_is_declined_at_once(asking: Any, catalogue: Catalogue) -> None:
    done = define(catalogue)
    asking.approval.answered_in = None  # what `mcp-notebook serve` sets without a terminal
    shown: list[Any] = []
    asking.approval.listeners.append(shown.append)
    with anyio.fail_after(4):  # not after the 5 s approval timeout
        async with connect(asking, "auto") as client:
            result = await client.call_tool("delete_row", {"row": 1})
    assert result.is_error is True and "No one can approve calls on this server" in result.content[0].text
    assert done == [] and shown == [] and asking.calls[-1].decision == "unattended"


def test_a_prompt_counts_down_the_time_left(asking: Any, catalogue: Catalogue) -> None:
    define(catalogue)
    panel = asking.panel()
    asked = threading.Event()
    asking.approval.listeners.append(lambda request: asked.set())
    counted: list[str] = []
    ticked = threading.Event()

    def outside() -> Any:
        return mcp_notebook.call("delete_row", {"row": 1}, url=asking.url, token=asking.token)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pending = pool.submit(outside)
        assert asked.wait(10)
        prompt = panel.approvals.children[0]
        counted.append(prompt.countdown.value)
        prompt.countdown.observe(lambda change: (counted.append(change["new"]), ticked.set()), names="value")
        assert ticked.wait(5), "the countdown did not move"
        widgets_before = len(panel.approvals.children)
        prompt.deny_button.click()
        assert pending.result(10).is_error
    # One trait, set each second, from the 5 s the approval waits (a busy machine may show the
    # prompt a second or two late: the count it shows then is what is left, not 5 again).
    left = [re.fullmatch(r"<span class='mcp-warn'>(\d) s left</span>", text) for text in counted[:2]]
    assert all(left), counted
    first, second = (int(match.group(1)) for match in left if match)
    assert 3 <= first <= 5 and second == first - 1, counted
    assert widgets_before == 1 and prompt.countdown.value == ""


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "60", True])
def test_an_approval_timeout_must_be_a_positive_number_of_seconds(catalogue: Catalogue, bad: Any) -> None:
    with pytest.raises(ValueError, match="approval_timeout must be a number of seconds greater than 0"):
        serve(catalogue=catalogue, approval_timeout=bad)


def test_always_allowed_tools_read_like_a_set_of_names() -> None:
    policy = ApprovalPolicy()
    definitions = {"a": "v1", "b": "v1"}
    policy.allowed.definition = definitions.get
    policy.allowed.add("a")  # by hand: allows the definition it has now
    policy.allowed.allow("b", "v1")
    assert policy.allowed == {"a", "b"} and repr(policy.allowed) in ("{'a', 'b'}", "{'b', 'a'}")
    definitions["b"] = "v2"  # redefined
    assert "b" not in policy.allowed and policy.allowed == {"a"}
    assert not policy.needs_approval("a", read_only=False, override=None, local=False)
    assert policy.needs_approval("b", read_only=False, override=None, local=False)
    policy.allowed.discard("a")
    assert repr(policy.allowed) == "set()" and len(policy.allowed) == 0
