"""The protocol server in both eras over the in-memory lane (tests/memory.py): no socket, no kernel.

The same requests the HTTP tests make, answered by the same pipeline, in milliseconds: what a
client sees of listing, calling, bad arguments, a tool's exception, resources and prompts.
"""

from __future__ import annotations

from typing import Any, Literal

import pytest
from mcp.shared.exceptions import MCPError

from mcp_notebook import Catalogue, ToolError, current_client, prompt, resource, tool
from tests.memory import ERAS, Era, memory_client

pytestmark = pytest.mark.anyio


def shop() -> Catalogue:
    catalogue = Catalogue()

    @tool(read_only=True, catalogue=catalogue)
    def forecast(city: str, unit: Literal["C", "F"] = "C") -> dict[str, Any]:
        """Current weather for one city."""
        return {"city": city, "temperature": 23 if unit == "C" else 73, "unit": unit}

    @tool(read_only=True, catalogue=catalogue)
    def divide(a: float, b: float) -> float:
        """Divide a by b."""
        return a / b

    @tool(read_only=True, catalogue=catalogue)
    def reserve(days: int) -> str:
        """Reserve a room."""
        raise ToolError("No rooms left. Retry next week.")

    @tool(read_only=True, catalogue=catalogue)
    def who() -> str:
        """Who calls."""
        return current_client()

    @resource("notes://today", catalogue=catalogue)
    def today() -> str:
        """Today's note."""
        return "buy milk"

    @prompt(catalogue=catalogue)
    def greet(name: str) -> str:
        """Greet someone."""
        return f"Say hello to {name}."

    return catalogue


@pytest.mark.parametrize("era", ERAS)
async def test_a_client_in_memory_lists_and_calls_in_either_era(era: Era) -> None:
    async with memory_client(shop(), era) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool("forecast", {"city": "Seoul"})
        caller = await client.call_tool("who", {})
    assert sorted(listed) == ["divide", "forecast", "reserve", "who"]
    assert listed["forecast"].input_schema["properties"]["unit"]["enum"] == ["C", "F"]
    assert listed["forecast"].input_schema["required"] == ["city"]
    assert result.is_error is False
    assert result.structured_content == {"city": "Seoul", "temperature": 23, "unit": "C"}
    # No HTTP request behind the call: the caller is the notebook itself, never what it claims.
    assert caller.content[0].text == "notebook"


@pytest.mark.parametrize("era", ERAS)
async def test_errors_reach_the_client_in_memory_as_they_do_over_http(era: Era) -> None:
    async with memory_client(shop(), era) as client:
        wrong = await client.call_tool("forecast", {"city": "Seoul", "unit": "K"})
        crashed = await client.call_tool("divide", {"a": 1, "b": 0})
        told = await client.call_tool("reserve", {"days": 3})
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("forcast", {"city": "Seoul"})
        after = await client.call_tool("divide", {"a": 1, "b": 4})
    assert wrong.is_error and "unit: 'K' is not one of ['C', 'F']" in wrong.content[0].text
    assert crashed.is_error and crashed.content[0].text == "ZeroDivisionError: float division by zero"
    assert told.is_error and told.content[0].text == "No rooms left. Retry next week."
    assert unknown.value.code == -32602 and "'forecast'" in unknown.value.error.message
    assert after.is_error is False and after.structured_content == {"result": 0.25}


@pytest.mark.parametrize("era", ERAS)
async def test_resources_and_prompts_in_memory(era: Era) -> None:
    async with memory_client(shop(), era) as client:
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
        read = await client.read_resource("notes://today")
        prompts = [p.name for p in (await client.list_prompts()).prompts]
        got = await client.get_prompt("greet", {"name": "Mina"})
    assert uris == ["notes://today"]
    assert read.contents[0].text == "buy milk"
    assert prompts == ["greet"]
    assert got.messages[0].content.text == "Say hello to Mina."
