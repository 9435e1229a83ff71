"""What a run of the agent loop is made of: what a model decides (`Call`, `Answer`), what came back
(`Step`), and the record of a whole run (`Run`), printable as a trace in the current language."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..core._text import clip, t


@dataclass(frozen=True)
class Call:
    """The model wants `tool` called with `arguments` (`id`: the endpoint's id of that call)."""

    tool: str
    arguments: dict[str, Any]
    reason: str = ""
    id: str = ""


@dataclass(frozen=True)
class Answer:
    """The model answers the person (and calls nothing more)."""

    text: str


@dataclass(frozen=True)
class Step:
    """One call of a run and what came back: the result's text, whether it was an error, and its
    structured content (None when it had none)."""

    call: Call
    text: str
    is_error: bool
    protocol_error: bool = False
    structured: Any = None


class Model(Protocol):
    """What the loop needs of a model: given the request, the tools and the steps so far, decide."""

    def decide(self, request: str, tools: list[dict[str, Any]], steps: list[Step]) -> Call | Answer: ...


@dataclass
class Run:
    """What a run of the loop did: its request, the scores (scripted model), every step, the answer."""

    request: str
    steps: list[Step] = field(default_factory=list)
    answer: str = ""
    scores: list[tuple[str, float, list[str]]] = field(default_factory=list)

    @property
    def picked(self) -> str | None:
        """The tool the model called first (None: it called none)."""
        return self.steps[0].call.tool if self.steps else None

    @property
    def final(self) -> Step | None:
        """The last call that succeeded (None: none did)."""
        return next((step for step in reversed(self.steps) if not step.is_error), None)

    @property
    def solved_by(self) -> str | None:
        """The tool whose call last succeeded (None: no call succeeded)."""
        final = self.final
        return final.call.tool if final is not None else None

    def lines(self) -> list[str]:
        """The trace: the request, the scores, each call with its result, the answer."""
        lines = [t("agent.request", request=self.request)]
        if self.scores:
            shown = ", ".join(
                f"{name} {_points(score)}" + (f" ({', '.join(words)})" if words else "")
                for name, score, words in self.scores
            )
            lines.append(t("agent.scores", scores=shown))
        for number, step in enumerate(self.steps, 1):
            arguments = json.dumps(step.call.arguments, ensure_ascii=False)
            if step.call.reason:
                lines.append(f"   {step.call.reason}")
            mark = "isError" if step.is_error else "ok"
            if step.protocol_error:
                mark = t("agent.protocol_error")
            lines.append(
                f"{number}. {step.call.tool} {arguments} → {mark}: {clip(' '.join(step.text.split()), 160)}"
            )
        lines.append(t("agent.answer", answer=clip(" ".join(self.answer.split()), 200)))
        return lines

    def __repr__(self) -> str:
        return "\n".join(self.lines())


def _points(score: float) -> str:
    """A score as the trace shows it: one decimal, none when it is whole (``3``, ``2.4``)."""
    return f"{round(score, 1):g}"
