"""Multiple-choice exercises are fair: the right option's place and length tell nothing.

Options are shown in an order shuffled per learner and stable for that learner (a seed), so the
committed notebooks (seed ``"0"``) are deterministic under nbval while two learners see different
orders. Over the course the right option sits at no position more than 40 % of the time, whatever the
seed, and it is the longest option in at most half of the exercises, in each language.
"""

from __future__ import annotations

import importlib
from collections import Counter

import pytest

from mcp_notebook.lessons import MultipleChoice, _content, _order

CHOICES: list[MultipleChoice] = [
    exercise
    for chapter in _content.chapters()
    for exercise in (
        getattr(importlib.import_module(f"mcp_notebook.lessons.ch{chapter}"), name)
        for name in _content.exercise_names(_content.chapter_data(chapter))
    )
    if isinstance(exercise, MultipleChoice)
]
SEEDS = [*(str(n) for n in range(20)), "c0ffee", "a-learner@a-laptop"]


def test_the_course_has_multiple_choice_exercises() -> None:
    assert len(CHOICES) >= 10


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_right_option_is_the_longest_in_at_most_half_of_them(language: str) -> None:
    longest = []
    for exercise in CHOICES:
        right = len(exercise._texts[f"option.{exercise.answer}"][language])
        others = [
            len(exercise._texts[f"option.{option}"][language])
            for option in exercise.ids
            if option != exercise.answer
        ]
        if right >= max(others):
            longest.append(f"{exercise.chapter}.{exercise.name}")
    assert 2 * len(longest) <= len(CHOICES), (
        f"the right option is the longest in {len(longest)}/{len(CHOICES)}: {longest}"
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_the_right_option_sits_at_one_position_in_at_most_40_percent(seed: str) -> None:
    positions = Counter(exercise.order(seed).index(exercise.answer) for exercise in CHOICES)
    most, count = positions.most_common(1)[0]
    assert count <= 0.4 * len(CHOICES), f"seed {seed!r}: {count}/{len(CHOICES)} at position {'ABCDE'[most]}"


def test_each_learner_keeps_one_order_and_learners_differ() -> None:
    for exercise in CHOICES:
        assert exercise.order("7") == exercise.order("7")
        assert sorted(exercise.order("7")) == sorted(exercise.ids)
    orders = {tuple(tuple(exercise.order(seed)) for exercise in CHOICES) for seed in SEEDS}
    assert len(orders) == len(SEEDS), "two seeds gave the same order of every exercise"


def test_the_learners_seed_comes_from_the_environment_when_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_order.SEED_VARIABLE, "42")
    exercise = CHOICES[0]
    assert exercise.order() == exercise.order("42")
    monkeypatch.delenv(_order.SEED_VARIABLE)
    assert _order.learner_seed() == _order.learner_seed() != "42"


def test_a_letter_is_judged_by_the_option_shown_under_it() -> None:
    for exercise in CHOICES:
        for seed in ("0", "9"):
            shown = exercise.order(seed)
            right = "ABCDE"[shown.index(exercise.answer)]
            with pytest.MonkeyPatch.context() as patch:
                patch.setenv(_order.SEED_VARIABLE, seed)
                assert exercise.check(right).correct
                wrong = next(letter for letter in exercise.letters if letter != right)
                assert not exercise.check(wrong).correct
                exercise.reset()
