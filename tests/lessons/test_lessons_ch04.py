"""Chapter 04 (오류의 두 층위): each checker accepts a right answer, rejects typical wrong ones with
the advice meant for them, knows when nothing was tried and ends its hint ladder; the "write a
tool" exercise is checked through the real in-kernel server."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, ToolError, set_language, tool
from mcp_notebook.lessons import ToolExercise, ch04


def test_the_write_it_exercise_is_checked_through_a_server() -> None:
    assert isinstance(ch04.q4, ToolExercise)


@pytest.mark.parametrize("answer", ["-32602", "−32602", -32602, "`-32602`"])
def test_the_code_may_be_written_as_text_or_as_a_number(answer: Any) -> None:
    assert ch04.q2.check(answer).correct


def test_a_boolean_is_not_taken_for_a_code() -> None:
    assert "문자열이어야" in repr(ch04.q2.check(True))


def test_the_notebook_variable_is_read(shell: InteractiveShell) -> None:
    shell.run_cell("q2_answer = ...")
    assert ch04.q2.check().kind == "not_attempted"
    shell.run_cell("q2_answer = -32700")
    assert "JSON으로 읽지 못했을 때" in repr(ch04.q2.check())
    shell.run_cell("q2_answer = -32602")
    assert ch04.q2.check().correct


def test_english_is_there_too() -> None:
    set_language("en")
    assert "not attempted yet" in repr(ch04.q1)
    assert "-32601 (Method not found)" in repr(ch04.q2.check("-32601"))
    assert "Hint 1/" in repr(ch04.q4.hint())
    assert "return time" in repr(ch04.q4.solution())


# -- "write a tool", through the real server ------------------------------------------------------
OPEN, CLOSE = 9, 18
DOC = "Rent a bike. Use when the user asks to rent one; rentals start at 9 and bikes are back by 18."


def checked_rental(station: str, start_hour: int, hours: int) -> dict[str, Any]:
    if start_hour < OPEN:
        raise ToolError(f"start_hour={start_hour}: rentals start at {OPEN}. Use start_hour >= {OPEN}.")
    if hours < 1:
        raise ToolError(f"hours={hours}: a rental lasts at least 1 hour.")
    if start_hour + hours > CLOSE:
        raise ToolError(f"hours={hours}: that ends after the return time ({CLOSE}). Use fewer hours.")
    return {"station": station, "start_hour": start_hour, "end_hour": start_hour + hours}


def define_rental(catalogue: Catalogue, flaw: str | None = None) -> None:
    """A rent_bike tool: right, or with one typical flaw."""
    if flaw == "value_error":

        def rent_bike(
            station: Literal["north", "south", "river"], start_hour: int, hours: int
        ) -> dict[str, Any]:
            try:
                return checked_rental(station, start_hour, hours)
            except ToolError as exc:
                raise ValueError(str(exc)) from None

    elif flaw == "no_end_check":

        def rent_bike(
            station: Literal["north", "south", "river"], start_hour: int, hours: int
        ) -> dict[str, Any]:
            return checked_rental(station, start_hour, min(hours, CLOSE - start_hour) if hours > 0 else hours)

    elif flaw == "vague_message":

        def rent_bike(
            station: Literal["north", "south", "river"], start_hour: int, hours: int
        ) -> dict[str, Any]:
            try:
                return checked_rental(station, start_hour, hours)
            except ToolError:
                raise ToolError("Booking failed.") from None

    elif flaw == "strict_end":

        def rent_bike(
            station: Literal["north", "south", "river"], start_hour: int, hours: int
        ) -> dict[str, Any]:
            if start_hour + hours >= CLOSE:
                raise ToolError(f"hours={hours}: must end before {CLOSE}.")
            return checked_rental(station, start_hour, hours)

    elif flaw == "free_station":

        def rent_bike(station: str, start_hour: int, hours: int) -> dict[str, Any]:  # type: ignore[misc]
            return checked_rental(station, start_hour, hours)

    elif flaw == "error_string":

        def rent_bike(
            station: Literal["north", "south", "river"], start_hour: int, hours: int
        ) -> dict[str, Any]:
            try:
                return checked_rental(station, start_hour, hours)
            except ToolError as exc:
                return {"error": str(exc)}

    else:

        def rent_bike(
            station: Literal["north", "south", "river"], start_hour: int, hours: int
        ) -> dict[str, Any]:
            return checked_rental(station, start_hour, hours)

    rent_bike.__doc__ = DOC
    tool(catalogue=catalogue)(rent_bike)


def test_a_good_rental_tool_is_accepted_through_the_server(server: Any, catalogue: Catalogue) -> None:
    define_rental(catalogue)
    before = len(server.calls)
    feedback = ch04.q4.check()
    assert feedback.correct, repr(feedback)
    assert "tools/list와 tools/call" in repr(feedback)
    outcomes = [(c.tool, c.arguments, c.is_error) for c in server.calls[before:]]
    assert outcomes == [
        ("rent_bike", {"station": "north", "start_hour": 10, "hours": 2}, False),
        ("rent_bike", {"station": "river", "start_hour": 16, "hours": 2}, False),
        ("rent_bike", {"station": "north", "start_hour": 7, "hours": 1}, True),
        ("rent_bike", {"station": "south", "start_hour": 17, "hours": 3}, True),
        ("rent_bike", {"station": "north", "start_hour": 10, "hours": 0}, True),
        ("rent_bike", {"station": "east", "start_hour": 10, "hours": 1}, True),
    ]
    # Each refusal travelled as a result (isError), never as a JSON-RPC error.
    assert all("result" in c.wire()["response"] for c in server.calls[before:])


def test_the_model_answer_itself_passes_through_the_server(
    server: Any, shell: InteractiveShell, catalogue: Catalogue
) -> None:
    code = ch04.q4.solution_code().replace("@tool\n", "@tool(catalogue=_catalogue)\n")
    code = code.replace("@tool(idempotent=True)\n", "@tool(idempotent=True, catalogue=_catalogue)\n")
    shell.user_ns["_catalogue"] = catalogue
    shell.run_cell(code).raise_error()
    feedback = ch04.q4.check()
    assert feedback.correct, repr(feedback)


@pytest.mark.parametrize(
    ("flaw", "advice"),
    [
        ("value_error", "예외 이름(ValueError:)"),
        ("value_error", 'raise ToolError("...")'),
        ("no_end_check", "20시에 끝나서 반납 시각을 넘깁니다"),
        ("vague_message", "오류 메시지에 'start_hour'가 없습니다"),
        ("vague_message", "언제까지 반납해야 하는지(18시)"),
        ("strict_end", "18시에 딱 반납하는 대여는 허용해야"),
        ("free_station", "'station'에 enum(허용 값 목록)이 없습니다"),
        ("free_station", "없는 대여소 'east'가 통과했습니다"),
        ("error_string", "isError: true로 거절되어야"),
    ],
)
def test_a_flawed_rental_tool_is_rejected_with_the_right_advice(
    server: Any, catalogue: Catalogue, flaw: str, advice: str
) -> None:
    define_rental(catalogue, flaw)
    feedback = ch04.q4.check()
    assert feedback.kind == "incorrect"
    assert advice in repr(feedback), repr(feedback)


def test_a_function_without_tool_is_named_as_such(server: Any, shell: InteractiveShell) -> None:
    shell.run_cell("def rent_bike(station: str, start_hour: int, hours: int) -> dict:\n    return {}")
    assert "도구로 등록되지 않았습니다" in repr(ch04.q4.check())


def test_the_checker_starts_and_stops_a_server_when_none_runs() -> None:
    assert mcp_notebook.current_server() is None
    define_rental(mcp_notebook.default_catalogue)
    try:
        assert ch04.q4.check().correct
    finally:
        mcp_notebook.remove_tool("rent_bike")
    assert mcp_notebook.current_server() is None
