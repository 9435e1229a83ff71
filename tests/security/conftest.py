"""What the attack tests share: clients that present a token and claim a name, and raw 2026-07-28 POSTs.

Every attack runs against the real server on 127.0.0.1 with real SDK clients (both eras) or
hand-written HTTP requests, each client with a token of its own (`srv.add_client`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import mcp_types as types

from mcp_notebook.client._http import tls_context

MODERN = "2026-07-28"


@contextlib.asynccontextmanager
async def client_as(
    srv: Any, token: str, mode: Any = "auto", *, claims: str = "mcp", **kwargs: Any
) -> AsyncIterator[Any]:
    """A real SDK client over HTTP that sends `token` and introduces itself as `claims` (clientInfo.name)."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    info = types.Implementation(name=claims, version="1.0")
    async with (
        httpx2.AsyncClient(
            verify=tls_context(), headers=headers, timeout=httpx2.Timeout(30, read=300)
        ) as http,
        Client(
            streamable_http_client(srv.url, http_client=http), mode=mode, client_info=info, **kwargs
        ) as client,
    ):
        yield client


def post_modern(
    srv: Any,
    method: str,
    params: dict[str, Any],
    *,
    token: str,
    claims: str | None = None,
    capabilities: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    """One hand-written 2026-07-28 request; `claims` goes in clientInfo (left out when None)."""
    meta: dict[str, Any] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities if capabilities is not None else {},
    }
    if claims is not None:
        meta["io.modelcontextprotocol/clientInfo"] = {"name": claims, "version": "1.0"}
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    sent = {
        "Authorization": f"Bearer {token}",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
        "Accept": "application/json, text/event-stream",
        **(headers or {}),
    }
    name = params.get("name", params.get("uri"))
    if method in ("tools/call", "prompts/get", "resources/read") and isinstance(name, str):
        sent["Mcp-Name"] = name
    return httpx.post(srv.url, json=body, headers=sent, timeout=30)


def reply(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC answer in a response, whether it came as one JSON body or as an SSE stream."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        return dict(json.loads(data[-1]))
    return dict(response.json())
