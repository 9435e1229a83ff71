"""MCP Apps in a real browser, the same in JupyterLab and in Notebook 7: what a person sees of the
SDK's ``weather`` app and of the notebook's own table view, and what their clicks let through.

The front ends load the host from the same labextension, so each test of a front end opens its
notebook and hands the page here.
"""

from __future__ import annotations

from typing import Any

from tests.browser.lab import SECONDS

READY = "the app's cell has run"
"""What the last cell of each notebook prints."""
FRAME = "iframe.mcp-app-frame"


def table_cells(call: str) -> list[str]:
    """A notebook that serves `app_from(menu)` and shows it with `call` (a line that calls ``menu``)."""
    return [
        "%load_ext mcp_notebook",
        """
        import pandas as pd
        import mcp_notebook
        from mcp_notebook import app_from
        menu = pd.DataFrame({'name': ['tea', 'rice', 'noodles'], 'price': [3, 1, 6]})
        app_from(menu, name='menu')
        srv = mcp_notebook.serve()
        """,
        call,
        f"print({READY!r})",
    ]


def weather_is_drawn_and_calls_a_tool_once_approved(page: Any, outputs: Any) -> None:
    """The ``weather`` app's frame, its handshake, input and result, then its button, which runs the
    app-only ``refresh`` only once the person clicks Approve."""
    from playwright.sync_api import expect

    outputs.filter(has_text=READY).wait_for(timeout=180 * SECONDS)
    frame_element = page.locator(FRAME)
    frame_element.wait_for(timeout=60 * SECONDS)
    assert frame_element.get_attribute("sandbox") == "allow-scripts"
    assert frame_element.get_attribute("srcdoc")  # an opaque origin, not a URL of this server
    assert frame_element.get_attribute("allow") is None  # clipboard-write waits for a click
    app = page.frame_locator(FRAME)
    # The handshake, then the tool's input and result, as the spec orders them.
    expect(app.locator("#context")).to_have_text("theme light mode inline", timeout=60 * SECONDS)
    expect(app.locator("#input")).to_have_text('input {"city":"Seoul"}')
    expect(app.locator("#result")).to_have_text(
        'result {"city":"Seoul","celsius":21,"apps":true}', timeout=30 * SECONDS
    )
    # The app asked for 180 px: the frame follows, within its bounds.
    page.wait_for_function(
        f"() => document.querySelector('{FRAME}').style.height === '180px'", timeout=30 * SECONDS
    )
    # The plain result sits beside the app, as a client without Apps gets it.
    outputs.get_by_text("Structured content (structuredContent)").first.wait_for(timeout=30 * SECONDS)

    # A click inside the app asks for an app-only tool: nothing runs until Approve.
    app.locator("#refresh").click()
    approve = outputs.get_by_role("button", name="Approve")
    approve.wait_for(timeout=60 * SECONDS)
    expect(
        outputs.filter(has_text="The app ui://weather/app.html asks to run the tool refresh")
    ).to_have_count(1)
    expect(app.locator("#refreshed")).to_have_text("")
    approve.click()
    expect(app.locator("#refreshed")).to_have_text("refreshed fresh Seoul 22", timeout=60 * SECONDS)
    outputs.filter(has_text="Called by the app ui://weather/app.html").first.wait_for(timeout=30 * SECONDS)


def table_is_filtered_once_allowed(page: Any, outputs: Any) -> None:
    """The table view's rows, filtered by typing: it asks once, and allowed for good, no more."""
    from playwright.sync_api import expect

    outputs.filter(has_text=READY).wait_for(timeout=180 * SECONDS)
    app = page.frame_locator(FRAME)
    expect(app.locator("#body tr")).to_have_count(3, timeout=60 * SECONDS)
    assert page.locator(FRAME).get_attribute("sandbox") == "allow-scripts"
    # Typing asks for the rows through the host: once, with Approve and "always".
    app.locator("#query").fill("tea")
    always = outputs.get_by_role("button", name="Always allow menu_rows from this app")
    always.wait_for(timeout=60 * SECONDS)
    expect(app.locator("#body tr")).to_have_count(3)  # nothing ran before the click
    always.click()
    expect(app.locator("#body tr")).to_have_count(1, timeout=60 * SECONDS)
    expect(app.locator("#body")).to_contain_text("tea")
    # Allowed for good: the next filter runs without asking again.
    app.locator("#query").fill("")
    expect(app.locator("#body tr")).to_have_count(3, timeout=60 * SECONDS)
    expect(outputs.get_by_role("button", name="Approve")).to_have_count(1)
