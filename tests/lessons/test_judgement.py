"""Tool, Resource or Prompt is a design judgement, not sentence reading.

Every exercise that sorts capabilities into primitives describes design situations that do not name
who decides (no "the model runs ...", "the app puts ..."), and asks for the reason as a control model:
who the design means to decide that the capability is used (model-controlled tools,
application-controlled resources, user-controlled prompts; design intent, which the protocol does not
enforce). Seed 000's first review question (insert a row / show the schema, "explain it by the control
model") is chapter 01's first exercise, with its reason.
"""

from __future__ import annotations

import importlib
import re

import pytest

from mcp_notebook.core._text import set_language
from mcp_notebook.lessons import Exercise, ReasonedClassification, _content

ACTORS = {
    "ko": re.compile(r"모델|LLM|AI|앱|애플리케이션|어플리케이션|호스트|클라이언트|사용자|유저|사람"),
    "en": re.compile(
        r"\b(models?|LLMs?|AI|apps?|applications?|hosts?|clients?|users?|persons?|people|humans?)\b",
        re.IGNORECASE,
    ),
}
"""Words that name who decides: in a situation's wording they give the answer away."""

SLASH_COMMAND = re.compile(r"(^|[\s`'\"(])/[\w-]")
"""A slash command names the user's menu, and with it the answer (a Prompt)."""

DESIGN_INTENT = {"tool": "model", "resource": "application", "prompt": "user"}

JUDGEMENTS = [
    (chapter, name)
    for chapter in _content.chapters()
    for name, table in _content.chapter_data(chapter).items()
    if isinstance(table, dict) and table.get("vocabulary") == "primitives"
]


def exercise_of(chapter: str, name: str) -> Exercise:
    return getattr(importlib.import_module(f"mcp_notebook.lessons.ch{chapter}"), name)  # type: ignore[no-any-return]


def test_the_primitive_judgements_are_where_the_course_teaches_them() -> None:
    assert {("00", "q3"), ("01", "q1"), ("02", "q1"), ("03", "q4")} <= set(JUDGEMENTS)


@pytest.mark.parametrize(("chapter", "name"), JUDGEMENTS, ids=[f"ch{c}.{n}" for c, n in JUDGEMENTS])
def test_no_situation_names_who_decides(chapter: str, name: str) -> None:
    items = _content.chapter_data(chapter)[name]["items"]
    for item, entry in items.items():
        for language, actors in ACTORS.items():
            wording = entry[language]
            found = actors.findall(wording)
            assert not found, f"ch{chapter}.{name} {item} ({language}) names who decides {found}: {wording}"
            assert not SLASH_COMMAND.search(wording), f"ch{chapter}.{name} {item} ({language}): {wording}"


@pytest.mark.parametrize(("chapter", "name"), JUDGEMENTS, ids=[f"ch{c}.{n}" for c, n in JUDGEMENTS])
def test_each_judgement_asks_for_the_reason_as_a_control_model(chapter: str, name: str) -> None:
    exercise = exercise_of(chapter, name)
    assert isinstance(exercise, ReasonedClassification)
    assert exercise.reasons.group == "controllers"
    assert {exercise.expected[item]: exercise.reason_of[item] for item in exercise.expected} == {
        category: DESIGN_INTENT[category] for category in set(exercise.expected.values())
    }
    # The right kind without its reason is not right, and says what is missing.
    shown = repr(exercise.check(dict(exercise.expected)))
    assert "이유가 빠졌습니다" in shown
    assert exercise.check(exercise.model_answer()).correct


def test_seed_000s_first_review_question_asks_to_explain_by_the_control_model() -> None:
    from mcp_notebook.lessons.ch01 import q1

    assert set(q1.expected) == {"insert_row", "show_schema"}
    assert "제어 모델로 설명" in q1.text("question")
    assert q1.model_answer() == {"insert_row": ("tool", "model"), "show_schema": ("resource", "application")}
    approved = repr(q1.check({"insert_row": ("tool", "user"), "show_schema": ("resource", "application")}))
    assert "승인은 제안된 호출에 대한 것" in approved


def test_a_reasoned_answer_is_read_as_pairs_in_either_language() -> None:
    from mcp_notebook.lessons.ch01 import q1

    assert q1.check({"insert_row": (..., ...), "show_schema": (..., ...)}).kind == "not_attempted"
    assert q1.check({"insert_row": ["Tool", "the model"], "show_schema": ("리소스", "호스트")}).correct
    unpaired = repr(q1.check({"insert_row": ("tool", "model", "user"), "show_schema": ("resource", "app")}))
    assert "짝으로 쓰세요" in unpaired
    unreadable = repr(q1.check({"insert_row": ("tool", "robot"), "show_schema": ("resource", "app")}))
    assert "'robot'" in unreadable and "알아볼 수 없습니다" in unreadable
    set_language("en")
    try:
        shown = repr(q1.check({"insert_row": ("tool", "application"), "show_schema": ("resource", "app")}))
        assert "Tool is right, but the reason you gave is the application (host)" in shown
        assert '"insert_row": (..., ...),' in q1.answer_cell()
    finally:
        set_language("ko")


def test_the_reasoned_kind_round_trips_through_its_data() -> None:
    from mcp_notebook.lessons.ch02 import q1

    data = q1.to_data()
    assert data["kind"] == "classification_why" and data["reasons"] == "controllers"
    assert data["items"]["log_tail"]["reason"] == "application"
    assert "user" in data["items"]["log_tail"]["reason_feedback"]


GIVEAWAYS = {
    "ko": ("실행 계획", "매출", "스키마", "쿼리"),
    "en": ("execution plan", "revenue", "schema", "query"),
}
"""What chapter 00's q3 situations are about: the prose just before it teaches the idea on another
example, so that answering is a judgement, not a recall of the paragraph above."""


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_example_before_a_judgement_does_not_answer_it(language: str) -> None:
    cells = _content.cells_data("00")["notebook"][0]["cell"]
    heading = {"ko": "### 서버 하나에 셋이 함께 있을 때", "en": "### When all three live in one server"}[
        language
    ]
    (prose,) = [
        cell["markdown"][language]
        for cell in cells
        if isinstance(cell.get("markdown"), dict) and heading in str(cell["markdown"].get(language, ""))
    ]
    for word in GIVEAWAYS[language]:
        assert word not in prose.lower(), f"{word!r} in the example just before 00 q3"
