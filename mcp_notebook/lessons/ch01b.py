"""Exercises of chapter 01b (모델이 도구를 고르는 법): the learner improves a tool's description,
its schema and its error message until a model's loop picks it and corrects itself.

>>> from mcp_notebook.lessons.ch01b import q1, q2, q3, q4

Their content is data: ``content/ch01b/exercises.toml``; the kind of q1–q3 is defined here. The loop
is `mcp_notebook.lessons._agent` (a scripted model, so every run is the same).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core._text import get_language, t
from ._agent import ChatCompletionsModel, SamplingModel, ScriptedModel, run_agent
from ._content import load_exercises
from ._exercise import DataContext, NotAttempted
from ._texts import Text, as_text
from ._toolcheck import ToolExercise, served_catalogue

EXERCISES = ["q1", "q2", "q3", "q4"]
__all__ = [*EXERCISES, "ChatCompletionsModel", "SamplingModel", "ScriptedModel", "run_agent"]


@dataclass(frozen=True)
class AgentRun:
    """One request the checker gives the model's loop, and how the run must end: solved by the tool
    `solved_by`, whose successful call had (at least) `arguments` (per language, when given)."""

    request: Text
    solved_by: str
    arguments: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    advice: Text | None = field(default=None, compare=False)

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> AgentRun:
        data = dict(data)
        run = cls(
            as_text(data.pop("request")),
            data.pop("solved_by"),
            arguments=data.pop("arguments", {}),
            advice=data.pop("advice", None),
        )
        if data:
            raise ValueError(f"an agent run: unknown keys {sorted(data)}")
        return run


class AgentExercise(ToolExercise):
    """The learner (re)defines a tool; the checker reads its definition through the real server, then
    lets the scripted model's loop handle each request of `runs` and judges how each run ended."""

    kind = "agent"

    def __init__(self, chapter: str, name: str, *, runs: list[AgentRun], **kwargs: Any) -> None:
        super().__init__(chapter, name, **kwargs)
        self.runs = runs
        self._add_texts({f"run.{i}": r.advice for i, r in enumerate(runs) if r.advice is not None})
        self._chapters_tool: Any = None

    def reset(self) -> None:
        super().reset()
        self._chapters_tool = None

    # The chapter defines the tool badly before it asks for a better one. The version served when the
    # question is shown is the chapter's, not an answer: checking it would count an attempt nobody made.
    def _note_chapters_tool(self) -> None:
        entry = served_catalogue().get(self.tool) if self.tool in served_catalogue() else None
        self._chapters_tool = entry.fn if entry is not None else None

    def __repr__(self) -> str:
        self._note_chapters_tool()
        return super().__repr__()

    def _repr_html_(self) -> str:
        self._note_chapters_tool()
        return super()._repr_html_()

    def find_answer(self) -> Any:
        entry = served_catalogue().get(self.tool) if self.tool in served_catalogue() else None
        if entry is not None and self._chapters_tool is not None and entry.fn is self._chapters_tool:
            raise NotAttempted
        return super().find_answer()

    @classmethod
    def data_kwargs(cls, data: dict[str, Any], context: DataContext) -> dict[str, Any]:
        runs = [AgentRun.from_data(run) for run in data.pop("runs")]
        kwargs = super().data_kwargs(data, context)
        kwargs["runs"] = runs
        return kwargs

    def praise(self) -> list[str]:
        return [t("agent.checked", runs=len(self.runs)), *super(ToolExercise, self).praise()]

    def _probe_problems(self, name: str) -> list[str]:
        problems = super()._probe_problems(name)  # the tool's own probes first, then the model's runs
        for index, expected in enumerate(self.runs):
            request = expected.request[get_language()]
            run = run_agent(request)
            wanted = expected.arguments.get(get_language(), {})
            done = [s for s in run.steps if not s.is_error and s.call.tool == expected.solved_by]
            if done and all(done[-1].call.arguments.get(k) == v for k, v in wanted.items()):
                continue
            problems.append(t("agent.run_failed", request=request, tool=expected.solved_by))
            problems += [f"- {line.strip()}" for line in run.lines()]
            if expected.advice is not None:
                problems.append(self.text(f"run.{index}"))
        return problems


q1, q2, q3, q4 = load_exercises("01b", EXERCISES, kinds={"agent": AgentExercise})
