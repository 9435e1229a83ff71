"""Mutation testing of the lessons' checkers: how many wrong variants of a model answer a check refuses.

    python scripts/lessons.py mutants [01.q7 ...]

A code exercise is one answered by defining a tool, a resource or a prompt: its data's ``solution``
(the model answer) serves a function. `Notebook.measure` makes the mutants of the model answer
(`mcp_notebook.lessons._mutations`) and runs each the way a learner's answer runs, in one IPython
shell with a server running: the namespace fresh for each answer (so the state the ``given`` code
makes starts over), the default catalogue emptied, the notebook's imports (`PRELUDE`), the
exercise's ``given`` code, the mutant; then ``exercise.check()`` reads the notebook.

Each mutant is *refused* (the check says it is wrong), *survived* (the check takes it) or
*equivalent*: it compiles to the model answer's code, or the exercise's own check made ten times as
thorough (`mcp_notebook.lessons._judge.thoroughness`), from three seeds, takes it every time. Only a
check that reads its thoroughness (one that draws inputs) can be that oracle: a check of fixed
probes takes a variant because it did not look, so there only the compiled code decides. The score is
refused / (refused + survived); below `THRESHOLD` an exercise fails.

An instructor measures an exercise of their own the same way, from a fresh kernel or script::

    from mcp_notebook.lessons._mutants import Notebook, Target

    with Notebook("ko") as notebook:
        report = notebook.measure(Target("mine", my_exercise, SOLUTION, given=GIVEN, examples=({"x": 1},)))
    print(report.text())
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import io
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..core._text import Language, clip, get_language, set_language
from . import _content, _judge, _mutation_sites, _mutations
from ._exercise import Exercise, Feedback, given_code
from ._mutant_report import FIXED, HEADER, THRESHOLD, Outcome, Report, Verdict
from ._progress import PROGRESS_VARIABLE

PRELUDE = (
    "from typing import Annotated, Literal\n"
    "from pydantic import Field\n"
    "from mcp_notebook import Context, ToolError, prompt, resource, tool\n"
)
"""What the notebook has imported when a learner answers."""

LIMIT = 40
"""Mutants run per exercise at most (besides those equivalent by their code, which cost nothing)."""

ORACLE_FACTOR = 10
ORACLE_SEEDS = 3
"""The oracle of equivalence: the exercise's check with `ORACLE_FACTOR` times its draws, from
`ORACLE_SEEDS` seeds after the checks' own."""


class Unmeasurable(ValueError):
    """An exercise whose check refuses its own model answer: no mutant of it can be judged."""


@dataclass(frozen=True)
class Target:
    """An exercise to measure: its check, its model answer, the code before it, its teaching examples."""

    key: str
    exercise: Exercise
    solution: str
    given: str = ""
    examples: tuple[dict[str, Any], ...] = ()


# -- the exercises -----------------------------------------------------------------------------------
def exercise_of(key: str) -> Exercise:
    chapter, name = key.split(".")
    return getattr(importlib.import_module(f"mcp_notebook.lessons.ch{chapter}"), name)  # type: ignore[no-any-return]


def code_exercises() -> list[str]:
    """The code exercises of the course, in order (``"01.q7"``): a model answer that serves a function,
    judged by a kind that reads the notebook rather than an answer variable."""
    found = []
    for chapter in _content.chapters():
        data = _content.chapter_data(chapter)
        for name in _content.exercise_names(data):
            solution = data[name].get("solution")
            text = solution.get("ko", "") if isinstance(solution, dict) else solution or ""
            if _mutations.serves(text) and exercise_of(f"{chapter}.{name}").variable is None:
                found.append(f"{chapter}.{name}")
    return found


def target(key: str, language: str = "ko") -> Target:
    """The exercise `key` (``"01.q7"``, ``"ch01.q7"``) as its chapter's data describes it."""
    chapter, name = key.removeprefix("ch").split(".")
    table = _content.chapter_data(chapter)[name]
    solution = table["solution"]
    text = solution[language] if isinstance(solution, dict) else solution
    return Target(
        f"{chapter}.{name}",
        exercise_of(f"{chapter}.{name}"),
        text,
        given_code(table.get("given", ""), language),
        examples(table, language),
    )


def examples(table: dict[str, Any], language: str = "ko") -> tuple[dict[str, Any], ...]:
    """The teaching examples of an exercise's data, as arguments: its ``judge.examples``, else the
    calls it shows succeeding (probes, reads of a template, a prompt's sample, a model's runs)."""
    listed = table.get("judge", {}).get("examples")
    if listed:
        return tuple(dict(e.get("arguments", e)) if isinstance(e, dict) else {} for e in listed)
    found = [dict(p["arguments"]) for p in table.get("probes", []) if p.get("expect") == "ok"]
    template = str(table.get("template", ""))
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
    for read in table.get("reads", []):
        matched = re.fullmatch(pattern, read["uri"]) if template else None
        if read.get("expect") == "ok" and matched:
            found.append(matched.groupdict())
    if "required" in table and "sample" in table:
        found.append({table["required"]: table["sample"]})
    for run in table.get("runs", []):
        if run.get("solved_by") == table.get("tool") and run.get("arguments", {}).get(language):
            found.append(dict(run["arguments"][language]))
    return tuple(found)


# -- the notebook ------------------------------------------------------------------------------------
class Notebook(contextlib.AbstractContextManager["Notebook"]):
    """A learner's notebook for a run of mutants: the IPython shell, a running server, and for each
    answer a fresh namespace and an empty default catalogue. Progress is not recorded meanwhile.
    """

    def __init__(self, language: Language = "ko") -> None:
        self.language = language

    def __enter__(self) -> Notebook:
        from IPython.core.interactiveshell import InteractiveShell
        from traitlets.config import Config

        import mcp_notebook

        catalogue = mcp_notebook.default_catalogue
        if any([*catalogue.tools(), *catalogue.resources(), *catalogue.templates(), *catalogue.prompts()]):
            raise RuntimeError(
                "the default catalogue serves something already, and mutants empty it for every answer: "
                "measure in a process of its own (python scripts/lessons.py mutants)"
            )
        # A shell made here keeps no history file: these cells are no one's work.
        self.shell = InteractiveShell.instance(config=Config({"HistoryManager": {"enabled": False}}))
        self._saved = dict(self.shell.user_ns)
        self._progress = os.environ.get(PROGRESS_VARIABLE)
        os.environ[PROGRESS_VARIABLE] = "off"
        self._language = get_language()
        set_language(self.language)
        self._started = mcp_notebook.current_server() is None
        self.server = mcp_notebook.serve()
        return self

    def __exit__(self, *exc: object) -> None:
        import mcp_notebook

        if self._started:
            self.server.stop()
        mcp_notebook.default_catalogue.clear()
        self.shell.user_ns.clear()
        self.shell.user_ns.update(self._saved)
        set_language(self._language)
        if self._progress is None:
            os.environ.pop(PROGRESS_VARIABLE, None)
        else:
            os.environ[PROGRESS_VARIABLE] = self._progress

    def answer(self, given: str, code: str) -> str | None:
        """Start the notebook over, run the prelude, `given` and `code`; what `code` raised, if anything."""
        import mcp_notebook

        self.shell.user_ns.clear()
        self.shell.user_ns.update(self._saved)
        self.shell.user_ns["srv"] = self.server
        mcp_notebook.default_catalogue.clear()
        failed = self._run(PRELUDE + given)
        if failed:
            raise RuntimeError(f"the exercise's given code does not run: {failed}")
        return self._run(code)

    def _run(self, code: str) -> str | None:
        # A cell's traceback goes to stdout, where it would break up the table.
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            result = self.shell.run_cell(code, silent=True)  # type: ignore[no-untyped-call]  # IPython is untyped
        error = result.error_before_exec or result.error_in_exec
        return None if error is None else f"{type(error).__name__}: {clip(str(error), 80)}"

    def check(self, exercise: Exercise, *, draws: int, seed: int) -> tuple[Feedback, bool]:
        """`exercise`'s check of what the notebook holds, and whether it read its thoroughness."""
        exercise.reset()
        with _judge.noting_reads() as reads, _judge.thoroughness(draws, seed=seed):
            feedback = exercise.check()
        return feedback, bool(reads)

    def measure(
        self,
        target: Target,
        *,
        limit: int = LIMIT,
        seed: int = 0,
        oracle_factor: int = ORACLE_FACTOR,
        oracle_seeds: int = ORACLE_SEEDS,
    ) -> Report:
        """Run the mutants of `target`'s model answer through its check (at most `limit` of them, see
        `mcp_notebook.lessons._mutations.spread`); checks draw from `seed`, the oracle (`oracle_factor`
        times the draws) from the `oracle_seeds` seeds after it.

        Raises
        ------
        Unmeasurable
            When the exercise's check refuses its own model answer: nothing can be measured then.
        """
        started = time.perf_counter()
        draws = _judge.current().draws
        failed = self.answer(target.given, target.solution)
        feedback, drawing = self.check(target.exercise, draws=draws, seed=seed)
        if failed or not feedback.correct:
            raise Unmeasurable(
                f"the check refuses the model answer{f' ({failed})' if failed else ''}:\n{feedback!r}"
            )
        found = _mutations.mutants(target.solution, given=target.given, example=self._example(target))
        equivalent = [m for m in found if m.equivalent]
        chosen = _mutations.spread([m for m in found if not m.equivalent], limit)
        report = Report(target.key, self.language, distinct=len(found))
        report.verdicts += [
            Verdict(m, "equivalent", "compiles to the model answer's code") for m in equivalent
        ]
        self._oracle = (oracle_factor, oracle_seeds)
        for mutant in chosen:
            report.verdicts.append(self._verdict(target, mutant, draws=draws, seed=seed, drawing=drawing))
        report.seconds = time.perf_counter() - started
        return report

    def _verdict(
        self, target: Target, mutant: _mutations.Mutant, *, draws: int, seed: int, drawing: bool
    ) -> Verdict:
        started = time.perf_counter()

        def verdict(outcome: Outcome, reason: str) -> Verdict:
            return Verdict(mutant, outcome, reason, time.perf_counter() - started)

        failed = self.answer(target.given, mutant.source)
        try:
            return self._judged(target, mutant, verdict, failed, draws=draws, seed=seed, drawing=drawing)
        except Exception as exc:  # the checker's own bug: a learner would see a traceback, not advice
            return verdict("survived", f"the check itself raised {type(exc).__name__}: {clip(str(exc), 80)}")

    def _judged(
        self,
        target: Target,
        mutant: _mutations.Mutant,
        verdict: Callable[[Outcome, str], Verdict],
        failed: str | None,
        *,
        draws: int,
        seed: int,
        drawing: bool,
    ) -> Verdict:
        feedback, read = self.check(target.exercise, draws=draws, seed=seed)
        if not feedback.correct:
            return verdict("refused", failed or _first_problem(feedback))
        if not (drawing or read):
            return verdict("survived", FIXED)
        factor, count = getattr(self, "_oracle", (ORACLE_FACTOR, ORACLE_SEEDS))
        seeds = range(seed + 1, seed + 1 + count)
        for oracle_seed in seeds:
            self.answer(target.given, mutant.source)
            feedback, _ = self.check(target.exercise, draws=draws * factor, seed=oracle_seed)
            if not feedback.correct:
                shown = f"{draws * factor} draws, seed {oracle_seed}"
                return verdict("survived", f"a check with {shown} refuses it: {_first_problem(feedback)}")
        shown = ", ".join(map(str, seeds))
        return verdict("equivalent", f"checks with {draws * factor} draws, seeds {shown}, take it")

    def _example(self, target: Target) -> _mutations.Example | None:
        """The first teaching example the model answer's function can be called with, and its output."""
        served = [f.name for f in _mutation_sites.served_functions(ast.parse(target.solution))]
        for arguments in target.examples:
            self.answer(target.given, target.solution)  # the state as the learner's call would find it
            function = self.shell.user_ns.get(served[0]) if served else None
            if not callable(function):
                return None
            parameters = inspect.signature(function).parameters
            called = {k: v for k, v in arguments.items() if k in parameters}
            try:
                inspect.signature(function).bind(**called)
                return _mutations.Example(called, function(**called))
            except Exception:  # a Context to pass, a refusal: not an example to hard-code
                continue
        return None


def _first_problem(feedback: Feedback) -> str:
    return clip(" ".join((feedback.lines or [feedback.heading])[0].split()), 120)


def measure(
    keys: list[str], *, language: Language = "ko", limit: int = LIMIT, seed: int = 0
) -> Iterator[Report]:
    """The reports of the code exercises `keys` (``"01.q7"``; a chapter ``"01"`` means all of its
    own; none means every one), measured in one `Notebook`, each as soon as it is done."""
    every = code_exercises()
    wanted = [k.removeprefix("ch") for k in keys] or every
    chosen = [k for k in every if k in wanted or k.split(".")[0] in wanted]
    unknown = [k for k in wanted if k not in chosen and not any(c.split(".")[0] == k for c in chosen)]
    if unknown:
        raise ValueError(f"no code exercise {', '.join(unknown)}; there are: {', '.join(every)}")
    with Notebook(language) as notebook:
        for key in chosen:
            try:
                yield notebook.measure(target(key, language), limit=limit, seed=seed)
            except Unmeasurable as exc:
                yield Report(key, language, unmeasured=str(exc))


__all__ = [
    "FIXED",
    "HEADER",
    "LIMIT",
    "PRELUDE",
    "THRESHOLD",
    "Notebook",
    "Report",
    "Target",
    "Unmeasurable",
    "Verdict",
    "code_exercises",
    "examples",
    "measure",
    "target",
]
