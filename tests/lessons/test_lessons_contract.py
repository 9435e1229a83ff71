"""What every exercise of every chapter promises: a not-attempted state, a hint ladder that ends
without giving the answer away, and a model answer that is right."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_notebook.lessons import ShortAnswer, normalize
from tests.lessons.conftest import ALL_EXERCISES, WORD_EXERCISES


def test_every_chapter_has_at_least_three_exercises() -> None:
    chapters = {key.split(".")[0] for key in ALL_EXERCISES}
    for chapter in chapters:
        assert sum(key.startswith(f"{chapter}.") for key in ALL_EXERCISES) >= 3, chapter


@pytest.mark.parametrize("key", sorted(ALL_EXERCISES))
def test_nothing_to_check_is_not_attempted(key: str) -> None:
    exercise = ALL_EXERCISES[key]
    assert exercise.status == "not_attempted"
    for shown in (repr(exercise), exercise._repr_html_(), repr(exercise.check())):
        assert "아직 시도하지 않았습니다" in shown
    assert exercise.check().kind == "not_attempted"
    assert exercise.attempts == 0


@pytest.mark.parametrize("key", sorted(WORD_EXERCISES))
def test_a_blank_template_is_not_attempted(key: str) -> None:
    exercise = WORD_EXERCISES[key]
    expected = getattr(exercise, "expected", None)
    blank: Any = dict.fromkeys(expected, ...) if expected else ...
    assert exercise.check(blank).kind == "not_attempted"
    assert exercise.check("   ").kind == "not_attempted"


@pytest.mark.parametrize("key", sorted(ALL_EXERCISES))
def test_the_hint_ladder_climbs_one_rung_at_a_time_and_ends(key: str) -> None:
    exercise = ALL_EXERCISES[key]
    assert exercise.hint_count >= 2
    seen = []
    for rung in range(1, exercise.hint_count + 1):
        hint = exercise.hint()
        assert hint.kind == "hint" and f"힌트 {rung}/{exercise.hint_count}" in repr(hint)
        seen.append(repr(hint))
    assert len(set(seen)) == exercise.hint_count
    for _ in range(2):
        end = exercise.hint()
        assert end.kind == "no_more_hints"
        assert "더 이상 힌트가 없습니다" in repr(end) and f"{exercise.name}.solution()" in repr(end)


@pytest.mark.parametrize("key", sorted(WORD_EXERCISES))
def test_hints_do_not_give_the_answer_away(key: str) -> None:
    exercise = WORD_EXERCISES[key]
    hints = [repr(exercise.hint()) for _ in range(exercise.hint_count)]
    if isinstance(exercise, ShortAnswer):
        assert not any(normalize(exercise.model_answer) in normalize(h) for h in hints)
    for item, answer in (getattr(exercise, "expected", None) or {}).items():
        assert not any(f"{item}: {answer}" in h for h in hints)
    solution = repr(exercise.solution())
    assert not any(solution.split("\n", 2)[-1] in h for h in hints)


@pytest.mark.parametrize("key", sorted(ALL_EXERCISES))
def test_the_solution_shows_a_model_answer_and_why(key: str) -> None:
    solution = ALL_EXERCISES[key].solution()
    assert solution.kind == "solution" and solution.code
    assert "모범 답안" in repr(solution) and "설명:" in repr(solution)
    assert "<pre>" in solution._repr_html_()


@pytest.mark.parametrize("key", sorted(WORD_EXERCISES))
def test_the_model_answer_is_a_right_answer(key: str) -> None:
    exercise = WORD_EXERCISES[key]
    namespace: dict[str, Any] = {}
    exec(exercise.solution_code(), namespace)
    assert exercise.check(namespace[str(exercise.variable)]).correct
