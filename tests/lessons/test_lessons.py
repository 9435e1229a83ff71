"""The lesson exercises: every checker accepts a right answer, rejects typical wrong ones with the
advice meant for them, knows when nothing was tried, and ends its hint ladder. "Write a tool"
exercises are checked through the real in-kernel server."""

from __future__ import annotations

import importlib
import re
import string
from pathlib import Path
from typing import Any, Literal

import nbformat
import pytest
from IPython.core.interactiveshell import InteractiveShell
from nbclient import NotebookClient

import mcp_notebook
from mcp_notebook import Catalogue, ToolError, set_language, tool
from mcp_notebook.core import _text
from mcp_notebook.lessons import Feedback, _notebooks, ch00, ch01
from tests.lessons.conftest import ALL_EXERCISES


def test_check_reads_the_answer_from_the_notebook(shell: InteractiveShell) -> None:
    assert ch00.q4.check().kind == "not_attempted"
    shell.run_cell('q4_answer = "tools/call"')
    assert "실제로 실행할 때" in repr(ch00.q4.check())
    shell.run_cell('q4_answer = "tools/list"')
    assert ch00.q4.check().correct


def test_partial_and_malformed_classifications_say_what_is_wrong() -> None:
    partial = ch01.q2.check({"insufficient_funds": "execution", "unknown_tool": ...})
    assert partial.kind == "incorrect"
    assert "아직 답하지 않은 항목: 'unknown_tool', 'bad_date', 'malformed_request', 'api_timeout'" in repr(
        partial
    )
    assert "알 수 없는 항목 'tol'" in repr(ch00.q2.check({"tool": "model", "tol": "user"}))
    assert "알아볼 수 없습니다" in repr(ch01.q1.check({"insert_row": "rsrc", "show_schema": "resource"}))
    assert "dict여야" in repr(ch01.q1.check(42))


def test_malformed_choices_and_short_answers_say_how_to_answer() -> None:
    assert "보기에 없습니다" in repr(ch01.q4.check("E"))
    assert "문자열이어야" in repr(ch00.q4.check(3))


def test_solving_after_a_miss_counts_attempts_and_ends_correct() -> None:
    wrong = [ch01.q4.letter_of(option) for option in ch01.q4.ids if option != ch01.q4.answer]
    ch01.q4.check(wrong[0])
    ch01.q4.check(wrong[1])
    assert "시도 2번" in repr(ch01.q4)
    right = ch01.q4.letter_of(ch01.q4.answer)
    assert ch01.q4.check(right).correct and ch01.q4.attempts == 3 and ch01.q4.status == "correct"


def test_outputs_are_deterministic_text_and_html() -> None:
    first = [repr(ch00.q3), repr(ch00.q3.check(dict(ch00.q3.expected))), ch00.q3._repr_html_()]
    ch00.q3.reset()
    second = [repr(ch00.q3), repr(ch00.q3.check(dict(ch00.q3.expected))), ch00.q3._repr_html_()]
    assert first == second
    html = ch01.q4._repr_html_()
    assert "<code>structuredContent</code>" in html and "q4_answer = ..." in html


def test_english_is_there_too() -> None:
    set_language("en")
    assert "not attempted yet" in repr(ch00.q1)
    assert "How to answer" in repr(ch00.q1)
    assert "That is the name of a Python function" in repr(ch00.q4.check("list_tools"))
    assert "Hint 1/" in repr(ch01.q7.hint())
    assert "Model answer" in repr(ch01.q7.solution())


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("key", [key for key in _text.catalogue("en") if key.startswith("lessons.")])
def test_each_lesson_message_is_in_korean_and_english(key: str) -> None:
    english, korean = _text.catalogue("en")[key], _text.catalogue("ko")[key]
    assert english.strip() and korean.strip()
    assert fields(english) == fields(korean)
    assert any("\uac00" <= ch <= "\ud7a3" for ch in korean), key


@pytest.mark.parametrize("key", sorted(ALL_EXERCISES))
def test_each_exercise_text_is_in_korean_and_english_and_chooses_its_particles(key: str) -> None:
    exercise = ALL_EXERCISES[key]
    texts = dict(exercise._texts)
    vocabulary = getattr(exercise, "vocabulary", None)
    if vocabulary is not None:
        for category in vocabulary._categories.values():
            texts[f"vocab.{category.id}.label"] = category.label
            texts[f"vocab.{category.id}.meaning"] = category.meaning
    assert {"title", "question", "explanation", "hint.1"} <= texts.keys()
    for name, text in texts.items():
        korean, english = text["ko"], text["en"]
        assert korean.strip() and english.strip(), name
        assert not re.search(r"을\(를\)|이\(가\)|은\(는\)|과\(와\)|\((으|이)\)", korean), (name, korean)


def test_feedback_is_a_small_value_object() -> None:
    feedback = Feedback("x", "hint", "h", ["a `b`"], code="c")
    assert repr(feedback) == "💡 [x] h\n  a `b`\n\n    c"
    assert "<code>b</code>" in feedback._repr_html_()


# -- "write a tool", through the real server ------------------------------------------------------
def define_greet(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    def greet(name: str) -> str:
        """Greet a person by name."""
        return f"Hello, {name}!"


def test_a_good_first_tool_is_accepted_through_the_server(server: Any, catalogue: Catalogue) -> None:
    define_greet(catalogue)
    before = len(server.calls)
    feedback = ch00.q5.check()
    assert feedback.correct, repr(feedback)
    assert "모범 답안을 실제 MCP 서버로 같은 입력" in repr(feedback)
    calls = server.calls[before:]
    assert len(calls) >= 30 and {c.tool for c in calls} == {"greet"}  # every input, beside the model answer
    assert calls[0].arguments == {"name": "민지"} and not calls[0].is_error  # the question's example first
    assert any(c.is_error for c in calls) and any(c.arguments == {} for c in calls)  # a missing name refused


def test_a_first_tool_without_types_or_description_is_rejected(server: Any, catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    def greet(name):  # type: ignore[no-untyped-def]
        return "hi"

    shown = repr(ch00.q5.check())
    assert "도구에 설명(description)이 없습니다" in shown
    assert "'name'에 타입이 없어서" in shown
    assert "들어 있지 않습니다: hi" in shown  # what it answered, without the name it was given


def test_a_function_without_tool_is_named_as_such(server: Any, shell: InteractiveShell) -> None:
    shell.run_cell("def greet(name: str) -> str:\n    return name")
    shown = repr(ch00.q5.check())
    assert "도구로 등록되지 않았습니다" in shown and "@tool" in shown
    assert "도구로 등록되지 않았습니다" in repr(ch00.q5.check(shell.user_ns["greet"]))


def test_a_tool_under_another_name_is_pointed_at(server: Any, catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    def hello(name: str) -> str:
        """Greet a person by name."""
        return f"Hello, {name}!"

    assert ch00.q5.check().kind == "not_attempted"
    assert "채점기는 'greet'을 찾습니다" in repr(ch00.q5.check(hello))


def test_the_checker_starts_and_stops_a_server_when_none_runs() -> None:
    assert mcp_notebook.current_server() is None
    define_greet(mcp_notebook.default_catalogue)
    try:
        assert ch00.q5.check().correct
    finally:
        mcp_notebook.remove_tool("greet")
    assert mcp_notebook.current_server() is None


def to_other_unit(value: float, unit: str) -> dict[str, Any]:
    if (unit == "C" and value < -273.15) or (unit == "F" and value < -459.67):
        raise ToolError(f"{value}°{unit} is below absolute zero.")
    if unit == "C":
        return {"value": value * 9 / 5 + 32, "unit": "F"}
    return {"value": (value - 32) * 5 / 9, "unit": "C"}


DOC = "Convert a temperature between Celsius (C) and Fahrenheit (F)."


def define_converter(catalogue: Catalogue, flaw: str | None = None) -> None:
    """A convert_temperature tool: right, or with one typical flaw."""
    if flaw == "no_enum":

        def convert_temperature(value: float, unit: str) -> dict[str, Any]:
            return to_other_unit(value, unit)

    elif flaw == "no_output_schema":

        def convert_temperature(value: float, unit: Literal["C", "F"]):  # type: ignore[no-untyped-def]
            return to_other_unit(value, unit)

    elif flaw == "optional_value":

        def convert_temperature(value: float = 0.0, unit: Literal["C", "F"] = "C") -> dict[str, Any]:
            return to_other_unit(value, unit)

    elif flaw == "no_tool_error":

        def convert_temperature(value: float, unit: Literal["C", "F"]) -> dict[str, Any]:
            return to_other_unit(max(value, -273.15) if unit == "C" else max(value, -459.67), unit)

    elif flaw == "bad_formula":

        def convert_temperature(value: float, unit: Literal["C", "F"]) -> dict[str, Any]:
            return {"value": value * 9 / 5, "unit": "F"} if unit == "C" else to_other_unit(value, unit)

    else:

        def convert_temperature(value: float, unit: Literal["C", "F"]) -> dict[str, Any]:
            return to_other_unit(value, unit)

    if flaw != "no_description":
        convert_temperature.__doc__ = DOC
    tool(read_only=flaw != "no_read_only" or None, catalogue=catalogue)(convert_temperature)


def test_a_good_converter_is_accepted_through_the_server(server: Any, catalogue: Catalogue) -> None:
    define_converter(catalogue)
    before = len(server.calls)
    feedback = ch01.q7.check()
    assert feedback.correct, repr(feedback)
    outcomes = [(c.arguments, c.is_error) for c in server.calls[before:]]
    assert outcomes[:5] == [  # the question's examples first, then the edges and the draws
        ({"value": 100, "unit": "C"}, False),
        ({"value": 32, "unit": "F"}, False),
        ({"value": -300, "unit": "C"}, True),
        ({"value": 10, "unit": "K"}, True),
        ({"unit": "C"}, True),
    ]
    tried = [arguments for arguments, _ in outcomes]
    assert {"value": -273.16, "unit": "C"} in tried and {"value": -273.15, "unit": "C"} in tried
    assert len(outcomes) >= 60


@pytest.mark.parametrize(
    ("flaw", "advice"),
    [
        ("no_enum", "'unit'에 enum(허용 값 목록)이 없습니다"),
        ("no_enum", '"unit": "K"'),
        ("no_description", "도구에 설명(description)이 없습니다"),
        ("no_read_only", "annotations의 readOnlyHint가 true가 아닙니다"),
        ("no_tool_error", "모범 답안 → 거절"),
        ("bad_formula", "모범 답안은 212"),
        ("no_output_schema", "outputSchema가 없습니다"),
        ("optional_value", "'value'가 필수가 아닙니다"),
    ],
)
def test_a_flawed_converter_is_rejected_with_the_right_advice(
    server: Any, catalogue: Catalogue, flaw: str, advice: str
) -> None:
    define_converter(catalogue, flaw)
    feedback = ch01.q7.check()
    assert feedback.kind == "incorrect"
    assert advice in repr(feedback), repr(feedback)


# -- the notebooks, answered ----------------------------------------------------------------------
ROOT = Path(__file__).parents[2]
CORRECT = {"ko": "정답입니다", "en": "Correct!"}
LESSON_NOTEBOOKS = [n for language in ("ko", "en") for n in _notebooks.every_notebook(language)]


@pytest.mark.kernel
@pytest.mark.parametrize("made", LESSON_NOTEBOOKS, ids=lambda n: n.path)
def test_a_learner_writing_the_model_answers_solves_every_exercise_in_a_kernel(
    made: _notebooks.Notebook,
) -> None:
    """Fill each answer cell of a lesson with its model answer and run the notebook top to bottom."""
    path = ROOT / made.path
    chapter = importlib.import_module(f"mcp_notebook.lessons.ch{made.chapter}")
    notebook = nbformat.read(path, as_version=4)
    answered = []
    for cell, source in zip(notebook.cells, made.cells, strict=True):
        if source.exercise is not None:
            name = source.exercise
            with _notebooks.speaking(made.language):
                cell.source = f"{getattr(chapter, name).solution_code()}\n\n{name}.check()"
            answered.append(cell)
    assert answered, made.path
    resources = {"metadata": {"path": str(path.parent)}}
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources=resources).execute()
    for cell in answered:
        shown = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
        assert CORRECT[made.language] in shown, shown
