"""Attack: take another client's session id or task id to another replica that shares its Redis.

Replicas behind a load balancer share sessions and tasks through Redis: any of them takes over a
session another opened, and answers for a task another runs. That is where an id could be enough:
a replica that never saw the session or the task might trust the record it finds. Client B (its own
token) presents client A's ``Mcp-Session-Id`` and A's task id, on the replica that holds them and
on the one that does not, in both eras: every attempt is answered exactly like an unknown id, and
A's session and task go on, untouched. The ids themselves are long random strings, never counters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from mcp_notebook.client._http import tls_context
from tests.conftest import INITIALIZE
from tests.exported import connect, token_of
from tests.security.redis_replicas import Replicas, redis_replicas
from tests.tasks_client import (
    TasksExtension,
    cancel_task,
    get_task,
    legacy_task_call,
    until_status,
    update_task,
)

pytestmark = [pytest.mark.replicas, pytest.mark.anyio]

CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "payroll", "arguments": {}}}


@pytest.fixture(scope="module")
def replicas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicas]:
    with redis_replicas(tmp_path_factory.mktemp("redis-replicas")) as running:
        yield running


def headers_of(client: str, **more: str) -> dict[str, str]:
    return {
        "Authorization": f"Bearer {token_of(client)}",
        "Accept": "application/json, text/event-stream",
        **more,
    }


def message(response: httpx2.Response) -> dict[str, Any]:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return dict(json.loads(next(d for d in data if d)))
    return dict(response.json())


def test_a_session_id_is_nothing_with_another_token_on_either_replica(replicas: Replicas) -> None:
    home, elsewhere = replicas.first, replicas.second
    with httpx2.Client(verify=tls_context(), timeout=30) as http:
        ids = []
        for _ in range(2):
            opened = http.post(home.url, json=INITIALIZE, headers=headers_of("client00"))
            assert opened.status_code == 200, opened.text
            ids.append(opened.headers["mcp-session-id"])
        assert ids[0] != ids[1] and all(len(i) >= 32 for i in ids)  # random, not counted
        session = {"Mcp-Session-Id": ids[1], "MCP-Protocol-Version": "2025-11-25"}
        notified = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        http.post(home.url, json=notified, headers=headers_of("client00", **session))

        for url in (elsewhere.url, home.url):
            for verb in ("POST", "GET", "DELETE"):
                stolen = http.request(
                    verb,
                    url,
                    json=CALL if verb == "POST" else None,
                    headers=headers_of("client01", **session),
                )
                assert stolen.status_code == 404, (url, verb, stolen.text)
                assert "send initialize again" in stolen.json()["error"]["message"]

        # A's session survived the DELETEs, and both replicas serve it to A.
        listing = {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}
        for url in (elsewhere.url, home.url):
            mine = http.post(url, json=listing, headers=headers_of("client00", **session))
            assert mine.status_code == 200, mine.text
            assert "payroll" in [tool["name"] for tool in message(mine)["result"]["tools"]]


async def refusal(call: Any) -> tuple[int, str]:
    with pytest.raises(MCPError) as caught:
        await call
    return caught.value.code, caught.value.error.message


async def test_a_task_id_is_nothing_with_another_token_on_either_replica(replicas: Replicas) -> None:
    home, elsewhere = replicas.first, replicas.second
    async with connect(home.url, "client02", "2026-07-28", extensions=[TasksExtension()]) as mine:
        task_id = (await mine.session.call_tool("payroll", {}, allow_claimed=True)).task_id
    assert re.fullmatch(r"[A-Za-z0-9_-]{32,}", task_id)  # 192 random bits
    never = "x" * len(task_id)
    answer = {"never": {"action": "accept", "content": {}}}
    for url in (elsewhere.url, home.url):
        async with connect(url, "client03", "2026-07-28", extensions=[TasksExtension()]) as other:
            unknown = await refusal(get_task(other.session, never))
            assert unknown[0] == types.INVALID_PARAMS
            for attempt in (
                get_task(other.session, task_id),
                cancel_task(other.session, task_id),
                update_task(other.session, task_id, answer),
            ):
                code, text = await refusal(attempt)
                assert (code, text.replace(task_id, never)) == unknown

    # 2025-11-25: list, get, result, cancel through the replica that does not run it.
    legacy = await anyio.to_thread.run_sync(
        lambda: legacy_task_call(home.url, token_of("client04"), "payroll", {})
    )
    old_id = legacy["result"]["task"]["taskId"]
    async with connect(elsewhere.url, "client05", "legacy") as other:
        listed = await other.session.send_request(types.ListTasksRequest(), types.ListTasksResult)
        assert old_id not in [task.task_id for task in listed.tasks]
        unknown_old = await refusal(
            other.session.send_request(
                types.GetTaskRequest(params=types.GetTaskRequestParams(task_id="x" * len(old_id))),
                types.GetTaskResult,
            )
        )
        for attempt in (
            other.session.send_request(
                types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=old_id)), types.GetTaskResult
            ),
            other.session.send_request(
                types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=old_id)),
                types.CallToolResult,
            ),
            other.session.send_request(
                types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=old_id)),
                types.CancelTaskResult,
            ),
        ):
            code, text = await refusal(attempt)
            assert (code, text.replace(old_id, "x" * len(old_id))) == unknown_old

    # Both tasks are untouched: still running for their owners, and they finish for them.
    async with connect(elsewhere.url, "client02", "2026-07-28", extensions=[TasksExtension()]) as mine:
        assert (await get_task(mine.session, task_id)).status == "working"
        replicas.release.touch()
        done = await until_status(mine.session, task_id, timeout=60)
    assert done.status == "completed" and done.result is not None
    assert done.result["content"][0]["text"] == "salary: 123,456"
    async with connect(elsewhere.url, "client04", "legacy") as owner:
        with anyio.fail_after(60):
            result = await owner.session.send_request(
                types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=old_id)),
                types.CallToolResult,
            )
    assert result.content[0].text == "salary: 123,456"  # type: ignore[union-attr]
