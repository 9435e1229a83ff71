"""Attack: read, answer, cancel or list another client's task, knowing (or guessing) its id.

A task id travels in logs, screenshots and a client's own state, and a task holds a tool's result
and its questions. If any token could use any id, one client would read another's result, answer
its questions (steering a tool that acts for someone else), or cancel its work. A task is bound to
the identity whose call made it: for anyone else its id is answered exactly like an id that never
existed (``-32602``, the same message), in both eras, and it is never listed to them. The routing
header of a ``tasks/*`` request must name the task its body names (``-32020``), so that a proxy
routing on the header and the server reading the body cannot disagree on which task is meant.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from mcp_notebook import Catalogue, Context, tool
from tests.conftest import serve_unattended, until
from tests.security.conftest import client_as, post_modern, reply
from tests.tasks_client import (
    EXTENSION,
    TasksExtension,
    cancel_task,
    get_task,
    legacy_task_call,
    until_status,
    update_task,
)

pytestmark = pytest.mark.anyio

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@pytest.fixture
def server(catalogue: Catalogue) -> Iterator[Any]:
    release = threading.Event()

    @tool(catalogue=catalogue, read_only=True, task="optional")
    def payroll(ctx: Context) -> str:
        """Computes the payroll once released."""
        while not release.wait(0.02):
            ctx.check_cancelled()
        return "salary: 123,456"

    @tool(catalogue=catalogue, read_only=True, task="optional")
    def transfer(ctx: Context) -> str:
        """Asks where to send the money."""
        ctx.sleep(0.6)
        return f"sent to {ctx.elicit('To whom?', NAME).get('name')}"

    srv = serve_unattended(catalogue)
    srv.release = release
    try:
        yield srv
    finally:
        release.set()
        srv.stop()


async def refusal(call: Any) -> tuple[int, str]:
    with pytest.raises(MCPError) as caught:
        await call
    return caught.value.code, caught.value.error.message


async def test_another_identity_cannot_read_answer_or_cancel_a_task(server: Any) -> None:
    alice, bob = server.add_client("alice"), server.add_client("bob")

    async def ask(*_: Any) -> Any:
        raise AssertionError("never pushed")

    async with (
        client_as(server, alice, extensions=[TasksExtension()], elicitation_callback=ask) as mine,
        client_as(server, bob, extensions=[TasksExtension()], elicitation_callback=ask) as other,
    ):
        secret = (await mine.session.call_tool("payroll", {}, allow_claimed=True)).task_id
        question = (await mine.session.call_tool("transfer", {}, allow_claimed=True)).task_id
        waiting = await until_status(mine.session, question, "input_required")
        [key] = (waiting.input_requests or {}).keys()

        never = "x" * len(secret)
        unknown = await refusal(get_task(other.session, never))
        assert unknown[0] == types.INVALID_PARAMS
        for task_id in (secret, question):
            # Read, cancel, answer: each refused exactly as an id that never existed.
            for attempt in (
                get_task(other.session, task_id),
                cancel_task(other.session, task_id),
                update_task(other.session, task_id, {key: {"action": "accept", "content": {"name": "bob"}}}),
            ):
                code, message = await refusal(attempt)
                assert (code, message.replace(task_id, never)) == unknown
        # Alice's tasks are untouched: still running, still waiting for her answer.
        assert (await get_task(mine.session, secret)).status == "working"
        assert (await get_task(mine.session, question)).status == "input_required"
        await update_task(mine.session, question, {key: {"action": "accept", "content": {"name": "alice"}}})
        server.release.set()
        assert (await until_status(mine.session, secret)).result["content"][0]["text"] == "salary: 123,456"
        done = await until_status(mine.session, question)
    assert done.result is not None and done.result["content"][0]["text"] == "sent to alice"


async def test_another_identity_cannot_read_list_or_cancel_a_task_in_2025(server: Any) -> None:
    alice, bob = server.add_client("alice"), server.add_client("bob")
    task = await anyio.to_thread.run_sync(lambda: legacy_task_call(server.url, alice, "payroll", {}))
    task_id = task["result"]["task"]["taskId"]
    ask = types.GetTaskRequestParams(task_id=task_id)
    async with client_as(server, bob, "legacy") as other:
        listed = await other.session.send_request(types.ListTasksRequest(), types.ListTasksResult)
        assert task_id not in [item.task_id for item in listed.tasks]
        unknown = await refusal(
            other.session.send_request(
                types.GetTaskRequest(params=types.GetTaskRequestParams(task_id="x" * len(task_id))),
                types.GetTaskResult,
            )
        )
        for attempt in (
            other.session.send_request(types.GetTaskRequest(params=ask), types.GetTaskResult),
            other.session.send_request(
                types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task_id)),
                types.CallToolResult,
            ),
            other.session.send_request(
                types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id)),
                types.CancelTaskResult,
            ),
        ):
            code, message = await refusal(attempt)
            assert (code, message.replace(task_id, "x" * len(task_id))) == unknown
    async with client_as(server, alice, "legacy") as mine:
        listed = await mine.session.send_request(types.ListTasksRequest(), types.ListTasksResult)
        assert task_id in [item.task_id for item in listed.tasks]
        got = await mine.session.send_request(types.GetTaskRequest(params=ask), types.GetTaskResult)
        assert got.status == "working"


async def test_the_routing_header_must_name_the_task_the_body_names(server: Any) -> None:
    async with client_as(server, server.token, extensions=[TasksExtension()]) as mine:
        task_id = (await mine.session.call_tool("payroll", {}, allow_claimed=True)).task_id
    capabilities = {"extensions": {EXTENSION: {}}}
    for header in ({"Mcp-Name": "some-other-task"}, {}):
        response = await anyio.to_thread.run_sync(
            lambda h=header: post_modern(
                server,
                "tasks/cancel",
                {"taskId": task_id},
                token=server.token,
                capabilities=capabilities,
                headers=h,
            )
        )
        assert response.status_code == 400
        assert reply(response)["error"]["code"] == -32020
    server.release.set()
    async with client_as(server, server.token, extensions=[TasksExtension()]) as mine:
        done = await until_status(mine.session, task_id)  # the mismatched cancels did nothing
    assert done.status == "completed"
    assert until(lambda: server._tools.tasks.runs == {})
