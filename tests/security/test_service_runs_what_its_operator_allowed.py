"""An exported app runs unattended only what is read-only or what its operator allowed by name.

Attack: a notebook's author marks a tool that changes things ``approval="never"`` (fine in a
notebook, where the author watches the calls); exported as a service with nobody watching, any
client with a token could run it although the operator allowed nothing. The app must refuse it,
say so at start, and run it once the operator allows it by name.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from mcp_notebook.cli._export import export_notebook
from tests.exported import connect, service_environ
from tests.services import Replica

pytestmark = [pytest.mark.anyio, pytest.mark.replicas]

CELLS = [
    "from mcp_notebook import tool",
    '''@tool(destructive=True, approval="never")
def wipe(table: str) -> str:
    """Delete every row of a table."""
    return f"wiped {table}"''',
    '''@tool(read_only=True, approval="never")
def peek(table: str) -> str:
    """Show a table's first row."""
    return f"first row of {table}"''',
]


def served(folder: Path, allow: str) -> Replica:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in CELLS])
    nbformat.write(notebook, folder / "tables.ipynb")
    (folder / "app.py").write_text(export_notebook(folder / "tables.ipynb"), encoding="utf-8")
    environ = service_environ(folder, f"sqlite:///{folder / 'state.sqlite3'}", MCP_NOTEBOOK_ALLOW_TOOLS=allow)
    return Replica(folder, environ)


async def test_a_tool_its_author_exempted_from_approval_still_needs_the_operators_allow(
    tmp_path: Path,
) -> None:
    replica = served(tmp_path, allow="")
    try:
        async with connect(replica.url, "client01", "2026-07-28") as client:
            wiped = await client.call_tool("wipe", {"table": "sales"})
            peeked = await client.call_tool("peek", {"table": "sales"})
    finally:
        replica.stop()
    assert wiped.is_error is True and "'wipe' was refused without running" in wiped.content[0].text  # type: ignore[union-attr]
    assert peeked.is_error is False
    logged = [json.loads(line) for line in replica.lines.rest() if line.startswith("{")]
    (approval,) = [entry for entry in logged if entry.get("event") == "approval"]
    assert approval["runs"] == ["peek"] and approval["refused"] == ["wipe"]  # said at start


async def test_the_operator_allows_it_by_name(tmp_path: Path) -> None:
    replica = served(tmp_path, allow="wipe")
    try:
        async with connect(replica.url, "client01", "legacy") as client:
            wiped = await client.call_tool("wipe", {"table": "sales"})
    finally:
        replica.stop()
    assert wiped.is_error is False and wiped.content[0].text == "wiped sales"  # type: ignore[union-attr]
