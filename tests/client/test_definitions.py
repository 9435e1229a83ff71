"""The client lists a server's tools again, on the same connection, when a cell redefines one."""

from __future__ import annotations

from typing import Any

import mcp_notebook
from mcp_notebook import Catalogue, tool
from mcp_notebook.client._connections import get_pool


def test_a_tool_redefined_to_another_shape_is_called_on_the_same_connection(
    server: Any, catalogue: Catalogue
) -> None:
    @tool(catalogue=catalogue)
    def shape() -> str:
        return "text"

    assert mcp_notebook.call("shape").text == "text"
    connections = dict(get_pool()._connections)

    @tool(catalogue=catalogue)  # the cell is run again, returning structured data now
    def shape() -> dict[str, int]:  # type: ignore[no-redef]  # noqa: F811 (a cell run again)
        return {"n": 1}

    assert mcp_notebook.call("shape").structured_content == {"n": 1}
    # Listed again over the open connection: not a broken one dropped and opened afresh.
    assert dict(get_pool()._connections) == connections
