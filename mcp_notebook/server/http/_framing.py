"""JSON or SSE, chosen per request: the SDK's Streamable HTTP classes with one flag made per-request.

The SDK answers requests as one JSON body or with an SSE stream by a setting fixed per server
(``json_response``). The Gate (`_http`) reads each request and says which it needs, through a
context variable that these subclasses read where the SDK reads its setting: the handshake-era
session transport (``is_json_response_enabled``) and the session manager, which hands the setting
to the 2026-07-28 handler (``json_response``). Where no request set it (the session's own task,
GET streams), the default is the SDK's own: streams.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from mcp.server.streamable_http import StreamableHTTPServerTransport

from .._sdk_compat import adopt_transport
from ._sessions import LimitedSessionManager

# The Gate's choice for the request being served: one JSON body (True) or the SDK's stream handling.
_json_reply: ContextVar[bool] = ContextVar("mcp_notebook_json_reply", default=False)


class _ReplyChoosingTransport(StreamableHTTPServerTransport):
    """The SDK's handshake-era session transport, answering each POST the way the Gate chose.

    The SDK decides JSON or SSE once per server; this reads the flag per request instead. Outside
    a request the Gate chose for (the session's own task, GET streams) it is False: SSE, as before.
    """

    @property
    def is_json_response_enabled(self) -> bool:
        return _json_reply.get()

    @is_json_response_enabled.setter
    def is_json_response_enabled(self, value: bool) -> None:
        pass  # chosen per request (see json_reply)


class SessionManager(LimitedSessionManager):
    """The session manager (limits and the word of a session's end: `_sessions`), with the JSON-or-stream
    choice made per request (both eras)."""

    @property
    def json_response(self) -> bool:  # read per 2026-07-28 request, as it is handed on
        return _json_reply.get()

    @json_response.setter
    def json_response(self, value: bool) -> None:
        pass  # chosen per request (see json_reply)

    def admit(self, requestor: Any) -> StreamableHTTPServerTransport | None:
        transport = super().admit(requestor)
        if transport is not None:
            # The SDK builds the transport itself; the subclass only adds the per-request choice.
            transport = adopt_transport(transport, _ReplyChoosingTransport)
        return transport


@contextlib.contextmanager
def json_reply(at_once: bool) -> Iterator[None]:
    """Answer the request served inside this block with one JSON body (True) or as the SDK would."""
    choice = _json_reply.set(at_once)
    try:
        yield
    finally:
        _json_reply.reset(choice)
