"""What the server saw: a `CallRecord` per request, for the notebook's activity view and the audit log.

Every request is recorded (`activity`); tool calls also go to `calls` and the audit log. Handlers other
than tools/call are wrapped by `ActivityLog.observed`; tools/call records itself, in full (decision,
stdout, outcome), so the hot path pays for one record only.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from ._identity import claims, identity_of

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


class ActivityLog:
    """The bounded logs of one server, and who is told of each new record."""

    def __init__(self, history: int, guards: Any) -> None:
        self.calls: deque[CallRecord] = deque(maxlen=history)  # tools/call only
        self.activity: deque[CallRecord] = deque(maxlen=history)  # every request
        self.listeners: list[Callable[[CallRecord], None]] = []
        self.guards = guards  # writes the audit log

    def record(self, record: CallRecord) -> None:
        self.activity.append(record)
        try:
            if record.method == "tools/call":  # the audit log is about tool calls
                self.calls.append(record)
                self.guards.record(record)
        except Exception:  # an unwritable audit log must not fail the call it records
            logger.exception("audit log write failed")
        self.show(record)

    def refused(self, record: CallRecord) -> None:
        """A call of a tool the caller may not see (unknown or hidden): in the activity and audit logs.

        Not among `calls`, which are the calls of tools; the audit log keeps the probe (who, which
        name) so that a client feeling for hidden tools leaves a trace.
        """
        self.activity.append(record)
        try:
            self.guards.record(record)
        except Exception:  # an unwritable audit log must not fail the request it records
            logger.exception("audit log write failed")
        self.show(record)

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
