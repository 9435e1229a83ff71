"""Exercises of chapter 04 (오류의 두 층위): which layer an error belongs to, the code of an
unknown tool, what a client shows, and a tool whose errors a model can act on, checked through the
real server.

>>> from mcp_notebook.lessons.ch04 import q1, q2, q3, q4

Their content is data: ``content/ch04/exercises.toml``; the kind of q2 is defined here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._answers import ShortAnswer
from ._content import load_exercises

__all__ = ["q1", "q2", "q3", "q4"]


class ErrorCodeAnswer(ShortAnswer):
    """A short answer that is a JSON-RPC error code: ``-32602`` may be written as a number too."""

    kind = "error_code"

    def evaluate(self, answer: Any) -> list[str]:
        if isinstance(answer, int) and not isinstance(answer, bool):
            answer = str(answer)
        return super().evaluate(answer)


OPEN, CLOSE = 9, 18
STATIONS = ("north", "south", "river")


def rental_fixed(wrong: Mapping[str, Any], fixed: Mapping[str, Any]) -> bool:
    """Whether `fixed` is a rental that can happen and keeps what the request asked for: the same
    station, and of the start and the length, the one that was not wrong."""
    station, start, hours = fixed.get("station"), fixed.get("start_hour"), fixed.get("hours")
    if station != wrong["station"] or not isinstance(start, int) or not isinstance(hours, int):
        return False
    if start < OPEN or hours < 1 or start + hours > CLOSE:
        return False
    return bool(start == wrong["start_hour"] or hours == wrong["hours"])


q1, q2, q3, q4 = load_exercises(
    "04", __all__, kinds={"error_code": ErrorCodeAnswer}, checks={"rental_fixed": rental_fixed}
)
