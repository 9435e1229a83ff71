"""Every user-facing message exists in English and Korean, with the same placeholders."""

from __future__ import annotations

import importlib
import pkgutil
import string
from collections.abc import Iterator
from typing import Annotated, Literal

import annotated_types as at
import pytest

import mcp_notebook
from mcp_notebook import ToolDefinitionError, prompt, set_language, tool
from mcp_notebook.core import _text
from mcp_notebook.core._arguments import argument_problems
from mcp_notebook.core._catalogue import Catalogue

# Modules register their own messages when imported: import them all before collecting the keys.
for _module in pkgutil.walk_packages(mcp_notebook.__path__, "mcp_notebook."):
    if not _module.name.endswith(".__main__"):  # `python -m mcp_notebook.cli` runs the command
        importlib.import_module(_module.name)


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.fixture
def korean() -> Iterator[None]:
    before = _text.get_language()
    set_language("ko")
    try:
        yield
    finally:
        set_language(before)


@pytest.mark.parametrize("key", _text.all_keys())
def test_each_message_has_both_languages_with_the_same_fields(key: str) -> None:
    messages = _text._MESSAGES[key]
    assert set(messages) == {"en", "ko"}
    assert messages["en"].strip() and messages["ko"].strip()
    assert fields(messages["en"]) == fields(messages["ko"])
    assert any("\uac00" <= ch <= "\ud7a3" for ch in messages["ko"]) or key.startswith("name.")


def test_language_switch_reaches_definition_errors(korean: None) -> None:
    with pytest.raises(ToolDefinitionError, match="도구 이름"):
        tool(name="bad name", catalogue=Catalogue())(lambda: None)


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="'en' or 'ko'"):
        set_language("fr")  # type: ignore[arg-type]


def test_constraint_problems_are_korean_in_korean_and_the_validators_own_words_in_english(
    korean: None,
) -> None:
    catalogue = Catalogue()

    @tool(catalogue=catalogue)
    def plan(
        unit: Literal["C", "F"],
        days: Annotated[int, at.Ge(1), at.Le(7)],
        city: Annotated[str, at.MinLen(2)],
        tags: list[str] | None = None,
    ) -> str:
        """Plan a trip."""
        return city

    validator = catalogue.get("plan").validator  # type: ignore[union-attr]
    wrong = {"unit": "K", "days": 9, "city": "X", "tags": 3}
    assert argument_problems(validator, wrong) == [
        "city: 'X'은(는) 너무 짧습니다(최소 2자)",
        "days: 9은(는) 최댓값 7보다 큽니다",
        "tags: 3은(는) 'array'(배열) 또는 'null' 타입이 아닙니다",
        "unit: 'K'은(는) ['C', 'F'] 중 하나가 아닙니다",
    ]
    set_language("en")
    assert argument_problems(validator, wrong) == [
        "city: 'X' is too short",
        "days: 9 is greater than the maximum of 7",
        "tags: 3 is not of type 'array', 'null'",
        "unit: 'K' is not one of ['C', 'F']",
    ]


def test_prompt_argument_problems_are_korean_in_korean(korean: None) -> None:
    catalogue = Catalogue()

    @prompt(catalogue=catalogue)
    def review(code: str, style: Literal["short", "long"] = "short", depth: int = 1) -> str:
        """Review code."""
        return code

    entry = catalogue.get_prompt("review")
    assert entry is not None
    assert entry.problems({"code": "x", "style": "medium"}) == [
        "프롬프트 'review'의 인자 'style': 'medium'은(는) ['short', 'long'] 중 하나가 아닙니다."
    ]
    with pytest.raises(ValueError, match="'deep'은\\(는\\) 'integer'\\(정수\\) 타입이 아닙니다"):
        entry.convert({"code": "x", "depth": "deep"})


@pytest.mark.parametrize(
    ("word", "particle", "expected"),
    [
        ("노트북", "이/가", "노트북이"),
        ("바다", "이/가", "바다가"),
        ("서울", "으로/로", "서울로"),  # ㄹ takes 로
        ("집", "으로/로", "집으로"),
        ("claude-code", "을/를", "claude-code를"),  # 클로드 코드
        ("notebook", "을/를", "notebook을"),  # 노트북
        ("'delete_row'", "을/를", "'delete_row'를"),  # quotes are not read aloud
        ("student-7", "이/가", "student-7이"),  # 칠
        ("GPT", "이/가", "GPT가"),  # 지피티: an acronym, letter by letter
        ("HTML", "은/는", "HTML은"),  # 엘
        ("<code>send_mail</code>", "을/를", "<code>send_mail</code>을"),  # markup is not read
        ("mallory <i>(스스로 밝힘)</i>", "이/가", "mallory <i>(스스로 밝힘)</i>가"),  # an aside is skipped
        ("alice", "이라고/라고", "alice라고"),
        ("bob", "이라는/라는", "bob이라는"),
    ],
)
def test_korean_particles_follow_the_word(word: str, particle: str, expected: str) -> None:
    assert _text.with_particle(word, particle) == expected


def test_a_template_picks_the_particle_from_its_value(korean: None) -> None:
    _text.add_messages(
        {"test.particle": {"en": "{who} runs {tool!r}", "ko": "{who:이/가} {tool!r:을/를} 실행"}}
    )
    assert _text.t("test.particle", who="notebook", tool="quote") == "notebook이 'quote'를 실행"
    assert _text.t("test.particle", who="claude-code", tool="add_cell") == "claude-code가 'add_cell'을 실행"
    assert _text.both("test.particle", who="alice", tool="x")["en"] == "alice runs 'x'"
