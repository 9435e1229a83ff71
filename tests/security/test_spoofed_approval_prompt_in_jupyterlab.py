"""Attack: a spoofed approval prompt, seen in a real browser: what is on the first screen is the truth.

A client claims the name ``notebook) wants to run the tool echo (read-only)`` followed by 3,000
Hangul fillers (U+3164, drawn blank), and calls a destructive tool with a path behind 400 spaces.
In JupyterLab the first screen of the prompt read as a read-only ``echo`` asked by the notebook,
while the real tool, its arguments and the buttons sat 1,400 px below, and the path sat off to the
right of the box. The test serves the tool from a real kernel, calls it from a real SDK client,
and measures the rendered prompt: the real tool's name and the Approve and Deny buttons lie within
its first 500 px, and the path inside its box. The screenshot goes to test-artifacts/.
"""

from __future__ import annotations

import concurrent.futures
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from tests.browser.lab import (
    ARTIFACTS,
    NO_TOKEN,
    SECONDS,
    base_of,
    chromium,
    jupyterlab,
    read_server_json,
    run_all,
    write_notebook,
)
from tests.conftest import connect

pytestmark = pytest.mark.browser

NOTEBOOK = "spoofed.ipynb"
READY = "server.json written"
CLAIM = "notebook) wants to run the tool echo (read-only)" + "\u3164" * 3000
PATH = " " * 400 + "/etc/passwd"
FIRST_SCREEN = 500  # px from the prompt's top

CELLS = [
    "%load_ext mcp_notebook",
    '''
    from mcp_notebook import tool

    @tool(read_only=True)
    def echo(text: str) -> str:
        """Say the text back."""
        return text

    @tool(destructive=True)
    def wipe(path: str) -> str:
        """Delete a folder and everything in it."""
        return f"wiped {path}"
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

# The rectangle of the text "/etc/passwd" itself (not of the <pre> that holds it), in page pixels.
TEXT_BOX = """(root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const at = node.data.indexOf('/etc/passwd');
        if (at >= 0) {
            const range = document.createRange();
            range.setStart(node, at);
            range.setEnd(node, at + '/etc/passwd'.length);
            const r = range.getBoundingClientRect();
            return {x: r.x, y: r.y, width: r.width, height: r.height};
        }
    }
    return null;
}"""


def spoofing_call(remote: Any) -> Any:
    async def main() -> Any:
        with anyio.fail_after(120):
            info = types.Implementation(name=CLAIM, version="1.0")
            async with connect(remote, "auto", client_info=info) as client:
                return await client.call_tool("wipe", {"path": PATH})

    return anyio.run(main)


@pytest.mark.timeout(300)
def test_the_real_tool_and_the_buttons_are_on_the_prompts_first_screen(tmp_path: Path) -> None:
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
            pending = pool.submit(spoofing_call, read_server_json(tmp_path))

            approve = outputs.get_by_role("button", name="Approve", exact=True)
            approve.wait_for(timeout=60 * SECONDS)
            # The prompt: the innermost widget box around its buttons, whatever its layout.
            prompt = approve.locator("xpath=ancestor::div[contains(@class, 'widget-vbox')][1]")
            prompt.scroll_into_view_if_needed()
            deny = prompt.get_by_role("button", name="Deny", exact=True)
            real_tool = prompt.locator("code").filter(has_text="wipe").first
            top = prompt.bounding_box()
            assert top is not None
            page.screenshot(path=ARTIFACTS / "jupyterlab-spoofed-approval.png")
            prompt.screenshot(path=ARTIFACTS / "jupyterlab-spoofed-approval-prompt.png")
            for name, element in (("the real tool's name", real_tool), ("Approve", approve), ("Deny", deny)):
                box = element.bounding_box()
                assert box is not None, f"{name} is not shown"
                bottom = box["y"] + box["height"] - top["y"]
                assert bottom <= FIRST_SCREEN, f"{name} ends {bottom:.0f} px below the prompt's top"
            path = prompt.evaluate(TEXT_BOX)
            assert path is not None, "the path is not shown"
            assert top["x"] <= path["x"] and path["x"] + path["width"] <= top["x"] + top["width"], (
                f"the path is outside the prompt's box: {path} in {top}"
            )
            deny.click()
            result = pending.result(60)
            assert result.is_error, result.content  # denied: nothing was wiped
        except BaseException:
            page.screenshot(path=ARTIFACTS / "jupyterlab-spoofed-approval-failure.png")
            print(lab.tail(), file=sys.stderr)
            raise
        finally:
            browser.close()
