"""`scripts/lab`'s first start, as a newcomer meets it: chapter 00 opens and runs, and nothing alarms.

JupyterLab starts as `scripts/lab` starts it (`scripts/_lab.py`, once .venv is ready), with an empty
Jupyter home, as on a new machine, and no browser to open. The test opens the URL the terminal
printed, runs chapter 00 top to bottom, then reads the page (no "official Jupyter news?" question)
and the terminal (no warning, error or traceback: nothing a newcomer would take for a fault).

The terminal is watched for over two minutes, past four of the server's websocket pings, while a
kernel websocket of its own stays open beside the page's: the connection a notebook holds must
never be closed under a person at work.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser.lab import ARTIFACTS, KERNEL_IDLE, ROOT, SECONDS, base_of, chromium, jupyterlab

pytestmark = pytest.mark.browser

CHAPTER = "ko/00_getting_started.ipynb"
ALARMING = re.compile(r"^\[[WEC] |WARNING|ERROR|Traceback|Warning:|Error:|not trusted")
NEWS = "@jupyterlab/apputils-extension:notification"
# The lesson is run, not edited: nothing may write it back into the repository.
NO_AUTOSAVE = {"@jupyterlab/docmanager-extension:plugin": {"autosave": False}}
UNRUN_CELLS = """() => window.jupyterapp.shell.currentWidget.content.widgets
    .filter(cell => cell.model.type === 'code' && cell.model.executionCount === null).length"""


WATCHED = 130.0
"""Seconds the terminal and a kernel websocket are watched: four pings of 30 s and then some."""


class KernelSocket:
    """A kernel's websocket held open, as a notebook page holds one, answering the server's pings."""

    def __init__(self, url: str) -> None:
        import urllib.request

        import websocket

        base = base_of(url)
        self.token = parse_qs(urlsplit(url).query)["token"][0]
        headers = {"Authorization": f"token {self.token}"}
        made = urllib.request.Request(f"{base}/api/kernels", data=b"{}", method="POST", headers=headers)
        with urllib.request.urlopen(made, timeout=60) as answer:
            kernel = json.load(answer)["id"]
        self.opened = time.monotonic()
        self.socket = websocket.create_connection(
            f"ws{base[4:]}/api/kernels/{kernel}/channels?session_id={uuid.uuid4().hex}",
            header=[f"Authorization: token {self.token}"],
            timeout=5,
        )
        self.closed_after: float | None = None
        self._stop = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        import websocket

        while not self._stop.is_set():
            try:
                self.socket.recv()  # answers a ping with a pong, as a browser does
            except websocket.WebSocketTimeoutException:
                continue
            except (websocket.WebSocketException, OSError):
                self.closed_after = time.monotonic() - self.opened
                return

    def hold_until(self, seconds: float) -> None:
        """Keep reading until `seconds` after it opened (a soak of fixed length, not a wait for an event)."""
        self._reader.join(timeout=max(0.0, self.opened + seconds - time.monotonic()))

    def close(self) -> None:
        self._stop.set()
        self._reader.join(timeout=10)
        self.socket.close()


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


@pytest.mark.timeout(480)
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
        held = KernelSocket(url)
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
            held.hold_until(WATCHED)
            assert held.closed_after is None, (
                f"the kernel websocket was closed after {held.closed_after:.1f} s"
            )
            log = list(lab.log)  # before stopping, which logs its own lines
        except BaseException:
            page.screenshot(path=ARTIFACTS / "first-start-failure.png")
            print(lab.tail(), file=sys.stderr)
            raise
        finally:
            held.close()
            browser.close()
    assert alarming(log) == [], "".join(log)
    assert lesson.read_bytes() == before
