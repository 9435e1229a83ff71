"""`mcp-notebook bridge URL`: a real stdio subprocess, driven by the SDK's stdio client, against a real server."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from mcp_notebook import Catalogue, prompt, publish, resource, tool
from tests.conftest import ERAS, Mode

pytestmark = pytest.mark.anyio


def define(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @resource("notes://today", catalogue=catalogue)
    def today() -> str:
        """What happened today."""
        return "Sold 3 umbrellas."

    @resource("data://sales/{region}", completers={"region": ["north", "south"]}, catalogue=catalogue)
    def sales(region: str) -> dict[str, Any]:
        """Sales of one region."""
        return {"region": region, "total": 10}

    @prompt(catalogue=catalogue)
    def review(code: str) -> str:
        """Ask for a code review."""
        return f"Review this code:\n{code}"


def bridge_command(url: str, token: str | None) -> list[str]:
    return [sys.executable, "-m", "mcp_notebook.cli", "bridge", url] + ([f"--token={token}"] if token else [])


@contextlib.asynccontextmanager
async def through_bridge(
    srv: Any, mode: Mode, tmp_path: Path, token: str | None = None, **kwargs: Any
) -> AsyncIterator[Client]:
    """The SDK's stdio client, on a bridge process started the way Claude Desktop starts it."""
    command, *args = bridge_command(srv.url, token or srv.token)
    params = StdioServerParameters(command=command, args=args, cwd=str(tmp_path))
    with (tmp_path / "bridge.stderr").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode=mode, **kwargs) as client:
            yield client


@pytest.mark.parametrize("mode", ERAS)
async def test_tools_are_listed_and_called_through_the_bridge(
    server: Any, catalogue: Catalogue, mode: Mode, tmp_path: Path
) -> None:
    define(catalogue)
    with anyio.fail_after(60):
        async with through_bridge(server, mode, tmp_path) as client:
            assert client.server_info is not None and client.server_info.name == "mcp-notebook"
            tools = (await client.list_tools()).tools
            result = await client.call_tool("add", {"a": 2, "b": 3})
            invalid = await client.call_tool("add", {"a": "two", "b": 3})
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("ad", {"a": 1, "b": 2})
    assert [t.name for t in tools] == ["add"] and tools[0].description == "Add two integers."
    assert result.structured_content == {"result": 5} and not result.is_error
    assert invalid.is_error  # a tool execution error stays a result
    assert unknown.value.code == types.INVALID_PARAMS and "'add'" in unknown.value.error.message
    # The notebook's activity log and approval prompts name the caller by its token (here the server
    # token: the owner), and show what the bridge says it is as a claim.
    assert server.calls[-1].client == "owner" and server.calls[-1].claimed == "mcp-notebook-bridge"


async def test_the_bridge_speaks_with_a_clients_own_token(
    server: Any, catalogue: Catalogue, tmp_path: Path
) -> None:
    define(catalogue)
    token = server.client_config("claude-desktop").split("--token=", 1)[1].split('"', 1)[0]
    assert token == server.add_client("claude-desktop")  # the configuration carries the client's own token
    with anyio.fail_after(60):
        async with through_bridge(server, "auto", tmp_path, token=token) as client:
            await client.call_tool("add", {"a": 1, "b": 2})
    assert server.calls[-1].client == "claude-desktop"


@pytest.mark.parametrize("mode", ERAS)
async def test_resources_prompts_and_completion_through_the_bridge(
    server: Any, catalogue: Catalogue, mode: Mode, tmp_path: Path
) -> None:
    define(catalogue)
    with anyio.fail_after(60):
        async with through_bridge(server, mode, tmp_path) as client:
            resources = (await client.list_resources()).resources
            templates = (await client.list_resource_templates()).resource_templates
            today = await client.read_resource("notes://today")
            north = await client.read_resource("data://sales/north")
            prompts = (await client.list_prompts()).prompts
            review = await client.get_prompt("review", {"code": "x = 1"})
            ref = types.ResourceTemplateReference(type="ref/resource", uri="data://sales/{region}")
            completion = await client.complete(ref, {"name": "region", "value": "n"})
            with pytest.raises(MCPError) as missing:
                await client.read_resource("notes://nowhere")
    assert [str(r.uri) for r in resources] == ["notes://today"]
    assert [t.uri_template for t in templates] == ["data://sales/{region}"]
    assert today.contents[0].text == "Sold 3 umbrellas."  # type: ignore[union-attr]
    assert '"total": 10' in north.contents[0].text  # type: ignore[union-attr]
    assert [p.name for p in prompts] == ["review"]
    assert review.messages[0].content.text == "Review this code:\nx = 1"  # type: ignore[union-attr]
    assert completion.completion.values == ["north"]
    # "Resource not found" is -32002 in 2025-11-25 and -32602 in 2026-07-28: each client gets its own era's.
    assert missing.value.code == (-32002 if mode == "legacy" else types.INVALID_PARAMS)


async def test_tool_list_changed_reaches_a_handshake_era_stdio_client(
    server: Any, catalogue: Catalogue, tmp_path: Path
) -> None:
    define(catalogue)
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    with anyio.fail_after(60):
        async with through_bridge(server, "legacy", tmp_path, message_handler=on_message) as client:
            assert (
                client.server_capabilities.tools is not None and client.server_capabilities.tools.list_changed
            )
            define_mul(catalogue)  # the cell defining a new tool runs
            await changed.wait()
            names = [t.name for t in (await client.list_tools()).tools]
    assert names == ["add", "mul"]


async def test_tool_list_changed_reaches_a_2026_stdio_client_on_its_listen_stream(
    server: Any, catalogue: Catalogue, tmp_path: Path
) -> None:
    define(catalogue)
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    with anyio.fail_after(60):
        async with through_bridge(server, "auto", tmp_path, message_handler=on_message) as client:
            assert client.protocol_version == "2026-07-28"
            async with client.listen(tools_list_changed=True) as subscription:
                define_mul(catalogue)
                event = await subscription.__anext__()
                await changed.wait()  # the same notification, as the message handler sees it
            names = [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]
    assert type(event).__name__ == "ToolsListChanged"
    assert names == ["add", "mul"]


def define_mul(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    def mul(a: int, b: int) -> int:
        """Multiply two integers."""
        return a * b


@pytest.mark.parametrize("mode", ERAS)
async def test_resource_updates_reach_subscribers_of_both_eras(
    server: Any, catalogue: Catalogue, mode: Mode, tmp_path: Path
) -> None:
    publish("v1", "notes://live", name="live", catalogue=catalogue)
    updated = anyio.Event()

    async def on_message(message: Any) -> None:
        if (
            isinstance(message, types.ResourceUpdatedNotification)
            and str(message.params.uri) == "notes://live"
        ):
            updated.set()

    with anyio.fail_after(60):
        async with through_bridge(server, mode, tmp_path, message_handler=on_message) as client:
            async with contextlib.AsyncExitStack() as stack:
                if mode == "legacy":
                    with warnings.catch_warnings():
                        warnings.simplefilter(
                            "ignore"
                        )  # resources/subscribe is deprecated for 2026 clients only
                        await client.subscribe_resource("notes://live")
                else:
                    await stack.enter_async_context(client.listen(resource_subscriptions=["notes://live"]))
                publish("v2", "notes://live", name="live", catalogue=catalogue)  # the cell runs again
                await updated.wait()
            text = (await client.read_resource("notes://live", cache_mode="refresh")).contents[0].text  # type: ignore[union-attr]
    assert text == "v2"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def run_bridge_process(url: str, token: str | None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        bridge_command(url, token), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )


def test_bridge_to_nothing_exits_1_saying_nothing_listens() -> None:
    done = run_bridge_process(f"http://127.0.0.1:{free_port()}/mcp", "t")
    assert done.returncode == 1
    assert "Nothing is listening" in done.stderr and done.stdout == ""


def test_bridge_with_a_wrong_token_exits_1_saying_401(server: Any) -> None:
    done = run_bridge_process(server.url, "not-the-token")
    assert done.returncode == 1
    assert "HTTP 401" in done.stderr and "srv.token" in done.stderr and done.stdout == ""


def test_bridge_ends_cleanly_when_the_stdio_client_goes_away(server: Any) -> None:
    done = run_bridge_process(server.url, server.token)  # stdin is empty: the client left at once
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize("mode", ERAS)
async def test_a_handshake_era_upstream_is_bridged_to_both_eras(
    server: Any, catalogue: Catalogue, mode: Mode
) -> None:
    """The notebook server speaks 2026-07-28, but a bridge to an older server must work too (in-process here)."""
    from mcp_notebook._bridge import Bridge, open_upstream

    define(catalogue)
    publish("v1", "notes://live", name="live", catalogue=catalogue)
    bridge = Bridge(server.url)
    seen: dict[str, anyio.Event] = {"tools": anyio.Event(), "resource": anyio.Event()}

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            seen["tools"].set()
        elif isinstance(message, types.ResourceUpdatedNotification):
            seen["resource"].set()

    with anyio.fail_after(60):
        async with (
            open_upstream(
                server.url, server.token, bridge.relay.on_upstream_message, mode="legacy"
            ) as upstream,
            anyio.create_task_group() as group,
        ):
            assert upstream.protocol_version == "2025-11-25"
            async with Client(
                bridge.build_server(upstream, group), mode=mode, message_handler=on_message
            ) as client:
                assert (await client.call_tool("add", {"a": 2, "b": 3})).structured_content == {"result": 5}
                with pytest.raises(MCPError) as missing:
                    await client.read_resource("notes://nowhere")
                async with contextlib.AsyncExitStack() as stack:
                    if mode == "legacy":
                        with warnings.catch_warnings():
                            warnings.simplefilter(
                                "ignore"
                            )  # resources/subscribe is deprecated for 2026 clients only
                            await client.subscribe_resource("notes://live")
                    else:
                        await stack.enter_async_context(
                            client.listen(tools_list_changed=True, resource_subscriptions=["notes://live"])
                        )
                    define_mul(catalogue)
                    publish("v2", "notes://live", name="live", catalogue=catalogue)
                    await seen["tools"].wait()
                    await seen["resource"].wait()
            group.cancel_scope.cancel()
    assert missing.value.code == (-32002 if mode == "legacy" else types.INVALID_PARAMS)
