"""Attack: a client repeats another client's idempotency key and is handed the other's result.

Stored results were scoped by the self-reported name: a client that claimed another's name (or
sent no clientInfo, like every other such client) and guessed or saw its key got that client's
stored result (an order, with its details) and its own order was never placed. Now the key lives
in the scope of the identity the token proves: another client's repeat runs the tool for itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcp_notebook import Catalogue, current_client, tool
from tests.conftest import ERAS, serve_unattended
from tests.security.conftest import client_as

pytestmark = pytest.mark.anyio

KEY = "order-7f3a9c2e5b1d4e60"


@pytest.mark.parametrize("mode", ERAS)
async def test_the_same_key_from_another_client_runs_for_that_client(
    catalogue: Catalogue, tmp_path: Path, mode: Any
) -> None:
    placed: list[str] = []

    @tool(catalogue=catalogue, idempotency_key=True)
    def place_order(item: str) -> dict[str, Any]:
        """Place an order (a retry with the same key does not place it twice)."""
        placed.append(current_client())
        return {"order": len(placed), "for": current_client(), "item": item, "card": "**** 4242"}

    srv = serve_unattended(catalogue, idempotency_path=tmp_path / "idem.sqlite3")
    try:
        alice, mallory = srv.add_client("alice"), srv.add_client("mallory")
        arguments = {"item": "ring", "idempotency_key": KEY}
        async with client_as(srv, alice, mode, claims="alice") as client:
            first = (await client.call_tool("place_order", arguments)).structured_content
            retry = (await client.call_tool("place_order", arguments)).structured_content
        async with client_as(srv, mallory, mode, claims="alice") as client:
            theirs = (await client.call_tool("place_order", arguments)).structured_content
    finally:
        srv.stop()
    assert first == retry and first["for"] == "alice"  # Alice's retry is deduplicated
    assert theirs["for"] == "mallory" and theirs["order"] == 2  # Mallory gets her own run...
    assert "4242" not in str(theirs).replace(theirs["card"], "")  # ...and nothing of Alice's
    assert placed == ["alice", "mallory"]
