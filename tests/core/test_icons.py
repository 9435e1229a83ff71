"""Icons (SEP-973) on tools, resources, prompts and the server itself: what clients of both eras get.

A real server on 127.0.0.1 and real SDK clients of both eras; the catalogue widget shown without a
kernel; the linter's icon rules (MCP070-MCP073) on the icons a client could not fetch.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from mcp_notebook import Catalogue, prompt, resource, serve, tool
from mcp_notebook.core._errors import OptionError, ToolDefinitionError
from mcp_notebook.linter import lint
from tests.conftest import ERAS, Mode, connect, serve_unattended

pytestmark = pytest.mark.anyio

# A real 1x1 PNG: what a notebook would embed as a data: URI.
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()
DATA_ICON = {"src": f"data:image/png;base64,{PNG}", "mimeType": "image/png", "sizes": ["48x48"]}
WEB_ICON = {
    "src": "https://example.com/forecast.svg",
    "mimeType": "image/svg+xml",
    "sizes": ["any"],
    "theme": "dark",
}


def _served_catalogue() -> Catalogue:
    catalogue = Catalogue()

    @tool(catalogue=catalogue, read_only=True, icons=[DATA_ICON, WEB_ICON])
    def forecast(city: str) -> str:
        """The weather in one city now. Use for questions about today's weather."""
        return f"sunny in {city}"

    @resource("notes://today", catalogue=catalogue, icons="https://example.com/notes.png")
    def today() -> str:
        """Today's notes."""
        return "nothing yet"

    @resource("data://sales/{region}", catalogue=catalogue, icons=[WEB_ICON])
    def sales(region: str) -> str:
        """Sales of one region."""
        return region

    @prompt(catalogue=catalogue, icons=[{"src": "https://example.com/review.png", "mime_type": "image/png"}])
    def review(topic: str) -> str:
        """Review a topic."""
        return f"Review {topic}"

    return catalogue


@pytest.mark.parametrize("mode", ERAS)
async def test_clients_of_both_eras_get_the_icons_of_tools_resources_prompts_and_the_server(
    mode: Mode,
) -> None:
    srv = serve_unattended(_served_catalogue(), icons=["https://example.com/notebook.png"])
    try:
        async with connect(srv, mode) as client:
            tools = (await client.list_tools()).tools
            resources = (await client.list_resources()).resources
            templates = (await client.list_resource_templates()).resource_templates
            prompts = (await client.list_prompts()).prompts
            info = client.server_info
    finally:
        srv.stop()

    def dumped(icons: Any) -> list[dict[str, Any]]:
        return [icon.model_dump(by_alias=True, exclude_none=True) for icon in icons or []]

    assert dumped(tools[0].icons) == [DATA_ICON, WEB_ICON]
    assert dumped(resources[0].icons) == [{"src": "https://example.com/notes.png"}]
    assert dumped(templates[0].icons) == [WEB_ICON]
    assert dumped(prompts[0].icons) == [{"src": "https://example.com/review.png", "mimeType": "image/png"}]
    assert info is not None and dumped(info.icons) == [{"src": "https://example.com/notebook.png"}]


def test_an_icon_that_is_not_one_is_refused_where_it_is_defined_saying_which_and_how_to_write_it() -> None:
    catalogue = Catalogue()
    with pytest.raises(ToolDefinitionError) as refused:

        @tool(catalogue=catalogue, icons=["https://example.com/a.png", {"href": "https://example.com/b.png"}])
        def lookup(name: str) -> str:
            return name

    message = str(refused.value)
    assert "Icon 2 of @tool(icons=...)" in message and "'href'" in message
    assert "src, mimeType, sizes and theme" in message and '"src": "https://example.com/icon.png"' in message
    with pytest.raises(ToolDefinitionError, match="theme is 'night'; use 'light' or 'dark'"):
        resource("notes://x", catalogue=catalogue, icons=[{"src": "https://e.com/x.png", "theme": "night"}])(
            _text
        )
    with pytest.raises(ToolDefinitionError, match=r"sizes is '48x48'; give a list of strings"):
        prompt(catalogue=catalogue, icons=[{"src": "https://e.com/x.png", "sizes": "48x48"}])(_text)
    with pytest.raises(OptionError) as settings:
        serve(catalogue=Catalogue(), icons=[{"mimeType": "image/png"}])
    assert settings.value.option == "icons" and "has no src" in str(settings.value)
    # Nothing refused was added.
    assert not catalogue.tools() and not catalogue.uris() and not catalogue.prompts()


def _text() -> str:
    return "x"


def test_the_refusal_is_said_in_korean_too() -> None:
    from mcp_notebook import set_language

    set_language("ko")
    with pytest.raises(ToolDefinitionError) as refused:
        tool(catalogue=Catalogue(), icons=[{"src": ""}])(_text)
    assert "@tool(icons=...)의 1번째 아이콘" in str(
        refused.value
    ) and "src(https:// URL이나 data: URI)가 없습니다" in str(refused.value)


def _icon_rules(icons: Any) -> dict[str, list[str]]:
    """The icon rules each icon of a tool so decorated breaks: {"icons[N]": [rule ids]}."""
    catalogue = Catalogue()

    @tool(catalogue=catalogue, read_only=True, icons=icons)
    def forecast(city: str) -> str:
        """The weather in one city now. Use for questions about today's weather, not past weather."""
        return city

    found: dict[str, list[str]] = {}
    for finding in lint(catalogue):
        if finding.rule.startswith("MCP07"):
            found.setdefault(str(finding.field), []).append(finding.rule)
    return found


def test_icons_every_client_can_fetch_have_no_findings() -> None:
    svg = base64.b64encode(b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>').decode()
    good = [DATA_ICON, WEB_ICON, {"src": f"data:image/svg+xml;base64,{svg}", "sizes": ["any"]}]
    assert _icon_rules(good) == {}


@pytest.mark.parametrize(
    ("icon", "rule", "said"),
    [
        ("http://example.com/a.png", "MCP070", "it is http://"),
        ("icons/forecast.png", "MCP070", "a relative path or a file on this machine"),
        ("/static/forecast.png", "MCP070", "a relative path or a file on this machine"),
        ("file:///home/me/forecast.png", "MCP070", "a relative path or a file on this machine"),
        ("ftp://example.com/a.png", "MCP070", "only from https: URLs and data: URIs"),
        ("data:image/png,not-base64", "MCP071", "not base64 data"),
        ("data:image/png;base64,@@@@", "MCP071", "not base64 data"),
        ("data:text/html;base64,PGI+aGk8L2I+", "MCP071", "its type is text/html, not an image"),
        (
            "data:image/png;base64," + base64.b64encode(b"GIF89a not a png").decode(),
            "MCP071",
            "not a image/png image",
        ),
        (
            "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(17000)).decode(),
            "MCP071",
            "17008 bytes, more than 16384",
        ),
        ({"src": "https://example.com/a.bmp", "mimeType": "image/bmp"}, "MCP072", "'image/bmp'"),
        ({"src": "https://example.com/a.png", "sizes": ["48", "48X48", "any"]}, "MCP073", "'48', '48X48'"),
    ],
)
def test_the_linter_flags_an_icon_a_client_could_not_fetch_or_show(icon: Any, rule: str, said: str) -> None:
    catalogue = Catalogue()

    @tool(catalogue=catalogue, read_only=True, icons=[WEB_ICON, icon])
    def forecast(city: str) -> str:
        """The weather in one city now. Use for questions about today's weather, not past weather."""
        return city

    findings = [f for f in lint(catalogue) if f.rule.startswith("MCP07")]
    assert [(f.rule, f.field, f.tool) for f in findings] == [(rule, "icons[1]", "forecast")]
    assert said in findings[0].message and findings[0].severity == "warning"


def test_resource_prompt_and_server_icons_are_linted_too_and_rules_can_be_ignored() -> None:
    from mcp_notebook.linter import lint_icons

    catalogue = Catalogue()
    resource("notes://today", catalogue=catalogue, icons="http://example.com/notes.png")(_text)
    resource("data://sales/{region}", catalogue=catalogue, name="sales", icons="sales.png")(_region)
    prompt(catalogue=catalogue, name="review", icons=[{"src": "https://e.com/r.png", "sizes": ["big"]}])(
        _text
    )
    found = {(f.rule, f.tool) for f in lint(catalogue)}
    assert found == {("MCP070", "_text"), ("MCP070", "sales"), ("MCP073", "review")}
    assert [f.rule for f in lint(catalogue, ignore={"icon-not-fetchable"})] == ["MCP073"]
    (server,) = lint_icons(["http://example.com/logo.png"])
    assert (server.rule, server.tool, server.field) == ("MCP070", "server", "icons[0]")
    assert "https://" in server.fix


def _region(region: str) -> str:
    return region


def test_the_catalogue_view_shows_data_icons_inline_and_fetches_nothing_from_elsewhere() -> None:
    """A data: icon is in the page already; an https one is a link the person may open, never an
    ``<img>`` the page would fetch by itself; anything else is escaped text."""
    from mcp_notebook.widgets import CatalogueView

    injected = 'data:image/png;base64,AAAA" onerror="alert(1)'
    catalogue = Catalogue()

    @tool(catalogue=catalogue, read_only=True, icons=[DATA_ICON, WEB_ICON, injected, "javascript:alert(1)"])
    def forecast(city: str) -> str:
        """The weather in one city now. Use for questions about today's weather."""
        return city

    resource("notes://today", catalogue=catalogue, icons="https://example.com/notes.png")(_text)
    prompt(catalogue=catalogue, name="review", icons=[DATA_ICON])(_text)
    view = CatalogueView(catalogue)
    try:
        shown = view.body.value
    finally:
        view.close()
    assert shown.count(f'<img src="{DATA_ICON["src"]}"') == 2  # the tool's and the prompt's
    assert '<a href="https://example.com/forecast.svg"' in shown and 'rel="noopener noreferrer"' in shown
    assert '<a href="https://example.com/notes.png"' in shown
    assert '<img src="https://' not in shown  # nothing fetched from another origin without a click
    assert 'onerror="alert' not in shown and "onerror=&quot;alert(1)" in shown
    assert 'href="javascript' not in shown and "<code>javascript:alert(1)</code>" in shown
