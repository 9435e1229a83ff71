"""Every path a client takes gets the same answers: direct HTTP, `serve NB --stdio` and `bridge URL`.

One table of behaviours (`ROWS`), one notebook that serves a tool for each (`tests/servers/paths.ipynb`),
run with the SDK client in both eras over each path:

- ``http``: the notebook served headless (``mcp-notebook serve NB --port 0``), the client over HTTP;
- ``bridge``: ``mcp-notebook bridge URL`` in front of that same server, the client on its stdio;
- ``stdio``: ``mcp-notebook serve NB --stdio``, the client on its stdio (a kernel of its own).

Each row's outcome over HTTP is checked for what a user would notice (`EXPECTED`); over the stdio paths it
must equal the HTTP outcome, so a row that differs between paths fails. Tasks get a test of their own on
every path (`test_every_path_runs_a_long_tool_as_a_task`): a long call made a task, polled to its result,
cancelled (the tool stops), a task's question answered, each era its way. The TypeScript SDK clients (v1
in 2025-11-25, v2 in 2026-07-28) run ``serve --stdio`` for progress, logging and elicitation, and must
see what the Python client sees over HTTP. One server per path and one client per path and era serve
the whole module (clients that need a kernel start in parallel).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import warnings
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx2
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from mcp_notebook.cli._bridge_upstream import DeclaringClient
from mcp_notebook.client._http import tls_context
from mcp_notebook.client._sdk_compat import TaskStatusWatch, send_unchecked
from tests.npm import CACHE, node_module
from tests.tasks_client import EXTENSION, CreatedTask, cancel_task, get_task, until_status, update_task

pytestmark = [pytest.mark.kernel, pytest.mark.anyio]

NOTEBOOK = Path(__file__).parents[1] / "servers" / "paths.ipynb"
TOKEN = "paths-test-token"
PATHS = ["http", "bridge", "stdio"]
ERAS = ["legacy", "auto"]  # "auto" finds 2026-07-28 on every path
WATCHED, MARKER = "notes://watched", "notes://marker"
ROOTS = [types.Root(uri="file:///projects/weather", name="weather")]
# What every client declares, exactly: elicitation in form mode only, sampling with tools, roots without
# listChanged (with callbacks alone the SDK declares form and url, and listChanged), and the 2026-07-28
# tasks extension (a 2025-11-25 client asks for each task itself).
DECLARED = {
    "elicitation": {"form": {}},
    "sampling": {"tools": {}},
    "roots": {},
    "extensions": {EXTENSION: {}},
}
WAIT = 30  # seconds a row waits for a notification before it fails


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"  # module-wide: the clients are made once for the module


# -- what a client has seen ----------------------------------------------------------------------------
@dataclass
class Seen:
    """What one client's callbacks received; rows read and reset it."""

    logs: list[dict[str, Any]] = field(default_factory=list)
    asked: list[dict[str, Any]] = field(default_factory=list)
    statuses: list[dict[str, Any]] = field(default_factory=list)  # 2025-11-25 notifications/tasks/status
    changes: Counter[str] = field(default_factory=Counter)  # "tools", or a resource URI
    changed: anyio.Event = field(default_factory=anyio.Event)

    def note(self) -> None:
        self.changed.set()
        self.changed = anyio.Event()

    async def until(self, condition: Callable[[], bool]) -> None:
        """Wait until `condition` holds (it is checked each time something arrives)."""
        with anyio.fail_after(WAIT):
            while True:
                changed = self.changed
                if condition():
                    return
                await changed.wait()

    async def on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.changes["tools"] += 1
        elif isinstance(message, types.ResourceUpdatedNotification):
            self.changes[str(message.params.uri)] += 1
        self.note()

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(dump(params))
        self.note()

    async def on_status(self, params: types.TaskStatusNotificationParams) -> None:
        self.statuses.append(dump(params))
        self.note()

    async def on_elicit(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append({"method": "elicitation/create", "params": dump(params)})
        return types.ElicitResult(action="accept", content={"name": "Ann"})

    async def on_sample(self, context: Any, params: types.CreateMessageRequestParams) -> Any:
        self.asked.append({"method": "sampling/createMessage", "params": dump(params)})
        text = types.TextContent(type="text", text="Rain in the north, sun in the south.")
        return types.CreateMessageResult(role="assistant", content=text, model="test-model")

    async def on_roots(self, context: Any) -> types.ListRootsResult:
        self.asked.append({"method": "roots/list"})
        return types.ListRootsResult(roots=ROOTS)


@dataclass
class Peer:
    path: str
    era: str
    client: Client
    seen: Seen


TRACE_CONTEXT = ("traceparent", "tracestate", "baggage")
"""W3C trace context in ``_meta`` (SEP-414): each hop's own span, so it differs by path when traces are on."""


def dump(model: Any) -> Any:
    """What a client was sent, less the trace context each hop stamps on it (see `TRACE_CONTEXT`)."""
    dumped = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    meta = dumped.get("_meta") if isinstance(dumped, dict) else None
    if isinstance(meta, dict):
        kept = {k: v for k, v in meta.items() if k not in TRACE_CONTEXT}
        if kept:
            dumped["_meta"] = kept
        else:
            del dumped["_meta"]
    return dumped


# -- the servers and clients of the module ------------------------------------------------------------
class HeadlessServer:
    """``mcp-notebook serve NB --port 0`` as a subprocess; its URL is the one line on its stdout."""

    def __init__(self, notebook: Path, stderr: Path) -> None:
        self._stderr = stderr.open("w")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mcp_notebook.cli",
                "serve",
                str(notebook),
                "--port",
                "0",
                "--approval",
                "auto",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            env=environment(),
        )
        lines: queue.Queue[str] = queue.Queue()
        assert self.process.stdout is not None
        stdout = self.process.stdout
        threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
        try:
            self.url = lines.get(timeout=180).strip()
        except queue.Empty:
            self.url = ""
        if not self.url.startswith("http://"):
            self.stop()
            raise AssertionError(f"no URL from serve:\n{stderr.read_text()}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=60)
        assert self.process.stdout is not None
        self.process.stdout.close()
        self._stderr.close()


def environment() -> dict[str, str]:
    """The token travels in the environment, never on a command line."""
    return {**os.environ, "MCP_NOTEBOOK_TOKEN": TOKEN}


def cli(*arguments: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "mcp_notebook.cli", *arguments], env=environment()
    )


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("paths")
    (work / NOTEBOOK.name).write_text(NOTEBOOK.read_text(encoding="utf-8"), encoding="utf-8")
    return work


@pytest.fixture(scope="module")
def http_server(folder: Path) -> Iterator[HeadlessServer]:
    server = HeadlessServer(folder / NOTEBOOK.name, folder / "serve.stderr")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
async def peers(http_server: HeadlessServer, folder: Path) -> AsyncIterator[dict[tuple[str, str], Peer]]:
    """A connected SDK client per path and era, each owned by a task of its own for the whole module."""
    notebook = str(folder / NOTEBOOK.name)

    async def transport(stack: contextlib.AsyncExitStack, path: str, era: str) -> Any:
        if path == "http":
            headers = {"Authorization": f"Bearer {TOKEN}"}
            timeout = httpx2.Timeout(30, read=300)
            http = await stack.enter_async_context(
                httpx2.AsyncClient(verify=tls_context(), headers=headers, timeout=timeout)
            )
            return streamable_http_client(http_server.url, http_client=http)
        errlog = stack.enter_context((folder / f"{path}-{era}.stderr").open("w"))
        if path == "bridge":
            return stdio_client(cli("bridge", http_server.url), errlog=errlog)
        return stdio_client(cli("serve", notebook, "--stdio", "--approval", "auto"), errlog=errlog)

    async def hold(path: str, era: str, *, task_status: anyio.abc.TaskStatus[Peer]) -> None:
        seen = Seen()
        async with (
            contextlib.AsyncExitStack() as stack,
            DeclaringClient(
                await transport(stack, path, era),
                mode=era,
                declared=types.ClientCapabilities.model_validate(DECLARED),
                cache=None,
                message_handler=seen.on_message,
                logging_callback=seen.on_log,
                elicitation_callback=seen.on_elicit,
                sampling_callback=seen.on_sample,
                list_roots_callback=seen.on_roots,
                extensions=[TaskStatusWatch(seen.on_status)],  # the SDK drops them otherwise
            ) as client,
        ):
            task_status.started(Peer(path, era, client, seen))
            await anyio.sleep_forever()

    found: dict[tuple[str, str], Peer] = {}
    async with anyio.create_task_group() as group:

        async def start(path: str, era: str) -> None:
            found[path, era] = await group.start(hold, path, era)

        with anyio.fail_after(240):
            async with anyio.create_task_group() as starting:
                for path in PATHS:
                    for era in ERAS:
                        starting.start_soon(start, path, era)
        yield found
        group.cancel_scope.cancel()


# -- the rows ------------------------------------------------------------------------------------------
async def outcome_of(call: Awaitable[Any]) -> dict[str, Any]:
    """A result as JSON, or the JSON-RPC error that came instead."""
    try:
        return {"result": dump(await call)}
    except MCPError as exc:
        return {"error": dump(exc.error)}


def quietly(call: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any) -> Awaitable[Any]:
    # logging/setLevel and resources/subscribe are the 2025-11-25 ways; the SDK deprecates them for 2026.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


class RawCall(types.Request[dict[str, Any], str]):
    """A tools/call whose params the SDK's own models would refuse to build."""

    method: str = "tools/call"


async def row_capabilities(peer: Peer) -> dict[str, Any]:
    client = peer.client
    return {
        "protocolVersion": client.protocol_version,
        "capabilities": dump(client.server_capabilities),
        "serverInfo": dump(client.server_info) if client.server_info is not None else None,
        "instructions": client.instructions,
    }


async def row_declared(peer: Peer) -> dict[str, Any]:
    """What the server sees of the capabilities the client declared."""
    return await outcome_of(peer.client.call_tool("declared", {}))


async def row_list(peer: Peer) -> dict[str, Any]:
    return await outcome_of(peer.client.list_tools())


async def row_call(peer: Peer) -> dict[str, Any]:
    return await outcome_of(peer.client.call_tool("add", {"a": 2, "b": 3}))


async def row_structured(peer: Peer) -> dict[str, Any]:
    return await outcome_of(peer.client.call_tool("forecast", {"city": "Seoul", "days": 3}))


async def row_error_result(peer: Peer) -> dict[str, Any]:
    return await outcome_of(peer.client.call_tool("fail", {"reason": "the sky fell"}))


async def row_unknown_tool(peer: Peer) -> dict[str, Any]:
    return await outcome_of(peer.client.call_tool("ad", {"a": 2, "b": 3}))


async def row_invalid_arguments(peer: Peer) -> dict[str, Any]:
    return await outcome_of(peer.client.call_tool("add", {"a": "two", "b": 3}))


async def row_malformed_params(peer: Peer) -> dict[str, Any]:
    bad = RawCall(params={"name": "add", "arguments": "a=2 b=3"})
    return await outcome_of(peer.client.session.send_request(bad, types.CallToolResult))


async def row_progress(peer: Peer) -> dict[str, Any]:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))
        peer.seen.note()

    outcome = await outcome_of(peer.client.call_tool("work", {"steps": 2}, progress_callback=on_progress))
    await peer.seen.until(lambda: len(progress) >= 2)  # progress may still be on its way to the callback
    return {**outcome, "progress": progress}


async def row_log(peer: Peer) -> dict[str, Any]:
    """Log lines at the level the client asked for (info): the tool's debug lines stay home."""
    peer.seen.logs.clear()
    if peer.era == "legacy":
        await quietly(peer.client.session.set_logging_level, "info")
        meta = None
    else:
        meta = {types.LOG_LEVEL_META_KEY: "info"}  # 2026-07-28: each request asks for its own
    outcome = await outcome_of(peer.client.call_tool("work", {"steps": 2}, meta=meta))
    # The warning is the tool's last line: once it is here, anything logged before it is too.
    await peer.seen.until(lambda: any(log["level"] == "warning" for log in peer.seen.logs))
    return {**outcome, "logs": list(peer.seen.logs)}


async def asking(peer: Peer, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    peer.seen.asked.clear()
    outcome = await outcome_of(peer.client.call_tool(tool, arguments))
    return {**outcome, "asked": list(peer.seen.asked)}


async def row_elicit(peer: Peer) -> dict[str, Any]:
    return await asking(peer, "ask_name", {})


async def row_sample(peer: Peer) -> dict[str, Any]:
    return await asking(peer, "summarise", {"text": "The weather of the week, region by region."})


async def row_roots(peer: Peer) -> dict[str, Any]:
    return await asking(peer, "folders", {})


async def touch(peer: Peer, uri: str) -> None:
    await peer.client.call_tool("touch", {"uri": uri})


async def flush(peer: Peer) -> None:
    """Touch the marker until its update arrives: whatever was sent to this client before it has arrived.

    Touched again while nothing comes: the first touch may beat the client's notification stream.
    """
    before = peer.seen.changes[MARKER]
    with anyio.fail_after(WAIT):
        while peer.seen.changes[MARKER] == before:
            await touch(peer, MARKER)
            with anyio.move_on_after(2):
                await peer.seen.until(lambda: peer.seen.changes[MARKER] > before)


@contextlib.asynccontextmanager
async def following(peer: Peer, *uris: str, tools: bool = False) -> AsyncIterator[None]:
    """Follow changes the era's way: resources/subscribe (2025-11-25), a listen stream (2026-07-28)."""
    client = peer.client
    if peer.era == "legacy":
        for uri in uris:
            await quietly(client.session.subscribe_resource, uri)
        try:
            yield
        finally:
            for uri in uris:
                await quietly(client.session.unsubscribe_resource, uri)
    else:
        async with client.listen(tools_list_changed=tools, resource_subscriptions=list(uris)):
            yield


async def row_subscribe(peer: Peer) -> dict[str, Any]:
    """Each update of a followed resource arrives once; after unfollowing, none does."""
    seen = peer.seen
    async with following(peer, WATCHED, MARKER):
        await flush(peer)
        seen.changes.clear()
        await touch(peer, WATCHED)
        await seen.until(lambda: seen.changes[WATCHED] >= 1)
        await flush(peer)  # a second copy, had one been sent, is here now
        while_followed = seen.changes[WATCHED]
    async with following(peer, MARKER):
        await touch(peer, WATCHED)
        await flush(peer)
        after = seen.changes[WATCHED] - while_followed
    return {"updates while subscribed": while_followed, "updates after unsubscribing": after}


async def row_list_changed(peer: Peer) -> dict[str, Any]:
    """Adding a tool and removing it: two notifications, each once, and the list each time."""
    seen, client = peer.seen, peer.client
    async with following(peer, MARKER, tools=True):
        await flush(peer)
        seen.changes.clear()
        await client.call_tool("grow", {})
        await seen.until(lambda: seen.changes["tools"] >= 1)
        grown = [tool.name for tool in (await client.list_tools()).tools]
        await client.call_tool("shrink", {})
        await seen.until(lambda: seen.changes["tools"] >= 2)
        shrunk = [tool.name for tool in (await client.list_tools()).tools]
        await flush(peer)
        notified = seen.changes["tools"]
    return {
        "extra after grow": "extra" in grown,
        "extra after shrink": "extra" in shrunk,
        "notified": notified,
    }


async def row_cancel(peer: Peer) -> dict[str, Any]:
    """The client cancels a call in flight (notifications/cancelled): the tool itself sees it."""
    tag = f"{peer.path}-{peer.era}"
    started = anyio.Event()

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        started.set()  # the tool reports once it runs

    async with anyio.create_task_group() as group:

        async def call() -> None:
            await peer.client.call_tool("slow", {"tag": tag}, progress_callback=on_progress)

        group.start_soon(call)
        with anyio.fail_after(WAIT):
            await started.wait()
        group.cancel_scope.cancel()
    cancelled = False
    with anyio.fail_after(WAIT):
        while not cancelled:  # the server learns of it a moment later: ask until it says so
            answer = await peer.client.call_tool("was_cancelled", {"tag": tag})
            cancelled = answer.structured_content == {"result": True}
    return {"tool saw the cancellation": cancelled}


ROWS: dict[str, Callable[[Peer], Awaitable[dict[str, Any]]]] = {
    "capabilities": row_capabilities,
    "declared capabilities": row_declared,
    "list": row_list,
    "call": row_call,
    "structured": row_structured,
    "error result": row_error_result,
    "unknown tool": row_unknown_tool,
    "invalid arguments": row_invalid_arguments,
    "malformed params": row_malformed_params,
    "progress": row_progress,
    "log": row_log,
    "elicit": row_elicit,
    "sample": row_sample,
    "roots": row_roots,
    "subscribe": row_subscribe,
    "list_changed": row_list_changed,
    "cancel": row_cancel,
}


def text_of(outcome: dict[str, Any]) -> str:
    return str(outcome["result"]["content"][0]["text"])


EXPECTED: dict[str, Callable[[dict[str, Any]], bool]] = {
    "capabilities": lambda o: (
        "logging" in o["capabilities"]
        and o["capabilities"]["tools"] == {"listChanged": True}
        and o["capabilities"]["resources"] == {"subscribe": True, "listChanged": True}
    ),
    "declared capabilities": lambda o: o["result"]["structuredContent"] == DECLARED,
    "list": lambda o: "add" in [tool["name"] for tool in o["result"]["tools"]],
    "call": lambda o: o["result"]["structuredContent"] == {"result": 5} and not o["result"]["isError"],
    "structured": lambda o: o["result"]["structuredContent"] == {"city": "Seoul", "days": 3, "sunny": True},
    "error result": lambda o: o["result"]["isError"] and "the sky fell" in text_of(o),
    "unknown tool": lambda o: o["error"]["code"] == types.INVALID_PARAMS and "'add'" in o["error"]["message"],
    "invalid arguments": lambda o: o["result"]["isError"] and "a" in text_of(o),
    "malformed params": lambda o: (
        o["error"]["code"] == types.INVALID_PARAMS and "params.arguments" in o["error"]["message"]
    ),
    "progress": lambda o: o["progress"] == [(1, 2, "step 1"), (2, 2, "step 2")],
    "log": lambda o: o["logs"] == [{"level": "warning", "logger": "work", "data": "done, with a warning"}],
    "elicit": lambda o: (
        text_of(o) == "hello Ann" and [a["method"] for a in o["asked"]] == ["elicitation/create"]
    ),
    "sample": lambda o: text_of(o) == "Rain in the north, sun in the south.",
    "roots": lambda o: o["result"]["structuredContent"] == {"result": [dump(root) for root in ROOTS]},
    "subscribe": lambda o: o == {"updates while subscribed": 1, "updates after unsubscribing": 0},
    "list_changed": lambda o: o == {"extra after grow": True, "extra after shrink": False, "notified": 2},
    "cancel": lambda o: o == {"tool saw the cancellation": True},
}


@pytest.fixture(scope="module")
def over_http(peers: dict[tuple[str, str], Peer]) -> Callable[[str, str], Awaitable[dict[str, Any]]]:
    """A row's outcome over direct HTTP, found once per row and era: what every other path must match."""
    found: dict[tuple[str, str], dict[str, Any]] = {}

    async def outcome(row: str, era: str) -> dict[str, Any]:
        if (row, era) not in found:
            found[row, era] = await ROWS[row](peers["http", era])
        return found[row, era]

    return outcome


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("row", list(ROWS))
async def test_every_path_gives_the_same_answer(
    row: str,
    path: str,
    era: str,
    peers: dict[tuple[str, str], Peer],
    over_http: Callable[[str, str], Awaitable[dict[str, Any]]],
) -> None:
    expected = await over_http(row, era)
    assert EXPECTED[row](expected), f"over HTTP ({era}), {row!r} gave {expected}"
    if path != "http":
        outcome = await ROWS[row](peers[path, era])
        assert outcome == expected, f"{row!r} over {path} ({era}) differs from HTTP"


# -- tasks -----------------------------------------------------------------------------------------------
RAW: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])
CREATED: TypeAdapter[CreatedTask | types.CallToolResult] = TypeAdapter(CreatedTask | types.CallToolResult)
# What differs from one run of a task to the next: its id aside, times and lifetimes.
VARYING = (
    "createdAt",
    "lastUpdatedAt",
    "ttl",
    "ttlMs",
    "pollInterval",
    "pollIntervalMs",
    types.SERVER_INFO_META_KEY,
    *TRACE_CONTEXT,
)


class TaskRequest(types.Request[dict[str, Any], str]):
    """A tasks/* request as a client of either era writes it."""

    method: str


class NamedTaskRequest(TaskRequest):
    """One that names its task in ``Mcp-Name`` (2026-07-28 requires it over HTTP)."""

    name_param = "taskId"


def steady(value: Any, task_ids: list[str]) -> Any:
    """`value` without what varies between runs: each task id becomes ``<task N>``; times, lifetimes and
    the serverInfo stamp (each hop's own) are dropped."""
    if isinstance(value, dict):
        kept = {k: steady(v, task_ids) for k, v in value.items() if k not in VARYING}
        return {k: v for k, v in kept.items() if not (k == "_meta" and v == {})}
    if isinstance(value, list):
        return [steady(v, task_ids) for v in value]
    if isinstance(value, str) and value in task_ids:
        return f"<task {task_ids.index(value)}>"
    return value


async def raw(peer: Peer, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A request of `peer`'s era as JSON: its result, or the JSON-RPC error that came instead."""
    kind = NamedTaskRequest if peer.era != "legacy" and "taskId" in params else TaskRequest
    try:
        return {"result": await peer.client.session.send_request(kind(method=method, params=params), RAW)}
    except MCPError as exc:
        return {"error": dump(exc.error)}


async def legacy_task(peer: Peer, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A task-augmented 2025-11-25 ``tools/call``: the SDK's client would refuse its ``{"task": ...}``."""
    params = types.CallToolRequestParams(name=tool, arguments=arguments, task=types.TaskMetadata())
    try:
        return {"result": await send_unchecked(peer.client.session, types.CallToolRequest(params=params))}
    except MCPError as exc:
        return {"error": dump(exc.error)}


async def until_running(peer: Peer, task_id: str) -> None:
    """Poll until the task's status says the tool reported progress (it runs)."""
    with anyio.fail_after(WAIT):
        while True:
            task = (await raw(peer, "tasks/get", {"taskId": task_id}))["result"]
            if "churning" in (task.get("statusMessage") or ""):
                return
            await anyio.sleep(0.05)  # this client's poll interval, not a synchronisation


async def stopped(peer: Peer, tag: str) -> bool:
    """Whether the tool saw its cancellation (it says so once it stopped; asked until it does)."""
    with anyio.fail_after(WAIT):
        while True:
            answer = await peer.client.call_tool("was_cancelled", {"tag": tag})
            if answer.structured_content == {"result": True}:
                return True
            await anyio.sleep(0.05)  # asked again until the tool says so, within the deadline


async def legacy_story(peer: Peer) -> dict[str, Any]:
    """2025-11-25: each call asks for a task, follows it with tasks/get, tasks/result and tasks/list."""
    seen, tag = peer.seen, f"task-{peer.path}-{peer.era}"
    ids: list[str] = []
    story: dict[str, Any] = {}
    seen.statuses.clear()
    created = await legacy_task(peer, "brew", {"seconds": 1})
    ids.append(created["result"]["task"]["taskId"])
    story["created"] = created
    story["polled"] = await raw(peer, "tasks/get", {"taskId": ids[0]})
    story["result"] = await raw(peer, "tasks/result", {"taskId": ids[0]})
    story["listed"] = ids[0] in [
        task["taskId"] for task in (await raw(peer, "tasks/list", {}))["result"]["tasks"]
    ]
    await seen.until(lambda: any(s["taskId"] == ids[0] and s["status"] == "completed" for s in seen.statuses))
    story["told"] = [s["status"] for s in seen.statuses if s["taskId"] == ids[0]]

    churning = await legacy_task(peer, "churn", {"tag": tag})
    ids.append(churning["result"]["task"]["taskId"])
    await until_running(peer, ids[1])
    story["cancelled"] = await raw(peer, "tasks/cancel", {"taskId": ids[1]})
    story["after cancel"] = (await raw(peer, "tasks/get", {"taskId": ids[1]}))["result"]["status"]
    story["tool stopped"] = await stopped(peer, tag)
    story["cancel again"] = await raw(peer, "tasks/cancel", {"taskId": ids[1]})

    seen.asked.clear()
    asking = await legacy_task(peer, "ask_name_later", {})
    ids.append(asking["result"]["task"]["taskId"])
    story["answered"] = await raw(peer, "tasks/result", {"taskId": ids[2]})  # asks its question on the way
    story["asked"] = list(seen.asked)

    story["unknown task"] = await raw(peer, "tasks/get", {"taskId": "no-such-task"})
    story["task of a never tool"] = await legacy_task(peer, "add", {"a": 1, "b": 2})
    story["plain call of a required tool"] = await outcome_of(peer.client.call_tool("only_as_task", {}))
    story["tasks/update"] = await raw(peer, "tasks/update", {"taskId": ids[0], "inputResponses": {}})
    return steady(story, ids)


async def modern_story(peer: Peer) -> dict[str, Any]:
    """2026-07-28: a long call of a client that declares the extension is a task: tasks/get, tasks/update,
    tasks/cancel."""
    session, tag = peer.client.session, f"task-{peer.path}-{peer.era}"
    ids: list[str] = []
    story: dict[str, Any] = {}

    async def call(tool: str, arguments: dict[str, Any]) -> CreatedTask:
        made = await session.send_request(types.CallToolRequest(params=types.CallToolRequestParams(
            name=tool, arguments=arguments)), CREATED)  # fmt: skip
        assert isinstance(made, CreatedTask), f"{tool} was not made a task: {made}"
        ids.append(made.task_id)
        return made

    created = await call("brew", {"seconds": 1})
    story["created"] = created.status
    done = await until_status(session, created.task_id, timeout=WAIT)
    story["polled"] = steady(dump(done), ids)

    churning = await call("churn", {"tag": tag})
    await until_running(peer, churning.task_id)
    story["cancelled"] = steady(dump(await cancel_task(session, churning.task_id)), ids)
    story["after cancel"] = (await get_task(session, churning.task_id)).status
    story["tool stopped"] = await stopped(peer, tag)

    asking = await call("ask_name_later", {})
    waiting = await until_status(session, asking.task_id, "input_required", timeout=WAIT)
    story["asked"] = waiting.input_requests
    assert waiting.input_requests is not None
    answers = {key: {"action": "accept", "content": {"name": "Ann"}} for key in waiting.input_requests}
    story["update"] = steady(dump(await update_task(session, asking.task_id, answers)), ids)
    story["answered"] = steady(dump(await until_status(session, asking.task_id, timeout=WAIT)), ids)

    required = await call("only_as_task", {})
    story["required"] = (await until_status(session, required.task_id, timeout=WAIT)).result
    story["unknown task"] = await raw(peer, "tasks/get", {"taskId": "no-such-task"})
    story["tasks/list"] = await raw(peer, "tasks/list", {})
    story["tasks/result"] = await raw(peer, "tasks/result", {"taskId": ids[0]})
    return steady(story, ids)


def task_text(outcome: dict[str, Any]) -> str:
    return str(outcome["result"]["content"][0]["text"])


@pytest.fixture(scope="module")
def tasks_over_http(peers: dict[tuple[str, str], Peer]) -> Callable[[str], Awaitable[dict[str, Any]]]:
    """Each era's task story over direct HTTP, told once: what every other path must match."""
    found: dict[str, dict[str, Any]] = {}

    async def story(era: str) -> dict[str, Any]:
        if era not in found:
            peer = peers["http", era]
            found[era] = await (legacy_story(peer) if era == "legacy" else modern_story(peer))
        return found[era]

    return story


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("path", PATHS)
async def test_every_path_runs_a_long_tool_as_a_task(
    path: str,
    era: str,
    peers: dict[tuple[str, str], Peer],
    tasks_over_http: Callable[[str], Awaitable[dict[str, Any]]],
) -> None:
    expected = await tasks_over_http(era)
    if era == "legacy":
        assert expected["created"]["result"]["task"]["status"] == "working"
        assert expected["polled"]["result"]["taskId"] == "<task 0>"
        assert task_text(expected["result"]) == "brewed for 1 s"
        assert expected["listed"] and expected["told"][-1] == "completed"
        assert expected["cancelled"]["result"]["status"] == expected["after cancel"] == "cancelled"
        assert expected["tool stopped"] and expected["cancel again"]["error"]["code"] == types.INVALID_PARAMS
        assert task_text(expected["answered"]) == "hello Ann"
        assert [asked["method"] for asked in expected["asked"]] == ["elicitation/create"]
        assert expected["unknown task"]["error"]["code"] == types.INVALID_PARAMS
        assert expected["task of a never tool"]["error"]["code"] == types.METHOD_NOT_FOUND
        assert expected["plain call of a required tool"]["error"]["code"] == types.METHOD_NOT_FOUND
        assert expected["tasks/update"]["error"]["code"] == types.METHOD_NOT_FOUND
    else:
        assert expected["created"] == "working"
        assert expected["polled"]["status"] == "completed"
        assert expected["polled"]["result"]["content"][0]["text"] == "brewed for 1 s"
        assert expected["cancelled"] == {"resultType": "complete"} and expected["after cancel"] == "cancelled"
        assert expected["tool stopped"]
        assert [question["method"] for question in expected["asked"].values()] == ["elicitation/create"]
        assert expected["answered"]["result"]["content"][0]["text"] == "hello Ann"
        assert expected["required"]["content"][0]["text"] == "done as a task"
        assert expected["unknown task"]["error"]["code"] == types.INVALID_PARAMS
        assert expected["tasks/list"]["error"]["code"] == types.METHOD_NOT_FOUND
        assert expected["tasks/result"]["error"]["code"] == types.METHOD_NOT_FOUND
    if path != "http":
        peer = peers[path, era]
        outcome = await (legacy_story(peer) if era == "legacy" else modern_story(peer))
        assert outcome == expected, f"tasks over {path} ({era}) differ from HTTP"


# -- the TypeScript SDK clients ------------------------------------------------------------------------
TS_SDKS = {
    # v1 (the latest 1.x) speaks 2025-11-25; v2's client package speaks 2026-07-28 when pinned to it.
    "v1": (("@modelcontextprotocol/sdk", "1.32.2"), "legacy"),
    "v2": (("@modelcontextprotocol/client", "2.3.1"), "auto"),
}


def features(
    work: dict[str, Any], named: dict[str, Any], progress: Any, logs: Any, asked: Any
) -> dict[str, Any]:
    """What a person would notice of progress, logging and elicitation, in one shape for both languages."""
    return {
        "work": work["content"],
        "progress": [[p["progress"], p.get("total"), p.get("message")] for p in progress],
        "logs": logs,
        "named": named["content"],
        "asked": [{"method": a["method"], "message": a["params"]["message"]} for a in asked],
    }


@pytest.mark.parametrize("sdk", list(TS_SDKS))
async def test_typescript_clients_see_on_stdio_what_python_sees_over_http(
    sdk: str, folder: Path, over_http: Callable[[str, str], Awaitable[dict[str, Any]]]
) -> None:
    package, era = TS_SDKS[sdk]
    node, _ = node_module(*package)
    # The client script imports the SDK by name: give it the cache's node_modules as its own.
    script_folder = folder / f"ts-{sdk}"
    script_folder.mkdir(exist_ok=True)
    (script_folder / "client.mjs").write_text((Path(__file__).parents[1] / "ts_paths_client.mjs").read_text())
    with contextlib.suppress(FileExistsError):
        (script_folder / "node_modules").symlink_to(CACHE / "node_modules", target_is_directory=True)
    command = [sys.executable, "-m", "mcp_notebook.cli", "serve", str(folder / NOTEBOOK.name), "--stdio",
               "--approval", "auto"]  # fmt: skip
    done = await anyio.run_process(
        [str(node), str(script_folder / "client.mjs"), sdk, *command],
        env={k: v for k, v in os.environ.items() if k != "MCP_NOTEBOOK_TOKEN"},
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    seen = json.loads(done.stdout.decode().strip().splitlines()[-1])
    progress, log, elicit = [await over_http(row, era) for row in ("progress", "log", "elicit")]
    python = features(
        progress["result"],
        elicit["result"],
        [{"progress": p, "total": t, "message": m} for p, t, m in progress["progress"]],
        log["logs"],
        elicit["asked"],
    )
    assert log["result"]["content"] == progress["result"]["content"]  # the same call, with and without logs
    if sdk == "v2":
        assert seen["protocolVersion"] == "2026-07-28"
    assert features(seen["work"], seen["named"], seen["progress"], seen["logs"], seen["asked"]) == python
