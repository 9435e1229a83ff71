"""Lint the tools a notebook defines: run it in a fresh kernel, lint there, bring the findings back.

Running the notebook (rather than parsing it) sees exactly the tools ``mcp-notebook serve`` would
serve, whatever code builds them. Cells tagged ``skip-lint``, or whose first line is
``# mcp: skip``, are not run (servers, long computations, cells that need a person).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..core._errors import MCPNotebookError
from ..core._text import get_language, t
from ._lint import RULES, Finding, format_findings, summary

SKIP_TAG = "skip-lint"
_SKIP_LINE_RE = re.compile(r"#\s*mcp:\s*skip\b", re.IGNORECASE)
_MARKER = "__mcp_notebook_lint__:"
# The last cell: lint the catalogue that @tool filled, in the caller's language, and print one marked line.
_PROBE = """\
import json as _mcp_lint_json
from mcp_notebook.linter import _lint as _mcp_lint
from mcp_notebook.core import _text as _mcp_lint_text
from mcp_notebook.core._catalogue import default_catalogue as _mcp_lint_catalogue
_mcp_lint_text.set_language({language!r})
print({marker!r} + _mcp_lint_json.dumps({{
    "tools": len(_mcp_lint_catalogue),
    "findings": [f.to_json() for f in _mcp_lint.lint(_mcp_lint_catalogue, ignore={ignore!r})],
}}))
"""


class NotebookLintError(MCPNotebookError):
    """The notebook could not be run to the end, so its tools could not be linted."""


def lint_notebook(
    path: str | Path,
    *,
    ignore: Iterable[str] = (),
    timeout: float = 600,
    kernel_name: str | None = None,
) -> list[Finding]:
    """Run the notebook at `path` in a fresh kernel and lint the tools it defines.

    Parameters
    ----------
    path:
        The ``.ipynb`` file. It runs in its own folder, as in Jupyter.
    ignore:
        Rule ids or names to skip (see `lint`).
    timeout:
        Seconds each cell may run.
    kernel_name:
        The kernel to use (default: the notebook's own, else ``python3``). It must have
        mcp_notebook installed.

    Raises
    ------
    NotebookLintError
        A cell failed, or the kernel sent no lint report.
    """
    findings, _ = run_lint(path, ignore=ignore, timeout=timeout, kernel_name=kernel_name)
    return findings


def run_lint(
    path: str | Path,
    *,
    ignore: Iterable[str] = (),
    timeout: float = 600,
    kernel_name: str | None = None,
) -> tuple[list[Finding], int]:
    """`lint_notebook`, plus how many tools the notebook defined."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    path = Path(path)
    # nbformat has no type hints; these two calls are the only ones made.
    notebook = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    kept = [(number, cell) for number, cell in enumerate(notebook.cells, 1) if _runs(cell)]
    probe = _PROBE.format(language=get_language(), marker=_MARKER, ignore=sorted(ignore))
    notebook.cells = [cell for _, cell in kept] + [nbformat.v4.new_code_cell(probe)]  # type: ignore[no-untyped-call]
    kernel = kernel_name or notebook.metadata.get("kernelspec", {}).get("name") or "python3"
    client = NotebookClient(
        notebook, timeout=timeout, kernel_name=kernel, resources={"metadata": {"path": str(path.parent)}}
    )
    try:
        client.execute()
    except CellExecutionError as exc:
        numbers = [number for number, _ in kept] + [len(kept) + 1]
        failed = next(
            (n for n, cell in zip(numbers, notebook.cells, strict=True) if _has_error(cell)), numbers[-1]
        )
        error = f"{exc.ename}: {exc.evalue}"
        raise NotebookLintError(t("lint.notebook_failed", path=str(path), cell=failed, error=error)) from None
    report = _report(notebook.cells[-1])
    if report is None:
        raise NotebookLintError(t("lint.no_report", path=str(path), kernel=kernel))
    return [Finding.from_json(item) for item in report["findings"]], int(report["tools"])


def main_lint(argv: Sequence[str] | None = None) -> int:
    """``mcp-notebook lint NOTEBOOK...``: print the findings; exit 1 on errors, 2 if a notebook failed."""
    parser = argparse.ArgumentParser(
        prog="mcp-notebook lint",
        description="Run notebooks and check the MCP tools they define. Rules: "
        + ", ".join(f"{rule.id} {rule.name}" for rule in RULES.values()),
    )
    parser.add_argument("notebooks", nargs="+", metavar="NOTEBOOK", help="notebook files (.ipynb)")
    parser.add_argument("--ignore", default="", help="comma-separated rule ids or names to skip")
    parser.add_argument(
        "--fail-on",
        choices=["error", "warning", "info"],
        default="error",
        help="lowest severity that makes the exit status 1 (default: error)",
    )
    parser.add_argument("--timeout", type=float, default=600, help="seconds each cell may run")
    args = parser.parse_args(argv)
    ignore = [item.strip() for item in args.ignore.split(",") if item.strip()]
    rank = {"info": 0, "warning": 1, "error": 2}
    status = 0
    for notebook in args.notebooks:
        try:
            findings, tools = run_lint(notebook, ignore=ignore, timeout=args.timeout)
        except (NotebookLintError, OSError, ValueError) as exc:
            print(exc, file=sys.stderr)
            status = 2
            continue
        for line in format_findings(findings).splitlines():
            print(f"{notebook}: {line}")
        print(f"{notebook}: {summary(findings, tools)}")
        if status == 0 and any(rank[f.severity] >= rank[args.fail_on] for f in findings):
            status = 1
    return status


def _runs(cell: Any) -> bool:
    if cell.get("cell_type") != "code":
        return False
    if SKIP_TAG in cell.get("metadata", {}).get("tags", []):
        return False
    lines = str(cell.get("source", "")).lstrip().splitlines()
    return not (lines and _SKIP_LINE_RE.match(lines[0].strip()))


def _has_error(cell: Any) -> bool:
    return any(output.get("output_type") == "error" for output in cell.get("outputs", []))


def _report(cell: Any) -> dict[str, Any] | None:
    text = "".join(
        str(out.get("text", "")) for out in cell.get("outputs", []) if out.get("output_type") == "stream"
    )
    for line in reversed(text.splitlines()):
        if line.startswith(_MARKER):
            report: dict[str, Any] = json.loads(line[len(_MARKER) :])
            return report
    return None
