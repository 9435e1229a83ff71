"""The HTTP face of the server: the SDK's Streamable HTTP app behind a token check.

Security defaults (spec 2025-11-25 basic/transports "Security Warning"): bind loopback, check
``Host`` and ``Origin`` (the SDK's transport security: 421 / 403), and require a token. The token
is accepted the two ways people already know: ``Authorization: Bearer <token>`` (MCP clients)
and ``?token=<token>`` (the Jupyter way, and the only way for tools that cannot send headers).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from typing import Any
from urllib.parse import parse_qs

from mcp.server.transport_security import TransportSecuritySettings
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Receive, Scope, Send

from ._text import t

MCP_PATH = "/mcp"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
SUPPORTED_VERSIONS = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class TokenGate:
    """ASGI middleware: refuse any HTTP request that does not carry the server's token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._authorized(scope):
            await self.app(scope, receive, send)
            return
        payload = {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": t("http.unauthorized")}}
        await _send_json(send, 401, payload, [(b"www-authenticate", b'Bearer realm="mcp-notebook"')])

    def _authorized(self, scope: Scope) -> bool:
        for key, value in scope["headers"]:
            if key == b"authorization":
                scheme, _, credential = value.partition(b" ")
                if scheme.lower() == b"bearer" and hmac.compare_digest(credential.strip(), self._token):
                    return True
        query = scope.get("query_string", b"")
        if query:
            for candidate in parse_qs(query.decode("latin-1")).get("token", []):
                if hmac.compare_digest(candidate.encode(), self._token):
                    return True
        return False


class VersionGate:
    """Answer an unknown ``MCP-Protocol-Version`` with ``-32022`` naming *every* version served.

    The SDK's own rejection lists only the 2026-era versions; this endpoint serves both eras on
    the same URL, so a client that cannot speak 2026-07-28 must learn it may fall back to the
    handshake (spec 2026-07-28 basic/lifecycle "Version Negotiation").
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        version = _header(scope, b"mcp-protocol-version") if scope["type"] == "http" else None
        if version is None or version in SUPPORTED_VERSIONS or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        try:
            request_id = json.loads(body).get("id")
        except (ValueError, AttributeError):
            request_id = None
        error = {
            "code": -32022,
            "message": f"Unsupported protocol version {version!r}",
            "data": {"supported": list(SUPPORTED_VERSIONS), "requested": version},
        }
        await _send_json(send, 400, {"jsonrpc": "2.0", "id": request_id, "error": error})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


async def _send_json(
    send: Send, status: int, payload: Any, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps(payload, ensure_ascii=False).encode()
    headers = [
        (b"content-type", b"application/json; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra or [])})
    await send({"type": "http.response.body", "body": body})


def security_settings(host: str, port: int) -> TransportSecuritySettings:
    """Host/Origin allow-lists: the loopback names, plus `host` itself when it is not one."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    if host not in LOOPBACK_HOSTS:
        names.append(f"[{host}]" if ":" in host else host)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:{port}" for name in names] + [f"{name}:*" for name in names],
        allowed_origins=[f"http://{name}:*" for name in names] + [f"https://{name}:*" for name in names],
    )


def build_app(sdk_server: Any, *, token: str, host: str, port: int) -> ASGIApp:
    """A fresh ASGI app (the SDK's session manager can run only once per app)."""
    app = sdk_server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=security_settings(host, port),
        host=host,
    )
    return TokenGate(VersionGate(app), token)
