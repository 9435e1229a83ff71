"""``mcp-notebook export NOTEBOOK.ipynb -o app.py``: a notebook's tools as a plain Python module.

The module is the notebook's code cells, in order, then ``app = asgi_app(...)``: uvicorn or
gunicorn import it and serve ``app`` without a kernel, IPython or widgets. Skipped: markdown
cells, cells tagged ``mcp-skip`` (or starting with ``# mcp: skip``), line magics that only set
up the notebook (``%load_ext``, ``%matplotlib`` ...), and lines that try the notebook's own server
out, which the app replaces (``srv = %mcp_serve``, ``%mcp_call ...``, ``%mcp_read``, ``%mcp_tools``,
``%mcp_stop`` ...: each said in one notice line); each is left in the module as a comment.

Everything else must be plain Python that runs the same outside a kernel. What cannot be is
reported, all of it in one run, by cell and line (its number and text) with the reason and the
fix, and then no file is written, never half an app:

- a magic with an effect (``%pip``, ``%%bash``, ``%mcp_publish``, a try-out magic inside a
  function or a loop ...), a shell command (``!ls``), or ``get_ipython()``: they need IPython;
- top-level ``await`` (a kernel runs it, a module cannot);
- an import of IPython, ipykernel, ipywidgets, the package's widgets and magics, or the lessons'
  exercises (``q1.check()`` checks through the kernel's server);
- a call of the in-kernel server's API (``serve``, ``call``, ``list_tools`` ...): the app serves
  itself, and calls its tools from nowhere;
- a name read (at the top level or in a function's body) that no exported cell defines: one only a
  skipped cell defines, one only a refused or left-out line makes (``srv = %mcp_serve``, then
  ``srv.url``), or one the kernel provides (``display``);
- a cell tagged ``raises-exception``: it fails on purpose, which would stop the app at import;
- a notebook with no tool, resource or prompt at all: the app would serve nothing.

A cell that reads a file by a relative path only works when the app starts in the notebook's
folder: that is a warning, and the module is written.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from IPython.core.inputtransformer2 import TransformerManager

from ..core._text import t
from ._export_cells import REGISTERING_CALLS, CellCode, is_lessons, read_cell, registrations, relative_reads
from ._export_names import Names, first_use, names_of
from ._headless import MAY_RAISE_TAG, Cell, HeadlessError, read_cells


@dataclass(frozen=True)
class Problem:
    """Why one line of a cell cannot be exported, and what to do."""

    cell: int
    line: int  # in the cell, from 1
    text: str  # that line, as written
    reason: str

    def __str__(self) -> str:
        return t("export.problem", cell=self.cell, line=self.line, text=self.text, reason=self.reason)


@dataclass(frozen=True)
class RelativePath:
    """A file a cell reads by a path relative to where the app starts (a warning, not a refusal)."""

    cell: int
    line: int
    path: str
    folder: Path  # the notebook's, where the path works

    def __str__(self) -> str:
        return t(
            "export.relative_path", cell=self.cell, line=self.line, path=self.path, folder=str(self.folder)
        )


class ExportError(HeadlessError):
    """The notebook cannot be exported: `problems` says which lines and why; `empty`: nothing to serve."""

    def __init__(
        self,
        problems: list[Problem],
        *,
        notebook: str,
        empty: bool = False,
        unchecked: list[int] | None = None,
    ) -> None:
        self.problems = problems
        self.empty = empty
        self.unchecked = unchecked or []  # cells that are not Python: names across cells wait for them
        super().__init__("\n".join(self.notes(notebook)))

    def notes(self, notebook: str) -> list[str]:
        """The problems, then what could not be checked and whether the app would serve nothing."""
        lines = [str(problem) for problem in self.problems]
        if self.unchecked:
            lines.append(t("export.names_unchecked", cells=", ".join(map(str, self.unchecked))))
        if self.empty:
            lines.append(t("export.empty", notebook=notebook))
        return lines


@dataclass(frozen=True)
class LeftOut:
    """A line that tries the notebook's server out (``%mcp_call ...``): not in the app, said once."""

    notebook: str
    cell: int
    line: int
    text: str
    magic: str

    def __str__(self) -> str:
        return t(
            "export.left_out",
            notebook=self.notebook,
            cell=self.cell,
            line=self.line,
            text=self.text,
            magic=f"%{self.magic}",
        )


@dataclass
class Export:
    """The module's text, what it should warn about, and the try-out lines it left out."""

    text: str
    warnings: list[RelativePath]
    left_out: list[LeftOut] = field(default_factory=list)


def export_notebook(notebook: Path, *, name: str | None = None, module: str = "app") -> str:
    """The text of the module for `notebook` (see the module docstring), to be saved as `module`.py.

    Raises
    ------
    ExportError
        Some cells cannot be exported (every line is listed), or nothing would be served.
    HeadlessError
        The notebook cannot be read.
    """
    return build_export(notebook, name=name, module=module).text


def build_export(notebook: Path, *, name: str | None = None, module: str = "app") -> Export:
    """`export_notebook`, with the warnings (files read by relative paths)."""
    cells = read_cells(notebook)
    codes = [read_cell(cell) for cell in cells if not _left_out(cell)]
    needed = _needed_by_the_app(codes)
    problems = [
        _problem(code, offence.line, f"{offence.reason} {_fix(needed, code.cell.number)}")
        for code in codes
        for offence in code.offences
    ]
    for cell in cells:
        if MAY_RAISE_TAG in cell.tags and not cell.skipped:
            problems.append(_problem(CellCode(cell, None), _first_line_number(cell), t("export.raises")))
    for code, line, reason in _missing_names(codes, [cell for cell in cells if _left_out(cell)]):
        # The fix of a missing name is to define it; skipping is for a cell the app does not need.
        fix = "" if needed.get(code.cell.number) else " " + t("export.fix_skip")
        problems.append(_problem(code, line, reason + fix))
    exported = [statement for code in codes for statement in code.statements()]
    unchecked = [code.cell.number for code in codes if code.tree is None]
    empty = not unchecked and not any(registrations(statement) for statement in exported)
    if problems or empty:
        problems.sort(key=lambda problem: (problem.cell, problem.line))
        raise ExportError(problems, notebook=notebook.name, empty=empty, unchecked=unchecked)
    warnings = [
        RelativePath(code.cell.number, line, path, notebook.parent)
        for code in codes
        for statement in code.statements()
        for line, path in relative_reads(statement, notebook.parent)
    ]
    parts = [
        f"# -- cell {cell.number}: skipped (mcp-skip) --"
        if _left_out(cell)
        else f"# -- cell {cell.number} --\n{next(code for code in codes if code.cell is cell).source()}"
        for cell in cells
    ]
    # The notebook's name, not a digest of where it lies: every replica, built anywhere, agrees on it.
    server_name = name or (re.sub(r"[^\w.-]+", "-", notebook.stem).strip("-") or "notebook")
    header = t("export.header", notebook=notebook.name, module=module)
    body = "\n\n".join(parts)
    text = (
        f'"""{header}"""\n\n{body}\n\n'
        "# -- the app: settings from MCP_NOTEBOOK_CONFIG and MCP_NOTEBOOK_... override these --\n"
        "from mcp_notebook import asgi_app as _asgi_app  # noqa: E402\n\n"
        f"app = _asgi_app(name={server_name!r})\n"
    )
    left_out = [
        LeftOut(notebook.name, code.cell.number, line, code.line(line), magic)
        for code in codes
        for line, magic in sorted(code.tried.items())
    ]
    return Export(text, warnings, left_out)


def _left_out(cell: Cell) -> bool:
    """Not in the module: skipped, or failing on purpose (reported, and to be skipped)."""
    return cell.skipped or MAY_RAISE_TAG in cell.tags


def _first_line_number(cell: Cell) -> int:
    lines = cell.source.splitlines()
    return next((number for number, line in enumerate(lines, start=1) if line.strip()), 1)


def _problem(code: CellCode, line: int, reason: str) -> Problem:
    return Problem(code.cell.number, line, code.line(line), reason)


def _missing_names(codes: list[CellCode], left_out: list[Cell]) -> list[tuple[CellCode, int, str]]:
    """Names exported code reads (top level or in a body) that no exported line defines."""
    if any(code.tree is None for code in codes):
        return []  # a cell that is not Python defines who knows what: no guesses (see `unchecked`)
    exported: list[tuple[CellCode, ast.stmt, Names]] = []
    kernel_made: dict[
        str, tuple[int, int, bool]
    ] = {}  # name -> (cell, line, from the lessons) of a refused line
    tried: dict[str, tuple[int, int, str]] = {}  # name -> (cell, line, magic) of a try-out line
    try:
        for code in codes:
            exported += [(code, statement, names_of(statement)) for statement in code.statements()]
            for statement in code.refused_statements():
                for name in names_of(statement).defines:
                    kernel_made.setdefault(name, (code.cell.number, statement.lineno, is_lessons(statement)))
            for statement in code.tried_statements():
                for name in names_of(statement).defines:
                    tried.setdefault(name, (code.cell.number, statement.lineno, code.tried[statement.lineno]))
    except SyntaxError:
        return []  # found by compiling the cell, and reported there
    if any(names.star for _, _, names in exported):
        return []  # a star import may define anything: nothing can be said
    defined = {name for _, _, names in exported for name in names.defines}
    skipped = _defined_in(left_out)
    problems: list[tuple[CellCode, int, str]] = []
    told: set[tuple[int, str]] = set()  # each name once per cell, where it is first read
    for code, statement, names in exported:
        for name in sorted(names.reads - defined - {"get_ipython"}):  # get_ipython: reported as such
            if (code.cell.number, name) in told:
                continue
            told.add((code.cell.number, name))
            if name in tried:
                cell, line, magic = tried[name]
                reason = t("export.tryout_name", name=name, cell=cell, line=line, magic=f"%{magic}")
            elif name in kernel_made:
                cell, line, lesson = kernel_made[name]
                key = "export.lesson_name" if lesson else "export.kernel_name"
                reason = t(key, name=name, cell=cell, line=line)
            elif name in skipped:
                reason = t("export.skipped_name", name=name, cells=_numbers(skipped[name]))
            else:
                reason = t("export.undefined", name=name)
            problems.append((code, first_use(statement, name), reason))
    return problems


def _defined_in(cells: Iterable[Cell]) -> dict[str, list[int]]:
    """Name -> the numbers of the (skipped) cells that define it, as far as they are Python."""
    found: dict[str, list[int]] = {}
    for cell in cells:
        try:
            tree = ast.parse(TransformerManager().transform_cell(cell.source))  # type: ignore[no-untyped-call]  # IPython is untyped
            names = [names_of(statement).defines for statement in tree.body]
        except SyntaxError:
            continue  # a skipped cell need not be Python
        for name in set().union(*names):
            found.setdefault(name, []).append(cell.number)
    return found


def _numbers(numbers: list[int]) -> str:
    return ", ".join(str(number) for number in numbers)


def _fix(needed: dict[int, set[str]], cell: int) -> str:
    """Tag the cell mcp-skip; or, when the app needs the rest of the cell, move the line out."""
    keep = needed.get(cell)
    if not keep:
        return t("export.fix_skip")
    names = sorted(keep)
    # A set-up cell may give the app a dozen imports: the first few say which cell it is.
    shown = ", ".join(names[:6]) + (", …" if len(names) > 6 else "")
    return t("export.fix_move", names=shown)


def _needed_by_the_app(codes: list[CellCode]) -> dict[int, set[str]]:
    """Cell -> what its exported lines give the app: the tools they register, names other cells read."""
    try:
        statements = [
            (code, statement, names_of(statement)) for code in codes for statement in code.statements()
        ]
    except SyntaxError:
        return {}
    needed: dict[int, set[str]] = {}
    for code, statement, names in statements:
        others = {
            name for other, _, other_names in statements if other is not code for name in other_names.reads
        }
        given = (names.defines & others) | {
            name for name in registrations(statement) if name not in REGISTERING_CALLS
        }
        if given:
            needed.setdefault(code.cell.number, set()).update(given)
    return needed


def main_export(notebook: str, output: str | None, name: str | None) -> int:
    """The ``export`` command: write the module, or list what cannot be exported (exit 1)."""
    path = Path(notebook).resolve()
    target = None if output is None or output == "-" else Path(output)
    if target is not None:
        refusal = _unwritable(target, path)
        if refusal:
            sys.stderr.write(f"mcp-notebook: {refusal}\n")
            return 2
    module = "app" if target is None else target.stem
    try:
        result = build_export(path, name=name, module=module)
    except ExportError as exc:
        _report_failure(path, exc)
        return 1
    except HeadlessError as exc:
        sys.stderr.write(f"mcp-notebook: {exc}\n")
        return 2
    for note in [*result.left_out, *result.warnings]:
        sys.stderr.write(f"mcp-notebook: {note}\n")
    if target is None:
        sys.stdout.write(result.text)
        return 0
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(result.text, encoding="utf-8")
        os.replace(temporary, target)  # whole or not at all: never half an app
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        sys.stderr.write(
            "mcp-notebook: " + t("export.write_failed", path=str(target), error=exc.strerror or exc) + "\n"
        )
        return 2
    # uvicorn imports the module from where it is started: from elsewhere, it needs the folder.
    elsewhere = target.resolve().parent != Path.cwd().resolve()
    command = f"uvicorn {'--app-dir ' + str(target.parent) + ' ' if elsewhere else ''}{module}:app"
    sys.stderr.write(t("export.written", path=str(target), notebook=path.name, command=command) + "\n")
    return 0


def _unwritable(target: Path, notebook: Path) -> str | None:
    """Why the module cannot be written at `target` (None: it can)."""
    resolved = target.resolve()
    if resolved == notebook or (target.exists() and notebook.exists() and os.path.samefile(target, notebook)):
        return t("export.output_is_notebook", path=str(target))
    if target.suffix.lower() == ".ipynb" and target.exists():
        return t("export.output_notebook", path=str(target))
    if target.is_dir():
        return t("export.output_folder", path=str(target))
    if not target.parent.is_dir():  # not resolved: `missing/../app.py` cannot be written either
        return t("export.no_folder", folder=str(target.parent), path=str(target))
    return None


def _report_failure(notebook: Path, exc: ExportError) -> None:
    cells = len({problem.cell for problem in exc.problems})
    if cells:
        key = "export.failed_one" if cells == 1 else "export.failed_many"
        sys.stderr.write(t(key, notebook=notebook.name, count=cells) + "\n")
    for line in exc.notes(notebook.name):
        sys.stderr.write(f"  {line}\n" if cells else f"{line}\n")
