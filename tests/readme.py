"""README.md's code blocks, read from README.md itself, for the tests that run them.

An edit to README that breaks a block fails a test: `tests/project/test_readme.py` runs every `python`
block in one kernel and every shell command it can run here; the browser test types the tour's
block into JupyterLab and runs the outside call the tour shows.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
TOUR = "Five-minute tour"

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_HEADING = re.compile(r"^#{2,} (.+)$", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language, its code, and where it is (for failure messages)."""

    language: str
    code: str
    line: int
    section: str

    def __str__(self) -> str:
        return f"README.md line {self.line} ({self.section!r})"


def blocks(language: str | None = None, *, section: str | None = None) -> list[Block]:
    """The fenced blocks of README.md in order, of one language and under one heading if given."""
    text = README.read_text(encoding="utf-8")
    headings = [(m.start(), m.group(1).strip()) for m in _HEADING.finditer(text)]
    found = []
    for match in _FENCE.finditer(text):
        under = [title for start, title in headings if start < match.start()]
        block = Block(
            language=match.group(1),
            code=match.group(2),
            line=text.count("\n", 0, match.start()) + 1,
            section=under[-1] if under else "",
        )
        if (language is None or block.language == language) and (section is None or block.section == section):
            found.append(block)
    return found


def commands(block: Block) -> list[tuple[str, list[str]]]:
    """A block's shell commands: each line as written (continuations joined) and its words as a
    shell splits them (comments dropped, no expansion)."""
    lines = block.code.replace("\\\n", " ").splitlines()
    return [(line, words) for line in lines if (words := shlex.split(line, comments=True))]
