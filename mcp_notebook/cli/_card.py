"""``mcp-notebook card NOTEBOOK``: the ``server.json`` of a notebook's exported app, for the MCP registry.

Nothing runs: the notebook is read, not executed. Its first markdown cell gives the title (its
first heading) and the description (the paragraph after it, when it fits in 100 characters); the
functions its code cells decorate with ``@tool`` name the tools, for a description made up when
there is none. The app's settings give the rest, as the app itself reads them (``--config`` or
``MCP_NOTEBOOK_CONFIG``, then ``MCP_NOTEBOOK_...``: the ``[card]`` table, ``icons``, whether clients
sign in with OAuth), and the command's options override them. The served app shows the same data
as its server card.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path
from typing import Any

from ..core._errors import OptionError
from ..core._icons import check_icons
from ..core._registry import Listing, registry_entry
from ..server._service_config import ServiceConfigError, card_settings
from ._export_cells import read_cell
from ._headless import HeadlessError, read_cells

FIELDS = ("name", "title", "description", "version", "url", "website_url")


def main_card(args: argparse.Namespace) -> int:
    """Write the ``server.json``; its notes (placeholders ...) go to stderr. Exit 2 when it cannot."""
    notebook = Path(args.notebook)
    try:
        cells = read_cells(notebook)
        listing, icons, auth = card_settings(args.config)
        title, summary = _first_words(notebook)
        chosen = {name: getattr(listing, name) for name in FIELDS}
        chosen["title"] = chosen["title"] or title
        chosen["description"] = chosen["description"] or summary
        chosen.update({name: getattr(args, name) for name in FIELDS if getattr(args, name) is not None})
        if args.icon:
            icons = check_icons(args.icon, "--icon")
        entry = registry_entry(
            Listing(**chosen), slug=notebook.stem, tools=_tools(cells), icons=icons, auth=auth
        )
    except (HeadlessError, ServiceConfigError, OptionError, ValueError) as exc:
        sys.stderr.write(f"mcp-notebook: {exc}\n")
        return 2
    for note in entry.notes:
        sys.stderr.write(f"mcp-notebook: {note}\n")
    if args.output:
        entry.write(args.output)
    else:
        sys.stdout.write(entry.json())
    return 0


def _first_words(notebook: Path) -> tuple[str | None, str | None]:
    """The first markdown cell's first heading, and the paragraph after it when it is short enough."""
    cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
    for cell in cells:
        if cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        lines = ("".join(source) if isinstance(source, list) else str(source)).splitlines()
        title = next((line.lstrip("#").strip() for line in lines if line.startswith("#")), None)
        paragraph: list[str] = []
        for line in lines[next((i + 1 for i, line in enumerate(lines) if line.startswith("#")), 0) :]:
            if not line.strip() or line.startswith("#"):
                if paragraph:
                    break
                continue
            paragraph.append(line.strip())
        summary = re.sub(r"[*_`]", "", " ".join(paragraph)) or None
        return _short(title), _short(summary)
    return None, None


def _short(text: str | None) -> str | None:
    """`text`, when the registry takes it as a title or description (1-100 characters)."""
    return text if text and len(text) <= 100 else None


def _tools(cells: list[Any]) -> list[str]:
    """The names of the notebook's tools: functions decorated with ``@tool`` (their ``name=`` if given)."""
    names = []
    for cell in cells:
        if cell.skipped:
            continue
        for statement in read_cell(cell).statements():
            for node in ast.walk(statement):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    names += [_tool_name(decorator, node.name) for decorator in node.decorator_list]
    return [name for name in names if name is not None]


def _tool_name(decorator: ast.expr, function: str) -> str | None:
    called = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = (
        called.id
        if isinstance(called, ast.Name)
        else called.attr
        if isinstance(called, ast.Attribute)
        else ""
    )
    if name != "tool":
        return None
    for keyword in decorator.keywords if isinstance(decorator, ast.Call) else []:
        if (
            keyword.arg == "name"
            and isinstance(keyword.value, ast.Constant)
            and isinstance(keyword.value.value, str)
        ):
            return keyword.value.value
    return function
