"""How a request is answered on the wire: one JSON body, or an SSE stream when one is needed.

Spec 2025-11-25 basic/transports: the server answers a POSTed request with either
``application/json`` or ``text/event-stream``, and the client must accept both. One JSON body is
the cheaper answer (bench/bench_core.py); a stream is kept where something can come before the
result (progress, log lines, questions from a `Context` tool or prompt) or where the call waits
for a person (approval), whose wait the stream's headers and pings keep alive.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from mcp_notebook import Catalogue, Context, prompt, serve, tool
from mcp_notebook.client._http import tls_context
from tests.conftest import INITIALIZE, connect

ACCEPT = "application/json, text/event-stream"
JSON = "application/json"
SSE = "text/event-stream"


class Session:
    """A handshake-era session spoken by hand, to see how each answer is framed."""

    def __init__(self, srv: Any) -> None:
        self.srv = srv
        self.http = httpx2.Client(
            verify=tls_context(),
            headers={"Authorization": f"Bearer {srv.token}", "Accept": ACCEPT, "Content-Type": JSON},
            timeout=httpx2.Timeout(30),
        )
        self.opened = self.http.post(srv.url, json=INITIALIZE)
        self.headers = {
            "Mcp-Session-Id": self.opened.headers["mcp-session-id"],
            "MCP-Protocol-Version": "2025-11-25",
        }
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert self.http.post(srv.url, json=initialized, headers=self.headers).status_code == 202
        self._id = 1

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._id += 1
        return {"jsonrpc": "2.0", "id": self._id, "method": method, "params": params}

    def post(self, method: str, params: dict[str, Any]) -> httpx2.Response:
        return self.http.post(self.srv.url, json=self.request(method, params), headers=self.headers)

    def close(self) -> None:
        self.http.close()


def kind(response: httpx2.Response) -> str:
    return response.headers["content-type"].split(";")[0].strip()


def messages(response: httpx2.Response) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a response, framed either way."""
    if kind(response) == JSON:
        return [response.json()]
    return [
        json.loads(line[5:])
        for line in response.text.splitlines()
        if line.startswith("data:") and line[5:].strip()
    ]


def define(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, read_only=True)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @tool(catalogue=catalogue, read_only=True)
    def length(text: str) -> int:
        """Count the characters of a text."""
        return len(text)

    @tool(catalogue=catalogue, read_only=True)
    def count_to(n: int, ctx: Context) -> str:
        """Count to n, reporting progress."""
        for i in range(n):
            ctx.progress(i + 1, n)
        return f"counted to {n}"

    @tool(catalogue=catalogue, destructive=True)
    def drop_table(table: str) -> str:
        """Drop a table."""
        return f"dropped {table}"

    @prompt(catalogue=catalogue)
    def review(code: str) -> str:
        """Review a piece of code."""
        return f"Review this:\n{code}"

    @prompt(catalogue=catalogue)
    def review_loudly(code: str, ctx: Context) -> str:
        """Review a piece of code, logging as it goes."""
        ctx.log("info", "reviewing")
        return f"REVIEW THIS:\n{code}"


@pytest.fixture
def session(server: Any, catalogue: Catalogue) -> Iterator[Session]:
    define(catalogue)
    wire = Session(server)
    try:
        yield wire
    finally:
        wire.close()


def test_a_call_that_sends_nothing_first_is_one_json_body(session: Session) -> None:
    listed = session.post("tools/list", {})
    called = session.post("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}})
    unknown = session.post("tools/call", {"name": "ad", "arguments": {}})
    assert [kind(r) for r in (listed, called, unknown)] == [JSON, JSON, JSON]
    assert called.json()["result"]["structuredContent"] == {"result": 5}
    assert "resultType" not in called.json()["result"]  # still sieved for the handshake era
    assert unknown.json()["error"]["code"] == -32602 and "'add'" in unknown.json()["error"]["message"]
    prompted = session.post("prompts/get", {"name": "review", "arguments": {"code": "x = 1"}})
    assert kind(prompted) == JSON
    assert "x = 1" in prompted.json()["result"]["messages"][0]["content"]["text"]


def test_a_big_request_is_not_read_twice_to_choose(session: Session) -> None:
    # Over 64 KiB the server does not parse the body itself to choose: the SDK's stream answers.
    response = session.post("tools/call", {"name": "length", "arguments": {"text": "x" * 100_000}})
    assert kind(response) == SSE
    assert messages(response)[-1]["result"]["structuredContent"] == {"result": 100_000}


def test_initialize_keeps_its_stream(session: Session) -> None:
    # The session's own task starts while initialize is served; it must keep the default (stream)
    # framing, or what a Context tool sends later on its stream would be dropped.
    assert kind(session.opened) == SSE
    assert messages(session.opened)[0]["result"]["protocolVersion"] == "2025-11-25"


def test_a_context_tool_keeps_its_stream_and_its_progress_arrives_before_the_result(session: Session) -> None:
    params = {"name": "count_to", "arguments": {"n": 3}, "_meta": {"progressToken": "p"}}
    response = session.post("tools/call", params)
    assert kind(response) == SSE
    sent = messages(response)
    progress = [m["params"]["progress"] for m in sent if m.get("method") == "notifications/progress"]
    assert progress == [1, 2, 3]
    assert sent[-1]["result"]["content"][0]["text"] == "counted to 3"


def test_a_context_prompt_keeps_its_stream(session: Session) -> None:
    session.post("logging/setLevel", {"level": "info"})
    response = session.post("prompts/get", {"name": "review_loudly", "arguments": {"code": "y"}})
    assert kind(response) == SSE
    sent = messages(response)
    assert [m["params"]["data"] for m in sent if m.get("method") == "notifications/message"] == ["reviewing"]
    assert "REVIEW THIS" in sent[-1]["result"]["messages"][0]["content"]["text"]


def test_a_call_that_waits_for_a_person_has_its_headers_before_the_decision(catalogue: Catalogue) -> None:
    define(catalogue)
    srv = serve(catalogue=catalogue, approval_timeout=10)  # "ask": a person approves mutating tools
    shown = threading.Event()
    asked: list[Any] = []
    srv.approval.listeners.append(lambda request: (asked.append(request), shown.set()))
    wire = Session(srv)
    try:
        body = wire.request("tools/call", {"name": "drop_table", "arguments": {"table": "t"}})
        with wire.http.stream("POST", srv.url, json=body, headers=wire.headers) as response:
            # The stream's headers are out while the approval prompt is still waiting.
            assert kind(response) == SSE
            assert shown.wait(10), "no approval prompt was shown"
            asked[0].approve()
            response.read()
        assert messages(response)[-1]["result"]["content"][0]["text"] == "dropped t"
    finally:
        wire.close()
        srv.stop()


@pytest.mark.anyio
async def test_sdk_clients_read_both_framings_in_one_session(server: Any, catalogue: Catalogue) -> None:
    define(catalogue)
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async with connect(server, "legacy") as client:
        plain = await client.call_tool("add", {"a": 1, "b": 2})
        streamed = await client.call_tool("count_to", {"n": 2}, progress_callback=on_progress)
        again = await client.call_tool("add", {"a": 3, "b": 4})
    assert plain.structured_content == {"result": 3} and again.structured_content == {"result": 7}
    assert streamed.content[0].text == "counted to 2" and seen == [1, 2]


META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "replies", "version": "1"},
}


def post_2026(
    srv: Any, name: str, arguments: dict[str, Any], meta: dict[str, Any] | None = None
) -> httpx2.Response:
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": {**META, **(meta or {})}},
    }
    headers = {
        "Authorization": f"Bearer {srv.token}",
        "Accept": ACCEPT,
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": name,
    }
    return httpx2.post(srv.url, json=body, headers=headers, timeout=30)


def test_2026_a_plain_call_is_one_json_body_and_a_context_tool_still_streams(
    server: Any, catalogue: Catalogue
) -> None:
    define(catalogue)
    plain = post_2026(server, "add", {"a": 2, "b": 3})
    assert kind(plain) == JSON
    assert plain.json()["result"]["resultType"] == "complete"
    assert plain.json()["result"]["structuredContent"] == {"result": 5}
    streamed = post_2026(server, "count_to", {"n": 2}, {"progressToken": "p"})
    assert kind(streamed) == SSE
    sent = messages(streamed)
    assert [m["params"]["progress"] for m in sent if m.get("method") == "notifications/progress"] == [1, 2]
    assert sent[-1]["result"]["content"][0]["text"] == "counted to 2"
