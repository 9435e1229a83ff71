"""Traces through a call: the caller's span is an ancestor of the tool's own, through this package's steps.

A real in-process server and the SDK client, both eras; spans recorded with OpenTelemetry's in-memory
exporter (`tests.tracing`). The SDK turns the request into a server span joined to the caller's trace
(the ``traceparent`` its client puts in ``_meta``); this package's steps (approval, run-once, run, a
task) are spans inside it, and the tool's own spans inside the run.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from mcp_notebook import Catalogue, serve, tool
from tests.conftest import ERAS, Mode, connect, serve_unattended
from tests.tasks_client import CreatedTask, TasksExtension, until_status
from tests.tracing import BODY, Recorder, lineage, recording

pytestmark = pytest.mark.anyio

KEY = "order-0123456789abcdef"


@pytest.fixture
def recorder() -> Any:
    with recording().listening() as listening:
        yield listening


def traced_tools(catalogue: Catalogue) -> None:
    from opentelemetry import trace

    def body(text: str) -> str:
        with trace.get_tracer("tool").start_as_current_span(BODY):
            return text

    @tool(catalogue=catalogue, read_only=True)
    def echo(text: str) -> str:
        """Echo `text` on a worker thread."""
        return body(text)

    @tool(catalogue=catalogue, read_only=True, idempotency_key=True)
    def order(text: str) -> str:
        """Echo `text` once per idempotency key."""
        return body(text)

    @tool(catalogue=catalogue)
    def guarded(text: str) -> str:
        """Echo `text` once a person approves."""
        return body(text)

    @tool(catalogue=catalogue, read_only=True)
    def broken(text: str) -> str:
        """Fail, saying `text`."""
        raise ValueError(text)

    @tool(catalogue=catalogue, read_only=True, task="optional")
    def slow(text: str) -> str:
        """Echo `text` after a while (long enough to become a task)."""
        threading.Event().wait(1.0)  # past the 0.5 s a call may take before it is a task
        return body(text)


def names(chain: list[dict[str, Any]]) -> list[str]:
    return [span["name"] for span in chain]


async def call_in_span(recorder: Recorder, srv: Any, mode: Mode, name: str, arguments: dict[str, Any]) -> Any:
    async with connect(srv, mode) as client:
        with recorder.tracer.start_as_current_span("caller"):
            return await client.call_tool(name, arguments)


@pytest.mark.parametrize("mode", ERAS)
async def test_one_trace_from_the_caller_to_the_tool_body(
    recorder: Recorder, catalogue: Catalogue, mode: Mode
) -> None:
    traced_tools(catalogue)
    srv = serve_unattended(catalogue)
    try:
        result = await call_in_span(recorder, srv, mode, "echo", {"text": "hi"})
    finally:
        srv.stop()
    assert result.content[0].text == "hi"
    chain = lineage(recorder.spans(), BODY)
    assert names(chain)[:2] == [BODY, "mcp_notebook run"]
    assert "tools/call echo" in names(chain)
    assert names(chain)[-1] == "caller"
    assert len({span["trace_id"] for span in chain}) == 1
    run = chain[1]
    assert run["attributes"]["gen_ai.tool.name"] == "echo"
    assert run["attributes"]["mcp.method.name"] == "tools/call"
    assert run["attributes"]["mcp_notebook.run.where"] == "thread"
    assert run["attributes"]["gen_ai.operation.name"] == "execute_tool"
    assert run["attributes"]["jsonrpc.request.id"]
    assert ("mcp.session.id" in run["attributes"]) == (mode == "legacy")


async def test_the_run_once_is_a_span_and_says_when_it_replays(
    recorder: Recorder, catalogue: Catalogue
) -> None:
    traced_tools(catalogue)
    srv = serve_unattended(catalogue)
    try:
        for _ in range(2):
            await call_in_span(recorder, srv, "auto", "order", {"text": "hi", "idempotency_key": KEY})
    finally:
        srv.stop()
    spans = recorder.spans()
    chain = lineage(spans, BODY)  # the tool ran once
    assert names(chain)[:3] == [BODY, "mcp_notebook run", "mcp_notebook run_once"]
    replayed = [
        s["attributes"]["mcp_notebook.run_once.replayed"] for s in spans if s["name"].endswith("run_once")
    ]
    assert replayed == [False, True]


@pytest.mark.parametrize("decision", ["approved", "denied"])
async def test_the_wait_for_a_person_is_a_span_with_the_decision(
    recorder: Recorder, catalogue: Catalogue, decision: str
) -> None:
    traced_tools(catalogue)
    srv = serve(catalogue=catalogue, approval="ask")
    asked = threading.Event()

    def decide(request: Any) -> None:
        asked.set()
        request.approve() if decision == "approved" else request.deny()

    srv.approval.listeners.append(decide)
    try:
        result = await call_in_span(recorder, srv, "auto", "guarded", {"text": "hi"})
    finally:
        srv.stop()
    assert asked.is_set() and result.is_error == (decision == "denied")
    spans = recorder.spans()
    approval = lineage(spans, "mcp_notebook approval")
    assert approval[0]["attributes"]["mcp_notebook.approval.decision"] == decision
    assert approval[0]["attributes"]["gen_ai.tool.name"] == "guarded"
    assert approval[-1]["name"] == "caller"
    assert any(span["name"] == BODY for span in spans) == (decision == "approved")


async def test_a_task_is_a_span_from_its_start_to_its_result(
    recorder: Recorder, catalogue: Catalogue
) -> None:
    traced_tools(catalogue)
    srv = serve_unattended(catalogue)
    try:
        async with connect(srv, "auto", extensions=[TasksExtension()]) as client:
            with recorder.tracer.start_as_current_span("caller"):
                created = await client.session.call_tool("slow", {"text": "hi"}, allow_claimed=True)
            assert isinstance(created, CreatedTask)
            done = await until_status(client.session, created.task_id)
            assert done.status == "completed"
    finally:
        srv.stop()
    chain = lineage(recorder.spans(), BODY)
    assert names(chain)[:3] == [BODY, "mcp_notebook run", "mcp_notebook task"]
    assert names(chain)[-1] == "caller"
    task = chain[2]
    assert task["attributes"]["mcp_notebook.task.id"] == created.task_id
    assert task["attributes"]["mcp_notebook.task.promoted"] is True


async def test_a_tool_that_fails_marks_its_run_failed(recorder: Recorder, catalogue: Catalogue) -> None:
    traced_tools(catalogue)
    srv = serve_unattended(catalogue)
    try:
        result = await call_in_span(recorder, srv, "auto", "broken", {"text": "out of stock"})
    finally:
        srv.stop()
    assert result.is_error
    run = next(s for s in recorder.spans() if s["name"] == "mcp_notebook run")
    assert run["status"] == "ERROR"
    assert run["attributes"]["error.type"] == "tool_error"
    assert lineage(recorder.spans(), "mcp_notebook run")[-1]["name"] == "caller"
