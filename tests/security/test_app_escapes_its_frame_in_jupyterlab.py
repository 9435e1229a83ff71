"""A hostile MCP App in JupyterLab, in a real browser: each way out of its frame fails.

The app (``hostile`` of ``tests/servers/apps.py``, served by the SDK's own Apps extension) tries to
read the page it is shown in, its cookies and storage, to navigate the page and open a window, to
fetch from another origin (a server of this test's that counts what reaches it), to call a tool
hidden from apps and to have a ``javascript:`` link offered. Each attempt writes its outcome into the
app's own page, which the test reads through the frame; the page, the address bar and the counting
server say the rest. A screenshot goes to test-artifacts/.
"""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from tests.apps import STDIO
from tests.browser.lab import SECONDS, browsed

pytestmark = pytest.mark.browser

NOTEBOOK = "hostile.ipynb"
READY = "the hostile app's cell has run"
ATTEMPTS = ("parent_document", "cookie", "storage", "top_navigation", "popup", "fetch")


class _Counting(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []  # each test's own list, given in a subclass

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def another_origin() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on another origin than JupyterLab's, and the paths requested of it."""
    hits: ClassVar[list[str]] = []  # each test's own list, given in a subclass
    handler = type("Handler", (_Counting,), {"hits": hits})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/steal", hits
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.timeout(300)
def test_a_hostile_app_reaches_nothing_past_its_frame(
    tmp_path: Path, another_origin: tuple[str, list[str]]
) -> None:
    from playwright.sync_api import expect

    target, hits = another_origin
    cells = [
        "%load_ext mcp_notebook",
        f"import mcp_notebook\nAPPS = {STDIO!r}",
        f"mcp_notebook.call('hostile', {{'target': {target!r}}}, stdio=APPS)",
        f"print({READY!r})",
    ]
    dialogs: list[str] = []
    with browsed(tmp_path, {NOTEBOOK: cells}, "jupyterlab-hostile-app") as lab:
        page, context = lab.page, lab.context
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        outputs = lab.run_all(NOTEBOOK)
        start_url = page.url
        outputs.filter(has_text=READY).wait_for(timeout=180 * SECONDS)
        page.locator("iframe.mcp-app-frame").wait_for(timeout=60 * SECONDS)
        outcomes_element = page.frame_locator("iframe.mcp-app-frame").locator("#outcomes")
        # Every attempt has written its outcome (the page cannot read the frame: Playwright can).
        every = "".join(f'(?=.*"{name}")' for name in (*ATTEMPTS, "model_only_tool", "javascript_link"))
        expect(outcomes_element).to_have_text(re.compile(every, re.S), timeout=60 * SECONDS)
        outcomes = json.loads(outcomes_element.text_content() or "{}")
        lab.screenshot()
        assert outcomes["parent_document"] == "blocked SecurityError", outcomes
        assert outcomes["cookie"] == "blocked SecurityError", outcomes
        assert outcomes["storage"] == "blocked SecurityError", outcomes
        assert outcomes["popup"].startswith("blocked"), outcomes
        assert outcomes["fetch"] == "blocked TypeError", outcomes
        assert outcomes.get("violation_connect-src", "").startswith("blocked"), outcomes
        assert outcomes["model_only_tool"] == "blocked -32000", outcomes
        assert outcomes["javascript_link"] == "blocked -32602", outcomes
        assert outcomes["top_navigation"] in ("tried", "blocked SecurityError"), outcomes
        assert page.url == start_url  # the page was not navigated away
        assert len(context.pages) == 1  # no window opened
        assert hits == []  # nothing reached the other origin
        assert dialogs == []
        assert page.locator("a[href^='javascript:' i]").count() == 0
        assert outputs.get_by_role("button", name="Approve").count() == 0  # nothing asked the person
        # The camera and microphone it asked for wait for a click that never came.
        assert page.locator("iframe.mcp-app-frame").get_attribute("allow") is None
