"""The server card of an exported app: what it is and where to connect, before connecting.

The card follows a draft, not the specification: SEP-2127 (MCP Server Cards), developed as the
experimental extension ``modelcontextprotocol/experimental-ext-server-card``. Its current text
(docs/discovery.md, July 2026) reserves ``GET <streamable-http-url>/server-card`` with the media type
``application/mcp-server-card+json``; earlier drafts, and the clients and crawlers built on them,
look at ``/.well-known/mcp/server-card.json``. Both paths serve the same card, and the card says
in its ``_meta`` that it follows a draft (`core._registry.RegistryEntry.card`).

A card holds nothing secret (the token is described, never given), so it is public: no token, any
origin may read it (CORS ``*``), as the draft asks. The Host check still applies, as on every
other path: a page that rebinds its own name to this server learns nothing through it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from ...core._registry import CARD_MEDIA_TYPE
from ...core._text import t
from ._gate import MCP_PATH, AddressCheck

CARD_PATH = MCP_PATH + "/server-card"  # the current draft's reserved location
WELL_KNOWN_CARD_PATH = "/.well-known/mcp/server-card.json"  # earlier drafts' location
_CORS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"GET"),
    (b"access-control-allow-headers", b"Content-Type"),
]


class ServerCardRoute:
    """ASGI middleware: the server card at its two paths; every other request goes on to `app`.

    `card(endpoint)` makes the card, given the MCP endpoint's URL as this request reached it
    (scheme and Host), for a card whose URL is not configured.
    """

    def __init__(self, app: ASGIApp, card: Callable[[str], dict[str, Any]], addresses: AddressCheck) -> None:
        self.app = app
        self.card = card
        self.addresses = addresses

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path")
        if scope["type"] != "http" or path not in (CARD_PATH, WELL_KNOWN_CARD_PATH):
            await self.app(scope, receive, send)
            return
        host = dict(scope["headers"]).get(b"host")
        method = scope.get("method")
        if not self.addresses.host_ok(host):
            shown = repr(host.decode("latin-1")[:100]) if host is not None else "(none)"
            message = t("http.bad_host", host=shown, allowed=self.addresses.names_text)
            await _reply(send, 421, message.encode(), b"text/plain; charset=utf-8")
        elif method == "OPTIONS":
            await _reply(send, 204, b"", None)
        elif method not in ("GET", "HEAD"):
            await _reply(send, 405, b"", None, [(b"allow", b"GET, HEAD, OPTIONS")])
        else:
            assert host is not None  # host_ok refuses a request without one
            endpoint = f"{scope.get('scheme', 'http')}://{host.decode('latin-1')}{MCP_PATH}"
            body = json.dumps(self.card(endpoint), ensure_ascii=False, indent=2).encode()
            kind = CARD_MEDIA_TYPE if path == CARD_PATH else "application/json"
            await _reply(send, 200, b"" if method == "HEAD" else body, kind.encode(), length=len(body))


async def _reply(
    send: Send,
    status: int,
    body: bytes,
    kind: bytes | None,
    extra: list[tuple[bytes, bytes]] | None = None,
    *,
    length: int | None = None,
) -> None:
    headers = [*_CORS, (b"content-length", str(len(body) if length is None else length).encode())]
    if kind is not None:
        # The card may change with the app's configuration: caches keep it a few minutes only.
        headers += [
            (b"content-type", kind),
            (b"cache-control", b"public, max-age=300"),
            (b"x-content-type-options", b"nosniff"),
        ]
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra or [])})
    await send({"type": "http.response.body", "body": body})
