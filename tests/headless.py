"""``mcp-notebook serve`` as a subprocess for tests: a notebook written to disk, the command's URL line
and its stderr, and what an outside client needs to reach it."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat

TOKEN = "headless-test-token"


CELLS: list[tuple[str, list[str]]] = [
    (
        "%load_ext mcp_notebook\nfrom mcp_notebook import prompt, resource, tool\n"
        "NOTE = open('note.txt').read().strip()\nprint('cell output goes to stderr')",
        [],
    ),
    (
        "@tool(read_only=True)\n"
        "def describe(city: str, days: int = 1) -> dict:\n"
        '    """Describe a city for some days."""\n'
        "    return {'city': city, 'days': days, 'note': NOTE}",
        [],
    ),
    (
        '@resource(\'notes://today\')\ndef today() -> str:\n    """What happened today."""\n    return NOTE',
        [],
    ),
    (
        "@prompt\n"
        "def review(code: str) -> str:\n"
        '    """Ask for a code review."""\n'
        "    return f'Review this code:\\n{code}'",
        [],
    ),
    ("raise RuntimeError('an interactive-only cell: must not run headless')", ["mcp-skip"]),
    ("# mcp: skip\nraise RuntimeError('must not run headless either')", []),
    ("1 / 0  # a lesson cell that fails on purpose", ["raises-exception"]),
    ("srv = %mcp_serve\n%mcp_call describe city=Seoul", []),
]


def write_notebook(folder: Path, cells: list[tuple[str, list[str]]] = CELLS) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("# A notebook served headless")] + [
        nbformat.v4.new_code_cell(source, metadata={"tags": tags} if tags else {}) for source, tags in cells
    ]
    path = folder / "served.ipynb"
    nbformat.write(notebook, path)
    (folder / "note.txt").write_text("read from the notebook's folder\n")
    return path


class Headless:
    """``mcp-notebook serve`` as a subprocess: its URL line, its stderr in a file."""

    def __init__(
        self,
        notebook: Path,
        *options: str,
        env: dict[str, str] | None = None,
        stdin: int = subprocess.DEVNULL,
        stderr: int | None = None,
    ) -> None:
        self.stderr_path = notebook.parent / "serve.stderr"
        self._stderr = self.stderr_path.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mcp_notebook.cli", "serve", str(notebook), *options],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=self._stderr if stderr is None else stderr,
            text=True,
            cwd=str(notebook.parent.parent),  # not the notebook's folder: the command must move there
            env=env,
        )
        self._lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put("")  # end of stdout

    def line(self, timeout: float = 120) -> str:
        try:
            return self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line on stdout within {timeout} s\n{self.stderr}") from None

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text()

    def stop(self, signum: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
        return self.process.wait(timeout=60)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=60)
        self._reader.join(timeout=60)  # it ends at the end of stdout
        assert self.process.stdout is not None
        self.process.stdout.close()
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        self._stderr.close()


@contextlib.contextmanager
def headless(notebook: Path, *options: str, **kwargs: Any) -> Iterator[Headless]:
    served = Headless(notebook, *options, **kwargs)
    try:
        yield served
    finally:
        served.close()


def with_token(token: str = TOKEN) -> dict[str, str]:
    """The environment of a `serve` subprocess, the token in MCP_NOTEBOOK_TOKEN (never on its command line)."""
    return {**os.environ, "MCP_NOTEBOOK_TOKEN": token}


class Remote:
    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token


WHO_CELLS: list[tuple[str, list[str]]] = [
    (
        "%load_ext mcp_notebook\nimport mcp_notebook\nfrom mcp_notebook import current_client, tool\n"
        "@tool(read_only=True)\n"
        "def whoami() -> dict:\n"
        '    """Who is calling, and which server answers."""\n'
        "    return {'client': current_client(), 'server': mcp_notebook.current_server().name}",
        [],
    ),
]
