"""Attack: one client opens sessions until the cap closes everyone else's.

Handshake-era sessions are capped per identity (`_sessions`): one more than the cap closes that
identity's oldest idle session. While every token holder was the same identity, a client that opened
sessions in a loop closed the sessions of every other client of the notebook. Each client's own token
is its own identity, with a cap of its own: the flood closes only the flooder's sessions.
"""

from __future__ import annotations

from typing import Any

import httpx2

from mcp_notebook import Catalogue
from tests.conftest import INITIALIZE, serve_unattended

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def open_session(srv: Any, token: str) -> str:
    answer = httpx2.post(
        srv.url, json=INITIALIZE, headers={**HEADERS, "Authorization": f"Bearer {token}"}, timeout=30
    )
    assert answer.status_code == 200, answer.text
    return str(answer.headers["mcp-session-id"])


def session_alive(srv: Any, token: str, session: str) -> bool:
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    headers = {
        **HEADERS,
        "Authorization": f"Bearer {token}",
        "Mcp-Session-Id": session,
        "MCP-Protocol-Version": "2025-11-25",
    }
    return httpx2.post(srv.url, json=ping, headers=headers, timeout=30).status_code != 404


def test_a_flood_of_sessions_closes_only_the_flooders_own(catalogue: Catalogue) -> None:
    srv = serve_unattended(catalogue, max_sessions=3)
    try:
        editor, flooder = srv.add_client("editor"), srv.add_client("flooder")
        mine = [open_session(srv, editor) for _ in range(2)]
        flood = [open_session(srv, flooder) for _ in range(10)]
        assert all(session_alive(srv, editor, session) for session in mine)  # untouched by the flood
        alive = [session for session in flood if session_alive(srv, flooder, session)]
        assert alive == flood[-3:]  # the flooder keeps its cap's worth, the newest ones
    finally:
        srv.stop()
