"""Attack: find out which hidden tools a notebook has by calling names and comparing the answers.

A hidden tool (``expose=False``) is for the notebook alone. Outside clients got the same -32602
for it as for a name that does not exist, but the answers still differed around it: a hidden tool
that takes a `Context` or needs approval was answered as an SSE stream instead of one JSON body,
and in 2026-07-28 a hidden tool with an ``x-mcp-header`` parameter was answered with a header
error (HTTP 400, -32020, naming its header). Now every answer to a hidden name is the answer to
an unknown name, byte for byte but for the name itself, and each such probe is in the audit log.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcp_notebook import Catalogue, Context, serve, tool
from mcp_notebook.server._audit import AuditLog
from tests.conftest import INITIALIZE, until
from tests.security.conftest import post_modern, reply

HIDDEN = ("wipe_disk", "ask_then_wipe", "delete_everything", "route_by_region")


@pytest.fixture
def server(catalogue: Catalogue, tmp_path: Path) -> Any:
    @tool(catalogue=catalogue, read_only=True)
    def read_draft(draft: str) -> str:
        """Read a draft (visible)."""
        return draft

    @tool(catalogue=catalogue, read_only=True, expose=False)
    def wipe_disk() -> str:
        """Hidden, plain."""
        return "wiped"

    @tool(catalogue=catalogue, read_only=True, expose=False)
    def ask_then_wipe(ctx: Context) -> str:
        """Hidden, takes a Context."""
        return "wiped"

    @tool(catalogue=catalogue, destructive=True, expose=False)
    def delete_everything() -> str:
        """Hidden, would need approval."""
        return "deleted"

    schema = {
        "type": "object",
        "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
        "required": ["region"],
        "additionalProperties": False,
    }

    @tool(catalogue=catalogue, read_only=True, expose=False, input_schema=schema)
    def route_by_region(region: str) -> str:
        """Hidden, with a parameter copied into a header."""
        return region

    srv = serve(catalogue=catalogue, approval_timeout=5, audit_log=tmp_path / "audit.jsonl")
    srv.audit_path = tmp_path / "audit.jsonl"
    try:
        yield srv
    finally:
        srv.stop()


def shape(response: httpx.Response, name: str) -> tuple[int, str, Any]:
    """What a prober sees: the status, the kind of body, and the body with the probed name taken out."""
    kind = response.headers.get("content-type", "").split(";")[0]
    text = response.text
    if kind == "text/event-stream":
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    body = json.loads(text.replace(name, "NAME"))
    return response.status_code, kind, body


def modern_probe(srv: Any, name: str) -> tuple[int, str, Any]:
    arguments = {"region": "eu"}
    return shape(
        post_modern(srv, "tools/call", {"name": name, "arguments": arguments}, token=srv.token), name
    )


def handshake_probe(srv: Any, session: str, name: str) -> tuple[int, str, Any]:
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": {}}}
    headers = {
        "Authorization": f"Bearer {srv.token}",
        "Accept": "application/json, text/event-stream",
        "Mcp-Session-Id": session,
        "MCP-Protocol-Version": "2025-11-25",
    }
    return shape(httpx.post(srv.url, json=body, headers=headers, timeout=30), name)


def open_session(srv: Any) -> str:
    headers = {"Authorization": f"Bearer {srv.token}", "Accept": "application/json, text/event-stream"}
    opened = httpx.post(srv.url, json=INITIALIZE, headers=headers, timeout=30)
    session = opened.headers["mcp-session-id"]
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    httpx.post(srv.url, json=done, headers={**headers, "Mcp-Session-Id": session}, timeout=30)
    return session


@pytest.mark.parametrize("hidden", HIDDEN)
def test_a_hidden_name_is_answered_like_an_unknown_one(server: Any, hidden: str) -> None:
    unknown = "no_such_tool"
    assert modern_probe(server, hidden) == modern_probe(server, unknown)
    session = open_session(server)
    assert handshake_probe(server, session, hidden) == handshake_probe(server, session, unknown)
    _, kind, body = modern_probe(server, hidden)
    assert kind == "application/json" and body["error"]["code"] == -32602


def test_suggestions_never_name_a_hidden_tool(server: Any) -> None:
    def error(name: str) -> dict[str, Any]:
        answer = reply(post_modern(server, "tools/call", {"name": name, "arguments": {}}, token=server.token))
        found: dict[str, Any] = answer["error"]
        return found

    near_hidden, near_visible = error("wipe_disc"), error("read_draf")
    assert near_hidden["data"]["suggestions"] == [] and "wipe_disk" not in near_hidden["message"]
    assert near_visible["data"]["suggestions"] == ["read_draft"]  # visible names are still suggested


def test_every_probe_is_in_the_audit_log(server: Any) -> None:
    for name in ("wipe_disk", "no_such_tool"):
        post_modern(
            server, "tools/call", {"name": name, "arguments": {}}, token=server.token, claims="innocent"
        )
    # Each line is on disk once its answer has left.
    assert until(lambda: server.audit_path.exists() and len(AuditLog.read(server.audit_path)) >= 2)
    lines = AuditLog.read(server.audit_path)
    assert [(line["tool"], line["decision"], line["outcome"], line["client"]) for line in lines] == [
        ("wipe_disk", "refused: hidden tool", "error -32602", "owner"),
        ("no_such_tool", "refused: unknown tool", "error -32602", "owner"),
    ]
    assert all(line["claimed"] == "innocent" and line["is_error"] for line in lines)
