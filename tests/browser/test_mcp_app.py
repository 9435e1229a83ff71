"""Real browser: MCP Apps drawn in JupyterLab, fed their tool's input and result, and calling a tool
from inside their frame once the person approves it with a click.

One server is the SDK's own Apps extension (``tests/servers/apps.py``, over stdio); its ``weather``
app is hand-written against the protocol and writes what it received into its own page, which the
test reads through the frame. The other is the notebook's own server with `app_from(df)`: its table
view filtered by typing, which asks once, then, allowed for good, no more. Screenshots go to
test-artifacts/.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.browser.lab import (
    ARTIFACTS,
    NO_TOKEN,
    SECONDS,
    base_of,
    chromium,
    jupyterlab,
    run_all,
    write_notebook,
)

pytestmark = pytest.mark.browser

SERVER = Path(__file__).resolve().parents[1] / "servers" / "apps.py"
COMMAND = f'"{sys.executable}" "{SERVER}"'
NOTEBOOK = "app.ipynb"
READY = "the app's cell has run"

CELLS = [
    "%load_ext mcp_notebook",
    f"import mcp_notebook\nAPPS = {COMMAND!r}",
    "mcp_notebook.call('weather', {'city': 'Seoul'}, stdio=APPS)",
    f"print({READY!r})",
]


@pytest.mark.timeout(300)
def test_an_app_is_drawn_gets_its_result_and_calls_a_tool_once_approved(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    write_notebook(tmp_path / NOTEBOOK, CELLS)
    with (
        jupyterlab(tmp_path / "home", *NO_TOKEN, f"--ServerApp.root_dir={tmp_path}") as (lab, url),
        sync_playwright() as playwright,
    ):
        browser = chromium(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 960})
        try:
            outputs = run_all(page, base_of(url), NOTEBOOK)
            outputs.filter(has_text=READY).wait_for(timeout=180 * SECONDS)
            frame_element = page.locator("iframe.mcp-app-frame")
            frame_element.wait_for(timeout=60 * SECONDS)
            assert frame_element.get_attribute("sandbox") == "allow-scripts"
            assert frame_element.get_attribute("allow") is None  # clipboard-write waits for a click
            app = page.frame_locator("iframe.mcp-app-frame")
            # The handshake, then the tool's input and result, as the spec orders them.
            expect(app.locator("#context")).to_have_text("theme light mode inline", timeout=60 * SECONDS)
            expect(app.locator("#input")).to_have_text('input {"city":"Seoul"}')
            expect(app.locator("#result")).to_have_text(
                'result {"city":"Seoul","celsius":21,"apps":true}', timeout=30 * SECONDS
            )
            # The app asked for 180 px: the frame follows, within its bounds.
            page.wait_for_function(
                "() => document.querySelector('iframe.mcp-app-frame').style.height === '180px'",
                timeout=30 * SECONDS,
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
            outputs.filter(has_text="Called by the app ui://weather/app.html").first.wait_for(
                timeout=30 * SECONDS
            )
            page.screenshot(path=ARTIFACTS / "jupyterlab-mcp-app.png", full_page=True)
        except BaseException:
            page.screenshot(path=ARTIFACTS / "jupyterlab-mcp-app-failure.png")
            print(lab.tail(), file=sys.stderr)
            raise
        finally:
            browser.close()


TABLE_CELLS = [
    "%load_ext mcp_notebook",
    """
    import pandas as pd
    import mcp_notebook
    from mcp_notebook import app_from
    menu = pd.DataFrame({'name': ['tea', 'rice', 'noodles'], 'price': [3, 1, 6]})
    app_from(menu, name='menu')
    srv = mcp_notebook.serve()
    """,
    "mcp_notebook.call('menu')",
    f"print({READY!r})",
]


@pytest.mark.timeout(300)
def test_the_notebooks_own_table_view_is_filtered_through_the_notebooks_host(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    write_notebook(tmp_path / NOTEBOOK, TABLE_CELLS)
    with (
        jupyterlab(tmp_path / "home", *NO_TOKEN, f"--ServerApp.root_dir={tmp_path}") as (lab, url),
        sync_playwright() as playwright,
    ):
        browser = chromium(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 960})
        try:
            outputs = run_all(page, base_of(url), NOTEBOOK)
            outputs.filter(has_text=READY).wait_for(timeout=180 * SECONDS)
            app = page.frame_locator("iframe.mcp-app-frame")
            expect(app.locator("#body tr")).to_have_count(3, timeout=60 * SECONDS)
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
            page.screenshot(path=ARTIFACTS / "jupyterlab-table-view.png", full_page=True)
        except BaseException:
            page.screenshot(path=ARTIFACTS / "jupyterlab-table-view-failure.png")
            print(lab.tail(), file=sys.stderr)
            raise
        finally:
            browser.close()
