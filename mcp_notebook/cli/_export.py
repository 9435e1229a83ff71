"""``mcp-notebook export NOTEBOOK.ipynb -o app.py``: a notebook's tools as a plain Python module.

The module is the notebook's code cells, in order, then ``app = asgi_app(...)``: uvicorn or
gunicorn import it and serve ``app`` without a kernel, IPython or widgets. Skipped: markdown
cells, cells tagged ``mcp-skip`` (or starting with ``# mcp: skip``), and line magics that only set
up the notebook (``%load_ext``, ``%matplotlib``, ``%mcp_tools`` ...: each left as a comment).

Everything else must be plain Python that runs the same outside a kernel. What cannot be is
reported by cell (its number and first line) with the reason and the fix, and then no file is
written, never half an app:

- a magic with an effect (``%mcp_serve``, ``%mcp_call``, ``%pip``, ``%%bash``, ...), a shell
  command (``!ls``), or ``get_ipython()``: they need IPython;
- top-level ``await`` (a kernel runs it, a module cannot);
- an import of IPython, ipykernel, ipywidgets or the package's widgets and magics;
- a call of the in-kernel server's API (``serve``, ``call``, ``list_tools`` ...): the app serves
  itself, and calls its tools from nowhere;
- a name used but defined by no exported cell (``display``, ``srv`` from a skipped
  ``srv = %mcp_serve`` cell, ...);
- a cell tagged ``raises-exception``: it fails on purpose, which would stop the app at import.
"""

from __future__ import annotations

import ast
import builtins
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from IPython.core.inputtransformer2 import TransformerManager

from ..core._text import t
from ._headless import MAY_RAISE_TAG, Cell, HeadlessError, read_cells

# Line magics that only set the notebook up: dropped from the module (kept as a comment).
SET_UP_MAGICS = frozenset(
    {
        "load_ext",
        "reload_ext",
        "unload_ext",
        "matplotlib",
        "config",
        "autoreload",
        "aimport",
        "mcp_tools",
        "mcp_status",
    }
)
_KERNEL_MODULES = ("IPython", "ipykernel", "ipywidgets", "mcp_notebook.widgets", "mcp_notebook.ipython")
_KERNEL_API = frozenset(
    {
        "serve",
        "stop",
        "current_server",
        "call",
        "read_resource",
        "get_prompt",
        "list_tools",
        "list_resources",
        "list_prompts",
        "complete",
        "load_ipython_extension",
    }
)
_EFFECT_MAGICS = {
    "mcp_serve": "export.magic_server",
    "mcp_stop": "export.magic_server",
    "mcp_call": "export.magic_client",
    "mcp_read": "export.magic_client",
    "mcp_prompt": "export.magic_client",
    "mcp_publish": "export.magic_publish",
    "pip": "export.magic_install",
    "conda": "export.magic_install",
    "mamba": "export.magic_install",
}


@dataclass(frozen=True)
class Problem:
    """Why one cell cannot be exported, and what to do."""

    cell: int
    first_line: str
    reason: str

    def __str__(self) -> str:
        return t("export.problem", cell=self.cell, first=self.first_line, reason=self.reason)


class ExportError(HeadlessError):
    """The notebook cannot be exported; `problems` says which cells and why."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = problems


def export_notebook(notebook: Path, *, name: str | None = None) -> str:
    """The text of the module for `notebook` (see the module docstring).

    Raises
    ------
    ExportError
        Some cells cannot be exported (every one is listed).
    HeadlessError
        The notebook cannot be read.
    """
    cells = read_cells(notebook)
    problems: list[Problem] = []
    parts: list[str] = []
    trees: list[tuple[Cell, ast.Module]] = []
    for cell in cells:
        if cell.skipped:
            parts.append(f"# -- cell {cell.number}: skipped (mcp-skip) --")
            continue
        source, cell_problems = _plain_source(cell)
        problems += cell_problems
        if cell_problems:
            continue
        tree = ast.parse(source)
        problems += _kernel_uses(cell, tree)
        trees.append((cell, tree))
        parts.append(f"# -- cell {cell.number} --\n{source.rstrip()}")
    problems += _undefined_names(trees)
    if problems:
        raise ExportError(sorted(problems, key=lambda problem: problem.cell))
    # The notebook's name, not a digest of where it lies: every replica, built anywhere, agrees on it.
    server_name = name or (re.sub(r"[^\w.-]+", "-", notebook.stem).strip("-") or "notebook")
    header = t("export.header", notebook=notebook.name)
    body = "\n\n".join(parts)
    return (
        f'"""{header}"""\n\n{body}\n\n'
        "# -- the app: settings from MCP_NOTEBOOK_CONFIG and MCP_NOTEBOOK_... override these --\n"
        "from mcp_notebook import asgi_app as _asgi_app  # noqa: E402\n\n"
        f"app = _asgi_app(name={server_name!r})\n"
    )


def _first_line(cell: Cell) -> str:
    line = next((line.strip() for line in cell.source.splitlines() if line.strip()), "")
    return line if len(line) <= 60 else line[:59] + "…"


def _plain_source(cell: Cell) -> tuple[str, list[Problem]]:
    """The cell as plain Python (set-up magics commented out), or why it is not."""
    first = _first_line(cell)
    if MAY_RAISE_TAG in cell.tags:
        return "", [Problem(cell.number, first, t("export.raises"))]
    try:
        transformed = TransformerManager().transform_cell(cell.source)  # type: ignore[no-untyped-call]  # IPython is untyped
        tree = ast.parse(transformed)
    except SyntaxError as exc:
        return "", [Problem(cell.number, first, t("export.syntax", error=exc.msg))]
    lines = cell.source.splitlines()
    problems: list[Problem] = []
    dropped: set[int] = set()
    for node in ast.walk(tree):
        magic = _ipython_call(node)
        if magic is None:
            continue
        kind, name = magic
        line = getattr(node, "lineno", 0)
        statement = next((s for s in tree.body if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
        alone = isinstance(statement, ast.Expr) and statement.value is node
        if kind == "run_line_magic" and name in SET_UP_MAGICS and alone and statement is not None:
            dropped.add(statement.lineno)
        else:
            problems.append(Problem(cell.number, first, _magic_reason(kind, name)))
    if problems:
        return "", problems
    kept = [
        f"# {line}  (a notebook set-up magic: not needed by the app)" if number in dropped else line
        for number, line in enumerate(lines, start=1)
    ]
    source = "\n".join(kept)
    try:
        # compile, not just parse: ast.parse accepts a top-level await, which only a kernel can run.
        compile(source, f"<cell {cell.number}>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        key = "export.await" if "await" in (exc.msg or "") else "export.syntax"
        return "", [Problem(cell.number, first, t(key, error=exc.msg))]
    return source, []


def _ipython_call(node: ast.AST) -> tuple[str, str] | None:
    """``(method, magic name)`` for a ``get_ipython().method(...)`` call, ``("get_ipython", "")`` for any other use."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = node.func.value
        if (
            isinstance(owner, ast.Call)
            and isinstance(owner.func, ast.Name)
            and owner.func.id == "get_ipython"
        ):
            first = node.args[0] if node.args else None
            name = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
            return node.func.attr, name
    if isinstance(node, ast.Name) and node.id == "get_ipython":
        return None  # reported through the call that uses it, or as an undefined name
    return None


def _magic_reason(kind: str, name: str) -> str:
    if kind == "run_line_magic":
        return t(_EFFECT_MAGICS.get(name, "export.magic"), magic=f"%{name}")
    if kind == "run_cell_magic":
        return t("export.magic", magic=f"%%{name}")
    if kind in ("system", "getoutput"):
        return t("export.shell")
    return t("export.get_ipython")


def _kernel_uses(cell: Cell, tree: ast.Module) -> list[Problem]:
    """Imports of the kernel's modules, and calls of the in-kernel server's API."""
    first = _first_line(cell)
    problems = []
    package = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "mcp_notebook"
    }
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
            if node.module == "mcp_notebook":
                used = sorted({alias.name for alias in node.names} & _KERNEL_API)
                if used:
                    problems.append(
                        Problem(cell.number, first, t("export.kernel_api", names=", ".join(used)))
                    )
        for module in modules:
            if any(module == kernel or module.startswith(kernel + ".") for kernel in _KERNEL_MODULES):
                problems.append(Problem(cell.number, first, t("export.kernel_import", module=module)))
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in package
            and node.attr in _KERNEL_API
        ):
            problems.append(Problem(cell.number, first, t("export.kernel_api", names=node.attr)))
    return problems


def _undefined_names(trees: list[tuple[Cell, ast.Module]]) -> list[Problem]:
    """Names a cell uses that no exported cell defines (nor Python): they came from the kernel."""
    bound = set(dir(builtins)) | {"__name__", "__file__", "__doc__", "__builtins__", "__spec__"}
    for _, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
                return []  # a star import may define anything: nothing can be said
            bound |= _bindings(node)
    problems = []
    for cell, tree in trees:
        missing = sorted(
            {
                node.id
                for node in ast.walk(tree)
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
            }
            - bound
        )
        if missing:
            problems.append(
                Problem(cell.number, _first_line(cell), t("export.undefined", names=", ".join(missing)))
            )
    return problems


def _bindings(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        return {node.id}
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    if isinstance(node, ast.arg):
        return {node.arg}
    if isinstance(node, ast.ExceptHandler) and node.name:
        return {node.name}
    if isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
        return {node.name}
    if isinstance(node, ast.Global | ast.Nonlocal):
        return set(node.names)
    return set()


def main_export(notebook: str, output: str | None, name: str | None) -> int:
    """The ``export`` command: write the module, or list what cannot be exported (exit 1)."""
    path = Path(notebook).resolve()
    try:
        text = export_notebook(path, name=name)
    except ExportError as exc:
        sys.stderr.write(t("export.failed", notebook=path.name, count=len(exc.problems)) + "\n")
        for problem in exc.problems:
            sys.stderr.write(f"  {problem}\n")
        return 1
    except HeadlessError as exc:
        sys.stderr.write(f"mcp-notebook: {exc}\n")
        return 2
    if output is None or output == "-":
        sys.stdout.write(text)
        return 0
    target = Path(output)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, target)  # whole or not at all: never half an app
    sys.stderr.write(t("export.written", path=str(target), notebook=path.name) + "\n")
    return 0
