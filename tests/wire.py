"""JSON-RPC over HTTP by hand: what a hand-written or broken client sends, and what comes back.

For tests of the HTTP layer itself (framing, headers, malformed input); protocol tests use the SDK's
client (tests/conftest.py `connect`) or the in-memory lane (tests/memory.py).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from typing import Any

import httpx2

from mcp_notebook.client._http import tls_context
from tests.conftest import INITIALIZE

ACCEPT = "application/json, text/event-stream"
INIT = INITIALIZE


META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "faults", "version": "1"},
}


TRACEBACK_MARKERS = ("Traceback", 'File "', '.py", line')


class Wire:
    """JSON-RPC over HTTP by hand, in one era: what a hand-written or broken client sends."""

    def __init__(self, srv: Any, era: str) -> None:
        self.srv, self.era = srv, era
        self.http = httpx2.Client(
            verify=tls_context(),
            headers={
                "Authorization": f"Bearer {srv.token}",
                "Accept": ACCEPT,
                "Content-Type": "application/json",
            },
            timeout=httpx2.Timeout(30),
        )
        self.session: dict[str, str] = {}
        self._ids = itertools.count(2)
        if era == "2025-11-25":
            opened = self.http.post(srv.url, json=INITIALIZE)
            opened.raise_for_status()
            self.session = {"Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": era}
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert self.post(json.dumps(initialized).encode()).status_code == 202

    def close(self) -> None:
        self.http.close()

    def headers(self, method: str, name: str | None = None) -> dict[str, str]:
        """The headers this era requires for a request of `method` (on `name`)."""
        if self.era == "2025-11-25":
            return dict(self.session)
        headers = {"MCP-Protocol-Version": self.era, "Mcp-Method": method}
        if name is not None:
            headers["Mcp-Name"] = name
        return headers

    def message(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """A well-formed request of this era, with an id of its own (2026-07-28: the envelope in ``_meta``)."""
        params = dict(params or {})
        if self.era == "2026-07-28":
            params["_meta"] = META
        return {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params}

    def post(
        self,
        content: bytes | Iterable[bytes],
        method: str = "tools/list",
        name: str | None = None,
        **headers: str,
    ) -> httpx2.Response:
        return self.http.post(
            self.srv.url, content=content, headers={**self.headers(method, name), **headers}
        )

    def send(
        self, method: str, params: dict[str, Any] | None = None, name: str | None = None
    ) -> httpx2.Response:
        return self.post(json.dumps(self.message(method, params)).encode(), method, name)

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """tools/call, and the JSON-RPC answer."""
        return answer(self.send("tools/call", {"name": name, "arguments": arguments}, name))


def answer(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC message of a response, whether sent as JSON or as an SSE event."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        events = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        messages = [json.loads(event) for event in events if event.strip()]
        return next(m for m in reversed(messages) if "result" in m or "error" in m)
    message: dict[str, Any] = response.json()
    return message


def post(
    srv: Any, body: Any, *, token: str | None = "ok", url: str | None = None, **headers: str
) -> httpx2.Response:
    all_headers = {"Accept": ACCEPT, "Content-Type": "application/json", **headers}
    if token == "ok":
        all_headers["Authorization"] = f"Bearer {srv.token}"
    elif token is not None:
        all_headers["Authorization"] = f"Bearer {token}"
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx2.post(url or srv.url, content=content, headers=all_headers, timeout=10)


WIRE_ERAS = ["2025-11-25", "2026-07-28"]
