"""Chapter 08 (두 프로토콜 시대): every checker accepts a right answer and rejects typical wrong ones
with the advice meant for them. The hand-written 2026-07-28 request is POSTed to the real in-kernel
server, and the asking tool is called by the official SDK client in both eras."""

from __future__ import annotations

import copy
from typing import Annotated, Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, Context, resource, set_language, tool
from mcp_notebook.lessons import ch08


def test_a_partial_classification_says_what_is_missing() -> None:
    shown = repr(ch08.q2.check({"session_header": "handshake", "discover": ...}))
    assert "10개 중 1개를 맞혔습니다" in shown and "'discover'" in shown
    assert "알아볼 수 없습니다" in repr(ch08.q2.check({**dict(ch08.q2.expected), "meta": "2027"}))


# -- q1: a hand-written 2026-07-28 request, POSTed to the real server ------------------------------
def menu(catalogue: Catalogue) -> None:
    @resource("menu://today", catalogue=catalogue)
    def today_menu() -> str:
        """오늘의 메뉴."""
        return "김치찌개, 비빔밥"


def model_request() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(ch08.q1.solution_code(), namespace)
    return dict(namespace["q1_answer"])


def edited(change: Any) -> dict[str, Any]:
    answer = copy.deepcopy(model_request())
    change(answer["headers"], answer["body"])
    return answer


def test_a_right_request_is_accepted_by_the_real_server(server: Any, catalogue: Catalogue) -> None:
    menu(catalogue)
    feedback = ch08.q1.check(model_request())
    assert feedback.correct, repr(feedback)
    assert 'HTTP 200, resultType "complete", ttlMs 0, cacheScope "private"' in repr(feedback)
    read = [record for record in server.activity if record.method == "resources/read"]
    assert [(r.protocol_version, r.tool, r.outcome) for r in read] == [("2026-07-28", "menu://today", "ok")]


def test_header_names_are_case_insensitive_and_client_info_is_optional(
    server: Any, catalogue: Catalogue
) -> None:
    menu(catalogue)

    def change(headers: dict[str, Any], body: dict[str, Any]) -> None:
        for name in list(headers):
            headers[name.lower()] = headers.pop(name)
        del body["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]
        headers["Authorization"] = "Bearer not-the-token"  # the checker sends the real one

    assert ch08.q1.check(edited(change)).correct


def _drop(key: str) -> Any:
    return lambda headers, body: headers.pop(key)


def _meta(value: Any) -> Any:
    def change(headers: dict[str, Any], body: dict[str, Any]) -> None:
        if value is None:
            del body["params"]["_meta"]
        else:
            body["params"]["_meta"] = value

    return change


def _set(where: str, key: str, value: Any) -> Any:
    def change(headers: dict[str, Any], body: dict[str, Any]) -> None:
        target = {"headers": headers, "body": body, "params": body["params"]}[where]
        target[key] = value

    return change


def _both(*changes: Any) -> Any:
    def change(headers: dict[str, Any], body: dict[str, Any]) -> None:
        for each in changes:
            each(headers, body)

    return change


@pytest.mark.parametrize(
    ("change", "advice"),
    [
        (_drop("Mcp-Name"), "-32020: mcp-name header does not match"),
        (_drop("Mcp-Name"), "`Mcp-Name` 헤더가 없거나 본문과 다릅니다"),
        (_set("headers", "Mcp-Name", "today_menu"), "`Mcp-Name` 헤더가 없거나 본문과 다릅니다"),
        (_set("headers", "Mcp-Method", "tools/call"), "`Mcp-Method` 헤더가 없거나"),
        (_meta(None), "`params._meta`가 없거나 필요한 키가 빠졌습니다"),
        (
            _meta({"protocolVersion": "2026-07-28", "clientCapabilities": {}}),
            "`params._meta`가 없거나 필요한 키가 빠졌습니다",
        ),
        (
            _meta(
                {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": "none",
                }
            ),
            "클라이언트 기능은 객체(dict)여야",
        ),
        (
            _meta(
                {
                    "io.modelcontextprotocol/protocolVersion": "2025-11-25",
                    "io.modelcontextprotocol/clientCapabilities": {},
                }
            ),
            "`MCP-Protocol-Version` 헤더와 `_meta` 안의 프로토콜 버전이 다릅니다",
        ),
        (_drop("MCP-Protocol-Version"), "핸드셰이크 시대의 요청으로 읽고 세션을 찾았습니다"),
        (_set("headers", "MCP-Protocol-Version", "2025-11-25"), "핸드셰이크 시대의 요청으로 읽고"),
        (_set("headers", "MCP-Protocol-Version", "2026-01-01"), "-32022"),
        (_set("headers", "MCP-Protocol-Version", "2026-01-01"), "서버가 이 버전을 지원하지 않습니다"),
        (_set("headers", "Mcp-Session-Id", "abc123"), "2026-07-28에는 세션이 없으니"),
        (
            _both(_set("headers", "Mcp-Method", "resources/get"), _set("body", "method", "resources/get")),
            "이 시대의 서버에 그런 메서드가 없습니다",
        ),
        (
            _both(_set("headers", "Mcp-Name", "menu://tomorrow"), _set("params", "uri", "menu://tomorrow")),
            "서버가 그런 리소스를 모릅니다",
        ),
        (
            _both(
                _set("headers", "Mcp-Method", "resources/list"),
                _set("body", "method", "resources/list"),
                _drop("Mcp-Name"),
            ),
            "서버는 성공으로 답했지만 menu://today의 내용이 아닙니다",
        ),
        (lambda headers, body: body.pop("id"), "알림(notification)으로 읽힙니다"),
        (
            _set("headers", "MCP-Protocol-Version", 2026),
            "헤더 'MCP-Protocol-Version'의 값이 문자열이 아닙니다",
        ),
        (_set("params", "uri", ...), "아직 채우지 않은 `...`"),
    ],
)
def test_a_wrong_request_gets_the_servers_answer_and_advice(
    server: Any, catalogue: Catalogue, change: Any, advice: str
) -> None:
    menu(catalogue)
    feedback = ch08.q1.check(edited(change))
    assert feedback.kind == "incorrect"
    assert advice in repr(feedback), repr(feedback)


def test_malformed_answers_say_how_to_answer() -> None:
    assert ch08.q1.check({"headers": ..., "body": ...}).kind == "not_attempted"
    assert "dict여야 합니다" in repr(ch08.q1.check("POST /mcp"))
    assert '"headers"가 dict가 아닙니다' in repr(ch08.q1.check({"headers": ..., "body": {"id": 1}}))
    assert "JSON으로 바꿀 수 없습니다" in repr(ch08.q1.check({"headers": {}, "body": {"id": {1, 2}}}))


def test_check_reads_the_request_from_the_notebook(
    server: Any, catalogue: Catalogue, shell: InteractiveShell
) -> None:
    menu(catalogue)
    assert ch08.q1.check().kind == "not_attempted"
    shell.run_cell(ch08.q1.solution_code())  # type: ignore[no-untyped-call]
    assert ch08.q1.check().correct


def test_the_checker_starts_and_stops_a_server_when_none_runs() -> None:
    assert mcp_notebook.current_server() is None
    menu(mcp_notebook.default_catalogue)
    try:
        assert ch08.q1.check(model_request()).correct
    finally:
        mcp_notebook.default_catalogue.remove_resource("menu://today")
    assert mcp_notebook.current_server() is None


# -- q5: a tool that asks, called in both eras by the official SDK client ---------------------------
DOC = "사용자가 식당 자리를 예약해 달라고 할 때 사용하세요. 인원은 사용자에게 직접 묻습니다."
Restaurant = Annotated[str, "예약할 식당 이름"]
EXPECTED = {"restaurant": "한강식당", "people": 4}


def define_reserve(catalogue: Catalogue, book: list[Any], flaw: str | None = None) -> None:
    """`reserve_table`: right, or with one typical flaw."""

    def good(restaurant: Restaurant, ctx: Context) -> str:
        answer = ctx.elicit(f"{restaurant}에 몇 명이 가나요?", {"people": int})
        if not answer.accepted:
            return "예약하지 않았습니다."
        book.append({"restaurant": restaurant, "people": answer.get("people")})
        return "예약했습니다."

    def hasty(restaurant: Restaurant, ctx: Context) -> str:
        entry: dict[str, Any] = {"restaurant": restaurant, "people": None}
        book.append(entry)  # before the question: once per round
        answer = ctx.elicit("몇 명?", {"people": int})
        if not answer.accepted:
            book.remove(entry)
            return "예약하지 않았습니다."
        entry["people"] = answer.get("people")
        return "예약했습니다."

    def unchecked(restaurant: Restaurant, ctx: Context) -> str:
        answer = ctx.elicit("몇 명?", {"people": int})
        book.append({"restaurant": restaurant, "people": answer.get("people")})
        return "예약했습니다."

    def no_context(restaurant: Restaurant, people: Annotated[int, "인원"]) -> str:
        book.append({"restaurant": restaurant, "people": people})
        return "예약했습니다."

    def other_field(restaurant: Restaurant, ctx: Context) -> str:
        answer = ctx.elicit("몇 명?", {"인원": int})
        if answer.accepted:
            book.append({"restaurant": restaurant, "people": answer.get("인원")})
        return "예약했습니다."

    def asks_twice(restaurant: Restaurant, ctx: Context) -> str:
        first = ctx.elicit("몇 명?", {"people": int}, key="first")
        again = ctx.elicit("정말 몇 명?", {"people": int}, key="again")
        if first.accepted and again.accepted:
            book.append({"restaurant": restaurant, "people": again.get("people")})
        return "예약했습니다."

    def as_text(restaurant: Restaurant, ctx: Context) -> str:
        answer = ctx.elicit("몇 명?", {"people": int})
        if answer.accepted:
            book.append({"restaurant": restaurant, "people": str(answer.get("people"))})
        return "예약했습니다."

    def forgets(restaurant: Restaurant, ctx: Context) -> str:
        answer = ctx.elicit("몇 명?", {"people": int})
        return f"{answer.get('people')}명 예약했습니다."

    async def blocks(restaurant: Restaurant, ctx: Context) -> str:
        ctx.elicit("몇 명?", {"people": int})  # the blocking method in an async tool
        return "예약했습니다."

    variants: dict[str, Any] = {
        f.__name__: f
        for f in (hasty, unchecked, no_context, other_field, asks_twice, as_text, forgets, blocks)
    }
    reserve = variants.get(flaw or "", good)
    reserve.__doc__ = DOC
    tool(name="reserve_table", catalogue=catalogue)(reserve)


@pytest.fixture
def book(shell: InteractiveShell) -> list[Any]:
    """The notebook's `reservations` list, which the checker reads."""
    reservations: list[Any] = []
    shell.user_ns["reservations"] = reservations
    return reservations


def test_a_tool_that_asks_first_is_accepted_in_both_eras(
    server: Any, catalogue: Catalogue, book: list[Any]
) -> None:
    """Called beside the model answer in each era, the user accepting, declining and cancelling: over
    2025-11-25 the server asks during the call, over 2026-07-28 each call ends `input_required` and
    comes again with the answer. The reservations the check made are not left in the notebook."""
    define_reserve(catalogue, book)
    book.append(EXPECTED)  # the notebook's own, from before the check
    before = len(server.calls)
    feedback = ch08.q5.check()
    assert feedback.correct, repr(feedback)
    assert "2025-11-25에서는 서버가 호출 중에 elicitation/create를 보냈고" in repr(feedback)
    assert book == [EXPECTED]
    calls = server.calls[before:]
    assert {c.client for c in calls} == {"notebook"}
    legacy = [c.outcome for c in calls if c.protocol_version == "2025-11-25"]
    stateless = [c.outcome for c in calls if c.protocol_version == "2026-07-28"]
    eras = [c.protocol_version for c in calls]
    assert eras == sorted(eras)  # the whole 2025-11-25 era first, then 2026-07-28
    # One round per call over 2025-11-25 (the server asked during it); two over 2026-07-28, declined too.
    assert len(legacy) >= 3 and legacy == ["ok"] * len(legacy)
    assert stateless == ["input required: elicit-1", "ok"] * len(legacy)
    assert server.pending == []  # the checker is the notebook: nobody was asked to approve


@pytest.mark.parametrize(
    ("flaw", "advice"),
    [
        # Booking before the question: over 2026-07-28 the tool runs again with the answer.
        ("hasty", "[2026-07-28에서]"),
        ("hasty", "호출 한 번에 reservations에 예약이 2개 생겼습니다"),
        ("hasty", "처음부터 다시 실행됩니다"),
        ("unchecked", "[2025-11-25에서]"),
        ("unchecked", "사용자가 거절했는데 reservations에 예약이 생겼습니다"),
        ("no_context", "도구가 Context를 받지 않습니다"),
        ("other_field", "질문의 양식에 정수 필드 'people'이 없습니다"),
        ("asks_twice", "사용자가 2번 질문을 받았습니다"),
        # The number of people kept as text: the reservation made is not the model answer's.
        ("as_text", "reservations에 생긴 예약이"),
        ("as_text", '"people": "'),
        ("forgets", "명이라고 답했는데 reservations에 예약이 생기지 않았습니다"),
        # The blocking ctx.elicit in an async tool fails before asking anybody: the server's error says so.
        ("blocks", "[2025-11-25에서]"),
        ("blocks", "await ctx.aelicit(...)"),
    ],
)
def test_a_flawed_asking_tool_is_rejected_with_the_right_advice(
    server: Any, catalogue: Catalogue, book: list[Any], flaw: str, advice: str
) -> None:
    define_reserve(catalogue, book, flaw)
    feedback = ch08.q5.check()
    assert feedback.kind == "incorrect"
    assert advice in repr(feedback), repr(feedback)


def test_a_wrong_form_is_reported_once(server: Any, catalogue: Catalogue, book: list[Any]) -> None:
    define_reserve(catalogue, book, "other_field")
    shown = repr(ch08.q5.check())
    assert shown.count("정수 필드 'people'이 없습니다") == 1 and "[2026-07-28에서]" not in shown


def test_the_checker_needs_the_notebooks_ledger(
    server: Any, catalogue: Catalogue, shell: InteractiveShell
) -> None:
    define_reserve(catalogue, [])
    shell.user_ns.pop("reservations", None)
    assert "노트북에 reservations 리스트가 없습니다" in repr(ch08.q5.check())


def test_the_model_answer_passes_in_the_default_catalogue(shell: InteractiveShell) -> None:
    """The solution as shown to the learner, against the notebook's own catalogue and a server it starts."""
    assert mcp_notebook.current_server() is None
    shell.user_ns["reservations"] = []
    shell.run_cell(ch08.q5.solution_code())  # type: ignore[no-untyped-call]
    try:
        assert mcp_notebook.default_catalogue.get("reserve_table") is not None
        feedback = ch08.q5.check()
        assert feedback.correct, repr(feedback)
        assert shell.user_ns["reservations"] == []  # the check's reservations are not left behind
    finally:
        mcp_notebook.remove_tool("reserve_table")
    assert mcp_notebook.current_server() is None


# -- texts ----------------------------------------------------------------------------------------
def test_english_is_there_too() -> None:
    set_language("en")
    assert "not attempted yet" in repr(ch08.q1)
    assert "Which era is it?" in repr(ch08.q2)
    assert "changes come after the question" in repr(ch08.q5.solution())
    assert '"Header-Name": "value"' in repr(ch08.q1)
