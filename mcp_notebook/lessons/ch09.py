"""Exercises of chapter 09 (마무리 프로젝트): a small server over a real dataset, the public bike
stations of ``content/ch09/stations.csv``: two tools (one needs a person's approval, both refuse bad
input with a fixable error), a resource template and a prompt, each checked through the real server,
then all of it at once.

>>> from mcp_notebook.lessons.ch09 import STATIONS_CSV, q1, q2, q3, q4, q5

Their content is data: ``content/ch09/exercises.toml``; its kinds are defined here (the resource and
prompt kinds are those of chapters 02 and 03).
"""

from __future__ import annotations

import csv
import uuid
from collections.abc import Mapping
from typing import Any

from ..core._idempotency import KEY_PARAMETER
from ..core._text import t
from ._content import CONTENT, load_exercises
from ._exercise import DataContext, Exercise, NotAttempted
from ._toolcheck import CALL_TIMEOUT, Probe, ToolExercise, served_catalogue
from .ch02 import ResourceExercise
from .ch03 import PromptExercise

EXERCISES = ["q1", "q2", "q3", "q4", "q5"]
__all__ = [*EXERCISES, "STATIONS_CSV"]

STATIONS_CSV = CONTENT / "ch09" / "stations.csv"
"""The dataset: fourteen public bike stations in four districts of Seoul (made up after the real
service's open data; ``station_id``, names and districts in Korean and English, position, racks, bikes
and kids' bikes available)."""


def _stations() -> dict[str, dict[str, Any]]:
    with STATIONS_CSV.open(encoding="utf-8") as file:
        return {row["station_id"]: {**row, "bikes": int(row["bikes"])} for row in csv.DictReader(file)}


STATIONS = _stations()
"""The dataset as the checkers read it: by station ID."""

DISTRICTS = {
    row[key]: row["district_en"] for row in STATIONS.values() for key in ("district_ko", "district_en")
}
"""Every district's name, Korean or English, to its English name."""


def district_key(value: Any) -> Any:
    """A district named in either language, as one value (the learner may answer in the other)."""
    return DISTRICTS.get(value, value) if isinstance(value, str) else value


def station_key(value: Any) -> Any:
    """A station named in either language, as its ID."""
    for station_id, row in STATIONS.items():
        if value in (row["name_ko"], row["name_en"]):
            return station_id
    return value


def same_district(wrong: Mapping[str, Any], fixed: Mapping[str, Any]) -> bool:
    """Whether the model's fixed call names the district the wrong one meant (a part of its name)."""
    named, meant = fixed.get("district"), str(wrong.get("district", "")).casefold()
    if named not in DISTRICTS:
        return False
    names = {key for key, english in DISTRICTS.items() if english == DISTRICTS[named]}  # both languages
    return any(meant in name.casefold() for name in names)


def bike_nearby(wrong: Mapping[str, Any], fixed: Mapping[str, Any]) -> bool:
    """Whether the model's fixed call reserves at another station of the same district, one with bikes."""
    asked, chosen = STATIONS.get(str(wrong.get("station_id"))), STATIONS.get(str(fixed.get("station_id")))
    return (
        asked is not None
        and chosen is not None
        and chosen is not asked
        and chosen["district_en"] == asked["district_en"]
        and chosen["bikes"] > 0
    )


FEW_BIKES = [key for key, row in STATIONS.items() if row["bikes"] <= 4] + ["ST-1043", "ST-0000", "st-1043"]
"""Station IDs the reservation checks draw: the ones that run out soon, one with more, and unknown ones."""


class CapstoneTool(ToolExercise):
    """A "write a tool" exercise over the dataset; with `approval`, its tool must also ask a person
    before it runs for an outside client."""

    kind = "capstone_tool"

    def __init__(self, chapter: str, name: str, *, approval: str | None = None, **kwargs: Any) -> None:
        super().__init__(chapter, name, **kwargs)
        self.approval = approval

    @classmethod
    def data_kwargs(cls, data: dict[str, Any], context: DataContext) -> dict[str, Any]:
        approval = data.pop("approval", None)
        kwargs = super().data_kwargs(data, context)
        kwargs["approval"] = approval
        return kwargs

    def _call_probe(self, name: str, probe: Probe, shown: str, problems: list[str]) -> Any:
        from mcp_notebook import call

        arguments = dict(probe.arguments)
        if KEY_PARAMETER in arguments:
            # Every check is a new request: a key of an earlier check would replay (or, after the tool
            # was redefined, refuse) what that check got, whatever the learner has fixed since.
            arguments[KEY_PARAMETER] = f"{arguments[KEY_PARAMETER]}-{uuid.uuid4().hex[:12]}"
        return call(name, arguments, timeout=CALL_TIMEOUT)

    def _definition_problems(self, definition: dict[str, Any]) -> list[str]:
        problems = super()._definition_problems(definition)
        entry = served_catalogue().get(definition["name"])
        if (
            self.approval is not None
            and entry is not None
            and getattr(entry, "approval", None) != self.approval
        ):
            problems.append(t("capstone.approval", tool=definition["name"], approval=self.approval))
        return problems


class ServerCheck(Exercise):
    """The whole server at once: every part (an exercise of this chapter) checked through the real
    server, and what is still missing or wrong said part by part."""

    kind = "server_check"

    def __init__(self, chapter: str, name: str, *, parts: list[str], **texts: Any) -> None:
        super().__init__(chapter, name, variable=None, **texts)
        self.part_names = parts
        self.parts: list[Exercise] = []

    @classmethod
    def data_kwargs(cls, data: dict[str, Any], context: DataContext) -> dict[str, Any]:
        kwargs = super().data_kwargs(data, context)
        kwargs["parts"] = data.pop("parts")
        return kwargs

    def cell_template(self) -> str | None:
        return None

    def how_to_answer(self) -> str:
        return t("capstone.how", name=self.name)

    def find_answer(self) -> Any:
        for part in self.parts:
            try:
                part.find_answer()
            except NotAttempted:
                continue
            return "server"  # something is there: check all of it
        raise NotAttempted

    def evaluate(self, answer: Any) -> list[str]:
        import mcp_notebook

        started_here = mcp_notebook.current_server() is None
        server = mcp_notebook.serve() if started_here else None
        problems: list[str] = []
        try:
            for part in self.parts:
                title = part.text("title")
                try:
                    found = part.evaluate(part.find_answer())
                except NotAttempted:
                    problems.append(
                        t("capstone.missing", part=part.name, title=title, how=part.how_to_answer())
                    )
                    continue
                if found:
                    problems.append(t("capstone.part_wrong", part=part.name, title=title, count=len(found)))
                    problems += [f"- {line}" for line in found]
        finally:
            if server is not None:
                server.stop()
        return problems

    def praise(self) -> list[str]:
        return [t("capstone.all_good", parts=len(self.parts)), *super().praise()]


q1, q2, q3, q4, q5 = load_exercises(
    "09",
    EXERCISES,
    kinds={cls.kind: cls for cls in (CapstoneTool, ResourceExercise, PromptExercise, ServerCheck)},
    checks={
        "district_key": district_key,
        "station_key": station_key,
        "same_district": same_district,
        "bike_nearby": bike_nearby,
    },
    values={
        "districts": [*DISTRICTS, "강남구", "Gangnam-gu", "서울"],
        "few_bikes": FEW_BIKES,
        "station_ids": [*STATIONS, "ST-0000"],
    },
)
q5.parts = [q1, q2, q3, q4]  # type: ignore[attr-defined]
