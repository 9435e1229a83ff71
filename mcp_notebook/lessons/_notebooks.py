"""The lesson notebooks, made from a chapter's data: ``notebooks/ko/*.ipynb`` and ``notebooks/en/*.ipynb``.

A chapter's ``cells.toml`` lists its notebooks (a long chapter is split in parts) and each notebook's
cells in order. A cell is one of::

    markdown = {ko = "...", en = "..."}       prose (Markdown, tables, Mermaid diagrams)
    code = "..."                              code, the same in both languages
    code = {ko = "...", en = "..."}           code whose strings or comments are in the language
    answer = "q1"                             the answer cell of exercise q1, made from its data:
                                              what to write, the template, then ``q1.check()``

with ``tags = [...]`` for nbval (``raises-exception``, ``nbval-ignore-output`` ...). Sources are made
without outputs; ``scripts/run_notebooks.py`` runs a notebook to commit its outputs, which nbval then
compares. A test makes every notebook's sources again and fails when a committed one differs.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..core._text import Language, get_language, set_language
from ._content import cells_data, chapters

METADATA: dict[str, Any] = {
    "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
    "language_info": {
        "codemirror_mode": {"name": "ipython", "version": 3},
        "file_extension": ".py",
        "mimetype": "text/x-python",
        "name": "python",
        "nbconvert_exporter": "python",
        "pygments_lexer": "ipython3",
    },
}

_HANGUL = re.compile(r"[\uac00-\ud7a3]")


@dataclass(frozen=True)
class Cell:
    """One cell of a notebook, in one language."""

    type: str  # "markdown" or "code"
    source: str
    tags: tuple[str, ...] = ()
    exercise: str | None = None  # the exercise whose answer cell this is


@dataclass(frozen=True)
class Notebook:
    """One notebook of a chapter, in one language: ``notebooks/<language>/<file>.ipynb``."""

    chapter: str
    file: str
    language: Language
    cells: list[Cell] = field(default_factory=list)

    @property
    def path(self) -> str:
        return f"notebooks/{self.language}/{self.file}.ipynb"

    def to_json(self) -> dict[str, Any]:
        """The notebook as nbformat 4.5 JSON, without outputs."""
        cells: list[dict[str, Any]] = []
        for index, cell in enumerate(self.cells):
            metadata: dict[str, Any] = {"tags": list(cell.tags)} if cell.tags else {}
            made: dict[str, Any] = {
                "cell_type": cell.type,
                "id": f"c{index:02d}",
                "metadata": metadata,
                "source": cell.source,
            }
            if cell.type == "code":
                made.update(execution_count=None, outputs=[])
            cells.append(made)
        return {"cells": cells, "metadata": METADATA, "nbformat": 4, "nbformat_minor": 5}


@contextmanager
def speaking(language: Language) -> Iterator[None]:
    """Messages in `language` for a while (the answer cells are made with the kit's messages)."""
    before = get_language()
    set_language(language)
    try:
        yield
    finally:
        set_language(before)


def chapter_notebooks(chapter: str, language: Language) -> list[Notebook]:
    """The notebooks of chapter `chapter` in `language`, made from its data.

    Raises
    ------
    ValueError
        When a cell is not one of the kinds above, lacks a language, or names an exercise the
        chapter does not have.
    """
    module = importlib.import_module(f"mcp_notebook.lessons.ch{chapter}")
    made = []
    for part in cells_data(chapter)["notebook"]:
        cells = [_cell(module, cell, language, part["file"]) for cell in part["cell"]]
        made.append(Notebook(chapter, part["file"], language, cells))
    return made


def every_notebook(language: Language) -> list[Notebook]:
    """Every lesson notebook in `language`, in course order."""
    return [notebook for chapter in chapters() for notebook in chapter_notebooks(chapter, language)]


def _cell(module: Any, data: dict[str, Any], language: Language, file: str) -> Cell:
    tags = tuple(data.get("tags", ()))
    kinds = [kind for kind in ("markdown", "code", "answer") if kind in data]
    if len(kinds) != 1 or set(data) - {"markdown", "code", "answer", "tags"}:
        raise ValueError(f"{file}: a cell is one of markdown, code or answer (with tags): {sorted(data)}")
    kind = kinds[0]
    if kind == "answer":
        name = data["answer"]
        exercise = getattr(module, name, None)
        if exercise is None:
            raise ValueError(f"{file}: an answer cell names {name}, which {module.__name__} does not have")
        with speaking(language):
            return Cell("code", exercise.answer_cell(), tags, exercise=name)
    value = data[kind]
    if isinstance(value, str):
        if kind == "markdown" or _HANGUL.search(value):
            raise ValueError(f"{file}: this cell needs {{ko, en}}: {value[:60]!r}")
        return Cell(kind, value, tags)
    if not str(value.get(language, "")).strip():
        raise ValueError(f"{file}: a {kind} cell lacks {language}: {value}")
    return Cell(kind, value[language], tags)


# -- how long a notebook takes ------------------------------------------------------------------------
WORDS_PER_MINUTE: dict[str, float] = {"ko": 200.0, "en": 238.0}
"""Reading speed of prose: 200 Korean words (어절) a minute; 238 English words, the silent reading rate of
non-fiction in Brysbaert's 2019 meta-analysis of 190 studies."""

MINUTES_PER_CODE_CELL = 0.25
"""Reading a code cell, running it and glancing at its output."""

MINUTES_PER_EXERCISE = 1.5
"""Reading an exercise, answering it and reading the feedback once (its display and hint cells included)."""

LIMIT_MINUTES = 25.0
"""No notebook should take much more than 20 minutes; above this a chapter is trimmed or split."""

_EXERCISE_CELL = re.compile(r"q\d+(\.hint\(\))?")


def reading_minutes(notebook: Notebook) -> float:
    """How long `notebook` takes a learner: prose at `WORDS_PER_MINUTE`, plus a fixed time per code
    cell and per exercise (an exercise's display and hint cells are part of its time)."""
    words = sum(len(cell.source.split()) for cell in notebook.cells if cell.type == "markdown")
    exercises = sum(cell.exercise is not None for cell in notebook.cells)
    code = sum(
        cell.type == "code" and cell.exercise is None and not _EXERCISE_CELL.fullmatch(cell.source.strip())
        for cell in notebook.cells
    )
    return (
        words / WORDS_PER_MINUTE[notebook.language]
        + code * MINUTES_PER_CODE_CELL
        + exercises * MINUTES_PER_EXERCISE
    )
