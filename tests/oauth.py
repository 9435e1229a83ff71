"""A test authorization server: an RSA key that signs access tokens, its JWKS served over HTTP.

The exported app under test fetches the key set from ``jwks_url`` as it would from a real
authorization server. ``token(...)`` mints a token with the claims a test chooses; ``forged=True``
signs it with another key under the same key id (a token whose signature does not verify).
``fetched`` counts the requests for the key set and ``asked`` is set at each; ``delay`` holds each
answer that many seconds (a slow server; ``stop`` lets them go) and ``failing`` answers 503.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

RESOURCE = "https://orders.example.test/mcp"
KEY_ID = "test-key-1"


class AuthorizationServer:
    def __init__(self) -> None:
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self._key.public_key()))
        body = json.dumps({"keys": [{**public, "kid": KEY_ID, "alg": "RS256", "use": "sig"}]}).encode()
        self.fetched = 0
        self.asked = threading.Event()
        self.delay = 0.0
        self.failing = False
        self._count = threading.Lock()
        self._released = threading.Event()

        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path != "/jwks.json":
                    self.send_error(404)
                    return
                with outer._count:
                    outer.fetched += 1
                outer.asked.set()
                if outer.delay:
                    outer._released.wait(outer.delay)  # a slow server, not synchronisation
                try:
                    if outer.failing:
                        self.send_error(503)
                        return
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the app gave up waiting and hung up (a slow server's answer is late)

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._http.server_address[1]
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._thread.start()

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def jwks_url(self) -> str:
        return f"{self.issuer}/jwks.json"

    def environ(self, scopes: str = "mcp:tools") -> dict[str, str]:
        """The app's settings that make it this server's resource server."""
        return {
            "MCP_NOTEBOOK_OAUTH_ISSUER": self.issuer,
            "MCP_NOTEBOOK_OAUTH_JWKS_URL": self.jwks_url,
            "MCP_NOTEBOOK_OAUTH_RESOURCE": RESOURCE,
            "MCP_NOTEBOOK_OAUTH_SCOPES": scopes,
        }

    def token(
        self,
        *,
        subject: str = "ana",
        audience: str = RESOURCE,
        expires_in: float = 300,
        scope: str = "mcp:tools",
        issuer: str | None = None,
        forged: bool = False,
        kid: str = KEY_ID,
    ) -> str:
        now = int(time.time())
        claims = {
            "iss": issuer or self.issuer,
            "sub": subject,
            "aud": audience,
            "iat": now,
            "exp": now + int(expires_in),
            "scope": scope,
        }
        key = self._other if forged else self._key
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": kid})

    def stop(self) -> None:
        self._released.set()
        self._http.shutdown()
        self._http.server_close()


def served_with_oauth(folder: Any, authority: AuthorizationServer, **extra: str) -> Any:
    """The exported example (``app.py`` in `folder`) under uvicorn, accepting `authority`'s tokens
    (and the static client tokens of `tests.exported.service_environ`)."""
    from tests.exported import export_example, service_environ
    from tests.services import Replica

    store = f"sqlite:///{folder / 'state.sqlite3'}"
    environ = service_environ(export_example(folder), store, **authority.environ(), **extra)
    return Replica(folder, environ)
