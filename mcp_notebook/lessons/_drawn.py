"""Judging a learner's tool on inputs its chapter draws, next to the model answer, through real servers.

Some tools take inputs no schema describes well enough to draw from: a whole tool catalogue whose
descriptions may be poisoned, or two definitions of one tool of which one may have changed. Their
chapter writes a function that draws one such input from a `random.Random` (``draw(rng)``), and the
check calls the learner's tool and the served model answer with the question's teaching examples,
then with `mcp_notebook.lessons._judge.current` draws of it, fresh for each check from a seed the
feedback shows; the first answer that differs is the feedback::

    the learner's tool ── tools/call ──► notebook's server ─┐
                                                              ├─ examples, then draw(rng) × draws ─► Comparison
    the model answer   ── tools/call ──► private server  ────┘
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core._text import t
from ._behaviour import Caller, Verdict
from ._exercise import DataContext
from ._judge import check_seed, current
from ._outcomes import Comparison, Outcome, Rules
from ._reference import Reference
from ._toolcheck import ToolExercise

Draw = Callable[[random.Random], dict[str, Any]]
Show = Callable[[Mapping[str, Any]], str]


def compare_drawn(
    name: str,
    reference: Reference,
    *,
    draw: Draw,
    examples: Sequence[Mapping[str, Any]],
    rules: Rules,
    call_mine: Caller,
    show: Show,
    exercise: str,
) -> Verdict:
    """Call the learner's tool (`call_mine`) and the served `reference` with the `examples`, then with
    inputs from `draw`; the first answer that differs is the problem, its input written by `show`."""
    from mcp_notebook import call

    seed = check_seed()
    rng = random.Random(seed)
    calls = [dict(example) for example in examples] + [draw(rng) for _ in range(current().draws)]
    comparison = Comparison(rules)
    for made, arguments in enumerate(calls, 1):
        learner = Outcome.of(functools.partial(call_mine, name, arguments))
        answer = Outcome.of(
            functools.partial(call, name, arguments, url=reference.url, token=reference.token)
        )
        problem = comparison.differs(arguments, learner, answer)
        if problem is not None and learner.kind == answer.kind == "ok":
            # Short answers (a few names): both whole say more than the first field that differs.
            problem = t("lessons.judge.kind", mine=learner.shown(), model=answer.shown())
        if problem is not None:
            return Verdict(
                [
                    t("lessons.judge.differs", call=f"{name} {show(arguments)}", problem=problem),
                    t("lessons.judge.seed", seed=seed, name=exercise, count=made),
                ],
                made,
                seed,
            )
    return Verdict([], len(calls), seed)


class DrawnToolExercise(ToolExercise):
    """A "write a tool" exercise judged on inputs its chapter draws (`compare_drawn`).

    Its data names two functions of the chapter: ``draw`` (one input from a `random.Random`) and
    ``show`` (an input as the feedback writes it); its ``judge`` table gives the teaching examples
    and how answers are compared (``rules``).
    """

    kind = "drawn_tool"

    def __init__(self, chapter: str, name: str, *, draw: Draw, show: Show, **kwargs: Any) -> None:
        super().__init__(chapter, name, **kwargs)
        self.draw = draw
        self.show = show

    @classmethod
    def data_kwargs(cls, data: dict[str, Any], context: DataContext) -> dict[str, Any]:
        draw, show = context.checks[data.pop("draw")], context.checks[data.pop("show")]
        kwargs = super().data_kwargs(data, context)
        kwargs.update(draw=draw, show=show)
        return kwargs

    def _judged_problems(self, name: str, definition: dict[str, Any]) -> list[str]:
        assert self.judge is not None, "a drawn tool exercise has a judge table"
        self.verdict = None
        reference = self.reference()
        with reference.served():
            verdict = compare_drawn(
                name,
                reference,
                draw=self.draw,
                examples=self.judge.examples,
                rules=self.judge.rules,
                call_mine=self.call_tool,
                show=self.show,
                exercise=self.name,
            )
        if not verdict.problems:
            self.verdict = verdict
        return verdict.problems
