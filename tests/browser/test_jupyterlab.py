"""Real browser: JupyterLab in Debian's headless chromium, a person clicking Approve.

A notebook serves a destructive tool; an outside SDK client calls it; the test clicks Approve in the
page, as a person would, and the client gets the tool's result. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import concurrent.futures
import re
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
    outside_call,
    read_server_json,
    run_all,
    write_notebook,
)

pytestmark = pytest.mark.browser

NOTEBOOK = "approve.ipynb"
READY = "server.json written"

CELLS = [
    "%load_ext mcp_notebook",
    '''
    from mcp_notebook import tool

    @tool(destructive=True)
    def wipe(table: str) -> str:
        """Delete every row of a table."""
        return f"wiped {table}"
    ''',
    "srv = %mcp_serve",
    # Written then renamed, so the test never reads half a file; the token is not printed.
    f"""
    import json, os
    with open("server.json.tmp", "w") as f:
        json.dump({{"url": srv.url, "token": srv.token}}, f)
    os.replace("server.json.tmp", "server.json")
    print({READY!r})
    """,
]


@pytest.mark.timeout(240)
def test_a_person_approves_an_outside_call_in_jupyterlab(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    write_notebook(tmp_path / NOTEBOOK, CELLS)
    # Exits run bottom up: the browser closes, then JupyterLab stops (ending the kernel, so a call
    # still waiting fails at once), then the client's thread is joined.
    with (
        concurrent.futures.ThreadPoolExecutor(1) as pool,
        jupyterlab(tmp_path / "home", *NO_TOKEN, f"--ServerApp.root_dir={tmp_path}") as (lab, url),
        sync_playwright() as playwright,
    ):
        base = base_of(url)
        browser = chromium(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 960})
        try:
            outputs = run_all(page, base, NOTEBOOK)
            outputs.filter(has_text=READY).wait_for(timeout=90 * SECONDS)
            remote = read_server_json(tmp_path)

            pending = pool.submit(outside_call, remote, "wipe", {"table": "매출"})
            approve = outputs.get_by_role("button", name="Approve", exact=True)
            approve.wait_for(timeout=60 * SECONDS)
            approve.scroll_into_view_if_needed()
            prompt = outputs.filter(has_text="Run the tool")
            assert "매출" in prompt.inner_text()  # the full arguments are shown before anything runs
            prompt.get_by_text(re.compile(r"^\d+ s left$")).wait_for(timeout=30 * SECONDS)  # the countdown
            page.screenshot(path=ARTIFACTS / "jupyterlab-approval-before.png")
            approve.click()

            result = pending.result(60)
            assert result.is_error is False, result.content
            assert result.content[0].text == "wiped 매출"
            approve.wait_for(state="detached", timeout=30 * SECONDS)  # answered prompts leave the panel
            # ... and leave one line behind, so the person sees what their click did.
            outputs.locator("div.mcp-outcome").filter(has_text="approved").last.wait_for(timeout=30 * SECONDS)
            outputs.get_by_text("Activity", exact=True).click()
            outputs.locator("details.mcp-activity-row summary").filter(has_text="approved").wait_for(
                timeout=30 * SECONDS
            )
            # Each row of the log opens on the JSON-RPC exchange, both ways, as the server saw it.
            row = outputs.locator("details.mcp-activity-row").filter(has_text="wipe").first
            row.locator("summary").click()
            row.get_by_text('"method": "tools/call"').wait_for(timeout=30 * SECONDS)
            assert '"text": "wiped 매출"' in row.inner_text()
            page.screenshot(path=ARTIFACTS / "jupyterlab-approval-after.png")
        except BaseException:
            page.screenshot(path=ARTIFACTS / "jupyterlab-approval-failure.png")
            print(lab.tail(), file=sys.stderr)
            raise
        finally:
            browser.close()
