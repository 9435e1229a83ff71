"""Real browser: an app built on the official ``App`` class of ``@modelcontextprotocol/ext-apps``
(npm), against this package's host in JupyterLab.

The package's self-contained ESM build is put inline in the app's HTML (the frame has no network),
its exports handed to the app's own script; the app is served by the SDK's Apps extension
(``tests/servers/apps.py --official``). The ``App`` does the handshake as it does with every host
and must then receive the tool's input and result, read the host context, and call an app-only tool
through the host (approved here by a click). A screenshot goes to test-artifacts/.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.apps import SERVER
from tests.browser.lab import SECONDS, browsed
from tests.npm import EXT_APPS, EXT_APPS_VERSION, node_module

pytestmark = pytest.mark.browser

NOTEBOOK = "official.ipynb"
READY = "the official app's cell has run"

APP_SCRIPT = """
const { App } = globalThis.McpExtApps;
const show = (id, text) => { document.getElementById(id).textContent = text; };
const app = new App({ name: "official", version: "1.0.0" });
app.ontoolinput = (params) => show("input", "input " + JSON.stringify(params.arguments));
app.ontoolresult = (result) => show("result", "result " + JSON.stringify(result.structuredContent));
document.getElementById("refresh").onclick = async () => {
  try {
    const answer = await app.callServerTool({ name: "refresh", arguments: { city: "Seoul" } });
    show("refreshed", "refreshed " + answer.content[0].text);
  } catch (error) {
    show("refreshed", "failed " + error);
  }
};
app.connect().then(
  () => show("context", "theme " + app.getHostContext().theme + " host " + app.getHostVersion().name),
  (error) => show("context", "failed " + error),
);
"""


def official_html() -> str:
    """An app's HTML with the package's bundle inline; its exports become ``globalThis.McpExtApps``."""
    _, folder = node_module(EXT_APPS, EXT_APPS_VERSION)
    bundle = (folder / "dist" / "src" / "app-with-deps.js").read_text(encoding="utf-8")
    exports = re.search(r"export\s*\{([^}]*)\};?\s*$", bundle)
    assert exports is not None, "the bundle no longer ends with one export list"
    pairs = [item.strip().split(" as ") for item in exports.group(1).split(",")]
    table = ",".join(f"{pair[-1]}:{pair[0]}" for pair in pairs)
    script = bundle[: exports.start()] + f"globalThis.McpExtApps={{{table}}};\n" + APP_SCRIPT
    assert "</script" not in script
    return (
        "<!DOCTYPE html><html><head><title>official</title></head><body>"
        '<div id="input">no input</div><div id="result">no result</div><div id="context"></div>'
        '<div id="refreshed"></div><button id="refresh">refresh</button>'
        f'<script type="module">{script}</script></body></html>'
    )


@pytest.mark.timeout(600)
def test_the_official_app_class_works_against_the_notebooks_host(tmp_path: Path) -> None:
    from playwright.sync_api import expect

    page_file = tmp_path / "official.html"
    page_file.write_text(official_html(), encoding="utf-8")
    command = f'"{sys.executable}" "{SERVER}" --official "{page_file}"'
    cells = [
        "%load_ext mcp_notebook",
        f"import mcp_notebook\nAPPS = {command!r}",
        "mcp_notebook.call('official', {'city': 'Seoul'}, stdio=APPS)",
        f"print({READY!r})",
    ]
    with browsed(tmp_path, {NOTEBOOK: cells}, "jupyterlab-official-app") as lab:
        outputs = lab.run_all(NOTEBOOK)
        outputs.filter(has_text=READY).wait_for(timeout=180 * SECONDS)
        app = lab.page.frame_locator("iframe.mcp-app-frame")
        expect(app.locator("#context")).to_have_text("theme light host mcp-notebook", timeout=60 * SECONDS)
        expect(app.locator("#input")).to_have_text('input {"city":"Seoul"}', timeout=30 * SECONDS)
        expect(app.locator("#result")).to_have_text(
            'result {"city":"Seoul","celsius":19,"apps":true}', timeout=30 * SECONDS
        )
        app.locator("#refresh").click()
        approve = outputs.get_by_role("button", name="Approve")
        approve.wait_for(timeout=60 * SECONDS)
        approve.click()
        expect(app.locator("#refreshed")).to_have_text("refreshed fresh Seoul 22", timeout=60 * SECONDS)
        lab.screenshot()
