"""The table view of `app_from(df)` in real Chromium, driven by a minimal MCP Apps host.

The host is a page that does what ext-apps 2026-01-26 asks of one, and no more: it puts the view
read from the real server into an iframe with ``sandbox="allow-scripts"`` (an opaque origin),
answers ``ui/initialize``, sends the tool's input and result once the view says it is initialized,
and passes each ``tools/call`` the view makes to the real server over HTTP. What the test sees is
the view's side: the messages it sends, the table it draws from the result, the calls its filter
box and column headers make, and a hostile cell shown as text.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

from mcp_notebook import Catalogue, app_from, serve
from tests.browser.lab import SECONDS, chromium
from tests.wire import Wire

pytestmark = pytest.mark.browser

HOSTILE = (
    "<img src=x onerror=parent.postMessage('pwned','*')><script>parent.postMessage('pwned','*')</script>"
)

HOST = """<!doctype html><html><body>
<iframe id="view" sandbox="allow-scripts" style="width: 800px; height: 400px"></iframe>
<script>
  window.received = [];
  const frame = document.getElementById("view");
  const toView = (message) => frame.contentWindow.postMessage(message, "*");
  window.addEventListener("message", async (event) => {
    if (event.source !== frame.contentWindow) return;
    const message = event.data;
    window.received.push(message);
    if (message.method === "ui/initialize") {
      toView({ jsonrpc: "2.0", id: message.id, result: {
        protocolVersion: "2026-01-26", hostInfo: { name: "test host", version: "1" },
        hostCapabilities: { serverTools: {} }, hostContext: { theme: "dark" } } });
    } else if (message.method === "ui/notifications/initialized") {
      toView({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: window.firstArguments } });
      toView({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: window.firstResult });
    } else if (message.method === "tools/call") {
      const answer = await window.callTool(JSON.stringify(message.params));
      toView({ jsonrpc: "2.0", id: message.id, ...JSON.parse(answer) });
    }
  });
</script></body></html>"""


@pytest.fixture
def served() -> Iterator[Any]:
    catalogue = Catalogue()
    frame = pd.DataFrame({"name": ["tea", HOSTILE, "rice", "noodles"], "price": [3, 9, 1, 6]})
    app_from(frame, name="menu", catalogue=catalogue)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # approval='auto' says it is on
        srv = serve(catalogue=catalogue, approval="auto")
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def wire(served: Any) -> Iterator[Wire]:
    """The host's own connection to the server (2026-07-28, over HTTP with the server's token)."""
    connection = Wire(served, "2026-07-28")
    try:
        yield connection
    finally:
        connection.close()


@pytest.mark.timeout(180)
def test_the_table_view_speaks_to_its_host_draws_the_rows_and_calls_its_tool_through_the_host(
    wire: Wire,
) -> None:
    from playwright.sync_api import sync_playwright

    page_html = wire_result(wire.send("resources/read", {"uri": "ui://menu/table"}, "ui://menu/table"))[
        "contents"
    ][0]["text"]
    first_arguments = {"sort_by": "price"}
    first = wire.call("menu", first_arguments)["result"]
    calls: list[dict[str, Any]] = []

    def call_tool(params: str) -> str:
        asked = json.loads(params)
        calls.append(asked)
        answered = wire.call(asked["name"], asked["arguments"])
        return json.dumps({key: value for key, value in answered.items() if key in ("result", "error")})

    with sync_playwright() as playwright:
        browser = chromium(playwright)
        try:
            page = browser.new_page()
            page.set_default_timeout(30 * SECONDS)
            page.expose_function("callTool", call_tool)
            page.set_content(HOST)
            page.evaluate(
                "([html, args, result]) => { window.firstArguments = args; window.firstResult = result;"
                " document.getElementById('view').srcdoc = html; }",
                [page_html, first_arguments, first],
            )
            view = page.frame_locator("#view")
            rows = view.locator("#body tr")
            rows.first.wait_for()
            assert [row.split("\t")[0] for row in rows.all_inner_texts()] == [
                "rice",
                "tea",
                "noodles",
                HOSTILE,
            ]
            # The hostile cell is text in its cell: no element it names was made, nothing it runs ran.
            assert view.locator("#body td").nth(6).text_content() == HOSTILE
            assert view.locator("img").count() == 0 and view.locator("script").count() == 2

            view.locator("#query").fill("ICE")
            page.wait_for_function("() => window.received.filter(m => m.method === 'tools/call').length >= 1")
            view.locator("#body tr").nth(1).wait_for(state="detached")
            assert rows.all_inner_texts() == ["rice\t1"]
            view.locator("#head button", has_text="name").click()
            page.wait_for_function("() => window.received.filter(m => m.method === 'tools/call').length >= 2")
            view.locator("#head button", has_text="name ▲").wait_for()
            received = page.evaluate("window.received")
        finally:
            browser.close()
    initialize = received[0]
    assert initialize["method"] == "ui/initialize" and initialize["params"]["protocolVersion"] == "2026-01-26"
    assert set(initialize["params"]) >= {"appInfo", "appCapabilities"}
    assert received[1] == {"jsonrpc": "2.0", "method": "ui/notifications/initialized", "params": {}}
    assert "pwned" not in received
    assert calls[0] == {
        "name": "menu_rows",
        "arguments": {"query": "ICE", "sort_by": "price", "descending": False, "limit": 100},
    }
    assert calls[-1]["arguments"]["sort_by"] == "name" and calls[-1]["arguments"]["query"] == "ICE"


def wire_result(response: Any) -> dict[str, Any]:
    from tests.wire import answer

    result: dict[str, Any] = answer(response)["result"]
    return result


@pytest.mark.timeout(120)
def test_the_table_view_without_a_host_sorts_and_filters_the_rows_it_carries(wire: Wire) -> None:
    from playwright.sync_api import sync_playwright

    page_html = wire_result(wire.send("resources/read", {"uri": "ui://menu/table"}, "ui://menu/table"))[
        "contents"
    ][0]["text"]
    with sync_playwright() as playwright:
        browser = chromium(playwright)
        try:
            page = browser.new_page()
            page.set_default_timeout(30 * SECONDS)
            page.set_content(page_html)  # opened by itself: its parent is itself, and nobody answers
            page.locator("#status", has_text="No host answered").wait_for()
            rows = page.locator("#body tr")
            assert [row.split("\t")[0] for row in rows.all_inner_texts()] == [
                "tea",
                HOSTILE,
                "rice",
                "noodles",
            ]
            page.locator("#head button", has_text="price").click()
            page.locator("#head button", has_text="price ▲").wait_for()
            assert [row.split("\t")[1] for row in rows.all_inner_texts()] == ["1", "3", "6", "9"]
            page.locator("#query").fill("NOOD")
            rows.nth(1).wait_for(state="detached")
            assert rows.all_inner_texts() == ["noodles\t6"]
            assert page.locator("img").count() == 0
        finally:
            browser.close()
