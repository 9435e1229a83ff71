"""The bridge's connections to the HTTP server, and what comes back on them for one stdio request.

A server learns what its client can answer (elicitation and its modes, sampling and its
sub-capabilities, roots) from the capabilities the client declares, once per connection on
2025-11-25 and with every request (but fixed by the SDK per connection) on 2026-07-28; a
connection also speaks one protocol era. So the bridge holds one upstream connection per era and
set of capabilities of its stdio client, declaring exactly what that client declared
(`DeclaringClient`): the first, opened at start (2026-07-28 where the server speaks it, declaring
nothing), proves the server is there and carries the change notifications (`_bridge_relay`); the
others are opened on the first request that needs them, in the stdio client's era where the server
speaks it. A 2026-07-28 client may declare something else with each request: the connections no
request uses are kept for the next up to `IDLE_CONNECTIONS`, least recently used closed first.

Each connection declares the tasks extension when the stdio client did and speaks its era (it is the
one extension the bridge relays, `_bridge_tasks`), and hands the 2025-11-25
``notifications/tasks/status`` it hears to `Upstreams.on_task_status`. At start, a server that speaks
2026-07-28 is also asked once, on a 2025-11-25 connection closed at once, what it offers in that era
(`Upstreams.legacy_offer`: a 2025-11-25 stdio client's ``initialize`` is answered from it).

While the server handles a request it may send back progress, log lines and, on a 2025-11-25
upstream, questions. The SDK hands them to the upstream client's callbacks on the task that sent
the request (it carries the sender's context variables across the HTTP transport), so the
context variable `forwarding` sets says which stdio request they belong to.
"""

from __future__ import annotations

import contextlib
import json
import logging
import warnings
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.server.connection import allowed_log_levels
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .._version import __version__
from ..client._http import http_client
from ..client._sdk_compat import TASKS_EXTENSION, DeclaringClient, TaskStatusWatch
from ..core._app_frame import EXTENSION_ID
from ._bridge_held import HeldCall

logger = logging.getLogger(__name__)

# Results of what a server may ask its client, by request type.
ANSWERS: dict[type[Any], type[Any]] = {
    types.ElicitRequest: types.ElicitResult,
    types.CreateMessageRequest: types.CreateMessageResult,
    types.ListRootsRequest: types.ListRootsResult,
}
QUESTION_CAPABILITIES = ("elicitation", "sampling", "roots")
IDLE_CONNECTIONS = 4  # upstream connections kept open for capability sets no request uses right now

_forwarded: ContextVar[ServerRequestContext[Any] | HeldCall | None] = ContextVar(
    "mcp_notebook_forwarded", default=None
)


@contextlib.contextmanager
def forwarding(ctx: ServerRequestContext[Any] | HeldCall) -> Iterator[None]:
    """What the upstream sends back inside this block belongs to the stdio request `ctx` (or held call)."""
    token = _forwarded.set(ctx)
    try:
        yield
    finally:
        _forwarded.reset(token)


def is_modern(protocol_version: str | None) -> bool:
    return protocol_version in MODERN_PROTOCOL_VERSIONS


def declared_questions(capabilities: types.ClientCapabilities | None) -> types.ClientCapabilities:
    """What a client can be asked, as it declared it: elicitation modes, sampling sub-capabilities, roots."""
    if capabilities is None:
        return types.ClientCapabilities()
    return types.ClientCapabilities(**{name: getattr(capabilities, name) for name in QUESTION_CAPABILITIES})


def declared_upstream(capabilities: types.ClientCapabilities | None) -> types.ClientCapabilities:
    """What the bridge declares upstream for a client that declared `capabilities`: its questions, and
    the tasks and MCP Apps extensions if it declared them.

    Nothing else travels: the bridge carries no other extension (nor ``experimental``, nor the
    2025-11-25 client ``tasks``, which is for tasks the server would make of its own questions). Apps
    need nothing of the bridge: an Apps host (Claude Desktop) reads the tool's ``_meta.ui`` and the
    ``ui://`` resource through it like any other, so the server sees the host's declaration.
    """
    declared = declared_questions(capabilities)
    extensions = (capabilities.extensions if capabilities is not None else None) or {}
    carried = {key: dict(extensions[key]) for key in (TASKS_EXTENSION, EXTENSION_ID) if key in extensions}
    if carried:
        return declared.model_copy(update={"extensions": carried})
    return declared


def without_tasks(declared: types.ClientCapabilities) -> types.ClientCapabilities:
    """`declared` less the tasks extension (for a server of the other era; Apps are the same in both)."""
    kept = {key: value for key, value in (declared.extensions or {}).items() if key != TASKS_EXTENSION}
    return declared.model_copy(update={"extensions": kept or None})


@contextlib.asynccontextmanager
async def open_upstream(
    url: str,
    token: str | None,
    on_message: Any = None,
    *,
    mode: str = "auto",
    declared: types.ClientCapabilities | None = None,
    **callbacks: Any,
) -> AsyncIterator[Client]:
    """An SDK client for `url` with the token as a bearer header and no response cache (never stale).

    `declared`: the capabilities it declares, exactly (`None`: what its callbacks imply).
    """
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    # No read timeout: a listen stream stays open and quiet for as long as the notebook does not change,
    # and a call may wait for a person (an approval, a question) for as long as they take.
    timeout = httpx2.Timeout(30, read=None)
    async with (
        http_client(headers=headers, timeout=timeout) as http,
        DeclaringClient(
            streamable_http_client(url, http_client=http),
            mode=mode,
            cache=None,
            message_handler=on_message,
            # The notebook's activity log and approval prompts name the caller: say it is the bridge.
            client_info=types.Implementation(name="mcp-notebook-bridge", version=__version__),
            declared=declared,
            **callbacks,
        ) as client,
    ):
        yield client


async def ask_downstream(ctx: ServerRequestContext[Any], request: Any) -> Any:
    """Put one of the server's questions to the stdio client of `ctx` (2025-11-25), on that request.

    The answer, or the stdio client's refusal as `ErrorData` (which the SDK sends upstream as an error).
    """
    try:
        return await ctx.session.send_request(
            request,
            ANSWERS[type(request)],
            metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
        )
    except MCPError as exc:
        return exc.error


@dataclass(eq=False)
class _Connection:
    """One upstream connection opened for a set of capabilities, and the requests using it."""

    client: Client
    scope: anyio.CancelScope  # of the task that holds it open: cancelled to close it
    users: int = 0


class Upstreams:
    """The upstream connections of one bridge, keyed by the era they speak and the capabilities they declare."""

    def __init__(self, url: str, token: str | None, on_message: Callable[[Any], Awaitable[None]]) -> None:
        self.url = url
        self.token = token
        self.on_message = on_message  # change notifications, from the first connection only
        # 2025-11-25 notifications/tasks/status, from any connection (set by `_bridge_tasks`).
        self.on_task_status: Callable[[types.TaskStatusNotificationParams], Awaitable[None]] | None = None
        self.log_level: types.LoggingLevel | None = None  # the stdio client's logging/setLevel
        # The stdio connection of a 2025-11-25 client, for log lines that belong to no request.
        self.stdio_session: ServerSession | None = None
        self._first: Client | None = None
        self._pinned = False
        # What the server offers in 2025-11-25, to the requests of a stdio client of that era (`open`).
        self.legacy_offer: types.ServerCapabilities | None = None
        self._group: anyio.abc.TaskGroup | None = None
        # The others, least recently used first.
        self._more: OrderedDict[tuple[bool, str], _Connection] = OrderedDict()
        self._opening = anyio.Lock()

    @contextlib.asynccontextmanager
    async def open(self, *, mode: str = "auto") -> AsyncIterator[Client]:
        """Open the first connection (the one that proves the server is there); the others open later.

        `mode`: ``"auto"`` speaks each stdio client's era upstream where the server speaks it; an era
        (``"legacy"``, ``"2026-07-28"``) is spoken upstream whatever the stdio client speaks.
        """
        # A 2026-07-28 client that is told its version skips server/discover, and with it the server's
        # capabilities, which the stdio side offers: discover them (our servers answer 2026-07-28 first).
        client_mode = "auto" if is_modern(mode) else mode
        async with open_upstream(
            self.url,
            self.token,
            self.on_message,
            mode=client_mode,
            declared=types.ClientCapabilities(),  # what its callbacks imply: nothing
            logging_callback=self._log,
            extensions=[TaskStatusWatch(self._task_status)],
        ) as client:
            self._first, self._pinned = client, mode != "auto"
            self.legacy_offer = await self._legacy_offer()
            yield client

    async def _legacy_offer(self) -> types.ServerCapabilities | None:
        """What the server offers a 2025-11-25 client (`None`: no stdio request goes upstream in that era).

        The first connection tells it in its era; a server that speaks 2026-07-28 too is asked once more,
        in 2025-11-25 on a connection closed at once, since a 2025-11-25 stdio client's ``initialize``
        is answered without a word upstream (and the SDK answers it while it reads nothing else).
        """
        if not self.modern:
            return self.first.server_capabilities
        if self._pinned:
            return None
        try:
            async with open_upstream(
                self.url, self.token, mode="legacy", declared=types.ClientCapabilities()
            ) as legacy:
                return None if is_modern(legacy.protocol_version) else legacy.server_capabilities
        except Exception:  # it speaks 2026-07-28 only: a 2025-11-25 stdio client's requests go there
            logger.debug("%s does not speak 2025-11-25", self.url, exc_info=True)
            return None

    def attach(self, group: anyio.abc.TaskGroup) -> None:
        """The task group that holds the connections opened later (and ends them with the bridge)."""
        self._group = group

    @property
    def first(self) -> Client:
        assert self._first is not None, "open() first"
        return self._first

    @property
    def modern(self) -> bool:
        return is_modern(self.first.protocol_version)

    def __len__(self) -> int:
        """The connections open: the first and the others."""
        return (self._first is not None) + len(self._more)

    @staticmethod
    def asks(ctx: ServerRequestContext[Any]) -> bool:
        """Whether the stdio client of `ctx` can be asked anything (it declared a question capability)."""
        return bool(declared_questions(ctx.session.client_capabilities).model_dump(exclude_none=True))

    @contextlib.asynccontextmanager
    async def connection(self, ctx: ServerRequestContext[Any]) -> AsyncIterator[Client]:
        """The connection for a request of `ctx`'s stdio client, in its era, declaring what it declared.

        In its era where the server speaks it, so that what the stdio client sees is what it would see
        over HTTP (a 2025-11-25 tool asks with requests of its own and runs once, where a 2026-07-28
        one runs again for each round of answers). It stays open while the block runs.
        """
        modern = is_modern(ctx.protocol_version)
        declared = declared_upstream(ctx.session.client_capabilities)
        wire = declared.model_dump(by_alias=True, mode="json", exclude_none=True)
        if not wire and (modern == self.modern or self._pinned):
            yield self.first
            return
        key = (modern, json.dumps(wire, sort_keys=True))
        async with self._opening:
            entry = self._more.get(key)
            if entry is None:
                assert self._group is not None
                client, scope = await self._group.start(self._hold, modern, declared)
                entry = self._more[key] = _Connection(client, scope)
            self._more.move_to_end(key)
            entry.users += 1  # before any other task can run: an idle connection may be closed
        try:
            yield entry.client
        finally:
            self._release(entry)

    @contextlib.contextmanager
    def using(self, client: Client) -> Iterator[None]:
        """Keep `client`'s connection open while the block runs (a held call outlives its first request)."""
        entry = next((entry for entry in self._more.values() if entry.client is client), None)
        if entry is None:  # the first connection: open as long as the bridge
            yield
            return
        entry.users += 1
        try:
            yield
        finally:
            self._release(entry)

    def _release(self, entry: _Connection) -> None:
        entry.users -= 1
        idle = [key for key, other in self._more.items() if other.users == 0]
        for key in idle[: max(0, len(idle) - IDLE_CONNECTIONS)]:
            self._more.pop(key).scope.cancel()

    def _modes(self, modern: bool) -> list[str]:
        """The eras to try, best first, for a stdio client of the given era."""
        first = self.first.protocol_version
        if self._pinned:
            return [first if self.modern else "legacy"]
        if modern:
            return [first if self.modern else "legacy"]
        return ["legacy", first] if self.modern else ["legacy"]

    async def _hold(
        self,
        modern: bool,
        declared: types.ClientCapabilities,
        *,
        task_status: anyio.abc.TaskStatus[tuple[Client, anyio.CancelScope]],
    ) -> None:
        _forwarded.set(None)  # started from a forwarded request, but serves every later one
        callbacks: dict[str, Any] = {
            "logging_callback": self._log,
            "extensions": [TaskStatusWatch(self._task_status)],
        }
        if declared.elicitation is not None:
            callbacks["elicitation_callback"] = self._elicit
        if declared.sampling is not None:
            callbacks["sampling_callback"] = self._sample
        if declared.roots is not None:
            callbacks["list_roots_callback"] = self._list_roots
        with anyio.CancelScope() as scope:
            async with contextlib.AsyncExitStack() as stack:
                modes = self._modes(modern)
                for mode in modes:
                    # The tasks extension travels to a server of the stdio client's era only: each
                    # era's tasks are relayed in that era.
                    ours = declared if is_modern(mode) == modern else without_tasks(declared)
                    try:
                        client = await stack.enter_async_context(
                            open_upstream(self.url, self.token, mode=mode, declared=ours, **callbacks)
                        )
                        break
                    except MCPError:
                        if mode == modes[-1]:
                            raise
                        logger.debug(
                            "%s does not speak %s; trying %s", self.url, mode, modes[-1], exc_info=True
                        )
                if self.log_level is not None and not is_modern(client.protocol_version):
                    await set_level(client, self.log_level)
                task_status.started((client, scope))
                await anyio.sleep_forever()

    # -- what a 2025-11-25 upstream pushes while it handles a request -------------------------------
    async def _elicit(self, context: ClientRequestContext, params: types.ElicitRequestParams) -> Any:
        return await self._ask(types.ElicitRequest(params=params))

    async def _sample(self, context: ClientRequestContext, params: types.CreateMessageRequestParams) -> Any:
        return await self._ask(types.CreateMessageRequest(params=params))

    async def _list_roots(self, context: ClientRequestContext) -> Any:
        return await self._ask(types.ListRootsRequest())

    async def _ask(self, request: Any) -> Any:
        target = _forwarded.get()
        if target is None:  # not on behalf of a stdio request: nobody to ask
            return types.ErrorData(code=types.INVALID_REQUEST, message=f"{request.method} outside a request")
        if isinstance(target, HeldCall):  # a 2026-07-28 stdio client answers in rounds
            return await target.ask(request)
        return await ask_downstream(target, request)

    async def _task_status(self, params: types.TaskStatusNotificationParams) -> None:
        if self.on_task_status is not None:
            await self.on_task_status(params)

    async def _log(self, params: types.LoggingMessageNotificationParams) -> None:
        """A log line from the server: to the stdio request it belongs to, at the levels that client wants."""
        notification = types.LoggingMessageNotification(params=params)
        target = _forwarded.get()
        ctx = target.ctx if isinstance(target, HeldCall) else target
        if ctx is None:
            if self.stdio_session is not None:
                with contextlib.suppress(Exception):  # that client went away
                    await self.stdio_session.send_notification(notification)
            return
        if params.level in allowed_log_levels(ctx.protocol_version, ctx.meta):
            await ctx.session.send_notification(notification, related_request_id=ctx.request_id)

    async def set_level(self, upstream: Client, level: types.LoggingLevel) -> None:
        """``logging/setLevel`` of a 2025-11-25 stdio client: kept for a 2026-07-28 upstream (which takes
        it on each request), forwarded to a 2025-11-25 one (the connection of that client's requests)."""
        self.log_level = level
        if not is_modern(upstream.protocol_version):
            await set_level(upstream, level)


def set_level(client: Client, level: types.LoggingLevel) -> Awaitable[Any]:
    # logging/setLevel is the 2025-11-25 way: the SDK deprecates it only because 2026 replaced it.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        return client.session.set_logging_level(level)
