"""The lesson notebooks are made from the chapters' data (``content/chNN/``), in Korean and English.

A committed notebook whose cells differ from what its data makes fails here: prose, code, tags, and
the answer cells, which are made from each exercise (what to write, the template, the check). Run
``python scripts/lessons.py run`` after changing the data, so the notebooks and their outputs (which
nbval compares) follow.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook.core._text import Language
from mcp_notebook.lessons import _content, _notebooks

ROOT = Path(__file__).parents[2]
LANGUAGES: tuple[Language, ...] = ("ko", "en")
MADE = {language: _notebooks.every_notebook(language) for language in LANGUAGES}
NOTEBOOKS = [
    pytest.param(notebook, id=notebook.path) for language in LANGUAGES for notebook in MADE[language]
]


def committed(path: Path) -> list[dict[str, Any]]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [
        {
            "type": cell["cell_type"],
            "source": "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"],
            "tags": tuple(cell.get("metadata", {}).get("tags", ())),
        }
        for cell in cells
    ]


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_each_committed_notebook_is_the_one_its_data_makes(notebook: _notebooks.Notebook) -> None:
    path = ROOT / notebook.path
    assert path.exists(), f"{notebook.path} is missing: python scripts/lessons.py run {notebook.chapter}"
    made = [{"type": cell.type, "source": cell.source, "tags": cell.tags} for cell in notebook.cells]
    found = committed(path)
    assert len(found) == len(made), f"{notebook.path}: {len(found)} cells, its data makes {len(made)}"
    for index, (have, want) in enumerate(zip(found, made, strict=True)):
        assert have == want, f"{notebook.path} cell {index} drifted from its data (scripts/lessons.py run)"


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_each_answer_cell_is_made_from_its_exercise(notebook: _notebooks.Notebook) -> None:
    """An answer cell holds what to write, the exercise's template and its check, in the notebook's language."""
    module = __import__(f"mcp_notebook.lessons.ch{notebook.chapter}", fromlist=["q1"])
    found = committed(ROOT / notebook.path)
    answers = [(index, cell.exercise) for index, cell in enumerate(notebook.cells) if cell.exercise]
    assert answers, f"{notebook.path} has no exercise"
    for index, name in answers:
        with _notebooks.speaking(notebook.language):
            expected = getattr(module, name).answer_cell()
        assert found[index]["source"] == expected, f"{notebook.path}: the answer cell of {name} drifted"
        assert found[index]["source"].endswith(f"{name}.check()")


def test_every_exercise_of_a_chapter_has_one_answer_cell_in_each_language() -> None:
    for chapter in _content.chapters():
        names = _content.exercise_names(_content.chapter_data(chapter))
        for language in LANGUAGES:
            cells = [
                c.exercise for n in MADE[language] if n.chapter == chapter for c in n.cells if c.exercise
            ]
            assert sorted(cells) == sorted(names), (chapter, language)


def test_no_notebook_is_committed_that_the_data_does_not_make() -> None:
    made = {notebook.path for language in LANGUAGES for notebook in MADE[language]}
    for language in LANGUAGES:
        for path in sorted((ROOT / "notebooks" / language).glob("*.ipynb")):
            assert str(path.relative_to(ROOT)) in made, f"{path.name}: not made by any chapter's data"


def _strings(value: Any, where: str) -> list[tuple[str, str]]:
    if isinstance(value, str):
        return [(where, value)]
    if isinstance(value, dict):
        return [pair for key, item in value.items() for pair in _strings(item, f"{where}.{key}")]
    if isinstance(value, list):
        return [pair for index, item in enumerate(value) for pair in _strings(item, f"{where}[{index}]")]
    return []


@pytest.mark.parametrize("chapter", _content.chapters())
def test_no_text_is_left_to_translate(chapter: str) -> None:
    """``scripts/lessons.py convert`` marks what it could not know ``TODO``; nothing of it may ship."""
    for name in ("cells.toml", "exercises.toml"):
        data = _content.read(_content.CONTENT / f"ch{chapter}" / name)
        left = [where for where, text in _strings(data, name) if text.strip().startswith("TODO")]
        assert not left, f"ch{chapter}: still to write: {left[:5]}"


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_no_notebook_takes_much_more_than_twenty_minutes(notebook: _notebooks.Notebook) -> None:
    """The measure: prose read at 200 Korean words (어절) or 238 English words a minute, a quarter of a
    minute per code cell, a minute and a half per exercise. A chapter above 25 minutes is trimmed or
    split into parts (``05b_...``), each of which runs on its own."""
    minutes = _notebooks.reading_minutes(notebook)
    assert minutes <= _notebooks.LIMIT_MINUTES, f"{notebook.path}: {minutes:.1f} minutes; trim or split it"


def test_a_chapter_split_in_parts_links_each_part_to_the_next() -> None:
    for language in LANGUAGES:
        for chapter in _content.chapters():
            parts = [n for n in MADE[language] if n.chapter == chapter]
            for first, second in itertools.pairwise(parts):
                prose = "".join(cell.source for cell in first.cells if cell.type == "markdown")
                assert f"({second.file}.ipynb)" in prose, (first.path, second.path)
                opening = "".join(cell.source for cell in second.cells[:2] if cell.type == "markdown")
                assert f"({first.file}.ipynb)" in opening, (second.path, first.path)


LINTER_WORD = {"ko": "린터", "en": "linter"}


@pytest.mark.parametrize("notebook", [n for n in NOTEBOOKS if n.values[0].chapter in ("00", "01")])
def test_linter_notes_shown_in_the_first_chapters_are_explained_and_deferred(
    notebook: _notebooks.Notebook,
) -> None:
    """Chapters 00-01 show the linter's notes under cells before chapter 05 teaches them: the prose right
    after the first cell that shows one says what it is and that chapter 05 takes them up."""
    cells = json.loads((ROOT / notebook.path).read_text(encoding="utf-8"))["cells"]
    shown = [
        index
        for index, cell in enumerate(cells)
        if any(re.search(r"MCP0\d\d", json.dumps(output)) for output in cell.get("outputs", []))
    ]
    if not shown:
        return
    after = next(cell for cell in cells[shown[0] + 1 :] if cell["cell_type"] == "markdown")
    prose = "".join(after["source"])
    assert LINTER_WORD[notebook.language] in prose and "05" in prose, (notebook.path, prose[:200])
