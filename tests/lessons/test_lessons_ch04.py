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
    """A rental, or a refusal a model can act on: the wrong argument, why, and a value that works."""
    if start_hour < OPEN:
        raise ToolError(f"start_hour={start_hour}: rentals start at {OPEN}. Use start_hour >= {OPEN}.")
    if hours < 1:
        raise ToolError(f"hours={hours}: a rental lasts at least 1 hour. Use hours >= 1.")
    if start_hour + hours > CLOSE:
        end = start_hour + hours
        raise ToolError(
            f"hours={hours}: starting at {start_hour} ends at {end}, after the return time ({CLOSE}). "
            f"Use hours <= {CLOSE - start_hour}."
        )
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
    """Right by what it answers next to the model answer, on the question's examples first, then the
    schema's edges and the draws; and its refusals let the scripted model fix each wrong call."""
    define_rental(catalogue)
    before = len(server.calls)
    feedback = ch04.q4.check()
    assert feedback.correct, repr(feedback)
    assert "모범 답안을 실제 MCP 서버로 같은 입력" in repr(feedback)
    calls = server.calls[before:]
    outcomes = [(c.tool, c.arguments, c.is_error) for c in calls]
    assert outcomes[:6] == [  # the question's examples first
        ("rent_bike", {"station": "north", "start_hour": 10, "hours": 2}, False),
        ("rent_bike", {"station": "river", "start_hour": 16, "hours": 2}, False),
        ("rent_bike", {"station": "north", "start_hour": 7, "hours": 1}, True),
        ("rent_bike", {"station": "south", "start_hour": 17, "hours": 3}, True),
        ("rent_bike", {"station": "north", "start_hour": 10, "hours": 0}, True),
        ("rent_bike", {"station": "east", "start_hour": 10, "hours": 1}, True),
    ]
    assert len(calls) >= 6 + 30 and {c.tool for c in calls} == {"rent_bike"}
    # The edges: the opening hour and the one before it, the shortest rental, one that ends right at 18.
    for arguments, refused in [
        ({"station": "north", "start_hour": 8, "hours": 2}, True),
        ({"station": "north", "start_hour": 9, "hours": 2}, False),
        ({"station": "north", "start_hour": 10, "hours": 1}, False),
        ({"station": "north", "start_hour": 17, "hours": 1}, False),
    ]:
        assert ("rent_bike", arguments, refused) in outcomes
    # Last, the recoveries: each wrong call of the exercise, then the call the model fixed from the message.
    assert [(c.arguments, c.is_error) for c in calls[-8:]] == [
        ({"station": "south", "start_hour": 17, "hours": 3}, True),
        ({"station": "south", "start_hour": 17, "hours": 1}, False),  # "Use hours <= 1."
        ({"station": "north", "start_hour": 7, "hours": 2}, True),
        ({"station": "north", "start_hour": 9, "hours": 2}, False),  # "Use start_hour >= 9."
        ({"station": "river", "start_hour": 15, "hours": 5}, True),
        ({"station": "river", "start_hour": 15, "hours": 3}, False),
        ({"station": "north", "start_hour": 10, "hours": 0}, True),
        ({"station": "north", "start_hour": 10, "hours": 1}, False),  # "Use hours >= 1."
    ]
    # Each refusal travelled as a result (isError), never as a JSON-RPC error.
    assert all("result" in c.wire()["response"] for c in calls)


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
        ("value_error", "모델에게 쓰지 않은 예외(ValueError:)로 거절했고"),
        ("value_error", 'raise ToolError("...")'),
        # Renting past 18: the question's example, which the model answer refuses, got a rental.
        (
            "no_end_check",
            'rent_bike {"station": "south", "start_hour": 17, "hours": 3} 호출에서: 여러분의 도구 → 결과',
        ),
        # "Booking failed." says nothing to fix: the scripted model cannot recover from it.
        ("vague_message", "rent_bike의 오류 메시지로는 고치지 못했습니다"),
        ("vague_message", "틀린 인자와 틀린 까닭, 이 요청에 맞는 값을 메시지에 적으세요"),
        # A rental that ends right at 18 is refused, where the model answer rents it.
        ("strict_end", '모범 답안 → 결과 {"station": "river", "start_hour": 16, "end_hour": 18}'),
        ("free_station", "'station'에 enum(허용 값 목록)이 없습니다"),
        (
            "free_station",
            'rent_bike {"station": "east", "start_hour": 10, "hours": 1} 호출에서: 여러분의 도구 → 결과',
        ),
        # A refusal returned as a plain result: the model answer's is isError.
        ("error_string", '여러분의 도구 → 결과 {"error": '),
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
