"""Attack: the person clicks "Always allow" for one client, and every other client is let through too.

"Always allow" was remembered per tool: after the person trusted Claude Code with `delete_row`,
any other client's `delete_row` ran without a prompt. Now it holds for the identity that was
allowed; everyone else is still asked.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from mcp_notebook import Catalogue, serve, tool
from tests.security.conftest import client_as

pytestmark = pytest.mark.anyio


async def call_answering(srv: Any, token: str, decide: Any) -> tuple[Any, list[Any]]:
    """Call delete_row as the client of `token`; `decide(request)` answers any prompt. (result, prompts)."""
    prompts: list[Any] = []
    asked = threading.Event()

    def on_request(request: Any) -> None:
        prompts.append(request)
        decide(request)
        asked.set()

    srv.approval.listeners.append(on_request)
    try:
        async with client_as(srv, token, "auto", claims="claude-code") as client:
            result = await client.call_tool("delete_row", {"row": 1})
    finally:
        srv.approval.listeners.remove(on_request)
    return result, prompts


async def test_always_allow_for_one_client_is_not_for_another(catalogue: Catalogue) -> None:
    deleted: list[int] = []

    @tool(catalogue=catalogue, destructive=True)
    def delete_row(row: int) -> str:
        """Delete a row."""
        deleted.append(row)
        return "deleted"

    srv = serve(catalogue=catalogue, approval_timeout=10)
    try:
        trusted, stranger = srv.add_client("claude-code"), srv.add_client("stranger")
        _, prompts = await call_answering(srv, trusted, lambda r: r.always_allow())
        assert len(prompts) == 1
        again, prompts = await call_answering(srv, trusted, lambda r: r.deny())
        assert prompts == [] and again.is_error is False  # trusted: not asked again
        theirs, prompts = await call_answering(srv, stranger, lambda r: r.deny())
    finally:
        srv.stop()
    assert len(prompts) == 1 and prompts[0].client == "stranger"  # asked, although it claims the same name
    assert theirs.is_error is True and deleted == [1, 1]
    assert srv.approval.allowed == {("claude-code", "delete_row")}
