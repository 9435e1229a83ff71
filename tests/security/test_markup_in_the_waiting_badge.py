"""Attack: markup in a client's name and arguments, shown by the page's badge for waiting calls.

The badge sits on the page itself, outside every output area and its sanitizer, so anything it
put there as HTML would run with the notebook's rights (its kernel, its files). A client claims the
name ``<img src=x onerror=...>`` with a right-to-left override in it, and calls a destructive tool
with a ``<script>`` and an ``<img onerror>`` in its arguments, while the notebook shows no panel
(``serve()``). In a real JupyterLab the test opens the call in the badge: the markup reads as the
text it is, the override as ``⟨U+202E⟩``, no element came from it, and none of it ran. Then Deny
there: the tool did not run.
"""

from __future__ import annotations

import concurrent.futures
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.browser.badge import NO_PANEL, VIEWPORT, open_at_the_bottom
from tests.browser.lab import ARTIFACTS, SECONDS, browsed, read_server_json
from tests.security.conftest import client_as

pytestmark = pytest.mark.browser

RAN = "window.__mcpBadgeRan"
CLAIM = f'<img src=x onerror="{RAN}=1">\u202eevil'
ARGUMENT = f'<script>{RAN}=2</script><img src=y onerror="{RAN}=3">'


def hostile_call(remote: Any) -> Any:
    async def main() -> Any:
        with anyio.fail_after(120):
            async with client_as(remote, remote.token, claims=CLAIM) as client:
                return await client.call_tool("wipe", {"table": ARGUMENT})

    return anyio.run(main)


@pytest.mark.timeout(300)
def test_a_hostile_name_and_arguments_in_the_badge_run_nothing_and_read_as_text(tmp_path: Path) -> None:
    notebooks = {"hostile.ipynb": NO_PANEL}
    with (
        concurrent.futures.ThreadPoolExecutor(1) as pool,
        browsed(tmp_path, notebooks, "jupyterlab-badge-hostile", viewport=VIEWPORT) as lab,
    ):
        page = lab.page
        open_at_the_bottom(lab, "hostile.ipynb")
        pending = pool.submit(hostile_call, read_server_json(tmp_path))
        badge = page.locator(".mcp-badge")
        badge.get_by_role("button", name="Show").click(timeout=90 * SECONDS)
        entry = badge.locator(".mcp-badge-entry")
        entry.wait_for(timeout=5 * SECONDS)
        shown = entry.inner_text()
        page.screenshot(path=ARTIFACTS / "jupyterlab-badge-hostile.png")

        assert '<img src=x onerror="window.__mcpBadgeRan=1">⟨U+202E⟩evil' in shown
        assert "<script>window.__mcpBadgeRan=2</script>" in shown
        assert badge.locator("img, script").count() == 0  # no element came from the text
        assert page.evaluate(RAN) is None  # and nothing of it ran

        entry.get_by_role("button", name="Deny").click()
        result = pending.result(60)
        assert result.is_error, result.content  # denied from the badge: the tool did not run
        badge.wait_for(state="hidden", timeout=10 * SECONDS)
        assert page.evaluate(RAN) is None
