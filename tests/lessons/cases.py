"""What the lesson tests share: the diagrams each chapter must draw, and what a learner's notebook has
imported when they answer."""

from __future__ import annotations

DIAGRAMS = {
    # notebook: (the diagram's kind, what it must show; names and methods, the same in both languages)
    "00_getting_started": ("flowchart", ("JSON-RPC", "Streamable HTTP", "stdio", "MCP")),
    "01_tools": (
        "sequenceDiagram",
        ("initialize", "notifications/initialized", "tools/list", "nextCursor", "tools/call"),
    ),
    "02_resources": (
        "sequenceDiagram",
        ("tools/list", "_meta.ui.resourceUri", "tools/call", "resources/read", "ui://", "visibility"),
    ),
    "04_error_layers": ("flowchart", ("JSON-RPC error", "-32602", "isError: true", "ToolError")),
    "08_protocol_eras": (
        "sequenceDiagram",
        ("2025-11-25", "2026-07-28", "Mcp-Session-Id", "server/discover", "subscriptions/listen"),
    ),
    "10_threats": ("flowchart", ("tools/list", "tools/call", "resources/read")),
    "11_authorization": (
        "sequenceDiagram",
        ("401", "oauth-protected-resource", "authorization_servers", "code_challenge", "resource", "aud"),
    ),
}


LATER = {
    # notebook: the diagrams after the first, in the order the notebook draws them
    "11_authorization": (
        ("flowchart", ("invalid_token", "insufficient_scope", "aud", "exp", "scope", "JWKS")),
    ),
}


def drawn_in(file: str) -> list[tuple[str, tuple[str, ...]]]:
    """Every diagram the notebook `file` draws, in order: its kind and what it must show."""
    return [DIAGRAMS[file], *LATER.get(file, ())]


CODE_PRELUDE = (
    "from typing import Annotated, Literal\n"
    "from pydantic import Field\n"
    "from mcp_notebook import Context, ToolError, prompt, resource, tool\n"
)
"""What the notebook has imported when a learner answers (a case may import it again)."""
