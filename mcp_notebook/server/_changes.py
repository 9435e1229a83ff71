"""Catalogue changes through the store's change feed, so that every process's clients hear them.

An exported app runs as several processes (workers, replicas), each with its own catalogue and its
own clients. A change one of them makes (a tool that calls ``publish()``) is published on the
store's change feed (`core._changes`) under the server's name; every process, the one that made it
included, follows the feed and tells its own clients. A process delivers only what it reads from
the feed, never what it publishes, so each client hears each change once.

The events are the catalogue's change kinds (``"tools"``, ``"resources"``, ``"prompts"``,
``"resource:<uri>"``) as JSON objects: ``{"kind": "tools"}``, ``{"kind": "resource", "uri": U}``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from anyio.abc import TaskStatus

from ..core._changes import ChangeFeed
from ..core._store import StoreError

logger = logging.getLogger(__name__)

_LISTS = ("tools", "resources", "prompts")
READ_WAIT = 0.25  # seconds one read of the feed waits (a closed app stops within it)


def event_of(kind: str) -> dict[str, Any]:
    """A catalogue change kind as a feed event."""
    if kind.startswith("resource:"):
        return {"kind": "resource", "uri": kind.removeprefix("resource:")}
    return {"kind": kind}


def kind_of(event: Any) -> str | None:
    """The catalogue change kind of a feed event; None for anything else."""
    if not isinstance(event, dict):
        return None
    kind = event.get("kind")
    if kind in _LISTS:
        return str(kind)
    uri = event.get("uri")
    if kind == "resource" and isinstance(uri, str) and uri:
        return f"resource:{uri}"
    return None


class ChangeRelay:
    """Publishes this process's catalogue changes on a feed, and delivers what the feed carries.

    Parameters
    ----------
    feed:
        The store's feed of the server's channel (`Store.changes`).
    deliver:
        Tells this process's clients of one change kind (`ToolServer.deliver`).
    """

    def __init__(self, feed: ChangeFeed, deliver: Callable[[str], Awaitable[None]]) -> None:
        self.feed = feed
        self.deliver = deliver

    def publish(self, kind: str) -> None:
        """A catalogue listener: put the change on the feed (from whichever thread made it).

        A store that fails here must not fail the tool that changed something: it is logged.
        """
        try:
            self.feed.publish(event_of(kind))
        except StoreError:
            logger.exception("could not publish the change %r to the other processes", kind)

    async def follow(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Deliver every change read from the feed, until cancelled (run it in the app's task group)."""
        task_status.started()
        while True:
            # The read waits on a thread; cancelled, the thread returns within READ_WAIT on its own.
            events = await anyio.to_thread.run_sync(self.feed.read, READ_WAIT, abandon_on_cancel=True)
            # A burst (a tool that publishes twice, a cell that defines ten tools) costs clients one
            # notification of each kind.
            for kind in dict.fromkeys(filter(None, map(kind_of, events))):
                try:
                    await self.deliver(kind)
                except Exception:  # one change that could not be told must not stop the next ones
                    logger.exception("could not tell clients of the change %r", kind)

    def close(self) -> None:
        self.feed.close()
