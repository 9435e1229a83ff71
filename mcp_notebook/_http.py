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


class Gate:
    """ASGI middleware in front of the SDK's app: the token, then the protocol version.

    - No valid token → 401 that says where the token is.
    - An unknown ``MCP-Protocol-Version`` → ``-32022`` naming *every* version served. The SDK's
      own rejection lists only the 2026-era versions; this endpoint serves both eras on one URL,
      so a client that cannot speak 2026-07-28 must learn it may fall back to the handshake
      (spec 2026-07-28 basic/lifecycle "Version Negotiation").

    One layer, not two: it runs on every request.
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        version = None
        authorized = False
        for key, value in scope["headers"]:
            if key == b"authorization":
                scheme, _, credential = value.partition(b" ")
                authorized = scheme.lower() == b"bearer" and hmac.compare_digest(
                    credential.strip(), self._token
                )
            elif key == b"mcp-protocol-version":
                version = value.decode("latin-1")
        if not authorized and not self._token_in_query(scope):
            payload = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32001, "message": t("http.unauthorized")},
            }
            await _send_json(send, 401, payload, [(b"www-authenticate", b'Bearer realm="mcp-notebook"')])
        elif version is not None and version not in SUPPORTED_VERSIONS and scope.get("method") == "POST":
            await self._unsupported_version(version, receive, send)
        else:
            await self.app(scope, receive, send)

    def _token_in_query(self, scope: Scope) -> bool:
        query = scope.get("query_string", b"")
        if query:
            for candidate in parse_qs(query.decode("latin-1")).get("token", []):
                if hmac.compare_digest(candidate.encode(), self._token):
                    return True
        return False

    async def _unsupported_version(self, version: str, receive: Receive, send: Send) -> None:
        body = b""
        while len(body) <= _MAX_PEEK:  # only the request id is wanted: never buffer a huge body
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


_MAX_PEEK = 1 << 20


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
    return Gate(app, token)
