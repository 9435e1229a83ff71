"""Exercises of chapter 05 (도구 인터페이스 설계): the better of two interfaces, which lint rule a tool
breaks, partial success, handles in a stateless protocol, and a badly designed tool the learner
redesigns, checked with the linter and through the real server.

>>> from mcp_notebook.lessons.ch05 import q1, q2, q3, q4, q5

Their content is data: ``content/ch05/exercises.toml``; the kind of q5 is defined here.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from ..core._text import clip, t
from ._content import load_exercises
from ._exercise import DataContext
from ._toolcheck import CALL_TIMEOUT, ToolExercise, served_catalogue

__all__ = ["q1", "q2", "q3", "q4", "q5"]

# -- q5: redesign a badly designed tool; checked by the linter and through the real server ----------

ROOMS = ("A101", "A102", "B201")
CLOSING_HOUR = 18
KEY_RULES = frozenset(f"MCP0{n}" for n in (10, 11, 12, 13, 20, 21, 22, 23, 24, 30, 50))
"""The lint rules the redesigned tool must pass (warnings, and MCP023 which is only a note)."""

BOUNDS: dict[str, tuple[int, int]] = {"start_hour": (9, 17), "hours": (1, 3)}


class RedesignExercise(ToolExercise):
    """The learner redesigns `book_room`; the linter and real ``tools/call`` requests judge it.

    Besides the kit's definition checks it wants: the key lint rules quiet (`KEY_RULES`), exact
    bounds, no parameters beyond the four, a description naming the tool to use instead, and then,
    through the server, an idempotent replay, different ids for different bookings, refusals that
    name the field (enum, bounds, unknown argument, reused key) and a fixable business-rule error.
    Idempotency keys are fresh random strings per check and never shown.
    """

    kind = "redesign"

    def __init__(self, *args: Any, instead: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.instead = instead
        self._ready = False
        self._calls = 0

    @classmethod
    def data_kwargs(cls, data: dict[str, Any], context: DataContext) -> dict[str, Any]:
        kwargs = super().data_kwargs(data, context)
        kwargs["instead"] = data.pop("instead")
        return kwargs

    def _definition_problems(self, definition: dict[str, Any]) -> list[str]:
        problems = super()._definition_problems(definition)
        schema = definition.get("inputSchema", {})
        properties: dict[str, Any] = schema.get("properties", {})
        for param, (low, high) in BOUNDS.items():
            prop = properties.get(param)
            if prop is not None and (prop.get("minimum"), prop.get("maximum")) != (low, high):
                problems.append(
                    t(
                        "lessons.ch05.bounds",
                        param=param,
                        minimum=_shown(prop.get("minimum")),
                        maximum=_shown(prop.get("maximum")),
                        low=low,
                        high=high,
                    )
                )
        wanted = {p.name for p in self.params} | {"idempotency_key"}
        extra = [name for name in properties if name not in wanted]
        if extra:
            problems.append(t("lessons.ch05.extra_params", params=", ".join(repr(n) for n in extra)))
        has_key = "idempotency_key" in properties and "idempotency_key" in schema.get("required", [])
        if not has_key:
            problems.append(t("lessons.ch05.no_key"))
        if self.instead not in (definition.get("description") or ""):
            problems.append(t("lessons.ch05.when_not", other=self.instead))
        problems += self._lint_problems(definition["name"])
        self._ready = has_key and all(p.name in properties for p in self.params)
        return problems

    def _lint_problems(self, name: str) -> list[str]:
        from .. import lint

        catalogue = served_catalogue()
        entry = catalogue.get(name)
        if entry is None:  # pragma: no cover - listed a moment ago
            return []
        findings = lint(entry, among=catalogue.tools())
        return [t("lessons.ch05.lint", finding=_finding(f)) for f in findings if f.rule in KEY_RULES]

    def _probe_problems(self, name: str) -> list[str]:
        if not self._ready:
            return [t("lessons.ch05.not_ready")]
        from mcp_notebook import ClientConnectionError, ProtocolError, call

        keys = [secrets.token_hex(12) for _ in range(4)]
        self._calls = 0
        problems: list[str] = []

        def attempt(arguments: dict[str, Any]) -> tuple[str, Any]:
            shown = {
                k: (f"<key{keys.index(v) + 1}>" if k == "idempotency_key" else v)
                for k, v in arguments.items()
            }
            label = f"{name} {json.dumps(shown, ensure_ascii=False)}"
            self._calls += 1
            try:
                return label, call(name, arguments, timeout=CALL_TIMEOUT)
            except ProtocolError as exc:
                problems.append(
                    t("lessons.tool.protocol_error", call=label, error=f"[{exc.code}] {exc.message}")
                )
            except ClientConnectionError as exc:
                problems.append(t("lessons.tool.unreachable", call=label, error=str(exc)))
            return label, None

        def booking(arguments: dict[str, Any]) -> str | None:
            label, result = attempt(arguments)
            if result is None:
                return None
            if result.is_error:
                problems.append(t("lessons.tool.call_error", call=label, text=clip(result.text, 200)))
                return None
            data = result.structured_content or {}
            if not isinstance(data.get("booking_id"), str):
                problems.append(t("lessons.ch05.no_booking_id", call=label, got=clip(_describe(result), 200)))
                return None
            return str(data["booking_id"])

        def refused(arguments: dict[str, Any], names: str) -> None:
            label, result = attempt(arguments)
            if result is None:
                return
            if not result.is_error:
                problems.append(t("lessons.tool.should_fail", call=label, got=clip(_describe(result), 200)))
            elif names not in result.text:
                problems.append(t("lessons.tool.error_should_name", call=label, field=names))

        good = {"room": "A101", "start_hour": 10, "hours": 2}
        first = booking({**good, "idempotency_key": keys[0]})
        if first is None:
            return problems
        again = booking({**good, "idempotency_key": keys[0]})
        if again is not None and again != first:
            problems.append(t("lessons.ch05.replay_differs", first=first, second=again))
        other = booking({"room": "A102", "start_hour": 14, "hours": 1, "idempotency_key": keys[1]})
        if other is not None and other == first:
            problems.append(t("lessons.ch05.same_id", booking=first))
        fresh = {**good, "idempotency_key": keys[2]}
        refused({**fresh, "room": "C301"}, "room")
        refused({**fresh, "start_hour": 20}, "start_hour")
        refused({**fresh, "hours": 0}, "hours")
        refused({**fresh, "details": {"projector": True}}, "details")
        refused({**good, "room": "B201", "idempotency_key": keys[0]}, "idempotency_key")
        label, result = attempt({"room": "A101", "start_hour": 17, "hours": 3, "idempotency_key": keys[3]})
        if result is not None:
            if not result.is_error:
                problems.append(t("lessons.tool.should_fail", call=label, got=clip(_describe(result), 200)))
            elif str(CLOSING_HOUR) not in result.text:
                problems.append(t("lessons.ch05.closing", closing=CLOSING_HOUR, text=clip(result.text, 200)))
        return problems

    def praise(self) -> list[str]:
        return [
            t("lessons.tool.checked_via", calls=self._calls),
            f"{t('lessons.solution.why')}: {self.text('explanation')}",
        ]


def _finding(finding: Any) -> str:
    where = f" [{finding.field}]" if finding.field else ""
    return f"{finding.rule}{where} {finding.message} → {finding.fix}"


def _shown(value: Any) -> str:
    return t("none") if value is None else json.dumps(value)


def _describe(result: Any) -> str:
    if result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return str(result.text)


q1, q2, q3, q4, q5 = load_exercises("05", __all__, kinds={"redesign": RedesignExercise})
