"""Multiple-choice exercises are fair: the right option's place and length tell nothing.

Options are shown in an order shuffled per learner and per exercise, stable for that learner (a seed),
so the committed notebooks (seed ``"0"``) are deterministic under nbval while two learners see different
orders. Each exercise is shuffled on its own: over many learners the right option sits at each position
about equally often, and the places of three answers in a row do not tell the place of the fourth.
In each language the right option is at most 1.25 times as long as the others on average, and it is
the longest option in at most half of the exercises.
"""

from __future__ import annotations

import importlib
from collections import Counter
from itertools import pairwise
from statistics import mean

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
"""Every multiple-choice exercise, in course order."""
SEEDS = [*(str(n) for n in range(20)), "c0ffee", "a-learner@a-laptop"]
LEARNERS = [f"learner-{n}" for n in range(2000)]
"""Many seeds, for what holds over learners rather than for one."""
LONGEST_RATIO = 1.25


def lengths(exercise: MultipleChoice, language: str) -> tuple[int, list[int]]:
    """The length of the right option, and of each other one, in characters."""
    right = len(exercise._texts[f"option.{exercise.answer}"][language])
    others = [
        len(exercise._texts[f"option.{option}"][language])
        for option in exercise.ids
        if option != exercise.answer
    ]
    return right, others


def place(exercise: MultipleChoice, seed: str) -> int:
    return exercise.order(seed).index(exercise.answer)


def test_the_course_has_multiple_choice_exercises() -> None:
    assert len(CHOICES) >= 10


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_right_option_is_at_most_a_quarter_longer_than_the_others(language: str) -> None:
    too_long = []
    for exercise in CHOICES:
        right, others = lengths(exercise, language)
        ratio = right / mean(others)
        if ratio > LONGEST_RATIO:
            too_long.append(f"{exercise.chapter}.{exercise.name}: {ratio:.2f}")
    assert too_long == [], f"the right option is over {LONGEST_RATIO}× the others' mean length: {too_long}"


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_right_option_is_the_longest_in_at_most_half_of_them(language: str) -> None:
    longest = []
    for exercise in CHOICES:
        right, others = lengths(exercise, language)
        if right >= max(others):
            longest.append(f"{exercise.chapter}.{exercise.name}")
    assert 2 * len(longest) <= len(CHOICES), (
        f"the right option is the longest in {len(longest)}/{len(CHOICES)}: {longest}"
    )


@pytest.mark.parametrize("exercise", CHOICES, ids=lambda e: f"{e.chapter}.{e.name}")
def test_over_many_learners_the_right_option_sits_at_each_position_about_equally(
    exercise: MultipleChoice,
) -> None:
    places = Counter(place(exercise, seed) for seed in LEARNERS)
    share = {position: places[position] / len(LEARNERS) for position in range(len(exercise.ids))}
    even = 1 / len(exercise.ids)
    # 2000 learners: one position's share has a standard deviation under 0.01 around `even`
    assert all(abs(value - even) < 0.05 for value in share.values()), share


@pytest.mark.parametrize("start", range(len(CHOICES) - 3))
def test_three_answers_in_a_row_do_not_tell_the_fourth(start: int) -> None:
    run = CHOICES[start : start + 4]
    told = cases = 0
    for seed in LEARNERS:
        *first, fourth = (place(exercise, seed) for exercise in run)
        if len(set(first)) == 3:
            cases += 1
            told += fourth not in first
    # if the four were dealt one letter each, the missing letter would come every time; shuffled on
    # their own it comes once in four
    assert cases > 100
    assert told / cases < 0.35, f"the fourth was the letter the three left out in {told}/{cases}"


def test_one_answer_does_not_tell_the_next() -> None:
    for before, after in pairwise(CHOICES):
        same = sum(place(before, seed) == place(after, seed) for seed in LEARNERS)
        assert 0.18 < same / len(LEARNERS) < 0.32, (
            f"{before.chapter}.{before.name} → {after.chapter}.{after.name}: {same}"
        )


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
