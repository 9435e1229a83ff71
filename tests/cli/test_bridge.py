"""`mcp-notebook bridge URL`: a real stdio subprocess, driven by the SDK's stdio client, against a real server."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import warnings
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.memory import create_client_server_memory_streams

from mcp_notebook import Catalogue, Context, prompt, publish, resource, tool
from mcp_notebook.cli._bridge import Bridge
from mcp_notebook.cli._bridge_held import HOLD_FOR
from mcp_notebook.cli._bridge_upstream import IDLE_CONNECTIONS, DeclaringClient
from mcp_notebook.client._http import tls_context
from tests.conftest import ERAS, INITIALIZE, Mode, connect
from tests.tasks_client import EXTENSION, TasksExtension

pytestmark = pytest.mark.anyio


def define(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @resource("notes://today", catalogue=catalogue)
    def today() -> str:
        """What happened today."""
        return "Sold 3 umbrellas."

    @resource("data://sales/{region}", completers={"region": ["north", "south"]}, catalogue=catalogue)
    def sales(region: str) -> dict[str, Any]:
        """Sales of one region."""
        return {"region": region, "total": 10}

    @prompt(catalogue=catalogue)
    def review(code: str) -> str:
        """Ask for a code review."""
        return f"Review this code:\n{code}"


def bridge_command(url: str) -> list[str]:
    return [sys.executable, "-m", "mcp_notebook.cli", "bridge", url]


def bridge_env(token: str | None) -> dict[str, str]:
    """The bridge's environment: the token in MCP_NOTEBOOK_TOKEN, as Claude Desktop's `env` hands it over."""
    env = {key: value for key, value in os.environ.items() if key != "MCP_NOTEBOOK_TOKEN"}
    return {**env, "MCP_NOTEBOOK_TOKEN": token} if token else env


@contextlib.asynccontextmanager
async def through_bridge(
    srv: Any, mode: Mode, tmp_path: Path, token: str | None = None, **kwargs: Any
) -> AsyncIterator[Client]:
    """The SDK's stdio client, on a bridge process started the way Claude Desktop starts it.

    `token`: the one the bridge is given (default: the server's). `declared` among `kwargs`: the
    capabilities it declares, exactly (see `DeclaringClient`).
    """
    command, *args = bridge_command(srv.url)
    params = StdioServerParameters(
        command=command, args=args, cwd=str(tmp_path), env=bridge_env(token or srv.token)
    )
    with (tmp_path / "bridge.stderr").open("w") as errlog:
        async with DeclaringClient(stdio_client(params, errlog=errlog), mode=mode, **kwargs) as client:
            yield client


@pytest.mark.parametrize("mode", ERAS)
async def test_tools_are_listed_and_called_through_the_bridge(
    server: Any, catalogue: Catalogue, mode: Mode, tmp_path: Path
) -> None:
    define(catalogue)
    with anyio.fail_after(60):
        async with through_bridge(server, mode, tmp_path) as client:
            assert client.server_info is not None and client.server_info.name == "mcp-notebook"
            tools = (await client.list_tools()).tools
            result = await client.call_tool("add", {"a": 2, "b": 3})
            invalid = await client.call_tool("add", {"a": "two", "b": 3})
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("ad", {"a": 1, "b": 2})
    assert [t.name for t in tools] == ["add"] and tools[0].description == "Add two integers."
    assert result.structured_content == {"result": 5} and not result.is_error
    assert invalid.is_error  # a tool execution error stays a result
    assert unknown.value.code == types.INVALID_PARAMS and "'add'" in unknown.value.error.message
    # The notebook's activity log and approval prompts name the caller by its token (here the server
    # token: the owner), and show what the bridge says it is as a claim.
    assert server.calls[-1].client == "owner" and server.calls[-1].claimed == "mcp-notebook-bridge"


async def test_the_bridge_speaks_with_a_clients_own_token(
    server: Any, catalogue: Catalogue, tmp_path: Path
) -> None:
    define(catalogue)
    token = json.loads(server.client_config("claude-desktop"))["mcpServers"]["notebook"]["env"][
        "MCP_NOTEBOOK_TOKEN"
    ]
    assert token == server.add_client("claude-desktop")  # the configuration carries the client's own token
    with anyio.fail_after(60):
        async with through_bridge(server, "auto", tmp_path, token=token) as client:
            await client.call_tool("add", {"a": 1, "b": 2})
    assert server.calls[-1].client == "claude-desktop"


@pytest.mark.parametrize("mode", ERAS)
async def test_resources_prompts_and_completion_through_the_bridge(
    server: Any, catalogue: Catalogue, mode: Mode, tmp_path: Path
) -> None:
    define(catalogue)
    with anyio.fail_after(60):
        async with through_bridge(server, mode, tmp_path) as client:
            resources = (await client.list_resources()).resources
            templates = (await client.list_resource_templates()).resource_templates
            today = await client.read_resource("notes://today")
            north = await client.read_resource("data://sales/north")
            prompts = (await client.list_prompts()).prompts
            review = await client.get_prompt("review", {"code": "x = 1"})
            ref = types.ResourceTemplateReference(type="ref/resource", uri="data://sales/{region}")
            completion = await client.complete(ref, {"name": "region", "value": "n"})
            with pytest.raises(MCPError) as missing:
                await client.read_resource("notes://nowhere")
    assert [str(r.uri) for r in resources] == ["notes://today"]
    assert [t.uri_template for t in templates] == ["data://sales/{region}"]
    assert today.contents[0].text == "Sold 3 umbrellas."  # type: ignore[union-attr]
    assert '"total": 10' in north.contents[0].text  # type: ignore[union-attr]
    assert [p.name for p in prompts] == ["review"]
    assert review.messages[0].content.text == "Review this code:\nx = 1"  # type: ignore[union-attr]
    assert completion.completion.values == ["north"]
    # "Resource not found" is -32002 in 2025-11-25 and -32602 in 2026-07-28: each client gets its own era's.
    assert missing.value.code == (-32002 if mode == "legacy" else types.INVALID_PARAMS)


async def test_tool_list_changed_reaches_a_handshake_era_stdio_client(
    server: Any, catalogue: Catalogue, tmp_path: Path
) -> None:
    define(catalogue)
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    with anyio.fail_after(60):
        async with through_bridge(server, "legacy", tmp_path, message_handler=on_message) as client:
            assert (
                client.server_capabilities.tools is not None and client.server_capabilities.tools.list_changed
            )
            define_mul(catalogue)  # the cell defining a new tool runs
            await changed.wait()
            names = [t.name for t in (await client.list_tools()).tools]
    assert names == ["add", "mul"]


async def test_tool_list_changed_reaches_a_2026_stdio_client_on_its_listen_stream(
    server: Any, catalogue: Catalogue, tmp_path: Path
) -> None:
    define(catalogue)
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    with anyio.fail_after(60):
        async with through_bridge(server, "auto", tmp_path, message_handler=on_message) as client:
            assert client.protocol_version == "2026-07-28"
            async with client.listen(tools_list_changed=True) as subscription:
                define_mul(catalogue)
                event = await subscription.__anext__()
                await changed.wait()  # the same notification, as the message handler sees it
            names = [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]
    assert type(event).__name__ == "ToolsListChanged"
    assert names == ["add", "mul"]


def define_mul(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    def mul(a: int, b: int) -> int:
        """Multiply two integers."""
        return a * b


@pytest.mark.parametrize("mode", ERAS)
async def test_resource_updates_reach_subscribers_of_both_eras(
    server: Any, catalogue: Catalogue, mode: Mode, tmp_path: Path
) -> None:
    publish("v1", "notes://live", name="live", catalogue=catalogue)
    updated = anyio.Event()

    async def on_message(message: Any) -> None:
        if (
            isinstance(message, types.ResourceUpdatedNotification)
            and str(message.params.uri) == "notes://live"
        ):
            updated.set()

    with anyio.fail_after(60):
        async with through_bridge(server, mode, tmp_path, message_handler=on_message) as client:
            async with contextlib.AsyncExitStack() as stack:
                if mode == "legacy":
                    with warnings.catch_warnings():
                        warnings.simplefilter(
                            "ignore"
                        )  # resources/subscribe is deprecated for 2026 clients only
                        await client.subscribe_resource("notes://live")
                else:
                    await stack.enter_async_context(client.listen(resource_subscriptions=["notes://live"]))
                publish("v2", "notes://live", name="live", catalogue=catalogue)  # the cell runs again
                await updated.wait()
            text = (await client.read_resource("notes://live", cache_mode="refresh")).contents[0].text  # type: ignore[union-attr]
    assert text == "v2"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def run_bridge_process(url: str, token: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        bridge_command(url),
        env=bridge_env(token),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_bridge_to_nothing_exits_1_saying_nothing_listens() -> None:
    done = run_bridge_process(f"http://127.0.0.1:{free_port()}/mcp", "t")
    assert done.returncode == 1
    assert "Nothing is listening" in done.stderr and done.stdout == ""


def test_bridge_with_a_wrong_token_exits_1_saying_401(server: Any) -> None:
    done = run_bridge_process(server.url, "not-the-token")
    assert done.returncode == 1
    assert "HTTP 401" in done.stderr and "srv.token" in done.stderr and done.stdout == ""


def test_bridge_ends_cleanly_when_the_stdio_client_goes_away(server: Any) -> None:
    done = run_bridge_process(server.url, server.token)  # stdin is empty: the client left at once
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize("mode", ERAS)
async def test_a_handshake_era_upstream_is_bridged_to_both_eras(
    server: Any, catalogue: Catalogue, mode: Mode
) -> None:
    """The notebook server speaks 2026-07-28, but a bridge to an older server must work too (in-process here)."""
    define(catalogue)
    publish("v1", "notes://live", name="live", catalogue=catalogue)
    bridge = Bridge(server.url, server.token)
    seen: dict[str, anyio.Event] = {"tools": anyio.Event(), "resource": anyio.Event()}

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            seen["tools"].set()
        elif isinstance(message, types.ResourceUpdatedNotification):
            seen["resource"].set()

    with anyio.fail_after(60):
        async with (
            bridge.upstreams.open(mode="legacy") as upstream,
            anyio.create_task_group() as group,
        ):
            assert upstream.protocol_version == "2025-11-25"
            async with Client(bridge.build_server(group), mode=mode, message_handler=on_message) as client:
                assert (await client.call_tool("add", {"a": 2, "b": 3})).structured_content == {"result": 5}
                with pytest.raises(MCPError) as missing:
                    await client.read_resource("notes://nowhere")
                async with contextlib.AsyncExitStack() as stack:
                    if mode == "legacy":
                        with warnings.catch_warnings():
                            warnings.simplefilter(
                                "ignore"
                            )  # resources/subscribe is deprecated for 2026 clients only
                            await client.subscribe_resource("notes://live")
                    else:
                        await stack.enter_async_context(
                            client.listen(tools_list_changed=True, resource_subscriptions=["notes://live"])
                        )
                    define_mul(catalogue)
                    publish("v2", "notes://live", name="live", catalogue=catalogue)
                    await seen["tools"].wait()
                    await seen["resource"].wait()
            group.cancel_scope.cancel()
    assert missing.value.code == (-32002 if mode == "legacy" else types.INVALID_PARAMS)


def define_context_tools(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    def work(steps: int, ctx: Context) -> str:
        """Work in steps, reporting progress and logging."""
        for step in range(1, steps + 1):
            ctx.progress(step, total=steps, message=f"step {step}")
            ctx.log("debug", f"detail of step {step}")
        ctx.log("warning", "done, with a warning")
        return f"{steps} steps done"

    @tool(catalogue=catalogue)
    def plan(ctx: Context) -> str:
        """Ask the person, the model and the client's roots."""
        name = ctx.elicit("What is your name?", {"name": str})
        idea = ctx.sample("A day out?", max_tokens=20)
        roots = ctx.list_roots()
        return f"{name.get('name')}: {idea} in {roots[0]['name']}"


@contextlib.asynccontextmanager
async def over_a_pipe(server: Any) -> AsyncIterator[Any]:
    """A pipe to `server` in memory, framed as on stdio (one JSON-RPC connection)."""
    async with (
        create_client_server_memory_streams() as (client_streams, (read, write)),
        anyio.create_task_group() as group,
    ):
        group.start_soon(server.run, read, write, server.create_initialization_options())
        yield client_streams
        group.cancel_scope.cancel()


@pytest.mark.parametrize("upstream", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("mode", ERAS)
async def test_progress_logs_and_questions_cross_between_any_two_eras(
    server: Any, catalogue: Catalogue, upstream: str, mode: Mode
) -> None:
    """Whichever era each side speaks: progress, log lines at the asked level, and questions of every kind.

    A 2025-11-25 server asks in the middle of its request, which a 2026-07-28 stdio client cannot be
    asked: the bridge holds that request while the client answers in rounds.
    """
    define_context_tools(catalogue)
    bridge = Bridge(server.url, server.token)
    progress: list[tuple[float, float | None, str | None]] = []
    logs: list[tuple[str, Any]] = []
    asked: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append((params.level, params.data))

    async def on_elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append("elicitation")
        return types.ElicitResult(action="accept", content={"name": "Ann"})

    async def on_sample(context: Any, params: Any) -> types.CreateMessageResult:
        asked.append("sampling")
        text = types.TextContent(type="text", text="a walk")
        return types.CreateMessageResult(role="assistant", content=text, model="test-model")

    async def on_roots(context: Any) -> types.ListRootsResult:
        asked.append("roots")
        return types.ListRootsResult(roots=[types.Root(uri="file:///projects/park", name="park")])

    with anyio.fail_after(60):
        async with bridge.upstreams.open(mode=upstream), anyio.create_task_group() as group:
            async with Client(
                over_a_pipe(bridge.build_server(group)),
                mode=mode,
                logging_callback=on_log,
                log_level=None if mode == "legacy" else "info",  # 2026-07-28: each request asks
                elicitation_callback=on_elicit,
                sampling_callback=on_sample,
                list_roots_callback=on_roots,
            ) as client:
                if mode == "legacy":
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # deprecated for 2026 clients only
                        await client.session.set_logging_level("info")
                worked = await client.call_tool("work", {"steps": 2}, progress_callback=on_progress)
                planned = await client.call_tool("plan", {})
                assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
            group.cancel_scope.cancel()
    assert worked.content[0].text == "2 steps done"  # type: ignore[union-attr]
    assert planned.content[0].text == "Ann: a walk in park"  # type: ignore[union-attr]
    assert progress == [(1, 2, "step 1"), (2, 2, "step 2")]
    assert logs == [("warning", "done, with a warning")]
    # A 2026-07-28 server runs the tool again for each round of answers, asking what is still open.
    assert asked == ["elicitation", "sampling", "roots"]
    # Each side really spoke its era: the server's record of the last call says which it was.
    assert server.calls[-1].protocol_version == ("2025-11-25" if upstream == "legacy" else "2026-07-28")


def define_task_tools(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, read_only=True, task="optional")
    def brew(seconds: float, ctx: Context) -> str:
        """Brew for `seconds` (a task for clients that support tasks)."""
        ctx.sleep(seconds)
        return f"brewed for {seconds:g} s"

    @tool(catalogue=catalogue, read_only=True, task="required")
    def only_as_task(ctx: Context) -> str:
        """Runs only as a task."""
        ctx.sleep(0.6)
        return "done as a task"


class TaskGet(types.Request[dict[str, Any], str]):
    method: str = "tasks/get"
    name_param = "taskId"


async def outcome(call: Any) -> dict[str, Any]:
    try:
        result = await call
        return {"result": result.model_dump(by_alias=True, mode="json", exclude_none=True, exclude={"meta"})}
    except MCPError as exc:
        return {"error": exc.error.model_dump(by_alias=True, mode="json", exclude_none=True)}


@pytest.mark.parametrize("upstream", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("mode", ERAS)
async def test_a_bridge_offers_tasks_only_in_the_era_it_can_relay_them_in(
    server: Any, catalogue: Catalogue, upstream: str, mode: Mode
) -> None:
    """Each era's tasks are relayed in that era: a bridge that speaks the other era upstream does not offer
    them (no capabilities.tasks, no extension in server/discover, -32601 for tasks/*), and its client's
    calls are plain calls."""
    define_task_tools(catalogue)
    bridge = Bridge(server.url, server.token)
    relayed = (mode == "legacy") == (upstream == "legacy")
    with anyio.fail_after(60):
        async with bridge.upstreams.open(mode=upstream), anyio.create_task_group() as group:
            # A client of either era that supports tasks (2025-11-25 ones ask per call; this one does not).
            async with Client(
                over_a_pipe(bridge.build_server(group)), mode=mode, extensions=[TasksExtension()]
            ) as client:
                capabilities = client.server_capabilities
                assert capabilities is not None
                offered = capabilities.tasks is not None or EXTENSION in (capabilities.extensions or {})
                brewed = await client.call_tool("brew", {"seconds": 0.8})  # a task the client polls, or plain
                polled = await outcome(
                    client.session.send_request(TaskGet(params={"taskId": "x"}), types.EmptyResult)
                )
            group.cancel_scope.cancel()
    assert offered == relayed
    assert brewed.content[0].text == "brewed for 0.8 s"  # type: ignore[union-attr]
    if relayed:
        assert polled["error"]["code"] == types.INVALID_PARAMS and "'x'" in polled["error"]["message"]
    else:
        assert polled["error"]["code"] == types.METHOD_NOT_FOUND


@pytest.mark.parametrize("mode", ERAS)
async def test_a_stdio_client_without_tasks_gets_plain_calls_and_the_errors_http_gives(
    server: Any, catalogue: Catalogue, mode: Mode, tmp_path: Path
) -> None:
    """A client that does not support tasks calls an optional tool plainly and is refused a required one,
    exactly as over HTTP (2026-07-28: -32021 naming the extension it must declare, also for tasks/get)."""
    define_task_tools(catalogue)
    seen: dict[str, list[dict[str, Any]]] = {}
    with anyio.fail_after(90):
        async with connect(server, mode) as http:
            seen["http"] = [
                await outcome(http.call_tool("brew", {"seconds": 0.8})),
                await outcome(http.call_tool("only_as_task", {})),
                await outcome(http.session.send_request(TaskGet(params={"taskId": "x"}), types.EmptyResult)),
            ]
        async with through_bridge(server, mode, tmp_path, declared=types.ClientCapabilities()) as stdio:
            seen["bridge"] = [
                await outcome(stdio.call_tool("brew", {"seconds": 0.8})),
                await outcome(stdio.call_tool("only_as_task", {})),
                await outcome(stdio.session.send_request(TaskGet(params={"taskId": "x"}), types.EmptyResult)),
            ]
    plain, required, polled = seen["http"]
    assert plain["result"]["content"][0]["text"] == "brewed for 0.8 s"
    if mode == "legacy":
        assert required["error"]["code"] == types.METHOD_NOT_FOUND  # a 2025-11-25 client asks per call
        assert polled["error"]["code"] == types.INVALID_PARAMS  # tasks/* need no declaration in this era
    else:
        assert required["error"]["code"] == polled["error"]["code"] == -32021
        assert required["error"]["data"] == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
    assert seen["bridge"] == seen["http"]


BAD_LINES = [
    '[{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]',  # a batch
    '"tools/list"',  # a bare value
    '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add", "arguments": "a=2"}}',
]


def test_bad_lines_on_stdio_get_the_answers_the_http_server_gives(server: Any, catalogue: Catalogue) -> None:
    """Nothing sent to the bridge goes unanswered: the errors say, as over HTTP, what to send instead."""

    define(catalogue)
    headers = {"Authorization": f"Bearer {server.token}", "Accept": "application/json, text/event-stream"}
    with httpx2.Client(verify=tls_context(), headers=headers) as http:
        session = http.post(server.url, json=INITIALIZE).headers["mcp-session-id"]
        over_http = [
            http.post(
                server.url,
                content=line,
                headers={
                    "Mcp-Session-Id": session,
                    "MCP-Protocol-Version": "2025-11-25",
                    "Content-Type": "application/json",
                },
            ).json()["error"]
            for line in BAD_LINES
        ]
    lines = [json.dumps(INITIALIZE), *BAD_LINES, '{"jsonrpc": "2.0", "id": 4}', "{not json"]
    done = subprocess.run(
        bridge_command(server.url),
        input="\n".join(lines) + "\n",
        env=bridge_env(server.token),
        capture_output=True,
        text=True,
        timeout=60,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    # Answers to requests (with ids) may come in any order; the lines the bridge answers itself (no id)
    # come in the order they were sent.
    by_id = {answer["id"]: answer for answer in answers if answer["id"] is not None}
    unnamed = [answer for answer in answers if answer["id"] is None]
    assert len(answers) == 6 and sorted(by_id) == [1, 3, 4] and "result" in by_id[1]
    assert [unnamed[0]["error"], unnamed[1]["error"], by_id[3]["error"]] == over_http
    assert by_id[4]["error"]["code"] == -32600 and "'jsonrpc', 'id'" in by_id[4]["error"]["message"]
    assert unnamed[2]["error"]["code"] == -32700


# -- what the stdio client declared is what the server sees ---------------------------------------------
DECLARED = [
    {"elicitation": {"form": {}}},
    {"elicitation": {}},  # 2025-11-25 and later: an empty object means form mode only
    {"elicitation": {"url": {}}},
    {"roots": {}},  # no listChanged
    {
        "sampling": {"tools": {}, "context": {}},
        "roots": {"listChanged": True},
        "elicitation": {"form": {}, "url": {}},
    },
]


def define_declared(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    def declared(ctx: Context) -> dict[str, Any]:
        """The capabilities the client declared, as the server sees them."""
        return ctx.client_capabilities


@contextlib.asynccontextmanager
async def over_http(srv: Any, mode: Mode, **kwargs: Any) -> AsyncIterator[Client]:
    """A real SDK client over Streamable HTTP; `declared` among `kwargs` as in `through_bridge`."""
    headers = {"Authorization": f"Bearer {srv.token}"}
    async with (
        httpx2.AsyncClient(
            verify=tls_context(), headers=headers, timeout=httpx2.Timeout(30, read=300)
        ) as http,
        DeclaringClient(streamable_http_client(srv.url, http_client=http), mode=mode, **kwargs) as client,
    ):
        yield client


@pytest.mark.parametrize("declared", DECLARED, ids=lambda d: json.dumps(d, sort_keys=True))
@pytest.mark.parametrize("mode", ERAS)
async def test_the_server_sees_the_capabilities_the_stdio_client_declared(
    server: Any, catalogue: Catalogue, mode: Mode, declared: dict[str, Any], tmp_path: Path
) -> None:
    """Elicitation modes, sampling sub-capabilities and roots.listChanged arrive as declared, as over HTTP."""
    define_declared(catalogue)
    exactly = types.ClientCapabilities.model_validate(declared)
    with anyio.fail_after(60):
        async with over_http(server, mode, declared=exactly) as client:
            direct = (await client.call_tool("declared", {})).structured_content
        async with through_bridge(server, mode, tmp_path, declared=exactly) as client:
            bridged = (await client.call_tool("declared", {})).structured_content
    assert direct == declared
    assert bridged == direct


# -- held calls: a 2026-07-28 stdio client in front of a 2025-11-25 server --------------------------------
def define_greet(catalogue: Catalogue, seen: dict[str, set[str]]) -> None:
    @tool(catalogue=catalogue)
    async def greet(tag: str, wait: str, ctx: Context) -> str:
        """Ask for a name and greet; `wait` "before" or "after" the question: wait there until cancelled."""
        try:
            seen["started"].add(tag)
            if wait == "before":
                await anyio.Event().wait()  # nothing sets it: only a cancellation ends the call
            answer = await ctx.aelicit("What is your name?", {"name": str})
            seen["answered"].add(tag)
            if wait == "after":
                await anyio.Event().wait()
            return f"hello {answer.get('name')}"
        except anyio.get_cancelled_exc_class():
            seen["cancelled"].add(tag)
            raise


async def until_true(condition: Callable[[], bool], timeout: float = 30) -> None:
    """Poll `condition` until it holds, failing after `timeout` seconds (a deadline, not a sleep)."""
    with anyio.fail_after(timeout):
        while not condition():
            await anyio.sleep(0.01)


@contextlib.asynccontextmanager
async def held_bridge(server: Any, hold_for: float = HOLD_FOR) -> AsyncIterator[tuple[Bridge, Any]]:
    """An in-process bridge that speaks 2025-11-25 upstream, and its stdio-facing server."""
    bridge = Bridge(server.url, server.token, hold_for=hold_for)
    async with bridge.upstreams.open(mode="legacy"), anyio.create_task_group() as group:
        yield bridge, bridge.build_server(group)
        group.cancel_scope.cancel()


def named(name: str) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": name})


async def elicited(context: Any, params: Any) -> types.ElicitResult:
    return named("Ann")


async def test_a_held_question_left_unanswered_is_given_up_after_the_limit(
    server: Any, catalogue: Catalogue
) -> None:
    """A 2026-07-28 client that never answers says nothing: after the limit the bridge gives the call up,
    cancels it upstream and keeps nothing running; an answer that comes later gets a clear error."""
    seen: dict[str, set[str]] = {"started": set(), "answered": set(), "cancelled": set()}
    define_greet(catalogue, seen)
    with anyio.fail_after(60):
        async with (
            held_bridge(server, hold_for=0.5) as (bridge, stdio),
            Client(over_a_pipe(stdio), mode="auto", elicitation_callback=elicited) as client,
        ):
            assert client.protocol_version == "2026-07-28"
            arguments = {"tag": "unanswered", "wait": ""}
            first = await client.session.call_tool("greet", arguments, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult) and first.request_state is not None
            assert first.input_requests is not None
            assert [request.method for request in first.input_requests.values()] == ["elicitation/create"]
            assert len(bridge.held) == 1  # the upstream request, open in a task of its own
            await until_true(lambda: len(bridge.held) == 0)
            await until_true(lambda: "unanswered" in seen["cancelled"])  # the tool saw the call end
            with pytest.raises(MCPError) as late:
                await client.session.call_tool(
                    "greet",
                    arguments,
                    input_responses={"question": named("Ann")},
                    request_state=first.request_state,
                )
            # The bridge is as good as new: the same call, answered in time, runs to its end.
            again = await client.call_tool("greet", {"tag": "again", "wait": ""})
    assert late.value.code == types.INVALID_PARAMS
    assert "0.5 s" in late.value.error.message and "without requestState" in late.value.error.message
    assert "unanswered" not in seen["answered"]
    assert again.content[0].text == "hello Ann"  # type: ignore[union-attr]
    assert len(bridge.held) == 0


@pytest.mark.parametrize("wait", ["before", "after"])
async def test_cancelling_a_held_call_from_the_stdio_side_cancels_it_upstream(
    server: Any, catalogue: Catalogue, wait: str
) -> None:
    """The stdio client cancels the request that waits for a held call, before the server's question
    (the first round) or after its answer (the round that brought it): the tool is cancelled on the
    server and the bridge holds nothing more.

    Between rounds a 2026-07-28 client has no request in flight, so nothing it can cancel: a question
    it leaves unanswered is given up after the limit (the test above).
    """
    seen: dict[str, set[str]] = {"started": set(), "answered": set(), "cancelled": set()}
    define_greet(catalogue, seen)
    arguments = {"tag": wait, "wait": wait}
    with anyio.fail_after(60):
        async with (
            held_bridge(server) as (bridge, stdio),
            Client(over_a_pipe(stdio), mode="auto", elicitation_callback=elicited) as client,
        ):
            state: str | None = None
            answers: dict[str, Any] | None = None
            if wait == "after":
                first = await client.session.call_tool("greet", arguments, allow_input_required=True)
                assert isinstance(first, types.InputRequiredResult)
                state, answers = first.request_state, {"question": named("Ann")}
            async with anyio.create_task_group() as group:

                async def call() -> None:
                    await client.session.call_tool(
                        "greet", arguments, input_responses=answers, request_state=state
                    )

                group.start_soon(call)
                await until_true(lambda: wait in (seen["answered"] if wait == "after" else seen["started"]))
                assert len(bridge.held) == 1
                group.cancel_scope.cancel()
            await until_true(lambda: wait in seen["cancelled"])
            await until_true(lambda: len(bridge.held) == 0)
            # The bridge is as good as new: the same call, left to run, ends.
            again = await client.call_tool("greet", {"tag": "again", "wait": ""})
    assert again.content[0].text == "hello Ann"  # type: ignore[union-attr]


async def test_nothing_stays_behind_per_request_or_per_capability_set(
    server: Any, catalogue: Catalogue
) -> None:
    """Many held calls and capability sets later, the bridge holds what it held before: no task left per
    question answered, no held call, no more upstream connections than it keeps for capability sets no
    request uses (a 2026-07-28 client may declare something else with every request)."""
    seen: dict[str, set[str]] = {"started": set(), "answered": set(), "cancelled": set()}
    define_greet(catalogue, seen)
    sets = [
        {"elicitation": elicitation, **({} if roots is None else {"roots": roots})}
        for elicitation in ({}, {"form": {}}, {"form": {}, "url": {}})
        for roots in (None, {}, {"listChanged": True})
    ]

    async def calls(stdio: Any, declared: dict[str, Any], times: int) -> None:
        exactly = types.ClientCapabilities.model_validate(declared)
        async with DeclaringClient(
            over_a_pipe(stdio), mode="auto", elicitation_callback=elicited, declared=exactly
        ) as client:
            for time in range(times):
                result = await client.call_tool("greet", {"tag": f"{declared}-{time}", "wait": ""})
                assert result.content[0].text == "hello Ann"  # type: ignore[union-attr]

    def tasks() -> int:
        return len(asyncio.all_tasks())

    with anyio.fail_after(120):
        async with held_bridge(server) as (bridge, stdio):
            for declared in sets[:IDLE_CONNECTIONS]:
                await calls(stdio, declared, 1)
            baseline = {"tasks": tasks(), "connections": len(bridge.upstreams)}
            assert baseline["connections"] == 1 + IDLE_CONNECTIONS  # the first, and one per set
            for declared in sets[IDLE_CONNECTIONS:]:
                await calls(stdio, declared, 1)
            await calls(stdio, sets[-1], 20)
            await until_true(lambda: tasks() <= baseline["tasks"])
            assert len(bridge.upstreams) == baseline["connections"]
            assert len(bridge.held) == 0 and not bridge.held._held


@pytest.mark.parametrize("upstream", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("mode", ERAS)
async def test_a_bridge_relays_an_app_view_and_its_tools_link_and_says_so_where_the_server_did(
    server: Any, catalogue: Catalogue, upstream: str, mode: Mode
) -> None:
    from mcp_notebook import app_resource

    app_resource(
        "ui://weather/view", "<!doctype html><p>view</p>", csp={"connectDomains": []}, catalogue=catalogue
    )

    @tool(catalogue=catalogue, read_only=True, app="ui://weather/view")
    def forecast(city: str) -> str:
        """Weather in a city, with a view."""
        return f"{city}: 23"

    bridge = Bridge(server.url, server.token)
    with anyio.fail_after(60):
        async with bridge.upstreams.open(mode=upstream), anyio.create_task_group() as group:
            async with Client(over_a_pipe(bridge.build_server(group)), mode=mode) as client:
                capabilities = client.server_capabilities
                tools = {t.name: t.meta for t in (await client.list_tools()).tools}
                read = (await client.read_resource("ui://weather/view")).contents[0]
                called = await client.call_tool("forecast", {"city": "Seoul"})
            group.cancel_scope.cancel()
    assert tools["forecast"] == {"ui": {"resourceUri": "ui://weather/view"}}
    assert read.mime_type == "text/html;profile=mcp-app" and read.meta == {
        "ui": {"csp": {"connectDomains": []}}
    }
    assert called.content[0].text == "Seoul: 23"  # type: ignore[union-attr]
    advertised = "io.modelcontextprotocol/ui" in ((capabilities.extensions if capabilities else None) or {})
    assert advertised == (upstream == "2026-07-28" and mode != "legacy")
