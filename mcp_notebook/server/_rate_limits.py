"""Per-tool rate limits, one bucket per identity: the guardrail of the pipeline's rate-limit step.

Spec 2025-11-25 server/tools "Security Considerations": servers MUST rate-limit invocations. Each
identity has a bucket of its own per tool, so a client that floods a tool is limited and the
others (the notebook among them) are not. A kernel's server keeps its buckets in its process; an
exported app keeps them in the store (`Store.take`), shared by every process and replica.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..core._guards import RateLimited, TokenBucket
from ..core._store import RATE_LIMITS, Scope, Store
from ..core._tool_entry import ToolEntry


class RateLimits:
    """The rate-limit buckets of one server.

    Parameters
    ----------
    store:
        Opens the server's store (on first use): where shared buckets live.
    server_name:
        Scopes shared buckets to this server.
    shared:
        Keep the buckets in the store instead of in this process.
    """

    def __init__(self, store: Callable[[], Store], server_name: str, *, shared: bool = False) -> None:
        self._store = store
        self.server_name = server_name
        self.shared = shared
        self._buckets: dict[tuple[str, str], TokenBucket] = {}  # (tool, identity): bounded by identities
        self._lock = threading.Lock()

    def check(self, entry: ToolEntry, client: str) -> None:
        """Raise `RateLimited` (a tool error saying when to retry) when `client` is over the tool's limit.

        With `shared` buckets this reads the store, which may be across the network: call it off the loop.
        """
        if entry.rate_limit is None:
            return
        calls, seconds = entry.rate_limit
        rate, burst = calls / seconds, int(calls)
        if self.shared:
            scope = Scope(self.server_name, client, entry.name)
            wait = self._store().take(RATE_LIMITS, scope, f"{calls}/{seconds}", rate=rate, burst=burst)
            if wait is not None:
                raise RateLimited(entry.name, wait, TokenBucket(rate=rate, burst=burst))
            return
        slot = (entry.name, client)
        with self._lock:
            bucket = self._buckets.get(slot)
            # A cell that redefines the tool with another limit gets a fresh bucket with that limit.
            if bucket is None or (bucket.burst, bucket.rate) != (burst, rate):
                bucket = self._buckets[slot] = TokenBucket(rate=rate, burst=burst)
        wait = bucket.try_acquire()
        if wait is not None:
            raise RateLimited(entry.name, wait, bucket)
