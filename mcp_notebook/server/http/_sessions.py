"""Handshake-era sessions (``Mcp-Session-Id``): how many one credential may hold, and how long idle.

The SDK keeps up to 10,000 sessions for everyone together and ends one after 30 idle minutes: one
token holder opening sessions in a loop locks every other client out with a bare 503. Here each
credential's identity (`identity_of`) holds at most ``per_identity`` sessions. When it opens one
more, its oldest *idle* session (no request in flight, no open GET stream) is closed to make room;
if all of them are busy, the new one is refused with a 429 that says why and what to do. Idle
sessions end after ``idle_timeout`` seconds (10 minutes by default).

Whose each session is lives with the rest of its state (`_session_state.Sessions`): the manager
makes that state when it admits a session and drops it when the session ends, however it ends.

Processes that share a store (an exported app's workers on one port, or replicas) share sessions:
the handshake of each is recorded there when it opens (`_session_state.SessionRecords`), and a
process that gets a request of a session it does not hold takes it over, born ready, for the
identity that opened it and no other. A DELETE removes the record, and so does the idle expiry (the
record's TTL, renewed on use): every process then answers 404.

2026-07-28 requests have no sessions: none of this applies to them.
"""

from __future__ import annotations

import contextvars
import json
import logging
from typing import Any

from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from starlette.types import Receive, Scope, Send

from ...core._identity import STATE_KEY, Identity
from ...core._text import t
from .._sdk_compat import HookedSessionManager, requestor_of, requests_in_flight
from .._session_state import SessionRecords, Sessions

logger = logging.getLogger(__name__)


DEFAULT_IDLE_TIMEOUT = 600.0
DEFAULT_PER_IDENTITY = 32
DEFAULT_TOTAL = 1000  # all identities together: a ceiling on what sessions can cost the kernel

_opening_for: contextvars.ContextVar[str] = contextvars.ContextVar("mcp_notebook_session_identity")


def identity_of(scope: Scope) -> str:
    """The name of the identity whose credential authenticated this request (the Gate puts it there)."""
    identity = scope.get("state", {}).get(STATE_KEY)
    return identity.name if isinstance(identity, Identity) else ""


class LimitedSessionManager(HookedSessionManager):
    """The SDK's session manager, with a per-identity cap that makes room by closing idle sessions.

    The SDK builds its manager itself; it is made one of these (`adopt_session_manager`), then `limit`
    sets its limits.
    """

    per_identity = DEFAULT_PER_IDENTITY
    # The state of each open session (whose it is, among the rest): made when a session is admitted,
    # dropped when it ends (DELETE, idle timeout, crash, closed to make room), so nothing outlives it.
    sessions: Sessions

    def limit(self, per_identity: int, idle_timeout: float, sessions: Sessions) -> None:
        self.per_identity = per_identity
        self.session_idle_timeout = idle_timeout
        self.sessions = sessions

    def open_sessions(self) -> int:
        """How many handshake-era sessions are open now (all identities)."""
        return self.session_count()

    async def serve_stateful(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers", []))
        session = headers.get(MCP_SESSION_ID_HEADER.lower().encode())
        identity = identity_of(scope)
        records = self.sessions.records
        if session is not None:
            session_id = session.decode("latin-1")
            if self.transport_of(session_id) is None:
                # Unknown here: it ended, or another process opened it (a worker on the same port, a
                # replica that stopped). Taken over if the store says it is this identity's and open.
                record = records.find(session_id, identity) if records is not None else None
                if record is None or records is None:
                    # The SDK's bare "Session not found" names no way out.
                    await _unknown_session(send)
                    return
                if not await self._take_over(session_id, identity, record, scope, records):
                    await _refuse(send, len(self._sessions_of(identity)), self.session_idle_timeout)
                    return
            elif self._anothers(session_id, identity):
                # Another credential's session, held here: answered as an unknown one, word for word as
                # a process that does not hold it answers (the SDK's own refusal words it differently,
                # which would tell the caller the id is live, and where).
                await _unknown_session(send)
                return
            elif records is not None and not self._still_open(session_id, records):
                await _unknown_session(send)  # the client ended it through another process, or it expired
                return
            await super().serve_stateful(scope, receive, send)
            if (
                records is not None
                and scope.get("method") == "DELETE"
                and self.transport_of(session_id) is None
            ):
                records.forget(session_id, identity)  # the SDK ended it: only for the identity that owns it
            return
        if self._full_and_busy(identity):
            await _refuse(send, len(self._sessions_of(identity)), self.session_idle_timeout)
            return
        if records is not None:
            receive, send = _recording(receive, send, records, identity)
        token = _opening_for.set(identity)
        try:
            await super().serve_stateful(scope, receive, send)
        finally:
            _opening_for.reset(token)

    def admit(self, requestor: Any) -> StreamableHTTPServerTransport | None:
        # Under the SDK's session-creation lock: count, make room, admit, in one step.
        identity = _opening_for.get("")
        if not self._make_room(identity):
            return None  # all busy: the SDK's 503 (only a request racing another one gets here)
        transport = super().admit(requestor)
        if transport is not None and transport.mcp_session_id is not None:
            self.sessions.opened(transport.mcp_session_id, identity)
        return transport

    async def _take_over(
        self, session_id: str, identity: str, record: dict[str, Any], scope: Scope, records: SessionRecords
    ) -> bool:
        """Serve here a session another process opened (False: this identity's sessions are all busy)."""
        async with self.creation_lock():
            if self.transport_of(session_id) is None:  # a request racing this one may have done it
                if not self._make_room(identity):
                    return False
                transport = self.open_as(session_id, requestor_of(scope))
                self.sessions.opened(session_id, identity)
                await self.start_born_ready(transport, record.get("initialize") or {})
                logger.info("took over session %s, opened by another process", session_id[:8])
        records.used(session_id, record, taken_over=True)
        return True

    def _anothers(self, session_id: str, identity: str) -> bool:
        """Whether the session held here was opened by another identity than `identity`."""
        state = self.sessions.get(session_id)
        return state is not None and state.identity != identity

    def _still_open(self, session_id: str, records: SessionRecords) -> bool:
        """Whether a session held here is still open for every process (renewing its record); if not, end it."""
        state = self.sessions.get(session_id)
        if state is None:
            return True  # not one the manager admitted: the SDK answers as it would
        record = records.find(session_id, state.identity)
        if record is not None:
            records.used(session_id, record)
            return True
        self.close_session(session_id)
        self.sessions.ended(session_id)
        return False

    def _make_room(self, identity: str) -> bool:
        """Close `identity`'s oldest idle sessions until it may hold one more; False if all are busy."""
        mine = self._sessions_of(identity)
        while len(mine) >= self.per_identity:
            idle = next((session for session in mine if self._idle(session)), None)
            if idle is None:
                return False
            self._close(idle)
            mine.remove(idle)
        return True

    async def discard(self, session_id: str, transport: StreamableHTTPServerTransport) -> None:
        self.sessions.ended(session_id)
        await super().discard(session_id, transport)

    def _sessions_of(self, identity: str) -> list[str]:
        return [session for session in self.sessions.of(identity) if self.transport_of(session) is not None]

    def _full_and_busy(self, identity: str) -> bool:
        mine = self._sessions_of(identity)
        return len(mine) >= self.per_identity and not any(self._idle(session) for session in mine)

    def _idle(self, session: str) -> bool:
        transport = self.transport_of(session)
        return transport is not None and not requests_in_flight(transport)

    def _close(self, session: str) -> None:
        """End `session` now: its id answers 404 from here on, its transport ends in the background."""
        state = self.sessions.get(session)
        if self.sessions.records is not None and state is not None:
            self.sessions.records.forget(session, state.identity)  # ended for every process
        self.close_session(session)
        self.sessions.ended(session)
        logger.info("closed idle session %s to make room for a new one of the same credential", session[:8])


def _recording(receive: Receive, send: Send, records: SessionRecords, identity: str) -> tuple[Receive, Send]:
    """`receive` and `send` of a request that may open a session, which record its handshake.

    Recorded before the answer leaves, so that the client's next request finds the record in
    whichever process it reaches.
    """
    body = bytearray()

    async def receive_kept() -> Any:
        message = await receive()
        if message["type"] == "http.request":
            body.extend(message.get("body", b""))
        return message

    async def send_recorded(message: Any) -> None:
        if message["type"] == "http.response.start" and message["status"] < 400:
            session = dict(message.get("headers", [])).get(MCP_SESSION_ID_HEADER.lower().encode())
            params = _initialize_params(bytes(body))
            if session is not None and params is not None:
                records.record(session.decode("latin-1"), identity, params)
        await send(message)

    return receive_kept, send_recorded


def _initialize_params(body: bytes) -> dict[str, Any] | None:
    try:
        request = json.loads(body)
    except ValueError:
        return None
    if not isinstance(request, dict) or request.get("method") != "initialize":
        return None
    params = request.get("params")
    return params if isinstance(params, dict) else None


async def _unknown_session(send: Send) -> None:
    # 404: the spec's answer to an unknown session, on which a client starts a new one (2025-11-25
    # basic/transports "Session Management").
    error = {"code": -32600, "message": t("sessions.unknown")}
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}, ensure_ascii=False).encode()
    headers = [
        (b"content-type", b"application/json; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": 404, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _refuse(send: Send, count: int, idle_timeout: float | None) -> None:
    minutes = (idle_timeout or 0) / 60
    error = {"code": -32000, "message": t("sessions.full", count=count, minutes=minutes)}
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}, ensure_ascii=False).encode()
    headers = [
        (b"content-type", b"application/json; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", b"10"),
    ]
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": body})
