"""A hostile server's results rendered in JupyterLab, in a real browser: nothing it sent runs.

The notebook calls ``tests/servers/evil.py`` over stdio the way a person would (``%mcp_call``,
``%mcp_read``, ``%mcp_prompt``, ``.view()``, the questions it asks). Every payload would set
``window.__pwned`` and open an ``alert`` if it ran; ``onerror`` handlers fire once a broken image has
loaded, so the test waits until every image in the page is complete, then asserts that no dialog
opened, that ``window.__pwned`` is undefined, and that no ``javascript:`` link exists. It clicks the
resource link's "Read it" button too: the URI is read through the client, from the server that sent
it, never navigated to.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.browser.lab import SECONDS, browsed

pytestmark = pytest.mark.browser

EVIL = Path(__file__).resolve().parents[1] / "servers" / "evil.py"
COMMAND = f'"{sys.executable}" "{EVIL}"'
NOTEBOOK = "untrusted.ipynb"
READY = "every hostile result is on the page"

CELLS = [
    "%load_ext mcp_notebook",
    f"import mcp_notebook\nEVIL = {COMMAND!r}",
    "%mcp_call show --stdio $EVIL",
    "mcp_notebook.call('show', stdio=EVIL).view()",
    "%mcp_read evil://r --stdio $EVIL",
    "mcp_notebook.read_resource('evil://r', stdio=EVIL).view()",
    "%mcp_prompt evil --stdio $EVIL",
    "mcp_notebook.get_prompt('evil', stdio=EVIL).view()",
    """
    from mcp_notebook.widgets import ErrorView
    try:
        mcp_notebook.call('fail', stdio=EVIL)
    except mcp_notebook.ProtocolError as error:
        shown = ErrorView.of(error)
    shown
    """,
    "%mcp_call ask --stdio $EVIL --mode legacy",
    "%mcp_call sample --stdio $EVIL --mode legacy",
    f"print({READY!r})",
]


@pytest.mark.timeout(300)
def test_a_hostile_servers_results_run_nothing_in_jupyterlab(tmp_path: Path) -> None:
    dialogs: list[str] = []
    with browsed(tmp_path, {NOTEBOOK: CELLS}, "jupyterlab-untrusted-output") as lab:
        page = lab.page

        def on_dialog(dialog: object) -> None:
            dialogs.append(dialog.message)  # type: ignore[attr-defined]
            dialog.dismiss()  # type: ignore[attr-defined]

        page.on("dialog", on_dialog)
        outputs = lab.run_all(NOTEBOOK)
        start_url = page.url  # the cells' outputs take seconds to arrive: nothing has run yet
        outputs.filter(has_text=READY).wait_for(timeout=180 * SECONDS)
        # The widget views have rendered: the structured-content tree, the question forms.
        outputs.get_by_text("Structured content (structuredContent)").first.wait_for(timeout=60 * SECONDS)
        outputs.get_by_role("button", name="Decline").wait_for(timeout=60 * SECONDS)
        outputs.get_by_role("button", name="Reject").wait_for(timeout=60 * SECONDS)
        # An onerror handler runs once its image has failed to load: wait for every image to settle.
        page.wait_for_function(
            "() => Array.from(document.images).every(image => image.complete)", timeout=60 * SECONDS
        )
        # The link's URI is javascript:...; "Read it" must read it, not follow it.
        read_it = outputs.get_by_role("button", name="Read it").first
        read_it.scroll_into_view_if_needed()
        read_it.click()
        # Read from the server the link came from (never the notebook's own): its answer shows.
        page.wait_for_function(
            """() => Array.from(document.querySelectorAll('.jp-OutputArea-output'))
                .some(output => output.innerText.includes('Resource: javascript:'))""",
            timeout=60 * SECONDS,
        )
        page.wait_for_function(
            "() => Array.from(document.images).every(image => image.complete)", timeout=60 * SECONDS
        )
        lab.screenshot()
        assert page.evaluate("() => window.__pwned") is None, "a hostile server's payload ran"
        assert dialogs == [], f"a hostile server's payload opened dialogs: {dialogs}"
        assert page.locator("a[href^='javascript:' i]").count() == 0
        assert page.locator(".jp-OutputArea-output script").count() == 0
        assert page.url == start_url
        # The markup is there, as text a person can read.
        assert outputs.filter(has_text="onerror=").count() > 0
