"""The HTTP layer: token, Origin/Host checks, malformed input, versions, lifecycle of the port."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from mcp_notebook import Catalogue, ServerError, serve, stop, tool
from tests.wire import INIT, post

LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


def test_url_has_no_token_and_is_loopback(server: Any) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    assert server.url.endswith("/mcp")
    assert server.token not in server.url
    assert len(server.token) >= 24


def test_no_token_is_401_saying_where_the_token_is(server: Any) -> None:
    response = post(server, INIT, token=None)
    assert response.status_code == 401
    message = response.json()["error"]["message"]
    assert "srv.token" in message and "Authorization: Bearer" in message and "?token=" in message
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert post(server, INIT, token="wrong").status_code == 401


def test_token_accepted_as_bearer_and_as_query(server: Any) -> None:
    assert post(server, INIT).status_code == 200
    assert post(server, INIT, token=None, url=f"{server.url}?token={server.token}").status_code == 200


def test_foreign_origin_403_and_foreign_host_421(server: Any) -> None:
    assert post(server, INIT, Origin="http://evil.example").status_code == 403
    assert post(server, INIT, Host="evil.example").status_code == 421
    assert post(server, INIT, Origin=f"http://localhost:{server.port}").status_code == 200


def test_token_from_environment(monkeypatch: pytest.MonkeyPatch, catalogue: Catalogue) -> None:
    monkeypatch.setenv("MCP_NOTEBOOK_TOKEN", "class-token-12345")
    srv = serve(catalogue=catalogue)
    try:
        assert srv.token == "class-token-12345"
        assert post(srv, INIT, token="class-token-12345").status_code == 200
    finally:
        srv.stop()


def test_malformed_json_is_parse_error(server: Any) -> None:
    response = post(server, b'{"jsonrpc": "2.0", "id": 1, "method": ', MCP_PROTOCOL_VERSION="2025-11-25")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700


def test_unsupported_version_lists_both_eras(server: Any) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/list",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2099-01-01",
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }
    response = post(server, body, **{"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32022
    assert "2025-11-25" in error["data"]["supported"] and "2026-07-28" in error["data"]["supported"]


def test_stateless_era_checks_headers_against_body(server: Any) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/list",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }
    good = post(server, body, **{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
    assert good.status_code == 200
    assert '"resultType":"complete"' in good.text.replace(" ", "")
    assert '"ttlMs"' in good.text
    bad = post(server, body, **{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"})
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == -32020


def test_serve_twice_returns_the_running_server(server: Any) -> None:
    assert serve() is server
    assert serve(port=1) is server


def test_stop_frees_the_port_and_is_idempotent(catalogue: Catalogue) -> None:
    srv = serve(catalogue=catalogue)
    port = srv.port
    srv.stop()
    srv.stop()
    stop()
    assert srv.running is False
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", port))  # would raise EADDRINUSE if the server still held it
    again = serve(port=port, catalogue=catalogue)
    try:
        assert again.port == port and again is not srv
    finally:
        again.stop()


def test_port_in_use_is_a_clear_error(catalogue: Catalogue) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        with pytest.raises(ServerError, match=f"Port {port} on 127.0.0.1 is already in use.*port=0"):
            serve(port=port, catalogue=catalogue)


def test_beyond_loopback_needs_consent_and_warns(catalogue: Catalogue) -> None:
    with pytest.raises(ServerError, match="allow_remote=True"):
        serve(host="0.0.0.0", catalogue=catalogue)
    with pytest.warns(UserWarning, match="beyond this machine's loopback"):
        srv = serve(host="0.0.0.0", allow_remote=True, catalogue=catalogue)
    srv.stop()


def test_definition_errors_say_how_to_fix() -> None:
    from mcp_notebook import ToolDefinitionError

    with pytest.raises(ToolDefinitionError, match=r"name='get_weather_now'"):

        @tool(name="get weather now!", catalogue=Catalogue())
        def anything() -> None:
            """x"""

    with pytest.raises(ToolDefinitionError, match="128"):
        tool(name="x" * 129, catalogue=Catalogue())(lambda: None)


def test_tokens_never_start_with_a_dash() -> None:
    from mcp_notebook.core._secrets import new_token

    # One token in 64 would start with "-" and be read as an option on a command line.
    assert not any(new_token().startswith("-") for _ in range(2000))
