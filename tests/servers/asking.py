"""A stdio MCP server (the SDK's MCPServer) whose tools ask the client for input: elicitation and sampling."""

from __future__ import annotations

import logging

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

server = MCPServer("asking")
logging.getLogger().handlers.clear()  # MCPServer configures logging; stdout belongs to the protocol


class Booking(BaseModel):
    day: str
    guests: int = 2


@server.tool()
async def book_table(ctx: Context) -> str:
    """Book a table, asking the person which day."""
    answer = await ctx.elicit("Which day would you like?", schema=Booking)
    if answer.action != "accept" or answer.data is None:
        return f"not booked ({answer.action})"
    return f"booked {answer.data.day} for {answer.data.guests}"


@server.tool()
async def write_poem(ctx: Context, topic: str) -> str:
    """Ask the client's model (here: the person) for a poem."""
    reply = await ctx.session.create_message(
        messages=[
            types.SamplingMessage(
                role="user", content=types.TextContent(type="text", text=f"A poem about {topic}")
            )
        ],
        max_tokens=50,
    )
    content = reply.content
    return f"poem: {content.text if isinstance(content, types.TextContent) else content}"


@server.tool()
async def count(ctx: Context, n: int) -> str:
    """Count to n, reporting progress."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}")
    return f"counted to {n}"


if __name__ == "__main__":
    server.run("stdio")
