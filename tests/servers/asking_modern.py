"""A stdio MCP server (the SDK's low-level Server) that asks for input the 2026-07-28 way.

A tool that needs input answers `input_required` with the requests; the client asks the person and
calls again with `inputResponses` (and the `requestState` handed out).
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

SCHEMA = {
    "type": "object",
    "properties": {"day": {"type": "string"}, "guests": {"type": "integer", "default": 2}},
    "required": ["day"],
}
TOOLS = [
    types.Tool(
        name="book_table", description="Book a table, asking which day.", input_schema={"type": "object"}
    ),
    types.Tool(
        name="write_poem",
        description="Ask the client's model for a poem.",
        input_schema={"type": "object", "properties": {"topic": {"type": "string"}}},
    ),
]


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
    answers = params.input_responses or {}
    if params.name == "book_table":
        if "day" not in answers:
            ask = types.ElicitRequest(
                params=types.ElicitRequestFormParams(
                    message="Which day would you like?", requested_schema=SCHEMA
                )
            )
            return types.InputRequiredResult(input_requests={"day": ask}, request_state="booking")
        answer = answers["day"]
        if answer.action != "accept":
            text = f"not booked ({answer.action})"
        else:
            text = f"booked {answer.content['day']} for {answer.content.get('guests', 2)}"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
    if "poem" not in answers:
        topic = (params.arguments or {}).get("topic", "")
        message = types.SamplingMessage(
            role="user", content=types.TextContent(type="text", text=f"A poem about {topic}")
        )
        ask = types.CreateMessageRequest(
            params=types.CreateMessageRequestParams(messages=[message], max_tokens=50)
        )
        return types.InputRequiredResult(input_requests={"poem": ask}, request_state="poem")
    reply = answers["poem"]
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"poem: {reply.content.text}")])


async def main() -> None:
    server = Server("asking-modern", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
