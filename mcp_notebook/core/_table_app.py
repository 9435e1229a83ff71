"""`app_from(df)`: a DataFrame as an MCP Apps view, a sortable and filterable table, with its tools.

Three entries go into the catalogue: the view (``ui://NAME/table``, one self-contained HTML page,
no network), the tool ``NAME`` bound to it (its rows, filtered and sorted, as structured content:
what a model reads, and what an Apps host shows in the view), and ``NAME_rows`` (visibility
``["app"]``: the view calls it through the host to filter, sort and refresh).

The page carries its first rows as JSON in a ``<script type="application/json">`` block, every
``<``, ``>`` and ``&`` written as a ``\\u`` escape, and shows values with ``textContent`` only: a cell
is data, never markup, whatever it holds.

Pure: no IPython, no threads, no `mcp` import, no pandas import (a DataFrame is recognised by shape).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from ._apps import MIME_TYPE
from ._catalogue import Catalogue, target_catalogue, tool
from ._errors import ToolDefinitionError, ToolError
from ._resources import ResourceEntry, is_dataframe
from ._results import to_jsonable
from ._text import t
from ._tool_options import check_tool_name

_TEMPLATE = Path(__file__).with_name("views") / "table.html"
_LABELS = ("filter", "refresh", "counts", "loading", "no_host", "no_answer", "failed")
# In a <script> block only "</script" or "<!--" could end or bend it; JSON may write any character
# as \\uXXXX, so these never reach the page as themselves (U+2028/9: line ends to older parsers).
_SCRIPT_SAFE = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


class TablePage(TypedDict):
    """The rows of a table a tool of `app_from` returns."""

    columns: list[str]
    rows: list[dict[str, Any]]
    total: int
    matched: int
    query: str
    sort_by: str
    descending: bool


@dataclass(frozen=True)
class TableApp:
    """What `app_from` registered: the view's URI and the names of its two tools."""

    uri: str
    tool: str
    rows_tool: str


def app_from(
    df: Any,
    *,
    name: str,
    title: str | None = None,
    description: str | None = None,
    max_rows: int = 500,
    catalogue: Catalogue | None = None,
) -> TableApp:
    """Offer a DataFrame as an interactive table: an MCP Apps view and the tools that fill it.

    A host that supports MCP Apps (Claude, VS Code, this package's notebook, ...) shows the tool's
    result as a table a person sorts (click a column) and filters (type); each change calls the
    ``NAME_rows`` tool through the host, so the rows come from the notebook's data as it is now.
    A client without Apps gets the same rows as structured content and JSON text. The page is
    self-contained (no web access) and shows every value as text, never as markup.

    Parameters
    ----------
    df:
        A pandas DataFrame, or a function without arguments that returns one (called on every
        read, so the table follows a variable that is reassigned).
    name:
        The tool's name (``NAME``); the view is ``ui://NAME/table``, the view's tool ``NAME_rows``.
    title, description:
        How clients show the tool and the view (default: made from the name and the columns).
    max_rows:
        The most rows one answer holds (``limit`` is at most this).
    catalogue:
        Where to register (default: the catalogue ``serve()`` serves).

    Returns
    -------
    TableApp
        ``.uri``, ``.tool`` and ``.rows_tool``.

    Raises
    ------
    ToolDefinitionError
        `df` is neither a DataFrame nor a function, or `name` cannot name a tool.

    Examples
    --------
    >>> import pandas as pd
    >>> sales = pd.DataFrame({"region": ["north", "south"], "amount": [120, 80]})
    >>> app_from(sales, name="sales")
    TableApp(uri='ui://sales/table', tool='sales', rows_tool='sales_rows')
    """
    if not (is_dataframe(df) or callable(df)):
        raise ToolDefinitionError(t("app.table_not_frame", got=type(df).__name__))
    if not (isinstance(max_rows, int) and max_rows >= 1):
        raise ToolDefinitionError(t("app.table_bad_max_rows", value=max_rows))
    check_tool_name(name)
    rows_tool = f"{name}_rows"
    check_tool_name(rows_tool)
    target = target_catalogue(catalogue)
    current: Callable[[], Any] = df if callable(df) and not is_dataframe(df) else (lambda: df)
    shown = title or name
    uri = f"ui://{name}/table"
    query = _query(current, max_rows)
    columns = _columns(current)
    schema = _input_schema(max_rows, columns)
    about = description or t("app.table_description", name=shown, columns=", ".join(columns) or "?")
    tool(
        catalogue=target,
        lint=False,
        name=name,
        title=shown,
        description=about,
        read_only=True,
        input_schema=schema,
        app=uri,
        visibility=["model", "app"],
    )(query)
    tool(
        catalogue=target,
        lint=False,
        name=rows_tool,
        description=t("app.table_rows_description", name=shown, tool=name),
        read_only=True,
        input_schema=schema,
        app=uri,
        visibility=["app"],
    )(query)
    # Made on every read: the page carries the rows as they are then.
    page = _page_reader(shown, name, rows_tool, query, max_rows)
    target.add_resource(ResourceEntry(uri, f"{name} table", page, shown, about, MIME_TYPE))
    return TableApp(uri, name, rows_tool)


def _query(current: Callable[[], Any], max_rows: int) -> Callable[..., TablePage]:
    def rows(query: str = "", sort_by: str = "", descending: bool = False, limit: int = 100) -> TablePage:
        frame = current()
        if not is_dataframe(frame):
            raise ToolError(t("app.table_gone", got=type(frame).__name__))
        columns = [str(column) for column in frame.columns]
        if sort_by and sort_by not in columns:
            raise ToolError(t("app.table_unknown_column", column=sort_by, known=", ".join(columns)))
        records: list[dict[str, Any]] = to_jsonable(frame)
        needle = query.casefold()
        matched = [r for r in records if any(needle in _text(v).casefold() for v in r.values())]
        if sort_by:
            present = [r for r in matched if r.get(sort_by) is not None]
            missing = [r for r in matched if r.get(sort_by) is None]  # last, either way
            present.sort(key=lambda r: _order(r[sort_by]), reverse=descending)
            matched = present + missing
        limit = max(1, min(limit, max_rows))
        return {
            "columns": columns,
            "rows": matched[:limit],
            "total": len(records),
            "matched": len(matched),
            "query": query,
            "sort_by": sort_by,
            "descending": descending,
        }

    return rows


def _input_schema(max_rows: int, columns: list[str]) -> dict[str, Any]:
    # The columns as they are now, so a model picks one of them (a function's table whose columns
    # change later is refused by name, saying which columns it has: register it again).
    sort_by: dict[str, Any] = {"type": "string", "description": t("app.table_arg_sort_by")}
    if columns:
        sort_by["enum"] = ["", *columns]
    else:
        sort_by["maxLength"] = 1000
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string", "maxLength": 1000, "description": t("app.table_arg_query")},
            "sort_by": sort_by,
            "descending": {"type": "boolean", "description": t("app.table_arg_descending")},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": max_rows,
                "description": t("app.table_arg_limit"),
            },
        },
        "additionalProperties": False,
    }


def _page_reader(
    title: str, name: str, rows_tool: str, query: Callable[..., TablePage], max_rows: int
) -> Callable[[], str]:
    template = _TEMPLATE.read_text(encoding="utf-8")
    # The view fills in the counts itself: the message keeps its fields as written.
    fields = {field: "{" + field + "}" for field in ("shown", "matched", "total")}
    labels = {label: t(f"app.table_{label}", **fields) for label in _LABELS}

    def page() -> str:
        config = {
            "tool": name,
            "rows_tool": rows_tool,
            "limit": min(100, max_rows),
            "labels": labels,
            "page": query(limit=min(100, max_rows)),
        }
        return template.replace("{{TITLE}}", html.escape(title)).replace("{{CONFIG}}", script_json(config))

    return page


def script_json(value: Any) -> str:
    """`value` as JSON that can sit inside a ``<script>`` element: no ``<``, ``>`` or ``&`` as such."""
    return json.dumps(value, ensure_ascii=False).translate(_SCRIPT_SAFE)


def _columns(current: Callable[[], Any]) -> list[str]:
    try:
        frame = current()
    except Exception:  # a function that fails now may work when called: its columns are said then
        return []
    return [str(column) for column in frame.columns] if is_dataframe(frame) else []


def _text(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _order(value: Any) -> tuple[int, Any]:
    # Numbers by value before everything else by its text, so a column of mixed types still sorts.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, value)
    return (1, _text(value))
