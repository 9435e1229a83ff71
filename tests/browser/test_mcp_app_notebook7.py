"""Real browser: an MCP App drawn in Notebook 7, as in JupyterLab, by `%mcp_call`.

Notebook 7 is the other front end a person opens notebooks in; the host is an anywidget, whose
front end both load from the same labextension. The server is the SDK's own Apps extension
(``tests/servers/apps.py``, over stdio): its ``weather`` app writes what it received into its own
page, which the test reads through the frame, and its button calls an app-only tool that runs only
once the person clicks Approve. The notebook's own server with `app_from(df)` is the other: its
table view, filtered by typing once the person allows it. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tests.apps import STDIO
from tests.browser.lab import (
    ARTIFACTS,
    NO_TOKEN,
    SECONDS,
    base_of,
    chromium,
    notebook7,
    run_all,
    write_notebook,
)

pytestmark = pytest.mark.browser

NOTEBOOK = "app.ipynb"
READY = "the app's cell has run"

CELLS = [
    "%load_ext mcp_notebook",
    f"%mcp_call weather city=Seoul --stdio {shlex.quote(STDIO)}",
    f"print({READY!r})",
]


@pytest.mark.timeout(300)
def test_an_app_called_by_the_magic_is_drawn_in_notebook_7_and_calls_a_tool_once_approved(
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    write_notebook(tmp_path / NOTEBOOK, CELLS)
    with (
        notebook7(tmp_path / "home", *NO_TOKEN, f"--ServerApp.root_dir={tmp_path}") as (server, url),
        sync_playwright() as playwright,
    ):
        browser = chromium(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 960})
        try:
            outputs = run_all(page, base_of(url), NOTEBOOK, front="notebook")
            # Notebook 7's own application, not JupyterLab's.
            assert page.evaluate("() => window.jupyterapp.name") == "Jupyter Notebook"
            outputs.filter(has_text=READY).wait_for(timeout=180 * SECONDS)
            frame_element = page.locator("iframe.mcp-app-frame")
            frame_element.wait_for(timeout=60 * SECONDS)
            assert frame_element.get_attribute("sandbox") == "allow-scripts"
            assert frame_element.get_attribute("srcdoc")  # an opaque origin, not a URL of this server
            app = page.frame_locator("iframe.mcp-app-frame")
            # The handshake, then the tool's input and result, drawn by the app itself.
            expect(app.locator("#context")).to_have_text("theme light mode inline", timeout=60 * SECONDS)
            expect(app.locator("#input")).to_have_text('input {"city":"Seoul"}')
            expect(app.locator("#result")).to_have_text(
                'result {"city":"Seoul","celsius":21,"apps":true}', timeout=30 * SECONDS
            )
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
            page.screenshot(path=ARTIFACTS / "notebook7-mcp-app.png", full_page=True)
        except BaseException:
            page.screenshot(path=ARTIFACTS / "notebook7-mcp-app-failure.png")
            print(server.tail(), file=sys.stderr)
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
    "%mcp_call menu",
    f"print({READY!r})",
]


@pytest.mark.timeout(300)
def test_the_notebooks_own_table_view_is_filtered_in_notebook_7(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    write_notebook(tmp_path / NOTEBOOK, TABLE_CELLS)
    with (
        notebook7(tmp_path / "home", *NO_TOKEN, f"--ServerApp.root_dir={tmp_path}") as (server, url),
        sync_playwright() as playwright,
    ):
        browser = chromium(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 960})
        try:
            outputs = run_all(page, base_of(url), NOTEBOOK, front="notebook")
            outputs.filter(has_text=READY).wait_for(timeout=180 * SECONDS)
            assert page.locator("iframe.mcp-app-frame").get_attribute("sandbox") == "allow-scripts"
            app = page.frame_locator("iframe.mcp-app-frame")
            expect(app.locator("#body tr")).to_have_count(3, timeout=60 * SECONDS)
            # Typing asks for the rows through the host; nothing runs before the click.
            app.locator("#query").fill("tea")
            always = outputs.get_by_role("button", name="Always allow menu_rows from this app")
            always.wait_for(timeout=60 * SECONDS)
            expect(app.locator("#body tr")).to_have_count(3)
            always.click()
            expect(app.locator("#body tr")).to_have_count(1, timeout=60 * SECONDS)
            expect(app.locator("#body")).to_contain_text("tea")
            page.screenshot(path=ARTIFACTS / "notebook7-table-view.png", full_page=True)
        except BaseException:
            page.screenshot(path=ARTIFACTS / "notebook7-table-view-failure.png")
            print(server.tail(), file=sys.stderr)
            raise
        finally:
            browser.close()
