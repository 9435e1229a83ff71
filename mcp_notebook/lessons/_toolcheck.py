"""“Write a tool” exercises, checked through the real in-kernel MCP server.

The checker does what an MCP client would: it reads the tool's definition from ``tools/list``
and calls it with ``tools/call`` (`mcp_notebook.list_tools` and `mcp_notebook.call`), so
what is judged is what a model would see, schema validation and error results included. It
reuses the running server, or starts one for the check and stops it afterwards.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core._text import clip, t
from ._behaviour import Judge, Verdict, compare_calls, pick_problems, recovery_problems, source_of
from ._exercise import DataContext, Exercise, NotAttempted, user_namespace
from ._reference import Reference
from ._texts import Text

CALL_TIMEOUT = 20.0

# An exception's type name in front of the message ("ValueError: ..."): what the server sends when
# a tool raises anything but ToolError. A message written for the model has no such prefix.
EXCEPTION_PREFIX = re.compile(r"^\s*[A-Z][A-Za-z0-9_]*(Error|Exception): ")

# A word of a sentence: two letters or more (Hangul or Latin) in a row. Names and values the message
# must mention do not count: a refusal made only of them is a list of keywords, not advice.
_WORD = re.compile(r"[A-Za-z\uac00-\ud7a3]{2,}")
SENTENCE_WORDS = 4


@dataclass(frozen=True)
class Param:
    """A parameter the tool must take: its JSON type, whether required, its allowed values."""

    name: str
    type: str
    required: bool = True
    enum: tuple[Any, ...] | None = None

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Param:
        enum = data.get("enum")
        return cls(data["name"], data["type"], data.get("required", True), tuple(enum) if enum else None)

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "type": self.type}
        if not self.required:
            data["required"] = False
        if self.enum is not None:
            data["enum"] = list(self.enum)
        return data


@dataclass(frozen=True)
class Probe:
    """One ``tools/call`` the checker makes and what it expects.

    ``expect="ok"``: a result that is not an error and passes `accept` (if given) and `result` (if
    given: ``{"contains": text}`` (or ``{"contains_any": [...]}``) and/or ``{"structured": {key: value}}``, numbers within 0.01; a
    resource's check says ``"json"`` for its JSON contents).
    ``expect="error"``: ``isError: true``, whose text mentions `names` (a word, or all of a list).
    With `tool_error` the refusal must be the tool's own ``ToolError`` (a stray ``ValueError`` reads as
    a bug); with `sentence` its message must also say something beyond the names: a sentence the model
    can act on, not a list of keywords. `advice` is added when the probe fails.
    """

    arguments: dict[str, Any]
    expect: Literal["ok", "error"]
    accept: Callable[[Any], bool] | None = None
    names: str | tuple[str, ...] | None = None
    advice: Text | None = field(default=None, compare=False)
    result: Mapping[str, Any] | None = None
    tool_error: bool = False
    sentence: bool = False

    @property
    def mentions(self) -> tuple[str, ...]:
        """The words a refusal must mention."""
        if self.names is None:
            return ()
        return (self.names,) if isinstance(self.names, str) else tuple(self.names)

    @classmethod
    def from_data(cls, data: Mapping[str, Any], context: DataContext) -> Probe:
        data = dict(data)
        accept = data.pop("accept", None)
        if accept is not None:
            if accept not in context.checks:
                raise ValueError(f"a probe names the check {accept!r}, which its chapter does not define")
            accept = context.checks[accept]
        names = data.pop("names", None)
        probe = cls(
            data.pop("arguments"),
            data.pop("expect"),
            accept=accept,
            names=tuple(names) if isinstance(names, list) else names,
            advice=data.pop("advice", None),
            result=data.pop("result", None),
            tool_error=data.pop("tool_error", False),
            sentence=data.pop("sentence", False),
        )
        if data:
            raise ValueError(f"probe {probe.arguments}: unknown keys {sorted(data)}")
        return probe

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"arguments": self.arguments, "expect": self.expect}
        if self.accept is not None:
            data["accept"] = f"TODO {getattr(self.accept, '__qualname__', repr(self.accept))}"
        if self.result is not None:
            data["result"] = dict(self.result)
        if self.names is not None:
            data["names"] = self.names if isinstance(self.names, str) else list(self.names)
        if self.tool_error:
            data["tool_error"] = True
        if self.sentence:
            data["sentence"] = True
        if self.advice is not None:
            data["advice"] = dict(self.advice) if isinstance(self.advice, Mapping) else list(self.advice)
        return data


def result_matches(expected: Mapping[str, Any], *, text: str, data: Any) -> bool:
    """Whether a result's `text` and structured `data` are what `expected` describes (see `Probe`)."""
    if "contains" in expected and str(expected["contains"]) not in text:
        return False
    if "contains_any" in expected and not any(str(part) in text for part in expected["contains_any"]):
        return False  # one of several: a text that differs by the notebook's language
    wanted = expected.get("structured", expected.get("json"))  # "json": a resource's JSON contents
    return wanted is None or _includes(data, wanted)


def _includes(actual: Any, expected: Any) -> bool:
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            key in actual and _includes(actual[key], value) for key, value in expected.items()
        )
    if isinstance(expected, int | float) and not isinstance(expected, bool):
        return (
            isinstance(actual, int | float)
            and not isinstance(actual, bool)
            and math.isclose(actual, expected, abs_tol=0.01)
        )
    return bool(actual == expected)


class ToolExercise(Exercise):
    """The learner defines a tool with ``@tool``; the checker lists and calls it over MCP.

    With a `judge` (an exercise's ``judge`` table) the tool is judged by what it does: called beside
    the model answer (``solution``, after the chapter's ``given`` set-up) on the teaching examples and
    on inputs drawn from the schemas, every answer compared whole (`mcp_notebook.lessons._behaviour`);
    its description by the tools a model picks with it; its error messages by whether a model can fix
    its call from them. `probes` are fixed calls with what each must answer, for exercises of one's own
    (the course's exercises use a judge).
    """

    kind = "tool"

    def __init__(
        self,
        chapter: str,
        name: str,
        *,
        tool: str,
        params: list[Param],
        probes: list[Probe] | None = None,
        judge: Judge | None = None,
        output_schema: bool = False,
        annotations: dict[str, bool] | None = None,
        **texts: Any,
    ) -> None:
        super().__init__(chapter, name, variable=None, **texts)
        self.tool = tool
        self.params = params
        self.probes = probes or []
        self.judge = judge
        self.needs_output_schema = output_schema
        self.annotations = annotations or {}
        self.verdict: Verdict | None = None
        self._add_texts({f"probe.{i}": p.advice for i, p in enumerate(self.probes) if p.advice is not None})

    def cell_template(self) -> str | None:
        return None

    # -- as data ----------------------------------------------------------------------------------
    def kind_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"tool": self.tool, "params": [p.to_data() for p in self.params]}
        if self.needs_output_schema:
            data["output_schema"] = True
        if self.annotations:
            data["annotations"] = dict(self.annotations)
        if self.probes:
            data["probes"] = [
                {**probe.to_data(), **({"advice": dict(self._texts[f"probe.{i}"])} if probe.advice else {})}
                for i, probe in enumerate(self.probes)
            ]
        return data

    @classmethod
    def data_kwargs(cls, data: dict[str, Any], context: DataContext) -> dict[str, Any]:
        kwargs = super().data_kwargs(data, context)
        kwargs["tool"] = data.pop("tool")
        kwargs["params"] = [Param.from_data(p) for p in data.pop("params", [])]
        kwargs["probes"] = [Probe.from_data(p, context) for p in data.pop("probes", [])]
        if "judge" in data:
            kwargs["judge"] = Judge.from_data(data.pop("judge"), context)
        for key in ("annotations",):
            if key in data:
                kwargs[key] = data.pop(key)
        if "output_schema" in data:
            kwargs["output_schema"] = data.pop("output_schema")
        return kwargs

    # -- finding the learner's tool ---------------------------------------------------------------
    def how_to_answer(self) -> str:
        return t("lessons.tool.how", tool=self.tool, name=self.name)

    def find_answer(self) -> Any:
        function = user_namespace().get(self.tool)
        served = served_catalogue().get(self.tool) if self.tool in served_catalogue() else None
        if callable(function) and (served is None or served.fn is not function):
            # The notebook's `greet` is not the one served: defined without @tool, or redefined
            # without it after an earlier @tool version (which the server would still answer with).
            return function
        if served is not None:
            return self.tool
        raise NotAttempted

    def evaluate(self, answer: Any) -> list[str]:
        catalogue = served_catalogue()
        if callable(answer) and not isinstance(answer, str):
            entry = next((e for e in catalogue.tools() if e.fn is answer), None)
            if entry is None:
                shown = getattr(answer, "__name__", self.tool)
                if shown in catalogue:
                    return [t("lessons.tool.redefined", tool=shown)]
                return [t("lessons.tool.not_a_tool", tool=shown)]
            name = entry.name
        elif isinstance(answer, str):
            name = answer
            if name not in catalogue:
                if callable(user_namespace().get(name)):
                    return [t("lessons.tool.not_a_tool", tool=name)]
                return [t("lessons.tool.not_listed", tool=name)]
        else:
            return [t("lessons.tool.not_a_tool", tool=self.tool)]
        problems = [] if name == self.tool else [t("lessons.tool.wrong_name", given=name, tool=self.tool)]
        import mcp_notebook

        started_here = mcp_notebook.current_server() is None
        server = mcp_notebook.serve() if started_here else None
        try:
            definition = next((d for d in mcp_notebook.list_tools() if d["name"] == name), None)
            if definition is None:
                return [*problems, t("lessons.tool.not_listed", tool=name)]
            problems += self._definition_problems(definition)
            problems += self._probe_problems(name)
            if self.judge is not None:
                problems += self._judged_problems(name, definition)
        finally:
            if server is not None:
                server.stop()
        return problems

    def praise(self) -> list[str]:
        if self.verdict is not None:
            checked = t("lessons.judge.checked", calls=self.verdict.calls, seed=self.verdict.seed)
            return [checked, f"{t('lessons.solution.why')}: {self.text('explanation')}"]
        return [t("lessons.tool.checked_via", calls=len(self.probes)), *super().praise()]

    # -- what the tool does, next to the model answer ---------------------------------------------
    def reference(self) -> Reference:
        """The model answer, defined after the chapter's set-up, apart from the notebook."""
        also = self.judge.distractors if self.judge is not None else ""
        return Reference(self.text("solution"), self.given, also=also)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """One ``tools/call`` of the learner's tool, as the check makes it (a kind may call otherwise)."""
        from mcp_notebook import call

        return call(name, arguments, timeout=CALL_TIMEOUT)

    def _judged_problems(self, name: str, definition: dict[str, Any]) -> list[str]:
        assert self.judge is not None
        self.verdict = None
        entry = served_catalogue().get(name)
        reference = self.reference()
        with reference.served():
            problems = pick_problems(name, self.judge, definition, reference.definitions())
            verdict = compare_calls(
                name,
                self.judge,
                reference,
                mine=definition,
                call_mine=self.call_tool,
                learner_source=source_of(entry.fn) if entry is not None else "",
                notebook=user_namespace(),
                exercise=self.name,
            )
        problems += verdict.problems
        if not problems and self.judge.recoveries:
            with reference.served():
                problems += recovery_problems(name, self.judge, reference, notebook=user_namespace())
        if not problems:
            self.verdict = verdict
        return problems

    # -- what tools/list shows --------------------------------------------------------------------
    def _definition_problems(self, definition: dict[str, Any]) -> list[str]:
        problems = []
        description = (definition.get("description") or "").strip()
        if not description:
            problems.append(t("lessons.tool.no_description"))
        schema = definition.get("inputSchema", {})
        properties = schema.get("properties", {})
        required = schema.get("required", [])
        for param in self.params:
            prop = properties.get(param.name)
            if prop is None:
                problems.append(t("lessons.tool.no_param", param=param.name))
                continue
            actual = prop.get("type")
            if actual is None:
                problems.append(t("lessons.tool.param_untyped", param=param.name, expected=param.type))
            elif actual != param.type:
                problems.append(
                    t("lessons.tool.param_type", param=param.name, actual=actual, expected=param.type)
                )
            if param.required and param.name not in required:
                problems.append(t("lessons.tool.not_required", param=param.name))
            if param.enum is not None:
                values = ", ".join(json.dumps(v) for v in param.enum)
                if "enum" not in prop:
                    problems.append(t("lessons.tool.no_enum", param=param.name, values=values))
                elif sorted(map(json.dumps, prop["enum"])) != sorted(map(json.dumps, param.enum)):
                    problems.append(
                        t("lessons.tool.wrong_enum", param=param.name, actual=prop["enum"], expected=values)
                    )
        if self.needs_output_schema and definition.get("outputSchema") is None:
            problems.append(t("lessons.tool.no_output_schema"))
        notes = definition.get("annotations", {})
        for hint, expected in self.annotations.items():
            if notes.get(hint) is not expected:
                problems.append(
                    t(
                        "lessons.tool.annotation",
                        hint=hint,
                        expected=_json(expected),
                        actual=_json(notes.get(hint)),
                    )
                )
        return problems

    # -- what tools/call answers ------------------------------------------------------------------
    def _probe_problems(self, name: str) -> list[str]:
        from mcp_notebook import ClientConnectionError, ProtocolError

        problems: list[str] = []
        for index, probe in enumerate(self.probes):
            shown = f"{name} {json.dumps(probe.arguments, ensure_ascii=False)}"
            try:
                result = self._call_probe(name, probe, shown, problems)
            except ProtocolError as exc:
                problems.append(
                    t("lessons.tool.protocol_error", call=shown, error=f"[{exc.code}] {exc.message}")
                )
                continue
            except ClientConnectionError as exc:
                problems.append(t("lessons.tool.unreachable", call=shown, error=str(exc)))
                break
            problem = self._judge(probe, result, shown)
            if problem:
                problems.append(problem)
                if probe.advice is not None:
                    problems.append(self.text(f"probe.{index}"))
        return problems

    def _call_probe(self, name: str, probe: Probe, shown: str, problems: list[str]) -> Any:
        """One probe's ``tools/call`` (a subclass may call differently and add what it noticed)."""

        return self.call_tool(name, probe.arguments)

    def _judge(self, probe: Probe, result: Any, shown: str) -> str | None:
        if probe.expect == "ok":
            if result.is_error:
                return t("lessons.tool.call_error", call=shown, text=clip(result.text, 200))
            wrong = (probe.accept is not None and not probe.accept(result)) or (
                probe.result is not None
                and not result_matches(probe.result, text=result.text, data=result.structured_content)
            )
            return t("lessons.tool.wrong_result", call=shown, got=_describe(result)) if wrong else None
        if not result.is_error:
            return t("lessons.tool.should_fail", call=shown, got=_describe(result))
        missing = [name for name in probe.mentions if name not in result.text]
        if missing:
            return t("lessons.tool.error_should_name", call=shown, field=missing[0])
        raw = EXCEPTION_PREFIX.match(result.text)
        if (probe.tool_error or probe.sentence) and raw:
            return t("lessons.tool.raw_exception", call=shown, exception=raw.group().strip())
        if probe.sentence and not is_sentence(result.text, probe.mentions):
            return t("lessons.tool.not_a_sentence", call=shown, text=f'"{clip(result.text, 120)}"')
        return None


def is_sentence(message: str, names: tuple[str, ...] = ()) -> bool:
    """Whether `message` says something beyond `names` and numbers: `SENTENCE_WORDS` words or more."""
    for name in sorted(names, key=len, reverse=True):
        message = message.replace(name, " ")
    return len(_WORD.findall(message)) >= SENTENCE_WORDS


def served_catalogue() -> Any:
    """What the running server serves, else the catalogue ``@tool`` / ``@resource`` / ``@prompt`` fill.

    Without importing the SDK: a learner who has not served anything yet pays nothing for it.
    """
    runtime = sys.modules.get("mcp_notebook.api._serving")
    server = runtime.current_server() if runtime is not None else None
    if server is not None:
        return server.catalogue
    from ..core._catalogue import default_catalogue

    return default_catalogue


def _describe(result: Any) -> str:
    if result.structured_content is not None:
        return clip(json.dumps(result.structured_content, ensure_ascii=False), 200)
    return clip(result.text, 200)


def _json(value: Any) -> str:
    return t("none") if value is None else json.dumps(value)
