"""Each code exercise's check refuses the wrong variants of its model answer (`_mutants`): at least
95 % of the mutants that are not equivalent to it, run as a learner's answer runs.

The checks that still call fixed probes take most of them. Until a checker judges by behaviour
against the model answer, its exercise is in `FIXED_PROBES`, and its test is expected to fail (not
strictly: one that passes is reported as such); take its key out when its checker lands. The table
of every exercise, with the seconds each took, goes to ``test-artifacts/mutants.txt``, or one
``mutants-gwN.txt`` a process when the suite is spread over processes (reported, never asserted), and a failing exercise prints its survivors.

A toy exercise of the tests' own shows what the engine decides, in a few seconds: a check that reads
its thoroughness has an oracle, one of fixed probes has none.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook.lessons import Exercise, _judge
from mcp_notebook.lessons._exercise import NotAttempted, user_namespace
from mcp_notebook.lessons._mutants import HEADER, Notebook, Report, Target, code_exercises, examples, target
from mcp_notebook.lessons._toolcheck import served_catalogue

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

FIXED_PROBES: set[str] = set()
"""Code exercises whose checker has not been rewritten to judge by behaviour yet (none left)."""

CI_LIMIT, CI_ORACLE_FACTOR, CI_ORACLE_SEEDS = 20, 4, 2
"""What the suite measures with, to stay within its time on two cores: 20 mutants an exercise (every
kind of change still among them), an oracle of four times the draws from two seeds. The command
(`python scripts/lessons.py mutants`) measures with the full 40, ten times and three seeds."""

EXERCISES = code_exercises()


@pytest.fixture(scope="module")
def reports() -> Iterator[list[Report]]:
    found: list[Report] = []
    yield found
    if found:
        ARTIFACTS.mkdir(exist_ok=True)
        table = "\n".join([HEADER, *(report.row() for report in found)])
        # One table per process when the suite is spread over several (pytest-xdist names each).
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        name = f"mutants-{worker}.txt" if worker else "mutants.txt"
        (ARTIFACTS / name).write_text(table + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def notebook() -> Iterator[Notebook]:
    with Notebook("ko") as notebook:
        yield notebook


@pytest.mark.mutants  # minutes on two cores: the full suite runs it, `scripts/check --fast` does not
@pytest.mark.spread  # each exercise a minute or so: the processes of the suite share them out
@pytest.mark.parametrize(
    "key",
    [
        pytest.param(
            key,
            marks=[pytest.mark.xfail(strict=False, reason="its checker still calls fixed probes")]
            if key in FIXED_PROBES
            else [],
        )
        for key in EXERCISES
    ],
)
def test_the_check_refuses_the_wrong_variants_of_its_model_answer(
    key: str, notebook: Notebook, reports: list[Report]
) -> None:
    report = notebook.measure(
        target(key), limit=CI_LIMIT, oracle_factor=CI_ORACLE_FACTOR, oracle_seeds=CI_ORACLE_SEEDS
    )
    reports.append(report)
    print(report.text())
    assert report.passed, f"{report.text()}\n\n{HEADER}\n{report.row()}"


def test_the_code_exercises_are_found_from_the_data() -> None:
    assert {"00.q5", "01.q7", "01b.q1", "02.q5", "03.q5", "08.q8", "09.q4", "11.q4"} <= set(EXERCISES)
    # A client configuration, a raw request and the whole server are not answered with one definition.
    assert not {"07.q2", "08.q1", "09.q5"} & set(EXERCISES)
    assert set(EXERCISES) >= FIXED_PROBES, "a key of FIXED_PROBES that is no code exercise"


def test_the_teaching_examples_come_from_what_the_exercise_shows() -> None:
    assert examples({"judge": {"examples": [{"x": 1}, {"arguments": {"x": 2}}]}}) == ({"x": 1}, {"x": 2})
    probes = [{"arguments": {"x": 1}, "expect": "error"}, {"arguments": {"x": 2}, "expect": "ok"}]
    assert examples({"probes": probes}) == ({"x": 2},)
    reads = [{"uri": "data://sales/north", "expect": "ok"}]
    assert examples({"template": "data://sales/{region}", "reads": reads}) == ({"region": "north"},)
    assert examples({"required": "query", "sample": "SELECT 1"}) == ({"query": "SELECT 1"},)


# -- the engine, on a toy exercise -------------------------------------------------------------------
TOY = '''
@tool
def increment(x: int) -> int:
    """Adds one to a number: the toy answer the mutation tests measure a check with."""
    if x > 100:
        return x + 1
    else:
        pass  # compiled to nothing: without this else the code is the same
    return x + 1
'''


class Increment(Exercise):
    """A toy check: ``increment`` must be served and return x + 1, for x from 1 to `draws` when it
    judges by behaviour (300 draws reach past 100, 30 do not), else for 1 and 2."""

    kind = "toy"

    def __init__(self, *, drawing: bool) -> None:
        texts: dict[str, Any] = {
            key: {"ko": "장난감", "en": "toy"} for key in ("title", "question", "explanation")
        }
        super().__init__("99", "q1", hints=[], variable=None, **texts)
        self.drawing = drawing

    def find_answer(self) -> Any:
        if "increment" not in user_namespace():
            raise NotAttempted
        return user_namespace()["increment"]

    def evaluate(self, answer: Any) -> list[str]:
        if "increment" not in served_catalogue():
            return ["not a tool"]
        if self.drawing:
            draws = _judge.current().draws
            inputs = random.Random(_judge.check_seed()).sample(range(1, draws + 1), draws)
        else:
            inputs = [1, 2]
        return [f"increment({x}) = {answer(x)}" for x in inputs if answer(x) != x + 1][:1]


def test_a_check_that_draws_inputs_is_the_oracle_of_equivalence(notebook: Notebook) -> None:
    report = notebook.measure(Target("toy", Increment(drawing=True), TOY, examples=({"x": 1},)))
    compiled = [v.mutant for v in report.verdicts if v.reason == "compiles to the model answer's code"]
    assert [m.operator for m in compiled] == ["branch"]  # the else, removed
    assert {v.outcome for v in report.verdicts if v.mutant.operator == "compare"} == {"equivalent"}
    assert {v.outcome for v in report.verdicts if v.mutant.operator == "decorator"} == {"refused"}
    survivors = [v for v in report.verdicts if v.outcome == "survived"]
    # Wrong only past 100: the check's 30 draws miss it, the oracle's 300 do not.
    assert survivors, report.text()
    assert all("300 draws" in v.reason for v in survivors), report.text()
    assert not report.passed


def test_a_check_of_fixed_probes_has_no_oracle(notebook: Notebook) -> None:
    report = notebook.measure(Target("toy", Increment(drawing=False), TOY, examples=({"x": 1},)))
    equivalent = [v for v in report.verdicts if v.outcome == "equivalent"]
    assert [v.reason for v in equivalent] == ["compiles to the model answer's code"]
    assert report.count("survived") > report.count("refused") > 0
    assert "survived" in report.text()


def test_a_check_that_refuses_its_own_model_answer_cannot_be_measured(notebook: Notebook) -> None:
    wrong = TOY.replace("return x + 1\n", "return x\n")  # both returns
    with pytest.raises(ValueError, match="refuses the model answer"):
        notebook.measure(Target("toy", Increment(drawing=False), wrong))


def test_noting_reads_tells_a_check_that_draws_inputs_from_one_that_does_not() -> None:
    with _judge.noting_reads() as reads:
        pass
    assert reads == []
    with _judge.noting_reads() as reads, _judge.thoroughness(300, seed=1):
        _judge.check_seed()
    assert reads == [_judge.Thoroughness(300, 1)]
    _judge.current()  # outside the block nothing is noted
    assert len(reads) == 1


class Crashing(Increment):
    """A toy check with a bug: it raises instead of refusing an answer wrong at 1."""

    def evaluate(self, answer: Any) -> list[str]:
        if answer(1) != 2:
            raise RuntimeError("a bug of the check's own")
        return super().evaluate(answer)


def test_a_check_that_raises_has_not_refused_the_mutant(notebook: Notebook) -> None:
    report = notebook.measure(Target("toy", Crashing(drawing=False), TOY))
    raised = [v for v in report.verdicts if v.reason.startswith("the check itself raised RuntimeError")]
    assert raised and all(v.outcome == "survived" for v in raised)
