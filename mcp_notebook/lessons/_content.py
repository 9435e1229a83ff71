"""The lessons' content as data: one folder per chapter under ``content/``, read when it is needed.

::

    content/
      vocabularies.toml      categories several chapters classify into (roles, primitives ...)
      glossary.toml          the words the lessons use for MCP's terms, and the ones they avoid
      chNN/exercises.toml    the chapter's exercises: kind, texts {ko, en}, items, options, probes,
                             and the answers each must accept and refuse (``accepts``, ``refuses``)
      chNN/cells.toml        the chapter's notebook(s): cells in order (markdown, code, answer)

A chapter module reads its exercises when it is imported (`load_exercises`); ``import mcp_notebook``
and ``import mcp_notebook.lessons`` read nothing. The cells are read only to build the notebooks
(``scripts/lessons.py build``) and by the tests. The files are TOML because the package already reads
its messages that way (``tomllib``, no dependency), and a ``{ko = ..., en = ...}`` table keeps both
languages of a text side by side, where a review sees them drift apart.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path
from typing import Any

from ._answers import Classification, MultipleChoice, ReasonedClassification, ShortAnswer, Vocabulary
from ._exercise import DataContext, Exercise
from ._toolcheck import ToolExercise

CONTENT = Path(__file__).with_name("content")
"""Where the lessons' data files are (they ship in the wheel, inside the package)."""

KINDS: dict[str, type[Exercise]] = {
    cls.kind: cls
    for cls in (Classification, ReasonedClassification, MultipleChoice, ShortAnswer, ToolExercise)
}
"""The kinds of exercise every chapter may use; a chapter adds its own (`load_exercises`)."""

TEST_KEYS = ("accepts", "refuses")
"""Keys of an exercise's table that are not the exercise but the answers its tests try. (``given``, the
notebook's code those answers run after, as the chapter's cells define it, is the exercise's: its
model answer runs after it too.)"""


@functools.cache
def read(path: Path) -> dict[str, Any]:
    """A TOML file of the content, parsed once."""
    with path.open("rb") as file:
        return tomllib.load(file)


def chapters() -> list[str]:
    """The chapters with data, in course order: ``["00", "01", ...]``."""
    return sorted(p.parent.name[2:] for p in CONTENT.glob("ch*/exercises.toml"))


def chapter_data(chapter: str) -> dict[str, Any]:
    """Chapter `chapter`'s ``exercises.toml``: its exercises by name, its vocabularies and values."""
    return read(CONTENT / f"ch{chapter}" / "exercises.toml")


def cells_data(chapter: str) -> dict[str, Any]:
    """Chapter `chapter`'s ``cells.toml``: its notebooks (one, or a chapter split in parts)."""
    return read(CONTENT / f"ch{chapter}" / "cells.toml")


def exercise_names(data: dict[str, Any]) -> list[str]:
    """The exercises of a chapter's data, in order (``q1``, ``q2`` ...)."""
    return [key for key, value in data.items() if isinstance(value, dict) and "kind" in value]


@functools.cache
def shared_vocabularies() -> dict[str, Vocabulary]:
    data = read(CONTENT / "vocabularies.toml")
    return {group: Vocabulary.from_data(group, categories) for group, categories in data.items()}


def load_exercises(
    chapter: str,
    names: list[str],
    *,
    kinds: dict[str, type[Exercise]] | None = None,
    checks: dict[str, Any] | None = None,
    values: dict[str, Any] | None = None,
) -> list[Exercise]:
    """Chapter `chapter`'s exercises `names`, built from its data, in that order.

    Parameters
    ----------
    kinds:
        The chapter's own kinds of exercise (classes with a ``kind`` name), besides `KINDS`.
    checks:
        Functions a probe may name to judge a result (``accept = "name"``).
    values:
        Constants the chapter's code and its data share (its data's ``[values]`` table too).

    Raises
    ------
    ValueError
        When the data and `names` disagree, or an exercise's table is not what its kind reads.
    """
    data = chapter_data(chapter)
    found = exercise_names(data)
    if found != names:
        raise ValueError(f"chapter {chapter}: the module exports {names}, its data has {found}")
    vocabularies = dict(shared_vocabularies())
    for group, categories in data.get("vocabularies", {}).items():
        vocabularies[group] = Vocabulary.from_data(group, categories)
    context = DataContext(
        vocabularies=vocabularies,
        checks=dict(checks or {}),
        values={**data.get("values", {}), **(values or {})},
    )
    known = {**KINDS, **(kinds or {})}
    exercises: list[Exercise] = []
    for name in names:
        table = {key: value for key, value in data[name].items() if key not in TEST_KEYS}
        kind = table.pop("kind")
        if kind not in known:
            raise ValueError(f"exercise {chapter}.{name}: no kind {kind!r}; known: {sorted(known)}")
        exercises.append(known[kind].from_data(chapter, name, table, context))
    return exercises
