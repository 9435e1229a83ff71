"""Real browser: an MCP App drawn in Notebook 7, as in JupyterLab, by `%mcp_call`.

Notebook 7 is the other front end a person opens notebooks in; the host is an anywidget, whose
front end both load from the same labextension. The server is the SDK's own Apps extension
(``tests/servers/apps.py``, over stdio): its ``weather`` app writes what it received into its own
page, which the test reads through the frame, and its button calls an app-only tool that runs only
once the person clicks Approve. The notebook's own server with `app_from(df)` is the other: its
table view, filtered by typing once the person allows it. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.apps import STDIO
from tests.browser.apps import (
    READY,
    table_cells,
    table_is_filtered_once_allowed,
    weather_is_drawn_and_calls_a_tool_once_approved,
)
from tests.browser.lab import browsed

pytestmark = pytest.mark.browser

NOTEBOOK = "app.ipynb"

CELLS = [
    "%load_ext mcp_notebook",
    f"%mcp_call weather city=Seoul --stdio {shlex.quote(STDIO)}",
    f"print({READY!r})",
]


@pytest.mark.timeout(300)
def test_an_app_called_by_the_magic_is_drawn_in_notebook_7_and_calls_a_tool_once_approved(
    tmp_path: Path,
) -> None:
    with browsed(tmp_path, {NOTEBOOK: CELLS}, "notebook7-mcp-app", front="notebook") as notebook:
        outputs = notebook.run_all(NOTEBOOK)
        # Notebook 7's own application, not JupyterLab's.
        assert notebook.page.evaluate("() => window.jupyterapp.name") == "Jupyter Notebook"
        weather_is_drawn_and_calls_a_tool_once_approved(notebook.page, outputs)
        notebook.screenshot()


@pytest.mark.timeout(300)
def test_the_notebooks_own_table_view_is_filtered_in_notebook_7(tmp_path: Path) -> None:
    cells = table_cells("%mcp_call menu")
    with browsed(tmp_path, {NOTEBOOK: cells}, "notebook7-table-view", front="notebook") as notebook:
        table_is_filtered_once_allowed(notebook.page, notebook.run_all(NOTEBOOK))
        notebook.screenshot()
