"""What the server keeps per handshake-era session has one owner, and goes when the session ends.

Real HTTP, real sessions (``Mcp-Session-Id``): a thousand of them opened and ended, some subscribed
to a resource, some with a log level, some with a call waiting for a person. After they end, every
container that holds something per session (the server's and the SDK's session manager's) is back
to the size it had before the first one opened.
"""

from __future__ import annotations

import concurrent.futures
import gc
import json
import socket
import threading
import weakref
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from mcp_notebook import Catalogue, publish, serve, tool
from mcp_notebook.client._http import tls_context
from mcp_notebook.core._approval_request import ApprovalRequest
from tests.conftest import INITIALIZE, until

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
ERA = "2025-11-25"


class Session:
    """One handshake-era session, opened by hand (initialize, then notifications/initialized)."""

    def __init__(self, srv: Any, http: httpx2.Client, token: str) -> None:
        self.srv, self.http = srv, http
        self.auth = {"Authorization": f"Bearer {token}"}
        opened = http.post(srv.url, json=INITIALIZE, headers={**HEADERS, **self.auth})
        assert opened.status_code == 200, opened.text
        self.id = opened.headers["mcp-session-id"]
        self.headers = {**HEADERS, **self.auth, "Mcp-Session-Id": self.id, "MCP-Protocol-Version": ERA}
        self.notify("notifications/initialized")

    def notify(self, method: str) -> None:
        answer = self.http.post(self.srv.url, json={"jsonrpc": "2.0", "method": method}, headers=self.headers)
        assert answer.status_code == 202, answer.text

    def request(self, method: str, params: dict[str, Any]) -> None:
        body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
        answer = self.http.post(self.srv.url, json=body, headers=self.headers)
        assert answer.status_code == 200 and '"error"' not in answer.text, answer.text

    def call_and_leave_open(self, name: str) -> socket.socket:
        """A tools/call on a connection of its own, never read: closing the socket hangs up on it."""
        body = json.dumps(
            {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": name, "arguments": {}}}
        ).encode()
        headers = {**self.headers, "Host": f"127.0.0.1:{self.srv.port}", "Content-Length": str(len(body))}
        raw = socket.create_connection(("127.0.0.1", self.srv.port), timeout=30)
        head = "".join(f"{key}: {value}\r\n" for key, value in headers.items())
        raw.sendall(f"POST /mcp HTTP/1.1\r\n{head}\r\n".encode() + body)
        return raw

    def end(self) -> int:
        """DELETE the session; the HTTP status (404: it had ended already)."""
        return self.http.delete(self.srv.url, headers=self.headers).status_code


def sizes(srv: Any) -> dict[str, int]:
    """The size of every container that holds something per session (measured, not counted)."""
    manager = srv.tool_server.sdk.session_manager
    return {
        "session states": len(srv.tool_server.sessions._states),
        "SDK transports": manager.session_count(),
        "SDK session owners": len(manager._session_owners),
        "approvals waiting": len(srv.approval.pending),
    }


class Asked:
    """Approval prompts as they are shown (called on the server's thread)."""

    def __init__(self, srv: Any) -> None:
        self.requests: list[ApprovalRequest] = []
        self._lock = threading.Lock()
        srv.approval.listeners.append(self._on)

    def _on(self, request: ApprovalRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def count(self) -> int:
        with self._lock:
            return len(self.requests)


@pytest.fixture
def srv(catalogue: Catalogue) -> Iterator[Any]:
    ran: list[str] = []

    @tool(catalogue=catalogue, destructive=True)
    def drop_table() -> str:
        """Drop a table (a person is asked first)."""
        ran.append("drop_table")
        return "dropped"

    publish("v1", "notes://live", name="live", catalogue=catalogue)
    server = serve(catalogue=catalogue, approval_timeout=120)
    server.ran = ran
    try:
        yield server
    finally:
        server.stop()


def test_a_thousand_sessions_leave_nothing_behind(srv: Any) -> None:
    baseline = sizes(srv)
    sessions = srv.tool_server.sessions
    kept: list[weakref.ref[Any]] = []  # each session's SDK session object, once the server holds it
    asked = Asked(srv)

    def open_and_end(index: int) -> None:
        with httpx2.Client(verify=tls_context(), timeout=30) as http:
            session = Session(srv, http, srv.token)
            state = sessions.get(session.id)
            assert state is not None
            # The server keeps the session to notify once its notifications/initialized is handled.
            assert until(lambda: state.session is not None)
            kept.append(weakref.ref(state.session))
            if index % 100 == 1:
                session.request("resources/subscribe", {"uri": "notes://live"})
                assert state.subscriptions == {"notes://live"}
            if index % 100 == 2:
                session.request("logging/setLevel", {"level": "warning"})
                assert state.log_level == "warning"
            assert session.end() in (200, 204)

    # Most of the thousand: opened, used, ended by their client (DELETE), eight at a time.
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(open_and_end, range(990)))

    # Ten with a call waiting for a person: five clients hang up on the call, five end the session.
    with httpx2.Client(verify=tls_context(), timeout=30) as http:
        waiting = [Session(srv, http, srv.token) for _ in range(10)]
        sockets = [session.call_and_leave_open("drop_table") for session in waiting]
        assert until(lambda: asked.count() == 10), asked.count()
        for session in waiting:
            state = sessions.get(session.id)
            assert state is not None and list(state.waiting) == ["9"]
        for raw in sockets[:5]:
            raw.close()  # the client is gone: the prompt is withdrawn, the session stays
        left = [sessions.get(session.id) for session in waiting]
        assert until(lambda: [bool(state.waiting) for state in left if state] == [False] * 5 + [True] * 5)
        assert len(srv.approval.pending) == 5
        for session in waiting:
            assert session.end() in (200, 204)  # the five calls still waiting are withdrawn with it
        for raw in sockets[5:]:
            raw.close()

    # Sessions closed to make room: one credential opens more than its cap (32) and ends none itself.
    crowd = srv.add_client("crowd")
    with httpx2.Client(verify=tls_context(), timeout=30) as http:
        flood = [Session(srv, http, crowd) for _ in range(40)]
        assert sessions.of("crowd") == [session.id for session in flood[-32:]]
        ended = [session.end() for session in flood]
        assert ended[:8] == [404] * 8 and all(status in (200, 204) for status in ended[8:])

    assert until(lambda: sizes(srv) == baseline), sizes(srv)
    assert all(request.decision == "withdrawn" for request in asked.requests), asked.requests
    assert srv.ran == []  # no withdrawn call ever ran
    assert len(kept) == 990

    def released() -> bool:
        gc.collect()
        return all(ref() is None for ref in kept)

    assert until(released), sum(ref() is not None for ref in kept)  # nothing else holds a session


def test_sessions_that_end_on_their_own_leave_nothing_behind(catalogue: Catalogue) -> None:
    publish("v1", "notes://live", name="live", catalogue=catalogue)
    with pytest.warns(UserWarning, match="approval='auto'"):
        srv = serve(catalogue=catalogue, approval="auto", session_idle_timeout=3)
    try:
        baseline = sizes(srv)
        with httpx2.Client(verify=tls_context(), timeout=30) as http:
            for index in range(20):
                session = Session(srv, http, srv.token)
                session.request("resources/subscribe", {"uri": "notes://live"})
                if index % 2:
                    session.request("logging/setLevel", {"level": "error"})
        assert len(srv.tool_server.sessions) > 0
        assert until(lambda: sizes(srv) == baseline, timeout=30), sizes(srv)  # idle for 3 s: ended
    finally:
        srv.stop()
