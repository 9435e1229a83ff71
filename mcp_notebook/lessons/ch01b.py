"""Exercises of chapter 01b (모델이 도구를 고르는 법): the learner improves a tool's description,
its schema and its error message until a model's loop picks it, fills it and corrects itself.

>>> from mcp_notebook.lessons.ch01b import q1, q2, q3, q4

Their content is data: ``content/ch01b/exercises.toml``; the kind of q1–q3 is defined here. The loop
is `mcp_notebook.lessons._agent` (a scripted model, so every run is the same). An agent exercise is
judged by what the words do: the loop is given many requests, in Korean and English, with other tools
on the list, and each run must end as its data says (the right tool, the right number from the data,
or a question back; `AgentRun`). No rule counts words or characters.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core._text import Language, get_language, t
from ._agent import Call, ChatCompletionsModel, Run, SamplingModel, ScriptedModel, run_agent
from ._content import chapter_data, load_exercises
from ._exercise import DataContext, NotAttempted, user_namespace
from ._texts import LESSON_LANGUAGES, Text, as_text
from ._toolcheck import ToolExercise, served_catalogue

EXERCISES = ["q1", "q2", "q3", "q4"]
__all__ = [*EXERCISES, "Call", "ChatCompletionsModel", "SamplingModel", "ScriptedModel", "run_agent"]


@dataclass(frozen=True)
class AgentRun:
    """One request the checker gives the model's loop, and how the run must end.

    Attributes
    ----------
    solved_by:
        The tool whose successful call must end the run, with (at least) `arguments` (per language
        when given so) and, when given, the result `answer` (the number in the chapter's data).
    picks:
        Instead: the other tool this request belongs to, which the model must call first; the
        exercise's tool must not be called at all.
    asks:
        The request leaves something out: no call of `solved_by` may succeed (the model must ask).
    first:
        Arguments (per language) of a bad call of the exercise's tool, forced first (``run_agent(...,
        first=...)``), as a model might make it: the run shows how the model recovers.
    avoids:
        Tools the model must get the run done without: a message that could have named the fix
        itself, but sends the model on a detour through another tool, is not enough.
    """

    request: Text
    solved_by: str | None = None
    picks: str | None = None
    arguments: Mapping[str, Any] = field(default_factory=dict)
    answer: Any = None
    asks: bool = False
    first: Mapping[str, Mapping[str, Any]] | None = None
    avoids: tuple[str, ...] = ()
    advice: Text | None = field(default=None, compare=False)

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> AgentRun:
        data = dict(data)
        run = cls(
            as_text(data.pop("request")),
            solved_by=data.pop("solved_by", None),
            picks=data.pop("picks", None),
            arguments=data.pop("arguments", {}),
            answer=data.pop("answer", None),
            asks=data.pop("asks", False),
            first=data.pop("first", None),
            avoids=tuple(data.pop("avoids", ())),
            advice=data.pop("advice", None),
        )
        if data:
            raise ValueError(f"an agent run: unknown keys {sorted(data)}")
        if (run.solved_by is None) == (run.picks is None):
            raise ValueError(f"an agent run names solved_by or picks, one of them: {dict(run.request)}")
        return run

    def arguments_in(self, language: str) -> Mapping[str, Any]:
        """The arguments the final call must have, in `language` (the same in both when not split)."""
        if set(self.arguments) <= set(LESSON_LANGUAGES) and self.arguments:
            return dict(self.arguments.get(language, {}))
        return self.arguments


# -- the other tools on the list while a check runs ---------------------------------------------------------
def _stations() -> dict[str, Any]:
    found = user_namespace().get("STATIONS")
    return found if isinstance(found, dict) else {}


def find_station(name: str) -> dict[str, str]:
    for station_id, station in _stations().items():
        if name in str(station.get("name", "")):
            return {"station_id": station_id, "name": str(station["name"])}
    from mcp_notebook import ToolError

    raise ToolError(t("agent.distractor_missing", name=name))


def ride_history() -> dict[str, float]:
    return {"rides": 12, "km": 34.5}


def rental_fee(hours: int) -> int:
    return 1000 * hours


def nearby_stations(place: str) -> list[str]:
    return [str(station.get("name", "")) for station in _stations().values()][:3]


DISTRACTORS: dict[str, Callable[..., Any]] = {
    "find_station": find_station,
    "ride_history": ride_history,
    "rental_fee": rental_fee,
    "nearby_stations": nearby_stations,
}
"""What the checker's own copies of the other tools do (their descriptions are the chapter's data)."""


@contextlib.contextmanager
def distractors(names: list[str]) -> Iterator[list[str]]:
    """Serve the tools `names` the notebook does not serve yet, for the block (not listed to outside
    clients: ``expose=False``); yields every name on the list. The notebook's own tools stay as they are."""
    from mcp_notebook import tool

    catalogue = served_catalogue()
    texts = chapter_data("01b")["distractors"]
    added = []
    for name in names:
        if name in catalogue:
            continue
        description = as_text(texts[name]["description"])[get_language()]
        tool(
            name=name, description=description, read_only=True, expose=False, lint=False, catalogue=catalogue
        )(DISTRACTORS[name])
        added.append((name, catalogue.get(name)))
    try:
        yield list(names)
    finally:
        for name, entry in added:
            if catalogue.get(name) is entry:
                catalogue.remove(name)


# -- the exercise -------------------------------------------------------------------------------------------
class AgentExercise(ToolExercise):
    """The learner (re)defines a tool; the checker reads its definition through the real server, then
    lets the scripted model's loop handle each request of `runs` and judges how each run ended."""

    kind = "agent"

    def __init__(
        self,
        chapter: str,
        name: str,
        *,
        runs: list[AgentRun],
        every_language: bool = False,
        distractors: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("params", [])
        kwargs.setdefault("probes", [])
        super().__init__(chapter, name, **kwargs)
        self.runs = runs
        self.every_language = every_language
        self.distractors = list(distractors or [])
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
        every_language = data.pop("every_language", False)
        names = data.pop("distractors", [])
        kwargs = super().data_kwargs(data, context)
        kwargs.update(runs=runs, every_language=every_language, distractors=names)
        return kwargs

    def kind_data(self) -> dict[str, Any]:
        data = super().kind_data()
        if not data.get("params"):
            data.pop("params", None)
        if self.every_language:
            data["every_language"] = True
        if self.distractors:
            data["distractors"] = list(self.distractors)
        return data

    def _attempts(self) -> list[tuple[int, AgentRun, Language]]:
        """Each run in the notebook's language, then (with `every_language`) in the other one."""
        here = get_language()
        languages = (
            [here, *(lang for lang in LESSON_LANGUAGES if lang != here)] if self.every_language else [here]
        )
        return [(i, run, lang) for i, run in enumerate(self.runs) for lang in languages]

    def praise(self) -> list[str]:
        lines = [t("agent.checked", runs=len(self._attempts()))]
        if self.distractors:
            lines.append(t("agent.distractors", tools=", ".join(self.distractors)))
        return [*lines, *super(ToolExercise, self).praise()]

    def _probe_problems(self, name: str) -> list[str]:
        problems = super()._probe_problems(name)  # the tool's own probes first, then the model's runs
        attempts = self._attempts()
        failures: list[tuple[int, tuple[str, bool], Run]] = []
        with distractors(self.distractors):
            for index, expected, language in attempts:
                request = expected.request[language]
                first = None
                if expected.first is not None:
                    first = Call(self.tool, dict(expected.first.get(language, expected.first)))
                run = run_agent(request, first=first)
                judged = self._judge_run(expected, request, language, run)
                if judged is not None:
                    failures.append((index, judged, run))
        if failures:
            index, (problem, by_the_body), run = failures[0]
            problems.append(t("agent.runs_failed", failed=len(failures), runs=len(attempts)))
            problems.append(problem)
            problems += [f"- {line.strip()}" for line in run.lines()]
            if by_the_body:  # the words worked; what the function returned did not
                problems.append(t("agent.body_advice"))
            elif self.runs[index].advice is not None:
                problems.append(self.text(f"run.{index}"))
        return problems

    def _judge_run(
        self, expected: AgentRun, request: str, language: str, run: Run
    ) -> tuple[str, bool] | None:
        """What went wrong in `run`, and whether only the tool's result was wrong (None: it ended as
        `expected` says)."""
        called = [step.call.tool for step in run.steps]
        if expected.picks is not None:
            if self.tool in called:
                return t("agent.run_stolen", request=request, tool=self.tool), False
            if run.picked != expected.picks:
                return t("agent.run_not_picked", request=request, expected=expected.picks), False
            return None
        final = run.final
        if expected.asks:
            if final is not None and final.call.tool == expected.solved_by:
                return t("agent.run_should_ask", request=request, tool=expected.solved_by), False
            return None
        if final is None or final.call.tool != expected.solved_by:
            return t("agent.run_failed", request=request, tool=expected.solved_by), False
        detour = next((tool for tool in expected.avoids if tool in called), None)
        if detour is not None:
            return t("agent.run_detour", request=request, tool=self.tool, detour=detour), False
        wanted = expected.arguments_in(language)
        if any(final.call.arguments.get(k) != v for k, v in wanted.items()):
            got = json.dumps(final.call.arguments, ensure_ascii=False)
            return t(
                "agent.run_wrong_arguments",
                request=request,
                tool=expected.solved_by,
                got=got,
                expected=json.dumps(dict(wanted), ensure_ascii=False),
            ), False
        if expected.answer is not None and not _same_value(
            _result_of(final.structured, final.text), expected.answer
        ):
            return t(
                "agent.run_wrong_answer",
                request=request,
                tool=expected.solved_by,
                got=_result_of(final.structured, final.text),
                expected=expected.answer,
            ), True
        return None


def _result_of(structured: Any, text: str) -> Any:
    """A result's value: its structured content (``{"result": 7}`` is 7), else its text as JSON, else its text."""
    if isinstance(structured, dict) and list(structured) == ["result"]:
        return structured["result"]
    if structured is not None:
        return structured
    try:
        return json.loads(text)
    except ValueError:
        return text.strip()


def _same_value(got: Any, expected: Any) -> bool:
    if isinstance(expected, int | float) and not isinstance(expected, bool):
        return (
            isinstance(got, int | float)
            and not isinstance(got, bool)
            and math.isclose(got, expected, abs_tol=0.01)
        )
    return bool(got == expected)


q1, q2, q3, q4 = load_exercises("01b", EXERCISES, kinds={"agent": AgentExercise})
