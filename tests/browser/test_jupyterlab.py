"""One real-browser test: JupyterLab in Debian's headless chromium, a person clicking Approve.

A notebook serves a destructive tool; an outside SDK client calls it; the test clicks Approve in the
page, as a person would, and the client gets the tool's result. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import queue
import re
import subprocess
import sys
import textwrap
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import nbformat
import pytest

from tests.conftest import connect

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"  # Debian's; Playwright never downloads a browser here
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
NOTEBOOK = "approve.ipynb"
READY = "server.json written"
SECONDS = 1000  # Playwright timeouts are in milliseconds

CELLS = [
    "%load_ext mcp_notebook",
    '''
    from mcp_notebook import tool

    @tool(destructive=True)
    def wipe(table: str) -> str:
        """Delete every row of a table."""
        return f"wiped {table}"
    ''',
    "srv = %mcp_serve",
    # Written then renamed, so the test never reads half a file; the token is not printed.
    f"""
    import json, os
    with open("server.json.tmp", "w") as f:
        json.dump({{"url": srv.url, "token": srv.token}}, f)
    os.replace("server.json.tmp", "server.json")
    print({READY!r})
    """,
]


def write_notebook(folder: Path) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell(textwrap.dedent(code).strip()) for code in CELLS]
    nbformat.write(notebook, folder / NOTEBOOK)


class JupyterLab:
    """`jupyter lab` as a subprocess on a port the OS picks; its log is kept for failure messages."""

    def __init__(self, root: Path) -> None:
        home = root / ".jupyter-home"
        # No "official Jupyter news?" toast over the panel, and no request for news or updates.
        notification = home / "settings" / "@jupyterlab" / "apputils-extension"
        notification.mkdir(parents=True)
        (notification / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False})
        )
        env = {
            **os.environ,
            # Panel strings in English whatever the machine's locale; user settings kept out.
            "MCP_NOTEBOOK_LANG": "en",
            "JUPYTER_CONFIG_DIR": str(home / "config"),
            "JUPYTER_DATA_DIR": str(home / "data"),
            "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        }
        command = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ip=127.0.0.1",
            "--port=0",
            "--ServerApp.port_retries=0",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            "--ServerApp.disable_check_xsrf=True",
            "--LabApp.expose_app_in_browser=True",
            f"--ServerApp.root_dir={root}",
        ]
        if os.geteuid() == 0:
            command.append("--allow-root")
        self.process = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.log: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line)
            self._lines.put(line)
        self._lines.put(None)

    def wait_for_url(self, timeout: float = 60) -> str:
        """The base URL from the log line after "is running at", once the server listens."""
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(f"JupyterLab did not start within {timeout} s:\n{self.tail()}") from None
            if line is None:
                raise RuntimeError(f"JupyterLab exited with {self.process.wait()}:\n{self.tail()}")
            found = re.search(r"(http://127\.0\.0\.1:\d+)/lab", line)
            if found:
                return found.group(1)

    def tail(self, lines: int = 40) -> str:
        return "".join(self.log[-lines:])

    def delete_sessions(self, base: str) -> None:
        """Shut the notebook's kernel down through the server, as closing it in the UI would."""
        with urllib.request.urlopen(f"{base}/api/sessions", timeout=10) as answer:
            sessions = json.load(answer)
        for session in sessions:
            request = urllib.request.Request(f"{base}/api/sessions/{session['id']}", method="DELETE")
            with urllib.request.urlopen(request, timeout=30):
                pass

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self._reader.join(timeout=10)
        assert self.process.stderr is not None
        self.process.stderr.close()


@contextlib.contextmanager
def jupyterlab(root: Path) -> Iterator[tuple[JupyterLab, str]]:
    lab = JupyterLab(root)
    try:
        base = lab.wait_for_url()
        try:
            yield lab, base
        finally:
            with contextlib.suppress(OSError):  # a server already gone must not hide the failure
                lab.delete_sessions(base)
    finally:
        lab.stop()


def outside_call(remote: Any, name: str, arguments: dict[str, Any]) -> Any:
    async def main() -> Any:
        with anyio.fail_after(90):
            async with connect(remote, "auto") as client:
                return await client.call_tool(name, arguments)

    return anyio.run(main)


def read_server_json(folder: Path) -> SimpleNamespace:
    remote = json.loads((folder / "server.json").read_text())
    return SimpleNamespace(url=remote["url"], token=remote["token"])


@pytest.mark.timeout(240)
def test_a_person_approves_an_outside_call_in_jupyterlab(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    assert os.access(CHROMIUM, os.X_OK), (
        f"{CHROMIUM} is missing: run scripts/check, or as root: "
        "apt-get install -y --no-install-recommends chromium fonts-noto-cjk"
    )
    ARTIFACTS.mkdir(exist_ok=True)
    write_notebook(tmp_path)
    # Exits run bottom up: the browser closes, then JupyterLab stops (ending the kernel, so a call
    # still waiting fails at once), then the client's thread is joined.
    with (
        concurrent.futures.ThreadPoolExecutor(1) as pool,
        jupyterlab(tmp_path) as (lab, base),
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
            ],
        )
        page = browser.new_page(viewport={"width": 1280, "height": 960})
        try:
            page.goto(f"{base}/lab/tree/{NOTEBOOK}?reset", timeout=60 * SECONDS)
            page.wait_for_function(
                "() => window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel?.status"
                " === 'idle'",
                timeout=90 * SECONDS,
            )
            # Braces: return at once instead of awaiting every cell.
            page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
            outputs = page.locator(".jp-OutputArea-output")  # the editors hold the same words as source
            outputs.filter(has_text=READY).wait_for(timeout=90 * SECONDS)
            remote = read_server_json(tmp_path)

            pending = pool.submit(outside_call, remote, "wipe", {"table": "매출"})
            approve = outputs.get_by_role("button", name="Approve", exact=True)
            approve.wait_for(timeout=60 * SECONDS)
            approve.scroll_into_view_if_needed()
            prompt = outputs.filter(has_text="wants to run the tool")
            assert "매출" in prompt.inner_text()  # the full arguments are shown before anything runs
            prompt.get_by_text(re.compile(r"^\d+ s left$")).wait_for(timeout=30 * SECONDS)  # the countdown
            page.screenshot(path=ARTIFACTS / "jupyterlab-approval-before.png")
            approve.click()

            result = pending.result(60)
            assert result.is_error is False, result.content
            assert result.content[0].text == "wiped 매출"
            approve.wait_for(state="detached", timeout=30 * SECONDS)  # answered prompts leave the panel
            outputs.get_by_text("Activity", exact=True).click()
            outputs.get_by_text("approved").wait_for(timeout=30 * SECONDS)
            # Each row of the log opens on the JSON-RPC exchange, both ways, as the server saw it.
            row = outputs.locator("details.mcp-activity-row").filter(has_text="wipe").first
            row.locator("summary").click()
            row.get_by_text('"method": "tools/call"').wait_for(timeout=30 * SECONDS)
            assert '"text": "wiped 매출"' in row.inner_text()
            page.screenshot(path=ARTIFACTS / "jupyterlab-approval-after.png")
        except BaseException:
            page.screenshot(path=ARTIFACTS / "jupyterlab-approval-failure.png")
            print(lab.tail(), file=sys.stderr)
            raise
        finally:
            browser.close()
