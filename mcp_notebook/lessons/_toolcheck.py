"""“Write a tool” exercises, checked through the real in-kernel MCP server.

The checker does what an MCP client would: it reads the tool's definition from ``tools/list``
and calls it with ``tools/call`` (`mcp_notebook.list_tools` and `mcp_notebook.call`), so
what is judged is what a model would see, schema validation and error results included. It
reuses the running server, or starts one for the check and stops it afterwards.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core._text import clip, t
from ._exercise import Exercise, NotAttempted, user_namespace
from ._texts import Text

CALL_TIMEOUT = 20.0


@dataclass(frozen=True)
class Param:
    """A parameter the tool must take: its JSON type, whether required, its allowed values."""

    name: str
    type: str
    required: bool = True
    enum: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class Probe:
    """One ``tools/call`` the checker makes and what it expects.

    ``expect="ok"``: a result that is not an error and passes `accept` (if given).
    ``expect="error"``: ``isError: true``, whose text mentions `names` (if given).
    `advice` is added when the probe fails.
    """

    arguments: dict[str, Any]
    expect: Literal["ok", "error"]
    accept: Callable[[Any], bool] | None = None
    names: str | None = None
    advice: Text | None = field(default=None, compare=False)


class ToolExercise(Exercise):
    """The learner defines a tool with ``@tool``; the checker lists and calls it over MCP."""

    def __init__(
        self,
        chapter: str,
        name: str,
        *,
        tool: str,
        params: list[Param],
        probes: list[Probe],
        description_min: int = 20,
        output_schema: bool = False,
        annotations: dict[str, bool] | None = None,
        **texts: Any,
    ) -> None:
        super().__init__(chapter, name, variable=None, **texts)
        self.tool = tool
        self.params = params
        self.probes = probes
        self.description_min = description_min
        self.needs_output_schema = output_schema
        self.annotations = annotations or {}
        self._add_texts({f"probe.{i}": p.advice for i, p in enumerate(probes) if p.advice is not None})

    # -- finding the learner's tool ---------------------------------------------------------------
    def how_to_answer(self) -> str:
        return t("lessons.tool.how", tool=self.tool, name=self.name)

    def find_answer(self) -> Any:
        if self.tool in served_catalogue():
            return self.tool
        function = user_namespace().get(self.tool)
        if callable(function):
            return function  # defined, but perhaps without @tool: evaluate says so
        raise NotAttempted

    def evaluate(self, answer: Any) -> list[str]:
        catalogue = served_catalogue()
        if callable(answer) and not isinstance(answer, str):
            entry = next((e for e in catalogue.tools() if e.fn is answer), None)
            if entry is None:
                return [t("lessons.tool.not_a_tool", tool=getattr(answer, "__name__", self.tool))]
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
        finally:
            if server is not None:
                server.stop()
        return problems

    def praise(self) -> list[str]:
        return [t("lessons.tool.checked_via", calls=len(self.probes)), *super().praise()]

    # -- what tools/list shows --------------------------------------------------------------------
    def _definition_problems(self, definition: dict[str, Any]) -> list[str]:
        problems = []
        description = (definition.get("description") or "").strip()
        if len(description) < self.description_min:
            problems.append(
                t("lessons.tool.no_description", length=len(description), minimum=self.description_min)
            )
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
        from mcp_notebook import call

        return call(name, probe.arguments, timeout=CALL_TIMEOUT)

    @staticmethod
    def _judge(probe: Probe, result: Any, shown: str) -> str | None:
        if probe.expect == "ok":
            if result.is_error:
                return t("lessons.tool.call_error", call=shown, text=clip(result.text, 200))
            if probe.accept is not None and not probe.accept(result):
                return t("lessons.tool.wrong_result", call=shown, got=_describe(result))
            return None
        if not result.is_error:
            return t("lessons.tool.should_fail", call=shown, got=_describe(result))
        if probe.names is not None and probe.names not in result.text:
            return t("lessons.tool.error_should_name", call=shown, field=probe.names)
        return None


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
