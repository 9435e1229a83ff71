"""MCP Apps over the real server, with the SDK's clients of both eras.

A tool bound to a view lists ``_meta.ui``; the ``ui://`` view reads as ``text/html;profile=mcp-app``
with its ``_meta.ui``; 2026-07-28's ``server/discover`` advertises ``io.modelcontextprotocol/ui``
(2025-11-25's ``initialize`` has nowhere to say it); a client that did not negotiate Apps gets the
same tool and its text result (SEP-2133). A view that is not registered stops the server from
starting, and a tool bound to one registered later is listed without the link meanwhile.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import mcp_types as types
import pandas as pd
import pytest
from mcp.client.extension import advertise

from mcp_notebook import Catalogue, Context, ToolDefinitionError, app_from, app_resource, serve, tool
from tests.conftest import ERAS, INITIALIZE, Mode, connect, serve_unattended
from tests.wire import answer, post

pytestmark = pytest.mark.anyio

APPS = "io.modelcontextprotocol/ui"
MIME = "text/html;profile=mcp-app"
VIEW = "<!doctype html><html><body><p id=out></p><script>/* a view */</script></body></html>"
CSP = {"connectDomains": ["https://api.example.com"]}
HOSTILE = "<script>alert(1)</script>"


def apps_host() -> Any:
    """What a host that renders MCP Apps declares (ext-apps 2026-01-26, capability negotiation)."""
    return advertise(APPS, {"mimeTypes": [MIME]})


@pytest.fixture
def server(catalogue: Catalogue) -> Iterator[Any]:
    app_resource("ui://weather/view", VIEW, csp=CSP, permissions=["geolocation"], catalogue=catalogue)

    @tool(catalogue=catalogue, read_only=True, app="ui://weather/view")
    def forecast(city: str) -> dict[str, Any]:
        """Weather in a city, with a view."""
        return {"city": city, "temperature": 23}

    @tool(catalogue=catalogue, read_only=True, app="ui://weather/view", visibility=["model"])
    def shown_where(ctx: Context) -> str:
        """Says whether the client shows the view."""
        return "in the view" if ctx.supports_apps else "as text"

    @tool(catalogue=catalogue, read_only=True, app="ui://weather/view", visibility=["app"])
    def refresh_forecast(city: str) -> str:
        """For the view only: the weather again."""
        return f"{city}: 23"

    app_from(
        pd.DataFrame({"name": ["tea", HOSTILE, "rice"], "price": [3, 9, 1]}), name="menu", catalogue=catalogue
    )
    srv = serve_unattended(catalogue)
    try:
        yield srv
    finally:
        srv.stop()


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.mark.parametrize("mode", ERAS)
async def test_tools_list_shows_each_tools_view_and_visibility_in_both_eras(server: Any, mode: Mode) -> None:
    async with connect(server, mode, extensions=[apps_host()]) as client:
        listed = {t.name: t.meta for t in (await client.list_tools()).tools}
    assert listed == {
        "forecast": {"ui": {"resourceUri": "ui://weather/view"}},
        "shown_where": {"ui": {"resourceUri": "ui://weather/view", "visibility": ["model"]}},
        # ext-apps 2026-01-26 "Visibility": the host keeps an app-only tool from its model; the server lists it.
        "refresh_forecast": {"ui": {"resourceUri": "ui://weather/view", "visibility": ["app"]}},
        "menu": {"ui": {"resourceUri": "ui://menu/table", "visibility": ["model", "app"]}},
        "menu_rows": {"ui": {"resourceUri": "ui://menu/table", "visibility": ["app"]}},
    }


@pytest.mark.parametrize("mode", ERAS)
async def test_the_view_reads_as_an_mcp_app_with_its_csp_and_permissions(server: Any, mode: Mode) -> None:
    ui = {"csp": CSP, "permissions": {"geolocation": {}}}
    async with connect(server, mode, extensions=[apps_host()]) as client:
        resources = {r.uri: r for r in (await client.list_resources()).resources}
        read = await client.read_resource("ui://weather/view")
    assert resources["ui://weather/view"].mime_type == MIME and resources["ui://weather/view"].meta == {
        "ui": ui
    }
    assert resources["ui://menu/table"].mime_type == MIME
    (content,) = read.contents
    assert isinstance(content, types.TextResourceContents)
    assert (content.uri, content.mime_type, content.text, content.meta) == (
        "ui://weather/view",
        MIME,
        VIEW,
        {"ui": ui},
    )


async def test_2026_discover_advertises_the_apps_extension_and_2025_initialize_has_no_place_for_it(
    server: Any,
) -> None:
    async with connect(server, "auto", extensions=[apps_host()]) as client:
        assert client.session.discover_result is not None
        extensions = client.session.discover_result.capabilities.extensions
    assert extensions is not None and extensions[APPS] == {}
    opened = post(server, INITIALIZE)
    body = opened.json() if opened.headers["content-type"].startswith("application/json") else None
    if body is None:  # an SSE answer
        body = json.loads(next(line[5:] for line in opened.text.splitlines() if line.startswith("data:")))
    assert "extensions" not in body["result"]["capabilities"]  # the 2025-11-25 schema has no such field


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("declares_apps", [False, True])
async def test_a_client_with_or_without_apps_gets_the_tool_and_its_text_result(
    server: Any, mode: Mode, declares_apps: bool
) -> None:
    extensions = [apps_host()] if declares_apps else []
    async with connect(server, mode, extensions=extensions) as client:
        called = await client.call_tool("forecast", {"city": "Seoul"})
        helper = await client.call_tool("refresh_forecast", {"city": "Busan"})
    assert not called.is_error and called.structured_content == {"city": "Seoul", "temperature": 23}
    assert json.loads(text_of(called)) == {"city": "Seoul", "temperature": 23}
    assert text_of(helper) == "Busan: 23"


@pytest.mark.parametrize("mode", ERAS)
async def test_the_table_tools_answer_and_its_page_holds_the_data_escaped(server: Any, mode: Mode) -> None:
    async with connect(server, mode, extensions=[apps_host()]) as client:
        shown = await client.call_tool("menu", {"sort_by": "price", "descending": True})
        filtered = await client.call_tool("menu_rows", {"query": "ICE", "limit": 5})
        wrong = await client.call_tool("menu_rows", {"sort_by": "cost"})
        page = (await client.read_resource("ui://menu/table")).contents[0]
    assert shown.structured_content is not None and filtered.structured_content is not None
    assert [row["name"] for row in shown.structured_content["rows"]] == [HOSTILE, "tea", "rice"]
    assert filtered.structured_content["rows"] == [{"name": "rice", "price": 1}]
    assert filtered.structured_content["matched"] == 1 and filtered.structured_content["total"] == 3
    assert wrong.is_error and "'cost' is not one of ['', 'name', 'price']" in text_of(wrong)
    assert isinstance(page, types.TextResourceContents) and page.mime_type == MIME
    assert HOSTILE not in page.text and "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in page.text
    assert "https://" not in page.text and "http://" not in page.text  # nothing to fetch from anywhere


def test_a_tool_bound_to_a_view_that_is_not_registered_stops_the_server_from_starting(
    catalogue: Catalogue,
) -> None:
    @tool(catalogue=catalogue, read_only=True, app="ui://nowhere/view")
    def lonely() -> str:
        return "x"

    with pytest.raises(ToolDefinitionError, match=r"'lonely' → 'ui://nowhere/view'.*app_resource"):
        serve(catalogue=catalogue)


async def test_a_view_registered_after_its_tool_is_linked_once_it_exists(
    server: Any, catalogue: Catalogue, caplog: pytest.LogCaptureFixture
) -> None:
    @tool(catalogue=catalogue, read_only=True, app="ui://late/view")
    def early() -> str:
        return "x"

    with caplog.at_level(logging.WARNING, logger="mcp_notebook.server._protocol"):
        async with connect(server, "auto", extensions=[apps_host()]) as client:
            before = {t.name: t.meta for t in (await client.list_tools()).tools}
            again = {t.name: t.meta for t in (await client.list_tools()).tools}
            app_resource("ui://late/view", VIEW, catalogue=catalogue)
            after = {t.name: t.meta for t in (await client.list_tools()).tools}
    assert before["early"] is None and again["early"] is None  # a plain tool, not a broken link
    assert after["early"] == {"ui": {"resourceUri": "ui://late/view"}}
    warned = [r.getMessage() for r in caplog.records if "'early'" in r.getMessage()]
    assert len(warned) == 1 and "ui://late/view" in warned[0] and "app_resource" in warned[0]


async def test_a_tool_knows_whether_its_client_shows_views_in_2026(server: Any) -> None:
    async with connect(server, "auto", extensions=[apps_host()]) as client:
        shown = await client.call_tool("shown_where", {})
    async with connect(server, "auto") as client:
        plain = await client.call_tool("shown_where", {})
    async with connect(server, "auto", extensions=[advertise(APPS, {"mimeTypes": ["text/html"]})]) as client:
        other = await client.call_tool("shown_where", {})  # declared, but not for this kind of view
    assert (text_of(shown), text_of(plain), text_of(other)) == ("in the view", "as text", "as text")


def test_a_2025_host_that_declares_apps_in_initialize_is_known_as_one(server: Any) -> None:
    # What hosts of that era send (ext-apps 2026-01-26, "Client (Host) Capabilities"), written by hand:
    # the SDK's own client of that era declares no extensions.
    opening = {
        **INITIALIZE,
        "params": {**INITIALIZE["params"], "capabilities": {"extensions": {APPS: {"mimeTypes": [MIME]}}}},
    }
    opened = post(server, opening)
    session = {"Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
    assert (
        post(server, {"jsonrpc": "2.0", "method": "notifications/initialized"}, **session).status_code == 202
    )
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "shown_where", "arguments": {}},
    }
    answered = answer(post(server, call, **session))
    assert answered["result"]["content"][0]["text"] == "in the view"
