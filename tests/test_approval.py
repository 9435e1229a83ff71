"""A person approves outside calls of tools that change things; the notebook's own calls are never asked."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

import mcp_notebook
from mcp_notebook import Catalogue, serve, tool
from mcp_notebook._approval import ApprovalPolicy, ApprovalRequest
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
    assert mcp_notebook.call("delete_row", {"row": 9}, timeout=4).text == "deleted 9"
