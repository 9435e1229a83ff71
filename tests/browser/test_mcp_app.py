"""Real browser: MCP Apps drawn in JupyterLab, fed their tool's input and result, and calling a tool
from inside their frame once the person approves it with a click.

One server is the SDK's own Apps extension (``tests/servers/apps.py``, over stdio); its ``weather``
app is hand-written against the protocol and writes what it received into its own page, which the
test reads through the frame. The other is the notebook's own server with `app_from(df)`: its table
view filtered by typing, which asks once, then, allowed for good, no more. Screenshots go to
test-artifacts/.
"""

from __future__ import annotations

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
    f"import mcp_notebook\nAPPS = {STDIO!r}",
    "mcp_notebook.call('weather', {'city': 'Seoul'}, stdio=APPS)",
    f"print({READY!r})",
]


@pytest.mark.timeout(300)
def test_an_app_is_drawn_gets_its_result_and_calls_a_tool_once_approved(tmp_path: Path) -> None:
    with browsed(tmp_path, {NOTEBOOK: CELLS}, "jupyterlab-mcp-app") as lab:
        weather_is_drawn_and_calls_a_tool_once_approved(lab.page, lab.run_all(NOTEBOOK))
        lab.screenshot()


@pytest.mark.timeout(300)
def test_the_notebooks_own_table_view_is_filtered_through_the_notebooks_host(tmp_path: Path) -> None:
    cells = table_cells("mcp_notebook.call('menu')")
    with browsed(tmp_path, {NOTEBOOK: cells}, "jupyterlab-table-view") as lab:
        table_is_filtered_once_allowed(lab.page, lab.run_all(NOTEBOOK))
        lab.screenshot()
