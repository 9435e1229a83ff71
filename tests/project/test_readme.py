"""README.md's examples, run as a reader runs them; the showcase tools lint clean.

The `python` blocks run in order in one real kernel, as cells of one notebook: each must finish
without an error and without a word on stderr. Every tool they define, and every tool the
quickstart notebook defines, must pass the linter with no finding at all, so the first lint report a
newcomer reads is about their own code. The shell commands run for real against a notebook made of
the tour's cell (README says `analysis.ipynb` is such a notebook), with the token in
`MCP_NOTEBOOK_TOKEN` as README sets it, and the README's port swapped for a free one.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import nbformat
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests import readme
from tests.kernel import Kernel, Outputs

pytestmark = pytest.mark.kernel

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "notebooks" / "quickstart.ipynb"
BIN = Path(sys.executable).parent  # where `pip install` put the `mcp-notebook` command

# In the kernel, before anything runs: every tool that `@tool` defines is linted as it is defined
# (a tool redefined later is still checked), all severities kept.
RECORD_LINT = """
from mcp_notebook import lint as _readme_lint
from mcp_notebook.core._catalogue import DEFINE_HOOKS as _readme_hooks, default_catalogue as _readme_catalogue
_readme_defined = []
_readme_findings = []
def _readme_record(entry, catalogue):
    _readme_defined.append(entry.name)
    _readme_findings.extend(str(f) for f in _readme_lint(entry, among=catalogue.tools()))
_readme_hooks.append(_readme_record)
"""
# After each cell: the whole catalogue too, so a tool defined with `lint=False` is not missed.
LINT_CATALOGUE = "_readme_findings.extend(str(f) for f in _readme_lint(_readme_catalogue))"


def stderr_of(outputs: Outputs) -> str:
    return "".join(
        m["content"]["text"]
        for m in outputs.messages
        if m["msg_type"] == "stream" and m["content"]["name"] == "stderr"
    )


class LintedRun:
    """Cells run one by one in a fresh kernel that lints each tool as it is defined."""

    def __init__(self, cwd: Path) -> None:
        self.kernel = Kernel(cwd=str(cwd))
        self.kernel.run(RECORD_LINT).raise_for_error()

    def run(self, code: str) -> Outputs:
        outputs = self.kernel.run(code, timeout=120)
        self.kernel.run(LINT_CATALOGUE).raise_for_error()
        return outputs

    def defined(self) -> list[str]:
        return list(self.kernel.json("_readme_defined"))

    def findings(self) -> list[str]:
        return sorted(set(self.kernel.json("_readme_findings")))

    def close(self) -> None:
        self.kernel.run("import mcp_notebook; mcp_notebook.stop()")
        self.kernel.shutdown()


@pytest.fixture(scope="module")
def readme_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LintedRun, list[Any]]]:
    """Every `python` block of README.md, in order, as the cells of one notebook."""
    run = LintedRun(tmp_path_factory.mktemp("readme"))
    try:
        yield run, [(block, run.run(block.code)) for block in readme.blocks("python")]
    finally:
        run.close()


def test_every_python_block_runs_in_order_without_errors_or_stderr(readme_run: Any) -> None:
    _, ran = readme_run
    assert len(ran) >= 4, "README.md lost its python blocks, or this test lost them"
    for block, outputs in ran:
        assert outputs.error is None, f"{block} failed:\n{outputs.text}"
        assert stderr_of(outputs) == "", f"{block} wrote to stderr:\n{stderr_of(outputs)}"
    tour = next(outputs for block, outputs in ran if block.section == readme.TOUR)
    assert '"city": "Seoul"' in tour.text and '"temperature": 23' in tour.text  # the %mcp_call result
    check = ran[-1][1]
    assert "✔ ok: Connected to" in check.text, check.text  # srv.check(): a client can connect


def test_every_tool_in_the_readme_passes_the_linter_without_a_finding(readme_run: Any) -> None:
    run, _ = readme_run
    assert {"forecast", "rename_project"} <= set(run.defined())
    assert run.findings() == []


def test_every_tool_in_the_quickstart_passes_the_linter_without_a_finding(tmp_path: Path) -> None:
    notebook = nbformat.read(QUICKSTART, as_version=4)
    run = LintedRun(QUICKSTART.parent)
    try:
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            outputs = run.run(cell.source)
            if "raises-exception" not in cell.metadata.get("tags", []):
                assert outputs.error is None, f"quickstart cell failed:\n{cell.source}\n{outputs.text}"
        assert run.defined().count("forecast") == 2  # defined, then redefined: both are checked
        assert run.findings() == []
    finally:
        run.close()


# -- the shell examples ------------------------------------------------------------------------

COVERED_ELSEWHERE = {
    ("scripts/lab",): "tests/browser/test_first_start.py starts JupyterLab as scripts/lab does",
    ("scripts/check",): "the test suite itself",
    ("npx", "@modelcontextprotocol/inspector"): "tests/browser/test_five_minutes.py runs it as the tour says",
}
README_PORT = "8765"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Shell:
    """Runs README's commands in one folder with one environment, as a person's terminal would."""

    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        self.port = str(port)
        path = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
        self.env = {**os.environ, "PATH": path, "MCP_NOTEBOOK_LANG": "en"}
        self.env.pop("MCP_NOTEBOOK_TOKEN", None)  # README's export sets it
        self.served: subprocess.Popen[str] | None = None
        self.url = ""

    def words(self, command: list[str]) -> list[str]:
        return [word.replace(README_PORT, self.port) for word in command]

    def export(self, line: str) -> None:
        name = line.split()[1].partition("=")[0]
        done = subprocess.run(
            ["bash", "-c", f'{line}\nprintf %s "${name}"'], env=self.env, capture_output=True, text=True
        )
        assert done.returncode == 0 and done.stdout, done.stderr
        self.env[name] = done.stdout

    def run(self, command: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.words(command), cwd=self.folder, env=self.env, capture_output=True, text=True, timeout=300
        )

    def serve(self, command: list[str]) -> str:
        with (self.folder / "serve.stderr").open("w") as errors:  # the child keeps its own copy
            self.served = subprocess.Popen(
                self.words(command),
                cwd=self.folder,
                env=self.env,
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
            )
        assert self.served.stdout is not None
        self.url = self.served.stdout.readline().strip()  # its one line on stdout, once every cell ran
        return self.url

    def stdio_call(self, command: list[str]) -> Any:
        words = self.words(command)
        params = StdioServerParameters(command=words[0], args=words[1:], env=self.env, cwd=str(self.folder))

        async def main() -> Any:
            with (self.folder / "stdio.stderr").open("a") as errlog, anyio.fail_after(180):
                async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                    assert [t.name for t in (await client.list_tools()).tools] == ["forecast"]
                    return (await client.call_tool("forecast", {"city": "Seoul"})).structured_content

        return anyio.run(main)

    def stop(self) -> None:
        if self.served is None:
            return
        if self.served.poll() is None:
            self.served.terminate()
        assert self.served.wait(timeout=60) == 0  # Ctrl-C or SIGTERM ends it cleanly
        assert self.served.stdout is not None
        self.served.stdout.close()


def write_analysis_notebook(folder: Path) -> None:
    """`analysis.ipynb` as README describes it: the tour's cell, saved as a notebook."""
    (tour,) = readme.blocks("python", section=readme.TOUR)
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell(tour.code)]
    nbformat.write(notebook, folder / "analysis.ipynb")


@pytest.mark.timeout(600)
def test_the_shell_examples_run_against_a_served_notebook(tmp_path: Path) -> None:
    write_analysis_notebook(tmp_path)
    shell = Shell(tmp_path, free_port())
    weather = {"city": "Seoul", "temperature": 23, "unit": "C"}
    ran: set[str] = set()
    try:
        for block in readme.blocks("sh"):
            for line, command in readme.commands(block):
                if any(tuple(command[: len(key)]) == key for key in COVERED_ELSEWHERE):
                    continue
                if command[0] == "export":
                    shell.export(line)
                    continue
                assert command[0] == "mcp-notebook", f"{block} shows a command this test does not run: {line}"
                sub = command[1]
                ran.add(f"{sub} --stdio" if "--stdio" in command else sub)
                if sub == "serve" and "--stdio" in command:
                    assert shell.stdio_call(command) == weather
                elif sub == "serve":
                    url = shell.serve(command)
                    assert url == f"http://127.0.0.1:{shell.port}/mcp", (
                        tmp_path / "serve.stderr"
                    ).read_text()
                elif sub == "bridge":
                    assert shell.stdio_call(command) == weather
                elif sub == "config":
                    done = shell.run(command)
                    assert done.returncode == 0, done.stderr
                    entry = json.loads(done.stdout)["mcpServers"]["notebook"]
                    token = shell.env["MCP_NOTEBOOK_TOKEN"]
                    assert entry == {"url": shell.url, "headers": {"Authorization": f"Bearer {token}"}}
                elif sub == "check":
                    done = shell.run(command)
                    assert done.returncode == 0, done.stdout + done.stderr
                elif sub == "lint":
                    done = shell.run(command)
                    assert done.returncode == 0, done.stdout + done.stderr
                    assert done.stdout.splitlines() == [
                        "analysis.ipynb: 1 tools checked: 0 errors, 0 warnings, 0 notes."
                    ]
                else:
                    pytest.fail(f"{block} shows `mcp-notebook {sub}`, which this test does not run yet")
    finally:
        shell.stop()
    assert ran == {"serve", "serve --stdio", "bridge", "config", "check", "lint"}
    assert "Traceback" not in (tmp_path / "serve.stderr").read_text()
