"""One call, one pipeline: every request the server answers is one `Call`, opened once and finished once.

The steps, in order. Any step may end the call: gate, protocol, lookup, task, seal and round with a
protocol error (HTTP status or JSON-RPC error), the others with an ``isError`` result the model can
read and act on. Nothing
re-implements a step elsewhere; what comes next (tasks, replicas) plugs in here::

    gate        token -> identity, Host/Origin, body size           http/_gate.Gate
    protocol    era (MCP-Protocol-Version), method                  the SDK
    -- open     `CallPipeline.open`: the `CallRecord` (identity, claim, era, request id, start)
    tools/call: an ordered list of steps over one `CallState`, the order written once in
    `_calls.ToolCalls` (each step in `_call_checks`, `_call_tasks`, `_call_approval`, `_call_run`,
    `_call_results`):
    lookup      a hidden tool is an unknown one: -32602             Lookup
    rounds      what a later round sent, on record (sealed)         note_rounds
    task        a task or not, by era; tasks per identity           ChooseWay, CountTasks
    dispatch    in the request, or as a task's job                  Dispatch
    seal        2026-07-28 requestState: verified in, sealed out    Sealed (the SDK's boundary)
    round       a later round answers its round, once               AnswerRound
    arguments   the tool's input schema                             CheckArguments
    rate limit  per identity, per tool                              LimitRate (_rate_limits)
    workers     earlier calls still holding the tool's threads      CheckWorkers
    approval    per identity, per definition                        Approve (_approval)
    idempotency a repeated key replays; a held key runs to its end  Idempotent (_idempotent)
    run         worker thread or kernel pump; timeout; cancel       RunTool
    keep        too large for a model: a link for the caller only   KeepIfLarge
    sanitize    control characters out, text capped                 Sanitize
    -- finish   `Call.__exit__`, however the call ended (result, protocol error, refusal, cancellation,
                hang-up): duration, outcome, is_error, error; then each sink in order:
    sinks       audit log (tools/call only: `_audit.AuditTrail`), activity log
                (`_activity.ActivityLog.keep`), the notebook's views (`ToolServer.call_listeners`)
    answer      the SDK writes the result or the error
    delivery    the connection says whether the answer left whole (`Delivery`); the audit line of
                a call answered over the in-kernel server's HTTP waits for it

A call that becomes a task (`_tasks`: a client that supports tasks, a tool that allows them) runs
the steps after the dispatch as a job of the server's own, and the answer is the task: the call is
handed off (`Call.hand_off`) and finished when the task ends, however it ends, its lifecycle on
record (`CallRecord.task`). ``tasks/get``, ``tasks/update``, ``tasks/cancel`` ... are requests of
their own, each opened and finished around its handler.

Every other request (lists, reads, prompts, completion, logging/setLevel, server/discover) goes
through the same open and finish, its handler in between (`CallPipeline.observed`).

Traces: the SDK makes each request a span, joined to the caller's trace; the approval, idempotency,
run and task steps open child spans of it (`core._tracing`), no-ops while nothing collects traces.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from ..core._apps import FROM_APP, SCHEME
from ..core._identity import claims, identity_of

logger = logging.getLogger(__name__)

Handler = Callable[[ServerRequestContext[Any], Any], Awaitable[Any]]
Sink = Callable[["CallRecord"], None]

DELIVERY = "mcp_notebook.delivery"
"""The ASGI scope key of a request's `Delivery`, put there by the connection that read the request."""


class Delivery:
    """Whether the client received one HTTP response whole, once the connection knows.

    The in-kernel server's connection (`http._connections`) settles it: delivered once the
    response's last byte has left this process for the client's socket, not delivered when the
    connection is lost before that (a client gone mid-body). A response still in the operating
    system's send buffer when its client leaves counts as delivered: TCP says no more.
    """

    __slots__ = ("_then", "delivered")

    def __init__(self) -> None:
        self.delivered: bool | None = None  # None until settled
        self._then: list[Callable[[bool], None]] | None = (
            None  # made by the first `then`: a kept record holds its Delivery
        )

    def settle(self, delivered: bool) -> None:
        """Say how the response went (the first word counts) and tell those waiting for it."""
        if self.delivered is not None:
            return
        self.delivered = delivered
        then, self._then = self._then or [], None
        for callback in then:
            try:
                callback(delivered)
            except Exception:  # an audit write must never break the connection that settles it
                logger.exception("delivery callback failed")

    def then(self, callback: Callable[[bool], None]) -> None:
        """Call `callback(delivered)` once settled (at once if it is)."""
        if self.delivered is None:
            if self._then is None:
                self._then = []
            self._then.append(callback)
        else:
            callback(self.delivered)


class CallRecord:
    """One request as the server saw it, from its arrival to its answer (kept for the activity view).

    A record a log keeps is packed (`pack`): its arguments, result and rounds are held as compact
    JSON text and read back as new dicts on each access. A server's logs hold 500 records each for
    as long as it runs, and a few short dicts cost several times their JSON; a kept record is
    read, not changed.
    """

    __slots__ = (
        "_arguments",
        "_result",
        "_rounds",
        "app",
        "claimed",
        "client",
        "decision",
        "delivery",
        "duration",
        "error",
        "is_error",
        "method",
        "outcome",
        "protocol_version",
        "request_id",
        "size",
        "started",
        "stdout",
        "task",
        "tool",
        "unknown",
    )

    def __init__(
        self,
        tool: str,
        arguments: dict[str, Any],
        client: str | None,
        protocol_version: str,
        started: float,
        duration: float = 0.0,
        is_error: bool = False,
        outcome: str = "",
        stdout: str = "",
        decision: str = "not-needed",
        result: dict[str, Any] | None = None,
        request_id: Any = None,
        method: str = "tools/call",
        error: dict[str, Any] | None = None,
        rounds: dict[str, Any] | None = None,
        claimed: str | None = None,
        app: str | None = None,
        size: int = 0,
        unknown: bool = False,
        task: dict[str, Any] | None = None,
        delivery: Delivery | None = None,
    ) -> None:
        self.tool = tool
        self._arguments: dict[str, Any] | _Packed = arguments
        self.client = client  # the identity its credential proved: "notebook", "owner" or a client's name
        self.protocol_version = protocol_version
        self.started = started
        self.duration = duration
        self.is_error = is_error
        self.outcome = outcome
        self.stdout = stdout
        self.decision = decision
        self._result: dict[str, Any] | _Packed = {} if result is None else result
        self.request_id = request_id
        self.method = method
        self.error = error
        self._rounds: dict[str, Any] | _Packed = (
            {} if rounds is None else rounds
        )  # 2026-07-28: inputResponses, requestState
        self.claimed = claimed  # the name the client gave itself (clientInfo.name): a claim, never a key
        self.app = app  # the ui:// app its host says asked for the call (`FROM_APP`): a claim too
        self.size = size  # estimated bytes, set when the log keeps it
        # A call of a tool the caller may not see (unknown, or hidden from it): audited, but not a call of a tool.
        self.unknown = unknown
        # A call that ran as a task: {"id", "status", "events": [[time, what], ...]} (the task's lifecycle).
        self.task = task
        # How its HTTP response went (a tools/call over the in-kernel server); None: nothing tells.
        self.delivery = delivery

    @property
    def arguments(self) -> dict[str, Any]:
        return _unpacked(self._arguments)

    @arguments.setter
    def arguments(self, value: dict[str, Any]) -> None:
        self._arguments = value

    @property
    def result(self) -> dict[str, Any]:
        return _unpacked(self._result)

    @result.setter
    def result(self, value: dict[str, Any]) -> None:
        self._result = value

    @property
    def rounds(self) -> dict[str, Any]:
        return _unpacked(self._rounds)

    @rounds.setter
    def rounds(self, value: dict[str, Any]) -> None:
        self._rounds = value

    def pack(self) -> None:
        """Hold the arguments, result and rounds as compact JSON text (a log keeps the record)."""
        self._arguments = _packed(self._arguments)
        self._result = _packed(self._result)
        self._rounds = _packed(self._rounds)

    def __repr__(self) -> str:
        return (
            f"CallRecord(tool={self.tool!r}, method={self.method!r}, client={self.client!r}, "
            f"outcome={self.outcome!r}, is_error={self.is_error!r}, decision={self.decision!r}, "
            f"arguments={self.arguments!r}, result={self.result!r})"
        )

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
            "app": self.app,
            "protocol_version": self.protocol_version,
            "tool": self.tool,
            "arguments": self.arguments,
            "decision": self.decision,
            "outcome": self.outcome,
            "is_error": self.is_error,
            "duration_ms": round(self.duration * 1000, 3),
            "stdout": self.stdout,
            **({"task": self.task} if self.task is not None else {}),
            **self.wire(),
        }


class Call:
    """One request on its way through the pipeline: owns its `CallRecord` and finishes it once.

    Used as a context manager around everything the server does for the request. The steps write
    what they learn into `record` (decision, outcome, stdout, result); leaving the block, however
    it is left, finishes the record and hands it to the sinks.
    """

    __slots__ = ("_clock", "_finished", "_handed_off", "_sinks", "record")

    def __init__(self, record: CallRecord, sinks: list[Sink]) -> None:
        self.record = record
        self._sinks = sinks
        self._clock = time.perf_counter()
        self._handed_off = False
        self._finished = False

    def __enter__(self) -> Call:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if not self._handed_off:
            self.finish(exc)

    def hand_off(self) -> None:
        """The call became a task: leaving the request's block does not finish it; the task's end does."""
        self._handed_off = True
        self.record.delivery = None  # the request's answer is the task, not the call's result

    def finish(self, exc: BaseException | None = None) -> None:
        """Finish the record (once: a second finish does nothing) and hand it to the sinks."""
        if self._finished:
            return
        self._finished = True
        record = self.record
        if exc is not None:
            ended(record, exc)
        record.duration = time.perf_counter() - self._clock
        for sink in list(self._sinks):
            try:
                sink(record)
            except Exception:  # an audit write, a display callback: none of them may fail the call
                logger.exception("call sink failed")


def ended(record: CallRecord, exc: BaseException) -> None:
    """Put on `record` how an exception ended its call: a protocol error, a hang-up, or a failure."""
    if isinstance(exc, MCPError):
        record.outcome, record.is_error = f"error {exc.code}", True
        record.error = {"code": exc.code, "message": exc.error.message}
    elif isinstance(exc, anyio.get_cancelled_exc_class()):
        # The client hung up (the SDK cancels the handler) or the server stops: what did run stays on record.
        record.outcome = (
            f"{record.outcome} (client disconnected)" if record.outcome else "client disconnected"
        )
        record.is_error = True
    else:  # a failure of the server's own (the SDK answers it as an internal error)
        record.outcome, record.is_error = type(exc).__name__, True
        record.error = {"code": types.INTERNAL_ERROR, "message": str(exc)}


class CallPipeline:
    """Opens a `Call` per request and tells each finished record to the sinks, in order.

    `sinks` is the list to subscribe to (the audit trail, the activity log, then the notebook's views).
    """

    def __init__(self) -> None:
        self.sinks: list[Sink] = []

    def open(
        self,
        ctx: ServerRequestContext[Any],
        method: str,
        subject: str,
        arguments: dict[str, Any],
        *,
        client: str | None = None,
        decision: str = "not-needed",
    ) -> Call:
        """A new `Call` for the request behind `ctx`: `subject` is the tool, prompt or resource it names.

        `client` is the caller's identity when the step that opens the call knows it already.
        """
        record = CallRecord(
            tool=subject,
            arguments=arguments,
            client=client if client is not None else identity_of(ctx).name,
            claimed=claimed_name(ctx),
            app=claimed_app(ctx),
            protocol_version=ctx.protocol_version,
            started=time.time(),
            request_id=ctx.request_id,
            method=method,
            decision=decision,
            delivery=delivery_of(ctx) if method == "tools/call" else None,
        )
        return Call(record, self.sinks)

    def observed(self, method: str, handler: Handler) -> Handler:
        """`handler` (of a request other than tools/call) between the pipeline's open and finish."""

        async def observed(ctx: ServerRequestContext[Any], params: Any) -> Any:
            sent = {key: value for key, value in (ctx.params or {}).items() if key != "_meta"}
            subject = str(sent.get("name") or sent.get("uri") or sent.get("taskId") or "")
            with self.open(ctx, method, subject, sent, decision="-") as call:
                result = await handler(ctx, params)
                call.record.outcome = "ok"
                call.record.result = _bounded(dumped(result))
                return result

        return observed


def delivery_in(scope: Any) -> Delivery | None:
    """The `Delivery` a connection put in an ASGI `scope`, if it tracks one."""
    found = scope.get(DELIVERY) if isinstance(scope, dict) else None
    return found if isinstance(found, Delivery) else None


def delivery_of(ctx: ServerRequestContext[Any]) -> Delivery | None:
    """The `Delivery` of the HTTP request behind `ctx`, if its connection tracks one."""
    return delivery_in(getattr(ctx.request, "scope", None))


class _Packed(str):
    """A kept record's value as compact JSON text (`CallRecord.pack`)."""

    __slots__ = ()


def _packed(value: dict[str, Any] | _Packed) -> dict[str, Any] | _Packed:
    """`value` as compact JSON text; as it is when packed already or not JSON (then kept whole)."""
    if isinstance(value, _Packed):
        return value
    if not value:
        return _NOTHING  # most records have no rounds: one shared text
    try:
        return _Packed(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    except (TypeError, ValueError):
        return value


_NOTHING = _Packed("{}")


def _unpacked(value: dict[str, Any] | _Packed) -> dict[str, Any]:
    if isinstance(value, _Packed):
        unpacked: dict[str, Any] = json.loads(value)
        return unpacked
    return value


def claimed_name(ctx: ServerRequestContext[Any]) -> str | None:
    """The name the client gives itself (``clientInfo.name``): shown as a claim, never used as a key."""
    client = ctx.session.client_params
    return client.client_info.name if client is not None else None


MAX_APP_CHARS = 1000
"""What the record keeps of a host's app URI at most (a client writes it)."""


def claimed_app(ctx: ServerRequestContext[Any]) -> str | None:
    """The ``ui://`` app a host says this request comes from (``_meta`` `FROM_APP`), if it says one.

    Shown so that a person can tell a call an app made from one a model made; a host's word, so it
    decides nothing (the caller's identity is still its credential's).
    """
    meta = getattr(ctx, "meta", None)
    value = meta.get(FROM_APP) if isinstance(meta, dict) else None
    return value[:MAX_APP_CHARS] if isinstance(value, str) and value.startswith(SCHEME) else None


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
