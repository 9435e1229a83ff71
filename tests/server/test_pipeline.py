"""One call, one pipeline: whatever ends a request, its record is finished once; a tools/call is one audit line.

Every case is a real server on 127.0.0.1 and JSON-RPC by hand over HTTP (both eras where the case
exists in both), with a sink that counts the finishes of each request and the audit log on disk.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook import Catalogue, Context, serve, tool
from mcp_notebook.server._audit import AuditLog
from mcp_notebook.server._pipeline import CallRecord
from tests.conftest import until
from tests.wire import Wire, answer

HANDSHAKE, MODERN = "2025-11-25", "2026-07-28"
Expected = list[tuple[str, str, bool]]  # per tools/call, in order: (decision, outcome, is_error)


@dataclass
class Tools:
    """The tools every case draws on, and the events that hold and release the slow ones."""

    started: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    asked: threading.Event = field(default_factory=threading.Event)


def define(catalogue: Catalogue) -> Tools:
    tools = Tools()

    @tool(catalogue=catalogue, read_only=True)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @tool(catalogue=catalogue, read_only=True)
    def fail() -> str:
        """Fail, as tools sometimes do."""
        raise ValueError("no good")

    @tool(catalogue=catalogue, read_only=True, rate_limit=(1, 60))
    def limited() -> str:
        """Answer once a minute."""
        return "once"

    @tool(catalogue=catalogue, destructive=True)
    def delete_row(row: int) -> str:
        """Delete one row (a person is asked first)."""
        return f"deleted {row}"

    @tool(catalogue=catalogue, expose=False, read_only=True)
    def internal() -> str:
        """Only for the notebook."""
        return "internal"

    @tool(catalogue=catalogue, read_only=True)
    def confirm(ctx: Context) -> str:
        """Ask the person at the client first."""
        return str(ctx.elicit("Sure?", {"sure": bool}))

    @tool(catalogue=catalogue, read_only=True)
    def slow() -> str:
        """Answer once the test lets it."""
        tools.started.set()
        tools.release.wait(30)
        return "late"

    @tool(catalogue=catalogue, read_only=True)
    def reporting(ctx: Context) -> str:
        """Report progress until the test lets it answer (a Context: its answer is a stream)."""
        tools.started.set()
        tools.release.wait(30)
        return "late"

    @tool(catalogue=catalogue, read_only=True, timeout=0.2)
    def stalled() -> str:
        """Take longer than its timeout."""
        tools.release.wait(30)
        return "never used"

    return tools


class Finishes:
    """A sink of the pipeline: every finished record, and how often each request was finished."""

    def __init__(self) -> None:
        self.per_request: Counter[tuple[str, str]] = Counter()
        self.records: list[CallRecord] = []
        self._lock = threading.Lock()

    def __call__(self, record: CallRecord) -> None:
        with self._lock:
            self.per_request[(record.method, str(record.request_id))] += 1
            self.records.append(record)

    def calls(self) -> list[CallRecord]:
        with self._lock:
            return [record for record in self.records if record.method == "tools/call"]


def send_raw(wire: Wire, srv: Any, message: dict[str, Any]) -> socket.socket:
    """`message` (a tools/call) on a connection of its own, left unread: the caller hangs up by closing it."""
    body = json.dumps(message).encode()
    headers = {
        **wire.http.headers,
        **wire.headers("tools/call", message["params"]["name"]),
        "Host": f"127.0.0.1:{srv.port}",
        "Content-Length": str(len(body)),
    }
    raw = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
    head = "".join(f"{key}: {value}\r\n" for key, value in headers.items())
    raw.sendall(f"POST /mcp HTTP/1.1\r\n{head}\r\n".encode() + body)
    return raw


def call_of(wire: Wire, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return wire.message("tools/call", {"name": name, "arguments": arguments})


def protocol_error(reply: dict[str, Any], code: int | None = None) -> str:
    """The outcome a record shows for the JSON-RPC error in `reply` (of `code`, if given)."""
    assert "error" in reply, reply
    if code is not None:
        assert reply["error"]["code"] == code, reply
    return f"error {reply['error']['code']}"


# -- the cases: each sends its requests and says what each tools/call record must show ------------------


def ok(srv: Any, wire: Wire, tools: Tools) -> Expected:
    assert wire.call("add", {"a": 2, "b": 3})["result"]["structuredContent"] == {"result": 5}
    return [("not-needed", "ok", False)]


def tool_error(srv: Any, wire: Wire, tools: Tools) -> Expected:
    assert wire.call("fail", {})["result"]["isError"] is True
    return [("not-needed", "ValueError", True)]


def invalid_arguments(srv: Any, wire: Wire, tools: Tools) -> Expected:
    assert wire.call("add", {"a": "two", "b": 3})["result"]["isError"] is True
    return [("not-needed", "invalid arguments", True)]


def rate_limited(srv: Any, wire: Wire, tools: Tools) -> Expected:
    assert wire.call("limited", {})["result"]["isError"] is False
    assert wire.call("limited", {})["result"]["isError"] is True
    return [("not-needed", "ok", False), ("rate limited", "rate limited", True)]


def denied(srv: Any, wire: Wire, tools: Tools) -> Expected:
    srv.approval.listeners.append(lambda request: request.deny())
    assert wire.call("delete_row", {"row": 1})["result"]["isError"] is True
    return [("denied", "denied", True)]


def approval_timeout(srv: Any, wire: Wire, tools: Tools) -> Expected:
    srv.approval.timeout = 0.2  # nobody answers: the wait ends as a decline
    assert wire.call("delete_row", {"row": 1})["result"]["isError"] is True
    return [("timeout", "timeout", True)]


def unknown_tool(srv: Any, wire: Wire, tools: Tools) -> Expected:
    return [("refused: unknown tool", protocol_error(wire.call("nope", {}), -32602), True)]


def hidden_tool(srv: Any, wire: Wire, tools: Tools) -> Expected:
    return [("refused: hidden tool", protocol_error(wire.call("internal", {}), -32602), True)]


def forged_request_state(srv: Any, wire: Wire, tools: Tools) -> Expected:
    params = {"name": "confirm", "arguments": {}, "requestState": "forged", "inputResponses": {}}
    reply = answer(wire.send("tools/call", params, "confirm"))
    return [("not-needed", protocol_error(reply), True)]


def capability_missing(srv: Any, wire: Wire, tools: Tools) -> Expected:
    # The client declared no capabilities; the tool asks it a question (elicitation).
    return [("not-needed", protocol_error(wire.call("confirm", {}), -32021), True)]


def hang_up_while_a_person_is_asked(srv: Any, wire: Wire, tools: Tools) -> Expected:
    srv.approval.listeners.append(lambda request: tools.asked.set())
    with send_raw(wire, srv, call_of(wire, "delete_row", {"row": 1})):
        assert tools.asked.wait(30)
    # Handshake era: the Gate reports the hang-up and the prompt is withdrawn; 2026-07-28: the SDK
    # cancels the call, which withdraws it.
    outcome = "withdrawn" if wire.era == HANDSHAKE else "client disconnected"
    return [("withdrawn", outcome, True)]


def hang_up_while_the_tool_runs(srv: Any, wire: Wire, tools: Tools) -> Expected:
    with send_raw(wire, srv, call_of(wire, "reporting", {})):
        assert tools.started.wait(30)
    if wire.era == HANDSHAKE:
        # The SDK leaves the call running in its session: it ends when the tool does.
        tools.release.set()
        return [("not-needed", "ok", False)]
    return [("not-needed", "client disconnected", True)]  # the SDK cancels the call of a stream it lost


def cancelled(srv: Any, wire: Wire, tools: Tools) -> Expected:
    message = call_of(wire, "slow", {})
    with send_raw(wire, srv, message):
        assert tools.started.wait(30)
        notice = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": message["id"]},
        }
        assert wire.post(json.dumps(notice).encode()).status_code == 202
        assert until(lambda: len(srv.tool_server.calls) == 1)
    return [("not-needed", "client disconnected", True)]


def tool_timeout(srv: Any, wire: Wire, tools: Tools) -> Expected:
    assert wire.call("stalled", {})["result"]["isError"] is True
    return [("not-needed", "timeout", True)]


Case = Callable[[Any, Wire, Tools], Expected]
CASES: list[tuple[Case, str]] = [
    *(
        (case, era)
        for era in (HANDSHAKE, MODERN)
        for case in (
            ok,
            tool_error,
            invalid_arguments,
            rate_limited,
            denied,
            approval_timeout,
            unknown_tool,
            hidden_tool,
            capability_missing,
            hang_up_while_a_person_is_asked,
            hang_up_while_the_tool_runs,
            tool_timeout,
        )
    ),
    (forged_request_state, MODERN),  # requestState exists in 2026-07-28 only
    (cancelled, HANDSHAKE),  # notifications/cancelled reaches a call through its session
]


@pytest.fixture
def audit_path(tmp_path: Path) -> Path:
    return tmp_path / "audit.jsonl"


@pytest.fixture
def served(catalogue: Catalogue, audit_path: Path) -> Iterator[tuple[Any, Tools, Finishes]]:
    tools = define(catalogue)
    srv = serve(catalogue=catalogue, approval_timeout=30, audit_log=audit_path)
    finishes = Finishes()
    srv.tool_server.call_listeners.append(finishes)
    try:
        yield srv, tools, finishes
    finally:
        tools.release.set()
        srv.stop()


@pytest.mark.parametrize(("case", "era"), CASES, ids=[f"{case.__name__}-{era}" for case, era in CASES])
def test_every_request_is_finished_once_and_every_call_is_one_audit_line(
    served: tuple[Any, Tools, Finishes], audit_path: Path, case: Case, era: str
) -> None:
    srv, tools, finishes = served
    wire = Wire(srv, era)
    try:
        expected = case(srv, wire, tools)
        assert until(lambda: len(finishes.calls()) >= len(expected)), finishes.calls()
        tools.release.set()  # let a tool still running in its thread end
    finally:
        wire.close()
    srv.stop()  # everything in flight has ended: a late second finish would be in by now
    calls = finishes.calls()
    assert [(record.decision, record.outcome, record.is_error) for record in calls] == expected
    assert finishes.per_request and set(finishes.per_request.values()) == {1}, finishes.per_request
    # The activity log kept each finished request once; its calls are those of tools the caller may see.
    assert list(srv.tool_server.activity) == finishes.records
    assert list(srv.tool_server.calls) == [record for record in calls if not record.unknown]
    audited = AuditLog.read(audit_path)
    # The audit line adds what the client got: a call whose client hung up was not delivered.
    assert [(line["tool"], line["decision"], line["outcome"], line["is_error"]) for line in audited] == [
        (record.tool, record.decision, audit_outcome(record.outcome, case), record.is_error)
        for record in calls
    ]
    if case.__name__.startswith("hang_up"):
        assert [line.get("delivered") for line in audited] == [False]


def audit_outcome(outcome: str, case: Case) -> str:
    """The outcome the audit line shows: a hang-up not already said so is marked as not delivered."""
    if case.__name__.startswith("hang_up") and "client disconnected" not in outcome:
        return f"{outcome} (not delivered)"
    return outcome


def test_a_kept_record_reads_as_it_was_and_holds_its_values_as_compact_text() -> None:
    """The logs hold 500 records each for as long as a server runs: a kept record's arguments,
    result and rounds are one short text each, read back as new dicts equal to what they were."""
    import sys

    from mcp_notebook.server._activity import ActivityLog

    arguments = {"tag": "차-7", "n": [1, 2.5, None, True]}
    result = {
        "content": [{"type": "text", "text": "차-7"}],
        "structuredContent": {"result": "차-7"},
        "isError": False,
    }
    record = CallRecord(
        tool="echo", arguments=arguments, client="owner", protocol_version="2026-07-28", started=1.0
    )
    record.result, record.rounds = result, {"inputResponses": {"q": {"action": "accept"}}}
    unpacked = sum(
        sys.getsizeof(value) for value in (arguments, result, *result.values(), *result["content"])
    )
    log = ActivityLog(history=5)
    log.keep(record)
    assert (record.arguments, record.result) == (arguments, result)
    assert record.rounds == {"inputResponses": {"q": {"action": "accept"}}}
    record.arguments["tag"] = "changed"  # a copy: the log's record stays as it was
    assert record.arguments == arguments and log.calls[-1] is record
    packed = sum(sys.getsizeof(value) for value in (record._arguments, record._result))
    assert packed < unpacked * 0.7, (packed, unpacked)  # non-Latin text takes two bytes a character
    assert record.to_json()["response"]["result"] == result
    bare = CallRecord(tool="t", arguments={}, client=None, protocol_version="2025-11-25", started=0.0)
    log.keep(bare)
    assert (bare.arguments, bare.result, bare.rounds) == ({}, {}, {})
