"""2025-11-25 tasks from the official TypeScript SDK (1.x, experimental tasks), a real peer.

Its ``callToolStream`` asks for a task when the server and the tool say they support tasks, polls
``tasks/get``, answers the task's questions that arrive on the ``tasks/result`` stream (tied to the
task by ``related-task`` meta), and reads the result there. Node 22 and the SDK come from npm.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook import Catalogue, Context, tool
from tests.conftest import serve_unattended
from tests.npm import node_module

SDK = "@modelcontextprotocol/sdk"
SDK_VERSION = "1.32.2"
SCRIPT = Path(__file__).parents[1] / "ts_tasks_client.mjs"
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@pytest.fixture(scope="module")
def node() -> list[str]:
    binary, root = node_module(SDK, SDK_VERSION)
    return [binary, str(SCRIPT), root.as_uri()]


@pytest.fixture
def server(catalogue: Catalogue) -> Iterator[Any]:
    @tool(catalogue=catalogue, read_only=True, task="optional")
    def slow(seconds: float, ctx: Context) -> str:
        """Waits `seconds`, then answers."""
        ctx.sleep(seconds)
        return f"slept {seconds:g} s"

    @tool(catalogue=catalogue, read_only=True, task="required")
    def greet_later(ctx: Context) -> str:
        """Asks a name, as a task."""
        ctx.sleep(0.3)
        return f"Hello, {ctx.elicit('Your name?', NAME).get('name')}!"

    srv = serve_unattended(catalogue)
    try:
        yield srv
    finally:
        srv.stop()


def run(node: list[str], srv: Any, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    env = {**os.environ, "URL": srv.url, "MCP_NOTEBOOK_TOKEN": srv.token}
    done = subprocess.run(
        [*node, name, json.dumps(arguments)], env=env, capture_output=True, text=True, timeout=120
    )
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert events and events[-1]["event"] == "exit", done.stderr[-3000:]
    return events


def test_a_typescript_client_runs_a_tool_as_a_2025_task(node: list[str], server: Any) -> None:
    events = run(node, server, "slow", {"seconds": 1})
    kinds = [event["event"] for event in events]
    assert kinds[0] == "taskCreated" and kinds[-2:] == ["result", "exit"], events
    assert events[0]["task"]["status"] == "working" and events[0]["task"]["ttl"] >= 60_000
    assert events[-2]["result"]["content"][0]["text"] == "slept 1 s"


def test_a_typescript_client_answers_a_tasks_question(node: list[str], server: Any) -> None:
    events = run(node, server, "greet_later", {})
    created = next(event for event in events if event["event"] == "taskCreated")
    asked = next(event for event in events if event["event"] == "asked")
    assert asked["message"] == "Your name?"
    # Trace context (`traceparent`, SEP-414) rides along once a tracer provider is set: not the task's.
    meta = {key: value for key, value in asked["meta"].items() if key not in ("traceparent", "tracestate")}
    assert meta == {"io.modelcontextprotocol/related-task": {"taskId": created["task"]["taskId"]}}
    assert events[-2]["event"] == "result" and events[-2]["result"]["content"][0]["text"] == "Hello, Ada!"
