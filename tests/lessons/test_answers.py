"""Every exercise, table-driven from its chapter's data: the right answers it must accept (two at least,
in different forms) and the wrong ones a learner would plausibly write (three at least), each refused
with the advice meant for it. A new exercise brings its table (``accepts`` / ``refuses`` in
``content/chNN/exercises.toml``) or this module fails.

A case is ``answer = ...`` (given to ``check``), ``change = {...}`` (the model answer of a
classification with these items changed) or ``code = '''...'''`` (run in the notebook's shell, with a
server running as ``srv``, after the exercise's ``given`` code; then ``check()`` reads the notebook).
A multiple-choice answer names options by id, ``"({breaks_spec})"``, and is written with the letter
the option is shown under.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from mcp_notebook.lessons import Classification, Exercise, MultipleChoice, _content
from mcp_notebook.lessons._exercise import given_code
from tests.lessons.cases import CODE_PRELUDE


def exercise_of(chapter: str, name: str) -> Exercise:
    return getattr(importlib.import_module(f"mcp_notebook.lessons.ch{chapter}"), name)  # type: ignore[no-any-return]


def table_of(chapter: str, name: str) -> dict[str, Any]:
    return _content.chapter_data(chapter)[name]  # type: ignore[no-any-return]


EXERCISES = [
    (chapter, name)
    for chapter in _content.chapters()
    for name in _content.exercise_names(_content.chapter_data(chapter))
]
CASES = [
    pytest.param(chapter, name, side, index, id=f"ch{chapter}.{name}-{side}-{index}")
    for chapter, name in EXERCISES
    for side in ("accepts", "refuses")
    for index in range(len(table_of(chapter, name).get(side, [])))
]


def answer_of(exercise: Exercise, case: dict[str, Any]) -> Any:
    """The answer a case gives, in the form ``check`` takes."""
    if "change" in case:
        assert isinstance(exercise, Classification)
        return {**exercise.model_answer(), **case["change"]}
    answer = case["answer"]
    if isinstance(exercise, MultipleChoice) and isinstance(answer, str):
        return answer.format_map({option: exercise.letter_of(option) for option in exercise.ids})
    return answer


@pytest.mark.parametrize(("chapter", "name"), EXERCISES, ids=[f"ch{c}.{n}" for c, n in EXERCISES])
def test_every_exercise_brings_right_answers_in_two_forms_and_three_plausible_wrong_ones(
    chapter: str, name: str
) -> None:
    table = table_of(chapter, name)
    accepts, refuses = table.get("accepts", []), table.get("refuses", [])
    assert len(accepts) >= 2, f"ch{chapter}.{name}: two right answers in different forms, at least"
    forms = {repr(case.get("answer", case.get("code", case.get("change")))) for case in accepts}
    assert len(forms) == len(accepts), f"ch{chapter}.{name}: each right answer in a form of its own"
    assert len(refuses) >= 3, f"ch{chapter}.{name}: three wrong answers a learner would write, at least"
    assert all(case.get("advice") for case in refuses), (
        f"ch{chapter}.{name}: each wrong answer names its advice"
    )


def _run(shell: InteractiveShell, code: str) -> None:
    result = shell.run_cell(code, silent=True)
    assert result.success, (
        f"the case's code did not run: {result.error_before_exec or result.error_in_exec!r}"
    )


@pytest.mark.parametrize(("chapter", "name", "side", "index"), CASES)
def test_each_answer_in_the_table_is_judged_as_the_table_says(
    chapter: str, name: str, side: str, index: int, request: pytest.FixtureRequest
) -> None:
    exercise = exercise_of(chapter, name)
    table = table_of(chapter, name)
    case = table[side][index]
    if "code" in case:
        shell = request.getfixturevalue("notebook")
        _run(shell, CODE_PRELUDE + given_code(table.get("given", ""), "ko"))
        _run(shell, case["code"])
        feedback = exercise.check()
    else:
        feedback = exercise.check(answer_of(exercise, case))
    shown = repr(feedback)
    if side == "accepts":
        assert feedback.correct, shown
        assert exercise.status == "correct"
    else:
        assert feedback.kind == "incorrect", shown
        assert case["advice"] in shown, shown
        assert f"{exercise.name}.hint()" in shown
