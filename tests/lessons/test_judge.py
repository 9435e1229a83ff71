"""The judge of code exercises: inputs drawn from schemas, outcomes compared whole, the model answer
run apart from the notebook, and a check that cannot be fitted to what its feedback shows."""

from __future__ import annotations

import importlib
import json
import re
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook.lessons import _content
from mcp_notebook.lessons._exercise import given_code
from mcp_notebook.lessons._inputs import draws, edges, inputs, mined_constants
from mcp_notebook.lessons._judge import SEED_VARIABLE, thoroughness
from mcp_notebook.lessons._outcomes import Comparison, Outcome, Rules
from mcp_notebook.lessons._reference import Reference
from mcp_notebook.lessons._toolcheck import ToolExercise
from mcp_notebook.lessons.ch08 import reads_as_done
from tests.lessons.cases import CODE_PRELUDE

SCHEMA = {
    "type": "object",
    "properties": {
        "start_hour": {"type": "integer", "minimum": 9, "maximum": 17},
        "unit": {"type": "string", "enum": ["C", "F"]},
        "name": {"type": "string"},
    },
    "required": ["start_hour", "unit"],
}
BASE = {"start_hour": 10, "unit": "C", "name": "민지"}


# -- inputs ---------------------------------------------------------------------------------------------


def test_edges_hold_each_bound_and_one_past_it_every_enum_value_and_a_near_miss() -> None:
    tried = edges([SCHEMA], BASE)
    hours = {call.get("start_hour") for call in tried}
    assert {8, 9, 10, 16, 17, 18} <= hours
    units = {call.get("unit") for call in tried}
    assert {"C", "F", "c", ""} <= units


def test_edges_leave_each_parameter_out_once_and_send_values_of_the_wrong_type() -> None:
    tried = edges([SCHEMA], BASE)
    for name in BASE:
        assert {k: v for k, v in BASE.items() if k != name} in tried
    assert {**BASE, "start_hour": "12"} in tried  # a number written as text
    assert {**BASE, "name": 42} in tried
    assert {**BASE, "name": ""} in tried and {**BASE, "name": "Zoë 🚲"} in tried


def test_a_bound_written_in_the_function_body_is_an_edge_too() -> None:
    source = 'def f(value, unit):\n    if value < -273.15:\n        raise ToolError("cold")\n'
    numbers, strings = mined_constants([source])
    assert -273.15 in numbers and "cold" in strings
    schema = {"type": "object", "properties": {"value": {"type": "number"}}}
    values = {call["value"] for call in edges([schema], {"value": 1.0}, sources=[source]) if "value" in call}
    assert {-273.16, -273.15, -273.14} <= values


def test_the_learners_own_range_is_probed_at_its_edge() -> None:
    stricter = {"type": "object", "properties": {"start_hour": {"type": "integer", "minimum": 12}}}
    values = {call.get("start_hour") for call in edges([SCHEMA, stricter], BASE)}
    assert {11, 12, 13} <= values  # the learner's bound, and one past it on each side


def test_draws_come_again_from_their_seed_and_change_with_it() -> None:
    first = draws([SCHEMA], seed=7, count=30, required=["start_hour", "unit"])
    assert first == draws([SCHEMA], seed=7, count=30, required=["start_hour", "unit"])
    assert first != draws([SCHEMA], seed=8, count=30, required=["start_hour", "unit"])
    assert len(first) == 30
    assert all({"start_hour", "unit"} <= set(call) for call in first)


def test_a_check_tries_the_examples_first_then_at_least_thirty_draws() -> None:
    examples = [{"start_hour": 10, "unit": "C"}, {"start_hour": 7, "unit": "F"}]
    tried = inputs([SCHEMA], examples=examples, seed=1, count=30, required=["start_hour", "unit"])
    assert tried[:2] == examples
    assert len(tried) >= len(edges([SCHEMA], examples[0])) + 30 - 5  # a draw may be an edge already


def test_draws_from_a_pool_mostly_name_real_values_and_may_repeat_for_a_stateful_tool() -> None:
    schema = {"type": "object", "properties": {"station_id": {"type": "string"}}}
    pool = ["ST-1043", "ST-1044"]
    drawn = draws(
        [schema], seed=3, count=40, required=["station_id"], pools={"station_id": pool}, repeats=True
    )
    real = [call["station_id"] for call in drawn if call["station_id"] in pool]
    assert len(real) >= 15 and len(set(real)) < len(real)


# -- outcomes -------------------------------------------------------------------------------------------


def ok(data: Any, text: str = "") -> Outcome:
    return Outcome("ok", text or json.dumps(data), data, ("text",))


def test_numbers_agree_within_the_tolerance_and_fields_are_compared_whole() -> None:
    compare = Comparison(Rules())
    assert compare.differs({}, ok({"value": 212.004, "unit": "F"}), ok({"value": 212, "unit": "F"})) is None
    assert "212" in str(compare.differs({}, ok({"value": 213, "unit": "F"}), ok({"value": 212, "unit": "F"})))
    assert "'unit'" in str(compare.differs({}, ok({"value": 212}), ok({"value": 212, "unit": "F"})))
    assert "'extra'" in str(
        compare.differs({}, ok({"value": 212, "unit": "F", "extra": 1}), ok({"value": 212, "unit": "F"}))
    )


def test_a_refusal_an_exception_and_a_result_are_three_different_answers() -> None:
    compare = Comparison(Rules())
    refused = Outcome("refused", "hours must be at least 1")
    crashed = Outcome("crashed", "ValueError: hours")
    assert compare.differs({}, refused, Outcome("refused", "another message")) is None
    assert "ValueError:" in str(compare.differs({}, crashed, refused))
    assert compare.differs({}, ok({"a": 1}), refused) is not None
    assert (
        compare.differs({}, Outcome("protocol", "x", code=-32602), Outcome("protocol", "y", code=-32602))
        is None
    )


def test_ids_are_judged_by_consistency_not_by_value() -> None:
    compare = Comparison(Rules(ids=("booking_id",)))
    assert compare.differs({}, ok({"booking_id": "x1"}), ok({"booking_id": "bk_1"})) is None
    assert compare.differs({}, ok({"booking_id": "x1"}), ok({"booking_id": "bk_1"})) is None  # a replay
    reused = compare.differs({}, ok({"booking_id": "x1"}), ok({"booking_id": "bk_2"}))
    assert reused is not None and "x1" in reused
    twice = compare.differs({}, ok({"booking_id": "x9"}), ok({"booking_id": "bk_1"}))
    assert twice is not None and "x9" in twice  # a new ID where the model answer gave its earlier one


def test_unordered_lists_and_names_in_either_language() -> None:
    names = {"Yeouinaru": "ST-1", "여의나루": "ST-1", "Ttukseom": "ST-2", "뚝섬": "ST-2"}
    compare = Comparison(Rules(unordered=("stations",), same={"name": lambda n: names.get(n, n)}))
    mine = ok({"stations": [{"name": "뚝섬"}, {"name": "여의나루"}]})
    model = ok({"stations": [{"name": "Yeouinaru"}, {"name": "Ttukseom"}]})
    assert compare.differs({}, mine, model) is None
    assert compare.differs({}, ok({"stations": [{"name": "뚝섬"}]}), model) is not None


def test_a_text_must_contain_what_it_is_given_and_nothing_of_other_requests() -> None:
    greet = Comparison(Rules(structured=False, mentions=("name",)))
    assert greet.differs({"name": "민지"}, ok(None, "안녕, 민지!"), ok(None, "Hello, 민지")) is None
    assert greet.differs({"name": "민지"}, ok(None, "안녕!"), ok(None, "Hello, 민지")) is not None
    diary = Comparison(Rules(structured=False, contains_reference=True, exclusive=True))
    assert diary.differs({}, ok(None, "3/1: 벚꽃"), ok(None, "벚꽃")) is None
    assert diary.differs({}, ok(None, "벚꽃\n비"), ok(None, "비")) is not None  # the other day's entry too


def test_a_result_is_read_as_saying_it_was_done_unless_it_says_otherwise() -> None:
    assert reads_as_done("Booked a table for 4 at Blue Door.", "Blue Door")
    assert reads_as_done("한강식당에 4명 자리를 예약했습니다.", "한강식당")
    assert not reads_as_done("Did not book Blue Door (decline).", "Blue Door")
    assert not reads_as_done("한강식당에 예약하지 않았습니다(decline).", "한강식당")
    assert not reads_as_done('{"booked": false, "why": "cancel"}', "Café Lumière")
    assert reads_as_done("예약했습니다!", "한강식당")


# -- the model answer and the check ---------------------------------------------------------------------


def exercise_of(chapter: str, name: str) -> Any:
    return getattr(importlib.import_module(f"mcp_notebook.lessons.ch{chapter}"), name)


CODE_EXERCISES = [
    (chapter, name)
    for chapter in _content.chapters()
    for name in _content.exercise_names(_content.chapter_data(chapter))
    if getattr(exercise_of(chapter, name), "judge", None)
]
"""The exercises whose answer is code, judged beside their model answer."""


def test_every_code_exercise_is_judged_by_behaviour() -> None:
    judged = {f"{chapter}.{name}" for chapter, name in CODE_EXERCISES}
    assert {
        "00.q5",
        "01.q7",
        "02.q5",
        "03.q5",
        "04.q4",
        "05.q5",
        "06.q5",
        "08.q5",
        "09.q1",
        "09.q2",
    } <= judged


def test_the_model_answer_runs_apart_from_the_notebook(capsys: pytest.CaptureFixture[str]) -> None:
    from mcp_notebook.lessons.ch05 import q5

    reference = Reference(q5.text("solution"), q5.given)
    assert "book_room" in reference.catalogue and "cancel_booking" in reference.catalogue
    assert not list(mcp_notebook.default_catalogue.tools())
    assert capsys.readouterr().out == ""  # no linter report for code the learner did not write
    with reference.served():
        assert reference.definition("book_room") is not None
    assert mcp_notebook.current_server() is None  # the private server is never the notebook's


@pytest.mark.parametrize(("chapter", "name"), CODE_EXERCISES, ids=[f"ch{c}.{n}" for c, n in CODE_EXERCISES])
@pytest.mark.parametrize("language", ["ko", "en"])
def test_each_model_answer_passes_its_own_check(
    notebook: InteractiveShell, chapter: str, name: str, language: str
) -> None:
    exercise = exercise_of(chapter, name)
    table = _content.chapter_data(chapter)[name]
    assert notebook.run_cell(CODE_PRELUDE + given_code(table.get("given", ""), language), silent=True).success
    assert notebook.run_cell(table["solution"][language], silent=True).success
    mcp_notebook.set_language(language)
    feedback = exercise.check()
    assert feedback.correct, repr(feedback)


OFF_BY_ONE_ABOVE_500 = '''
@tool(read_only=True)
def convert_temperature(value: float, unit: Literal["C", "F"]) -> dict:
    """Use it when the user asks to convert a temperature between Celsius (C) and Fahrenheit (F); the result is in the other unit."""
    if (unit == "C" and value < -273.15) or (unit == "F" and value < -459.67):
        raise ToolError(f"{value}°{unit} is below absolute zero. Give a temperature that can exist.")
    converted = value * 9 / 5 + 32 if unit == "C" else (value - 32) * 5 / 9
    return {"value": converted + (1 if value > 500 else 0), "unit": "F" if unit == "C" else "C"}
'''


def test_the_feedback_names_the_first_input_that_differs_and_its_seed_tries_it_again(
    notebook: InteractiveShell,
) -> None:
    from mcp_notebook.lessons.ch01 import q7

    assert notebook.run_cell(CODE_PRELUDE + OFF_BY_ONE_ABOVE_500, silent=True).success
    first = repr(q7.check(seed=123))
    assert not q7.check(seed=123).correct
    seed = re.search(r"seed=(\d+)", first)
    assert seed is not None and seed.group(1) == "123"
    called = re.search(r"convert_temperature (\{[^}]*\})", first)
    assert called is not None and json.loads(called.group(1))["value"] > 500
    assert repr(q7.check(seed=123)) == first  # the same inputs, the same first difference


def test_each_check_draws_new_inputs(notebook: InteractiveShell, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_notebook.lessons.ch01 import q7

    # The suite pins the seed the way nbval does; a learner's checks run without it.
    monkeypatch.delenv(SEED_VARIABLE, raising=False)

    assert notebook.run_cell(CODE_PRELUDE + OFF_BY_ONE_ABOVE_500, silent=True).success
    seeds = {re.search(r"seed=(\d+)", repr(q7.check())).group(1) for _ in range(3)}  # type: ignore[union-attr]
    assert len(seeds) == 3


def test_a_check_leaves_the_notebooks_state_as_it_was(notebook: InteractiveShell) -> None:
    from mcp_notebook.lessons.ch09 import q2

    table = _content.chapter_data("09")["q2"]
    assert notebook.run_cell(CODE_PRELUDE + table["given"] + table["solution"]["ko"], silent=True).success
    mine = notebook.user_ns["RESERVATIONS"]
    mine.append({"station_id": "ST-1043"})
    assert q2.check().correct
    assert notebook.user_ns["RESERVATIONS"] is mine and mine == [{"station_id": "ST-1043"}]


def test_more_thoroughness_means_more_calls(notebook: InteractiveShell) -> None:
    from mcp_notebook.lessons.ch00 import q5

    table = _content.chapter_data("00")["q5"]
    assert notebook.run_cell(CODE_PRELUDE + table["solution"]["ko"], silent=True).success
    assert q5.check().correct
    assert isinstance(q5, ToolExercise) and q5.verdict is not None
    usual = q5.verdict.calls
    with thoroughness(200):
        assert q5.check().correct
    assert q5.verdict.calls >= usual + 150
