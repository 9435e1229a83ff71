"""The lessons' Mermaid diagrams are drawn in JupyterLab (4.1 and later render ```mermaid fences in
Markdown cells), not left as code: each diagram of each chapter that draws, in both languages, shows
as an SVG diagram."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.browser.lab import ARTIFACTS, ROOT, SECONDS, base_of, chromium, jupyterlab
from tests.lessons.cases import DIAGRAMS, drawn_in

pytestmark = pytest.mark.browser

# The lessons are only read here: nothing may write them back into the repository.
NO_AUTOSAVE = {"@jupyterlab/docmanager-extension:plugin": {"autosave": False}}
KINDS = {"flowchart": "flowchart", "sequenceDiagram": "sequence"}
"""How Mermaid marks each kind of diagram it draws (``aria-roledescription``: ``flowchart-v2`` ...)."""
SHOW_DIAGRAM = """([path, nth]) => {
    const widget = window.jupyterapp.shell.currentWidget;
    if (widget?.context?.path !== path || !widget.content.widgets.length) return false;
    const notebook = widget.content;
    const drawing = notebook.widgets
        .map((cell, index) => [cell, index])
        .filter(([cell]) => cell.model.type === 'markdown' && cell.model.sharedModel.getSource().includes('```mermaid'));
    if (drawing.length <= nth) return false;
    const index = drawing[nth][1];
    notebook.activeCellIndex = index;
    notebook.widgets[index].node.scrollIntoView({block: 'start'});
    const drawn = notebook.widgets[index].node.querySelector(
        '.jp-RenderedMarkdown img[src^="data:image/svg+xml"]');
    if (!drawn) return false;
    const kind = decodeURIComponent(drawn.src).match(/aria-roledescription="([^"]+)"/);
    return kind ? kind[1] : 'unknown';
}"""
"""Once the notebook `path` is in front, scrolls the Markdown cell of its diagram `nth` (from 0; one
diagram a cell) into view (JupyterLab draws what is on screen) and gives Mermaid's mark of the
drawing. JupyterLab shows a drawn diagram as an SVG image; a fence Mermaid cannot parse shows an
error instead, and no image."""


@pytest.mark.timeout(420)
def test_each_lesson_diagram_is_drawn_in_jupyterlab(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    notebooks = [f"{language}/{file}.ipynb" for language in ("ko", "en") for file in DIAGRAMS]
    before = {name: (ROOT / "notebooks" / name).read_bytes() for name in notebooks}
    with (
        jupyterlab(tmp_path / "home", user_settings=NO_AUTOSAVE) as (lab, url),
        sync_playwright() as playwright,
    ):
        browser = chromium(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 960})
        try:
            page.goto(url, timeout=60 * SECONDS)  # the printed URL logs the browser in
            for name in notebooks:
                page.goto(f"{base_of(url)}/lab/tree/{name}?reset", timeout=60 * SECONDS)
                for nth, (expected, _) in enumerate(drawn_in(Path(name).stem)):
                    shown = page.wait_for_function(SHOW_DIAGRAM, arg=[name, nth], timeout=60 * SECONDS)
                    kind = shown.json_value()
                    assert kind.startswith(KINDS[expected]), (name, nth, kind)
                    page.screenshot(path=ARTIFACTS / f"lesson-diagram-{name.replace('/', '-')}-{nth + 1}.png")
        except BaseException:
            page.screenshot(path=ARTIFACTS / "lesson-diagram-failure.png")
            print(lab.tail(), file=sys.stderr)
            raise
        finally:
            browser.close()
    assert {name: (ROOT / "notebooks" / name).read_bytes() for name in notebooks} == before
