"""Where people would rather look than read, a chapter draws: host/client/server (00), discovery and
call (01), the two error layers (04), the two eras (08), where a hostile server's attacks come in (10),
authorization (11), as Mermaid in a Markdown cell, which
JupyterLab (4.1 and later) and GitHub render. Each committed notebook, in both languages, holds its
diagram, and the diagram shows what it is there for.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]

DIAGRAMS = {
    # notebook: (the diagram's kind, what it must show; names and methods, the same in both languages)
    "00_getting_started": ("flowchart", ("JSON-RPC", "Streamable HTTP", "stdio", "MCP")),
    "01_tools": (
        "sequenceDiagram",
        ("initialize", "notifications/initialized", "tools/list", "nextCursor", "tools/call"),
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
CASES = [
    pytest.param(language, file, id=f"{language}/{file}") for language in ("ko", "en") for file in DIAGRAMS
]


def mermaid_blocks(path: Path) -> list[str]:
    """The bodies of the ```mermaid fences in the notebook's Markdown cells."""
    blocks = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for part in source.split("```mermaid\n")[1:]:
            assert "\n```" in part, f"{path.name}: a mermaid fence is never closed"
            blocks.append(part.split("\n```", 1)[0])
    return blocks


@pytest.mark.parametrize(("language", "file"), CASES)
def test_each_chapter_that_draws_has_its_mermaid_diagram(language: str, file: str) -> None:
    kind, shown = DIAGRAMS[file]
    blocks = mermaid_blocks(ROOT / "notebooks" / language / f"{file}.ipynb")
    drawn = [block for block in blocks if block.lstrip().startswith(kind)]
    assert drawn, f"{language}/{file}: no ```mermaid {kind} in a Markdown cell"
    missing = [word for word in shown if not any(word in block for block in drawn)]
    assert not missing, f"{language}/{file}: the diagram does not show {missing}"
