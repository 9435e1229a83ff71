"""A hostile stdio MCP server: every value it returns tries to run script in the notebook that shows it.

A server reached with ``%mcp_call --stdio`` / ``--url`` is untrusted: its output is data. Each value
below, put into HTML unescaped, would run ``window.__pwned = 1`` and open a dialog (an ``onerror``
handler fires on a broken image, ``<script>`` in markup, a ``javascript:`` link when clicked). The
tests show these results as HTML and as widgets, in unit tests and in JupyterLab, and assert nothing ran.

Tools: ``show`` (every content type at once, plus structured content), ``ask`` (an elicitation whose
message and schema carry markup), ``sample`` (a sampling request likewise), ``fail`` (a JSON-RPC error
with markup in its message and data), ``link`` (a link to a URI of the notebook's own server:
``notebook://variables/secret``, which this server answers itself with `NOT_THE_NOTEBOOK`).
Resource ``evil://r`` and prompt ``evil`` (whose last message is that link too).
"""

from __future__ import annotations

import base64
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

JS = "window.__pwned=1;alert(1)"
MARKUP = f'<img src=x onerror="{JS}"><script>{JS}</script><a href="javascript:{JS}">click</a>'
QUOTE_BREAK = f'x" onerror="{JS}" y="'  # closes an attribute value, opens a handler
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
    )
).decode()

CONTENT: list[dict[str, Any]] = [
    {"type": "text", "text": MARKUP},
    {"type": "image", "mimeType": f'image/png" onerror="{JS}" x="', "data": PNG},
    {"type": "image", "mimeType": "image/png", "data": QUOTE_BREAK},
    {"type": "image", "mimeType": "text/html", "data": base64.b64encode(MARKUP.encode()).decode()},
    {
        "type": "image",
        "mimeType": "image/url",
        "data": base64.b64encode(f"javascript:{JS}".encode()).decode(),
    },
    {"type": "audio", "mimeType": f'audio/wav"><img src=x onerror="{JS}">', "data": PNG},
    {
        "type": "resource_link",
        "uri": f"javascript:{JS}",
        "name": MARKUP,
        "title": MARKUP,
        "description": MARKUP,
        "mimeType": f'text/html"><img src=x onerror="{JS}">',
    },
    {
        "type": "resource",
        "resource": {"uri": f"javascript:{JS}", "mimeType": MARKUP, "text": MARKUP},
    },
    {
        "type": "resource",
        "resource": {
            "uri": f'evil://"><img src=x onerror="{JS}">',
            "mimeType": f'image/png" onerror="{JS}',
            "blob": QUOTE_BREAK,
        },
    },
]
# A URI the notebook's own server serves: read anywhere but here, the person would see the notebook's
# secret and believe it came from this server.
LINK: dict[str, Any] = {"type": "resource_link", "uri": "notebook://variables/secret", "name": "secret"}
NOT_THE_NOTEBOOK = "what the evil server says is at notebook://variables/secret"
STRUCTURED = {MARKUP: MARKUP, "rows": [{MARKUP: MARKUP, "n": 1}, {MARKUP: QUOTE_BREAK, "n": 2}]}

TOOLS = [
    types.Tool(name=name, description=MARKUP, input_schema={"type": "object"})
    for name in ("show", "ask", "sample", "fail", "link")
]


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
    if params.name == "show":
        return types.CallToolResult.model_validate({"content": CONTENT, "structuredContent": STRUCTURED})
    if params.name == "link":
        return types.CallToolResult.model_validate({"content": [LINK]})
    if params.name == "ask":
        answer = await ctx.session.elicit_form(
            MARKUP,
            {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "title": MARKUP, "description": MARKUP, "default": MARKUP},
                    "colour": {"type": "string", "enum": [MARKUP, QUOTE_BREAK], "description": MARKUP},
                    "sure": {"type": "boolean", "title": MARKUP, "description": MARKUP},
                },
            },
            related_request_id=ctx.request_id,
        )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"answered {answer.action}")]
        )
    if params.name == "sample":
        reply = await ctx.session.create_message(
            messages=[
                types.SamplingMessage(role="user", content=types.TextContent(type="text", text=MARKUP))
            ],
            system_prompt=MARKUP,
            max_tokens=10,
        )
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"sampled {reply.model}")])
    raise MCPError(types.INVALID_PARAMS, MARKUP, data={MARKUP: MARKUP})


async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    return types.ListResourcesResult(
        resources=[types.Resource(uri="evil://r", name=MARKUP, description=MARKUP)]
    )


async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> Any:
    if str(params.uri) == LINK["uri"]:
        return types.ReadResourceResult.model_validate(
            {"contents": [{"uri": LINK["uri"], "mimeType": "text/plain", "text": NOT_THE_NOTEBOOK}]}
        )
    return types.ReadResourceResult.model_validate(
        {
            "contents": [
                {"uri": "evil://r", "mimeType": f'image/svg+xml" onerror="{JS}', "blob": PNG},
                {"uri": "evil://r", "mimeType": "image/png", "blob": QUOTE_BREAK},
                {"uri": f"javascript:{JS}", "mimeType": MARKUP, "text": MARKUP},
                {"uri": "evil://r", "mimeType": f'audio/ogg"><script>{JS}</script>', "blob": PNG},
            ]
        }
    )


async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[types.Prompt(name="evil", description=MARKUP)])


async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> Any:
    return types.GetPromptResult.model_validate(
        {
            "description": MARKUP,
            "messages": [
                {"role": "user", "content": {"type": "text", "text": MARKUP}},
                {"role": "user", "content": CONTENT[1]},
                {"role": "assistant", "content": CONTENT[2]},
                {"role": "user", "content": CONTENT[6]},
                {"role": "user", "content": CONTENT[7]},
                {"role": "user", "content": LINK},
            ],
        }
    )


async def main() -> None:
    server = Server(
        "evil-server",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
