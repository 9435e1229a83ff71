"""`MemoryStore`: the `Store` of one process, in memory.

It keeps values as they are, without copying them or turning them into JSON: a handle can stand
for a live object (a list the tool appends to, a browser, a database connection), which no store
outside the process could hold. That is why `HandleStore` uses one by default. Everything is gone
when the process ends or the store is closed; for state that must survive a kernel restart or be
shared between processes, use `SQLiteStore` (the server's default).

It also keeps the contract honest: the contract's test suite runs against it and against
`SQLiteStore`, so what the server relies on is the interface, not one implementation's quirks.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._store import Claim, ClaimStatus, Slot, Store, refill

_Bucket = OrderedDict[tuple[str, str, str], "_Entry"]  # (identity, tool, key) -> entry, oldest first


@dataclass
class _Entry:
    definition: str
    value: Any
    created: float
    expires: float
    holder: str | None = None  # a claim in progress
    digest: str | None = None  # run-once: the request's digest, and the request itself
    request: Any = None


class MemoryStore(Store):
    """A `Store` in this process's memory: values kept as they are (live objects allowed).

    Parameters
    ----------
    clock:
        Seconds from a monotonic clock by default (nothing here outlives the process).
    """

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(clock=clock)
        self._lock = threading.Lock()
        self._buckets: dict[tuple[str, str], _Bucket] = {}  # (namespace, server) -> entries

    def __repr__(self) -> str:
        return "MemoryStore()"

    def _find(self, slot: Slot, now: float) -> _Entry | None:
        bucket = self._buckets.get((slot.namespace, slot.server))
        if bucket is None:
            return None
        entry = bucket.get((slot.identity, slot.tool, slot.key))
        if entry is not None and now >= entry.expires:
            del bucket[(slot.identity, slot.tool, slot.key)]
            return None
        return entry

    def _set(self, slot: Slot, entry: _Entry) -> None:
        bucket = self._buckets.setdefault((slot.namespace, slot.server), OrderedDict())
        address = (slot.identity, slot.tool, slot.key)
        bucket.pop(address, None)  # a replaced entry is a new one: it goes to the end (newest)
        bucket[address] = entry
        if self._purge_due(entry.created):
            self._purge_locked(entry.created)

    def _get(self, slot: Slot, definition: str, default: Any) -> Any:
        with self._lock:
            entry = self._find(slot, self.now())
            if entry is None or entry.holder is not None or entry.definition != definition:
                return default
            return entry.value

    def _put(self, slot: Slot, definition: str, value: Any, ttl: float) -> None:
        with self._lock:
            now = self.now()
            self._set(slot, _Entry(definition, value, now, now + ttl))

    def _delete(self, slot: Slot) -> bool:
        with self._lock:
            entry = self._find(slot, self.now())
            if entry is None or entry.holder is not None:
                return False
            del self._buckets[(slot.namespace, slot.server)][(slot.identity, slot.tool, slot.key)]
            return True

    def _claim(self, slot: Slot, definition: str, digest: str, request: Any, lease: float) -> Claim:
        with self._lock:
            now = self.now()
            entry = self._find(slot, now)  # an abandoned claim has outlived its lease: expired
            if entry is not None:
                return self._classify(
                    slot,
                    definition,
                    digest,
                    stored_definition=entry.definition,
                    stored_digest=entry.digest,
                    stored_request=entry.request,
                    running=entry.holder is not None,
                    value=entry.value,
                )
            holder = secrets.token_hex(8)
            self._set(slot, _Entry(definition, None, now, now + lease, holder, digest, request))
            return Claim(slot, ClaimStatus.CLAIMED, definition, holder, request=request, digest=digest)

    def _complete(self, claim: Claim, value: Any, ttl: float) -> None:
        with self._lock:
            now = self.now()
            entry = self._find(claim.slot, now)
            if entry is not None and entry.holder is None:
                return  # taken over after the lease, and done: the first value stays
            stamp = _Entry(claim.definition, value, now, now + ttl, None, claim.digest, claim.request)
            self._set(claim.slot, stamp)

    def _release(self, claim: Claim) -> None:
        with self._lock:
            entry = self._find(claim.slot, self.now())
            if entry is not None and entry.holder == claim.holder:
                slot = claim.slot
                del self._buckets[(slot.namespace, slot.server)][(slot.identity, slot.tool, slot.key)]

    def _take(self, slot: Slot, rate: float, burst: int) -> float | None:
        with self._lock:
            now = self.now()
            entry = self._find(slot, now)
            tokens, last = entry.value if entry is not None else (None, now)
            tokens, last, wait = refill(tokens, last, now, rate, burst)
            # Not a value (`count` and `trim` skip it): a bucket is state of the limit, not a result.
            self._set(slot, _Entry("", (tokens, last), now, now + burst / rate, holder="bucket"))
            return wait

    def _count(self, namespace: str, server: str | None) -> int:
        with self._lock:
            now = self.now()
            return sum(
                1
                for (space, owner), bucket in self._buckets.items()
                if space == namespace and (server is None or owner == server)
                for entry in bucket.values()
                if entry.holder is None and now < entry.expires
            )

    def _trim(self, namespace: str, server: str, limit: int) -> int:
        with self._lock:
            bucket = self._buckets.get((namespace, server))
            if bucket is None or len(bucket) <= limit:
                return 0  # the common case, in O(1)
            now = self.now()
            expired = [address for address, entry in bucket.items() if now >= entry.expires]
            for address in expired:
                del bucket[address]
            removed = len(expired)
            done = [address for address, entry in bucket.items() if entry.holder is None]
            for address in done[: max(0, len(done) - limit)]:  # oldest first; runs in progress stay
                del bucket[address]
                removed += 1
            return removed

    def _purge(self, now: float) -> int:
        with self._lock:
            return self._purge_locked(now)

    def _purge_locked(self, now: float) -> int:
        removed = 0
        for bucket in self._buckets.values():
            expired = [address for address, entry in bucket.items() if now >= entry.expires]
            for address in expired:
                del bucket[address]
            removed += len(expired)
        return removed

    def _close(self) -> None:
        with self._lock:
            self._buckets.clear()
