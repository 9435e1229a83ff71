"""``mcp-notebook bridge URL``: a stdio MCP server that forwards to a Streamable HTTP server.

Claude Desktop (and other stdio-only clients) launch servers as commands; a notebook serves over
HTTP. The bridge is both: the SDK's low-level `Server` on stdin/stdout downstream, SDK `Client`s
upstream. ``mcp-notebook serve NB --stdio`` is this bridge in front of the headless kernel's
server, so both stdio paths carry the same things, in both eras on either side:

- every request, and what comes back while it runs: progress (when the stdio client asked for it),
  log lines (at the level it set) and the server's questions (`_bridge_requests`, `_bridge_held`);
- change notifications and subscriptions (`_bridge_relay`);
- tasks, in each era the bridge can relay them in (`_bridge_tasks`);
- cancellation: a cancelled stdio request abandons its upstream request, which cancels it there;
- bad input: what the HTTP server answers a malformed message, the stdio side answers too.

The upstream connections (one per set of capabilities the stdio client declares, in its era where
the server speaks it) are `_bridge_upstream`'s.
"""

from __future__ import annotations

import contextlib
import logging
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from mcp import Client
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from ..client._configs import acheck_connection
from ..core._apps import EXTENSION as APPS_EXTENSION
from ..core._text import t
from ..server._protocol import never_cached
from ..server._sdk_compat import TaskAnswers
from ..server.http._envelope import envelope_problem, not_a_message
from ._bridge_held import HOLD_FOR, HeldCalls
from ._bridge_relay import ChangeRelay
from ._bridge_requests import RequestRelay
from ._bridge_tasks import METHODS as TASK_METHODS
from ._bridge_tasks import TaskRelay
from ._bridge_upstream import Upstreams, open_upstream

__all__ = ["Bridge", "open_upstream", "run_bridge", "serve_bridge"]

logger = logging.getLogger(__name__)


class Bridge:
    """Forwards one stdio connection to the server at `url`.

    `hold_for`: seconds a question of a 2025-11-25 server waits for a 2026-07-28 stdio client's
    answer before the bridge gives its call up (`_bridge_held`).
    """

    def __init__(self, url: str, token: str | None = None, *, hold_for: float = HOLD_FOR) -> None:
        self.url = url
        self.relay = ChangeRelay(url)
        self.upstreams = Upstreams(url, token, self.relay.on_upstream_message)
        self.held = HeldCalls(hold_for)
        self.requests = RequestRelay(url, self.upstreams, self.held)
        self.tasks = TaskRelay(self.upstreams, self.requests)

    @property
    def client(self) -> Client:
        return self.upstreams.first

    def build_server(self, group: anyio.abc.TaskGroup) -> Server[Any]:
        """The stdio-facing server, offering what the upstream offers (once `upstreams` is open)."""
        client = self.client
        self.upstreams.attach(group)
        self.held.attach(group)
        self.relay.attach(client, group)
        caps = client.server_capabilities
        info = client.server_info
        relay = self.requests
        handlers: dict[str, Any] = {}
        if caps.tools is not None:
            handlers |= {"on_list_tools": relay.list_tools, "on_call_tool": relay.call_tool}
        if caps.resources is not None:
            handlers |= {
                "on_list_resources": relay.list_resources,
                "on_list_resource_templates": relay.list_templates,
                "on_read_resource": relay.read_resource,
            }
            if caps.resources.subscribe:
                handlers |= {
                    "on_subscribe_resource": self.relay.subscribe,
                    "on_unsubscribe_resource": self.relay.unsubscribe,
                }
        if caps.prompts is not None:
            handlers |= {"on_list_prompts": relay.list_prompts, "on_get_prompt": relay.get_prompt}
        if caps.completions is not None:
            handlers["on_completion"] = relay.complete
        server: Server[Any] = Server(
            info.name if info is not None else "mcp-notebook-bridge",
            version=info.version if info is not None else "",
            title=info.title if info is not None else None,
            instructions=client.instructions,
            cache_hints=never_cached(),
            on_subscriptions_listen=self.relay.listen,
            **handlers,
        )
        if caps.logging is not None:
            # Registered directly: the constructor's on_set_logging_level warns that 2026-07-28 dropped it.
            server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, relay.set_level)
        server.middleware += [self._check_envelope, self._track_session]
        self.tasks.attach(client)
        if caps.tools is not None and self.tasks.offered:
            server.extensions = self.tasks.extensions  # server/discover: 2026-07-28, if relayed
            for method, params_type in TASK_METHODS:
                server.add_request_handler(method, params_type, self.tasks.relay)
            # 2025-11-25: capabilities.tasks in the initialize answer, and tools/call answered with a task.
            server.middleware += [self.tasks.offer, TaskAnswers()]
        # MCP Apps adds no method: its views are resources and its links the tools' _meta, both
        # relayed as they are; server/discover says so where the server did.
        apps = (caps.extensions or {}).get(APPS_EXTENSION)
        if apps is not None:
            server.extensions = {**server.extensions, APPS_EXTENSION: dict(apps)}
        return server

    # -- middleware ----------------------------------------------------------------------------------
    async def _track_session(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        """Remember the stdio connection of a 2025-11-25 client once its ``initialize`` is answered.

        Any request's session reaches the connection (the SDK makes one per request), and a stdio
        bridge serves exactly one. Not at ``notifications/initialized``: a change made right after the
        handshake would race it.
        """
        result = await call_next(ctx)
        if ctx.method == "initialize":
            self.relay.stdio_session = self.upstreams.stdio_session = ctx.session
        return result

    async def _check_envelope(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        """A malformed ``tools/call`` gets the answer the HTTP server gives it, not a pydantic dump."""
        if ctx.request_id is not None:
            problem = envelope_problem(
                {"jsonrpc": "2.0", "id": ctx.request_id, "method": ctx.method, "params": ctx.params}
            )
            if problem is not None:
                raise MCPError(problem[0], problem[1])
        return await call_next(ctx)


@contextlib.asynccontextmanager
async def screened(read: Any, write: Any) -> AsyncIterator[Any]:
    """The stdio client's messages, with each line that is not one answered as the HTTP server would.

    The SDK drops such a line (a batch, a bare value, broken JSON, an object that is no JSON-RPC
    message) without a word, and a client waiting for its answer would wait forever.
    """
    send, receive = anyio.create_memory_object_stream[Any](0)

    async def screen() -> None:
        async with send:
            async for item in read:
                if not isinstance(item, ValidationError):
                    await send.send(item)
                    continue
                code, message, request_id = _answer_to(item)
                error = types.JSONRPCError(
                    jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
                )
                await write.send(SessionMessage(error))

    async with anyio.create_task_group() as group, receive:
        group.start_soon(screen)
        yield receive
        group.cancel_scope.cancel()


def _answer_to(error: ValidationError) -> tuple[int, str, Any]:
    """The JSON-RPC error for a stdio line the SDK could not read as a message (``id`` when it has one)."""
    first = error.errors()[0]
    if first["type"] == "json_invalid":
        return types.PARSE_ERROR, f"Parse error: {first.get('msg', '')}", None
    value = first.get("input")
    problem = envelope_problem(value)
    if problem is not None:
        return problem
    request_id = value.get("id") if isinstance(value, dict) else None
    valid_id = isinstance(request_id, str | int) and not isinstance(request_id, bool)
    return types.INVALID_REQUEST, not_a_message(value), request_id if valid_id else None


async def serve_bridge(url: str, token: str | None) -> None:
    """Serve `url` on this process's stdin/stdout until the stdio client disconnects."""
    bridge = Bridge(url, token)
    async with bridge.upstreams.open(), anyio.create_task_group() as group:
        server = bridge.build_server(group)
        if bridge.relay.modern:
            await group.start(bridge.relay.watch_lists)
        options = server.create_initialization_options(
            NotificationOptions(tools_changed=True, resources_changed=True, prompts_changed=True)
        )
        async with stdio_server() as (read, write), screened(read, write) as messages:
            await server.run(messages, write, options)
        group.cancel_scope.cancel()


async def run_bridge(url: str, token: str | None) -> int:
    """The ``bridge`` command: serve until stdin closes or SIGINT/SIGTERM; a clear message if unreachable."""
    async with anyio.create_task_group() as group:

        async def stop_on_signal() -> None:
            with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for _ in signals:
                    group.cancel_scope.cancel()

        group.start_soon(stop_on_signal)
        try:
            await serve_bridge(url, token)
        except Exception as exc:
            logger.debug("bridge failed", exc_info=True)
            result = await acheck_connection(url, token)
            logger.error(
                "%s", result.message if not result.ok else t("bridge.upstream_failed", url=url, error=exc)
            )
            return 1
        finally:
            group.cancel_scope.cancel()
    return 0
