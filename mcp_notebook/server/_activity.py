"""The activity log: the bounded logs of what the server saw, one sink of the call pipeline (`_pipeline`).

Every finished request is kept in `activity`; calls of tools also in `calls`.

The log is bounded by count (``history``) and by bytes (``max_bytes``): any token holder can send
4 MiB arguments, and 150 of them kept whole would take 600 MB of the kernel. Each record's size is
estimated as it is kept (`estimated_size`, cheap: a string counts its length, nothing is encoded);
a record over its share is kept with its large values shortened (`_sizes.clipped`), and the oldest
records go first when the total is over.
"""

from __future__ import annotations

import itertools
import threading
from collections import deque

from ..core._sizes import clipped, estimated_size
from ._pipeline import CallRecord

DEFAULT_MAX_BYTES = 32 * 1024 * 1024


class ActivityLog:
    """The bounded logs of one server: a sink of its call pipeline (`keep`).

    Parameters
    ----------
    history:
        How many records each log (`calls`, `activity`) keeps at most.
    max_bytes:
        How many bytes (estimated) the records of both logs may hold together; one record gets at
        most a sixteenth of it, its large values clipped beyond that.
    """

    def __init__(self, history: int, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if max_bytes < 1:
            raise ValueError(f"max_bytes must be at least 1, got {max_bytes!r}")
        self.history = history
        self.max_bytes = max_bytes
        self.record_limit = max(4096, max_bytes // 16)
        self.calls: deque[CallRecord] = deque()  # tools/call only
        self.activity: deque[CallRecord] = deque()  # every request
        self.retained_bytes = 0  # the estimated size of every record either log holds, each counted once
        self._lock = threading.Lock()
        self._order = itertools.count()
        self._held: dict[int, tuple[int, int]] = {}  # id(record) -> (its order, how many logs hold it)

    def keep(self, record: CallRecord) -> None:
        """Keep a finished request; a call of a tool the caller may see also goes to `calls`.

        A call of a tool the caller may not see (unknown or hidden) is a request, not a call of a tool:
        the audit log keeps the probe, `calls` does not.
        """
        call = record.method == "tools/call" and not record.unknown
        size = _record_size(record, self.record_limit)
        if size > self.record_limit:
            _clip(record, self.record_limit)
            size = _record_size(record, self.record_limit)
        record.size = size
        record.pack()  # held for as long as the log runs: compact
        with self._lock:
            self._held[id(record)] = (next(self._order), 2 if call else 1)
            self.retained_bytes += size
            self.activity.append(record)
            if call:
                self.calls.append(record)
            while len(self.activity) > self.history:
                self._release(self.activity.popleft())
            while len(self.calls) > self.history:
                self._release(self.calls.popleft())
            while self.retained_bytes > self.max_bytes and (self.activity or self.calls):
                self._drop_oldest()

    def _drop_oldest(self) -> None:
        first = self.activity[0] if self.activity else None
        second = self.calls[0] if self.calls else None
        if first is not None and (second is None or self._held[id(first)][0] <= self._held[id(second)][0]):
            self._release(self.activity.popleft())
            if second is first:
                self._release(self.calls.popleft())
        else:
            assert second is not None
            self._release(self.calls.popleft())

    def _release(self, record: CallRecord) -> None:
        order, holders = self._held[id(record)]
        if holders > 1:
            self._held[id(record)] = (order, holders - 1)
        else:
            del self._held[id(record)]
            self.retained_bytes -= record.size


_RECORD_VALUES = ("arguments", "result", "error", "rounds", "stdout")


def _record_size(record: CallRecord, limit: int) -> int:
    """The bytes `record` holds, roughly (its own fields count 256); past `limit`, just ``limit + 1``."""
    size = 256
    for name in _RECORD_VALUES:
        size += estimated_size(getattr(record, name), limit - size + 1)
        if size > limit:
            return limit + 1
    return size


def _clip(record: CallRecord, limit: int) -> None:
    """Keep shortened copies of the large values of `record`: the call had them in full; the log shows enough.

    A value still over a quarter of `limit` after shortening is replaced by one line saying so.
    """
    for name in _RECORD_VALUES:
        value = getattr(record, name)
        if value is None:
            continue
        shortened = clipped(value, "activity log")
        if estimated_size(shortened, limit // 4) > limit // 4:
            note = f"[{name}: too large to keep in the activity log]"
            shortened = note if isinstance(value, str) else {"...": note}
        setattr(record, name, shortened)
