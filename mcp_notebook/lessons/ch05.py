"""Exercises of chapter 05 (도구 인터페이스 설계): the better of two interfaces, which lint rule a tool
breaks, partial success, handles in a stateless protocol, and a badly designed tool the learner
redesigns, checked with the linter and through the real server.

>>> from mcp_notebook.lessons.ch05 import q1, q2, q3, q4, q5
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from ..core._text import clip, t
from ._answers import Category, Classification, MultipleChoice, Vocabulary
from ._toolcheck import CALL_TIMEOUT, Param, ToolExercise, served_catalogue

__all__ = ["q1", "q2", "q3", "q4", "q5"]

q1 = MultipleChoice(
    "05",
    "q1",
    title=("두 인터페이스 중 나은 쪽", "The better of two interfaces"),
    question=(
        "카드를 모아 보드를 만드는 서비스를 MCP 서버로 내놓으려 합니다. 두 설계안이 있습니다.\n"
        "- 설계 가: `manage_board(action: str, payload: dict)` 하나로 보드 만들기, 카드 추가, 공개, 삭제를 "
        "모두 처리합니다. 무엇을 할지는 `action`에 적고, 필요한 값은 `payload`에 알아서 담습니다.\n"
        "- 설계 나: `create_board(title, cards)`, `add_cards(board_id, cards)`, `publish_board(board_id)`, "
        '`unpublish_board(board_id)` 네 도구로 나눕니다. 카드는 필드가 정해진 닫힌 객체이고 종류는 `"link"`, '
        '`"image"`, `"text"` 중 하나입니다.\n'
        "어느 쪽이 왜 더 나은지 고르세요.",
        "You are offering a service that builds boards of cards as an MCP server. There are two designs.\n"
        "- Design 1: `manage_board(action: str, payload: dict)` does everything (create a board, add cards, "
        "publish, delete). `action` says what to do and `payload` holds whatever values it needs.\n"
        "- Design 2: four tools, `create_board(title, cards)`, `add_cards(board_id, cards)`, "
        "`publish_board(board_id)` and `unpublish_board(board_id)`. A card is a closed object with fixed "
        'fields and its kind is one of `"link"`, `"image"`, `"text"`.\n'
        "Which is better, and why?",
    ),
    options={
        "A": (
            "설계 가. 도구가 하나뿐이라 모델이 어느 도구를 고를지 헷갈릴 일이 없습니다.",
            "Design 1: with a single tool the model can never pick the wrong one.",
        ),
        "B": (
            "설계 나. 사용자가 한 문장으로 부탁할 만한 일마다 도구가 하나씩 있고, 스키마가 작고 닫혀 있어서 모델이 "
            "틀리게 채울 곳이 적고 실패를 구체적으로 알려 주기도 쉽습니다. 공개는 되돌리는 도구와 짝을 이룹니다.",
            "Design 2: one tool per thing a user would ask for in one sentence, with small closed schemas, so "
            "the model has little to fill in wrong and failures are easy to explain. Publishing comes with its "
            "undo.",
        ),
        "C": (
            "설계 가. 새 기능이 생겨도 `action` 값만 늘리면 되니 스키마를 고칠 필요가 없습니다.",
            "Design 1: a new feature is just another `action` value, so the schema never changes.",
        ),
        "D": (
            "어느 쪽이든 같습니다. 서버가 인자를 검증하니 모델이 틀려도 결국 바로잡힙니다.",
            "Either: the server validates the arguments, so the model's mistakes get caught anyway.",
        ),
    },
    answer="B",
    wrong={
        "A": (
            "고를 도구가 하나뿐이면 고민은 사라지는 게 아니라 `action`과 `payload` 안으로 숨습니다. 모델은 스키마만 보고 "
            "`payload`에 무엇을 담아야 하는지 알 수 있을까요?",
            "With one tool the choice does not go away; it hides inside `action` and `payload`. Can a model tell "
            "from the schema what `payload` must hold?",
        ),
        "C": (
            "스키마를 고칠 일이 없는 이유는 스키마가 아무것도 약속하지 않기 때문입니다. 유지보수는 편해 보여도, 스키마를 "
            "읽고 인자를 채우는 쪽은 누구인지 떠올려 보세요.",
            "The schema never changes because it promises nothing. That looks easy to maintain, but think of "
            "who reads the schema to fill in the arguments.",
        ),
        "D": (
            "검증은 틀린 호출을 막을 뿐, 처음부터 맞게 부르도록 돕지는 못합니다. 열린 `payload`는 검증할 규칙도 "
            "없어서 오류 메시지가 무엇을 고치라고 말해 줄 수 있을까요?",
            "Validation stops a wrong call; it does not help the model call right in the first place. And an "
            "open `payload` has no rules to check, so what could an error message tell the model to fix?",
        ),
    },
    hints=[
        (
            "모델은 문서를 찾아 읽지 않습니다. 도구 이름, 설명, 입력 스키마가 모델이 가진 전부입니다.",
            "A model does not go and read documentation: the tool's name, description and input schema are "
            "all it has.",
        ),
        (
            "이 장에서 `manage_board`에 린터를 돌린 결과를 떠올려 보세요. `payload: dict`에는 어떤 규칙이 걸렸고, "
            "`action: str`에는 허용 값 목록이 있었나요?",
            "Remember what the linter said about `manage_board` in this chapter. Which rule did `payload: dict` "
            "trip, and did `action: str` have a list of allowed values?",
        ),
    ],
    explanation=(
        "도구를 나누는 기준은 API 엔드포인트가 아니라 사용자가 한 문장으로 부탁할 만한 일입니다. 만들기·추가·공개는 "
        "실패를 다루는 방식도, 되돌리는 방법도 달라서 따로 두는 편이 낫습니다. 설계 가의 `action: str`은 허용 값 "
        "목록이 없는 글자이고 `payload: dict`는 열린 객체(MCP024)라서 모델이 짐작으로 채워야 하며, 실패해도 어디가 "
        "틀렸는지 알려 주기 어렵습니다.",
        "Split tools by what a user would ask for in one sentence, not by API endpoint. Creating, adding and "
        "publishing fail and are undone differently, so they are better apart. In design 1, `action: str` is "
        "text with no allowed values and `payload: dict` an open object (MCP024): the model has to guess, and "
        "a failure cannot say what was wrong.",
    ),
)

LINT_RULES = Vocabulary(
    "lint_rules",
    [
        Category(
            "MCP012",
            ("언제 쓰는지 없는 설명", "description without when"),
            (
                "MCP012는 설명이 도구가 하는 일만 말하고 언제 불러야 하는지는 말하지 않을 때 걸립니다.",
                "MCP012 fires when a description says what the tool does but not when to call it.",
            ),
            ("description-no-when",),
        ),
        Category(
            "MCP013",
            ("비슷한 도구와의 경계 없음", "no boundary with similar tools"),
            (
                "MCP013은 비슷한 도구가 있는데 설명에 언제 이 도구를 쓰면 안 되는지가 없을 때 걸립니다.",
                "MCP013 fires when similar tools exist and the description does not say when not to use this one.",
            ),
            ("description-no-when-not",),
        ),
        Category(
            "MCP022",
            ("자유 문자열", "free-form string"),
            (
                "MCP022는 정해진 값 중 하나여야 할 것 같은 문자열이 아무 글자나 받을 때 걸립니다.",
                "MCP022 fires when a string that looks like one of a fixed set of values accepts any text.",
            ),
            ("free-form-string",),
        ),
        Category(
            "MCP023",
            ("범위 없는 숫자", "unbounded number"),
            (
                "MCP023은 숫자 하나에 최솟값이나 최댓값이 없을 때 걸립니다.",
                "MCP023 fires when a single number has no minimum or maximum.",
            ),
            ("unbounded-number",),
        ),
        Category(
            "MCP024",
            ("열린 객체", "open object"),
            (
                "MCP024는 객체가 어떤 키든 받아들일 때 걸립니다.",
                "MCP024 fires when an object accepts any keys.",
            ),
            ("open-object",),
        ),
        Category(
            "MCP025",
            ("픽셀 좌표", "pixel coordinates"),
            (
                "MCP025는 위치와 크기를 픽셀 숫자로 받을 때 걸립니다.",
                "MCP025 fires when positions and sizes are taken as raw pixel numbers.",
            ),
            ("pixel-coordinates",),
        ),
        Category(
            "MCP030",
            ("재시도에 약한 변경 도구", "mutating tool without idempotency"),
            (
                "MCP030은 무언가를 바꾸는 도구가 같은 호출이 두 번 와도 안전하다는 장치를 갖추지 않았을 때 걸립니다.",
                "MCP030 fires when a tool that changes things has nothing that makes a repeated call safe.",
            ),
            ("mutating-not-idempotent",),
        ),
        Category(
            "MCP050",
            ("비밀 값 매개변수", "secret parameter"),
            (
                "MCP050은 비밀번호나 키 같은 비밀 값을 인자로 받을 때 걸립니다.",
                "MCP050 fires when a secret such as a password or a key is taken as an argument.",
            ),
            ("secret-parameter",),
        ),
    ],
)

q2 = Classification(
    "05",
    "q2",
    title=("어느 규칙에 걸릴까", "Which rule does it break?"),
    question=(
        "아래 도구들은 각각 설계에 흠이 하나씩 있습니다(다른 부분은 잘 되어 있다고 칩니다). "
        "`mcp_notebook.lint()`가 그 흠을 어느 규칙으로 알려 줄지 규칙 번호로 답하세요. 쓰지 않는 번호도 있습니다.",
        "Each tool below has one design flaw (assume the rest is fine). Answer with the id of the rule "
        "`mcp_notebook.lint()` reports it under. Some ids are not used.",
    ),
    vocabulary=LINT_RULES,
    items={
        "order_status": (
            (
                "`set_order_status(order_id, status: str)`: 실제로 `status`에 올 수 있는 값은 "
                "`paid`, `shipped`, `cancelled` 셋뿐입니다.",
                "`set_order_status(order_id, status: str)`: `status` can really only be `paid`, `shipped` or "
                "`cancelled`.",
            ),
            "MCP022",
        ),
        "sticker": (
            (
                "`place_sticker(x: int, y: int, width: int, height: int)`: 화면 위 스티커의 위치와 크기를 픽셀로 받습니다.",
                "`place_sticker(x: int, y: int, width: int, height: int)`: a sticker's position and size on "
                "screen, in pixels.",
            ),
            "MCP025",
        ),
        "export_options": (
            (
                "`export_report(options: dict)`: 내보내기 설정을 키가 정해지지 않은 dict 하나로 받습니다.",
                "`export_report(options: dict)`: export settings come as one dict with no fixed keys.",
            ),
            "MCP024",
        ),
        "sms_key": (
            (
                "`send_sms(api_key: str, to: str, text: str)`: 문자 발송 서비스의 키를 모델이 인자로 넘깁니다.",
                "`send_sms(api_key: str, to: str, text: str)`: the model passes the SMS service's key as an "
                "argument.",
            ),
            "MCP050",
        ),
        "transfer": (
            (
                "`transfer_money(from_account, to_account, amount)`: 돈을 보내는 도구인데 읽기 전용도, 멱등하다는 "
                "표시도 없고 멱등 키도 받지 않습니다.",
                "`transfer_money(from_account, to_account, amount)`: it sends money, is not read-only, not "
                "marked idempotent and takes no idempotency key.",
            ),
            "MCP030",
        ),
        "two_searches": (
            (
                "`search_orders`와 `find_orders`가 한 서버에 있고, 두 설명 모두 '사용자가 주문을 찾아 달라고 할 때 "
                "사용하세요'라고만 적혀 있습니다.",
                "`search_orders` and `find_orders` live on one server and both descriptions just say 'Use "
                "when the user asks to find orders'.",
            ),
            "MCP013",
        ),
    },
    feedback={
        ("sticker", "MCP023"): (
            "'sticker': 네 숫자에 범위가 없는 것도 사실입니다. 그런데 범위를 붙여도 남는 문제가 있습니다. 모델이 "
            "'화면 폭의 절반'을 픽셀로 계산하는 일 자체가 어렵다는 점을 짚는 규칙은 따로 있습니다.",
            "'sticker': the four numbers are unbounded, true. But bounds would not fix the real trouble: "
            "a model working out 'half the screen width' in pixels. Another rule is about exactly that.",
        ),
        ("two_searches", "MCP012"): (
            "'two_searches': 두 설명은 언제 쓰는지를 이미 말하고 있습니다. 빠진 것은 둘 중 하나를 고르는 기준, 곧 "
            "언제 이 도구를 쓰지 말아야 하는지입니다.",
            "'two_searches': both descriptions already say when to use them. What is missing is how to choose "
            "between the two: when not to use this one.",
        ),
        ("transfer", "MCP050"): (
            "'transfer': 계좌 번호는 비밀 값이 아니라 작업의 대상입니다. 이 도구가 걱정스러운 이유는 응답이 사라져 "
            "모델이 다시 불렀을 때 무슨 일이 생기느냐에 있습니다.",
            "'transfer': account numbers are not secrets, they are what the tool works on. The worry is what "
            "happens when an answer is lost and the model calls again.",
        ),
    },
    hints=[
        (
            "이 장에서 `lint()`가 보여 준 규칙 메시지를 다시 훑어보세요. 각 메시지는 무엇을 걱정하는지 한 문장으로 "
            "말합니다.",
            "Skim the rule messages `lint()` showed in this chapter again; each says in one sentence what it "
            "worries about.",
        ),
        (
            "흠마다 '모델이 어떤 실수를 하게 될까?'를 물어보세요. 표기를 섞어 쓰는 실수, 화면 밖에 두는 실수, 모르는 "
            "키를 지어내는 실수, 같은 일을 두 번 하는 실수, 비슷한 도구 사이에서 헤매는 실수는 모두 다른 규칙입니다.",
            "For each flaw ask: what mistake will the model make? Mixing spellings, placing things off-screen, "
            "inventing keys, doing something twice and wavering between look-alike tools are all different "
            "rules.",
        ),
        (
            "정말 모르겠으면 그 도구를 노트북에 직접 정의해 보세요. `@tool`을 붙이는 순간 린터가 결과를 보여 줍니다.",
            "If you are stuck, define the tool in the notebook: the linter reports the moment `@tool` runs.",
        ),
    ],
    explanation=(
        "정해진 값만 오는 `status`는 자유 문자열(MCP022), 픽셀 위치와 크기는 MCP025, 키가 정해지지 않은 "
        "`options: dict`는 열린 객체(MCP024), 인자로 받는 `api_key`는 비밀 값 매개변수(MCP050), 멱등 장치가 없는 "
        "송금은 MCP030, 설명으로 서로를 구분할 수 없는 두 검색 도구는 MCP013입니다. 이 여섯 도구를 실제로 정의하면 "
        "린터가 같은 번호를 보고합니다.",
        "A `status` with fixed values is a free-form string (MCP022), pixel positions and sizes are MCP025, "
        "`options: dict` with no fixed keys is an open object (MCP024), an `api_key` argument is a secret "
        "parameter (MCP050), a transfer with no idempotency is MCP030, and two search tools whose descriptions "
        "cannot tell them apart are MCP013. Define these six tools and the linter reports the same ids.",
    ),
)

q3 = MultipleChoice(
    "05",
    "q3",
    title=("세 장 중 한 장이 실패했을 때", "When one card of three fails"),
    question=(
        "`add_cards`가 카드 세 장을 받았습니다. 0번과 1번은 잘 들어갔지만 2번은 `col=10, col_span=4`라서 12칸 "
        "그리드를 넘쳤습니다. 카드들은 서로 독립적이라 부분 성공을 허용하기로 했습니다. 도구는 무엇을 돌려줘야 할까요?",
        "`add_cards` got three cards. Cards 0 and 1 went in, but card 2 has `col=10, col_span=4` and overflows "
        "the 12-column grid. The cards are independent, so partial success is allowed. What should the tool "
        "return?",
    ),
    options={
        "A": (
            '`isError: true`와 `"Validation failed"` 한 줄.',
            '`isError: true` and the single line `"Validation failed"`.',
        ),
        "B": (
            "성공한 두 장도 지우고, `isError: true`와 함께 파이썬 트레이스백 전체를 돌려준다.",
            "Remove the two good cards as well and return `isError: true` with the full Python traceback.",
        ),
        "C": (
            "`isError: false`로 두고, 0번과 1번은 만들어진 ID와 함께 성공으로, 2번은 이유 코드와 고치는 방법"
            "(`col + col_span <= 12`)과 함께 실패로 나눠 적은 뒤, 실패한 카드만 다시 보내라고 덧붙인다.",
            "`isError: false`, listing cards 0 and 1 as created with their ids and card 2 as failed with a "
            "reason code and how to fix it (`col + col_span <= 12`), and saying to resend only the failed card.",
        ),
        "D": (
            '`isError: false`와 `"카드를 추가했습니다"` 한 줄. 실패는 조용히 건너뛴다.',
            '`isError: false` and the single line `"Cards added"`; the failure is skipped quietly.',
        ),
    },
    answer="C",
    wrong={
        "A": (
            "모델이 이 답을 받으면 무엇을 고쳐야 할까요? 어느 카드가 왜 틀렸는지 모르니 세 장을 모두 다시 보내게 되고, "
            "이미 들어간 두 장은 중복됩니다.",
            "What would the model fix after this answer? Not knowing which card failed or why, it resends all "
            "three, and the two that went in are duplicated.",
        ),
        "B": (
            "카드가 서로 독립적인데 성공한 것까지 버릴 이유가 있을까요? 그리고 트레이스백은 토큰만 먹을 뿐 모델이 "
            "인자를 고치는 데 도움이 되지 않습니다.",
            "The cards are independent: why throw away the good ones? And a traceback only costs tokens; it "
            "does not help the model fix its arguments.",
        ),
        "D": (
            "실패를 숨기면 모델은 세 장이 다 들어갔다고 사용자에게 말합니다. 모델이 스스로 바로잡을 기회도 사라집니다.",
            "Hide the failure and the model tells the user all three went in; it also loses the chance to fix "
            "things itself.",
        ),
    },
    hints=[
        (
            "오류 메시지를 읽는 쪽은 사람이 아니라 모델입니다. 다음 호출에서 무엇을 바꿔야 하는지 알 수 있어야 합니다.",
            "The one reading the message is the model, not a person; it must learn what to change in its next "
            "call.",
        ),
        (
            "좋은 실패 보고에는 무엇이(인덱스로), 왜(어긴 조건), 어떻게 고치는지가 들어 있습니다. 그리고 무엇이 이미 "
            "성공했는지도 밝혀야 모델이 그것을 다시 보내지 않습니다.",
            "A good failure report says what (by index), why (the broken constraint) and how to fix it. It also "
            "says what already succeeded, so the model does not send that again.",
        ),
        (
            "이 장의 `BatchResult`는 일부만 실패했을 때와 모두 실패했을 때 `isError`를 다르게 정합니다.",
            "This chapter's `BatchResult` sets `isError` differently when some items fail and when all of them do.",
        ),
    ],
    explanation=(
        "일부만 실패했다면 일은 절반쯤 이루어진 것이라 `isError: false`가 맞고, 성공과 실패를 인덱스로 나눠 알려야 "
        "모델이 실패한 카드만 고쳐 다시 보냅니다. 실패마다 이유 코드, 어긴 조건, 고치는 방법을 담습니다. "
        "`BatchResult`가 이 모양을 만들어 주고, 모든 항목이 실패했을 때만 `isError: true`가 됩니다.",
        "When only some items fail, the work partly happened, so `isError: false`, with successes and failures "
        "listed by index so that the model resends only the failed card, fixed. Each failure carries a reason "
        "code, the broken constraint and the fix. `BatchResult` builds exactly this, and only when every item "
        "fails is the result `isError: true`.",
    ),
)

q4 = MultipleChoice(
    "05",
    "q4",
    title=("세션 없는 프로토콜의 장바구니", "A cart in a protocol without sessions"),
    question=(
        "2026-07-28 프로토콜에는 프로토콜 수준의 세션이 없습니다. 그래도 모델이 장바구니를 열고, 물건을 담고, 주문하는 "
        "여러 번의 호출에 걸쳐 같은 장바구니를 써야 합니다. 어떻게 설계해야 할까요?",
        "The 2026-07-28 protocol has no protocol-level sessions. Yet a model must use the same cart across "
        "several calls: open it, add items, order. How should this be designed?",
    ),
    options={
        "A": (
            "서버가 `Mcp-Session-Id` 헤더로 연결을 알아보고, 그 세션에 장바구니를 몰래 묶어 둡니다.",
            "The server recognises the connection by its `Mcp-Session-Id` header and quietly ties the cart to "
            "that session.",
        ),
        "B": (
            "서버는 아무것도 기억하지 않고, 모델이 호출할 때마다 장바구니 전체 내용을 인자로 보냅니다.",
            "The server remembers nothing; the model sends the whole cart as an argument on every call.",
        ),
        "C": (
            "`open_cart`가 예측할 수 없는 핸들을 돌려주고 서버는 그 핸들을 만든 클라이언트에 묶어 보관합니다. 다음 "
            "호출들은 핸들을 인자로 받고, 모르는 핸들이나 만료된 핸들에는 `open_cart`를 다시 부르라는 실행 오류로 답합니다.",
            "`open_cart` returns an unpredictable handle that the server keeps bound to the client that made it. "
            "Later calls take the handle as an argument; an unknown or expired handle gets an execution error "
            "saying to call `open_cart` again.",
        ),
        "D": (
            "핸들을 `cart_1`, `cart_2`처럼 차례로 매겨서 모델이 기억하기 쉽게 합니다.",
            "Number handles in order, `cart_1`, `cart_2`, so that they are easy for the model to remember.",
        ),
    },
    answer="C",
    wrong={
        "A": (
            "헤더에 기대는 숨은 상태는 세션이 있던 시절의 방식입니다. 요청 하나하나가 홀로 서는 프로토콜에서는 이어지는 "
            "호출을 무엇으로 이어 붙여야 할까요?",
            "Hidden state behind a header is how things worked when there were sessions. When every request "
            "stands alone, what ties one call to the next?",
        ),
        "B": (
            "가능은 하지만 호출마다 컨텍스트를 잡아먹고 스키마도 커집니다. 게다가 모델이 보낸 내용을 그대로 믿어야 하니 "
            "가격이나 수량을 서버가 지킬 수 없습니다.",
            "It works, but it costs context on every call and bloats the schema. And the server must trust "
            "whatever the model sends, so it cannot guard prices or quantities.",
        ),
        "D": (
            "차례로 매긴 번호는 다른 사람도 쉽게 짐작합니다. 핸들은 인증 수단이 아니지만, 그래도 추측할 수 없어야 하고 "
            "서버가 주인을 확인해야 합니다.",
            "Numbers in order are easy for anyone to guess. A handle is not proof of identity, but it must still "
            "be unguessable and the server must check who owns it.",
        ),
    },
    hints=[
        (
            "상태가 어디에 사는지, 그리고 다음 호출이 그 상태를 어떻게 가리키는지 나눠서 생각해 보세요.",
            "Think separately about where the state lives and how the next call points at it.",
        ),
        (
            "명세의 보안 조언은 핸들을 세 가지로 다루라고 합니다. 예측할 수 없게 만들 것, 사용자와 묶을 것, 그 자체를 "
            "신분 증명으로 여기지 말 것.",
            "The spec's security advice says three things about handles: make them unpredictable, bind them to "
            "the user, and never treat them as proof of identity.",
        ),
    ],
    explanation=(
        "세션이 없으면 상태는 서버에 두고, 만드는 도구가 돌려준 핸들을 모델이 명시적으로 들고 다닙니다. 핸들은 "
        "추측할 수 없는 무작위 문자열이어야 하고, 서버는 매번 그 핸들을 만든 클라이언트인지 확인합니다. 모르거나 "
        "만료된 핸들에는 새 핸들을 만드는 도구를 알려 주는 실행 오류로 답합니다. `HandleStore`와 `current_client()`가 "
        "이 일을 합니다.",
        "Without sessions the state stays on the server and the model carries, explicitly, the handle the "
        "creating tool returned. The handle is an unguessable random string, and the server checks every time "
        "that the caller is the client that made it. An unknown or expired handle gets an execution error "
        "naming the tool that makes a new one. `HandleStore` and `current_client()` do this.",
    ),
)


# -- q5: redesign a badly designed tool; checked by the linter and through the real server ----------

ROOMS = ("A101", "A102", "B201")
CLOSING_HOUR = 18
KEY_RULES = frozenset(f"MCP0{n}" for n in (10, 11, 12, 13, 20, 21, 22, 23, 24, 30, 50))
"""The lint rules the redesigned tool must pass (warnings, and MCP023 which is only a note)."""

BOUNDS: dict[str, tuple[int, int]] = {"start_hour": (9, 17), "hours": (1, 3)}


class RedesignExercise(ToolExercise):
    """The learner redesigns `book_room`; the linter and real ``tools/call`` requests judge it.

    Besides the kit's definition checks it wants: the key lint rules quiet (`KEY_RULES`), exact
    bounds, no parameters beyond the four, a description naming the tool to use instead, and then,
    through the server, an idempotent replay, different ids for different bookings, refusals that
    name the field (enum, bounds, unknown argument, reused key) and a fixable business-rule error.
    Idempotency keys are fresh random strings per check and never shown.
    """

    def __init__(self, *args: Any, instead: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.instead = instead
        self._ready = False
        self._calls = 0

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

    def _probe_problems(self, name: str) -> list[str]:
        if not self._ready:
            return [t("lessons.ch05.not_ready")]
        from mcp_notebook import ClientConnectionError, ProtocolError, call

        keys = [secrets.token_hex(12) for _ in range(4)]
        self._calls = 0
        problems: list[str] = []

        def attempt(arguments: dict[str, Any]) -> tuple[str, Any]:
            shown = {
                k: (f"<key{keys.index(v) + 1}>" if k == "idempotency_key" else v)
                for k, v in arguments.items()
            }
            label = f"{name} {json.dumps(shown, ensure_ascii=False)}"
            self._calls += 1
            try:
                return label, call(name, arguments, timeout=CALL_TIMEOUT)
            except ProtocolError as exc:
                problems.append(
                    t("lessons.tool.protocol_error", call=label, error=f"[{exc.code}] {exc.message}")
                )
            except ClientConnectionError as exc:
                problems.append(t("lessons.tool.unreachable", call=label, error=str(exc)))
            return label, None

        def booking(arguments: dict[str, Any]) -> str | None:
            label, result = attempt(arguments)
            if result is None:
                return None
            if result.is_error:
                problems.append(t("lessons.tool.call_error", call=label, text=clip(result.text, 200)))
                return None
            data = result.structured_content or {}
            if not isinstance(data.get("booking_id"), str):
                problems.append(t("lessons.ch05.no_booking_id", call=label, got=clip(_describe(result), 200)))
                return None
            return str(data["booking_id"])

        def refused(arguments: dict[str, Any], names: str) -> None:
            label, result = attempt(arguments)
            if result is None:
                return
            if not result.is_error:
                problems.append(t("lessons.tool.should_fail", call=label, got=clip(_describe(result), 200)))
            elif names not in result.text:
                problems.append(t("lessons.tool.error_should_name", call=label, field=names))

        good = {"room": "A101", "start_hour": 10, "hours": 2}
        first = booking({**good, "idempotency_key": keys[0]})
        if first is None:
            return problems
        again = booking({**good, "idempotency_key": keys[0]})
        if again is not None and again != first:
            problems.append(t("lessons.ch05.replay_differs", first=first, second=again))
        other = booking({"room": "A102", "start_hour": 14, "hours": 1, "idempotency_key": keys[1]})
        if other is not None and other == first:
            problems.append(t("lessons.ch05.same_id", booking=first))
        fresh = {**good, "idempotency_key": keys[2]}
        refused({**fresh, "room": "C301"}, "room")
        refused({**fresh, "start_hour": 20}, "start_hour")
        refused({**fresh, "hours": 0}, "hours")
        refused({**fresh, "details": {"projector": True}}, "details")
        refused({**good, "room": "B201", "idempotency_key": keys[0]}, "idempotency_key")
        label, result = attempt({"room": "A101", "start_hour": 17, "hours": 3, "idempotency_key": keys[3]})
        if result is not None:
            if not result.is_error:
                problems.append(t("lessons.tool.should_fail", call=label, got=clip(_describe(result), 200)))
            elif str(CLOSING_HOUR) not in result.text:
                problems.append(t("lessons.ch05.closing", closing=CLOSING_HOUR, text=clip(result.text, 200)))
        return problems

    def praise(self) -> list[str]:
        return [
            t("lessons.tool.checked_via", calls=self._calls),
            f"{t('lessons.solution.why')}: {self.text('explanation')}",
        ]


def _finding(finding: Any) -> str:
    where = f" [{finding.field}]" if finding.field else ""
    return f"{finding.rule}{where} {finding.message} → {finding.fix}"


def _shown(value: Any) -> str:
    return t("none") if value is None else json.dumps(value)


def _describe(result: Any) -> str:
    if result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return str(result.text)


q5 = RedesignExercise(
    "05",
    "q5",
    tool="book_room",
    instead="cancel_booking",
    title=("나쁜 도구 고쳐 쓰기", "Redesign a bad tool"),
    question=(
        "위의 `book_room_draft`를 고쳐 `book_room` 도구를 새로 만드세요. 하는 일은 같습니다: 오늘 회의실 하나를 "
        "시작 시각부터 몇 시간 예약하고, 예약 ID를 돌려줍니다.\n"
        '- `room`: `"A101"`, `"A102"`, `"B201"` 중 하나만 받습니다.\n'
        "- `start_hour`: 시작 시각(정수). 9 이상 17 이하입니다.\n"
        "- `hours`: 예약할 시간 수(정수). 1 이상 3 이하입니다.\n"
        "- `details`처럼 키가 정해지지 않은 인자는 없앱니다. 매개변수마다 설명을 붙입니다.\n"
        "- 설명에는 언제 쓰는지와 언제 쓰면 안 되는지를 적습니다. 예약 취소에는 `cancel_booking`을 쓴다고 밝히세요.\n"
        "- 응답을 못 받은 모델이 다시 불러도 예약이 두 번 생기지 않아야 합니다.\n"
        '- 결과는 `{"booking_id": ..., ...}` 모양의 구조화된 결과이고, 예약마다 `booking_id`가 다릅니다.\n'
        "- 회의실은 18시에 닫습니다. 끝나는 시각이 18시를 넘으면 `ToolError`로 거절하되, 모델이 고칠 수 있는 "
        "메시지를 씁니다.\n"
        "채점기는 `mcp_notebook.lint()`로 주요 규칙을 확인한 뒤, 커널 안의 서버를 거쳐 도구를 여러 번 불러 봅니다. "
        "같은 키로 다시 부르기, 허용되지 않은 값과 범위 밖의 값, 모르는 인자, 18시를 넘는 예약이 모두 들어 있습니다.",
        "Redesign `book_room_draft` above as a new tool `book_room`. It does the same job: book one meeting "
        "room for today, from a start hour for some hours, and return a booking id.\n"
        '- `room`: only `"A101"`, `"A102"` or `"B201"`.\n'
        "- `start_hour`: the start hour (an integer), from 9 to 17.\n"
        "- `hours`: how many hours (an integer), from 1 to 3.\n"
        "- No argument with unspecified keys such as `details`. Every parameter has a description.\n"
        "- The description says when to use the tool and when not to: cancelling is done with "
        "`cancel_booking`.\n"
        "- A model that retries after a lost answer must not book twice.\n"
        '- The result is structured, shaped `{"booking_id": ..., ...}`, with a different `booking_id` per '
        "booking.\n"
        "- Rooms close at 18:00. A booking ending later is refused with `ToolError`, in a message the model "
        "can act on.\n"
        "The checker runs `mcp_notebook.lint()` for the key rules, then calls the tool several times through "
        "the in-kernel server: a repeat with the same key, values that are not allowed or out of range, an "
        "unknown argument, a booking past 18:00.",
    ),
    params=[
        Param("room", "string", enum=ROOMS),
        Param("start_hour", "integer"),
        Param("hours", "integer"),
    ],
    probes=[],
    description_min=40,
    hints=[
        (
            "`mcp_notebook.lint()`가 `book_room_draft`에 대해 보고한 규칙 번호들을 목록으로 삼아 하나씩 지워 나가세요.",
            "Take the rule ids `mcp_notebook.lint()` reported for `book_room_draft` as a to-do list and clear "
            "them one by one.",
        ),
        (
            "허용 값 목록은 `Literal[...]`, 범위는 `Annotated[int, Field(ge=..., le=...)]`, 매개변수 설명은 `Annotated`의 "
            "문자열이나 `Field(description=...)`로 씁니다. 이 장의 `add_card`를 다시 보세요.",
            "Allowed values are `Literal[...]`, bounds `Annotated[int, Field(ge=..., le=...)]`, parameter "
            "descriptions a string in `Annotated` or `Field(description=...)`. Look at this chapter's "
            "`add_card` again.",
        ),
        (
            "재시도 대비는 함수에 인자를 직접 더하는 것이 아니라 데코레이터 옵션 하나로 켭니다. 멱등 키 절의 "
            "`place_order`를 보세요.",
            "Retry safety is not an argument you add by hand; it is one option of the decorator. See "
            "`place_order` in the idempotency section.",
        ),
        (
            "거절 메시지에는 원인, 지금 상태, 다음 행동이 들어가야 합니다. 몇 시에 닫는지와, 이 시작 시각이라면 hours를 "
            "얼마까지 줄여야 하는지를 계산해 알려 주세요.",
            "A refusal says why, what the state is and what to do next: when the rooms close, and how far hours "
            "must drop for this start hour.",
        ),
    ],
    solution=(
        "from typing import Annotated, Literal\n"
        "from pydantic import Field\n"
        "from mcp_notebook import ToolError, tool\n\n"
        "@tool(idempotency_key=True)\n"
        "def book_room(\n"
        '    room: Annotated[Literal["A101", "A102", "B201"], "예약할 회의실"],\n'
        '    start_hour: Annotated[int, Field(ge=9, le=17, description="시작 시각(24시간제, 9~17시)")],\n'
        '    hours: Annotated[int, Field(ge=1, le=3, description="예약할 시간 수(1~3)")],\n'
        ") -> Booking:\n"
        '    """사용자가 오늘 회의실을 새로 잡아 달라고 할 때 사용하세요. 회의실 하나를 시작 시각부터\n'
        "    정한 시간만큼 예약하고 예약 ID를 돌려줍니다. 이미 잡은 예약을 취소할 때는 쓰지 말고\n"
        '    cancel_booking을 쓰세요."""\n'
        "    if start_hour + hours > 18:\n"
        "        raise ToolError(\n"
        '            f"회의실은 18시에 닫는데 {start_hour}시에 시작해 {hours}시간이면 {start_hour + hours}시에 끝납니다. "\n'
        '            f"hours를 {18 - start_hour} 이하로 줄이거나 더 일찍 시작하세요."\n'
        "        )\n"
        '    booking_id = f"bk_{len(bookings) + 1}"\n'
        '    bookings[booking_id] = {"booking_id": booking_id, "room": room, "start_hour": start_hour, "hours": hours}\n'
        "    return bookings[booking_id]",
        "from typing import Annotated, Literal\n"
        "from pydantic import Field\n"
        "from mcp_notebook import ToolError, tool\n\n"
        "@tool(idempotency_key=True)\n"
        "def book_room(\n"
        '    room: Annotated[Literal["A101", "A102", "B201"], "The meeting room to book"],\n'
        '    start_hour: Annotated[int, Field(ge=9, le=17, description="Start hour (24-hour clock, 9-17)")],\n'
        '    hours: Annotated[int, Field(ge=1, le=3, description="How many hours to book (1-3)")],\n'
        ") -> Booking:\n"
        '    """Use when the user asks to book a meeting room for today. Books one room from a start hour\n'
        "    for some hours and returns the booking id. Not for cancelling a booking: use\n"
        '    cancel_booking instead."""\n'
        "    if start_hour + hours > 18:\n"
        "        raise ToolError(\n"
        '            f"Rooms close at 18:00; starting at {start_hour} for {hours} hours ends at {start_hour + hours}. "\n'
        '            f"Use hours <= {18 - start_hour} or start earlier."\n'
        "        )\n"
        '    booking_id = f"bk_{len(bookings) + 1}"\n'
        '    bookings[booking_id] = {"booking_id": booking_id, "room": room, "start_hour": start_hour, "hours": hours}\n'
        "    return bookings[booking_id]",
    ),
    explanation=(
        "`Literal`이 enum을, `Field(ge=..., le=...)`가 minimum과 maximum을 만들고, `details`를 없애 스키마가 작고 "
        "닫혔습니다. `@tool(idempotency_key=True)`가 필수 `idempotency_key`를 더해 같은 키의 재시도에는 첫 결과를 "
        "그대로 돌려주고, 같은 키에 다른 인자가 오면 그렇다고 알려 줍니다. 허용되지 않은 방, 범위 밖의 시각, 모르는 "
        "인자는 함수가 돌기 전에 서버가 필드 이름을 대며 거절하고, 18시 규칙은 함수가 고칠 방법까지 담아 거절합니다.",
        "`Literal` makes the enum, `Field(ge=..., le=...)` the minimum and maximum, and dropping `details` "
        "makes the schema small and closed. `@tool(idempotency_key=True)` adds a required `idempotency_key`: a "
        "retry with the same key gets the first result back, and the same key with other arguments is refused "
        "saying so. A room that does not exist, an hour out of range or an unknown argument is refused by the "
        "server, naming the field, before the function runs; the 18:00 rule is refused by the function, with "
        "the way to fix it.",
    ),
)
