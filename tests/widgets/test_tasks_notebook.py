"""Tasks in the notebook: ``call(..., task=True)`` / ``%mcp_call --task``, the panel's running tasks,
and each task's lifecycle in the activity log."""

from __future__ import annotations

import html
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, Context, ProtocolError, tool
from mcp_notebook.widgets import ServerPanel, TaskCallView
from mcp_notebook.widgets._activity import render_row
from tests.conftest import connect, serve_unattended, until
from tests.tasks_client import TasksExtension


class Tools:
    def __init__(self) -> None:
        self.looping = threading.Event()
        self.stopped = threading.Event()


@pytest.fixture
def tools() -> Tools:
    return Tools()


@pytest.fixture
def server(catalogue: Catalogue, tools: Tools) -> Iterator[Any]:
    @tool(catalogue=catalogue, read_only=True, task="optional")
    def slow(seconds: float, ctx: Context) -> str:
        """Waits `seconds`, reporting progress, then answers."""
        ctx.progress(1, total=2, message="half way")
        ctx.sleep(seconds)
        return f"slept {seconds:g} s"

    @tool(catalogue=catalogue, read_only=True, task="optional")
    def training(ctx: Context) -> str:
        """Trains until cancelled."""
        tools.looping.set()
        try:
            while True:
                ctx.progress(1, total=10, message="epoch")
                threading.Event().wait(0.02)  # one epoch's work
        finally:
            tools.stopped.set()

    srv = serve_unattended(catalogue)
    try:
        yield srv
    finally:
        srv.stop()


def test_call_with_task_returns_a_task_that_ends_with_the_result(server: Any) -> None:
    job = mcp_notebook.call("slow", {"seconds": 1}, task=True)
    assert job.task_id is not None and job.status == "working" and not job.done
    view = TaskCallView(job)
    result = job.result(timeout=30)
    assert result.text == "slept 1 s" and job.status == "completed" and job.done
    assert until(lambda: view.cancel_button.disabled)  # the view followed it to its end
    assert view.bar.bar.bar_style == "success"
    # A call done within `promote_after` is answered at once: an ended task. (The bound is raised so
    # that a loaded machine cannot make this quick call outlast it.)
    server._tools.tasks.promote_after = 30
    quick = mcp_notebook.call("slow", {"seconds": 0}, task=True)
    assert quick.task_id is None and quick.done and quick.result().text == "slept 0 s"


def test_a_tasks_progress_reaches_the_notebook_and_cancel_stops_it(server: Any, tools: Tools) -> None:
    job = mcp_notebook.call("training", task=True)
    view = TaskCallView(job)
    assert until(lambda: job.progress is not None, timeout=20)
    assert job.progress == (1, 10, "epoch")
    assert until(lambda: (view.bar.bar.value, view.bar.bar.max) == (1, 10))  # its progress bar
    view.cancel_button.click()
    assert until(tools.stopped.is_set, timeout=10)  # the tool's loop ended in the server
    assert until(lambda: job.status == "cancelled")
    with pytest.raises(ProtocolError, match="cancelled"):
        job.result(timeout=5)


@pytest.mark.anyio
async def test_a_task_can_be_awaited(server: Any) -> None:
    import anyio.to_thread

    job = await anyio.to_thread.run_sync(lambda: mcp_notebook.call("slow", {"seconds": 0.8}, task=True))
    assert (await job).text == "slept 0.8 s"


def test_mcp_call_task_magic(server: Any) -> None:
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mcp_notebook")
    try:
        job = shell.run_line_magic("mcp_call", "slow seconds=0.8 --task")
        assert job.task_id is not None
        assert job.result(timeout=30).text == "slept 0.8 s"
    finally:
        shell.run_line_magic("unload_ext", "mcp_notebook")


@pytest.mark.anyio
async def test_the_panel_lists_running_tasks_with_cancel_and_the_activity_log_their_lifecycle(
    server: Any, tools: Tools
) -> None:
    from tests.tasks_client import until_status

    panel = ServerPanel(server)
    try:
        async with connect(server, "auto", extensions=[TasksExtension()]) as client:
            created = await client.session.call_tool("training", {}, allow_claimed=True)
            assert until(lambda: len(panel.tasks.rows.children) == 1)
            row = html.unescape(panel.tasks.rows.children[0].children[0].value)
            assert row.startswith("training · owner") and "Running tasks (1)" in panel.tasks.title.value
            panel.tasks.buttons[created.task_id].click()  # Cancel, from the notebook
            done = await until_status(client.session, created.task_id)
        assert done.status == "cancelled" and "notebook" in (done.status_message or "")
        assert until(tools.stopped.is_set, timeout=10)
        assert until(lambda: panel.tasks.rows.children == ())
        # The call's record is written as the cancelled run ends, which the panel's row may precede.
        assert until(lambda: any(r.method == "tools/call" and r.tool == "training" for r in server.calls))
        record = next(r for r in server.calls if r.method == "tools/call" and r.tool == "training")
        line = html.unescape(render_row(record))
        assert f"task {created.task_id[:8]}: created +" in line and "→ cancelled +" in line
    finally:
        panel.close()


@pytest.mark.anyio
async def test_the_activity_log_shows_a_tasks_polls_as_one_row_until_its_status_changes(
    server: Any, tools: Tools
) -> None:
    from tests.tasks_client import cancel_task, get_task, until_status

    panel = ServerPanel(server)
    try:
        async with connect(server, "auto", extensions=[TasksExtension()]) as client:
            created = await client.session.call_tool("training", {}, allow_claimed=True)
            for _ in range(5):  # a client polling a task that is still working
                assert (await get_task(client.session, created.task_id)).status == "working"
            # A request's record reaches the log as its answer goes out: wait for the fifth.
            assert until(lambda: panel.activity.flush() or "polled 5 times" in panel.activity.value)
            rows = html.unescape(panel.activity.value).split("<details")[1:]
            polls = [row for row in rows if "tasks/get" in row]
            assert len(polls) == 1 and "polled 5 times, nothing new" in polls[0], polls
            await cancel_task(client.session, created.task_id)
            await until_status(client.session, created.task_id, "cancelled")
            assert (await get_task(client.session, created.task_id)).status == "cancelled"

        def rows_now() -> list[str]:
            panel.activity.flush()
            return html.unescape(panel.activity.value).split("<details")[1:]

        # The last poll's record reaches the log as its answer goes out: wait for it.
        assert until(lambda: '"status": "cancelled"' in [r for r in rows_now() if "tasks/get" in r][-1])
        rows = rows_now()
        # News (the task was cancelled) starts a row of its own: the five quiet polls stay counted.
        polls = [row for row in rows if "tasks/get" in row]
        assert len(polls) >= 2 and "polled 5 times, nothing new" in polls[0]
        assert '"status": "cancelled"' in polls[-1] and '"status": "cancelled"' not in polls[0]
        assert until(tools.stopped.is_set, timeout=10)
        # The call's own row comes when its run ends (its record is written then), polls or not.
        assert until(lambda: panel.activity.flush() or "tools/call" in panel.activity.value)
    finally:
        panel.close()


@pytest.mark.anyio
async def test_the_audit_log_keeps_a_tasks_call_with_its_lifecycle_and_its_cancel(
    catalogue: Catalogue, tools: Tools, tmp_path: Any
) -> None:
    from mcp_notebook.server._audit import AuditLog
    from tests.tasks_client import cancel_task, until_status

    @tool(catalogue=catalogue, read_only=True, task="optional")
    def crunch(ctx: Context) -> str:
        """Crunches until cancelled."""
        while True:
            ctx.sleep(0.05)

    path = tmp_path / "audit.jsonl"
    srv = serve_unattended(catalogue, audit_log=path)
    try:
        async with connect(srv, "auto", extensions=[TasksExtension()]) as client:
            created = await client.session.call_tool("crunch", {}, allow_claimed=True)
            await cancel_task(client.session, created.task_id)
            await until_status(client.session, created.task_id)
        assert until(lambda: any(line.get("task") for line in AuditLog.read(path)))
    finally:
        srv.stop()
    lines = AuditLog.read(path)
    [cancel] = [line for line in lines if line["method"] == "tasks/cancel"]
    assert cancel["tool"] == created.task_id and cancel["client"] == "owner"
    [call] = [line for line in lines if line["method"] == "tools/call" and line["tool"] == "crunch"]
    assert call["task"]["id"] == created.task_id and call["task"]["status"] == "cancelled"
    assert [what for _, what in call["task"]["events"]] == ["created", "cancelled"]
    assert call["outcome"].startswith("cancelled by owner") and call["is_error"] is True
