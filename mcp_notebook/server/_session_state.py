"""What the server keeps for each handshake-era session (``Mcp-Session-Id``), in one place.

A session's state is made when the session manager admits the session (`http/_sessions`), and
dropped in one place, `Sessions.ended`, however the session ends: a DELETE, the idle timeout, a
crash, or closed to make room for a newer one of the same credential. Handlers only ever update
the state of a session that is open: a late request of an ended session leaves nothing behind.

2026-07-28 requests have no sessions: what they need comes with each request.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession

from ._approval import ApprovalRequest


@dataclass(eq=False)
class SessionState:
    """One session: whose it is, how to reach it, and what it asked for."""

    identity: str  # the identity whose credential opened it (its cap of sessions: `http/_sessions`)
    session: ServerSession | None = None  # to notify of changes; None until it says it is initialized
    log_level: str | None = None  # logging/setLevel (2026-07-28 asks per request instead)
    subscriptions: set[str] = field(default_factory=set)  # resources/subscribe: the URIs it follows
    # Calls waiting for a person, by request id: withdrawn when the client hangs up or the session ends.
    waiting: dict[str, ApprovalRequest] = field(default_factory=dict)


class Sessions:
    """The state of every open handshake-era session, by session id, in the order they were opened."""

    def __init__(self) -> None:
        self._states: dict[str, SessionState] = {}

    def opened(self, session_id: str, identity: str) -> None:
        """A session was admitted for `identity`."""
        self._states[session_id] = SessionState(identity)

    def ended(self, session_id: str) -> None:
        """The session ended, however it did: drop all of its state, and withdraw its calls still waiting.

        Nobody can receive the result of a call approved now; a person must not be asked to run it.
        """
        state = self._states.pop(session_id, None)
        if state is not None:
            for request in list(state.waiting.values()):
                request._resolve("withdrawn")

    def get(self, session_id: str | None) -> SessionState | None:
        """The state of an open session, or None (no session, or one that has ended)."""
        return self._states.get(session_id) if session_id else None

    def of(self, identity: str) -> list[str]:
        """The open sessions of `identity`, oldest first."""
        return [session_id for session_id, state in self._states.items() if state.identity == identity]

    def reachable(self) -> list[SessionState]:
        """The sessions that can be told of a change."""
        return [state for state in self._states.values() if state.session is not None]

    def client_gone(self, session_id: str, request_id: str) -> None:
        """The client of a handshake-era call hung up: withdraw its approval prompt, if it waits.

        Spec 2025-11-25 (basic/transports) says a disconnection is not a cancellation, because a
        client may resume the stream; this server keeps no event store, so nothing can resume it,
        and the result of a call approved now would reach no one. A person must not be asked to
        run it (and a late Approve must not run it).
        """
        state = self._states.get(session_id)
        request = state.waiting.get(request_id) if state is not None else None
        if request is not None:
            request._resolve("withdrawn")

    def __len__(self) -> int:
        return len(self._states)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._states))


def session_id_of(ctx: ServerRequestContext[Any]) -> str | None:
    """The ``Mcp-Session-Id`` of the request behind `ctx` (None: 2026-07-28, or no HTTP request)."""
    request = ctx.request
    return request.headers.get("mcp-session-id") if request is not None else None
