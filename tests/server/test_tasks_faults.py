"""Tasks under faults: a client that hangs up before it learns of a task, one that hangs up after,
and a hundred tasks at once, nothing lost."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

from mcp_notebook import Catalogue, Context, tool
from tests.conftest import connect, serve_unattended, until
from tests.tasks_client import EXTENSION, TasksExtension, get_task, until_status

pytestmark = pytest.mark.anyio


class Seen:
    def __init__(self) -> None:
        self.started = threading.Event()
        self.stopped = threading.Event()


@pytest.fixture
def seen() -> Seen:
    return Seen()


@pytest.fixture
def server(catalogue: Catalogue, seen: Seen) -> Iterator[Any]:
    @tool(catalogue=catalogue, read_only=True, task="optional")
    def slow(seconds: float, ctx: Context, n: int = 0) -> str:
        """Waits `seconds`, then answers with `n`."""
        seen.started.set()
        try:
            ctx.sleep(seconds)
        finally:
            seen.stopped.set()
        return f"call {n} slept {seconds:g} s"

    # Every request is kept in srv.calls, each poll too: room for a hundred tasks' calls and polls.
    srv = serve_unattended(catalogue, history=20_000)
    try:
        yield srv
    finally:
        srv.stop()


def hang_up_early(srv: Any) -> None:
    """A 2026-07-28 client that declares tasks, calls, and is gone before the call could become a task."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}},
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "slow", "arguments": {"seconds": 60}, "_meta": meta},
    }
    headers = {
        "Authorization": f"Bearer {srv.token}",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "slow",
        "Accept": "application/json, text/event-stream",
    }
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(srv.url, json=body, headers=headers, timeout=httpx.Timeout(10, read=0.2))


async def test_a_client_gone_before_its_call_became_a_task_stops_the_work(server: Any, seen: Seen) -> None:
    await anyio.to_thread.run_sync(hang_up_early, server)
    assert until(seen.started.is_set)
    # Nobody could ever ask for that task's result: its work stops, nothing is left running.
    assert until(seen.stopped.is_set, timeout=10)
    assert until(lambda: server._tools.tasks.runs == {})


async def test_a_client_gone_mid_task_finds_its_result_when_it_comes_back(server: Any) -> None:
    async with connect(server, "auto", extensions=[TasksExtension()]) as client:
        created = await client.session.call_tool("slow", {"seconds": 1.5}, allow_claimed=True)
        assert (await get_task(client.session, created.task_id)).status == "working"
    # The client is gone while the task runs; the task goes on, in the server.
    async with connect(server, "auto", extensions=[TasksExtension()]) as back:
        done = await until_status(back.session, created.task_id)
    assert done.status == "completed" and done.result is not None
    assert done.result["content"][0]["text"] == "call 0 slept 1.5 s"


async def test_a_hundred_tasks_at_once_all_end_with_their_own_result(
    server: Any, catalogue: Catalogue
) -> None:
    # Each call is held until all hundred are tasks: a call done within `promote_after` is answered
    # at once, which a loaded machine could otherwise make of a short sleep.
    release = threading.Event()

    @tool(catalogue=catalogue, read_only=True, task="optional")
    def held(n: int) -> str:
        """Waits until the test lets it go, then answers with `n`."""
        release.wait(120)
        return f"call {n} was held"

    results: dict[int, str] = {}
    created_count = 0
    async with connect(server, "auto", extensions=[TasksExtension()]) as client:

        async def one(n: int) -> None:
            nonlocal created_count
            created = await client.session.call_tool("held", {"n": n}, allow_claimed=True)
            created_count += 1
            if created_count == 100:
                release.set()
            done = await until_status(client.session, created.task_id, timeout=120)
            assert done.status == "completed" and done.result is not None
            results[n] = done.result["content"][0]["text"]

        try:
            with anyio.fail_after(180):
                async with anyio.create_task_group() as group:
                    for n in range(100):
                        group.start_soon(one, n)
        finally:
            release.set()
    assert results == {n: f"call {n} was held" for n in range(100)}
    assert until(lambda: server._tools.tasks.runs == {})
    calls = [r for r in server.calls if r.method == "tools/call" and r.tool == "held"]
    assert len(calls) == 100 and all(r.task is not None and r.task["status"] == "completed" for r in calls)
