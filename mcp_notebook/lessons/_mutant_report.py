"""What a check made of an exercise's mutants: each verdict, the counts and the score, the lines
``scripts/lessons.py mutants`` prints for an exercise and its row in the table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ._mutations import Mutant

THRESHOLD = 0.95
"""The share of non-equivalent mutants an exercise's check must refuse."""

Outcome = Literal["refused", "survived", "equivalent"]

FIXED = "taken by a check that draws no inputs: no oracle but the compiled code"


@dataclass(frozen=True)
class Verdict:
    """What became of one mutant, why (the check's first complaint, or what decided equivalence),
    and the seconds its checks took."""

    mutant: Mutant
    outcome: Outcome
    reason: str
    seconds: float = 0.0


@dataclass
class Report:
    """What the check of one exercise made of its mutants."""

    key: str
    language: str
    verdicts: list[Verdict] = field(default_factory=list)
    distinct: int = 0
    seconds: float = 0.0
    unmeasured: str | None = None
    """Why the exercise could not be measured (its check refuses its own model answer), if so."""

    def count(self, outcome: Outcome) -> int:
        return sum(v.outcome == outcome for v in self.verdicts)

    @property
    def score(self) -> float:
        """Refused / non-equivalent (1.0 when every mutant is equivalent: nothing was missed)."""
        judged = self.count("refused") + self.count("survived")
        return self.count("refused") / judged if judged else 1.0

    @property
    def passed(self) -> bool:
        return self.unmeasured is None and self.score >= THRESHOLD

    def row(self) -> str:
        if self.unmeasured is not None:
            return f"{self.key:<7} {self.language:<4} not measured: the check refuses the model answer"
        run = sum(v.seconds > 0 for v in self.verdicts)
        each = self.seconds / run if run else 0.0
        return (
            f"{self.key:<7} {self.language:<4} {len(self.verdicts):>9} {self.count('equivalent'):>10} "
            f"{self.count('refused'):>7} {self.count('survived'):>8} {self.score:>6.0%} "
            f"{self.seconds:>7.1f} {each:>9.2f}"
        )

    def text(self, *, refused: bool = False) -> str:
        """The exercise's line, then each survivor and each equivalent mutant (the refused too, if asked)."""
        if self.unmeasured is not None:
            return f"{self.key} ({self.language}): not measured: {self.unmeasured}"
        capped = f" (of {self.distinct} distinct)" if self.distinct > len(self.verdicts) else ""
        judged = self.count("refused") + self.count("survived")
        lines = [
            f"{self.key} ({self.language}): {len(self.verdicts)} mutants{capped}, "
            f"{self.count('equivalent')} equivalent, {self.count('refused')} refused, "
            f"{self.count('survived')} survived: score {self.score:.0%} ({self.count('refused')}/{judged}), "
            f"{self.seconds:.1f} s"
        ]
        shown = ("survived", "equivalent", "refused") if refused else ("survived", "equivalent")
        for outcome in shown:
            for verdict in (v for v in self.verdicts if v.outcome == outcome):
                m = verdict.mutant
                lines.append(f"  {outcome:<10} L{m.line:<3} {m.operator:<16} {m.diff}")
                if verdict.reason != FIXED:
                    lines.append(f"  {'':<10} {'':<4} {'':<16} ({verdict.reason})")
        return "\n".join(lines)


HEADER = "exercise lang generated equivalent refused survived  score seconds s/mutant"
