"""Long calls as tasks, in both eras, with the SDK's client (hand-written requests where it has no tasks).

2026-07-28: a client that declares the ``io.modelcontextprotocol/tasks`` extension on a request gets
a task for a call that takes longer than half a second, and polls it (``tasks/get``), answers its
questions (``tasks/update``) or cancels it (``tasks/cancel``). 2025-11-25: the client asks for a task
(``params.task``) and reads the result with ``tasks/result``. Either way the call's work runs in the
server, not in the request: the client may hang up and come back for the result.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from mcp_notebook import Catalogue, Context, MemoryStore, tool
from tests.conftest import INITIALIZE, connect, serve_unattended, until
from tests.tasks_client import (
    EXTENSION,
    CreatedTask,
    TasksExtension,
    cancel_task,
    get_task,
    legacy_task_call,
    until_status,
    update_task,
)

pytestmark = pytest.mark.anyio

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


class Tools:
    """What the tools of a test tell it: each stop of the cancellable loop, from the tool's thread."""

    def __init__(self) -> None:
        self.looping = threading.Event()
        self.stopped = threading.Event()
        self.steps = 0


@pytest.fixture
def tools() -> Tools:
    return Tools()


@pytest.fixture
def server(catalogue: Catalogue, tools: Tools) -> Iterator[Any]:
    @tool(catalogue=catalogue, read_only=True, task="optional")
    def slow(seconds: float, ctx: Context) -> str:
        """Waits `seconds`, then answers."""
        ctx.sleep(seconds)
        return f"slept {seconds:g} s"

    @tool(catalogue=catalogue, read_only=True, task="required")
    def only_as_task(ctx: Context) -> str:
        """Runs only as a task."""
        ctx.sleep(0.6)
        return "done as a task"

    @tool(catalogue=catalogue, read_only=True)
    def plain() -> str:
        """Never a task (the default)."""
        return "plain"

    @tool(catalogue=catalogue, read_only=True, task="optional")
    def broken(ctx: Context) -> str:
        """Fails as a tool (isError) after a while."""
        ctx.sleep(0.6)
        raise RuntimeError("broken on purpose")

    @tool(catalogue=catalogue, read_only=True, task="optional")
    def asking(ctx: Context) -> str:
        """Asks a name once it is a task."""
        ctx.sleep(0.6)
        return f"Hello, {ctx.elicit('Your name?', NAME).get('name')}!"

    @tool(catalogue=catalogue, read_only=True, task="optional")
    def training(epochs: int, ctx: Context) -> str:
        """Reports progress each epoch until cancelled (or done)."""
        tools.looping.set()
        try:
            for epoch in range(epochs):
                ctx.progress(epoch, total=epochs, message="training")
                tools.steps = epoch
                threading.Event().wait(0.02)  # one epoch's work
            return "trained"
        finally:
            tools.stopped.set()

    srv = serve_unattended(catalogue)
    try:
        yield srv
    finally:
        srv.stop()


def text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


# -- 2026-07-28 ------------------------------------------------------------------------------------------
async def test_discover_advertises_the_tasks_extension(server: Any) -> None:
    async with connect(server, "auto") as client:
        assert client.session.discover_result is not None
        capabilities = client.session.discover_result.capabilities
        # Tasks, and MCP Apps (tests/server/test_apps.py), each advertised with no settings.
        assert capabilities.extensions == {EXTENSION: {}, "io.modelcontextprotocol/ui": {}}
        assert capabilities.tasks is None  # the 2025-11-25 slot is not part of this era


async def test_a_long_call_is_a_task_the_client_polls_to_its_result(server: Any) -> None:
    async with connect(server, "auto", extensions=[TasksExtension()]) as client:
        created = await client.session.call_tool("slow", {"seconds": 1}, allow_claimed=True)
        assert isinstance(created, CreatedTask)
        assert created.status == "working" and len(created.task_id) >= 32
        assert created.ttl_ms is not None and created.ttl_ms > 0
        assert (await get_task(client.session, created.task_id)).status == "working"  # stored before answered
        done = await until_status(client.session, created.task_id)
        assert done.status == "completed" and done.result is not None
        assert done.result["content"][0]["text"] == "slept 1 s"
        # The SDK client resolves the task itself when it knows the extension.
        assert text(await client.call_tool("slow", {"seconds": 0.8})) == "slept 0.8 s"


async def test_a_quick_call_and_a_client_without_tasks_get_the_result_at_once(server: Any) -> None:
    server._tools.tasks.promote_after = 30  # "quick": done within the bound, however loaded the machine
    async with connect(server, "auto", extensions=[TasksExtension()]) as client:
        quick = await client.session.call_tool("slow", {"seconds": 0}, allow_claimed=True)
        assert isinstance(quick, types.CallToolResult) and text(quick) == "slept 0 s"
    async with connect(server, "auto") as client:  # declares nothing: never a task
        assert text(await client.call_tool("slow", {"seconds": 0.8})) == "slept 0.8 s"
        with pytest.raises(MCPError) as caught:
            await client.call_tool("only_as_task", {})
    assert caught.value.code == -32021
    assert caught.value.error.data == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
    assert EXTENSION in caught.value.error.message


async def test_a_tool_error_is_a_completed_task_whose_result_says_so(server: Any) -> None:
    async with connect(server, "auto", extensions=[TasksExtension()]) as client:
        created = await client.session.call_tool("broken", {}, allow_claimed=True)
        done = await until_status(client.session, created.task_id)
    assert done.status == "completed" and done.result is not None and done.result["isError"] is True
    assert "broken on purpose" in done.result["content"][0]["text"]
    assert "broken on purpose" in (done.status_message or "")


async def test_a_tasks_question_waits_for_the_client_to_answer_with_tasks_update(server: Any) -> None:
    async def never_asked(*_: Any) -> Any:
        raise AssertionError("a task's question is polled, not pushed")

    async with connect(
        server, "auto", extensions=[TasksExtension()], elicitation_callback=never_asked
    ) as client:
        created = await client.session.call_tool("asking", {}, allow_claimed=True)
        waiting = await until_status(client.session, created.task_id, "input_required")
        assert waiting.input_requests is not None
        [(key, question)] = waiting.input_requests.items()
        assert question["method"] == "elicitation/create" and question["params"]["message"] == "Your name?"
        ack = await update_task(
            client.session, created.task_id, {key: {"action": "accept", "content": {"name": "Ada"}}}
        )
        assert ack.model_dump(by_alias=True, exclude_none=True).keys() <= {"resultType", "_meta"}
        done = await until_status(client.session, created.task_id)
    assert done.status == "completed" and done.result is not None
    assert done.result["content"][0]["text"] == "Hello, Ada!"


async def test_progress_shows_in_the_tasks_status_message(server: Any, tools: Tools) -> None:
    async with connect(server, "auto", extensions=[TasksExtension()]) as client:
        created = await client.session.call_tool("training", {"epochs": 10_000}, allow_claimed=True)
        with anyio.fail_after(10):  # polls, as a client does, until a report after the task began shows
            while "/10000" not in (
                (task := await get_task(client.session, created.task_id)).status_message or ""
            ):
                await anyio.sleep(0.05)
        assert task.status == "working" and "training" in (task.status_message or "")
        assert task.meta is not None and task.meta["io.github.mcp-notebook/progress"]["total"] == 10_000
        await cancel_task(client.session, created.task_id)


async def test_cancel_stops_a_thread_tool_at_its_next_context_call(server: Any, tools: Tools) -> None:
    async with connect(server, "auto", extensions=[TasksExtension()]) as client:
        created = await client.session.call_tool("training", {"epochs": 100_000}, allow_claimed=True)
        assert until(tools.looping.is_set)
        ack = await cancel_task(client.session, created.task_id)
        assert ack.result_type == "complete"
        assert (await get_task(client.session, created.task_id)).status == "cancelled"  # at once
        assert until(tools.stopped.is_set, timeout=10)  # the loop ended: nothing left running
        steps = tools.steps
        assert steps < 100_000 - 1
        done = await get_task(client.session, created.task_id)
    assert done.status == "cancelled" and done.result is None
    assert until(lambda: server._tools.tasks.runs == {})


async def test_a_task_outlives_its_client_which_reads_the_result_after_reconnecting(server: Any) -> None:
    async with connect(server, "auto", extensions=[TasksExtension()]) as client:
        created = await client.session.call_tool("slow", {"seconds": 1}, allow_claimed=True)
    async with connect(server, "auto", extensions=[TasksExtension()]) as again:  # a new connection
        done = await until_status(again.session, created.task_id)
    assert done.status == "completed" and done.result is not None
    assert done.result["content"][0]["text"] == "slept 1 s"


async def test_an_unknown_task_id_is_a_clear_invalid_params_error(server: Any) -> None:
    async with connect(server, "auto", extensions=[TasksExtension()]) as client:
        with pytest.raises(MCPError) as caught:
            await get_task(client.session, "no-such-task")
    assert caught.value.code == types.INVALID_PARAMS
    assert "Unknown task 'no-such-task'" in caught.value.error.message


# -- 2025-11-25 ------------------------------------------------------------------------------------------
async def test_initialize_and_tools_list_say_which_tools_run_as_tasks(server: Any) -> None:
    async with connect(server, "legacy") as client:
        capabilities = client.server_capabilities
        assert capabilities.tasks is not None and capabilities.tasks.requests is not None
        listed = {item.name: item.execution for item in (await client.list_tools()).tools}
    assert listed["slow"] is not None and listed["slow"].task_support == "optional"
    assert listed["only_as_task"] is not None and listed["only_as_task"].task_support == "required"
    assert listed["plain"] is None  # absent: forbidden


async def test_a_task_augmented_call_is_answered_with_a_task(server: Any) -> None:
    answer = await _legacy(server, "slow", {"seconds": 1}, {"ttl": 60_000})
    task = answer["result"]["task"]
    assert task["status"] == "working" and task["ttl"] >= 60_000 and task["pollInterval"] > 0
    assert "ttlMs" not in task and "resultType" not in answer["result"]
    async with connect(server, "legacy") as client:  # another session of the same token
        got = await client.session.send_request(
            types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task["taskId"])),
            types.GetTaskResult,
        )
        assert got.task_id == task["taskId"] and got.status in ("working", "completed")
        result = await client.session.send_request(
            types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task["taskId"])),
            types.CallToolResult,
        )
    assert text(result) == "slept 1 s"
    assert result.meta == {"io.modelcontextprotocol/related-task": {"taskId": task["taskId"]}}


async def test_a_tool_error_is_a_failed_task_in_2025(server: Any) -> None:
    task = (await _legacy(server, "broken", {}))["result"]["task"]
    async with connect(server, "legacy") as client:
        result = await client.session.send_request(
            types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task["taskId"])),
            types.CallToolResult,
        )
        got = await client.session.send_request(
            types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task["taskId"])),
            types.GetTaskResult,
        )
    assert result.is_error and "broken on purpose" in text(result)
    assert got.status == "failed" and "broken on purpose" in (got.status_message or "")


async def test_tasks_list_and_cancel_in_2025(server: Any, tools: Tools) -> None:
    task = (await _legacy(server, "training", {"epochs": 100_000}))["result"]["task"]
    assert until(tools.looping.is_set)
    async with connect(server, "legacy") as client:
        listed = await client.session.send_request(types.ListTasksRequest(), types.ListTasksResult)
        assert listed.tasks[0].task_id == task["taskId"]  # newest first (with this token's earlier tasks)
        cancelled = await client.session.send_request(
            types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task["taskId"])),
            types.CancelTaskResult,
        )
        assert cancelled.status == "cancelled"
        assert until(tools.stopped.is_set, timeout=10)
        with pytest.raises(MCPError) as again:  # 2025-11-25: cancelling a terminal task is refused
            await client.session.send_request(
                types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task["taskId"])),
                types.CancelTaskResult,
            )
    assert again.value.code == types.INVALID_PARAMS and "already ended" in again.value.error.message


async def test_a_tools_task_setting_is_kept_in_2025(server: Any) -> None:
    forbidden = await _legacy(server, "plain", {})
    assert forbidden["error"]["code"] == types.METHOD_NOT_FOUND
    assert "without params.task" in forbidden["error"]["message"]
    async with connect(server, "legacy") as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("only_as_task", {})
    assert caught.value.code == types.METHOD_NOT_FOUND and "params.task" in caught.value.error.message
    assert (await _legacy(server, "only_as_task", {}))["result"]["task"]["status"] == "working"


async def _legacy(
    server: Any, name: str, arguments: dict[str, Any], task: dict[str, Any] | None = None, **options: Any
) -> Any:
    import anyio.to_thread

    return await anyio.to_thread.run_sync(
        lambda: legacy_task_call(server.url, server.token, name, arguments, task, **options)
    )


# -- kept for a stated time ------------------------------------------------------------------------------
class Clock:
    """The store's clock, moved by the test (TTLs follow it; nothing sleeps)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_a_finished_task_is_kept_for_its_ttl_and_a_running_one_never_expires(
    catalogue: Catalogue, tools: Tools
) -> None:
    @tool(catalogue=catalogue, read_only=True, task="optional")
    def slow(seconds: float, ctx: Context) -> str:
        """Waits `seconds`, then answers."""
        ctx.sleep(seconds)
        return f"slept {seconds:g} s"

    clock = Clock()
    srv = serve_unattended(catalogue, store=MemoryStore(clock=clock), task_ttl=600)
    srv._tools.tasks.promote_after = 0.1  # 0.6 s is a task with room to spare on a loaded machine
    try:
        async with connect(srv, "auto", extensions=[TasksExtension()]) as client:
            running = await client.session.call_tool("slow", {"seconds": 60}, allow_claimed=True)
            finished = await client.session.call_tool("slow", {"seconds": 0.6}, allow_claimed=True)
            done = await until_status(client.session, finished.task_id)
            assert done.status == "completed" and done.ttl_ms is not None
            assert 600_000 <= done.ttl_ms < 700_000  # from its creation: kept 600 s after its end
            clock.now += 599
            assert (await get_task(client.session, finished.task_id)).status == "completed"
            clock.now += 2
            with pytest.raises(MCPError) as caught:
                await get_task(client.session, finished.task_id)
            assert caught.value.code == types.INVALID_PARAMS
            assert "expired (a task is kept 600 s after it ends)" in caught.value.error.message
            clock.now += 7200  # two hours on: a task that still runs is still there
            still = await get_task(client.session, running.task_id)
            assert still.status == "working" and still.ttl_ms is not None and still.ttl_ms > 7_800_000
            await cancel_task(client.session, running.task_id)
    finally:
        srv.stop()


async def test_a_2025_tasks_question_reaches_the_client_on_the_tasks_result_stream(server: Any) -> None:
    asked: list[Any] = []

    async def answer(context: Any, params: Any) -> Any:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"name": "Grace"})

    task = (await _legacy(server, "asking", {}, capabilities={"elicitation": {}}))["result"]["task"]
    async with connect(server, "legacy", elicitation_callback=answer) as client:
        # tasks/result waits for the end, and carries the task's question to the client meanwhile.
        result = await client.session.send_request(
            types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task["taskId"])),
            types.CallToolResult,
        )
    assert text(result) == "Hello, Grace!"
    [question] = asked
    assert question.message == "Your name?"
    assert question.meta == {"io.modelcontextprotocol/related-task": {"taskId": task["taskId"]}}


def statuses_heard(url: str, token: str, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """A 2025-11-25 session by hand: its GET stream open, a task-augmented call, the task's statuses heard."""
    import json

    import httpx

    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    heard: list[dict[str, Any]] = []
    opened, ended = threading.Event(), threading.Event()
    with httpx.Client(headers=headers, timeout=30) as http:
        init = http.post(url, json=INITIALIZE)
        session = {"mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)

        def listen() -> None:
            with http.stream("GET", url, headers={**session, "Accept": "text/event-stream"}) as stream:
                opened.set()  # the server holds the stream once its headers came back
                for line in stream.iter_lines():
                    if line.startswith("data:"):
                        message = json.loads(line[5:])
                        if message.get("method") == "notifications/tasks/status":
                            heard.append(message["params"])
                            if message["params"]["status"] in ("completed", "failed", "cancelled"):
                                ended.set()
                                return

        listener = threading.Thread(target=listen, daemon=True)
        listener.start()
        assert opened.wait(10)
        params = {"name": name, "arguments": arguments, "task": {}}
        http.post(
            url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}, headers=session
        )
        assert ended.wait(20), heard
        http.delete(url, headers=session)
    return heard


async def test_a_2025_session_hears_its_tasks_status_on_its_own_stream(server: Any) -> None:
    import anyio.to_thread

    heard = await anyio.to_thread.run_sync(lambda: statuses_heard(server.url, server.token, "broken", {}))
    assert [status["status"] for status in heard] == ["failed"]  # isError: failed, in this era
    assert "broken on purpose" in heard[0]["statusMessage"] and heard[0]["ttl"] > 0


async def test_a_late_result_of_a_tool_that_never_looks_does_not_undo_its_cancel(
    catalogue: Catalogue,
) -> None:
    release, returned = threading.Event(), threading.Event()

    @tool(catalogue=catalogue, read_only=True, task="optional")
    def stubborn() -> str:
        """Waits for the test, never looking at a Context."""
        release.wait(30)
        returned.set()
        return "finished anyway"

    srv = serve_unattended(catalogue)
    try:
        async with connect(srv, "auto", extensions=[TasksExtension()]) as client:
            created = await client.session.call_tool("stubborn", {}, allow_claimed=True)
            await cancel_task(client.session, created.task_id)
            assert (await get_task(client.session, created.task_id)).status == "cancelled"
            release.set()
            assert await anyio.to_thread.run_sync(returned.wait, 10)
            assert until(lambda: srv._tools.tasks.runs == {})
            after = await get_task(client.session, created.task_id)
        assert after.status == "cancelled" and after.result is None  # terminal stays terminal
    finally:
        release.set()
        srv.stop()


async def test_one_client_cannot_start_tasks_without_bound(server: Any, tools: Tools) -> None:
    server._tools.tasks.max_per_identity = 2
    async with connect(server, "auto", extensions=[TasksExtension()]) as client:
        running = [
            await client.session.call_tool("slow", {"seconds": 60}, allow_claimed=True) for _ in range(2)
        ]
        refused = await client.session.call_tool("slow", {"seconds": 60}, allow_claimed=True)
        assert isinstance(refused, types.CallToolResult) and refused.is_error
        assert "You already have 2 tasks running" in text(refused) and "tasks/cancel" in text(refused)
        await cancel_task(client.session, running[0].task_id)
        again = await client.session.call_tool("slow", {"seconds": 60}, allow_claimed=True)
        assert isinstance(again, CreatedTask)  # room again once one ended
        for task in (running[1], again):
            await cancel_task(client.session, task.task_id)


async def test_a_cancelled_thread_that_never_looks_is_abandoned_and_counted(catalogue: Catalogue) -> None:
    release = threading.Event()

    @tool(catalogue=catalogue, read_only=True, task="optional")
    def deaf() -> str:
        """Waits for the test, never looking at a Context."""
        release.wait(30)
        return "too late"

    srv = serve_unattended(catalogue)
    srv._tools.tasks.cancel_grace = 0.2  # seconds a cancelled thread has to stop by itself
    try:
        async with connect(srv, "auto", extensions=[TasksExtension()]) as client:
            created = await client.session.call_tool("deaf", {}, allow_claimed=True)
            await cancel_task(client.session, created.task_id)
            # The task is over for everyone; its thread, which cannot be stopped, is counted as abandoned
            # (as a timed-out call's is), so a tool that keeps doing this runs out of threads, not the server.
            assert until(lambda: srv._tools.tasks.runs == {})
            assert until(lambda: srv._tools.runner.abandoned("deaf") == 1)
            assert (await get_task(client.session, created.task_id)).status == "cancelled"
            release.set()
            assert until(lambda: srv._tools.runner.abandoned("deaf") == 0)  # it ended: nothing left running
    finally:
        release.set()
        srv.stop()
