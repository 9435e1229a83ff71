"""JupyterLab as `scripts/lab` starts it, Notebook 7 with the same settings, and Debian's headless
chromium, for the real-browser tests.

JupyterLab runs through `scripts/_lab.py` (what `scripts/lab` runs once .venv is ready), so every
browser test sees the project's settings (no news toast, kernels over IPC, ...). Notebook 7, the
other front end a person may open, is started with those settings too (`scripts/jupyter/` first on
JUPYTER_CONFIG_PATH, CurveZMQ keys for kernels). Each gets a home of its own: empty Jupyter config,
data, runtime, settings and workspace folders, as on a new machine, and no display, so no browser is
opened beside the one the test drives. This package's server extension is enabled in both as pip
installs it, by the environment's own `etc/jupyter`.
"""

from __future__ import annotations

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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "scripts" / "_lab.py"
CHROMIUM = "/usr/bin/chromium"  # Debian's; Playwright never downloads a browser here
ARTIFACTS = ROOT / "test-artifacts"
SECONDS = 1000  # Playwright timeouts are in milliseconds
# Without these there is no browser to open (webbrowser finds none), as on a server or in a container.
NO_BROWSER = ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER", "TERM")
NO_TOKEN = (
    "--IdentityProvider.token=",
    "--ServerApp.password=",
    "--ServerApp.disable_check_xsrf=True",
)
"""Options for tests that open pages by path rather than through the printed URL with its token."""


class JupyterLab:
    """`scripts/_lab.py` as a subprocess on a port the OS picks; its terminal output is kept."""

    NAME = "JupyterLab"
    URL = re.compile(r"http://127\.0\.0\.1:\d+/lab\S*")
    """The URL the server prints for people to open."""
    CONFIG_PATH: Path | None = None
    """JUPYTER_CONFIG_PATH for the server, if the command does not set it (scripts/_lab.py does)."""

    def __init__(self, home: Path, *options: str, user_settings: dict[str, Any] | None = None) -> None:
        settings = home / "settings"
        for plugin, values in (user_settings or {}).items():
            package, _, name = plugin.partition(":")
            folder = settings / package
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{name}.jupyterlab-settings").write_text(json.dumps(values))
        env = {key: value for key, value in os.environ.items() if key not in NO_BROWSER}
        env.update(
            {
                # Panel strings in English whatever the machine's locale; the user's own settings kept out.
                "MCP_NOTEBOOK_LANG": "en",
                "JUPYTER_CONFIG_DIR": str(home / "config"),
                "JUPYTER_DATA_DIR": str(home / "data"),
                "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
                "JUPYTERLAB_SETTINGS_DIR": str(settings),
                "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
            }
        )
        env.pop("JUPYTER_CONFIG_PATH", None)
        if self.CONFIG_PATH is not None:
            env["JUPYTER_CONFIG_PATH"] = str(self.CONFIG_PATH)
        self.process = subprocess.Popen(
            self.command(options),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # the terminal a person would read: both streams
            text=True,
        )
        self.log: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def command(self, options: tuple[str, ...]) -> list[str]:
        return [
            sys.executable,
            str(LAB),
            "--port=0",
            "--ServerApp.port_retries=0",
            "--LabApp.expose_app_in_browser=True",  # window.jupyterapp, to wait for a kernel
            *options,
        ]

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.log.append(line)
            self._lines.put(line)
        self._lines.put(None)

    def wait_for_url(self, timeout: float = 60) -> str:
        """The URL the server prints for people to open (default page, token included), once it listens."""
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(f"{self.NAME} did not start within {timeout} s:\n{self.tail()}") from None
            if line is None:
                raise RuntimeError(f"{self.NAME} exited with {self.process.wait()}:\n{self.tail()}")
            found = self.URL.search(line)
            if found:
                return found.group(0)

    def tail(self, lines: int = 40) -> str:
        return "".join(self.log[-lines:])

    def delete_sessions(self, url: str) -> None:
        """Shut the notebooks' kernels down through the server, as closing them in the UI would."""
        base = base_of(url)
        token = parse_qs(urlsplit(url).query).get("token", [""])[0]
        headers = {"Authorization": f"token {token}"} if token else {}
        listing = urllib.request.Request(f"{base}/api/sessions", headers=headers)
        with urllib.request.urlopen(listing, timeout=10) as answer:
            sessions = json.load(answer)
        for session in sessions:
            request = urllib.request.Request(
                f"{base}/api/sessions/{session['id']}", method="DELETE", headers=headers
            )
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
        assert self.process.stdout is not None
        self.process.stdout.close()


class Notebook7(JupyterLab):
    """Notebook 7 (`python -m notebook`) with the settings `scripts/_lab.py` gives JupyterLab.

    Its pages are JupyterLab's components (the same labextensions, anywidget's among them) in a
    one-document shell: the default page is the file browser at /tree, a notebook opens at
    /notebooks/<path>.
    """

    NAME = "Notebook 7"
    URL = re.compile(r"http://127\.0\.0\.1:\d+/tree\S*")
    CONFIG_PATH = ROOT / "scripts" / "jupyter"  # the project's server settings, as scripts/_lab.py sets

    def command(self, options: tuple[str, ...]) -> list[str]:
        import zmq

        # As scripts/_lab.py: kernels with CurveZMQ keys, root allowed (containers), no browser tried.
        defaults = ["--no-browser"]
        if zmq.has("curve"):
            defaults.append("--KernelManager.transport_encryption=auto")
        if os.geteuid() == 0:
            defaults.append("--allow-root")
        return [
            sys.executable,
            "-m",
            "notebook",
            "--port=0",
            "--ServerApp.port_retries=0",
            "--JupyterNotebookApp.expose_app_in_browser=True",  # window.jupyterapp, as in JupyterLab
            *defaults,
            *options,
        ]


def base_of(url: str) -> str:
    found = re.match(r"http://127\.0\.0\.1:\d+", url)
    assert found is not None, url
    return found.group(0)


@contextlib.contextmanager
def jupyterlab(
    home: Path, *options: str, user_settings: dict[str, Any] | None = None
) -> Iterator[tuple[JupyterLab, str]]:
    """A running JupyterLab and the URL it printed; stopped (kernels first) on exit."""
    with running(JupyterLab(home, *options, user_settings=user_settings)) as started:
        yield started


@contextlib.contextmanager
def notebook7(home: Path, *options: str) -> Iterator[tuple[JupyterLab, str]]:
    """A running Notebook 7 and the URL it printed; stopped (kernels first) on exit."""
    with running(Notebook7(home, *options)) as started:
        yield started


@contextlib.contextmanager
def running(lab: JupyterLab) -> Iterator[tuple[JupyterLab, str]]:
    try:
        url = lab.wait_for_url()
        try:
            yield lab, url
        finally:
            with contextlib.suppress(OSError):  # a server already gone must not hide the failure
                lab.delete_sessions(url)
    finally:
        lab.stop()


def chromium(playwright: Any) -> Any:
    assert os.access(CHROMIUM, os.X_OK), (
        f"{CHROMIUM} is missing: run scripts/check, or as root: "
        "apt-get install -y --no-install-recommends chromium fonts-noto-cjk"
    )
    return playwright.chromium.launch(
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


def write_notebook(path: Path, cells: list[str]) -> None:
    """A notebook at `path` of code `cells` (each dedented), for the Python 3 kernel."""
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell(textwrap.dedent(code).strip()) for code in cells]
    nbformat.write(notebook, path)


@dataclass
class Browsed:
    """A page of headless chromium on a running server, and what a test does with it."""

    server: JupyterLab
    base: str
    context: Any
    page: Any
    front: str
    shot: str

    def run_all(self, notebook: str) -> Any:
        """`run_all` of `notebook` in this page's front end: the output areas' locator."""
        return run_all(self.page, self.base, notebook, front=self.front)

    def screenshot(self) -> None:
        """The whole page as the test left it, in test-artifacts/."""
        self.page.screenshot(path=ARTIFACTS / f"{self.shot}.png", full_page=True)


@contextlib.contextmanager
def browsed(
    tmp_path: Path,
    notebooks: Mapping[str, list[str]],
    shot: str,
    *,
    front: str = "lab",
    **context_options: Any,
) -> Iterator[Browsed]:
    """`notebooks` (name: cells) written into `tmp_path`, JupyterLab (or Notebook 7:
    `front="notebook"`) serving that folder without a token, and a fresh page of chromium on it
    (1280 x 960 unless `context_options` say otherwise).

    A failure inside leaves `<shot>-failure.png` in test-artifacts/ and the server's terminal on
    stderr, which is most of what there is to read when a browser test fails on another machine.
    """
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    for name, cells in notebooks.items():
        write_notebook(tmp_path / name, cells)
    start = {"lab": jupyterlab, "notebook": notebook7}[front]
    with (
        start(tmp_path / "home", *NO_TOKEN, f"--ServerApp.root_dir={tmp_path}") as (server, url),
        sync_playwright() as playwright,
    ):
        browser = chromium(playwright)
        context = browser.new_context(**{"viewport": {"width": 1280, "height": 960}, **context_options})
        page = context.new_page()
        try:
            yield Browsed(server, base_of(url), context, page, front, shot)
        except BaseException:
            page.screenshot(path=ARTIFACTS / f"{shot}-failure.png")
            print(server.tail(), file=sys.stderr)
            raise
        finally:
            browser.close()


def run_all(page: Any, base: str, notebook: str, *, front: str = "lab") -> Any:
    """Open `notebook` in JupyterLab (or Notebook 7: `front="notebook"`), wait for its kernel, run
    every cell; the output areas' locator.

    The command is started inside braces so the page returns at once instead of awaiting every cell;
    the locator is the outputs, since the editors hold the same words as source. Both front ends
    expose the same application object and command, and the notebook in front as its current widget.
    """
    path = {"lab": f"/lab/tree/{notebook}?reset", "notebook": f"/notebooks/{notebook}"}[front]
    page.goto(f"{base}{path}", timeout=60 * SECONDS)
    page.wait_for_function(KERNEL_IDLE, timeout=90 * SECONDS)
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    return page.locator(".jp-OutputArea-output")


KERNEL_IDLE = (
    "() => window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel?.status === 'idle'"
)
"""True once the notebook in front has a kernel that is ready."""


def outside_call(remote: Any, name: str, arguments: dict[str, Any]) -> Any:
    from tests.conftest import connect

    async def main() -> Any:
        with anyio.fail_after(90):
            async with connect(remote, "auto") as client:
                return await client.call_tool(name, arguments)

    return anyio.run(main)


def read_server_json(folder: Path) -> SimpleNamespace:
    remote = json.loads((folder / "server.json").read_text())
    return SimpleNamespace(url=remote["url"], token=remote["token"])
