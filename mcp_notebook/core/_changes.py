"""`ChangeFeed`: the changes one process makes, heard by every process that shares its store.

An exported app's workers and replicas each hold their own copy of the notebook's catalogue and
their own clients' subscriptions; a tool that calls ``publish()`` changes it in the one process that
ran the tool. A change feed carries that change (a small JSON event: a list changed, a resource was
updated) to every process following the same channel, the process that made it included, each
event once. Every `Store` opens one (`Store.changes`), the way it best can:

- `MemoryFeed` (a `MemoryStore`, a ``":memory:"`` SQLite store): within the process, at once.
- `SQLiteStore`: a change log, an append-only table with an autoincrement id that each follower
  reads past the last id it saw, every 100 ms; rows older than a minute are deleted.
- `RedisStore`: Redis pub/sub on one channel per server name.

The feed itself starts nothing: `read` waits (up to its argument) for what was published since
the last read, and the server follows it on a thread of its own loop (`server._changes`).
"""

from __future__ import annotations

import abc
import collections
import threading
from collections.abc import Mapping
from typing import Any

FOLLOW_INTERVAL = 0.1
"""Seconds between two looks at a change log that must be polled (SQLite)."""
KEEP_CHANGES = 60.0
"""Seconds a change stays in a polled log: far longer than any follower takes to read it."""


class ChangeFeed(abc.ABC):
    """One channel of changes, published by any process and read by each follower once.

    A feed reads only what was published after it was opened. Thread-safe: any thread may
    publish; one thread reads.
    """

    @abc.abstractmethod
    def publish(self, event: Mapping[str, Any]) -> None:
        """Send `event` (a JSON object) to every follower of the channel, this one included."""

    @abc.abstractmethod
    def read(self, wait: float) -> list[dict[str, Any]]:
        """What was published since the last read, oldest first; waits up to `wait` seconds for one.

        Empty once the feed is closed.
        """

    @abc.abstractmethod
    def close(self) -> None:
        """Stop following (a `read` in progress returns); safe to call twice."""


class _Channel:
    """The events of one in-process channel, numbered, the last `size` of them kept."""

    def __init__(self, size: int = 1024) -> None:
        self.events: collections.deque[tuple[int, dict[str, Any]]] = collections.deque(maxlen=size)
        self.last = 0
        self.changed = threading.Condition()


class MemoryChannels:
    """The in-process channels of one store: every `MemoryFeed` opened on one name shares one."""

    def __init__(self) -> None:
        self._channels: dict[str, _Channel] = {}
        self._lock = threading.Lock()

    def open(self, name: str) -> MemoryFeed:
        with self._lock:
            channel = self._channels.setdefault(name, _Channel())
        return MemoryFeed(channel)


class MemoryFeed(ChangeFeed):
    """A channel of this process (the feed of a store no other process can open)."""

    def __init__(self, channel: _Channel) -> None:
        self._channel = channel
        with channel.changed:
            self._seen = channel.last
        self._closed = False

    def publish(self, event: Mapping[str, Any]) -> None:
        channel = self._channel
        with channel.changed:
            channel.last += 1
            channel.events.append((channel.last, dict(event)))
            channel.changed.notify_all()

    def read(self, wait: float) -> list[dict[str, Any]]:
        channel = self._channel
        with channel.changed:
            channel.changed.wait_for(lambda: self._closed or channel.last > self._seen, timeout=wait)
            if self._closed:
                return []
            new = [event for number, event in channel.events if number > self._seen]
            self._seen = channel.last
        return new

    def close(self) -> None:
        with self._channel.changed:
            self._closed = True
            self._channel.changed.notify_all()
