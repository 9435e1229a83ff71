"""`scripts/lab`'s first start, as a newcomer meets it: chapter 00 opens and runs, and nothing alarms.

JupyterLab starts as `scripts/lab` starts it (`scripts/_lab.py`, once .venv is ready), with an empty
Jupyter home, as on a new machine, and no browser to open. The test opens the URL the terminal
printed, runs chapter 00 top to bottom, then reads the page (no "official Jupyter news?" question)
and the terminal (no warning, error or traceback: nothing a newcomer would take for a fault).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.browser.lab import ARTIFACTS, KERNEL_IDLE, ROOT, SECONDS, chromium, jupyterlab

pytestmark = pytest.mark.browser

CHAPTER = "ko/00_getting_started.ipynb"
ALARMING = re.compile(r"^\[[WEC] |WARNING|ERROR|Traceback|Warning:|Error:|not trusted")
NEWS = "@jupyterlab/apputils-extension:notification"
# The lesson is run, not edited: nothing may write it back into the repository.
NO_AUTOSAVE = {"@jupyterlab/docmanager-extension:plugin": {"autosave": False}}
UNRUN_CELLS = """() => window.jupyterapp.shell.currentWidget.content.widgets
    .filter(cell => cell.model.type === 'code' && cell.model.executionCount === null).length"""


def alarming(log: list[str]) -> list[str]:
    """Lines a newcomer would read as trouble. Jupyter's own banner (at level C) with the URL is not."""
    found = []
    for number, line in enumerate(log):
        following = "".join(log[number + 1 : number + 3])
        if line.startswith("[C ") and "To access the server" in following:
            continue
        if ALARMING.search(line):
            found.append(line)
    return found


@pytest.mark.timeout(420)
def test_the_first_start_opens_chapter_00_without_the_news_question_or_a_warning(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    lesson = ROOT / "notebooks" / CHAPTER
    before = lesson.read_bytes()
    with (
        jupyterlab(tmp_path / "home", user_settings=NO_AUTOSAVE) as (lab, url),
        sync_playwright() as playwright,
    ):
        assert f"/lab/tree/{CHAPTER}?token=" in url  # the printed URL opens chapter 00
        browser = chromium(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 960})
        try:
            page.goto(url, timeout=60 * SECONDS)
            page.wait_for_function(KERNEL_IDLE, timeout=90 * SECONDS)
            assert page.evaluate("() => window.jupyterapp.shell.currentWidget.context.path") == CHAPTER
            # Without braces the command's promise is awaited: it settles when every cell has run.
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_function(KERNEL_IDLE, timeout=180 * SECONDS)
            assert page.evaluate(UNRUN_CELLS) == 0  # the chapter ran to its end
            page.screenshot(path=ARTIFACTS / "first-start-chapter-00.png")

            # The default a newcomer gets, as the server gives it to the page; and no question shown.
            schema = page.evaluate(f"async () => (await fetch('/lab/api/settings/{NEWS}')).json()")["schema"]
            defaults = {key: schema["properties"][key]["default"] for key in ("fetchNews", "checkForUpdates")}
            assert defaults == {"fetchNews": "false", "checkForUpdates": False}
            toasts = page.locator(".Toastify__toast")
            assert toasts.count() == 0, toasts.all_inner_texts()
            log = list(lab.log)  # before stopping, which logs its own lines
        except BaseException:
            page.screenshot(path=ARTIFACTS / "first-start-failure.png")
            print(lab.tail(), file=sys.stderr)
            raise
        finally:
            browser.close()
    assert alarming(log) == [], "".join(log)
    assert lesson.read_bytes() == before
