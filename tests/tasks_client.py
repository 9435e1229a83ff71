"""Clients of tasks for the tests, in both eras, on the SDK's own transport.

2026-07-28: the SDK's `Client` has no tasks, but it takes an extension that claims a result type:
`TasksExtension` declares ``io.modelcontextprotocol/tasks`` on every request and resolves a
``resultType: "task"`` answer by polling ``tasks/get`` (as a client that supports tasks does), so
``await client.call_tool(...)`` returns the task's result. ``tasks/get``, ``tasks/update`` and
``tasks/cancel`` go through ``client.session.send_request`` (with ``Mcp-Name``, `GetTask` & co.).

2025-11-25: the SDK's client refuses a ``{"task": ...}`` answer to ``tools/call`` (it checks it
against ``CallToolResult``), so `legacy_task_call` sends that one request by hand over httpx, in the
session of a handshake it makes itself; ``tasks/get``, ``tasks/result``, ``tasks/list`` and
``tasks/cancel`` have SDK types of that era.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import anyio
import httpx
import mcp_types as types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from pydantic import ConfigDict, Field

EXTENSION = "io.modelcontextprotocol/tasks"
TERMINAL = ("completed", "failed", "cancelled")


class TaskIdParams(types.RequestParams):
    task_id: str


class UpdateParams(TaskIdParams):
    input_responses: dict[str, Any]


class GetTask(types.Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class CancelTask(types.Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


class UpdateTask(types.Request[UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param = "taskId"


class CreatedTask(types.Result):
    """A 2026-07-28 ``CreateTaskResult`` (flat)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class DetailedTask(types.Result):
    """A 2026-07-28 ``tasks/get`` answer: the task, and what its status carries."""

    model_config = ConfigDict(extra="allow")
    result_type: str = Field(alias="resultType")
    task_id: str
    status: str
    status_message: str | None = None
    ttl_ms: int | None
    input_requests: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class Ack(types.Result):
    model_config = ConfigDict(extra="allow")
    result_type: str = Field(alias="resultType")


async def get_task(session: Any, task_id: str) -> DetailedTask:
    return await session.send_request(GetTask(params=TaskIdParams(task_id=task_id)), DetailedTask)


async def cancel_task(session: Any, task_id: str) -> Ack:
    return await session.send_request(CancelTask(params=TaskIdParams(task_id=task_id)), Ack)


async def update_task(session: Any, task_id: str, responses: dict[str, Any]) -> Ack:
    params = UpdateParams(task_id=task_id, input_responses=responses)
    return await session.send_request(UpdateTask(params=params), Ack)


async def until_status(session: Any, task_id: str, *wanted: str, timeout: float = 20) -> DetailedTask:
    """Poll ``tasks/get`` until the task has one of `wanted` (any terminal status when none is named)."""
    statuses = wanted or TERMINAL
    with anyio.fail_after(timeout):
        while True:
            task = await get_task(session, task_id)
            if task.status in statuses:
                return task
            await anyio.sleep(0.05)  # the poll interval of this client, not a synchronisation


async def _poll(created: CreatedTask, ctx: ClaimContext) -> types.CallToolResult:
    task = await until_status(ctx.session, created.task_id, timeout=60)
    if task.status == "completed":
        return types.CallToolResult.model_validate(task.result)
    raise RuntimeError(f"task {task.status}: {task.error or task.status_message}")


class TasksExtension(ClientExtension):
    """The 2026-07-28 tasks extension, client side: declared on every request, tasks polled to the end."""

    identifier = EXTENSION

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=_poll)]


# -- 2025-11-25 ------------------------------------------------------------------------------------------
def _parse(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC response of one POST: a JSON body, or the last message of its event stream."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return dict(response.json())
    found: dict[str, Any] = {}
    for line in response.text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            message = json.loads(line[5:])
            if "id" in message and ("result" in message or "error" in message):
                found = message
    return found


def legacy_task_call(
    url: str,
    token: str,
    name: str,
    arguments: dict[str, Any],
    task: dict[str, Any] | None = None,
    capabilities: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A task-augmented 2025-11-25 ``tools/call`` (``params.task``), by hand: its JSON-RPC response."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    with httpx.Client(headers=headers, timeout=30) as http:
        init = http.post(
            url,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": capabilities or {},
                    "clientInfo": {"name": "by-hand", "version": "1"},
                },
            },
        )
        session = {"mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
        params = {"name": name, "arguments": arguments, "task": task if task is not None else {}}
        response = http.post(
            url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}, headers=session
        )
        http.delete(url, headers=session)
        return _parse(response)
