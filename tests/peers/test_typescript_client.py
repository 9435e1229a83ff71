"""The official TypeScript client (the SDK under Inspector and several IDEs) and a call that waits for a person.

Such clients give up on a request after 60 s unless a progress notification resets the clock
(``resetTimeoutOnProgress``), while a person may take longer to approve. A real 60 s is too long
for the suite: the client's own ``timeout`` option, set to 1.5 s, shows the mechanism. With
progress resetting it, the call outlives several timeouts and completes once approved; without,
it times out. Node 22 and the client come from npm (`tests/npm.py`).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook import Catalogue, serve, tool
from mcp_notebook.core._approval_request import ApprovalRequest
from tests.conftest import until
from tests.npm import node_module

CLIENT = "@modelcontextprotocol/client"
CLIENT_VERSION = "2.3.1"
SCRIPT = Path(__file__).parents[1] / "ts_call_tool.mjs"
TIMEOUT_MS = 1500
ERA_VERSIONS = {"legacy": "2025-11-25", "auto": "2026-07-28"}


class TypeScriptCall:
    """One `callTool` by the TypeScript client in a Node process; its events as they come."""

    def __init__(self, node: list[str], srv: Any, era: str, reset: bool, arguments: dict[str, Any]) -> None:
        env = {
            **os.environ,
            "URL": srv.url,
            "MCP_NOTEBOOK_TOKEN": srv.token,
            "ERA": era,
            "TIMEOUT_MS": str(TIMEOUT_MS),
            "RESET": "1" if reset else "0",
        }
        self.process = subprocess.Popen(
            [*node, "delete_row", json.dumps(arguments)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.events.put(json.loads(line))
        self.events.put({"event": "exit"})

    def next(self, *kinds: str, timeout: float = 60) -> dict[str, Any]:
        """The next event of one of `kinds` (others are skipped)."""
        while True:
            try:
                event = self.events.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no {kinds} event within {timeout} s") from None
            if event["event"] in kinds or event["event"] == "exit":
                return event

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(30)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture(scope="session")
def node() -> list[str]:
    """[node 22, the script, the client's entry module] (the script imports the client from there)."""
    binary, root = node_module(CLIENT, CLIENT_VERSION)
    return [binary, str(SCRIPT), (root / "dist" / "index.mjs").as_uri()]


@pytest.fixture
def asking(catalogue: Catalogue) -> Iterator[Any]:
    done: list[int] = []

    @tool(catalogue=catalogue, destructive=True)
    def delete_row(row: int) -> str:
        """Delete one row of the table."""
        done.append(row)
        return f"deleted {row}"

    srv = serve(catalogue=catalogue, approval_timeout=60)
    srv.approval.progress_every = 0.3  # every 10 s by default, well within the usual 60 s
    srv.done = done
    try:
        yield srv
    finally:
        srv.stop()


def shown(srv: Any) -> threading.Event:
    arrived = threading.Event()
    srv.approval.listeners.append(lambda request: arrived.set())
    return arrived


@pytest.mark.parametrize("era", ["legacy", "auto"])
def test_progress_lets_a_typescript_client_wait_past_its_timeout_for_a_person(
    node: list[str], asking: Any, era: str
) -> None:
    arrived = shown(asking)
    call = TypeScriptCall(node, asking, era, reset=True, arguments={"row": 7})
    try:
        assert call.next("connected")["event"] == "connected", call.process.stderr
        assert arrived.wait(30), "no approval prompt appeared"
        request: ApprovalRequest = asking.pending[0]
        # Wait (on the client's own events) until the call has outlived its timeout twice over.
        started, values = time.monotonic(), []
        while (event := call.next("progress", "result", "error"))["event"] == "progress":
            assert "Waiting for a person to approve the call to 'delete_row'" in event["message"]
            values.append(event["progress"])
            if time.monotonic() - started >= 2 * TIMEOUT_MS / 1000:
                break
        assert event["event"] == "progress", event  # still waiting, not timed out
        assert values == sorted(set(values)), values  # it grows, as the spec requires
        request.approve()
        finished = call.next("result", "error")
    finally:
        call.close()
    assert finished["event"] == "result", finished
    assert finished["result"]["content"][0]["text"] == "deleted 7" and asking.done == [7]
    assert asking.calls[-1].protocol_version == ERA_VERSIONS[era]


@pytest.mark.parametrize("era", ["legacy", "auto"])
def test_without_resetting_on_progress_the_typescript_client_gives_up(
    node: list[str], asking: Any, era: str
) -> None:
    arrived = shown(asking)
    call = TypeScriptCall(node, asking, era, reset=False, arguments={"row": 8})
    try:
        assert arrived.wait(30), "no approval prompt appeared"
        gave_up = call.next("result", "error")
    finally:
        call.close()
    assert gave_up["event"] == "error" and "timed out" in gave_up["message"].lower(), gave_up
    # A client that gives up says so (notifications/cancelled): the prompt is withdrawn, nothing runs.
    assert until(lambda: asking.calls and asking.calls[-1].decision == "withdrawn"), asking.calls
    assert asking.pending == [] and asking.done == []
