"""The lessons speak one vocabulary (용어집, ``content/glossary.toml``): the words they avoid, literal
metaphors such as "악수 시대" or "전선 위" and ``을(를)``-style particle alternatives, appear in no lesson
text, Korean or English: not in the notebooks' cells, not in the exercises, not in the lesson messages."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_notebook.core import _text
from mcp_notebook.lessons import _content

GLOSSARY = _content.read(_content.CONTENT / "glossary.toml")
AVOIDED = list(GLOSSARY["avoid"])


def _strings(value: Any, where: str) -> list[tuple[str, str]]:
    if isinstance(value, str):
        return [(where, value)]
    if isinstance(value, dict):
        return [pair for key, item in value.items() for pair in _strings(item, f"{where}.{key}")]
    if isinstance(value, list):
        return [pair for index, item in enumerate(value) for pair in _strings(item, f"{where}[{index}]")]
    return []


def lesson_texts() -> list[tuple[str, str]]:
    texts = []
    for chapter in _content.chapters():
        for name in ("cells.toml", "exercises.toml"):
            texts += _strings(_content.read(_content.CONTENT / f"ch{chapter}" / name), f"ch{chapter}/{name}")
    for language in ("ko", "en"):
        texts += [
            (f"{language}:{key}", text)
            for key, text in _text.catalogue(language).items()
            if key.startswith("lessons.")
        ]
    return texts


def test_the_glossary_names_terms_in_both_languages_and_what_to_avoid() -> None:
    assert all({"ko", "en"} <= set(term) for term in GLOSSARY["terms"].values())
    assert {"페이지 나누기", "악수 시대", "전선 위", "을(를)"} <= set(AVOIDED)


@pytest.mark.parametrize("word", AVOIDED)
def test_no_lesson_text_uses_an_avoided_word(word: str) -> None:
    found = [where for where, text in lesson_texts() if word in text]
    assert not found, f"{word!r} (write {GLOSSARY['avoid'][word]!r}) in: {found[:8]}"
