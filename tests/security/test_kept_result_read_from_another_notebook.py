"""Attack: read another notebook's large result through the store they share.

Large results kept behind a ``resource_link`` used to live in the serving process's memory. They
now live in the server's store, by default one SQLite file in the user cache folder that every
notebook of the user shares, and the owner of every notebook has the same identity, ``owner``.
Keyed by identity alone, a link made by one notebook (its payroll report) would read from any
other notebook's server, by whoever holds that other server's token. The scope of every stored
entry includes the server's name, so the link is unknown anywhere but where it was made.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from mcp_notebook import Catalogue, tool
from tests.conftest import connect, serve_unattended

pytestmark = pytest.mark.anyio

SECRET = "salary: 123,456 "


def link_of(text: str) -> str:
    found = re.search(r"mcp-notebook://results/\S+", text)
    assert found is not None, text
    return found.group(0).rstrip(".,")


async def test_a_kept_result_is_unknown_to_another_notebook_on_the_same_store(
    catalogue: Catalogue, tmp_path: Path
) -> None:
    @tool(catalogue=catalogue, read_only=True)
    def payroll() -> str:
        """The whole payroll."""
        return SECRET * 200

    store = f"sqlite:///{tmp_path / 'shared-cache.sqlite3'}"  # as every notebook's default file is
    hr = serve_unattended(catalogue, store=store, name="hr-3f9a2c1d", result_limit=1000)
    try:
        async with connect(hr, "auto") as client:
            kept = link_of((await client.call_tool("payroll", {})).content[0].text)
            assert (await client.read_resource(kept)).contents[0].text.startswith(SECRET)  # type: ignore[union-attr]
    finally:
        hr.stop()

    scratch = serve_unattended(Catalogue(), store=store, name="scratch-77b0e412", result_limit=1000)
    try:
        async with connect(scratch, "auto") as client:  # the owner of another notebook
            with pytest.raises(MCPError) as caught:
                await client.read_resource(kept)
            with pytest.raises(MCPError) as never:
                await client.read_resource("mcp-notebook://results/payroll/never-was")
    finally:
        scratch.stop()
    assert caught.value.code == never.value.code
    assert caught.value.error.message.replace(kept, "URI") == never.value.error.message.replace(
        "mcp-notebook://results/payroll/never-was", "URI"
    )
    assert "salary" not in caught.value.error.message
