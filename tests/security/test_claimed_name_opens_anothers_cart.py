"""Attack: a client says it is "alice" (clientInfo.name) and works with Alice's handles.

Handles are bound to `current_client()`. When that was the self-reported name, Mallory, with a
valid token of her own, claimed to be "alice" and opened, read and filled Alice's cart. Now the
identity comes from the token: the claim changes nothing but what the activity log shows.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_notebook import Catalogue, HandleStore, current_client, tool
from tests.conftest import ERAS, serve_unattended
from tests.security.conftest import client_as, post_modern, reply

pytestmark = pytest.mark.anyio


def shop(catalogue: Catalogue) -> HandleStore:
    carts = HandleStore(creator="open_cart")

    @tool(catalogue=catalogue)
    def open_cart() -> dict[str, str]:
        """Open a new shopping cart and return its handle."""
        return {"cart": carts.mint(current_client(), "cart", ["alice's ring"])}

    @tool(catalogue=catalogue, read_only=True)
    def view_cart(cart: str) -> list[str]:
        """What is in a cart."""
        items: list[str] = carts.resolve(cart, current_client(), "cart")
        return items

    @tool(catalogue=catalogue, read_only=True)
    def whoami() -> str:
        """Who the server thinks is calling."""
        return current_client()

    return carts


@pytest.fixture
def server(catalogue: Catalogue) -> Any:
    shop(catalogue)
    srv = serve_unattended(catalogue)
    try:
        yield srv
    finally:
        srv.stop()


@pytest.mark.parametrize("mode", ERAS)
async def test_claiming_alices_name_does_not_open_her_cart(server: Any, mode: Any) -> None:
    alice, mallory = server.add_client("alice"), server.add_client("mallory")
    async with client_as(server, alice, mode, claims="alice") as client:
        cart = (await client.call_tool("open_cart", {})).structured_content["cart"]
    async with client_as(server, mallory, mode, claims="alice") as client:
        assert (await client.call_tool("whoami", {})).structured_content == {"result": "mallory"}
        stolen = await client.call_tool("view_cart", {"cart": cart})
    assert stolen.is_error and "is not a valid cart handle" in stolen.content[0].text
    assert "ring" not in stolen.content[0].text
    # The activity log names the caller by its token, and shows the claim as a claim.
    last = server.calls[-1]
    assert last.client == "mallory" and last.claimed == "alice"
    assert last.who == "mallory (claims to be alice)"
    async with client_as(server, alice, mode, claims="whatever-app") as client:
        mine = await client.call_tool("view_cart", {"cart": cart})
    assert mine.structured_content == {
        "result": ["alice's ring"]
    }  # Alice's token is Alice, whatever she claims


def test_a_stateless_request_claiming_alice_is_not_alice(server: Any) -> None:
    alice, mallory = server.add_client("alice"), server.add_client("mallory")
    opened = reply(post_modern(server, "tools/call", {"name": "open_cart", "arguments": {}}, token=alice))
    cart = opened["result"]["structuredContent"]["cart"]
    stolen = reply(
        post_modern(
            server,
            "tools/call",
            {"name": "view_cart", "arguments": {"cart": cart}},
            token=mallory,
            claims="alice",
        )
    )
    assert stolen["result"]["isError"] is True and "ring" not in json_text(stolen)


def json_text(answer: dict[str, Any]) -> str:
    import json

    return json.dumps(answer)
