"""Chapter 05 (도구 인터페이스 설계): every checker accepts a right answer, rejects typical wrong ones with
the advice meant for them, knows when nothing was tried and ends its hint ladder. The lint-rule
classification agrees with the real linter, and the redesign exercise is judged by the linter and
through the real in-kernel server."""

from __future__ import annotations

import itertools
from typing import Annotated, Any, Literal, TypedDict

import pytest
from IPython.core.interactiveshell import InteractiveShell
from pydantic import Field

import mcp_notebook
from mcp_notebook import Catalogue, HandleStore, ToolError, current_client, lint, set_language, tool
from mcp_notebook.lessons import _content, ch05
from tests.conftest import serve_unattended
from tests.security.conftest import client_as


def test_partial_classification_lists_what_is_missing() -> None:
    shown = repr(ch05.q2.check({"order_status": "MCP022", "sticker": ...}))
    assert "6개 중 1개를 맞혔습니다" in shown and "'sticker'" in shown
    assert "알아볼 수 없습니다" in repr(ch05.q2.check({**dict(ch05.q2.expected), "sms_key": "MCP999"}))


Described = Annotated[str, "설명이 있는 인자"]


# The six tools of q2, each with the one flaw the item describes (the rest done well).
def q2_tools(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, idempotent=True)
    def set_order_status(order_id: Described, status: Described) -> str:
        """주문 상태를 바꿔 달라고 할 때 사용하세요."""
        return status

    @tool(catalogue=catalogue, idempotent=True)
    def place_sticker(
        x: Annotated[int, Field(ge=0, le=1920, description="왼쪽에서부터")],
        y: Annotated[int, Field(ge=0, le=1080, description="위에서부터")],
        width: Annotated[int, Field(ge=1, le=1920, description="폭")],
        height: Annotated[int, Field(ge=1, le=1080, description="높이")],
    ) -> str:
        """사용자가 스티커를 붙여 달라고 할 때 사용하세요."""
        return "ok"

    @tool(catalogue=catalogue, read_only=True)
    def export_report(options: Annotated[dict, "내보내기 설정"]) -> str:  # type: ignore[type-arg]
        """사용자가 보고서를 파일로 받고 싶다고 할 때 사용하세요."""
        return "ok"

    @tool(catalogue=catalogue, idempotency_key=True)
    def send_sms(api_key: Described, to: Described, text: Described) -> str:
        """사용자가 문자를 보내 달라고 할 때 사용하세요."""
        return "ok"

    @tool(catalogue=catalogue)
    def transfer_money(
        from_account: Described,
        to_account: Described,
        amount: Annotated[int, Field(ge=1, le=1_000_000, description="원 단위 금액")],
    ) -> str:
        """사용자가 돈을 보내 달라고 할 때 사용하세요."""
        return "ok"

    @tool(catalogue=catalogue, read_only=True)
    def search_orders(query: Described) -> str:
        """사용자가 주문을 찾아 달라고 할 때 사용하세요."""
        return query

    @tool(catalogue=catalogue, read_only=True)
    def find_orders(query: Described) -> str:
        """사용자가 주문을 찾아 달라고 할 때 사용하세요."""
        return query


def test_the_rules_of_q2_are_what_the_linter_reports(catalogue: Catalogue) -> None:
    q2_tools(catalogue)
    reported: dict[str, set[str]] = {}
    for entry in catalogue:  # each tool alone, except the pair of look-alikes
        among = catalogue.tools() if entry.name.endswith("_orders") else []
        for finding in lint(entry, among=among):
            if finding.severity != "info":
                reported.setdefault(finding.tool, set()).add(finding.rule)
    tools = {
        "order_status": "set_order_status",
        "sticker": "place_sticker",
        "export_options": "export_report",
        "sms_key": "send_sms",
        "transfer": "transfer_money",
        "two_searches": "search_orders",
    }
    assert {item: reported.get(name) for item, name in tools.items()} == {
        item: {rule} for item, rule in ch05.q2.expected.items()
    }


# -- q5: the redesigned book_room, judged by the linter and through the real server ---------------
DOC_KO = (
    "사용자가 오늘 회의실을 새로 잡아 달라고 할 때 사용하세요. 회의실 하나를 시작 시각부터 정한 시간만큼 "
    "예약합니다. 이미 잡은 예약을 취소할 때는 쓰지 말고 cancel_booking을 쓰세요."
)
Room = Annotated[Literal["A101", "A102", "B201"], "예약할 회의실"]
Start = Annotated[int, Field(ge=9, le=17, description="시작 시각(9~17시)")]
Hours = Annotated[int, Field(ge=1, le=3, description="예약할 시간 수(1~3)")]
PRELUDE = "from typing import Annotated, Literal\nfrom pydantic import Field\nfrom mcp_notebook import ToolError, tool\n"
"""What the chapter's notebook has imported before its exercises (the set-up uses it)."""


class Booking(TypedDict):
    booking_id: str
    room: str
    start_hour: int
    hours: int


class Cancellation(TypedDict):
    booking_id: str
    cancelled: bool


def define_booking(catalogue: Catalogue, notebook: dict[str, Any], flaw: str | None = None) -> None:
    """`book_room`: right, or with one typical flaw; beside the chapter's `cancel_booking`, both on the
    notebook's `bookings` (the state the judge gives both sides and cancels from)."""
    bookings: dict[str, Booking] = {}
    notebook["bookings"] = bookings
    numbers = itertools.count(1)  # never goes back: a cancelled booking's ID is not given again

    def book(room: str, start_hour: int, hours: int) -> Booking:
        if start_hour + hours > 18:
            if flaw == "vague_error":
                raise ToolError("실패")
            raise ToolError(
                f"회의실은 18시에 닫습니다. {start_hour}시에 시작하면 hours를 {18 - start_hour} 이하로 줄이세요."
            )
        booking_id = "bk_1" if flaw == "same_id" else f"bk_{next(numbers)}"
        bookings[booking_id] = {
            "booking_id": booking_id,
            "room": room,
            "start_hour": start_hour,
            "hours": hours,
        }
        return bookings[booking_id]

    def no_enum(room: Annotated[str, "예약할 회의실"], start_hour: Start, hours: Hours) -> Booking:
        return book(room, start_hour, hours)

    def no_bounds(room: Room, start_hour: Annotated[int, "시작 시각"], hours: Hours) -> Booking:
        return book(room, start_hour, hours)

    def details(
        room: Room, start_hour: Start, hours: Hours, details: Annotated[dict[str, Any], "추가 요청"]
    ) -> Booking:
        return book(room, start_hour, hours)

    def hand_made_key(
        room: Room,
        start_hour: Start,
        hours: Hours,
        idempotency_key: Annotated[str, Field(min_length=16, max_length=64, description="재시도용 키")],
    ) -> Booking:
        return book(room, start_hour, hours)

    def good(room: Room, start_hour: Start, hours: Hours) -> Booking:
        return book(room, start_hour, hours)

    variants: dict[str, Any] = {f.__name__: f for f in (no_enum, no_bounds, details, hand_made_key)}
    book_room = variants.get(flaw or "", good)
    book_room.__doc__ = "회의실을 예약합니다. 예약 ID를 돌려줍니다." if flaw == "no_when_not" else DOC_KO
    keyed = flaw not in ("no_key", "hand_made_key")
    tool(name="book_room", catalogue=catalogue, idempotency_key=keyed)(book_room)

    @tool(catalogue=catalogue, idempotent=True)
    def cancel_booking(booking_id: Annotated[str, "book_room이 돌려준 예약 ID"]) -> Cancellation:
        """사용자가 잡아 둔 회의실 예약을 취소해 달라고 할 때 사용하세요. 새로 예약할 때는 쓰지 마세요.
        그런 예약이 없으면(이미 취소했으면) cancelled가 false입니다."""
        return {"booking_id": booking_id, "cancelled": bookings.pop(booking_id, None) is not None}


def test_a_good_redesign_is_accepted_through_the_server(
    server: Any, catalogue: Catalogue, shell: InteractiveShell
) -> None:
    """The question's examples come first, each with a fresh key; a key is sent again now and then, as
    a client retrying would; the bookings just made are cancelled with `cancel_booking`. The keys the
    checker made are random and never shown, and the notebook's `bookings` is given back as it was."""
    define_booking(catalogue, shell.user_ns)
    shell.user_ns["bookings"]["bk_mine"] = {
        "booking_id": "bk_mine",
        "room": "A101",
        "start_hour": 9,
        "hours": 1,
    }
    kept = dict(shell.user_ns["bookings"])
    before = len(server.calls)
    feedback = ch05.q5.check()
    assert feedback.correct, repr(feedback)
    assert "모범 답안을 실제 MCP 서버로 같은 입력" in repr(feedback)
    calls = server.calls[before:]
    booked = [c for c in calls if c.tool == "book_room"]
    keys = [c.arguments["idempotency_key"] for c in booked]
    fresh = [c for i, c in enumerate(booked) if keys[i] not in keys[:i]]
    assert [{k: v for k, v in c.arguments.items() if k != "idempotency_key"} for c in fresh[:7]] == list(
        ch05.q5.judge.examples
    )
    assert len(fresh) >= 7 + 30
    first: dict[str, Any] = {}
    resent = []  # a call again with its key and arguments: the booking it made, not another
    for c in booked:
        earlier = first.setdefault(c.arguments["idempotency_key"], c)
        if earlier is not c and earlier.arguments == c.arguments and not earlier.is_error:
            resent.append((earlier, c))
    assert resent
    assert all(c.result["structuredContent"] == earlier.result["structuredContent"] for earlier, c in resent)
    returned = {c.result["structuredContent"]["booking_id"] for c in booked if not c.is_error}
    cancelled = [c.arguments["booking_id"] for c in calls if c.tool == "cancel_booking"]
    assert cancelled and set(cancelled) <= returned
    assert not any(key in repr(feedback) for key in keys)
    assert shell.user_ns["bookings"] == kept


@pytest.mark.parametrize(
    ("flaw", "advice"),
    [
        ("no_key", "필수 매개변수 'idempotency_key'가 없습니다"),
        ("no_key", "MCP030"),
        ("no_key", "정의를 먼저 고치세요"),
        # A key written by hand does nothing: the same key again books again.
        ("hand_made_key", "같은 요청이 두 번 실행된 것입니다"),
        ("no_enum", "'room'에 enum(허용 값 목록)이 없습니다"),
        ("no_enum", 'book_room {"room": "C301"'),
        ("no_bounds", "'start_hour'의 범위가 최솟값 (없음), 최댓값 (없음)입니다"),
        ("no_bounds", "MCP023 [start_hour]"),
        # Without the bound, a start before 9 books where the model answer refuses it.
        ("no_bounds", '"start_hour": 8, "hours": 2, "idempotency_key": "<key'),
        ("details", "필요 없는 매개변수가 남아 있습니다: 'details'"),
        ("details", "MCP024 [details]"),
        ("no_when_not", "'cancel_booking'"),
        ("no_when_not", "MCP012"),
        # "실패" says nothing to fix: the scripted model cannot rebook within the opening hours.
        ("vague_error", "book_room의 오류 메시지로는 고치지 못했습니다"),
        ("same_id", 'booking_id "bk_1"은 이미 다른 답에 쓰인 ID입니다'),
    ],
)
def test_a_flawed_redesign_is_rejected_with_the_right_advice(
    server: Any, catalogue: Catalogue, shell: InteractiveShell, flaw: str, advice: str
) -> None:
    define_booking(catalogue, shell.user_ns, flaw)
    feedback = ch05.q5.check()
    assert feedback.kind == "incorrect"
    assert advice in repr(feedback), repr(feedback)


def test_the_draft_itself_and_a_bare_function_are_told_apart(
    server: Any, catalogue: Catalogue, shell: InteractiveShell
) -> None:
    @tool(catalogue=catalogue)
    def book_room_draft(room: str, start_hour: int, hours: int) -> dict:  # type: ignore[type-arg]
        """회의실 예약."""
        return {}

    assert ch05.q5.check().kind == "not_attempted"
    shell.run_cell("def book_room(room, start_hour, hours):\n    return {}")  # type: ignore[no-untyped-call]
    assert "도구로 등록되지 않았습니다" in repr(ch05.q5.check())


def test_the_model_answer_passes_in_the_default_catalogue(shell: InteractiveShell) -> None:
    """The solution as shown to the learner, after the chapter's set-up (`bookings`, `cancel_booking`),
    run against the notebook's own catalogue and a server the check starts and stops; the bookings
    the check made are not left in the notebook."""
    assert not list(mcp_notebook.default_catalogue.tools()), "the default catalogue is shared"
    assert shell.run_cell(PRELUDE + ch05.q5.given).success
    try:
        assert shell.run_cell(ch05.q5.solution_code()).success
        findings = lint(mcp_notebook.default_catalogue.get("book_room"))  # type: ignore[arg-type]
        assert [f.rule for f in findings if f.severity != "info"] == []
        feedback = ch05.q5.check()
        assert feedback.correct, repr(feedback)
        assert shell.user_ns["bookings"] == {}
    finally:
        mcp_notebook.default_catalogue.clear()  # book_room and the set-up's cancel_booking
    assert mcp_notebook.current_server() is None


# -- §6: a handle belongs to the identity a token proves ---------------------------------------------------
def define_carts(catalogue: Catalogue) -> None:
    """The cart tools exactly as chapter 05 §6 defines them, in `catalogue`."""
    source = next(
        cell["code"]["ko"]
        for notebook in _content.cells_data("05")["notebook"]
        for cell in notebook["cell"]
        if isinstance(cell.get("code"), dict) and "carts = HandleStore" in cell["code"]["ko"]
    )
    namespace: dict[str, Any] = {
        "Annotated": Annotated,
        "Literal": Literal,
        "TypedDict": TypedDict,
        "HandleStore": HandleStore,
        "current_client": current_client,
        "tool": lambda **options: tool(catalogue=catalogue, **options),
    }
    exec(source, namespace)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_chapters_cart_is_refused_to_another_client_whatever_name_it_claims(
    catalogue: Catalogue, mode: Any
) -> None:
    """What §6 shows live and q4 asks: the cart a client opened is its own. Another client's token gets
    the answer for an unknown handle, whether it introduces itself honestly or as the owner."""
    define_carts(catalogue)
    srv = serve_unattended(catalogue)
    try:
        owner, other = srv.add_client("shop-app"), srv.add_client("other-app")
        async with client_as(srv, owner, mode, claims="shop-app") as client:
            handle = (await client.call_tool("open_cart", {})).structured_content["cart"]
            await client.call_tool("add_to_cart", {"cart": handle, "item": "apple"})
        for claims in ["other-app", "shop-app"]:
            async with client_as(srv, other, mode, claims=claims) as client:
                stolen = await client.call_tool("view_cart", {"cart": handle})
            assert stolen.is_error, claims
            assert "open_cart" in stolen.content[0].text and "apple" not in stolen.content[0].text
            assert srv.calls[-1].client == "other-app"
        async with client_as(srv, owner, mode, claims="shop-app") as client:
            mine = await client.call_tool("view_cart", {"cart": handle})
        assert not mine.is_error and mine.structured_content == {"items": ["apple"]}
    finally:
        srv.stop()


# -- texts ----------------------------------------------------------------------------------------
def test_english_is_there_too() -> None:
    set_language("en")
    assert "not attempted yet" in repr(ch05.q5)
    assert "Which rule does it break?" in repr(ch05.q2)
    assert "Not for cancelling a booking" in repr(ch05.q5.solution())
