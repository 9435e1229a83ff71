"""Identities: per-client tokens (`add_client`, `revoke_client`, `client_config`), and who a request is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import mcp_notebook
from mcp_notebook import Catalogue, Context, current_client, set_language, tool
from mcp_notebook.core._identity import Identities, default_server_name, notebook_path
from tests.conftest import INITIALIZE, serve_unattended
from tests.security.conftest import client_as

pytestmark = pytest.mark.anyio

ACCEPT = "application/json, text/event-stream"


@pytest.fixture
def server(catalogue: Catalogue) -> Any:
    @tool(catalogue=catalogue, read_only=True)
    def whoami(ctx: Context) -> dict[str, Any]:
        """Who the server says is calling, and who the client says it is."""
        return {"current": current_client(), "context": ctx.client, "claimed": ctx.claimed_client}

    srv = serve_unattended(catalogue)
    try:
        yield srv
    finally:
        srv.stop()


# -- the registry ---------------------------------------------------------------------------------------
def test_a_client_gets_a_token_of_its_own_and_the_same_one_when_asked_again() -> None:
    ids = Identities("owner-token-0123456789")
    token = ids.add("claude-code")
    assert len(token) >= 32 and token != "owner-token-0123456789"
    assert ids.add("claude-code") == token  # re-running the cell does not break a configured client
    assert ids.identify(token.encode()).name == "claude-code"  # type: ignore[union-attr]
    assert ids.identify(b"owner-token-0123456789").name == "owner"  # type: ignore[union-attr]
    assert ids.identify(b"not-a-token") is None and ids.identify(b"") is None
    assert ids.clients() == ["claude-code"]


def test_a_chosen_token_is_checked_and_can_replace_the_old_one() -> None:
    ids = Identities("owner-token-0123456789")
    old = ids.add("alice")
    chosen = "alice-kept-across-restarts-42"
    assert ids.add("alice", chosen) == chosen
    assert ids.identify(old.encode()) is None  # the old token no longer works
    with pytest.raises(ValueError, match="at least 16 characters"):
        ids.add("bob", "short")
    with pytest.raises(ValueError, match="at least 16 characters"):
        ids.add("bob", "has a space in it, sadly")
    with pytest.raises(ValueError, match="already belongs to 'alice'"):
        ids.add("bob", chosen)
    with pytest.raises(ValueError, match="already belongs to 'owner'"):
        ids.add("bob", "owner-token-0123456789")


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "cannot be a client name"),
        ("has space", "cannot be a client name"),
        ("-leading-dash", "cannot be a client name"),
        ("x" * 65, "cannot be a client name"),
        ("notebook", "reserved"),
        ("OWNER", "reserved"),
    ],
)
def test_client_names_are_checked_with_a_clear_error(name: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        Identities("owner-token-0123456789").add(name)


def test_names_that_differ_only_in_case_are_refused() -> None:
    ids = Identities("owner-token-0123456789")
    ids.add("alice")
    with pytest.raises(ValueError, match="differs from it only in case"):
        ids.add("Alice")


def test_revoking_an_unknown_client_lists_the_known_ones() -> None:
    ids = Identities("owner-token-0123456789")
    ids.add("alice")
    with pytest.raises(KeyError, match=r"no client named 'bob'.*'alice'"):
        ids.revoke("bob")
    with pytest.raises(KeyError):
        ids.revoke("owner")  # the server token is not a client's: stop the server to end it


def test_errors_in_korean_pick_their_particles() -> None:
    set_language("ko")
    try:
        with pytest.raises(KeyError, match="'bob'이라는 클라이언트가 없습니다"):
            Identities("owner-token-0123456789").revoke("bob")
        with pytest.raises(ValueError, match="예약된 이름"):
            Identities("owner-token-0123456789").add("notebook")
    finally:
        set_language("en")


# -- over the wire ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_identity_is_the_tokens_and_the_claim_is_kept_apart(server: Any, mode: Any) -> None:
    token = server.add_client("claude-code")
    async with client_as(server, token, mode, claims="Claude Code") as client:
        seen = (await client.call_tool("whoami", {})).structured_content
    assert seen == {"current": "claude-code", "context": "claude-code", "claimed": "Claude Code"}
    async with client_as(server, server.token, mode, claims="anything") as client:
        seen = (await client.call_tool("whoami", {})).structured_content
    assert seen["current"] == "owner" and seen["claimed"] == "anything"
    assert mcp_notebook.call("whoami").structured_content["current"] == "notebook"  # the notebook's own call


def test_a_client_token_works_as_query_too(server: Any) -> None:
    token = server.add_client("inspector")
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
    headers = {"Accept": ACCEPT, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
    answer = httpx.post(f"{server.url}?token={token}", json=body, headers=headers, timeout=10)
    assert answer.status_code == 200
    assert server.activity[-1].client == "inspector"


def test_revoking_a_client_refuses_its_next_request_and_its_open_session(server: Any) -> None:
    token = server.add_client("intern")
    headers = {"Accept": ACCEPT, "Authorization": f"Bearer {token}", "MCP-Protocol-Version": "2025-11-25"}
    opened = httpx.post(server.url, json=INITIALIZE, headers=headers, timeout=10)
    session = {**headers, "Mcp-Session-Id": opened.headers["mcp-session-id"]}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    assert httpx.post(server.url, json=listing, headers=session, timeout=10).status_code == 200
    # The session is the identity's that opened it: another valid token cannot ride on it.
    as_owner = {**session, "Authorization": f"Bearer {server.token}"}
    assert httpx.post(server.url, json=listing, headers=as_owner, timeout=10).status_code == 404
    server.revoke_client("intern")
    refused = httpx.post(server.url, json=listing, headers=session, timeout=10)
    assert refused.status_code == 401 and "token" in refused.json()["error"]["message"]
    assert server.clients == []


def test_client_config_writes_the_clients_own_token(server: Any) -> None:
    config = json.loads(server.client_config("cursor"))
    header = config["mcpServers"]["notebook"]["headers"]["Authorization"]
    assert header == f"Bearer {server.add_client('cursor')}" and server.token not in header
    assert server.client_config("cursor") == server.client_config("cursor")  # asked twice: the same token
    alice = server.client_config("claude-code", identity="alice")
    assert server.add_client("alice") in alice and server.clients == ["alice", "cursor"]
    assert server.token in server.client_config("vscode", identity="owner")  # on purpose only
    with pytest.raises(ValueError, match="claude-code"):
        server.client_config("notepad")  # an unknown client makes no token
    assert server.clients == ["alice", "cursor"]


def test_check_connects_with_a_clients_token(server: Any) -> None:
    server.add_client("cursor")
    assert server.check(identity="cursor").ok is True
    with pytest.raises(KeyError, match="no client named 'nobody'"):
        server.check(identity="nobody")


def test_outside_a_call_the_caller_is_the_notebook() -> None:
    assert current_client() == "notebook"  # a tool function called directly in a cell


# -- the server's name ------------------------------------------------------------------------------------
def test_the_server_name_comes_from_the_notebooks_path(tmp_path: Path) -> None:
    shop = {"JPY_SESSION_NAME": str(tmp_path / "shop" / "orders.ipynb")}
    other = {"JPY_SESSION_NAME": str(tmp_path / "archive" / "orders.ipynb")}
    name = default_server_name(shop)
    assert name.startswith("orders-") and len(name) == len("orders-") + 8
    assert default_server_name(shop) == name  # stable: a kernel restart keeps it
    assert default_server_name(other) != name  # another folder's orders.ipynb is another notebook
    assert notebook_path({}) is None and default_server_name({}).startswith("untitled-")
    korean = default_server_name({"JPY_SESSION_NAME": str(tmp_path / "05 도구 설계.ipynb")})
    assert korean.startswith("05-도구-설계-")


def test_serve_takes_a_name_and_checks_it(catalogue: Catalogue) -> None:
    srv = serve_unattended(catalogue, name="orders")
    try:
        assert srv.name == "orders" and "orders" in srv.panel().header.value
    finally:
        srv.stop()
    with pytest.raises(ValueError, match="server name"):
        mcp_notebook.serve(catalogue=catalogue, name="")


@pytest.mark.kernel
def test_a_jupyter_kernel_names_its_server_after_its_notebook(tmp_path: Path) -> None:
    import os

    from tests.kernel import Kernel

    # A Jupyter server starts a notebook's kernel with JPY_SESSION_NAME set to the notebook's path.
    path = tmp_path / "shop" / "orders.ipynb"
    kernel = Kernel(cwd=str(tmp_path), env={**os.environ, "JPY_SESSION_NAME": str(path)})
    try:
        kernel.run("%load_ext mcp_notebook\nsrv = %mcp_serve").raise_for_error()
        name = kernel.json("srv.name")
        kernel.run("srv.stop()").raise_for_error()
    finally:
        kernel.shutdown()
    assert name == default_server_name({"JPY_SESSION_NAME": str(path)}) and name.startswith("orders-")
