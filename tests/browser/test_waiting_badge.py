"""Real browser: a call that waits for a person is seen wherever the person is in the notebook.

The notebook serves a destructive tool and goes on for screens below the server's cell; the person
reads the bottom of it. An outside SDK client calls the tool: a badge appears in the corner of the
page with the count, the tab's title starts with ``(1)``, and the badge's button leads to the
prompt. With ``%mcp_serve`` the button scrolls the panel's prompt into view and Approve there runs
the call; with ``serve()`` and no panel shown, the badge opens the call itself, with Approve. Both
times the badge goes and the title comes back once nothing waits. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import concurrent.futures
import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser.badge import NO_PANEL, VIEWPORT, WITH_PANEL, open_at_the_bottom
from tests.browser.lab import ARTIFACTS, SECONDS, browsed, outside_call, read_server_json

pytestmark = pytest.mark.browser

# Written then renamed, so the test never reads half a file; the token is not printed. The time the
# server asks a person is written down too, to measure how soon the badge shows it.
# Screens of notebook below the server's cell, where the person is when the call comes.
APPEARS_WITHIN = 1.0  # seconds from the server's request to the badge on the page


def seen_from_afar(page: Any, pool: Any, folder: Path) -> Any:
    """Start the outside call; check the badge and the title while it waits; the call's future."""
    base_title = page.title()
    assert not base_title.startswith("("), base_title
    pending = pool.submit(outside_call, read_server_json(folder), "wipe", {"table": "매출"})
    badge = page.locator(".mcp-badge")
    badge.wait_for(timeout=90 * SECONDS)
    seen = time.time()
    asked = float((folder / "asked").read_text())
    assert seen - asked < APPEARS_WITHIN, f"the badge came {seen - asked:.2f} s after the request"
    assert badge.locator(".mcp-badge-count").inner_text() == "1"
    assert "1 call is waiting for you" in badge.inner_text()
    page.wait_for_function("() => document.title.startsWith('(1) ')", timeout=5 * SECONDS)
    assert page.title() == "(1) " + base_title
    return pending, base_title


def gone_when_decided(page: Any, pending: Any, base_title: str) -> None:
    result = pending.result(60)
    assert result.is_error is False, result.content
    assert result.content[0].text == "wiped 매출"
    page.locator(".mcp-badge").wait_for(state="hidden", timeout=10 * SECONDS)
    page.wait_for_function(f"() => document.title === {base_title!r}", timeout=5 * SECONDS)


@pytest.mark.timeout(300)
def test_the_badge_leads_to_the_panels_prompt_scrolled_out_of_view(tmp_path: Path) -> None:
    from playwright.sync_api import expect

    with (
        concurrent.futures.ThreadPoolExecutor(1) as pool,
        browsed(tmp_path, {"badge.ipynb": WITH_PANEL}, "jupyterlab-badge", viewport=VIEWPORT) as lab,
    ):
        page = lab.page
        outputs = open_at_the_bottom(lab, "badge.ipynb")
        pending, base_title = seen_from_afar(page, pool, tmp_path)
        approve = outputs.get_by_role("button", name="Approve", exact=True)
        approve.wait_for(state="attached", timeout=30 * SECONDS)
        expect(approve).not_to_be_in_viewport()  # the panel is screens above
        page.screenshot(path=ARTIFACTS / "jupyterlab-badge-waiting.png")

        page.locator(".mcp-badge").get_by_role("button", name="Show").click()
        expect(approve).to_be_in_viewport(timeout=5 * SECONDS)
        page.screenshot(path=ARTIFACTS / "jupyterlab-badge-led-to-the-prompt.png")
        approve.click()
        gone_when_decided(page, pending, base_title)


@pytest.mark.timeout(300)
def test_with_no_panel_shown_the_badge_opens_the_call(tmp_path: Path) -> None:
    notebooks = {"headless.ipynb": NO_PANEL}
    with (
        concurrent.futures.ThreadPoolExecutor(1) as pool,
        browsed(tmp_path, notebooks, "jupyterlab-badge-no-panel", viewport=VIEWPORT) as lab,
    ):
        page = lab.page
        outputs = open_at_the_bottom(lab, "headless.ipynb")
        assert outputs.get_by_role("button", name="Approve").count() == 0  # no panel, no prompt
        pending, base_title = seen_from_afar(page, pool, tmp_path)

        badge = page.locator(".mcp-badge")
        badge.get_by_role("button", name="Show").click()
        entry = badge.locator(".mcp-badge-entry")
        entry.wait_for(timeout=5 * SECONDS)
        assert entry.inner_text().startswith("Run wipe for owner (claims to be mcp)?")
        assert "매출" in entry.inner_text()  # the arguments, before anything runs
        page.screenshot(path=ARTIFACTS / "jupyterlab-badge-opened.png")
        entry.get_by_role("button", name="Approve").click()
        gone_when_decided(page, pending, base_title)
