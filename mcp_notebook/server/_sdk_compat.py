"""Where the server leans on the SDK's internals (and uvicorn's): every such use, in this one module.

The SDK's low-level `Server` and Streamable HTTP classes leave a few things the server needs without
a public way to do them: a cap on sessions per credential that makes room by closing idle sessions,
the word of a session's end (`HookedSessionManager`), the JSON-or-stream reply chosen per request
(`adopt_transport`), ``server/discover`` naming the versions of both eras (`default_discover`),
and the 2025-11-25 answer to a task-augmented ``tools/call`` (`TaskAnswers`).
These reach private names of the SDK, which may change in any minor release, and nothing outside the
two compat modules does (this one, and `mcp_notebook.client._sdk_compat` for the client's side: the
server and client layers never import each other). ``tests/peers/test_sdk_compat.py`` fails when a module
elsewhere touches one.

`RELIES_ON` lists every private name used here, and each public name we use in a way the SDK or
uvicorn does not document (an attribute shadowed by a property, a method overridden, an attribute
marked provisional), with the shape we need and where we rely on it. The same test checks each one
on the installed packages and fails naming the one that changed. pyproject keeps ``mcp`` and
``uvicorn`` below their next minor release: raise a bound only once that test passes on it.

Three reliances have no name to check: that the SDK reads its JSON-or-stream setting on each request
(``server/http/_framing.py`` answers it per request with properties;
``tests/server/test_replies.py::test_a_call_that_sends_nothing_first_is_one_json_body`` fails when it does not),
that a middleware's ``call_next`` runs the handler in the middleware's own context (context
variables set before it reach the handler: `TaskAnswers`;
``tests/server/test_tasks.py::test_a_task_augmented_call_is_answered_with_a_task`` fails when it does not),
and that a session's ``send_notification`` sends a notification its type union leaves out (the 2025-11-25
``notifications/tasks/status``: `notify_task_status`;
``tests/server/test_tasks.py::test_a_2025_session_hears_its_tasks_status_on_its_own_stream`` fails when it does not).
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Mapping
from typing import Any, TypeVar

import anyio
import mcp_types as types
from anyio.abc import TaskStatus
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.runner import serve_connection
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.transport_context import TransportContext
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from starlette.types import Receive, Scope, Send

logger = logging.getLogger(__name__)

_MANAGER = "mcp.server.streamable_http_manager.StreamableHTTPSessionManager"
_TRANSPORT = "mcp.server.streamable_http.StreamableHTTPServerTransport"
_SERVER = "mcp.server.lowlevel.server.Server"
_H11 = "uvicorn.protocols.http.h11_impl.H11Protocol"
_CYCLE = "uvicorn.protocols.http.h11_impl.RequestResponseCycle"
_CONNECTIONS = "server/http/_connections.py (connection deadlines and cap)"

# (what, the shape we need, who relies on it). Shapes: "def (signature)" and "async def (signature)"
# (exactly those parameters, annotations aside), "property", "attribute" (set on instances or the class).
RELIES_ON: tuple[tuple[str, str, str], ...] = (
    # Private names: reached only through the hooks below.
    (
        f"{_MANAGER}._handle_stateful_request",
        "async def (self, scope, receive, send)",
        "HookedSessionManager",
    ),
    (f"{_MANAGER}._admit_session", "def (self, requestor)", "HookedSessionManager"),
    (f"{_MANAGER}._discard_session", "async def (self, session_id, transport)", "HookedSessionManager"),
    (f"{_MANAGER}._server_instances", "attribute", "HookedSessionManager (the session table)"),
    (f"{_MANAGER}._session_owners", "attribute", "HookedSessionManager.close_session"),
    (f"{_MANAGER}._task_group", "attribute", "HookedSessionManager.close_session, open_as"),
    (f"{_MANAGER}._session_creation_lock", "attribute", "HookedSessionManager.creation_lock"),
    (f"{_MANAGER}._lifespan_state", "attribute", "HookedSessionManager.start_born_ready"),
    (f"{_TRANSPORT}._requests_in_flight", "attribute", "requests_in_flight"),
    (f"{_SERVER}._handle_discover", "async def (self, ctx, params)", "default_discover"),
    # Public names, used in a way the SDK does not document.
    (f"{_SERVER}.session_manager", "property", "adopt_session_manager (the manager the app was built with)"),
    (f"{_MANAGER}.json_response", "attribute", "server/http/_framing.py (a property, read per request)"),
    (
        f"{_TRANSPORT}.is_json_response_enabled",
        "attribute",
        "server/http/_framing.py (a property, per request)",
    ),
    (
        f"{_MANAGER}.session_idle_timeout",
        "attribute",
        "server/http/_sessions.py (set after the SDK built it)",
    ),
    (
        f"{_SERVER}.create_initialization_options",
        "def (self, notification_options=None, experimental_capabilities=None, extensions=None)",
        "server/_protocol.py (overridden: the session manager passes no NotificationOptions)",
    ),
    (
        f"{_SERVER}.middleware",
        "attribute",
        "cli/_bridge.py, TaskAnswers (provisional in the SDK: may change in a 2.x minor)",
    ),
    # uvicorn's HTTP/1.1 connection, subclassed; its attributes are public names but documented nowhere.
    (f"{_H11}.connection_made", "def (self, transport)", _CONNECTIONS),
    (f"{_H11}.data_received", "def (self, data)", _CONNECTIONS),
    (f"{_H11}.on_response_complete", "def (self)", _CONNECTIONS),
    (f"{_H11}.connection_lost", "def (self, exc)", _CONNECTIONS),
    (f"{_H11}.resume_writing", "def (self)", _CONNECTIONS),
    (f"{_H11}.connections", "attribute", _CONNECTIONS),
    (f"{_H11}.cycle", "attribute", _CONNECTIONS),
    (f"{_H11}.loop", "attribute", _CONNECTIONS),
    (f"{_H11}.transport", "attribute", _CONNECTIONS),
    (f"{_CYCLE}.response_complete", "attribute", _CONNECTIONS),
    (f"{_CYCLE}.more_body", "attribute", _CONNECTIONS),
    (f"{_CYCLE}.scope", "attribute", _CONNECTIONS),
    (
        "uvicorn.server.Server.startup",
        "async def (self, sockets=None)",
        "server/http/_listener.py (ready event)",
    ),
    ("uvicorn.server.Server.started", "attribute", "server/http/_listener.py"),
)

_Adopted = TypeVar("_Adopted")


class HookedSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager, its private steps and session table reached through names of ours.

    Subclasses override `serve_stateful`, `admit` and `discard`, calling ``super()`` for the SDK's own
    step, and read or change the table with `transport_of`, `session_count` and `close_session`.
    The SDK builds its manager itself: `adopt_session_manager` turns it into one of these.

    The SDK caps sessions for all clients together (``max_sessions``), with no say in which session
    makes room, and tells nobody when a session ends. The private steps came with that cap
    (python-sdk PR #3395); public ones would replace this class: an admission hook that sees the
    request, an ``on_session_closed`` callback, and a read-only view of the open sessions with a
    ``close_session(id)``.
    """

    # -- the SDK's steps, as hooks ------------------------------------------------------------------
    async def serve_stateful(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve a handshake-era request, with a session id or opening one, as the SDK does.

        Overridden to refuse (or note who is asking) before the SDK opens a session: admission itself
        is not given the request.
        """
        await super()._handle_stateful_request(scope, receive, send)

    def admit(self, requestor: Any) -> StreamableHTTPServerTransport | None:
        """Register a new session and return its transport; None is the SDK's 503 (its cap is reached).

        Called under the SDK's session-creation lock, so what an override counts and closes to make
        room, and the admission, happen in one step.
        """
        return super()._admit_session(requestor)

    async def discard(self, session_id: str, transport: StreamableHTTPServerTransport) -> None:
        """Forget a session that ended, however it ended (DELETE, idle timeout, crash, refused opening)."""
        await super()._discard_session(session_id, transport)

    # -- the SDK's session table --------------------------------------------------------------------
    def transport_of(self, session_id: str) -> StreamableHTTPServerTransport | None:
        """The transport of an open session, or None."""
        return self._server_instances.get(session_id)

    def session_count(self) -> int:
        """How many handshake-era sessions are open (all credentials)."""
        return len(self._server_instances)

    def close_session(self, session_id: str) -> None:
        """End an open session now: its id answers 404 from here on, its transport ends in the background.

        Synchronous (unlike the SDK's discard), so that `admit` can make room under the lock.
        """
        transport = self._server_instances.pop(session_id)
        self._session_owners.pop(session_id, None)
        if self._task_group is not None:
            self._task_group.start_soon(transport.terminate)

    # -- a session another process opened, taken over here ----------------------------------------
    # The SDK opens a session only from an ``initialize`` it answers itself, in this process: workers
    # sharing one port (``uvicorn --workers 4``) or a replica taking over a dead one's sessions have
    # the handshake only as a record. A public ``resume_session(id, owner, initialize_params)`` on
    # the manager (a born-ready connection for a known handshake) would replace these three.
    def creation_lock(self) -> anyio.Lock:
        """The SDK's session-creation lock: admission and taking a session over happen under it."""
        return self._session_creation_lock

    def open_as(self, session_id: str, requestor: Any) -> StreamableHTTPServerTransport:
        """Register a session under `session_id` for `requestor` (`requestor_of`), as admission would.

        Call under `creation_lock`; then `start_born_ready` serves it.
        """
        transport = StreamableHTTPServerTransport(
            mcp_session_id=session_id,
            is_json_response_enabled=self.json_response,
            event_store=self.event_store,
            security_settings=self.security_settings,
            retry_interval=self.retry_interval,
            idle_timeout=self.session_idle_timeout,
        )
        if requestor is not None:
            self._session_owners[session_id] = requestor
        self._server_instances[session_id] = transport
        return transport

    async def start_born_ready(
        self, transport: StreamableHTTPServerTransport, initialize_params: Mapping[str, Any]
    ) -> None:
        """Serve a session registered by `open_as` as if its ``initialize`` had been answered here.

        `initialize_params` are the params of the ``initialize`` that opened it (in whichever process):
        the version is negotiated from them as the SDK does, and the client's info and capabilities
        are the handshake's. The session ends as any other (idle expiry, DELETE), through `discard`.
        """
        session_id = transport.mcp_session_id
        assert session_id is not None and self._task_group is not None
        # The version as the SDK's runner negotiates it: the client's own, if it is one it speaks.
        client_params = types.InitializeRequestParams.model_validate(initialize_params, by_name=False)
        requested = client_params.protocol_version
        version = requested if requested in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
        app, lifespan_state = self.app, self._lifespan_state

        async def run_server(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            async with transport.connect() as (read_stream, write_stream):
                task_status.started()
                try:
                    idle_scope = (
                        transport.idle_scope if transport.idle_scope is not None else anyio.CancelScope()
                    )
                    with idle_scope:
                        dispatcher: JSONRPCDispatcher[TransportContext] = JSONRPCDispatcher(
                            read_stream, write_stream, inline_methods=frozenset({"initialize"})
                        )
                        connection = Connection.for_loop(
                            dispatcher, session_id=session_id, protocol_version_hint=version
                        )
                        connection.client_params = client_params
                        connection.initialized.set()  # born ready: the client said so to the first process
                        await serve_connection(
                            app, dispatcher, connection=connection, lifespan_state=lifespan_state
                        )
                except Exception:
                    logger.exception("session %s crashed", session_id[:8])
                finally:
                    await self._discard_session(session_id, transport)

        await self._task_group.start(run_server)

    # -- where the SDK calls its private steps: routed to the hooks ---------------------------------
    async def _handle_stateful_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.serve_stateful(scope, receive, send)

    def _admit_session(self, requestor: Any) -> StreamableHTTPServerTransport | None:
        return self.admit(requestor)

    async def _discard_session(self, session_id: str, transport: StreamableHTTPServerTransport) -> None:
        await self.discard(session_id, transport)


def requestor_of(scope: Scope) -> Any:
    """Who the SDK binds a session to (the credential the Gate put in ``scope["user"]``), or None."""
    user = scope.get("user")
    return authorization_context(user) if isinstance(user, AuthenticatedUser) else None


def requests_in_flight(transport: StreamableHTTPServerTransport) -> int:
    """How many requests a session's transport is serving now (an open GET stream counts).

    The SDK counts them to time the idle expiry and gives no reader; a public ``idle`` (or
    ``requests_in_flight``) on the transport would replace this.
    """
    return transport._requests_in_flight


def adopt_session_manager(sdk_server: Server[Any], cls: type[_Adopted]) -> _Adopted:
    """The session manager ``sdk_server.streamable_http_app()`` built, made an instance of `cls`.

    `cls` subclasses the SDK's manager with methods and class attributes only (no state the SDK's
    constructor would have to set up). The SDK builds its manager inside ``streamable_http_app()``
    and takes no class or factory for it; such a parameter would replace this.
    """
    return _adopt(sdk_server.session_manager, cls)


def adopt_transport(transport: StreamableHTTPServerTransport, cls: type[_Adopted]) -> _Adopted:
    """A session's transport, as the SDK built it in admission, made an instance of `cls`.

    `cls` subclasses the SDK's transport with methods and properties only. The manager builds each
    transport itself and takes no class or factory for it; such a parameter would replace this.
    """
    return _adopt(transport, cls)


def _adopt(instance: Any, cls: type[_Adopted]) -> _Adopted:
    if not issubclass(cls, type(instance)):
        raise TypeError(f"{cls.__name__} must subclass {type(instance).__name__} to take over its instance")
    instance.__class__ = cls
    adopted: _Adopted = instance
    return adopted


async def default_discover(
    sdk_server: Server[Any], ctx: ServerRequestContext[Any], params: types.RequestParams | None
) -> types.DiscoverResult:
    """The SDK's own ``server/discover`` answer (capabilities, instructions), to amend.

    The SDK names only 2026-07-28 versions there, and offers no way to name more, nor to reach its
    answer once another handler replaces its own; a ``supported_versions`` setting on `Server` (as
    the Go SDK's ``ServerOptions.SupportedProtocolVersions``) would replace this.
    """
    return await sdk_server._handle_discover(ctx, params)


# -- 2025-11-25 task-augmented tools/call ---------------------------------------------------------------
_TASK_ANSWER: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "mcp_notebook_task_answer", default=None
)


class TaskAnswers:
    """A `Server.middleware` entry: a handshake-era ``tools/call`` with ``params.task`` is answered
    with the task (``{"task": {...}}``), which the handler gives `answer_instead`.

    The SDK checks every handshake-era ``tools/call`` result against ``CallToolResult`` (which needs
    ``content``) and answers a `CreateTaskResult` with ``-32603``: the SDK has no tasks (2.3). The
    request still goes through the SDK's whole chain (handshake gate, params check, the handler);
    only the answer the handler hands over here replaces what the SDK made of its placeholder. A
    ``result_types`` hook per request (or tasks in the SDK) would replace this.
    """

    async def __call__(self, ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        params = ctx.params or {}
        if (
            ctx.method != "tools/call"
            or ctx.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS
            or not isinstance(params.get("task"), dict)
        ):
            return await call_next(ctx)
        slot: dict[str, Any] = {}
        token = _TASK_ANSWER.set(slot)
        try:
            result = await call_next(ctx)
        finally:
            _TASK_ANSWER.reset(token)
        answer: HandlerResult = slot.get("answer", result)
        return answer


def answer_instead(answer: dict[str, Any]) -> bool:
    """Answer the request being handled with `answer` (through `TaskAnswers`); False if it cannot be."""
    slot = _TASK_ANSWER.get()
    if slot is None:
        return False
    slot["answer"] = answer
    return True


async def notify_task_status(session: Any, task: dict[str, Any]) -> None:
    """Send ``notifications/tasks/status`` (2025-11-25) with `task` on the session's own stream.

    The SDK's notification types leave tasks out (2.3: "types-only"), but ``send_notification``
    only dumps what it is given; with no request named, it goes to the standalone GET stream.
    """
    notification = types.TaskStatusNotification(
        params=types.TaskStatusNotificationParams.model_validate(task)
    )
    await session.send_notification(notification)
