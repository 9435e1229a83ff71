"""Tasks in a real Jupyter kernel: a cancelled ``run_in="kernel"`` tool, and a kernel restart.

A task of a tool that runs on the kernel's main thread is cancelled like a cell is interrupted
(``KeyboardInterrupt``), only while that tool runs there: the interrupt never reaches a cell, and the
kernel goes on. A kernel restart loses the tasks it ran; their records, in the store on disk, then
read as failed, saying why.
"""

from __future__ import annotations

import socket
import textwrap
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import connect
from tests.kernel import Kernel
from tests.tasks_client import CreatedTask, TasksExtension, cancel_task, get_task, until_status

pytestmark = pytest.mark.kernel


class Remote:
    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token


SETUP = '''
%load_ext mcp_notebook
import socket, threading, time
import mcp_notebook
from mcp_notebook import Context, tool
finished = []

@tool(read_only=True, task="optional", run_in="kernel")
def crunch(port: int) -> str:
    """Tell the test it started, then work on the kernel's thread until interrupted."""
    socket.create_connection(("127.0.0.1", port)).close()
    try:
        threading.Event().wait()
    finally:
        finished.append("crunch")
    return "never"

@tool(read_only=True, task="optional")
def slow(port: int, ctx: Context) -> str:
    """Tell the test it started, then wait a minute."""
    socket.create_connection(("127.0.0.1", port)).close()
    ctx.sleep(60)
    return "slept"
'''


def serve(kernel: Kernel, options: str) -> Remote:
    kernel.run(f"srv = mcp_notebook.serve(approval='auto', {options})").raise_for_error()
    return Remote(**kernel.json('{"url": srv.url, "token": srv.token}'))


async def start_task(remote: Remote, tool: str) -> str:
    """Call `tool` as a task and return its id once the tool is running (it connects to us)."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.setblocking(False)
        async with connect(remote, "auto", extensions=[TasksExtension()]) as client:
            created = await client.session.call_tool(
                tool, {"port": listener.getsockname()[1]}, allow_claimed=True
            )
            assert isinstance(created, CreatedTask), created
            with anyio.fail_after(30):
                await anyio.wait_readable(listener)
        return created.task_id


def test_cancelling_a_kernel_task_interrupts_it_and_never_a_cell() -> None:
    kernel = Kernel()
    try:
        kernel.run(textwrap.dedent(SETUP)).raise_for_error()
        remote = serve(kernel, "run_in='thread'")

        async def main() -> Any:
            task_id = await start_task(remote, "crunch")
            async with connect(remote, "auto", extensions=[TasksExtension()]) as client:
                await cancel_task(client.session, task_id)
                return await until_status(client.session, task_id)

        done = anyio.run(main)
        assert done.status == "cancelled" and done.result is None
        assert kernel.json("finished") == ["crunch"]  # the tool itself stopped, its finally ran
        # The kernel goes on, and no interrupt is left for the next cell to get.
        after = kernel.run("total = sum(range(2_000_000)); print(total)")
        after.raise_for_error()
        assert after.stdout.strip() == str(sum(range(2_000_000)))
        assert kernel.json("srv.running") is True
    finally:
        kernel.shutdown()


def test_a_kernel_restart_marks_the_tasks_it_ran_failed_saying_why(tmp_path: Path) -> None:
    store = tmp_path / "state.sqlite3"
    options = f"store='sqlite:///{store}', name='restarted-nb', token='restart-test-token'"
    kernel = Kernel()
    try:
        kernel.run(textwrap.dedent(SETUP)).raise_for_error()
        remote = serve(kernel, options)
        task_id = anyio.run(start_task, remote, "slow")
        kernel.manager.restart_kernel(now=True)
        kernel.run(textwrap.dedent(SETUP)).raise_for_error()
        remote = serve(kernel, options)

        async def main() -> Any:
            async with connect(remote, "auto", extensions=[TasksExtension()]) as client:
                return await get_task(client.session, task_id)

        task = anyio.run(main)
    finally:
        kernel.shutdown()
    assert task.status == "failed" and task.error is not None
    assert "kernel restarted" in (task.status_message or "") and "kernel restarted" in task.error["message"]
