"""The bridge carries the MCP Apps extension a stdio client (an Apps host such as Claude Desktop)
declared to the server behind it, in either era, and only when declared."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_notebook.client._sdk_compat import DeclaringClient
from tests.apps import apps_over_http

pytestmark = pytest.mark.anyio

APPS = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    with apps_over_http() as url:
        yield url


async def plain_through_bridge(
    url: str, mode: Any, declared: types.ClientCapabilities, tmp_path: Path
) -> str:
    env = {key: value for key, value in os.environ.items() if key != "MCP_NOTEBOOK_TOKEN"}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "mcp_notebook.cli", "bridge", url], cwd=str(tmp_path), env=env
    )
    with contextlib.ExitStack() as stack:
        errlog = stack.enter_context((tmp_path / "bridge.stderr").open("w"))
        async with DeclaringClient(
            stdio_client(params, errlog=errlog), mode=mode, declared=declared
        ) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            result = await client.call_tool("plain", {})
    assert listed["weather"].meta == {"ui": {"resourceUri": "ui://weather/app.html"}}  # relayed as sent
    content = result.content[0]
    assert isinstance(content, types.TextContent)
    return content.text


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_declared_apps_extension_reaches_the_server(upstream: str, mode: Any, tmp_path: Path) -> None:
    with anyio.fail_after(60):
        text = await plain_through_bridge(upstream, mode, types.ClientCapabilities(extensions=APPS), tmp_path)
    assert text == "plain, apps=True"


async def test_a_client_without_apps_is_not_declared_one(upstream: str, tmp_path: Path) -> None:
    with anyio.fail_after(60):
        text = await plain_through_bridge(upstream, "2026-07-28", types.ClientCapabilities(), tmp_path)
    assert text == "plain, apps=False"
