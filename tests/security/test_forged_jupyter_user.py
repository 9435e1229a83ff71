"""Attack: claim to be another Jupyter user by sending the header the extension names users in.

The Jupyter server extension tells the kernel's server who Jupyter authenticated in
``X-MCP-Notebook-User``. A browser or client that sends that header itself must gain nothing:
through the extension it is replaced by the authenticated user; sent straight to the kernel's
server with any credential but the extension's own, it is ignored; and the extension's
credential without a user name proves nobody.
"""

from __future__ import annotations

import getpass
from typing import Any

import httpx
import pytest

from mcp_notebook import Catalogue, current_client, tool
from mcp_notebook.core._identity import FORWARDED_USER_HEADER
from mcp_notebook.core._secrets import new_token
from tests.conftest import INITIALIZE, serve_unattended


@pytest.mark.kernel
def test_through_the_extension_the_header_is_the_logged_in_users(jupyter_shop: Any) -> None:
    raw = httpx.post(
        jupyter_shop.mcp_url,
        json=INITIALIZE,
        headers={
            "Authorization": f"Bearer {jupyter_shop.server.token}",
            "Accept": "application/json, text/event-stream",
            FORWARDED_USER_HEADER: "teacher",
        },
    )
    assert raw.status_code == 200
    session = raw.headers["mcp-session-id"]
    called = httpx.post(
        jupyter_shop.mcp_url,
        json={
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "whoami", "arguments": {}},
        },
        headers={
            "Authorization": f"Bearer {jupyter_shop.server.token}",
            "Accept": "application/json, text/event-stream",
            "Mcp-Session-Id": session,
            "MCP-Protocol-Version": "2025-11-25",
            FORWARDED_USER_HEADER: "teacher",
        },
    )
    assert f"jupyter:{getpass.getuser()}" in called.text and "teacher" not in called.text


@pytest.fixture
def shop(catalogue: Catalogue) -> Any:
    @tool(catalogue=catalogue, read_only=True)
    def whoami() -> str:
        """The caller's identity."""
        return current_client()

    srv = serve_unattended(catalogue)
    yield srv
    srv.stop()


def _call(srv: Any, token: str, user: str | None) -> httpx.Response:
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "whoami",
    }
    if user is not None:
        headers[FORWARDED_USER_HEADER] = user
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}, "_meta": meta},
    }
    return httpx.post(srv.url, json=body, headers=headers)


def test_straight_to_the_kernel_a_clients_header_is_ignored(shop: Any) -> None:
    token = shop.add_client("claude-code")
    answer = _call(shop, token, "teacher")
    assert answer.status_code == 200
    assert answer.json()["result"]["content"][0]["text"] == "claude-code"
    owner = _call(shop, shop.token, "teacher")
    assert owner.json()["result"]["content"][0]["text"] == "owner"


def test_the_extensions_credential_names_only_the_user_it_sends(shop: Any) -> None:
    forwarder = new_token()
    shop.tool_server.identities.set_forwarder(forwarder)
    assert _call(shop, forwarder, "alice").json()["result"]["content"][0]["text"] == "jupyter:alice"
    assert _call(shop, forwarder, None).status_code == 401  # alone it proves nobody
    assert _call(shop, forwarder, "%FF%FE").status_code == 401  # not UTF-8: no name at all
    shop.tool_server.identities.set_forwarder(None)  # withdrawn when the server leaves Jupyter
    assert _call(shop, forwarder, "alice").status_code == 401
