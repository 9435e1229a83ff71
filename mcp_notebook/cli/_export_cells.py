"""One notebook cell read for export: its Python, the lines that need a kernel, what it registers.

A cell is turned into Python the way IPython does it (magics become ``get_ipython()`` calls, on the
line where they were written), then each line that cannot run outside a kernel is found with its
reason: a magic with an effect, a shell command, ``get_ipython()``, top-level ``await``, an import
of the kernel's modules (IPython, widgets, magics, the lessons' checkers) or a call of the in-kernel
server's API. Set-up magics (``%load_ext`` ...) alone on their line are only commented out.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path

from IPython.core.inputtransformer2 import TransformerManager

from ..core._text import clip, t
from ._headless import Cell

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
    }
)
# The package's own magics that try the notebook's server out (start it, call it, look at it): what
# an app replaces. A line that is one of them alone (``%mcp_call ...``, ``srv = %mcp_serve``) is left
# out of the app with a notice; a name only such a line makes is reported where the app reads it.
TRY_OUT_MAGICS = frozenset(
    {"mcp_serve", "mcp_stop", "mcp_status", "mcp_tools", "mcp_call", "mcp_read", "mcp_prompt"}
)
_KERNEL_MODULES = ("IPython", "ipykernel", "ipywidgets", "mcp_notebook.widgets", "mcp_notebook.ipython")
# The lessons' exercises check answers through the kernel's own server and record progress: an app
# that imported them would run a lesson at start, so their lines are refused like the kernel's.
_LESSONS = "mcp_notebook.lessons"
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
# What puts something into the app: `@tool`, `@resource`, `@prompt` (or a catalogue's), `publish(...)`.
# Calls that register what the app serves (an MCP Apps view, a table app), next to the decorators.
REGISTERING_CALLS = frozenset({"publish", "app_resource", "app_from"})
_REGISTERS = frozenset({"tool", "resource", "prompt"}) | REGISTERING_CALLS
# Calls whose first argument is a file the app reads: `open("x")`, `pd.read_csv("x")`, `np.load("x")` ...
_READERS = frozenset({"open", "Path", "PurePath", "read_csv", "read_json", "read_parquet", "read_excel"})


@dataclass(frozen=True)
class Offence:
    """One line of a cell that cannot run outside a kernel (or cannot run at all)."""

    line: int  # in the cell, from 1
    reason: str


@dataclass
class CellCode:
    """A cell as Python, and what keeps parts of it out of the app."""

    cell: Cell
    tree: ast.Module | None  # None: not Python at all (the offence says where)
    offences: list[Offence] = field(default_factory=list)
    refused: set[int] = field(default_factory=set)  # indexes into tree.body
    dropped: set[int] = field(default_factory=set)  # lines of set-up magics, commented out
    tried: dict[int, str] = field(default_factory=dict)  # line -> its try-out magic, left out with a notice

    def line(self, number: int) -> str:
        """The cell's line `number` as the user wrote it, stripped and clipped."""
        lines = self.cell.source.splitlines()
        text = lines[number - 1].strip() if 0 < number <= len(lines) else ""
        return clip(text, 60)

    def statements(self) -> list[ast.stmt]:
        """The top-level statements that go into the app (not refused, not set-up magics)."""
        if self.tree is None:
            return []
        return [
            statement
            for index, statement in enumerate(self.tree.body)
            if index not in self.refused
            and statement.lineno not in self.dropped
            and statement.lineno not in self.tried
        ]

    def refused_statements(self) -> list[ast.stmt]:
        return [] if self.tree is None else [self.tree.body[index] for index in sorted(self.refused)]

    def tried_statements(self) -> list[ast.stmt]:
        """The try-out lines left out of the app (``srv = %mcp_serve``): what they name, it lacks."""
        if self.tree is None:
            return []
        return [statement for statement in self.tree.body if statement.lineno in self.tried]

    def source(self) -> str:
        """The cell's text for the module, set-up magics and try-out lines commented out."""
        return "\n".join(
            f"# {line}  (a notebook set-up magic: not needed by the app)"
            if number in self.dropped
            else f"# {line}  (tries the notebook's server out: the app is the server)"
            if number in self.tried
            else line
            for number, line in enumerate(self.cell.source.splitlines(), start=1)
        ).rstrip()


def read_cell(cell: Cell) -> CellCode:
    """`cell` as Python, every line that needs a kernel found (not only the first)."""
    try:
        transformed = TransformerManager().transform_cell(cell.source)  # type: ignore[no-untyped-call]  # IPython is untyped
        tree = ast.parse(transformed)
    except SyntaxError as exc:
        return CellCode(cell, None, [Offence(exc.lineno or 1, t("export.syntax", error=exc.msg))])
    code = CellCode(cell, tree)
    found: list[tuple[int, str]] = []
    for index, statement in enumerate(tree.body):
        tried = _try_out(statement)
        if tried:
            code.tried[statement.lineno] = tried
            continue
        for line, reason in _kernel_lines(statement):
            if reason:
                found.append((line, reason))
                code.refused.add(index)
            else:
                code.dropped.add(line)
    found += _kernel_api_uses(tree)
    try:
        # Compiled as a kernel does (top-level await allowed: it is found above, line by line),
        # which finds what parsing lets through (`return` outside a function ...).
        compile(
            transformed, f"<cell {cell.number}>", "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True
        )
    except SyntaxError as exc:
        code.tree = None
        found.append((exc.lineno or 1, t("export.syntax", error=exc.msg)))
    if code.tree is not None:
        for line, _ in found:
            code.refused |= {index for index, statement in enumerate(tree.body) if _spans(statement, line)}
    code.offences = [Offence(line, reason) for line, reason in sorted(set(found))]
    return code


def _try_out(statement: ast.stmt) -> str:
    """The try-out magic `statement` is, alone or assigned (``x = %mcp_call ...``); "" if not one."""
    assigned = isinstance(statement, ast.Assign) and all(isinstance(n, ast.Name) for n in statement.targets)
    if not (isinstance(statement, ast.Expr) or assigned):
        return ""
    value = statement.value  # type: ignore[attr-defined]  # an Expr or an Assign, both have one
    if not (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "run_line_magic"
        and isinstance(value.func.value, ast.Call)
        and isinstance(value.func.value.func, ast.Name)
        and value.func.value.func.id == "get_ipython"
        and value.args
        and isinstance(value.args[0], ast.Constant)
    ):
        return ""
    name = value.args[0].value
    return name if name in TRY_OUT_MAGICS else ""


def _spans(statement: ast.stmt, line: int) -> bool:
    decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
    first = min([statement.lineno, *(decorator.lineno for decorator in decorators)])
    return first <= line <= (statement.end_lineno or statement.lineno)


def _kernel_lines(statement: ast.stmt) -> list[tuple[int, str]]:
    """(line, reason) for each use of the kernel in `statement`; reason "" for a set-up magic to drop."""
    found: list[tuple[int, str]] = []
    magic_owners: set[int] = set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if (
                isinstance(owner, ast.Call)
                and isinstance(owner.func, ast.Name)
                and owner.func.id == "get_ipython"
            ):
                magic_owners.add(id(owner.func))
                first = node.args[0] if node.args else None
                name = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
                kind = node.func.attr
                alone = isinstance(statement, ast.Expr) and statement.value is node
                if kind == "run_line_magic" and name in SET_UP_MAGICS and alone:
                    found.append((node.lineno, ""))
                else:
                    found.append((node.lineno, _magic_reason(kind, name)))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for module in _imported_modules(node):
                if _within(module, _LESSONS):
                    found.append((node.lineno, t("export.lessons", module=module)))
                elif any(_within(module, kernel) for kernel in _KERNEL_MODULES):
                    found.append((node.lineno, t("export.kernel_import", module=module)))
        elif isinstance(node, ast.Await | ast.AsyncFor | ast.AsyncWith) and not _in_function(statement, node):
            found.append((node.lineno, t("export.await")))
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and node.id == "get_ipython" and id(node) not in magic_owners:
            found.append((node.lineno, t("export.get_ipython")))
    return found


def _imported_modules(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    modules = [node.module or ""]
    if node.module == "mcp_notebook":  # `from mcp_notebook import lessons`
        modules += [f"mcp_notebook.{alias.name}" for alias in node.names if alias.name == "lessons"]
    return modules


def is_lessons(statement: ast.stmt) -> bool:
    """Whether `statement` imports the lessons' exercises."""
    return any(
        _within(module, _LESSONS)
        for node in ast.walk(statement)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for module in _imported_modules(node)
    )


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _in_function(statement: ast.stmt, target: ast.AST) -> bool:
    """Whether `target` lies in a function (or lambda) body within `statement`."""
    for node in ast.walk(statement):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and any(
            inner is target for inner in ast.walk(node)
        ):
            return True
    return False


def _magic_reason(kind: str, name: str) -> str:
    if kind == "run_line_magic":
        return t(_EFFECT_MAGICS.get(name, "export.magic"), magic=f"%{name}")
    if kind == "run_cell_magic":
        return t("export.magic", magic=f"%%{name}")
    if kind in ("system", "getoutput"):
        return t("export.shell")
    return t("export.get_ipython")


def _kernel_api_uses(tree: ast.Module) -> list[tuple[int, str]]:
    """Calls of the in-kernel server's API: ``from mcp_notebook import serve``, ``mcp_notebook.call``."""
    found = []
    package = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "mcp_notebook"
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "mcp_notebook":
            used = sorted({alias.name for alias in node.names} & _KERNEL_API)
            if used:
                found.append((node.lineno, t("export.kernel_api", names=", ".join(used))))
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in package
            and node.attr in _KERNEL_API
        ):
            found.append((node.lineno, t("export.kernel_api", names=node.attr)))
    return found


def registrations(statement: ast.stmt) -> list[str]:
    """What `statement` puts into the app: the names of decorated functions, ``publish`` for a call."""
    found = []
    for node in ast.walk(statement):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
            _called_name(decorator) in _REGISTERS for decorator in node.decorator_list
        ):
            found.append(node.name)
        elif isinstance(node, ast.Call) and _called_name(node.func) in _REGISTERS:
            found.append(_called_name(node.func))
    return found


def _called_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def relative_reads(statement: ast.stmt, folder: Path) -> list[tuple[int, str]]:
    """(line, path) for each file `statement` reads by a relative path that exists in `folder`."""
    found = []
    for node in ast.walk(statement):
        if not isinstance(node, ast.Call):
            continue
        name = _called_name(node.func)
        # app_resource(uri, path="view.html") reads its page where the app starts, as open() would.
        given = (
            [k.value for k in node.keywords if k.arg == "path"] if name == "app_resource" else node.args[:1]
        )
        if not given:
            continue
        first = given[0]
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value):
            continue
        if name == "app_resource":
            name = "open"
        numpy_load = (
            name == "load"
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("np", "numpy")
        )
        path = first.value
        if (name in _READERS or numpy_load) and not os.path.isabs(path) and "://" not in path:
            try:
                exists = (folder / path).exists()
            except (OSError, ValueError):  # a name no file system accepts: not a file the app reads
                exists = False
            if exists:
                found.append((first.lineno, path))
    return found
