"""Short answers that are names or codes on the wire are judged exactly, and a near miss is told how it
missed: the SDK's snake_case spelling, a lost minus sign, a wrong case, an added space or hyphen.

The exercises' own tables (``accepts`` / ``refuses`` in ``content/chNN/exercises.toml``) try the answers
learners write; these tests pin the rule itself, on an exercise made here.
"""

from __future__ import annotations

import re

import pytest

from mcp_notebook import set_language
from mcp_notebook.lessons import ShortAnswer
from mcp_notebook.lessons._wire_names import exact_form, near_miss, sdk_spelling
from tests.lessons.conftest import ALL_EXERCISES

TEXTS = {
    "title": {"ko": "실패 표시", "en": "The failure mark"},
    "question": {"ko": "필드 이름은?", "en": "Which field?"},
    "hints": [
        {"ko": "불리언입니다.", "en": "A boolean."},
        {"ko": "결과에 있습니다.", "en": "In the result."},
    ],
    "explanation": {"ko": "설명", "en": "Why"},
}


def short(accepted: tuple[str, ...], *, exact: bool, wrong: dict[str, str] | None = None) -> ShortAnswer:
    advice = {spelling: {"ko": f"{text}.", "en": f"{text}."} for spelling, text in (wrong or {}).items()}
    return ShortAnswer("99", "q1", accepted=accepted, wrong=advice, exact=exact, **TEXTS)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("given", "form"),
    [
        (" `isError` ", "isError"),
        ('"-32602".', "-32602"),
        ("'tools/list' 。", "tools/list"),
        ("IsError", "IsError"),
    ],
)
def test_only_what_surrounds_a_name_is_forgiven(given: str, form: str) -> None:
    assert exact_form(given) == form


def test_the_sdk_spelling_of_a_camel_case_name_is_found_from_the_name() -> None:
    assert sdk_spelling("isError") == "is_error"
    assert sdk_spelling("structuredContent") == "structured_content"
    assert sdk_spelling("nextCursor") == "next_cursor"
    assert sdk_spelling("tools/list") == "tools/list"


@pytest.mark.parametrize(
    ("given", "miss"),
    [
        ("is_error", ("isError", "sdk")),
        ("IS_ERROR", ("isError", "sdk")),
        ("32602", ("-32602", "sign")),
        ("iserror", ("isError", "case")),
        ("is-error", ("isError", "spelling")),
        ("is error", ("isError", "spelling")),
        ("error", None),
        ("-32601", None),
    ],
)
def test_a_near_miss_is_named_with_how_it_missed(given: str, miss: tuple[str, str] | None) -> None:
    assert near_miss(given, ["isError", "-32602"]) == miss


def test_an_exact_answer_keeps_its_case_and_sign_and_forgives_quotes_and_a_full_stop() -> None:
    exercise = short(("isError",), exact=True)
    assert exercise.check(" `isError`. ").correct
    for given in ("iserror", "is_error", "IsError", "is-error"):
        assert not exercise.check(given).correct, given


def test_a_word_is_still_read_leniently() -> None:
    exercise = short(("tool call",), exact=False)
    assert exercise.check("Tool_Call").correct


@pytest.mark.parametrize("language", ["ko", "en"])
def test_each_near_miss_gets_its_advice_in_both_languages(language: str) -> None:
    set_language(language)
    exercise = short(("isError", "-32602"), exact=True)
    expected = {
        "ko": {
            "is_error": "`is_error`는 파이썬(SDK, mcp-notebook)의 속성 이름입니다. "
            "실제로 오가는 메시지(JSON)의 필드 이름은 `isError`입니다.",
            "32602": "`32602`에는 부호가 빠졌습니다.",
            "iserror": "대소문자를 가리므로 `iserror`는 다른 이름입니다.",
            "is-error": "`is-error`는 거의 맞았습니다.",
        },
        "en": {
            "is_error": "`is_error` is the attribute's name in Python (the SDK, mcp-notebook); "
            "the field on the wire is `isError`.",
            "32602": "`32602` has lost its sign: JSON-RPC error codes of this kind are negative",
            "iserror": "case-sensitive, so `iserror` is another name.",
            "is-error": "`is-error` is close",
        },
    }[language]
    for given, advice in expected.items():
        assert advice in repr(exercise.check(given)), given


def test_a_near_miss_of_a_wrong_answer_gets_that_answers_advice() -> None:
    exercise = short(
        ("-32602",), exact=True, wrong={"-32601": "메서드가 없을 때", "isError": "결과 안의 표시"}
    )
    shown = repr(exercise.check("32601"))
    assert "부호가 빠졌습니다" in shown and "메서드가 없을 때" in shown
    shown = repr(exercise.check("is_error"))
    assert "`isError`입니다" in shown and "결과 안의 표시" in shown
    shown = repr(exercise.check("ISERROR"))
    assert "결과 안의 표시" in shown and "대소문자" not in shown


def test_an_exact_exercise_says_so_in_its_data() -> None:
    exercise = short(("isError",), exact=True)
    assert exercise.kind_data() == {"accepted": ["isError"], "exact": True}
    assert "exact" not in short(("tool",), exact=False).kind_data()


WIRE_SHAPED = re.compile(r"[a-z][A-Z]|/|^[-−]?\d+$")
"""A camelCase field, a ``group/action`` method, an error code."""


@pytest.mark.parametrize(
    "key", sorted(key for key, exercise in ALL_EXERCISES.items() if isinstance(exercise, ShortAnswer))
)
def test_every_short_answer_shaped_like_a_wire_name_is_judged_exactly(key: str) -> None:
    exercise = ALL_EXERCISES[key]
    assert isinstance(exercise, ShortAnswer)
    if any(WIRE_SHAPED.search(spelling) for spelling in exercise.spellings):
        assert exercise.exact, f"{key}: its answer is a name on the wire; mark it exact = true"
