"""Exercises of chapter 02 (Resources): who controls what, listing templates, text and blob
contents, what a subscriber does on ``resources/updated``, and a resource template the learner
writes, checked through the real server (``resources/templates/list``, ``resources/read``,
``completion/complete``).

>>> from mcp_notebook.lessons.ch02 import q1, q2, q3, q4, q5

Their content is data: ``content/ch02/exercises.toml``; the kind of q5 is defined here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core._text import t
from ._behaviour import values_of
from ._content import load_exercises
from ._data_judge import compare_completions, compare_reads
from ._exercise import DataContext, Exercise, NotAttempted
from ._reference import Reference
from ._texts import Text
from ._toolcheck import result_matches, served_catalogue

READ_TIMEOUT = 20.0

REGION_SALES = {"north": 120, "south": 95, "east": 70, "west": 40}
"""The data of q5, as its question states it and its reads expect it."""

# -- "write a resource" exercises: checked through the real in-kernel server -----------------------


@dataclass(frozen=True)
class Read:
    """One ``resources/read`` the checker makes: ``expect="ok"`` (its JSON including `result`'s
    ``json``, if given) or ``"error"``."""

    uri: str
    expect: Literal["ok", "error"]
    result: Mapping[str, Any] | None = None
    advice: Text | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Completion:
    """One ``completion/complete`` for a template variable and the values it must offer (any order)."""

    variable: str
    value: str
    expected: tuple[str, ...]
    advice: Text | None = field(default=None, compare=False)


class ResourceExercise(Exercise):
    """The learner defines a resource template with ``@resource``; the checker lists, reads and
    completes it through the real server, as an application would."""

    kind = "resource"

    def __init__(
        self,
        chapter: str,
        name: str,
        *,
        template: str,
        reads: list[Read],
        completions: list[Completion],
        judge: Mapping[str, Any] | None = None,
        **texts: Any,
    ) -> None:
        super().__init__(chapter, name, variable=None, **texts)
        self.judge = judge
        self.uri_template = template
        self.prefix = template.split("{", 1)[0]
        self.reads = reads
        self.completions = completions
        extra = {f"read.{i}": r.advice for i, r in enumerate(reads) if r.advice is not None}
        extra.update({f"completion.{i}": c.advice for i, c in enumerate(completions) if c.advice is not None})
        self._add_texts(extra)

    def cell_template(self) -> str | None:
        return None

    @classmethod
    def data_kwargs(cls, data: dict[str, Any], context: DataContext) -> dict[str, Any]:
        kwargs = super().data_kwargs(data, context)
        kwargs["template"] = data.pop("template")
        kwargs["reads"] = [
            Read(r["uri"], r["expect"], result=r.get("result"), advice=r.get("advice"))
            for r in data.pop("reads")
        ]
        kwargs["completions"] = [
            Completion(c["variable"], c["value"], tuple(c["expected"]), advice=c.get("advice"))
            for c in data.pop("completions")
        ]
        if "judge" in data:
            judge = dict(data.pop("judge"))
            values = {
                name: values_of(source, context) for name, source in dict(judge.pop("values", {})).items()
            }
            if judge:
                raise ValueError(f"a resource's judge table has unknown keys {sorted(judge)}")
            kwargs["judge"] = {"values": values}
        return kwargs

    # -- finding the learner's resource ------------------------------------------------------------
    def how_to_answer(self) -> str:
        return t("lessons.resource.how", template=self.uri_template, name=self.name)

    def find_answer(self) -> Any:
        catalogue = served_catalogue()
        entries = [*catalogue.templates(), *catalogue.resources()]
        exact = [e for e in entries if _uri_of(e) == self.uri_template]
        near = [e for e in entries if _uri_of(e).startswith(self.prefix)]
        if exact or near:
            return (exact or near)[0]
        raise NotAttempted

    def evaluate(self, answer: Any) -> list[str]:
        entry = self._entry(answer)
        if isinstance(entry, str):
            return [entry]
        uri = _uri_of(entry)
        if not hasattr(entry, "uri_template"):
            return [t("lessons.resource.static", uri=uri, template=self.uri_template)]
        if uri != self.uri_template:
            return [t("lessons.resource.wrong_template", given=uri, template=self.uri_template)]
        import mcp_notebook

        started_here = mcp_notebook.current_server() is None
        server = mcp_notebook.serve() if started_here else None
        try:
            listed = mcp_notebook.list_resources()["templates"]
            definition = next((d for d in listed if d.get("uriTemplate") == self.uri_template), None)
            if definition is None:
                return [t("lessons.resource.not_listed", template=self.uri_template)]
            problems = []
            description = (definition.get("description") or "").strip()
            if not description:
                problems.append(t("lessons.resource.no_description"))
            problems += self._read_problems()
            problems += self._completion_problems()
            if not problems and self.judge is not None:
                problems += self._judged_problems()
        finally:
            if server is not None:
                server.stop()
        return problems

    def _entry(self, answer: Any) -> Any:
        """The catalogue entry `answer` names (an entry, a URI, or the decorated function), or a problem."""
        catalogue = served_catalogue()
        entries = [*catalogue.templates(), *catalogue.resources()]
        if isinstance(answer, str):
            found = next((e for e in entries if _uri_of(e) == answer), None)
            return found if found is not None else t("lessons.resource.not_listed", template=answer)
        if callable(answer) and not hasattr(answer, "uri") and not hasattr(answer, "uri_template"):
            found = next((e for e in entries if getattr(e, "fn", getattr(e, "read", None)) is answer), None)
            if found is None:
                return t("lessons.resource.not_a_resource", func=getattr(answer, "__name__", "?"))
            return found
        return answer

    def _judged_problems(self) -> list[str]:
        """The same reads and completions of the model answer's template, from a private server."""
        assert self.judge is not None
        reference = Reference(self.text("solution"), self.given)
        with reference.served():
            pools = self.judge["values"]
            problems = compare_reads(self.uri_template, reference, pools, exercise=self.name)
            return problems or compare_completions(self.uri_template, reference, pools)

    def praise(self) -> list[str]:
        counts = {"reads": len(self.reads), "completions": len(self.completions)}
        return [t("lessons.resource.checked_via", **counts), *super().praise()]

    # -- what resources/read and completion/complete answer ----------------------------------------
    def _read_problems(self) -> list[str]:
        from mcp_notebook import ClientConnectionError, ProtocolError, read_resource

        problems: list[str] = []
        for index, probe in enumerate(self.reads):
            problem = None
            try:
                result = read_resource(probe.uri, timeout=READ_TIMEOUT)
            except ProtocolError as exc:
                if probe.expect == "ok":
                    problem = t(
                        "lessons.resource.read_error", uri=probe.uri, error=f"[{exc.code}] {exc.message}"
                    )
            except ClientConnectionError as exc:
                problems.append(t("lessons.resource.unreachable", uri=probe.uri, error=str(exc)))
                break
            else:
                if probe.expect == "error":
                    problem = t("lessons.resource.should_fail", uri=probe.uri, got=_describe(result))
                elif probe.result is not None and not result_matches(
                    probe.result, text=result.text or "", data=_json_of(result)
                ):
                    problem = t("lessons.resource.wrong_read", uri=probe.uri, got=_describe(result))
            if problem:
                problems.append(problem)
                if probe.advice is not None:
                    problems.append(self.text(f"read.{index}"))
        return problems

    def _completion_problems(self) -> list[str]:
        from mcp_notebook import complete

        problems: list[str] = []
        for index, probe in enumerate(self.completions):
            got = complete(self.uri_template, probe.variable, probe.value, timeout=READ_TIMEOUT)
            if sorted(got) != sorted(probe.expected):
                problems.append(
                    t(
                        "lessons.resource.wrong_completion",
                        variable=probe.variable,
                        value=probe.value,
                        got=json.dumps(got, ensure_ascii=False),
                        expected=json.dumps(list(probe.expected), ensure_ascii=False),
                    )
                )
                if probe.advice is not None:
                    problems.append(self.text(f"completion.{index}"))
        return problems


def _uri_of(entry: Any) -> str:
    return str(getattr(entry, "uri_template", None) or getattr(entry, "uri", ""))


def _describe(result: Any) -> str:
    text = result.text if result.text else json.dumps(result.contents, ensure_ascii=False)
    return text if len(text) <= 200 else text[:199] + "…"


def _json_of(result: Any) -> Any:
    item = next((c for c in result.contents if "text" in c), None)
    if item is None or item.get("mimeType") != "application/json":
        return None
    try:
        return json.loads(item["text"])
    except ValueError:
        return None


# -- the exercises -------------------------------------------------------------------------------
__all__ = ["q1", "q2", "q3", "q4", "q5"]

q1, q2, q3, q4, q5 = load_exercises("02", __all__, kinds={"resource": ResourceExercise})
