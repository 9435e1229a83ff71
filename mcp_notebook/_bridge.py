"""``mcp-notebook bridge URL``: a stdio MCP server that forwards to a Streamable HTTP server.

Claude Desktop (and other stdio-only clients) launch servers as commands; a notebook serves over
HTTP. The bridge is both: the SDK's low-level `Server` on stdin/stdout downstream, the SDK's
`Client` upstream. Tools, resources (and templates, reads, subscriptions), prompts and completion
are forwarded as they are, pages and errors included (an upstream `MCPError` reaches the stdio
client with its code; only "resource not found", whose code changed between the eras, is given
in the stdio client's era). Either era may face either side; change notifications are carried
across by `ChangeRelay` (``_bridge_relay``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable
from typing import Any

import anyio
import anyio.abc
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ._bridge_relay import ChangeRelay
from ._text import add_messages, t
from ._version import __version__

logger = logging.getLogger(__name__)

add_messages(
    {
        "bridge.upstream_failed": {
            "en": "The notebook server at {url} did not answer: {error}. Is the kernel still serving?",
            "ko": "{url}의 노트북 서버가 답하지 않았습니다: {error}. 커널이 아직 서빙 중인지 확인하세요.",
        },
    }
)

# resources/read of an unknown URI: spec 2025-11-25 server/resources "Error Handling".
_NOT_FOUND_2025 = -32002


@contextlib.asynccontextmanager
async def open_upstream(
    url: str, token: str | None, on_message: Any = None, *, mode: str = "auto"
) -> AsyncIterator[Client]:
    """An SDK client for `url` with the token as a bearer header and no response cache (never stale)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    # No read timeout: a listen stream stays open and quiet for as long as the notebook does not change.
    timeout = httpx2.Timeout(30, read=None)
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
        Client(
            streamable_http_client(url, http_client=http),
            mode=mode,
            cache=None,
            message_handler=on_message,
            # The notebook's activity log and approval prompts name the caller: say it is the bridge.
            client_info=types.Implementation(name="mcp-notebook-bridge", version=__version__),
        ) as client,
    ):
        yield client


class Bridge:
    """Forwards one stdio connection to one upstream client."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.relay = ChangeRelay(url)
        self._client: Client | None = None

    @property
    def client(self) -> Client:
        assert self._client is not None, "build_server() first"
        return self._client

    def build_server(self, client: Client, group: anyio.abc.TaskGroup) -> Server[Any]:
        """The stdio-facing server, offering what the upstream offers."""
        self._client = client
        self.relay.attach(client, group)
        caps = client.server_capabilities
        info = client.server_info
        handlers: dict[str, Any] = {}
        if caps.tools is not None:
            handlers |= {"on_list_tools": self._list_tools, "on_call_tool": self._call_tool}
        if caps.resources is not None:
            handlers |= {
                "on_list_resources": self._list_resources,
                "on_list_resource_templates": self._list_templates,
                "on_read_resource": self._read_resource,
            }
            if caps.resources.subscribe:
                handlers |= {
                    "on_subscribe_resource": self.relay.subscribe,
                    "on_unsubscribe_resource": self.relay.unsubscribe,
                }
        if caps.prompts is not None:
            handlers |= {"on_list_prompts": self._list_prompts, "on_get_prompt": self._get_prompt}
        if caps.completions is not None:
            handlers["on_completion"] = self._complete
        server: Server[Any] = Server(
            info.name if info is not None else "mcp-notebook-bridge",
            version=info.version if info is not None else "",
            title=info.title if info is not None else None,
            instructions=client.instructions,
            on_subscriptions_listen=self.relay.listen,
            **handlers,
        )
        server.middleware.append(self.relay.track_sessions)
        return server

    # -- requests, forwarded -----------------------------------------------------------------------
    async def _forward(self, request: Awaitable[Any]) -> Any:
        try:
            return await request
        except MCPError:
            raise  # the upstream's answer, code and all
        except Exception as exc:
            raise MCPError(
                types.INTERNAL_ERROR, t("bridge.upstream_failed", url=self.url, error=exc)
            ) from exc

    @staticmethod
    def _cursor(params: types.PaginatedRequestParams | None) -> str | None:
        return params.cursor if params is not None else None

    async def _list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
        return await self._forward(self.client.list_tools(cursor=self._cursor(params)))

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        return await self._forward(self.client.call_tool(params.name, params.arguments))

    async def _list_resources(self, ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
        return await self._forward(self.client.list_resources(cursor=self._cursor(params)))

    async def _list_templates(self, ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
        return await self._forward(self.client.list_resource_templates(cursor=self._cursor(params)))

    async def _read_resource(self, ctx: Any, params: types.ReadResourceRequestParams) -> Any:
        try:
            return await self._forward(self.client.read_resource(str(params.uri)))
        except MCPError as exc:
            # "Resource not found" changed code between eras (-32002 → -32602): speak the client's.
            downstream_modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
            if downstream_modern != self.relay.modern and exc.code in (_NOT_FOUND_2025, types.INVALID_PARAMS):
                code = types.INVALID_PARAMS if downstream_modern else _NOT_FOUND_2025
                raise MCPError(code, exc.error.message, exc.error.data) from None
            raise

    async def _list_prompts(self, ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
        return await self._forward(self.client.list_prompts(cursor=self._cursor(params)))

    async def _get_prompt(self, ctx: Any, params: types.GetPromptRequestParams) -> Any:
        return await self._forward(self.client.get_prompt(params.name, params.arguments))

    async def _complete(self, ctx: Any, params: types.CompleteRequestParams) -> Any:
        argument = {"name": params.argument.name, "value": params.argument.value}
        context = params.context.arguments if params.context is not None else None
        return await self._forward(self.client.complete(params.ref, argument, context_arguments=context))


async def serve_bridge(url: str, token: str | None) -> None:
    """Serve `url` on this process's stdin/stdout until the stdio client disconnects."""
    bridge = Bridge(url)
    async with (
        open_upstream(url, token, bridge.relay.on_upstream_message) as client,
        anyio.create_task_group() as group,
    ):
        server = bridge.build_server(client, group)
        if bridge.relay.modern:
            await group.start(bridge.relay.watch_lists)
        options = server.create_initialization_options(
            NotificationOptions(tools_changed=True, resources_changed=True, prompts_changed=True)
        )
        async with stdio_server() as (read, write):
            await server.run(read, write, options)
        group.cancel_scope.cancel()


async def run_bridge(url: str, token: str | None) -> int:
    """The ``bridge`` command: serve until stdin closes or SIGINT/SIGTERM; a clear message if unreachable."""
    import signal

    from ._configs import acheck_connection

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
