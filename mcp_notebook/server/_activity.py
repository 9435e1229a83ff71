"""What the server saw: a `CallRecord` per request, for the notebook's activity view and the audit log.

Every request is recorded (`activity`); tool calls also go to `calls` and the audit log. Handlers other
than tools/call are wrapped by `ActivityLog.observed`; tools/call records itself, in full (decision,
stdout, outcome), so the hot path pays for one record only.

The log is bounded by count (``history``) and by bytes (``max_bytes``): any token holder can send
4 MiB arguments, and 150 of them kept whole would take 600 MB of the kernel. Each record's size is
estimated as it is kept (`estimated_size`, cheap: a string counts its length, nothing is encoded);
a record over its share is kept with its large values shortened (`_sizes.clipped`), and the oldest
records go first when the total is over.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from ..core._identity import claims, identity_of
from ..core._sizes import clipped, estimated_size

logger = logging.getLogger(__name__)


@dataclass
class CallRecord:
    """One tools/call as the server saw it (kept for the notebook's activity view)."""

    tool: str
    arguments: dict[str, Any]
    client: str | None  # the identity its credential proved: "notebook", "owner" or a client's name
    protocol_version: str
    started: float
    duration: float = 0.0
    is_error: bool = False
    outcome: str = ""
    stdout: str = ""
    decision: str = "not-needed"
    result: dict[str, Any] = field(default_factory=dict)
    request_id: Any = None
    method: str = "tools/call"
    error: dict[str, Any] | None = None
    rounds: dict[str, Any] = field(default_factory=dict)  # 2026-07-28: inputResponses, requestState
    claimed: str | None = None  # the name the client gave itself (clientInfo.name): a claim, never a key
    size: int = field(default=0, repr=False, compare=False)  # estimated bytes, set when the log keeps it

    @property
    def who(self) -> str:
        """The identity, and what the client claims to be when that differs (for people to read)."""
        claim = claims(self.client, self.claimed)
        return f"{self.client or '?'} ({claim})" if claim else self.client or "?"

    def wire(self) -> dict[str, Any]:
        """The JSON-RPC request and response of this call, as the server read and answered them."""
        params = (
            {"name": self.tool, "arguments": self.arguments, **self.rounds}
            if self.method == "tools/call"
            else self.arguments
        )
        answer = {"error": self.error} if self.error is not None else {"result": self.result}
        return {
            "request": {"jsonrpc": "2.0", "id": self.request_id, "method": self.method, "params": params},
            "response": {"jsonrpc": "2.0", "id": self.request_id, **answer},
        }

    def to_json(self) -> dict[str, Any]:
        """One line of the activity export."""
        return {
            "time": self.started,
            "method": self.method,
            "client": self.client,
            "claimed": self.claimed,
            "protocol_version": self.protocol_version,
            "tool": self.tool,
            "arguments": self.arguments,
            "decision": self.decision,
            "outcome": self.outcome,
            "is_error": self.is_error,
            "duration_ms": round(self.duration * 1000, 3),
            "stdout": self.stdout,
            **self.wire(),
        }


DEFAULT_MAX_BYTES = 32 * 1024 * 1024


class ActivityLog:
    """The bounded logs of one server, and who is told of each new record.

    Parameters
    ----------
    history:
        How many records each log (`calls`, `activity`) keeps at most.
    max_bytes:
        How many bytes (estimated) the records of both logs may hold together; one record gets at
        most a sixteenth of it, its large values clipped beyond that.
    """

    def __init__(self, history: int, guards: Any, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if max_bytes < 1:
            raise ValueError(f"max_bytes must be at least 1, got {max_bytes!r}")
        self.history = history
        self.max_bytes = max_bytes
        self.record_limit = max(4096, max_bytes // 16)
        self.calls: deque[CallRecord] = deque()  # tools/call only
        self.activity: deque[CallRecord] = deque()  # every request
        self.retained_bytes = 0  # the estimated size of every record either log holds, each counted once
        self.listeners: list[Callable[[CallRecord], None]] = []
        self.guards = guards  # writes the audit log
        self._lock = threading.Lock()
        self._order = itertools.count()
        self._held: dict[int, tuple[int, int]] = {}  # id(record) -> (its order, how many logs hold it)

    def record(self, record: CallRecord) -> None:
        """Keep a finished request (tool calls also go to `calls` and the audit log), and show it."""
        call = record.method == "tools/call"
        if call:  # the audit log is about tool calls, and gets the arguments before any clipping
            self.guards.record(record)  # reports its own failures, never raises
        self._keep(record, call)
        self.show(record)

    def refused(self, record: CallRecord) -> None:
        """A call of a tool the caller may not see (unknown or hidden): in the activity and audit logs.

        Not among `calls`, which are the calls of tools; the audit log keeps the probe (who, which
        name) so that a client feeling for hidden tools leaves a trace.
        """
        self.guards.record(record)  # before any clipping; reports its own failures, never raises
        self._keep(record, False)
        self.show(record)

    def note(self, record: CallRecord) -> None:
        """Keep a request that never became a call (an unknown tool) in `activity` only, and show it."""
        self._keep(record, False)
        self.show(record)

    def _keep(self, record: CallRecord, call: bool) -> None:
        size = _record_size(record, self.record_limit)
        if size > self.record_limit:
            _clip(record, self.record_limit)
            size = _record_size(record, self.record_limit)
        record.size = size
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

    def show(self, record: CallRecord) -> None:
        """Tell the listeners (the notebook's views) about `record`."""
        for listener in list(self.listeners):
            try:
                listener(record)
            except Exception:  # a display callback must never fail a call
                logger.exception("call listener failed")

    def observed(self, method: str, handler: Any) -> Any:
        """`handler`, recording each request in the activity log.

        A wrapper per handler rather than a middleware: the hot path, tools/call, pays nothing.
        """

        async def observed(ctx: ServerRequestContext[Any], params: Any) -> Any:
            return await self._observe(ctx, lambda: handler(ctx, params))

        return observed

    async def _observe(self, ctx: ServerRequestContext[Any], call_next: Any) -> Any:
        params = {key: value for key, value in (ctx.params or {}).items() if key != "_meta"}
        subject = params.get("name") or params.get("uri") or ""
        record = CallRecord(
            tool=str(subject),
            arguments=params,
            client=identity_of(ctx).name,
            claimed=claimed_name(ctx),
            protocol_version=ctx.protocol_version,
            started=time.time(),
            request_id=ctx.request_id,
            method=ctx.method,
            decision="-",
        )
        clock = time.perf_counter()
        try:
            result = await call_next()
            record.outcome = "ok"
            record.result = _bounded(dumped(result))
            return result
        except MCPError as exc:
            record.outcome, record.is_error = f"error {exc.code}", True
            record.error = {"code": exc.code, "message": exc.error.message}
            raise
        finally:
            record.duration = time.perf_counter() - clock
            self.record(record)


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


def dumped(result: Any) -> dict[str, Any]:
    if hasattr(result, "model_dump"):
        dumped: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return dumped
    return dict(result) if isinstance(result, dict) else {}


SEALED = "<sealed>"
"""What the activity log shows for a ``requestState``: the client got it encrypted (it cannot read or
change it), so the log never shows the plaintext the server keeps inside."""

_KEPT_ITEMS = 10


def _bounded(result: dict[str, Any]) -> dict[str, Any]:
    """A list result with its first items only: a log of 10,000 full tools/list pages would not fit."""
    for key in ("tools", "resources", "resourceTemplates", "prompts"):
        items = result.get(key)
        if isinstance(items, list) and len(items) > _KEPT_ITEMS:
            more = len(items) - _KEPT_ITEMS
            return {**result, key: [*items[:_KEPT_ITEMS], f"... {more} more (not kept in the activity log)"]}
    return result


def session_id_of(ctx: ServerRequestContext[Any]) -> str | None:
    request = ctx.request
    return request.headers.get("mcp-session-id") if request is not None else None


def claimed_name(ctx: ServerRequestContext[Any]) -> str | None:
    """The name the client gives itself (``clientInfo.name``): shown as a claim, never used as a key."""
    client = ctx.session.client_params
    return client.client_info.name if client is not None else None
