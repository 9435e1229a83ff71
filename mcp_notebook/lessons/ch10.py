"""Exercises of chapter 10 (눈앞에서 보는 위협): a tool that finds the poisoned tools of a catalogue, a
tool that says what changed in a definition since a person approved it, what happens to an injected
call and what remains the host's job, and which threat each scenario is.

>>> from mcp_notebook.lessons.ch10 import q1, q2, q3, q4

The chapter's hostile server (`hostile_server`, ``mcp_notebook/lessons/servers/hostile.py``) runs over
stdio; `hidden_characters`, `visible`, `reveal`, `mentions` and `DIRECTIVES` read descriptions as a
model reads them. The exercises' content is data: ``content/ch10/exercises.toml``; q1 and q2 are judged on
catalogues and definitions drawn at random (`mcp_notebook.lessons._threats`).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from ..core._text import get_language
from ..core._visible import visible
from ._content import load_exercises
from ._drawn import DrawnToolExercise
from ._threats import (
    DIRECTIVES,
    draw_catalogue,
    draw_definitions,
    hidden_characters,
    mentions,
    reveal,
    show_catalogue,
    show_definitions,
)

EXERCISES = ["q1", "q2", "q3", "q4"]
__all__ = [*EXERCISES, "DIRECTIVES", "hidden_characters", "hostile_server", "mentions", "reveal", "visible"]


def hostile_server(language: str | None = None) -> str:
    """The command line that starts the chapter's hostile server over stdio, speaking `language`
    (default: the lessons' current one): what ``call(..., stdio=...)`` takes."""
    chosen = language or get_language()
    # By its file, not ``-m``: a stdio server starts with a trimmed environment (the SDK passes no
    # PYTHONPATH), and the script needs nothing of this package.
    script = Path(__file__).with_name("servers") / "hostile.py"
    return shlex.join([sys.executable, str(script), "--lang", chosen])


q1, q2, q3, q4 = load_exercises(
    "10",
    EXERCISES,
    kinds={DrawnToolExercise.kind: DrawnToolExercise},
    checks={
        "draw_catalogue": draw_catalogue,
        "show_catalogue": show_catalogue,
        "draw_definitions": draw_definitions,
        "show_definitions": show_definitions,
    },
)
