"""Tasks across the stdio bridge, in each era as the server serves them in that era.

The bridge keeps no task of its own: the server runs each task, bound to the identity of the
bridge's token, and every ``tasks/*`` request of the stdio client goes upstream as it came (its
``_meta`` as `RequestRelay.upstream_meta` makes it), on the connection of that client's era, and its
answer (or error) comes back as the server gave it. So the stdio client gets what an HTTP client
gets, errors included (an unknown task id, a tool that must or must not run as a task, a 2026-07-28
request that did not declare the extension, a method the era does not have).

- 2026-07-28 (the ``io.modelcontextprotocol/tasks`` extension): offered in ``server/discover`` when the
  server offers it to the bridge's first connection, which is in that era. The stdio client declares
  it on its requests, so the connection of its requests declares it too (`declared_upstream`); a task
  answer to ``tools/call`` passes through (`_bridge_requests`); ``tasks/get``, ``tasks/update`` and
  ``tasks/cancel`` go upstream with ``Mcp-Name`` naming the task, as the extension requires over HTTP.
- 2025-11-25: offered in the ``initialize`` answer (``capabilities.tasks``) when that stdio client's
  requests go upstream in 2025-11-25 and the server offers tasks there (`Upstreams.legacy_offer`). A task-augmented
  ``tools/call`` is answered with the server's task; ``tasks/result`` carries the task's questions to
  the stdio client as the bridge carries those of a plain call (the upstream client asks them on the
  request that is forwarding them); ``notifications/tasks/status`` from any connection goes to the
  stdio connection.

A client of an era the bridge cannot relay tasks in (the server's other era is missing, or the bridge
speaks one era upstream) is not offered them, and its ``tasks/*`` requests get ``-32601`` as on a
server without tasks; its calls are plain calls.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp import Client
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from ..client._sdk_compat import TASKS_EXTENSION, send_relayed
from ..server._sdk_compat import notify_task_status
from ..server._tasks import TaskIdParams, TaskUpdateParams
from ._bridge_requests import RequestRelay
from ._bridge_upstream import Upstreams, is_modern

# The tasks methods of both eras, with the params the server checks them against (the same model, so
# a malformed request gets the same -32602); the server says which era has which (-32601).
METHODS: tuple[tuple[str, type[Any]], ...] = (
    ("tasks/get", TaskIdParams),
    ("tasks/cancel", TaskIdParams),
    ("tasks/update", TaskUpdateParams),
    ("tasks/result", TaskIdParams),
    ("tasks/list", types.PaginatedRequestParams),
)


class TaskRelay:
    """Offers the server's tasks to the stdio client in each era the bridge can relay them, and relays them."""

    def __init__(self, upstreams: Upstreams, requests: RequestRelay) -> None:
        self.upstreams = upstreams
        self.requests = requests
        self.extension: dict[str, Any] | None = None  # 2026-07-28: the server's settings, if relayed
        self.legacy = False  # 2025-11-25: relayed to the stdio client that initialized
        upstreams.on_task_status = self._task_status

    def attach(self, first: Client) -> None:
        """Learn from the first connection whether the server offers the 2026-07-28 extension."""
        capabilities = first.server_capabilities
        extensions = capabilities.extensions if capabilities is not None else None
        if is_modern(first.protocol_version) and extensions and TASKS_EXTENSION in extensions:
            self.extension = dict(extensions[TASKS_EXTENSION])

    @property
    def offered(self) -> bool:
        """Whether either era's tasks are relayed (otherwise the stdio server has no ``tasks/*`` methods)."""
        legacy = self.upstreams.legacy_offer
        return self.extension is not None or (legacy is not None and legacy.tasks is not None)

    def relays(self, ctx: ServerRequestContext[Any]) -> bool:
        """Whether the bridge relays tasks to the stdio client of `ctx`, in its era."""
        return self.extension is not None if is_modern(ctx.protocol_version) else self.legacy

    # -- what the stdio server offers -----------------------------------------------------------------
    @property
    def extensions(self) -> dict[str, dict[str, Any]]:
        """``server/discover``'s extensions: the tasks extension, if relayed."""
        return {TASKS_EXTENSION: self.extension} if self.extension is not None else {}

    async def offer(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        """Middleware: a 2025-11-25 ``initialize`` answer offers the server's tasks, if they can be relayed.

        They can when this client's requests go upstream in 2025-11-25 and the server offers tasks
        there (`Upstreams.legacy_offer`, learnt when the bridge started).
        """
        result = await call_next(ctx)
        if ctx.method != "initialize" or not isinstance(result, dict):
            return result
        offered = self.upstreams.legacy_offer
        self.legacy = offered is not None and offered.tasks is not None
        if offered is None or offered.tasks is None:
            return result
        tasks = offered.tasks.model_dump(by_alias=True, mode="json", exclude_none=True)
        return {**result, "capabilities": {**(result.get("capabilities") or {}), "tasks": tasks}}

    # -- the tasks/* methods --------------------------------------------------------------------------
    async def relay(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        """Any ``tasks/*`` request: upstream as it came, on the connection of the stdio client's era.

        A 2025-11-25 ``tasks/result`` waits there for the task to end, and the task's questions come
        back on it: the upstream client asks them on this request's behalf (`forwarding`).
        """
        if not self.relays(ctx):
            raise MCPError(types.METHOD_NOT_FOUND, "Method not found", data=ctx.method)
        sent = {key: value for key, value in (ctx.params or {}).items() if key != "_meta"}

        async def send(upstream: Client) -> dict[str, Any]:
            wire = dict(sent)
            meta = self.requests.upstream_meta(ctx, upstream)
            if meta:
                wire["_meta"] = meta
            # 2026-07-28 requires Mcp-Name to name the task over HTTP (2025-11-25 has no such header).
            named = is_modern(upstream.protocol_version)
            return await send_relayed(upstream.session, ctx.method, wire, named=named)

        return await self.requests.forward(ctx, send)

    async def _task_status(self, params: types.TaskStatusNotificationParams) -> None:
        """A 2025-11-25 ``notifications/tasks/status``: to the stdio client, if it was offered tasks."""
        session = self.upstreams.stdio_session  # the 2025-11-25 stdio connection, once it initialized
        if session is None or not self.legacy:
            return
        with contextlib.suppress(Exception):  # the stdio client went away
            await notify_task_status(
                session, params.model_dump(by_alias=True, mode="json", exclude_none=True)
            )
