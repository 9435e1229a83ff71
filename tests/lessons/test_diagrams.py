"""Where people would rather look than read, a chapter draws: host/client/server (00), discovery and
call (01), a tool with an MCP Apps view and who controls it (02), the two error layers (04), the two
eras (08), where a hostile server's attacks come in (10), authorization (11: the OAuth flow, then how
the app decides on one token), as Mermaid in a Markdown cell, which JupyterLab (4.1 and later) and
GitHub render. Each committed notebook, in both languages, holds its diagrams, and each diagram shows
what it is there for.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.lessons.cases import DIAGRAMS, drawn_in

ROOT = Path(__file__).parents[2]


CASES = [
    pytest.param(language, file, index, id=f"{language}/{file}" + (f"#{index + 1}" if index else ""))
    for language in ("ko", "en")
    for file in DIAGRAMS
    for index in range(len(drawn_in(file)))
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


@pytest.mark.parametrize(("language", "file", "index"), CASES)
def test_each_chapter_that_draws_has_its_mermaid_diagram(language: str, file: str, index: int) -> None:
    kind, shown = drawn_in(file)[index]
    blocks = mermaid_blocks(ROOT / "notebooks" / language / f"{file}.ipynb")
    assert len(blocks) > index, (
        f"{language}/{file}: {len(blocks)} ```mermaid blocks, diagram {index + 1} missing"
    )
    block = blocks[index]
    assert block.lstrip().startswith(kind), f"{language}/{file}: diagram {index + 1} is no ```mermaid {kind}"
    missing = [word for word in shown if word not in block]
    assert not missing, f"{language}/{file}: diagram {index + 1} does not show {missing}"
