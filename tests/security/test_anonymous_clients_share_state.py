"""Attack: 2026-07-28 requests without clientInfo all count as one client, "anonymous".

clientInfo is optional in the stateless era, so every client that left it out shared one name,
and with it each other's handles, idempotent results and rate limits. Now each token is its own
identity, with or without clientInfo.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_notebook import Catalogue, HandleStore, current_client, tool
from tests.conftest import serve_unattended
from tests.security.conftest import post_modern, reply


@pytest.fixture
def server(catalogue: Catalogue) -> Any:
    notes = HandleStore(creator="write_note")

    @tool(catalogue=catalogue)
    def write_note(text: str) -> str:
        """Keep a note; its handle comes back."""
        return notes.mint(current_client(), "note", text)

    @tool(catalogue=catalogue, read_only=True)
    def read_note(note: str) -> str:
        """Read a note kept earlier."""
        text: str = notes.resolve(note, current_client(), "note")
        return text

    srv = serve_unattended(catalogue)
    try:
        yield srv
    finally:
        srv.stop()


def call(srv: Any, token: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer = reply(post_modern(srv, "tools/call", {"name": name, "arguments": arguments}, token=token))
    result: dict[str, Any] = answer["result"]
    return result


def test_two_clients_without_client_info_do_not_share_handles(server: Any) -> None:
    first, second = server.add_client("first"), server.add_client("second")
    note = call(server, first, "write_note", {"text": "the launch code"})["content"][0]["text"]
    theirs = call(server, second, "read_note", {"note": note})
    assert theirs["isError"] is True and "launch" not in theirs["content"][0]["text"]
    assert call(server, first, "read_note", {"note": note})["content"][0]["text"] == "the launch code"
    assert [record.client for record in server.calls[-3:]] == ["first", "second", "first"]
    assert all(record.claimed is None for record in server.calls[-3:])  # nobody claimed anything
