"""Attack: read large results kept for someone else, by guessing their link.

A result too large for a model is kept as a resource behind a ``resource_link``. Its URI was a
counter, ``mcp-notebook://results/<tool>/<n>``, readable by anyone with a token: an outside client
read the result of a hidden (``expose=False``) tool that the notebook had called, and one client
read another's. Now a kept result has an unguessable id and only the identity whose call made it
can read it; a read by anyone else is answered exactly like a read of a link that never existed.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

import mcp_notebook
from mcp_notebook import Catalogue, tool
from tests.conftest import ERAS, connect, serve_unattended
from tests.security.conftest import client_as

pytestmark = pytest.mark.anyio

SECRET = "salary: 123,456 "


@pytest.fixture
def server(catalogue: Catalogue) -> Any:
    @tool(catalogue=catalogue, read_only=True, expose=False)
    def payroll() -> str:
        """The whole payroll (only for the notebook)."""
        return SECRET * 200

    @tool(catalogue=catalogue, read_only=True)
    def report(owner: str) -> str:
        """A long report."""
        return f"{owner}'s report " * 400

    srv = serve_unattended(catalogue, result_limit=1000)
    try:
        yield srv
    finally:
        srv.stop()


def link_of(text: str) -> str:
    found = re.search(r"mcp-notebook://results/\S+", text)
    assert found is not None, text
    return found.group(0).rstrip(".,")


async def read_error(client: Any, uri: str) -> tuple[int, str]:
    with pytest.raises(MCPError) as caught:
        await client.read_resource(uri)
    return caught.value.code, caught.value.error.message


@pytest.mark.parametrize("mode", ERAS)
async def test_the_notebooks_hidden_result_cannot_be_read_from_outside(server: Any, mode: Any) -> None:
    kept = link_of(mcp_notebook.call("payroll").text)  # the notebook runs its hidden tool
    assert mcp_notebook.read_resource(kept).text.startswith(SECRET)  # the notebook reads it back
    guesses = [kept, "mcp-notebook://results/payroll/1", "mcp-notebook://results/payroll/2"]
    async with connect(server, mode) as client:  # the owner's token, from outside
        refusals = [await read_error(client, uri) for uri in guesses]
        nothing = await read_error(client, "mcp-notebook://results/payroll/never-was")
    for (code, message), uri in zip(refusals, guesses, strict=True):
        assert (code, message.replace(uri, "URI")) == (
            nothing[0],
            nothing[1].replace("mcp-notebook://results/payroll/never-was", "URI"),
        )
        assert "salary" not in message


@pytest.mark.parametrize("mode", ERAS)
async def test_one_clients_kept_result_is_not_anothers(server: Any, mode: Any) -> None:
    alice, bob = server.add_client("alice"), server.add_client("bob")
    async with client_as(server, alice, mode) as client:
        result = await client.call_tool("report", {"owner": "alice"})
        kept = link_of(result.content[0].text)
        assert result.content[1].uri == kept  # the resource_link block carries the same link
        mine = await client.read_resource(kept)
    assert mine.contents[0].text.startswith("alice's report")
    async with client_as(server, bob, mode, claims="mcp") as client:
        code, message = await read_error(client, kept)
    assert code in (-32602, -32002) and "alice's report" not in message


async def test_kept_links_are_unguessable(server: Any) -> None:
    links = {link_of(mcp_notebook.call("report", {"owner": "x"}).text) for _ in range(3)}
    assert len(links) == 3
    for link in links:
        identifier = link.rsplit("/", 1)[1]
        assert len(identifier) >= 22 and not identifier.isdigit()  # >= 128 random bits, not a counter
