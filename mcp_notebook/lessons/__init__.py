"""Exercises for the Korean lesson notebooks (``notebooks/ko/``), checked automatically.

Each chapter module exposes its exercises as ``q1, q2, ...``::

    from mcp_notebook.lessons.ch00 import q1, q2, q3

    q1                     # the question and its state ("아직 시도하지 않았습니다" at first)
    q1_answer = {...}      # the learner's answer, in the template the question shows
    q1.check()             # reads q1_answer from the notebook (or q1.check(answer))
    q1.hint()              # the next hint of a ladder that never gives the answer away
    q1.solution()          # the model answer and why

Kinds of exercise:

    Exercise               the base: state, hint ladder, model answer, text and HTML display
    ├── Classification     sort items into categories (Tool / Resource / Prompt, error layers ...)
    │   └── ReasonedClassification   ... and say why, in a second vocabulary (who controls the call)
    ├── MultipleChoice     one letter; every wrong option explains itself
    ├── ShortAnswer        a word or two, with accepted spellings and advice for typical slips;
    │                      a name or code on the wire is judged exactly (case and sign matter)
    └── ToolExercise       the learner writes a tool; it is listed and called through the real
        │                  in-kernel MCP server (`mcp_notebook.list_tools`, `mcp_notebook.call`)
        └── DrawnToolExercise   ... judged on inputs its chapter draws (catalogues, definitions)

Every judged check is recorded (chapter, exercise, outcome, attempts, time; never the answer) in
``progress.jsonl`` in the user data folder and, on a class hub, sent to the instructor's progress
service: `record_progress` (``record_progress(False)``) or ``MCP_NOTEBOOK_PROGRESS=off`` opts out,
`read_progress` reads it back (`mcp_notebook.lessons._progress`).

Messages exist in Korean and English (`mcp_notebook.set_language`). Importing this package does
not import the MCP SDK; a tool check does.
"""

from __future__ import annotations

from ._answers import (
    Category,
    Classification,
    MultipleChoice,
    ReasonedClassification,
    ShortAnswer,
    Vocabulary,
    normalize,
)
from ._exercise import Exercise, Feedback
from ._progress import progress_path, read_progress, record_progress
from ._toolcheck import Param, Probe, ToolExercise

CHAPTERS = (
    "ch00", "ch01", "ch01b", "ch02", "ch03", "ch04", "ch05", "ch06", "ch07", "ch08", "ch09", "ch10", "ch11",
)  # fmt: skip
"""Chapter modules with exercises, in order."""

__all__ = [
    "CHAPTERS",
    "Category",
    "Classification",
    "Exercise",
    "Feedback",
    "MultipleChoice",
    "Param",
    "Probe",
    "ReasonedClassification",
    "ShortAnswer",
    "ToolExercise",
    "Vocabulary",
    "normalize",
    "progress_path",
    "read_progress",
    "record_progress",
]
