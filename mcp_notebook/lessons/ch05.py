"""Exercises of chapter 05 (도구 인터페이스 설계): the better of two interfaces, which lint rule a tool
breaks, partial success, handles in a stateless protocol, and a badly designed tool the learner
redesigns, checked with the linter and through the real server.

>>> from mcp_notebook.lessons.ch05 import q1, q2, q3, q4, q5

Their content is data: ``content/ch05/exercises.toml``; the kind of q5 is defined here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..core._text import t
from ._content import load_exercises
from ._exercise import DataContext
from ._toolcheck import ToolExercise, served_catalogue

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
    bounds, no parameters beyond the four, a description naming the tool to use instead. Then its
    ``judge`` calls it beside the model answer, in one sequence from the same `bookings`: replays
    with the same idempotency key, bookings cancelled with the chapter's `cancel_booking`, values
    out of range, an unknown argument, a booking past closing time; and a model must fix a booking
    past closing time from the tool's error message.
    """

    kind = "redesign"

    def __init__(self, *args: Any, instead: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.instead = instead
        self._ready = False

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

    def _judged_problems(self, name: str, definition: dict[str, Any]) -> list[str]:
        if not self._ready:
            return [t("lessons.ch05.not_ready")]
        return super()._judged_problems(name, definition)


def booking_fixed(wrong: Mapping[str, Any], fixed: Mapping[str, Any]) -> bool:
    """Whether the model's fixed booking can happen and keeps what was asked: the same room, and of
    the start and the length, one as asked."""
    room, start, hours = fixed.get("room"), fixed.get("start_hour"), fixed.get("hours")
    if room != wrong["room"] or not isinstance(start, int) or not isinstance(hours, int):
        return False
    low, high = BOUNDS["start_hour"]
    fits = low <= start <= high and BOUNDS["hours"][0] <= hours <= BOUNDS["hours"][1]
    return (
        fits and start + hours <= CLOSING_HOUR and (start == wrong["start_hour"] or hours == wrong["hours"])
    )


def _finding(finding: Any) -> str:
    where = f" [{finding.field}]" if finding.field else ""
    return f"{finding.rule}{where} {finding.message} → {finding.fix}"


def _shown(value: Any) -> str:
    return t("none") if value is None else json.dumps(value)


q1, q2, q3, q4, q5 = load_exercises(
    "05", __all__, kinds={"redesign": RedesignExercise}, checks={"booking_fixed": booking_fixed}
)
