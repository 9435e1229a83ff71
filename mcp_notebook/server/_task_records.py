"""Task records in the store, as every process sees them, for tasks this process does not run.

A task another process runs (a replica sharing the store) is read from its record (a record whose
process is gone reads as failed, saying the kernel restarted), and is cancelled or answered
through it: what is left in the record's inbox (`TaskBook.leave`) its process takes in at its next
heartbeat. `sweep` marks failed, at start, the tasks an earlier process left running.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import anyio.to_thread
import mcp_types as types

from ..core._tasks import CANCELLED, FAILED, TaskBook, TaskRecord, stale
from ..core._text import t


class TaskRecords:
    """Reads, cancels and answers tasks through their records in `book` (off the loop)."""

    def __init__(self, book: TaskBook) -> None:
        self.book = book

    async def read(self, owner: str, task_id: Any) -> TaskRecord | None:
        """`owner`'s task `task_id` as its record says, or None (unknown, expired, another identity's)."""
        record = await anyio.to_thread.run_sync(self.book.load, owner, task_id)
        if record is not None and stale(record, self.book.now()):
            failed(record, self.book.now())
            await anyio.to_thread.run_sync(self.book.ended, record)
        return record

    async def cancel(self, record: TaskRecord, by: str) -> None:
        """Cancel a task another process runs: left for it (its heartbeat takes it within a second and
        stops the work), and said in the record for every reader now."""
        message = t("task.cancelled_by", who=by)
        cancel = {"message": message, "by": by}
        await anyio.to_thread.run_sync(partial(self.book.leave, record.owner, record.task_id, cancel=cancel))
        record.end(self.book.now(), CANCELLED, message=message)
        record.cancelled_by = by
        await anyio.to_thread.run_sync(self.book.ended, record)

    async def answer(self, record: TaskRecord, responses: Mapping[str, Any]) -> None:
        """Answers to a task another process runs, left for it; its record says they arrived."""
        fresh = {key: value for key, value in responses.items() if key in record.pending}
        if not fresh or record.terminal:
            return
        owner, task_id = record.owner, record.task_id
        await anyio.to_thread.run_sync(partial(self.book.leave, owner, task_id, responses=fresh))
        for key in fresh:
            record.pending.pop(key, None)
        await anyio.to_thread.run_sync(self.book.save, record)

    def sweep(self) -> int:
        """Mark failed the tasks an earlier process left running (a kernel restart); how many."""
        count = 0
        now = self.book.now()
        for task_id, owner in self.book.running().items():
            record = self.book.load(owner, task_id)
            if record is None or record.terminal:
                if record is not None:
                    self.book.ended(record)
                continue
            if stale(record, now):
                failed(record, now)
                self.book.ended(record)
                count += 1
        return count


def failed(record: TaskRecord, now: float) -> None:
    """End a record whose process is gone: failed, saying the kernel restarted."""
    record.end(now, FAILED, message=t("task.restarted"))
    record.error = {"code": types.INTERNAL_ERROR, "message": t("task.restarted")}
