"""Attack: a client floods a rate-limited tool, and the notebook can no longer use its own tool.

The bucket was per tool, shared by everyone: an outside client that spent it locked the person at
the notebook (and every other client) out until it refilled. Now each identity has a bucket of its
own per tool: the flood limits the one who floods.
"""

from __future__ import annotations

from typing import Any

import pytest

import mcp_notebook
from mcp_notebook import Catalogue, tool
from tests.conftest import ERAS, serve_unattended
from tests.security.conftest import client_as

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("mode", ERAS)
async def test_one_clients_flood_does_not_limit_the_notebook_or_others(
    catalogue: Catalogue, mode: Any
) -> None:
    @tool(catalogue=catalogue, read_only=True, rate_limit=(3, 3600))
    def quote(symbol: str) -> str:
        """A stock quote (the data provider allows few calls)."""
        return f"{symbol}: 42"

    srv = serve_unattended(catalogue)
    try:
        async with client_as(srv, srv.token, mode) as client:  # a client with the server token floods
            answers = [await client.call_tool("quote", {"symbol": "ACME"}) for _ in range(5)]
        assert [a.is_error for a in answers] == [False, False, False, True, True]
        assert "too often" in answers[-1].content[0].text
        mine = mcp_notebook.call("quote", {"symbol": "ACME"})  # the notebook's own call
        assert mine.is_error is False and mine.text == "ACME: 42"
        async with client_as(srv, srv.add_client("other"), mode) as client:
            theirs = await client.call_tool("quote", {"symbol": "ACME"})
        assert theirs.is_error is False
    finally:
        srv.stop()
