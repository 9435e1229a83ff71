"""The 2026-07-28 tasks extension (``io.modelcontextprotocol/tasks``) as the SDK's client needs it.

The SDK's `Client` has no tasks, but takes an extension that claims a result type: `TasksClaim`
declares the extension on every request of a connection made with it, and a ``tools/call`` sent with
``allow_claimed=True`` returns the server's ``resultType: "task"`` answer as a `CreatedTask`. The
``tasks/*`` requests carry ``Mcp-Name`` (the task id), as the extension requires.

Importing this module loads the SDK (over a second): import it where the SDK is loaded already.
"""

from __future__ import annotations

from typing import Any, Literal

import mcp_types as types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from pydantic import ConfigDict, Field

EXTENSION = "io.modelcontextprotocol/tasks"
TERMINAL = ("completed", "failed", "cancelled")


class TaskIdParams(types.RequestParams):
    task_id: str


class GetTask(types.Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class CancelTask(types.Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


class CreatedTask(types.Result):
    """``tools/call`` answered with a task (flat)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None


class DetailedTask(types.Result):
    """``tasks/get``: the task, and its result or error once it ended."""

    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None
    input_requests: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class Ack(types.Result):
    model_config = ConfigDict(extra="allow")


async def get_task(session: Any, task_id: str) -> DetailedTask:
    return await session.send_request(GetTask(params=TaskIdParams(task_id=task_id)), DetailedTask)  # type: ignore[no-any-return]


async def cancel_task(session: Any, task_id: str) -> Ack:
    return await session.send_request(CancelTask(params=TaskIdParams(task_id=task_id)), Ack)  # type: ignore[no-any-return]


async def _settle(created: CreatedTask, ctx: ClaimContext) -> types.CallToolResult:
    """A task answer to a plain ``call_tool`` on such a connection: poll it to its end."""
    import anyio

    while True:
        task = await get_task(ctx.session, created.task_id)
        if task.status == "completed":
            return types.CallToolResult.model_validate(task.result or {"content": []})
        if task.status in TERMINAL:
            message = (task.error or {}).get("message") or task.status_message or task.status
            return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)
        await anyio.sleep((task.poll_interval_ms or 500) / 1000)


class TasksClaim(ClientExtension):
    """The tasks extension, declared on every request of the connection it is given to."""

    identifier = EXTENSION

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=_settle)]
