"""The HTTP face of the server: the SDK's Streamable HTTP app behind a token check.

Security defaults (spec 2025-11-25 basic/transports "Security Warning"): bind loopback, check
``Host`` and ``Origin`` (421 / 403), and require a token. Host and Origin are parsed and compared
exactly (`AddressCheck`): the SDK's own check compares only the start of the string, so
``localhost:evil.com`` passed it as "localhost with some port". The token is accepted the two
ways people already know: ``Authorization: Bearer <token>`` (MCP clients) and ``?token=<token>``
(the Jupyter way, and the only way for tools that cannot send headers). The token decides who is
calling (`_identity`): the gate puts that `Identity` in the request's scope, once per request, and
nothing downstream asks the client who it is.

Requests the SDK would refuse with a bare plain-text line are refused here first, with a JSON-RPC
error that says what to change: a body that is not JSON (415) and a body over the size limit (413,
``MCP_NOTEBOOK_MAX_REQUEST_BYTES``, 4 MiB by default).

A request is answered with one JSON body, not an SSE stream, when nothing can come before its
result (spec 2025-11-25 and 2026-07-28 basic/transports "Sending Messages to the Server": the
server answers a request with either, and the client must accept both). In the handshake era the
SDK would open a stream for every request, a third of the time of a small call; in 2026-07-28 it
waits to see whether the handler sends something first, which costs less but still costs. Only a
tool or prompt that takes a `Context` (progress, log lines, questions to the client) or a call
that may wait for a person (approval) gets the SDK's stream handling.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol
from urllib.parse import parse_qs

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ...core._identity import FORWARDED_USER_HEADER, STATE_KEY, Identities, Identity
from ...core._text import t
from .._sdk_compat import adopt_session_manager
from .._session_state import Sessions
from .._settings import is_loopback
from .._versions import SUPPORTED_VERSIONS
from ._envelope import envelope_problem
from ._framing import SessionManager, json_reply
from ._sessions import (
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_PER_IDENTITY,
    DEFAULT_TOTAL,
    LimitedSessionManager,
)

MCP_PATH = "/mcp"
_FORWARDED_USER = FORWARDED_USER_HEADER.encode()
SUPPORTED = frozenset(SUPPORTED_VERSIONS)
HANDSHAKE = frozenset(HANDSHAKE_PROTOCOL_VERSIONS)
MAX_REQUEST_BYTES_VARIABLE = "MCP_NOTEBOOK_MAX_REQUEST_BYTES"
DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024  # the SDK's own default


def max_request_bytes() -> int:
    """The request body limit: ``MCP_NOTEBOOK_MAX_REQUEST_BYTES``, else 4 MiB."""
    value = os.environ.get(MAX_REQUEST_BYTES_VARIABLE, "").strip()
    if not value:
        return DEFAULT_MAX_REQUEST_BYTES
    try:
        limit = int(value)
    except ValueError:
        limit = 0
    if limit <= 0:
        raise ValueError(
            t(
                "http.bad_max_request_bytes",
                variable=MAX_REQUEST_BYTES_VARIABLE,
                example=2 * DEFAULT_MAX_REQUEST_BYTES,
                value=value,
            )
        )
    return limit


class BearerCheck(Protocol):
    """Another way to prove an identity than a static token: OAuth access tokens (`_oauth.OAuthResource`)."""

    def is_metadata(self, path: str) -> bool: ...

    async def identify(self, credential: bytes | None) -> Any: ...


class _Headers:
    """The request headers the Gate reads, found in one pass over them (it runs on every request)."""

    __slots__ = ("bearer", "content_type", "forwarded_user", "host", "length", "origin", "version")

    def __init__(self, raw: Iterable[tuple[bytes, bytes]]) -> None:
        self.host: bytes | None = None
        self.origin: bytes | None = None
        self.bearer: bytes | None = None
        self.content_type: bytes | None = None
        self.length: bytes | None = None
        self.forwarded_user: bytes | None = None
        self.version: str | None = None
        for key, value in raw:
            if key == b"host":
                self.host = value
            elif key == b"origin":
                self.origin = value
            elif key == b"authorization":
                scheme, _, credential = value.partition(b" ")
                if scheme.lower() == b"bearer":
                    self.bearer = credential.strip()
            elif key == b"mcp-protocol-version":
                self.version = value.decode("latin-1")
            elif key == b"content-type":
                self.content_type = value
            elif key == b"content-length":
                self.length = value
            elif key == _FORWARDED_USER:
                self.forwarded_user = value


class Gate:
    """ASGI middleware in front of the SDK's app: the token, the body, then the protocol version.

    - No valid token → 401 that says where the token is. A valid one → its `Identity`, put in
      ``scope["state"]`` for the handlers and as ``scope["user"]`` for the SDK, which binds a
      handshake-era session to the identity that opened it.
    - A POST whose ``Content-Type`` is not JSON → 415, and a body over `max_body` bytes → 413, each
      saying what to change (the SDK answers both with a bare text line that names no fix).
    - An unknown ``MCP-Protocol-Version`` → ``-32022`` naming *every* version served. The SDK's
      own rejection lists only the 2026-era versions; this endpoint serves both eras on one URL,
      so a client that cannot speak 2026-07-28 must learn it may fall back to the handshake
      (spec 2026-07-28 basic/lifecycle "Version Negotiation").

    - A ``Host`` that is not a loopback name (or the served host) with a port → 421, and an ``Origin``
      that is not such a page → 403 (`AddressCheck`).

    One layer, not two: it runs on every request.
    """

    def __init__(
        self,
        app: ASGIApp,
        identities: Identities,
        max_body: int = DEFAULT_MAX_REQUEST_BYTES,
        answers_at_once: Callable[[Mapping[str, Any], Identity], bool] | None = None,
        hung_up: Callable[[str, str], None] | None = None,
        addresses: AddressCheck | None = None,
        oauth: BearerCheck | None = None,
        unauthorized: str = "http.unauthorized",
    ) -> None:
        self.app = app
        self.unauthorized = unauthorized  # the 401's message key: a notebook's and a service's differ
        self.identities = identities
        self.oauth = oauth
        self.max_body = max_body
        self._answers_at_once = answers_at_once
        self._hung_up = hung_up
        self.addresses = addresses if addresses is not None else AddressCheck()
        self._users: dict[str, AuthenticatedUser] = {}  # identity name -> the SDK's user, made once

    def _user(self, identity: Identity) -> AuthenticatedUser:
        """The SDK's authenticated user for `identity`: the SDK binds a handshake-era session to the
        user that opened it and answers any other with 404. Made once per identity (one dict lookup)."""
        user = self._users.get(identity.name)
        if user is None:
            # The token field is a label, not the secret: nothing the SDK logs or compares holds a token.
            token = AccessToken(token=f"mcp-notebook:{identity.name}", client_id=identity.name, scopes=[])
            user = self._users[identity.name] = AuthenticatedUser(token)
        return user

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _Headers(scope["headers"])
        identity = self.identities.identify(headers.bearer) if headers.bearer is not None else None
        if identity is None:
            identity = self._identity_in_query(scope)
        if identity is None and self.oauth is not None:
            if self.oauth.is_metadata(scope.get("path", "")) and scope.get("method") in ("GET", "OPTIONS"):
                await self.app(scope, receive, send)  # the protected-resource metadata is public
                return
            found = await self.oauth.identify(headers.bearer)
            if not isinstance(found, Identity):
                error = {"code": -32001, "message": found.description}
                payload = {"jsonrpc": "2.0", "id": None, "error": error}
                await _send_json(
                    send, found.status, payload, [(b"www-authenticate", found.challenge.encode())]
                )
                return
            identity = found
        if identity is not None:
            # The Jupyter extension's credential stands for the user it names; any other keeps its own.
            identity = self.identities.forwarded(identity, headers.forwarded_user)
        if identity is None:
            payload = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32001, "message": t(self.unauthorized)},
            }
            await _send_json(send, 401, payload, [(b"www-authenticate", b'Bearer realm="mcp-notebook"')])
            return
        state = scope.get("state")
        if state is None:
            state = scope["state"] = {}
        state[STATE_KEY] = identity  # the handlers' and the session limits' (`_sessions`)
        scope["user"] = self._user(identity)  # the SDK's: a session belongs to the identity that opened it
        await self._admitted(scope, receive, send, identity, headers)

    async def _admitted(
        self, scope: Scope, receive: Receive, send: Send, identity: Identity, headers: _Headers
    ) -> None:
        """A request whose caller is known: its addresses and its body checked, then handed on."""
        post = scope.get("method") == "POST"
        host, origin, content_type, length, version = (
            headers.host,
            headers.origin,
            headers.content_type,
            headers.length,
            headers.version,
        )
        if not self.addresses.host_ok(host):
            shown = repr(host.decode("latin-1")[:100]) if host is not None else "(none)"
            await _send_error(send, 421, t("http.bad_host", host=shown, allowed=self.addresses.names_text))
        elif origin is not None and not self.addresses.origin_ok(origin):
            shown = repr(origin.decode("latin-1")[:100])
            await _send_error(
                send, 403, t("http.bad_origin", origin=shown, allowed=self.addresses.names_text)
            )
        elif post and not (content_type or b"").lower().startswith(b"application/json"):
            # The same test as the SDK's, so nothing it accepted before is refused now.
            got = repr(content_type.decode("latin-1")[:100]) if content_type is not None else "(none)"
            await _send_error(send, 415, t("http.not_json", got=got))
        elif post and length is not None and _too_long(length, self.max_body):
            await self._too_large(send)
        elif post and length is None:
            # No Content-Length (a chunked body): count it while reading, then hand it on.
            await self._read_within_limit(scope, receive, send, version)
        elif (
            post
            and self._answers_at_once is not None
            and (version is None or version in SUPPORTED)
            and length is not None
            and not _too_long(length, _CHOOSE_UP_TO)  # a big body is not parsed twice to choose
        ):
            await self._choose_reply(scope, receive, send, identity, version is None or version in HANDSHAKE)
        else:
            await self._forward(scope, receive, send, version)

    async def _choose_reply(
        self, scope: Scope, receive: Receive, send: Send, identity: Identity, handshake: bool
    ) -> None:
        """Read the request, then let the SDK answer it as one JSON body or with a stream.

        A body that is not one well-formed message is answered here (`_envelope`), saying what to send.
        """
        assert self._answers_at_once is not None
        read = await _read_body(receive, self.max_body)
        if read is None:  # more than its Content-Length said: the HTTP parser normally stops that
            await self._too_large(send)
            return
        body, replay = read
        try:
            request = json.loads(body)
        except (ValueError, RecursionError):
            await self.app(scope, replay, send)  # the SDK answers -32700
            return
        problem = envelope_problem(request)
        if problem is not None:
            code, explained, request_id = problem
            # The status each era's SDK gives such an error: 400, except -32602 in the handshake era.
            status = 200 if code == -32602 and handshake else 400
            error = {"code": code, "message": explained}
            await _send_json(send, status, {"jsonrpc": "2.0", "id": request_id, "error": error})
            return
        # A handshake-era `initialize` keeps its stream: the session's own task is started while it
        # is served and inherits this request's context, and that task must see the default choice.
        at_once = request.get("method") != "initialize" and self._answers_at_once(request, identity)
        if not at_once and handshake and self._hung_up is not None and request.get("method") == "tools/call":
            replay = self._watch_hang_up(scope, replay, request.get("id"))
        with json_reply(at_once):
            await self.app(scope, replay, send)

    def _watch_hang_up(self, scope: Scope, receive: Receive, request_id: Any) -> Receive:
        """`receive`, telling `hung_up(session, id)` when the client drops a streamed handshake-era call.

        The SDK ends the stream of such a call when its client disconnects but leaves the call
        running in the session; the server must learn of it (a call waiting for approval is
        withdrawn). 2026-07-28 needs nothing: the SDK cancels the call itself.
        """
        assert self._hung_up is not None
        hung_up = self._hung_up
        session = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"mcp-session-id"), None)
        if session is None or request_id is None:
            return receive

        async def watched() -> Message:
            message = await receive()
            if message["type"] == "http.disconnect":
                hung_up(session, str(request_id))
            return message

        return watched

    async def _forward(self, scope: Scope, receive: Receive, send: Send, version: str | None) -> None:
        if version is not None and version not in SUPPORTED_VERSIONS and scope.get("method") == "POST":
            await self._unsupported_version(version, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _read_within_limit(
        self, scope: Scope, receive: Receive, send: Send, version: str | None
    ) -> None:
        read = await _read_body(receive, self.max_body)
        if read is None:
            await self._too_large(send)
            return
        await self._forward(scope, read[1], send, version)

    async def _too_large(self, send: Send) -> None:
        message = t(
            "http.too_large",
            limit=self.max_body,
            mib=f"{self.max_body / (1 << 20):.3g} MiB",
            variable=MAX_REQUEST_BYTES_VARIABLE,
            example=2 * self.max_body,
        )
        await _send_error(send, 413, message)

    def _identity_in_query(self, scope: Scope) -> Identity | None:
        query = scope.get("query_string", b"")
        if query:
            for candidate in parse_qs(query.decode("latin-1")).get("token", []):
                identity = self.identities.identify(candidate.encode())
                if identity is not None:
                    return identity
        return None

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


async def _read_body(receive: Receive, limit: int) -> tuple[bytes, Receive] | None:
    """The whole request body and a `receive` that hands it on again; None if it exceeds `limit`.

    A disconnect met while reading is handed on after the body, so the app learns it as it would have.
    """
    chunks: list[bytes] = []
    size = 0
    later: list[Message] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            later.append(message)
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    body = b"".join(chunks)
    later.insert(0, {"type": "http.request", "body": body, "more_body": bool(later)})

    async def replay() -> Message:
        return later.pop(0) if later else await receive()

    return body, replay


_CHOOSE_UP_TO = 64 * 1024  # bytes of request body the Gate reads to choose JSON or a stream


def _too_long(length: bytes, limit: int) -> bool:
    try:
        return int(length) > limit
    except ValueError:
        return False  # the HTTP parser has refused such a request already


async def _send_error(send: Send, status: int, message: str) -> None:
    # -32600 Invalid Request: the message never reached JSON-RPC, so it has no id.
    await _send_json(
        send, status, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    )


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


# host[:port], where host is a bracketed IPv6 literal or a name/IPv4 made of letters, digits, dots
# and dashes: anything else (userinfo, a path, a second colon, spaces) cannot match.
_AUTHORITY = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::([0-9]{1,5}))?")
_ORIGIN = re.compile(r"(https?)://(.+)", re.IGNORECASE)


class AddressCheck:
    """Exact Host and Origin checks against the names this server answers to.

    A Host must be one of the names with a port (1-65535); an Origin must be ``http`` or ``https``
    with one of the names and an optional port, and nothing else (no user info, no path). Names
    compare without case; IPv6 literals compare as addresses (``[0:0::1]`` is ``[::1]``). The port is
    not tied to this server's: what DNS rebinding changes is the name, and a page served from another
    local port (JupyterLab's) is a legitimate origin.
    """

    def __init__(self, host: str = "127.0.0.1", also: Iterable[str] = ()) -> None:
        names = {"127.0.0.1", "localhost", "[::1]", *(_name(name) for name in also)}
        if not is_loopback(host):
            names.add(_name(host))
        self.names = frozenset(name for name in (_canonical(n) for n in names) if name is not None)
        self.names_text = ", ".join(sorted(self.names))
        # Bounded caches: a client sends the same few values on every request.
        self._host_ok = functools.lru_cache(maxsize=256)(self._check_host)
        self._origin_ok = functools.lru_cache(maxsize=256)(self._check_origin)

    def host_ok(self, value: bytes | None) -> bool:
        """Whether a ``Host`` header value names this server (a missing one does not)."""
        return value is not None and self._host_ok(value)

    def origin_ok(self, value: bytes) -> bool:
        """Whether an ``Origin`` header value is a page on this machine."""
        return self._origin_ok(value)

    def _check_host(self, value: bytes) -> bool:
        parsed = _authority(value.decode("latin-1"))
        return parsed is not None and parsed[1] is not None and parsed[0] in self.names

    def _check_origin(self, value: bytes) -> bool:
        matched = _ORIGIN.fullmatch(value.decode("latin-1"))
        if matched is None:
            return False
        parsed = _authority(matched.group(2))
        return parsed is not None and parsed[0] in self.names


def _name(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _canonical(name: str) -> str | None:
    """A host name in the one spelling comparisons use: lower case; IPv6 literals compressed."""
    if name.startswith("["):
        try:
            return f"[{ipaddress.IPv6Address(name[1:-1]).compressed}]"
        except ValueError:
            return None
    return name.lower()


def _authority(text: str) -> tuple[str, int | None] | None:
    """``(host, port)`` of a ``host[:port]``, or None when it is anything more or less than that."""
    matched = _AUTHORITY.fullmatch(text)
    if matched is None:
        return None
    name = _canonical(matched.group(1))
    port = int(matched.group(2)) if matched.group(2) is not None else None
    if name is None or (port is not None and not 0 < port < 65536):
        return None
    return name, port


def build_app(
    sdk_server: Any,
    *,
    identities: Identities,
    host: str,
    max_body: int | None = None,
    answers_at_once: Callable[[Mapping[str, Any], Identity], bool] | None = None,
    sessions: Sessions | None = None,
    session_idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    max_sessions: int = DEFAULT_PER_IDENTITY,
    hosts: Iterable[str] = (),
    oauth: Any = None,
    unauthorized: str = "http.unauthorized",
) -> ASGIApp:
    """A fresh ASGI app (the SDK's session manager can run only once per app).

    `identities`: the credentials the server accepts, and whom each proves.
    `max_body`: the largest request body in bytes; default ``MCP_NOTEBOOK_MAX_REQUEST_BYTES`` or 4 MiB.
    `answers_at_once(request, identity)`: whether a request (a JSON-RPC dict) sends nothing before its
    result and waits for no one, so one JSON body can answer it; None: the SDK's own choice, always.
    `sessions`: the state of each handshake-era session (`_session_state`): made when one opens,
    dropped when it ends, however it ends; told when the client of a streamed tools/call hangs up.
    `session_idle_timeout`, `max_sessions`: handshake-era sessions end after that many idle seconds,
    and one credential holds at most that many (`_sessions`).
    `hosts`: names this server answers to besides loopback and `host` (behind a load balancer, the
    public name clients use), for the Host and Origin checks.
    `oauth`: accept OAuth access tokens too (`_oauth.OAuthResource`), and publish its metadata.
    """
    limit = max_body if max_body is not None else max_request_bytes()
    app = sdk_server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        # The Gate checks Host and Origin exactly; the SDK's check (by prefix) would only repeat a
        # weaker test, and refuse spellings the Gate accepts (upper case, an origin without a port).
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        host=host,
        max_request_body_size=limit,  # the Gate refuses bigger bodies first, with a clearer message
        max_sessions=DEFAULT_TOTAL,
        custom_starlette_routes=oauth.routes() if oauth is not None else None,
    )
    # The SDK builds its session manager inside streamable_http_app(); the subclasses add the limits
    # per credential and the word of a session's end (_sessions) and, with `answers_at_once`, the
    # per-request reply choice (_framing).
    manager = adopt_session_manager(
        sdk_server, SessionManager if answers_at_once is not None else LimitedSessionManager
    )
    sessions = sessions if sessions is not None else Sessions()
    manager.limit(max_sessions, session_idle_timeout, sessions)
    return Gate(
        app,
        identities,
        limit,
        answers_at_once,
        hung_up=sessions.client_gone,
        addresses=AddressCheck(host, hosts),
        oauth=oauth,
        unauthorized=unauthorized,
    )
