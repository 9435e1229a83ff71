"""The lessons' authorization server: a small OAuth 2.1 one on 127.0.0.1, for chapter 11.

It does what an MCP client meets on the way to a protected server, and no more::

    GET  /.well-known/oauth-authorization-server   its metadata (RFC 8414): endpoints, PKCE, scopes
    GET  /jwks.json                                 its public signing key (a resource server checks tokens with it)
    GET  /authorize                                 the user's consent: a code for the client's redirect URI
    POST /token                                     the code (with its PKCE verifier) for an access token

The user is ``ana``, who consents to everything at once: the lesson's stand-in for a login page.
Clients are pre-registered (`clients`: client ID → redirect URI), so no registration endpoint is
offered. A token is issued for one resource only (RFC 8707: the ``resource`` of the authorization and
token requests becomes the token's audience), and only for a resource this server knows
(`resources`); an unknown one gets ``invalid_target``. `mint` signs a token with whatever claims a
lesson wants to show (an expired one, one for another audience), as a misconfigured or hostile party
could. Every request is noted in `seen` (path and parameters, never a code or a token), so a lesson
can show what the client sent.

It serves from a thread of its own, like the test suite's authorization server: it stands for
another machine, not for part of the notebook's server.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import ec

SUBJECT = "ana"
"""The user who signs in and consents (the lesson's only user)."""

KEY_ID = "lesson-key-1"
TOKEN_SECONDS = 600
"""How long an access token this server issues lasts."""

_HIDDEN = {"code", "code_verifier", "access_token"}  # never noted in `seen`: they are credentials


class AuthorizationServer:
    """An OAuth 2.1 authorization server on ``127.0.0.1``, port 0 (see the module docstring).

    Parameters
    ----------
    scopes:
        The scopes it can grant.
    clients:
        Pre-registered clients: client ID → its one redirect URI.
    """

    def __init__(
        self,
        *,
        scopes: Iterable[str] = ("mcp:tools",),
        clients: dict[str, str] | None = None,
    ) -> None:
        self.scopes = tuple(scopes)
        self.clients = dict(clients or {})
        self.resources: list[str] = []
        self.seen: list[dict[str, Any]] = []
        self._key = ec.generate_private_key(ec.SECP256R1())
        self._codes: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._thread.start()

    # -- where it is -----------------------------------------------------------------------------
    @property
    def issuer(self) -> str:
        # With its slash: a URL with an empty path is written so once it has been read as a URL
        # (the protected-resource metadata, a client's check of this metadata), and the issuer is
        # compared as a string everywhere (RFC 8414 section 3.3).
        return f"http://127.0.0.1:{self._http.server_address[1]}/"

    @property
    def jwks_url(self) -> str:
        return f"{self.issuer}jwks.json"

    def metadata(self) -> dict[str, Any]:
        """Its authorization server metadata (RFC 8414), as ``/.well-known/oauth-authorization-server`` serves it."""
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}authorize",
            "token_endpoint": f"{self.issuer}token",
            "jwks_uri": self.jwks_url,
            "scopes_supported": list(self.scopes),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "client_id_metadata_document_supported": False,
        }

    def jwks(self) -> dict[str, Any]:
        public = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self._key.public_key()))
        return {"keys": [{**public, "kid": KEY_ID, "alg": "ES256", "use": "sig"}]}

    # -- tokens --------------------------------------------------------------------------------------
    def mint(
        self,
        *,
        audience: str,
        scope: str = "mcp:tools",
        expires_in: float = TOKEN_SECONDS,
        expires_at: int | None = None,
        issuer: str | None = None,
        subject: str = SUBJECT,
        client_id: str = "notebook-app",
    ) -> str:
        """A token signed by this server with these claims (``exp`` is `expires_at`, else now + `expires_in`)."""
        now = int(time.time())
        claims = {
            "iss": self.issuer if issuer is None else issuer,
            "sub": subject,
            "aud": audience,
            "iat": now,
            "exp": expires_at if expires_at is not None else now + int(expires_in),
            "scope": scope,
            "client_id": client_id,
        }
        return jwt.encode(claims, self._key, algorithm="ES256", headers={"kid": KEY_ID})

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join()

    # -- the two steps of the authorization code flow ---------------------------------------------------
    def authorize(self, query: dict[str, str]) -> tuple[int, dict[str, str], dict[str, Any]]:
        """The user's consent: a redirect to the client with a code, or the error (status, headers, body)."""
        client, redirect = query.get("client_id", ""), query.get("redirect_uri", "")
        if self.clients.get(client) != redirect:
            return (
                400,
                {},
                {"error": "invalid_request", "error_description": "unknown client or redirect URI"},
            )
        problem = self._request_problem(query)
        if problem is None and query.get("code_challenge_method") != "S256":
            problem = ("invalid_request", "PKCE with code_challenge_method=S256 is required")
        if problem is not None:
            error, description = problem
            back = {"error": error, "error_description": description, "state": query.get("state", "")}
            return 302, {"Location": f"{redirect}?{urlencode(back)}"}, {}
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes[code] = {
                key: query.get(key, "")
                for key in ("client_id", "redirect_uri", "code_challenge", "resource", "scope")
            }
        back = {"code": code, "state": query.get("state", ""), "iss": self.issuer}
        return 302, {"Location": f"{redirect}?{urlencode(back)}"}, {}

    def token(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """The code exchanged for an access token for the resource it was granted for."""
        if form.get("grant_type") != "authorization_code":
            return 400, {"error": "unsupported_grant_type"}
        with self._lock:
            granted = self._codes.pop(form.get("code", ""), None)  # a code is good once
        if granted is None or granted["client_id"] != form.get("client_id"):
            return 400, {"error": "invalid_grant", "error_description": "unknown or used code"}
        verifier = form.get("code_verifier", "").encode()
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=").decode()
        if challenge != granted["code_challenge"]:
            return 400, {
                "error": "invalid_grant",
                "error_description": "the PKCE code_verifier does not match",
            }
        if form.get("resource", "") != granted["resource"]:
            return 400, {
                "error": "invalid_target",
                "error_description": "not the resource the user consented to",
            }
        scope = granted["scope"] or " ".join(self.scopes)
        token = self.mint(audience=granted["resource"], scope=scope, client_id=granted["client_id"])
        return 200, {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": TOKEN_SECONDS,
            "scope": scope,
        }

    def _request_problem(self, query: dict[str, str]) -> tuple[str, str] | None:
        if query.get("response_type") != "code":
            return "unsupported_response_type", "only the authorization code flow"
        if query.get("resource") not in self.resources:
            return "invalid_target", "a token is issued only for a resource this server protects (RFC 8707)"
        unknown = [scope for scope in query.get("scope", "").split() if scope not in self.scopes]
        if unknown:
            return "invalid_scope", f"unknown scope {' '.join(unknown)}"
        return None

    def note(self, method: str, path: str, parameters: dict[str, str]) -> None:
        shown = {key: value for key, value in parameters.items() if key not in _HIDDEN}
        with self._lock:
            self.seen.append({"method": method, "path": path, **shown})


def _handler(server: AuthorizationServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlsplit(self.path)
            query = {key: values[0] for key, values in parse_qs(url.query).items()}
            server.note("GET", url.path, query)
            if url.path == "/.well-known/oauth-authorization-server":
                self._json(200, server.metadata())
            elif url.path == "/jwks.json":
                self._json(200, server.jwks())
            elif url.path == "/authorize":
                status, headers, body = server.authorize(query)
                self._json(status, body, headers)
            else:
                self._json(404, {"error": "not_found"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            form = {key: values[0] for key, values in parse_qs(self.rfile.read(length).decode()).items()}
            server.note("POST", self.path, form)
            if self.path == "/token":
                status, body = server.token(form)
                self._json(status, body, {"Cache-Control": "no-store"})
            else:
                self._json(404, {"error": "not_found"})

        def _json(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the notebook shows `seen`; nothing is printed into a cell

    return Handler
