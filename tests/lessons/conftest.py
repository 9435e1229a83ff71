"""Fixtures every lesson test module imports: fresh exercises in Korean, a server, a shell."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, set_language
from mcp_notebook.lessons import CHAPTERS, Classification, Exercise, MultipleChoice, ShortAnswer

ALL_EXERCISES: dict[str, Exercise] = {
    f"{chapter}.{name}": getattr(module, name)
    for chapter in CHAPTERS
    for module in [importlib.import_module(f"mcp_notebook.lessons.{chapter}")]
    for name in module.__all__
    if isinstance(getattr(module, name), Exercise)
}
"""Every exercise of every chapter, as ``"ch02.q1"``."""

WORD_EXERCISES = {
    key: exercise
    for key, exercise in ALL_EXERCISES.items()
    if isinstance(exercise, Classification | MultipleChoice | ShortAnswer)
}
"""The exercises answered in words or choices (the others are checked through a server)."""


@pytest.fixture(autouse=True)
def fresh_exercises() -> Iterator[None]:
    """Every exercise unattempted, and messages in Korean (the lessons' language), around each test."""
    set_language("ko")
    for exercise in ALL_EXERCISES.values():
        exercise.reset()
    try:
        yield
    finally:
        set_language("en")
        for exercise in ALL_EXERCISES.values():
            exercise.reset()


@pytest.fixture
def server(catalogue: Catalogue) -> Iterator[Any]:
    """The in-kernel server with its default approval policy: the checker's calls are the notebook's own."""
    srv = mcp_notebook.serve(catalogue=catalogue)
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    saved = dict(ip.user_ns)
    try:
        yield ip
    finally:
        ip.user_ns.clear()
        ip.user_ns.update(saved)


class WordExerciseChecks:
    """What every chapter checks of its word exercises; a chapter's test module subclasses it.

    Subclasses set ``CHAPTER`` (the lesson module), ``RIGHT`` (``{name: a right answer}``) and
    ``WRONG`` (``[(name, a typical wrong answer, a piece of the advice it must get)]``); a module
    that covers several chapters overrides `exercises` instead. Exercises answered by writing code
    are checked through a server in the chapter's own tests.
    """

    CHAPTER: Any
    RIGHT: dict[str, Any]
    WRONG: list[tuple[str, Any, str]]

    @classmethod
    def exercises(cls) -> dict[str, Exercise]:
        """The chapter's exercises by the keys RIGHT and WRONG use."""
        return {name: getattr(cls.CHAPTER, name) for name in cls.CHAPTER.__all__}

    def test_every_word_exercise_has_a_right_answer_and_typical_wrong_ones(self) -> None:
        exercises = self.exercises()
        words = {
            key
            for key, exercise in exercises.items()
            if isinstance(exercise, Classification | MultipleChoice | ShortAnswer)
        }
        assert set(self.RIGHT) == words
        assert {key for key, _, _ in self.WRONG} == words
        assert len(exercises) >= 3

    def test_a_right_answer_is_accepted(self, key: str) -> None:
        exercise = self.exercises()[key]
        feedback = exercise.check(self.RIGHT[key])
        assert feedback.correct, repr(feedback)
        assert "정답입니다" in repr(feedback) and exercise.status == "correct"
        assert "정답입니다" in repr(exercise) and "정답입니다" in exercise._repr_html_()

    def test_a_typical_wrong_answer_gets_its_advice(self, key: str, answer: Any, advice: str) -> None:
        exercise = self.exercises()[key]
        feedback = exercise.check(answer)
        assert feedback.kind == "incorrect" and not feedback
        assert advice in repr(feedback), repr(feedback)
        assert f"{exercise.name}.hint()" in repr(feedback)
        assert exercise.status == "incorrect" and "시도 1번" in repr(exercise)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    cls = metafunc.cls
    if cls is None or not issubclass(cls, WordExerciseChecks):
        return
    if metafunc.function.__name__ == "test_a_right_answer_is_accepted":
        metafunc.parametrize("key", sorted(cls.RIGHT))
    elif metafunc.function.__name__ == "test_a_typical_wrong_answer_gets_its_advice":
        ids = [f"{key}-{index}" for index, (key, _, _) in enumerate(cls.WRONG)]
        metafunc.parametrize(("key", "answer", "advice"), cls.WRONG, ids=ids)
