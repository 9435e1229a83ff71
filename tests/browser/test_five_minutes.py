"""A newcomer's first five minutes, in a real browser, timed: README's tour, step by step.

JupyterLab starts as `scripts/lab` starts it. The test opens the URL the terminal printed, makes a
new notebook (File → New → Notebook, Python 3), pastes the tour's cell from README.md into it and
runs it; opens the panel's "Connect an AI client" section, picks `inspector`, and runs the command
README's tour shows with the configuration file that section shows (URL and token inside, as the
panel says to save it; the section's command block holds the command); MCP Inspector's CLI (a real, independent client) calls the tool and gets its
result. A screenshot of each step and the time each
took, from starting JupyterLab on, go to test-artifacts/ (reported, never asserted).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests import readme
from tests.browser.lab import ARTIFACTS, KERNEL_IDLE, SECONDS, chromium, jupyterlab
from tests.npm import INSPECTOR, INSPECTOR_VERSION, node_command

pytestmark = pytest.mark.browser

PREFIX = "five-minutes"
# What the "Connect an AI client" section shows once it is the inspector's: the file's text, and the
# command to run, each in a read-only block of its own.
SHOWN_COMMAND = """() => [...document.querySelectorAll('.jp-OutputArea-output .mcp-connect .mcp-code pre')]
    .map(block => block.textContent).find(text => text.includes('@modelcontextprotocol/inspector'))"""
SHOWN_CONFIG = """() => [...document.querySelectorAll('.jp-OutputArea-output .mcp-connect .mcp-code pre')]
    .map(block => block.textContent).find(text => text.includes('mcpServers'))"""


class Stopwatch:
    """Seconds since JupyterLab was started, per step, with a screenshot at the end of each."""

    def __init__(self) -> None:
        self.page: Any = None
        self.start = self.last = time.monotonic()
        self.steps: list[dict[str, Any]] = []

    def done(self, step: str) -> None:
        now = time.monotonic()
        shot = f"{PREFIX}-{len(self.steps) + 1}-{step.replace(' ', '-')}.png"
        self.page.screenshot(path=ARTIFACTS / shot)
        self.steps.append({"step": step, "seconds": round(now - self.last, 2), "screenshot": shot})
        self.last = now

    def write(self) -> float:
        total = round(self.last - self.start, 2)
        report = {"seconds": total, "steps": self.steps}
        (ARTIFACTS / f"{PREFIX}.json").write_text(json.dumps(report, indent=2) + "\n")
        return total


def tour_command() -> list[str]:
    """The outside call as README's tour shows it (with the placeholders URL and TOKEN)."""
    (block,) = readme.blocks("sh", section=readme.TOUR)
    ((_, words),) = readme.commands(block)
    return words


def shown_command(command: str) -> list[str]:
    """The words of the command the section shows."""
    return shlex.split(command)


def check_against(words: list[str], shown: list[str]) -> None:
    """README says: the panel's command, with tools/call instead of tools/list."""
    assert words[: words.index("--method")] == shown[: shown.index("--method")], (words, shown)
    assert shown[shown.index("--method") :] == ["--method", "tools/list"], shown


@pytest.mark.timeout(420)
def test_the_readme_tour_in_jupyterlab_ends_with_an_outside_client_calling_the_tool(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    for old in ARTIFACTS.glob(f"{PREFIX}*"):  # a report of this run only
        old.unlink()
    (tour,) = readme.blocks("python", section=readme.TOUR)
    words = tour_command()
    assert words[:2] == ["npx", INSPECTOR], words
    inspector = node_command(INSPECTOR, INSPECTOR_VERSION, "mcp-inspector")  # npx, without the download
    work = tmp_path / "work"
    work.mkdir()
    # A new notebook goes where the file browser is: an empty folder here, not the lessons.
    options = (f"--ServerApp.root_dir={work}", "--LabApp.default_url=/lab")
    clock = Stopwatch()
    with jupyterlab(tmp_path / "home", *options) as (lab, url), sync_playwright() as playwright:
        browser = chromium(playwright)
        page = clock.page = browser.new_page(viewport={"width": 1280, "height": 960})
        try:
            page.goto(url, timeout=60 * SECONDS)  # the URL the terminal printed, token included
            page.get_by_role("menuitem", name="File").wait_for(timeout=60 * SECONDS)
            clock.done("jupyterlab open")

            page.get_by_role("menuitem", name="File").click()
            menu = page.locator(".lm-Menu")
            menu.get_by_text("New", exact=True).hover()
            menu.get_by_text("Notebook", exact=True).click()
            page.locator(".jp-Dialog-button", has_text="Select").click()  # kernel: Python 3, as offered
            page.wait_for_function(KERNEL_IDLE, timeout=90 * SECONDS)
            clock.done("new notebook")

            page.locator(".jp-Notebook .jp-Cell .cm-content").first.click()
            page.keyboard.insert_text(tour.code)  # as pasting it does
            page.keyboard.press("Shift+Enter")
            outputs = page.locator(".jp-OutputArea-output")  # the editor holds the same words as source
            outputs.filter(has_text="Tool result: forecast").wait_for(timeout=120 * SECONDS)
            assert '"temperature": 23' in outputs.filter(has_text="Tool result: forecast").inner_text()
            clock.done("tour ran")

            outputs.get_by_text("Connect an AI client", exact=True).click()
            outputs.get_by_label("Client").select_option("inspector")
            command = page.wait_for_function(SHOWN_COMMAND, timeout=30 * SECONDS).json_value()
            config = json.loads(page.wait_for_function(SHOWN_CONFIG, timeout=30 * SECONDS).json_value())
            clock.done("connect section")

            # Saved where the panel says, as a person would; the token is in the file only.
            check_against(words, shown_command(command))
            saved = work / words[words.index("--config") + 1]
            saved.write_text(json.dumps(config))
            saved.chmod(0o600)
            assert config["mcpServers"]["notebook"]["headers"]["Authorization"].startswith("Bearer ")
            done = subprocess.run(
                [*inspector, *words[2:]],
                cwd=work,
                capture_output=True,
                text=True,
                timeout=120,
                env={**os.environ, "HOME": str(tmp_path)},  # the inspector keeps a catalog in ~
            )
            assert done.returncode == 0, done.stdout + done.stderr
            result = json.loads(done.stdout)
            assert result["isError"] is False, result
            # README promises exactly this answer.
            expected = '"structuredContent": {"city": "Seoul", "temperature": 23, "unit": "C"}'
            assert expected in readme.README.read_text(encoding="utf-8")
            assert result["structuredContent"] == {"city": "Seoul", "temperature": 23, "unit": "C"}
            # The panel's activity log shows the outside client's call.
            outputs.get_by_text("Activity", exact=True).click()
            rows = outputs.locator("details.mcp-activity-row").filter(has_text="inspector")
            rows.filter(has_text="tools/call").first.wait_for(timeout=30 * SECONDS)
            clock.done("outside call")
        except BaseException:
            page.screenshot(path=ARTIFACTS / f"{PREFIX}-failure.png")
            print(lab.tail(), file=sys.stderr)
            raise
        finally:
            browser.close()
    total = clock.write()
    print(f"README's tour in JupyterLab, to an outside client's result: {total} s", file=sys.stderr)
