"""The 2026-07-28 tasks extension (``io.modelcontextprotocol/tasks``, SEP-2663) on the wire.

A thin adapter over `_tasks.TaskManager`: it renders task records and checks what this era asks of
each request; running, cancelling and storing tasks happen there, once for both eras.

- A client declares the extension in each request's ``_meta`` clientCapabilities; a request that
  does not gets ``-32021`` (``data.requiredCapabilities``) from every ``tasks/*`` method, before
  the task id is even looked at, and never gets a task from ``tools/call``.
- ``tools/call`` answers ``{"resultType": "task", ...}`` (flat), only once the record is stored.
- ``tasks/get`` inlines the result (or the JSON-RPC error); ``tasks/update`` answers questions;
  ``tasks/cancel`` acks, also for a task that already ended. Both acks are ``{"resultType":
  "complete"}`` and nothing else.
- The ``Mcp-Name`` header must name the task (``-32020``): the SDK checks it for three methods only.
- An unknown, expired or another identity's task id: one and the same ``-32602``.
- ``tasks/result`` and ``tasks/list`` are gone in this era: ``-32601``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import decode_header_value

from ..core._identity import identity_of
from ..core._tasks import (
    COMPLETED,
    EXTENSION,
    FAILED,
    INPUT_REQUIRED,
    PROGRESS_META,
    TaskRecord,
    iso,
)
from ..core._text import t
from ._tasks import TaskManager

MISSING_CAPABILITY = -32021
HEADER_MISMATCH = -32020
REQUIRED: dict[str, Any] = {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}


def declared(ctx: ServerRequestContext[Any]) -> bool:
    """Whether this request's ``_meta`` declares the tasks extension (nothing carries over)."""
    capabilities = ctx.session.client_capabilities
    extensions = capabilities.extensions if capabilities is not None else None
    return bool(extensions) and EXTENSION in extensions  # type: ignore[operator]


def require_extension(ctx: ServerRequestContext[Any], what: str) -> None:
    """``-32021`` with the capability it needs, unless the request declared the extension."""
    if not declared(ctx):
        raise MCPError(
            MISSING_CAPABILITY, t("task.missing_extension", what=what, extension=EXTENSION), data=REQUIRED
        )


def fields(record: TaskRecord, now: float) -> dict[str, Any]:
    """The `Task` fields every answer about a task carries."""
    task: dict[str, Any] = {
        "taskId": record.task_id,
        "status": record.status,
        "createdAt": iso(record.created, now),
        "lastUpdatedAt": iso(record.updated, now),
        "ttlMs": record.ttl_ms(now),
        "pollIntervalMs": record.poll_ms(now),
    }
    if record.message:
        task["statusMessage"] = record.message
    return task


def created(record: TaskRecord, now: float) -> dict[str, Any]:
    """``tools/call``'s answer once the task is stored: a `CreateTaskResult` (flat, nothing inlined)."""
    return {"resultType": "task", **fields(record, now)}


def detailed(record: TaskRecord, now: float) -> dict[str, Any]:
    """``tasks/get``'s answer: the task, and what its status carries (questions, result, error)."""
    answer: dict[str, Any] = {"resultType": "complete", **fields(record, now)}
    if record.status == INPUT_REQUIRED:
        answer["inputRequests"] = dict(record.pending)
    elif record.status == COMPLETED:
        answer["result"] = dict(record.result or {"content": []})
    elif record.status == FAILED:
        answer["error"] = dict(
            record.error or {"code": types.INTERNAL_ERROR, "message": record.message or ""}
        )
    if record.progress is not None and not record.terminal:
        answer["_meta"] = {PROGRESS_META: dict(record.progress)}
    return answer


class ModernTaskMethods:
    """``tasks/get``, ``tasks/update`` and ``tasks/cancel`` of the 2026-07-28 extension."""

    def __init__(self, manager: TaskManager) -> None:
        self.manager = manager

    def _task_id(self, ctx: ServerRequestContext[Any], method: str, params: Any) -> str:
        require_extension(ctx, method)
        task_id = params.task_id
        request = ctx.request
        if request is not None:
            # SEP-2243: the routing header must name the task the body names (the SDK checks it for
            # tools/call, prompts/get and resources/read only). Surrounding whitespace is not part of it.
            header = decode_header_value(request.headers.get("mcp-name"))
            if header is None or header.strip() != task_id:
                shown = "(none)" if header is None else repr(header[:100])
                raise MCPError(
                    HEADER_MISMATCH, t("task.name_header", method=method, header=shown, task_id=task_id)
                )
        return str(task_id)

    async def get(self, ctx: ServerRequestContext[Any], params: Any) -> dict[str, Any]:
        task_id = self._task_id(ctx, "tasks/get", params)
        record = await self.manager.read(identity_of(ctx).name, task_id)
        if record is None:
            raise unknown_task(task_id, self.manager.ttl)
        return detailed(record, self.manager.book.now())

    async def update(self, ctx: ServerRequestContext[Any], params: Any) -> dict[str, Any]:
        task_id = self._task_id(ctx, "tasks/update", params)
        responses: Mapping[str, Any] = params.input_responses or {}
        if not await self.manager.answer(identity_of(ctx).name, task_id, responses):
            raise unknown_task(task_id, self.manager.ttl)
        return {"resultType": "complete"}

    async def cancel(self, ctx: ServerRequestContext[Any], params: Any) -> dict[str, Any]:
        task_id = self._task_id(ctx, "tasks/cancel", params)
        identity = identity_of(ctx).name
        record, _ = await self.manager.cancel(identity, task_id, by=identity)
        if record is None:
            raise unknown_task(task_id, self.manager.ttl)
        return {"resultType": "complete"}  # also for a task that had ended: cancelling is idempotent


def unknown_task(task_id: Any, ttl: float) -> MCPError:
    """One answer for a task id that is unknown, expired or another identity's: nothing tells them apart."""
    shown = repr(str(task_id)[:64])
    return MCPError(types.INVALID_PARAMS, t("task.unknown", task_id=shown, ttl=int(ttl)))


def removed(method: str) -> MCPError:
    """``-32601`` for a tasks method the 2026-07-28 extension removed."""
    return MCPError(types.METHOD_NOT_FOUND, t("task.removed", method=method))
