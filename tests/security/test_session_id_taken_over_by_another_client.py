"""Attack: present another client's 2025-11-25 session id to a worker that does not hold it.

Workers (or replicas) sharing a store take over a session another process opened, from its
recorded handshake. The session id must not be enough: a client whose credential is not the one
that opened the session gets the 404 of an unknown session, never an answer in that session, and
the session is left to its owner. Two replicas of the exported example share one SQLite store
(as ``uvicorn --workers`` on one machine does); the session opens on one, the other is asked.
"""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from mcp_notebook.client._http import tls_context
from tests.conftest import INITIALIZE
from tests.exported import export_example, service_environ, token_of
from tests.services import Replica

pytestmark = pytest.mark.replicas

CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "served_by", "arguments": {}}}


def headers_of(client: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token_of(client)}", "Accept": "application/json, text/event-stream"}


def answer(response: httpx2.Response) -> dict:
    """The JSON-RPC message of a reply, whether one JSON body or one SSE event."""
    import json

    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(next(d for d in data if d))
    return response.json()


def test_another_client_cannot_take_over_a_recorded_session(tmp_path: Path) -> None:
    environ = service_environ(export_example(tmp_path), f"sqlite:///{tmp_path / 'shared.sqlite3'}")
    opener, other = Replica(tmp_path, environ), Replica(tmp_path, environ)
    try:
        with httpx2.Client(verify=tls_context(), timeout=30) as http:
            opened = http.post(opener.url, json=INITIALIZE, headers=headers_of("client00"))
            assert opened.status_code == 200
            session = {
                "Mcp-Session-Id": opened.headers["mcp-session-id"],
                "MCP-Protocol-Version": "2025-11-25",
            }
            notified = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            http.post(opener.url, json=notified, headers={**headers_of("client00"), **session})

            # Another credential, on the process that does not hold the session: unknown to it.
            stolen = http.post(other.url, json=CALL, headers={**headers_of("client01"), **session})
            assert stolen.status_code == 404, stolen.text
            assert "send initialize again" in stolen.json()["error"]["message"]
            # And on the process that holds it (the SDK's own check): the same.
            stolen = http.post(opener.url, json=CALL, headers={**headers_of("client01"), **session})
            assert stolen.status_code == 404

            # The owner's session is untouched, and the other process serves it for the owner.
            for url, replica in ((other.url, other), (opener.url, opener)):
                mine = http.post(url, json=CALL, headers={**headers_of("client00"), **session})
                assert mine.status_code == 200, mine.text
                result = answer(mine)["result"]["structuredContent"]
                assert result == {**result, "client": "client00", "pid": replica.pid}
    finally:
        opener.stop()
        other.stop()
