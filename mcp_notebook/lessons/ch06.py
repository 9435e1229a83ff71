"""Exercises of chapter 06 (사람이 고리 안에): which calls wait for a person, what a client does with
annotations it cannot verify, which gate stops a request, reading the audit log, and a tool the
learner marks so that it always asks, checked through the real server as an outside client.

>>> from mcp_notebook.lessons.ch06 import q1, q2, q3, q4, q5

Their content is data: ``content/ch06/exercises.toml``; the kind of q5 is defined here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ..core._text import t
from ._content import load_exercises
from ._toolcheck import CALL_TIMEOUT, ToolExercise, served_catalogue

__all__ = ["q1", "q2", "q3", "q4", "q5"]

# -- q5: a private tool that always asks, checked through the real server as an outside client ------

DIARY_DATES = ("2026-03-01", "2026-03-02")
"""The dates of the notebook's `DIARY` (the question shows it; the checker relies on it)."""


class ApprovalToolExercise(ToolExercise):
    """A ToolExercise whose calls come from outside, the way an AI app would call the tool.

    Besides the kit's definition checks it wants the tool's own ``approval="always"`` (so that it
    asks whatever mode the server runs in) and honest annotations. Each call of the learner's tool is
    a ``tools/call`` with the server's URL and token, so the server treats it as an outside client's
    call: the checker answers each approval prompt (Approve, as a person would) and notes whether one
    appeared. A call that ran (it answered, rather than being refused by the schema, which comes
    before the prompt) without a prompt is a problem in itself.
    """

    kind = "approval_tool"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._calls = 0
        self._asked = 0
        self._unasked: list[str] = []
        self._server: Any = None  # the server being probed, for `call_tool`

    def _definition_problems(self, definition: dict[str, Any]) -> list[str]:
        problems = super()._definition_problems(definition)
        if definition.get("annotations", {}).get("readOnlyHint") is not True:
            problems.append(t("lessons.ch06.not_read_only"))
        entry = served_catalogue().get(definition["name"])
        if entry is not None and entry.approval != "always":
            problems.append(t("lessons.ch06.not_always", tool=definition["name"]))
        return problems

    def _probe_problems(self, name: str) -> list[str]:
        from mcp_notebook import current_server

        server = current_server()
        if server is None:  # pragma: no cover - evaluate() starts one
            return [t("lessons.tool.not_listed", tool=name)]
        if ("owner", name) in server.approval.allowed:  # the calls come with the server token: "owner"
            return [t("lessons.ch06.always_allowed", tool=name)]
        self._calls = self._asked = 0
        self._unasked = []
        self._server = server
        return super()._probe_problems(name)

    def _judged_problems(self, name: str, definition: dict[str, Any]) -> list[str]:
        if self._server is None:
            return []  # always allowed: said already, and no call would ask
        problems = super()._judged_problems(name, definition)
        if self._unasked:
            self.verdict = None
            return [t("lessons.ch06.not_asked", call=self._unasked[0]), *problems]
        return problems

    def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        from mcp_notebook import call

        server = self._server
        asked: list[Any] = []

        def approve(request: Any) -> None:
            # Runs on the server's thread, where the prompt appears: answer it as a person would.
            if request.tool == name:
                asked.append(request)
                request.approve()

        server.approval.listeners.append(approve)
        self._calls += 1
        try:
            # With the URL and token the server sees an outside client, which must be asked.
            result = call(name, arguments, url=server.url, token=server.token, timeout=CALL_TIMEOUT)
        finally:
            server.approval.listeners.remove(approve)
        if asked:
            self._asked += 1
        elif not result.is_error:
            self._unasked.append(f"{name} {json.dumps(arguments, ensure_ascii=False)}")
        return result

    def praise(self) -> list[str]:
        return [
            t("lessons.ch06.checked_via", calls=self._calls, asked=self._asked),
            *super().praise(),
        ]


def diary_day(wrong: Mapping[str, Any], fixed: Mapping[str, Any]) -> bool:
    """Whether the model's fixed call asks for the day the wrong one meant, written as the diary
    writes it (``2026/03/01`` is ``2026-03-01``)."""
    meant = re.sub(r"\D", "", str(wrong.get("date", "")))
    return fixed.get("date") in DIARY_DATES and re.sub(r"\D", "", str(fixed["date"])) == meant


q1, q2, q3, q4, q5 = load_exercises(
    "06", __all__, kinds={"approval_tool": ApprovalToolExercise}, checks={"diary_day": diary_day}
)
