"""Change notifications across the stdio bridge, from either protocol era to either era.

Upstream (the notebook's HTTP server): with 2026-07-28, one ``subscriptions/listen`` stream for
the list changes plus one per watched resource URI; with 2025-11-25, the session's notifications
and ``resources/subscribe``. Either way every notification reaches the upstream client's message
handler, `ChangeRelay.on_upstream_message`, which is the only delivery path (the listen streams
are only kept open and drained).

Downstream (the stdio client): 2025-11-25 sessions get ``notifications/*/list_changed`` and, for
the URIs they subscribed, ``notifications/resources/updated``; 2026-07-28 clients get the same on
their own ``subscriptions/listen`` streams (the SDK's `ListenHandler` over a local bus).
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.abc
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.subscriptions import SubscriptionLost
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.shared.subscriptions import event_from_wire
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

logger = logging.getLogger(__name__)

_LEGACY_SEND: dict[type[Any], Callable[[ServerSession], Awaitable[None]]] = {
    ToolsListChanged: ServerSession.send_tool_list_changed,
    PromptsListChanged: ServerSession.send_prompt_list_changed,
    ResourcesListChanged: ServerSession.send_resource_list_changed,
}
_EVERYTHING = (ToolsListChanged(), PromptsListChanged(), ResourcesListChanged())


class ChangeRelay:
    """Carries one upstream client's change notifications to the stdio side."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._client: Client | None = None
        self._group: anyio.abc.TaskGroup | None = None
        self._bus = InMemorySubscriptionBus()
        self._listen = ListenHandler(self._bus)
        # The stdio connection of a 2025-11-25 client (set by the bridge once its initialize is
        # answered), and the URIs it subscribed to. A bridge serves one stdio connection, which is
        # the stable thing to track: the SDK makes a new session object for every request.
        self.stdio_session: ServerSession | None = None
        self._subscribed: set[str] = set()
        self._watched: Counter[str] = Counter()
        self._watchers: dict[str, anyio.CancelScope] = {}

    def attach(self, client: Client, group: anyio.abc.TaskGroup) -> None:
        self._client, self._group = client, group

    @property
    def client(self) -> Client:
        assert self._client is not None, "attach() the upstream client first"
        return self._client

    @property
    def modern(self) -> bool:
        return self.client.protocol_version in MODERN_PROTOCOL_VERSIONS

    # -- downstream ---------------------------------------------------------------------------------
    async def subscribe(self, ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        if uri not in self._subscribed:  # subscribing twice is one subscription, as on the server
            await self._watch(uri)
            self._subscribed.add(uri)
        return types.EmptyResult()

    async def unsubscribe(self, ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        if uri in self._subscribed:
            self._subscribed.discard(uri)
            await self._unwatch(uri)
        return types.EmptyResult()

    async def listen(self, ctx: Any, params: types.SubscriptionsListenRequestParams) -> Any:
        """``subscriptions/listen`` of a 2026-07-28 stdio client: watch its URIs upstream while it listens."""
        uris = list(params.notifications.resource_subscriptions or [])
        for uri in uris:
            await self._watch(uri)
        try:
            return await self._listen(ctx, params)
        finally:
            with anyio.CancelScope(shield=True):
                for uri in uris:
                    await self._unwatch(uri)

    async def deliver(self, event: ServerEvent) -> None:
        """Pass one upstream change to every downstream listener of either era."""
        await self._bus.publish(event)
        session = self.stdio_session
        if session is None:
            return
        try:
            if isinstance(event, ResourceUpdated):
                if event.uri in self._subscribed:
                    await session.send_resource_updated(event.uri)
            else:
                await _LEGACY_SEND[type(event)](session)
        except Exception:  # the stdio client went away
            self.stdio_session = None

    # -- upstream -------------------------------------------------------------------------------------
    async def on_upstream_message(self, message: Any) -> None:
        """The upstream client's message handler: every notification of either era lands here."""
        if isinstance(message, Exception):
            logger.warning("upstream connection: %s", message)
            return
        wire = message.model_dump(by_alias=True, mode="json", exclude_none=True)
        event = event_from_wire(wire.get("method", ""), wire.get("params"))
        if event is not None and self._client is not None:
            await self.deliver(event)

    async def _watch(self, uri: str) -> None:
        self._watched[uri] += 1
        if self._watched[uri] > 1:
            return
        if self.modern:
            assert self._group is not None
            await self._group.start(self._watch_resource, uri)
        else:
            await _quietly(self.client.session.subscribe_resource, uri)

    async def _unwatch(self, uri: str) -> None:
        self._watched[uri] -= 1
        if self._watched[uri] > 0:
            return
        del self._watched[uri]
        scope = self._watchers.pop(uri, None)
        if scope is not None:
            scope.cancel()
        elif not self.modern:
            with contextlib.suppress(Exception):
                await _quietly(self.client.session.unsubscribe_resource, uri)

    async def _watch_resource(self, uri: str, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        with anyio.CancelScope() as scope:
            self._watchers[uri] = scope
            async with self.client.listen(resource_subscriptions=[uri]) as subscription:
                task_status.started()
                async for _ in subscription:  # delivered through the message handler
                    pass

    async def watch_lists(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        """Keep one upstream listen stream open for list changes (2026-07-28 upstream only).

        Stateless HTTP means a notebook server restarted at the same URL and token is the same
        server to us: re-listen with backoff, and tell listeners that anything may have changed.
        """
        started, delay = False, 1.0
        while True:
            try:
                async with self.client.listen(
                    tools_list_changed=True, prompts_list_changed=True, resources_list_changed=True
                ) as subscription:
                    if started:
                        for event in _EVERYTHING:
                            await self.deliver(event)
                    else:
                        started = True
                        task_status.started()
                    delay = 1.0
                    async for _ in subscription:  # delivered through the message handler
                        pass
            except (MCPError, SubscriptionLost, httpx2.HTTPError, OSError) as exc:
                if not started:
                    raise
                logger.warning("the listen stream to %s ended (%s); listening again", self.url, exc)
            await anyio.sleep(delay)
            delay = min(delay * 2, 30.0)


def _quietly(method: Callable[[str], Awaitable[Any]], uri: str) -> Awaitable[Any]:
    # resources/subscribe is the 2025-11-25 way: the SDK deprecates it only because 2026 replaced it.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        return method(uri)
