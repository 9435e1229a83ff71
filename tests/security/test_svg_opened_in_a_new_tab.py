"""Attack: open an SVG image from another server in a new tab, and its script runs as JupyterLab.

The notebook shows ``tests/servers/svg.py``'s results every way it can (``%mcp_call``, the result's
own HTML, ``.view()``, ``%mcp_read``, a prompt, "Read it" on a link, a sampling question), in a real
JupyterLab in Chromium. Then it does what a person can do with any image on the page: open its
source in a tab of its own. Each SVG's script records where it ran in that origin's
``localStorage``; the notebook page's ``localStorage`` must stay without that record. Before the
fix, an ipywidgets ``Image`` of the SVG was a ``blob:`` URL of the notebook's origin, and the script
ran there.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.browser.lab import SECONDS, browsed
from tests.servers.svg import MARK

pytestmark = pytest.mark.browser

SERVER = Path(__file__).resolve().parents[1] / "servers" / "svg.py"
COMMAND = f'"{sys.executable}" "{SERVER}"'
NOTEBOOK = "svg.ipynb"
READY = "every hostile picture is on the page"

CELLS = [
    "%load_ext mcp_notebook",
    f"import mcp_notebook\nSVG = {COMMAND!r}",
    "%mcp_call draw --stdio $SVG",
    "mcp_notebook.call('draw', stdio=SVG)",
    "mcp_notebook.call('draw', stdio=SVG).view()",
    "%mcp_read svg://picture --stdio $SVG",
    "mcp_notebook.read_resource('svg://picture', stdio=SVG)",
    "mcp_notebook.read_resource('svg://picture', stdio=SVG).view()",
    "mcp_notebook.get_prompt('svg', stdio=SVG).view()",
    "%mcp_call sample --stdio $SVG --mode legacy",
    f"print({READY!r})",
]
SOURCES = """() => Array.from(
    document.querySelectorAll('.jp-OutputArea-output img, .jp-OutputArea-output audio')
).map(element => element.currentSrc || element.src).filter(Boolean)"""
IMAGES = "() => document.querySelectorAll('.jp-OutputArea-output img').length"


@pytest.mark.timeout(300)
def test_no_image_of_a_hostile_result_runs_script_in_the_notebooks_origin(tmp_path: Path) -> None:
    from playwright.sync_api import Error as PlaywrightError

    with browsed(tmp_path, {NOTEBOOK: CELLS}, "jupyterlab-svg") as lab:
        page, context = lab.page, lab.context
        outputs = lab.run_all(NOTEBOOK)
        outputs.filter(has_text=READY).wait_for(timeout=180 * SECONDS)
        outputs.get_by_role("button", name="Reject").wait_for(timeout=60 * SECONDS)  # the question form
        # "Read it" on every link: what it reads is one more picture on the page.
        buttons = outputs.get_by_role("button", name="Read it")
        buttons.first.wait_for(timeout=60 * SECONDS)
        before = page.evaluate(IMAGES)
        for index in range(buttons.count()):
            buttons.nth(index).scroll_into_view_if_needed()
            buttons.nth(index).click()
        page.wait_for_function(f"() => ({IMAGES})() >= {before + buttons.count()}", timeout=60 * SECONDS)
        page.wait_for_function(
            "() => Array.from(document.images).every(image => image.complete)", timeout=60 * SECONDS
        )
        sources = page.evaluate(SOURCES)
        assert len(sources) >= 10, sources  # every view path put its pictures on the page
        # What a person can do with any picture: open it in a tab of its own.
        for source in dict.fromkeys(sources):
            tab = context.new_page()
            try:
                tab.goto(source, wait_until="load", timeout=30 * SECONDS)
            except PlaywrightError:
                pass  # a browser that refuses to open it runs nothing either
            finally:
                tab.close()
        assert page.evaluate(f"() => localStorage.getItem({MARK!r})") is None, (
            "an SVG's script ran in the notebook's origin"
        )
        lab.screenshot()
