"""A task of a tool that changes things waits for the person once; the decision covers that task only.

The approval runs inside the task, so a person can take minutes and no client times out: the task
says what it waits for. Cancelling the task withdraws its prompt, and nothing runs.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from mcp_notebook import Catalogue, Context, serve, tool
from mcp_notebook.core._approval_request import ApprovalRequest
from mcp_notebook.widgets._panel import ApprovalPrompt
from tests.conftest import connect, until
from tests.tasks_client import TasksExtension, cancel_task, get_task, legacy_task_call, until_status

pytestmark = pytest.mark.anyio


class Done:
    def __init__(self) -> None:
        self.rows: list[int] = []
        self.asked: list[ApprovalRequest] = []
        self.arrived = threading.Event()


@pytest.fixture
def done() -> Done:
    return Done()


@pytest.fixture
def asking(catalogue: Catalogue, done: Done) -> Iterator[Any]:
    @tool(catalogue=catalogue, destructive=True, task="optional")
    def purge(row: int, ctx: Context) -> str:
        """Purge one row, slowly."""
        ctx.sleep(0.6)
        ctx.progress(1, total=2, message="purging")
        done.rows.append(row)
        return f"purged {row}"

    srv = serve(catalogue=catalogue, approval_timeout=60)

    def shown(request: ApprovalRequest) -> None:
        done.asked.append(request)
        done.arrived.set()

    srv.approval.listeners.append(shown)
    try:
        yield srv
    finally:
        srv.stop()


async def next_prompt(done: Done) -> ApprovalRequest:
    arrived = await anyio.to_thread.run_sync(done.arrived.wait, 10)
    assert arrived, "no approval prompt was shown"
    done.arrived.clear()
    return done.asked[-1]


async def test_a_task_is_approved_once_and_the_prompt_says_it_is_a_task(asking: Any, done: Done) -> None:
    async with connect(asking, "auto", extensions=[TasksExtension()]) as client:
        created = await client.session.call_tool("purge", {"row": 7}, allow_claimed=True)
        prompt = await next_prompt(done)
        assert prompt.task_id == created.task_id
        shown = html.unescape(ApprovalPrompt(prompt).shown_html)
        assert "runs as a task" in shown and "this task only" in shown
        waiting = await get_task(client.session, created.task_id)
        assert waiting.status == "working" and "to approve this call" in (waiting.status_message or "")
        prompt.approve()
        finished = await until_status(client.session, created.task_id)
        assert finished.status == "completed" and done.rows == [7]
        assert len(done.asked) == 1  # once for the whole task, its progress and all
        # The decision covered that task only: the next task of the same tool asks again.
        second = await client.session.call_tool("purge", {"row": 8}, allow_claimed=True)
        again = await next_prompt(done)
        assert again.task_id == second.task_id and again is not prompt
        again.deny()
        denied = await until_status(client.session, second.task_id)
    assert denied.status == "completed" and denied.result is not None and denied.result["isError"] is True
    assert done.rows == [7]


async def test_cancelling_a_task_during_its_approval_withdraws_the_prompt_and_runs_nothing(
    asking: Any, done: Done
) -> None:
    async with connect(asking, "auto", extensions=[TasksExtension()]) as client:
        created = await client.session.call_tool("purge", {"row": 9}, allow_claimed=True)
        prompt = await next_prompt(done)
        await cancel_task(client.session, created.task_id)
        assert until(lambda: prompt.decision == "withdrawn")
        assert (await get_task(client.session, created.task_id)).status == "cancelled"
    prompt.approve()  # a late click runs nothing
    assert done.rows == []
    assert until(lambda: asking._tools.tasks.runs == {})


async def test_a_2025_task_is_approved_once_too(asking: Any, done: Done) -> None:
    answer = await anyio.to_thread.run_sync(
        lambda: legacy_task_call(asking.url, asking.token, "purge", {"row": 3})
    )
    task_id = answer["result"]["task"]["taskId"]
    prompt = await next_prompt(done)
    assert prompt.task_id == task_id
    prompt.approve()
    async with connect(asking, "auto", extensions=[TasksExtension()]) as client:  # the other era reads it too
        finished = await until_status(client.session, task_id)
    assert finished.status == "completed" and done.rows == [3] and len(done.asked) == 1


def test_the_terminal_prompt_says_it_is_a_task() -> None:
    from mcp_notebook.cli._terminal_approval import prompt

    asked = {"tool": "purge", "client": "alice", "arguments": {"row": 1}, "seconds_left": 60}
    assert "this task only" in prompt({**asked, "task": True})
    assert "task" not in prompt(asked)
