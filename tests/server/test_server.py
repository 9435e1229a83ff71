"""The real server on loopback, called by the SDK's client in both protocol eras."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, Literal

import anyio
import mcp_types as types
import pytest
from annotated_types import Ge, Le
from mcp.shared.exceptions import MCPError

from mcp_notebook import Catalogue, ToolError, serve, tool
from mcp_notebook.client._http import tls_context
from tests.conftest import ERAS, INITIALIZE, connect

pytestmark = pytest.mark.anyio


def define_forecast(catalogue: Catalogue, temperature: int = 23) -> None:
    @tool(read_only=True, catalogue=catalogue)
    def forecast(city: str, unit: Literal["C", "F"] = "C") -> dict[str, Any]:
        """Current weather for one city. Use for questions about weather now; not for past weather."""
        return {"city": city, "temperature": temperature if unit == "C" else 73, "unit": unit}


@pytest.mark.parametrize("mode", ERAS)
async def test_lists_and_calls_a_notebook_function(server: Any, catalogue: Catalogue, mode: Any) -> None:
    define_forecast(catalogue)
    async with connect(server, mode) as client:
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        listed = (await client.list_tools()).tools
        assert [t.name for t in listed] == ["forecast"]
        forecast = listed[0]
        assert forecast.input_schema["properties"]["unit"]["enum"] == ["C", "F"]
        assert forecast.input_schema["required"] == ["city"]
        assert forecast.input_schema["additionalProperties"] is False
        assert forecast.annotations is not None and forecast.annotations.read_only_hint is True
        result = await client.call_tool("forecast", {"city": "Seoul"})
    assert result.is_error is False
    assert result.structured_content == {"city": "Seoul", "temperature": 23, "unit": "C"}
    assert '"temperature": 23' in result.content[0].text  # the same JSON, as text, for older clients


async def test_handshake_era_is_told_tools_list_changes(server: Any) -> None:
    async with connect(server, "legacy") as client:
        caps = client.server_capabilities
        assert caps.tools is not None and caps.tools.list_changed is True


async def test_discover_on_the_stateless_era(server: Any, catalogue: Catalogue) -> None:
    async with connect(server, "auto") as client:
        assert client.protocol_version == "2026-07-28"
        caps = client.server_capabilities
        assert caps.tools is not None and caps.tools.list_changed is True


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
async def test_initialize_echoes_every_handshake_version(server: Any, version: str) -> None:
    import httpx2

    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    async with httpx2.AsyncClient(verify=tls_context()) as http:
        response = await http.post(
            server.url,
            json=body,
            headers={
                "Authorization": f"Bearer {server.token}",
                "Accept": "application/json, text/event-stream",
            },
        )
    assert response.status_code == 200
    assert response.headers.get("mcp-session-id")
    assert f'"protocolVersion":"{version}"' in response.text.replace(" ", "")


async def _next_legacy_list_changed(received: list[Any], event: anyio.Event) -> None:
    with anyio.fail_after(10):
        await event.wait()
    assert any(isinstance(m, types.ToolListChangedNotification) for m in received)


async def test_redefining_a_tool_notifies_both_eras(server: Any, catalogue: Catalogue) -> None:
    define_forecast(catalogue)
    received: list[Any] = []
    legacy_got = anyio.Event()

    async def on_message(message: Any) -> None:
        received.append(message)
        if isinstance(message, types.ToolListChangedNotification):
            legacy_got.set()

    async with (
        connect(server, "legacy", message_handler=on_message) as legacy,
        connect(server, "auto") as modern,
        modern.listen(tools_list_changed=True) as subscription,
    ):
        await legacy.list_tools()
        # The GET stream of the handshake era opens in the background; a ping round-trip
        # after it is requested is not enough to know it is open, so retry the change until heard.
        with anyio.fail_after(10):
            while not legacy_got.is_set():
                define_forecast(catalogue, temperature=30)  # the cell is run again
                with anyio.move_on_after(0.5):
                    await legacy_got.wait()
        with anyio.fail_after(10):
            event = await subscription.__anext__()
        assert type(event).__name__ == "ToolsListChanged"
        result = await modern.call_tool("forecast", {"city": "Seoul"})
        assert result.structured_content is not None
        assert result.structured_content["temperature"] == 30  # the new definition answers
        assert [t.name for t in (await modern.list_tools()).tools] == ["forecast"]


async def test_removing_a_tool_notifies_and_it_is_gone(server: Any, catalogue: Catalogue) -> None:
    import mcp_notebook

    define_forecast(catalogue)
    async with connect(server, "auto") as client, client.listen(tools_list_changed=True) as subscription:
        mcp_notebook.remove_tool("forecast", catalogue=catalogue)
        with anyio.fail_after(10):
            await subscription.__anext__()
        assert (await client.list_tools()).tools == []
    with pytest.raises(KeyError, match="forecast"):
        mcp_notebook.remove_tool("forecast", catalogue=catalogue)


@pytest.mark.parametrize("mode", ERAS)
async def test_tools_list_paginates_in_a_stable_order(catalogue: Catalogue, mode: Any) -> None:
    names = [f"tool_{i}" for i in range(7)]
    for name in names:
        tool(name=name, description=f"Tool {name}.", catalogue=catalogue)(lambda: None)
    srv = serve(catalogue=catalogue, page_size=3)
    try:
        async with connect(srv, mode) as client:
            pages: list[list[str]] = []
            cursor = None
            while True:
                page = await client.list_tools(cursor=cursor)
                pages.append([t.name for t in page.tools])
                cursor = page.next_cursor
                if cursor is None:
                    break
            assert pages == [names[0:3], names[3:6], names[6:7]]
            with pytest.raises(MCPError) as bad:
                await client.list_tools(cursor="not-a-cursor")
            assert bad.value.code == -32602
    finally:
        srv.stop()


@pytest.mark.parametrize("mode", ERAS)
async def test_unknown_tool_is_a_protocol_error_naming_near_names(
    server: Any, catalogue: Catalogue, mode: Any
) -> None:
    define_forecast(catalogue)
    async with connect(server, mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("forcast", {"city": "Seoul"})
    assert caught.value.code == -32602
    assert "'forcast'" in caught.value.error.message
    assert "'forecast'" in caught.value.error.message  # did you mean


@pytest.mark.parametrize("mode", ERAS)
async def test_bad_arguments_are_a_tool_error_naming_each_field(
    server: Any, catalogue: Catalogue, mode: Any
) -> None:
    define_forecast(catalogue)
    async with connect(server, mode) as client:
        wrong_enum = await client.call_tool("forecast", {"city": "Seoul", "unit": "K"})
        missing = await client.call_tool("forecast", {"unit": "C", "colour": "red"})
    assert wrong_enum.is_error is True
    assert "unit: 'K' is not one of ['C', 'F']" in wrong_enum.content[0].text
    assert missing.is_error is True
    assert "missing required argument 'city'" in missing.content[0].text
    assert "'colour'" in missing.content[0].text


class Level(Enum):
    LOW = "low"
    HIGH = "high"


@pytest.mark.parametrize("mode", ERAS)
async def test_tool_exceptions_become_error_results_and_serving_goes_on(
    server: Any, catalogue: Catalogue, mode: Any
) -> None:
    @tool(catalogue=catalogue)
    def divide(a: float, b: float) -> float:
        """Divide a by b."""
        return a / b

    @tool(catalogue=catalogue)
    def reserve(days: Annotated[int, Ge(1), Le(14)], level: Level = Level.LOW) -> str:
        """Reserve a room for some days."""
        if level is Level.HIGH:
            raise ToolError("No high-level rooms left. Retry with level='low'.")
        return f"{days} days"

    async with connect(server, mode) as client:
        crashed = await client.call_tool("divide", {"a": 1, "b": 0})
        told = await client.call_tool("reserve", {"days": 3, "level": "high"})
        bounded = await client.call_tool("reserve", {"days": 30})
        fine = await client.call_tool("divide", {"a": 1, "b": 4})
    assert crashed.is_error and crashed.content[0].text == "ZeroDivisionError: float division by zero"
    assert "Traceback" not in crashed.content[0].text
    assert told.is_error and told.content[0].text == "No high-level rooms left. Retry with level='low'."
    assert bounded.is_error and "days: 30 is greater than the maximum of 14" in bounded.content[0].text
    assert fine.is_error is False and fine.structured_content == {"result": 0.25}


async def test_async_tools_work(server: Any, catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    async def slow_echo(text: str) -> str:
        """Echo the text back after a moment."""
        await anyio.sleep(0)
        return text.upper()

    async with connect(server, "auto") as client:
        result = await client.call_tool("slow_echo", {"text": "hi"})
    assert result.content[0].text == "HI"


async def test_what_a_tool_prints_is_captured_not_leaked(
    capfd: pytest.CaptureFixture[str], server: Any, catalogue: Catalogue
) -> None:
    # capfd first: the server must wrap the stdout that is current when it starts, as in a kernel.
    @tool(catalogue=catalogue)
    def chatty() -> str:
        """Print something, then answer."""
        print("debug line from the tool")
        return "done"

    async with connect(server, "auto") as client:
        result = await client.call_tool("chatty", {})
    assert result.content[0].text == "done"
    assert "debug line" not in capfd.readouterr().out
    assert server.calls[-1].stdout == "debug line from the tool\n"


async def test_even_system_exit_in_a_tool_leaves_the_server_serving(
    server: Any, catalogue: Catalogue
) -> None:
    import sys

    @tool(catalogue=catalogue)
    def quit_python() -> str:
        """Try to end the process."""
        sys.exit(3)

    @tool(catalogue=catalogue)
    async def interrupted() -> str:
        """Behave as if interrupted."""
        raise KeyboardInterrupt

    async with connect(server, "auto") as client:
        exited = await client.call_tool("quit_python", {})
        stopped = await client.call_tool("interrupted", {})
        assert exited.is_error and exited.content[0].text == "SystemExit: 3"
        assert stopped.is_error and stopped.content[0].text.startswith("KeyboardInterrupt")
        assert [t.name for t in (await client.list_tools()).tools] == ["quit_python", "interrupted"]


async def test_ended_session_is_gone(server: Any) -> None:
    import httpx2

    headers = {"Authorization": f"Bearer {server.token}", "Accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient(verify=tls_context(), headers=headers) as http:
        opened = await http.post(server.url, json=INITIALIZE)
        session = {"Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
        assert (await http.delete(server.url, headers=session)).status_code in (200, 204)
        after = await http.post(
            server.url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=session
        )
    assert after.status_code == 404
    # Said so the client (or the person reading its log) knows the way out: a new session.
    message = after.json()["error"]["message"]
    assert "Session not found" in message and "send initialize again" in message


async def test_what_a_session_leaves_behind_goes_when_it_ends(server: Any, catalogue: Catalogue) -> None:
    """Subscriptions, log levels and the session to notify are kept per session, and dropped with it."""
    import warnings

    from mcp_notebook import publish

    publish("v1", "notes://live", name="live", catalogue=catalogue)
    async with connect(server, "legacy") as client:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the 2025-11-25 ways, deprecated for 2026 clients only
            await client.session.subscribe_resource("notes://live")
            await client.session.set_logging_level("warning")
        sessions = server.tool_server.sessions
        [state] = [sessions.get(session_id) for session_id in sessions]
        assert state is not None and state.session is not None
        assert state.subscriptions == {"notes://live"} and state.log_level == "warning"
    # The client ended its session (DELETE) on the way out, and the server saw it go.
    with anyio.fail_after(10):
        while len(sessions):
            await anyio.sleep(0.01)  # the end of a session is handled on the server's loop, after the reply
