"""Tasks in an exported app: long calls run as tasks in both eras, and replicas sharing a store
answer for each other's tasks (polled, cancelled, read through any of them).

The app is exported from a notebook with the real exporter and served by real uvicorn processes;
a task's work runs in the process that started it, its record lives in the shared store.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio.to_thread
import mcp_types as types
import nbformat
import pytest

from mcp_notebook.cli._export import export_notebook
from tests.conftest import until
from tests.exported import connect, service_environ, token_of
from tests.services import Replica
from tests.tasks_client import TasksExtension, cancel_task, legacy_task_call, until_status, update_task

pytestmark = [pytest.mark.anyio, pytest.mark.replicas]

CELLS = [
    "import os\nfrom mcp_notebook import Context, tool",
    '''@tool(read_only=True, task="optional")
def crunch(rounds: int, ctx: Context) -> str:
    """Crunch numbers for a while, reporting progress."""
    try:
        for n in range(rounds):
            ctx.progress(n, total=rounds, message="crunching")
            ctx.sleep(0.05)
        return f"crunched {rounds}"
    finally:
        with open(os.environ["CRUNCH_LOG"], "a", encoding="utf-8") as log:
            log.write("ended\\n")''',
    '''@tool(read_only=True, task="optional")
def greet(ctx: Context) -> str:
    """Asks a name once it is a task."""
    ctx.sleep(0.6)
    answer = ctx.elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
    return f"Hello, {answer.get('name')}!"''',
]


@pytest.fixture
def replicas(tmp_path: Path) -> Iterator[tuple[Replica, Replica, Path]]:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in CELLS])
    path = tmp_path / "crunching.ipynb"
    nbformat.write(notebook, path)
    (tmp_path / "app.py").write_text(export_notebook(path), encoding="utf-8")
    log = tmp_path / "crunch.log"
    log.touch()
    environ = service_environ(tmp_path, f"sqlite:///{tmp_path / 'shared.sqlite3'}", CRUNCH_LOG=str(log))
    environ["MCP_NOTEBOOK_ALLOW_TOOLS"] = ""  # the example's allow list names tools this app has not
    first = Replica(tmp_path, environ)
    try:
        second = Replica(tmp_path, environ)
    except BaseException:
        first.stop()
        raise
    try:
        yield first, second, log
    finally:
        first.stop()
        second.stop()


async def test_a_task_made_through_one_replica_is_polled_and_cancelled_through_another(
    replicas: tuple[Replica, Replica, Path],
) -> None:
    first, second, log = replicas
    async with (
        connect(first.url, "client01", "2026-07-28", extensions=[TasksExtension()]) as one,
        connect(second.url, "client01", "2026-07-28", extensions=[TasksExtension()]) as other,
    ):
        created = await one.session.call_tool("crunch", {"rounds": 40}, allow_claimed=True)
        assert created.result_type == "task"  # not answered inline: the app runs tasks
        done = await until_status(other.session, created.task_id, timeout=60)
        assert done.status == "completed", done
        assert done.result is not None and done.result["content"][0]["text"] == "crunched 40"

        endless = await one.session.call_tool("crunch", {"rounds": 1_000_000}, allow_claimed=True)
        await cancel_task(other.session, endless.task_id)  # through the replica that does not run it
        assert (await until_status(one.session, endless.task_id, timeout=60)).status == "cancelled"
    # The work stopped where it ran: both runs ended (the first done, the second cancelled).
    assert until(lambda: log.read_text(encoding="utf-8").count("ended") == 2, timeout=30)


async def test_a_tasks_question_is_answered_through_another_replica(
    replicas: tuple[Replica, Replica, Path],
) -> None:
    first, second, _ = replicas

    async def never_asked(*_: Any) -> Any:  # declares elicitation; a task's question is polled, not pushed
        raise AssertionError("a task's question is polled, not pushed")

    async with (
        connect(
            first.url,
            "client03",
            "2026-07-28",
            extensions=[TasksExtension()],
            elicitation_callback=never_asked,
        ) as one,
        connect(second.url, "client03", "2026-07-28", extensions=[TasksExtension()]) as other,
    ):
        created = await one.session.call_tool("greet", {}, allow_claimed=True)
        waiting = await until_status(other.session, created.task_id, "input_required", timeout=60)
        assert waiting.input_requests is not None
        [key] = waiting.input_requests
        await update_task(
            other.session, created.task_id, {key: {"action": "accept", "content": {"name": "Ada"}}}
        )
        done = await until_status(one.session, created.task_id, timeout=60)
    assert done.status == "completed" and done.result is not None, done
    assert done.result["content"][0]["text"] == "Hello, Ada!"


async def test_a_2025_client_gets_a_task_from_an_exported_app_and_reads_it_through_another_replica(
    replicas: tuple[Replica, Replica, Path],
) -> None:
    first, second, _ = replicas

    def call() -> Any:
        return legacy_task_call(first.url, token_of("client02"), "crunch", {"rounds": 20})

    answer = await anyio.to_thread.run_sync(call)
    assert "result" in answer, answer  # a task, not "tasks are not available"
    task = answer["result"]["task"]
    assert task["status"] == "working"
    async with connect(second.url, "client02", "legacy") as client:
        with anyio.fail_after(60):
            result = await client.session.send_request(
                types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task["taskId"])),
                types.CallToolResult,
            )
    assert result.content[0].text == "crunched 20"  # type: ignore[union-attr]
