"""Exercises of chapter 01 (Tools): the review questions of the tools chapter, pagination,
annotations, and a tool the learner writes, checked through the real server.

>>> from mcp_notebook.lessons.ch01 import q1, q2, q3, q4, q5, q6, q7
"""

from __future__ import annotations

import math
from typing import Any

from ._answers import Classification, MultipleChoice, ShortAnswer
from ._toolcheck import Param, Probe, ToolExercise
from ._vocab import ERROR_LAYERS, PRIMITIVES

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6", "q7"]

q1 = Classification(
    "01",
    "q1",
    title=("행 넣기와 스키마 보기", "Inserting a row, showing the schema"),
    question=(
        "데이터베이스 서버에 기능이 두 개 있습니다. 각각 Tool과 Resource 중 어느 쪽이 더 어울리는지 고르세요. "
        "판단 기준은 '누가 호출을 통제하는가'입니다.",
        "A database server has two capabilities. For each, pick whether a Tool or a Resource suits it better. "
        "The test is who controls the call.",
    ),
    vocabulary=PRIMITIVES,
    items={
        "insert_row": (("테이블에 새 행을 넣는 기능", "Insert a new row into a table"), "tool"),
        "show_schema": (("테이블 스키마를 보여 주는 기능", "Show a table's schema"), "resource"),
    },
    feedback={
        ("insert_row", "resource"): (
            "'insert_row': Resource는 읽기용 데이터입니다. 행을 넣는 것처럼 무언가를 바꾸는 동작을 읽을거리로 내놓을 수 "
            "있을까요?",
            "'insert_row': a Resource is data to read. Can an action that changes something, like inserting a "
            "row, be offered as something to read?",
        ),
        ("show_schema", "tool"): (
            "'show_schema': 모델이 필요할 때 스키마를 조회하는 Tool도 만들 수는 있습니다. 하지만 스키마는 잘 바뀌지 않는 "
            "배경 지식이라, 앱이 대화 전에 깔아 두면 모델이 매번 부를 필요가 없습니다. 어느 쪽이 더 자연스러울까요?",
            "'show_schema': a Tool that looks up the schema is possible. But a schema is background knowledge "
            "that rarely changes; if the app lays it out beforehand, the model never needs to call for it. "
            "Which is more natural?",
        ),
    },
    hints=[
        (
            "두 기능 중 하나는 데이터를 바꾸고, 다른 하나는 읽기만 합니다.",
            "One of the two changes data; the other only reads.",
        ),
        (
            "무언가를 바꾸는 동작은 모델이 상황을 보고 실행을 정하는 쪽에, 읽기만 하는 배경 지식은 앱이 맥락으로 넣어 주는 "
            "쪽에 잘 어울립니다.",
            "An action that changes something fits where the model decides to run it; read-only background "
            "knowledge fits where the app puts it into the context.",
        ),
    ],
    explanation=(
        "행 넣기는 모델이 대화 흐름을 보고 실행 여부를 정하는 동작이라 Tool(모델 제어)이고, 데이터를 바꾸니 사람이 "
        "승인하거나 거부할 수 있어야 합니다. 스키마는 읽기만 하는 맥락이라 앱이 골라 넣어 주는 Resource(애플리케이션 "
        "제어)가 어울립니다.",
        "Inserting a row is an action whose use the model decides from the conversation: a Tool "
        "(model-controlled), and since it changes data a person must be able to approve or refuse it. A schema "
        "is read-only context the app chooses to include: a Resource (application-controlled).",
    ),
)

q2 = Classification(
    "01",
    "q2",
    title=("어느 층의 오류일까", "Which layer is the error in?"),
    question=(
        "`tools/call`을 처리하다 아래 상황이 생겼습니다. 상황마다 서버가 결과 대신 JSON-RPC 오류로 답해야 하는지"
        "(프로토콜 오류), 정상 결과 안에 `isError: true`를 담아 답해야 하는지(도구 실행 오류) 고르세요. "
        "2025-11-25 명세가 기준입니다.",
        "Each situation below happens while handling a `tools/call`. Pick whether the server answers with a "
        "JSON-RPC error instead of a result (protocol error) or with a normal result carrying `isError: true` "
        "(tool execution error). Go by the 2025-11-25 specification.",
    ),
    vocabulary=ERROR_LAYERS,
    items={
        "insufficient_funds": (
            (
                "도구가 부른 결제 API가 '잔액 부족'이라고 답했다",
                "The payment API the tool called answered 'insufficient funds'",
            ),
            "execution",
        ),
        "unknown_tool": (
            (
                "클라이언트가 서버에 없는 도구 이름으로 호출했다",
                "The client called a tool name the server does not have",
            ),
            "protocol",
        ),
        "bad_date": (
            (
                "인자 `date`에 `2025-13-45`가 들어와 스키마가 정한 날짜 형식에 맞지 않는다",
                "The argument `date` is `2025-13-45`, which does not match the date format of the schema",
            ),
            "execution",
        ),
        "malformed_request": (
            (
                "요청의 `params`가 객체가 아니라 숫자 하나여서 tools/call 요청의 모양부터 틀렸다",
                "The request's `params` is a bare number, so it is not even shaped like a tools/call request",
            ),
            "protocol",
        ),
        "api_timeout": (
            (
                "도구가 기다리던 외부 날씨 API가 10초 동안 답하지 않았다",
                "The outside weather API the tool was waiting for did not answer for 10 seconds",
            ),
            "execution",
        ),
    },
    feedback={
        ("insufficient_funds", "protocol"): (
            "'insufficient_funds': 요청은 멀쩡했고 도구도 제 할 일을 했습니다. '잔액 부족'은 모델이 읽고 사용자에게 알리거나 "
            "다른 길을 찾아야 하는 정보입니다. JSON-RPC 오류로 보내면 모델이 그 내용을 볼 수 있을까요?",
            "'insufficient_funds': the request was fine and the tool did its job. 'Insufficient funds' is "
            "something the model should read, then tell the user or find another way. Would the model see it "
            "in a JSON-RPC error?",
        ),
        ("bad_date", "protocol"): (
            "'bad_date': 예전 글과 2025-06-18 명세는 잘못된 인자를 프로토콜 오류로 다뤘습니다. 2025-11-25 명세는 생각을 "
            "바꿨습니다. 모델이 인자를 고쳐 다시 부르게 하려면 오류를 어디에 담아야 할까요?",
            "'bad_date': older texts and the 2025-06-18 specification treated bad arguments as protocol errors. "
            "2025-11-25 changed that. Where must the error go so that the model can fix the argument and retry?",
        ),
    },
    hints=[
        (
            "상황마다 물어보세요. 모델이 오류 메시지를 읽고 인자나 행동을 바꿔서 해결할 수 있는 일인가요?",
            "Ask for each situation: could a model read the message and fix things by changing its arguments or "
            "its plan?",
        ),
        (
            "프로토콜 오류는 '요청이 성립하지 않았다'는 뜻입니다. 존재하지 않는 것을 부르거나 메시지의 모양 자체가 틀린 "
            "경우입니다.",
            "A protocol error means the request does not stand: it names something that does not exist, or the "
            "message itself is malformed.",
        ),
        (
            "2025-11-25 명세는 입력 검증 실패(틀린 날짜 형식, 범위를 벗어난 값)를 API 실패, 업무 규칙 위반과 같은 쪽에 "
            "둡니다.",
            "The 2025-11-25 specification puts input validation failures (a wrong date format, a value out of "
            "range) on the same side as API failures and business rule violations.",
        ),
    ],
    explanation=(
        "잔액 부족, 형식이 틀린 인자, 외부 API 시간 초과는 모델이 읽고 대처할 수 있는 일이라 정상 결과 안의 "
        "`isError: true`로 돌려줍니다. 없는 도구 이름이나 모양부터 틀린 요청은 통합 자체의 문제라 JSON-RPC 오류"
        "(예: -32602)로 답합니다. 이 노트북의 서버도 같은 규칙을 따릅니다.",
        "Insufficient funds, a malformed argument and an API timeout are things a model can read and handle, "
        "so they come back as a normal result with `isError: true`. An unknown tool name or a malformed request "
        "is a problem of the integration itself: a JSON-RPC error (e.g. -32602). This notebook's server follows "
        "the same rule.",
    ),
)

q3 = ShortAnswer(
    "01",
    "q3",
    title=("outputSchema를 선언했다면", "If you declare an outputSchema"),
    question=(
        "도구 정의에 `outputSchema`를 넣었습니다. 이 도구의 성공 결과에 반드시 담아야 하는 필드는 무엇일까요? "
        "JSON에 쓰이는 필드 이름으로 답하세요.",
        "A tool definition declares an `outputSchema`. Which field must every successful result of that tool "
        "contain? Answer with the field name as written in the JSON.",
    ),
    accepted=("structuredContent",),
    wrong={
        "content": (
            "`content`는 모든 결과에 들어가는 기본 필드입니다. 스키마로 검증할 수 있는 JSON 객체는 다른 필드에 담깁니다.",
            "`content` is the basic field of every result. The JSON object a schema can validate goes in another "
            "field.",
        ),
        "outputSchema": (
            "그건 도구 정의 쪽 필드입니다. 결과 쪽에서 짝이 되는 필드는 무엇일까요?",
            "That field belongs to the tool definition. What is its partner on the result side?",
        ),
        "isError": (
            "`isError`는 성공인지 실패인지를 알리는 표시일 뿐입니다. 스키마를 따르는 데이터는 어디에 담길까요?",
            "`isError` only says whether the call failed. Where does the data that follows the schema go?",
        ),
        "text": (
            "텍스트 블록은 하위 호환을 위해 함께 넣으면 좋은 것입니다. 스키마를 따라야 하는 쪽은 따로 있습니다.",
            "A text block is good to add for backwards compatibility. The part that must follow the schema is "
            "another one.",
        ),
    },
    hints=[
        (
            "결과에는 사람이나 모델이 읽는 `content` 말고도, 프로그램이 바로 쓸 수 있는 JSON 객체를 담는 자리가 하나 더 "
            "있습니다.",
            "Besides `content`, which people and models read, a result has one more place: a JSON object that "
            "programs can use directly.",
        ),
        (
            "이 장에서 `CallResult`의 `.content` 옆에 있던 다른 속성을 떠올려 보세요. JSON에서는 이름을 camelCase로 씁니다.",
            "Remember the other attribute next to `.content` on `CallResult` in this chapter. In JSON the name is "
            "written in camelCase.",
        ),
    ],
    explanation=(
        "outputSchema가 있으면 서버는 그 스키마를 따르는 `structuredContent`를 반드시(MUST) 돌려줘야 하고, "
        "클라이언트는 그것을 스키마로 검증합니다(SHOULD). 텍스트만 읽는 클라이언트를 위해 같은 JSON을 텍스트 블록에도 "
        "넣어 두는 것이 좋습니다.",
        "With an outputSchema the server MUST return `structuredContent` that conforms to it, and clients SHOULD "
        "validate it against the schema. For clients that only read text, put the same JSON in a text block too.",
    ),
)

q4 = MultipleChoice(
    "01",
    "q4",
    title=("structuredContent를 빠뜨리면", "Leaving out structuredContent"),
    question=(
        "outputSchema를 선언한 도구가 성공 결과에 텍스트만 담고 `structuredContent`를 빠뜨렸습니다. 어떤 일이 생길까요?",
        "A tool that declares an outputSchema returns a successful result with text only, without "
        "`structuredContent`. What happens?",
    ),
    options={
        "A": (
            "아무 문제 없습니다. 클라이언트는 어차피 텍스트만 읽습니다.",
            "Nothing: clients read only the text anyway.",
        ),
        "B": (
            "명세를 어긴 결과입니다. 스키마로 결과를 검증하는 클라이언트는 이 결과를 받아들이지 않고 오류로 처리할 수 "
            "있습니다.",
            "The result breaks the specification. A client that validates results against the schema may reject "
            "it and treat it as an error.",
        ),
        "C": (
            "서버가 알아서 JSON-RPC 오류 -32602로 바꿔 보냅니다.",
            "The server turns it into JSON-RPC error -32602 by itself.",
        ),
        "D": (
            "클라이언트가 텍스트를 파싱해서 structuredContent를 대신 채워 줍니다.",
            "The client parses the text and fills in structuredContent itself.",
        ),
    },
    answer="B",
    wrong={
        "A": (
            "텍스트만 읽는 클라이언트도 있지만, outputSchema를 선언한 순간 서버는 결과의 모양을 약속한 셈입니다. 그 약속을 "
            "믿고 검증하는 클라이언트는 어떻게 반응할까요?",
            "Some clients read only text, but by declaring an outputSchema the server promised a shape. How does "
            "a client that trusts and checks that promise react?",
        ),
        "C": (
            "-32602는 요청이 잘못되었을 때의 프로토콜 오류입니다. 여기서 잘못된 것은 요청이 아니라 서버가 만든 결과이고, "
            "명세는 서버에게 그런 자동 변환을 요구하지도 않습니다.",
            "-32602 is the protocol error for a bad request. Here the request is fine, the server's result is "
            "wrong, and the specification asks for no such conversion.",
        ),
        "D": (
            "클라이언트에게 텍스트를 추측해 고쳐 줄 의무는 없습니다. 명세는 structuredContent를 돌려줄 책임을 누구에게 "
            "지우나요?",
            "Clients have no duty to guess from the text. Whom does the specification make responsible for "
            "returning structuredContent?",
        ),
    },
    hints=[
        (
            "outputSchema는 '결과가 이런 모양일 것'이라는 서버의 약속입니다.",
            "An outputSchema is the server's promise about the shape of its results.",
        ),
        (
            "명세는 클라이언트에게 structuredContent를 스키마로 검증하라고(SHOULD) 합니다. 검증할 대상이 없으면 어떻게 "
            "될지 생각해 보세요.",
            "The specification says clients SHOULD validate structuredContent against the schema. Think about "
            "what happens when there is nothing to validate.",
        ),
    ],
    explanation=(
        "outputSchema가 있으면 structuredContent는 서버의 의무(MUST)이고 클라이언트는 그것을 검증합니다(SHOULD). "
        "빠지면 검증하는 클라이언트는 결과를 오류로 다룹니다. 파이썬 SDK의 클라이언트는 'output schema가 있는데 "
        "structured content가 없다'는 오류를 냅니다. mcp-notebook 서버는 그런 결과를 내보내기 전에 막아서, 스키마에 "
        "맞지 않는 반환값을 어디가 틀렸는지 알려 주는 `isError: true` 결과로 바꿉니다.",
        "With an outputSchema, structuredContent is the server's duty (MUST) and clients validate it (SHOULD). "
        "Without it, a validating client treats the result as an error: the Python SDK's client raises 'has an "
        "output schema but did not return structured content'. The mcp-notebook server stops such results "
        "before they leave: a return value that does not fit the schema becomes an `isError: true` result "
        "saying what is wrong.",
    ),
)

q5 = MultipleChoice(
    "01",
    "q5",
    title=("readOnlyHint를 믿어도 될까", "Can you trust readOnlyHint?"),
    question=(
        "처음 연결한 서버가 `delete_branch`라는 도구에 `readOnlyHint: true`를 붙여 보냈습니다. 호스트는 어떻게 해야 "
        "할까요?",
        "A server you just connected to sends a tool called `delete_branch` marked `readOnlyHint: true`. What "
        "should the host do?",
    ),
    options={
        "A": (
            "읽기 전용이라고 했으니 사용자에게 묻지 않고 바로 실행해도 됩니다.",
            "It says read-only, so run it without asking the user.",
        ),
        "B": (
            "어노테이션은 힌트일 뿐이니, 믿을 수 있는 서버가 아니라면 이름과 설명까지 살피고 여전히 사용자 확인을 받습니다.",
            "Annotations are only hints: unless the server is trusted, weigh the name and description too and "
            "still ask the user to confirm.",
        ),
        "C": (
            "명세 위반이므로 서버와의 연결을 바로 끊어야 합니다.",
            "It violates the specification, so disconnect from the server at once.",
        ),
        "D": (
            "클라이언트는 서버가 보낸 annotations를 읽어서는 안 됩니다.",
            "Clients must not read the annotations a server sends.",
        ),
    },
    answer="B",
    wrong={
        "A": (
            "어노테이션은 서버가 스스로 적은 자기소개입니다. 그 내용을 누가 보증하나요?",
            "Annotations are the server describing itself. Who vouches for them?",
        ),
        "C": (
            "어노테이션이 의심스럽다고 해서 프로토콜 규칙을 어긴 것은 아닙니다. 클라이언트가 할 일은 연결을 끊는 것이 아니라 "
            "믿을 만큼만 믿는 것입니다.",
            "A doubtful annotation breaks no protocol rule. The client's job is not to disconnect but to trust "
            "it only as far as it can.",
        ),
        "D": (
            "읽는 것은 괜찮습니다. 화면에 보여 주거나 판단에 참고할 수 있습니다. 문제는 읽은 뒤 얼마나 믿느냐입니다.",
            "Reading them is fine: show them, use them as input. The question is how far to trust them.",
        ),
    },
    hints=[
        (
            "annotations를 누가 썼는지 생각해 보세요. 클라이언트가 그 내용을 확인할 방법이 있나요?",
            "Think about who wrote the annotations. Can the client verify them?",
        ),
        (
            "명세는 믿을 수 있는 서버에서 온 것이 아니라면 어노테이션을 신뢰할 수 없는 것으로 다루라고(MUST) 합니다.",
            "The specification says clients MUST treat annotations as untrusted unless they come from a trusted "
            "server.",
        ),
    ],
    explanation=(
        "readOnlyHint, destructiveHint 같은 어노테이션은 서버의 주장일 뿐입니다. 믿을 수 있는 서버가 아니라면 "
        "클라이언트는 이것만 보고 안전하다고 판단하면 안 되고, 사람이 호출을 확인하고 거부할 수 있게 해야 합니다. "
        "이 장에서 본 `tidy_up`처럼 코드는 힌트와 전혀 다르게 움직일 수 있습니다.",
        "Annotations such as readOnlyHint and destructiveHint are claims by the server. Unless the server is "
        "trusted, a client must not treat a call as safe because of them, and a person must be able to review "
        "and refuse it. As `tidy_up` in this chapter showed, the code can do something else entirely.",
    ),
)

q6 = ShortAnswer(
    "01",
    "q6",
    title=("다음 페이지 받기", "Getting the next page"),
    question=(
        "`tools/list` 응답에 `nextCursor`가 들어 있었습니다. 다음 페이지를 받으려면 다음 `tools/list` 요청의 "
        "`params`에 어떤 이름의 필드로 그 값을 넣어야 할까요?",
        "A `tools/list` response contained `nextCursor`. To get the next page, under which field name of the "
        "next `tools/list` request's `params` do you send that value?",
    ),
    accepted=("cursor",),
    wrong={
        "nextCursor": (
            "`nextCursor`는 서버가 응답에 담아 주는 필드입니다. 요청에서 그 값을 돌려줄 때 쓰는 이름은 조금 다릅니다.",
            "`nextCursor` is the field of the server's response. The request sends the value back under a "
            "slightly different name.",
        ),
        "page": (
            "MCP는 페이지 번호를 쓰지 않습니다. 서버가 준 불투명한 값을 그대로 돌려줄 뿐입니다.",
            "MCP does not use page numbers; the client just hands back the opaque value it was given.",
        ),
        "offset": (
            "클라이언트가 위치를 계산하지 않습니다. 서버가 준 불투명한 값을 그대로 돌려줄 뿐입니다.",
            "The client does not compute positions; it just hands back the opaque value it was given.",
        ),
    },
    hints=[
        (
            "응답에서 받은 값을 해석하거나 고치지 말고 그대로 돌려주기만 하면 됩니다. 필드 이름만 알면 됩니다.",
            "Do not interpret or change the value; hand it back as it is. You only need the field name.",
        ),
        (
            "위에서 SDK로 페이지를 넘길 때 `client.list_tools(...)`에 넘긴 키워드 인자를 다시 보세요.",
            "Look again at the keyword argument given to `client.list_tools(...)` when paging with the SDK above.",
        ),
    ],
    explanation=(
        "서버가 `nextCursor`를 주면 클라이언트는 그 값을 다음 요청의 `params.cursor`에 그대로 넣습니다. 커서는 "
        "불투명(opaque)해서 클라이언트가 해석하거나 만들어 내면 안 되고, `nextCursor`가 없으면 마지막 페이지입니다.",
        "When the server returns `nextCursor`, the client puts that value unchanged into `params.cursor` of the "
        "next request. Cursors are opaque: clients must not parse or forge them. No `nextCursor` means the last "
        "page.",
    ),
)


def _converted(expected_value: float, expected_unit: str) -> Any:
    def accept(result: Any) -> bool:
        data = result.structured_content or {}
        value = data.get("value")
        return (
            isinstance(value, int | float)
            and math.isclose(value, expected_value, abs_tol=0.01)
            and data.get("unit") == expected_unit
        )

    return accept


q7 = ToolExercise(
    "01",
    "q7",
    tool="convert_temperature",
    title=("온도 변환 도구 만들기", "Write a temperature converter"),
    question=(
        "`convert_temperature` 도구를 만드세요. 조건은 다음과 같습니다.\n"
        '- 인자는 `value`(실수, 필수)와 `unit`(`"C"`나 `"F"`만 허용, 필수)입니다. `unit`은 `value`의 단위입니다.\n'
        '- 반대 단위로 바꾼 값을 `{"value": 바꾼 값, "unit": 바꾼 단위}` 모양의 구조화된 결과로 돌려줍니다. '
        "outputSchema가 있어야 합니다.\n"
        "- 모델이 언제 쓸지 알 수 있도록 20자 이상의 설명을 씁니다.\n"
        "- 아무것도 바꾸지 않는 계산이니 읽기 전용 힌트를 붙입니다.\n"
        "- 절대영도(-273.15°C, -459.67°F)보다 낮은 값은 `ToolError`로 거절합니다.\n"
        "채점기는 커널 안의 MCP 서버를 거쳐 tools/list로 정의를 확인하고, 여러 인자로 실제로 호출합니다. "
        '허용되지 않은 단위(`"K"`)나 빠진 인자는 서버가 `isError: true`로 거절해야 합니다.',
        "Write a tool `convert_temperature`:\n"
        '- Its arguments are `value` (a float, required) and `unit` (only `"C"` or `"F"`, required). `unit` '
        "is the unit of `value`.\n"
        '- It returns the value in the other unit as a structured result shaped `{"value": converted, '
        '"unit": new unit}`. It needs an outputSchema.\n'
        "- A description of at least 20 characters tells a model when to use it.\n"
        "- It changes nothing, so it carries the read-only hint.\n"
        "- Values below absolute zero (-273.15°C, -459.67°F) are refused with `ToolError`.\n"
        "The checker goes through the in-kernel MCP server: it reads the definition with tools/list and calls "
        'the tool with several arguments. A unit that is not allowed (`"K"`) or a missing argument must be '
        "refused by the server with `isError: true`.",
    ),
    params=[Param("value", "number"), Param("unit", "string", enum=("C", "F"))],
    output_schema=True,
    annotations={"readOnlyHint": True},
    probes=[
        Probe(
            {"value": 100, "unit": "C"},
            "ok",
            accept=_converted(212, "F"),
            advice=(
                "섭씨를 화씨로 바꾸는 식은 `value * 9 / 5 + 32`이고, 결과의 unit은 바꾼 뒤의 단위입니다.",
                "Celsius to Fahrenheit is `value * 9 / 5 + 32`, and the result's unit is the new unit.",
            ),
        ),
        Probe(
            {"value": 32, "unit": "F"},
            "ok",
            accept=_converted(0, "C"),
            advice=(
                "화씨를 섭씨로 바꾸는 식은 `(value - 32) * 5 / 9`입니다.",
                "Fahrenheit to Celsius is `(value - 32) * 5 / 9`.",
            ),
        ),
        Probe(
            {"value": -300, "unit": "C"},
            "error",
            advice=(
                '절대영도보다 낮은 온도는 없습니다. 이런 입력은 `raise ToolError("...")`로 이유와 함께 거절하세요.',
                'Nothing is colder than absolute zero. Refuse such input with `raise ToolError("...")` and say why.',
            ),
        ),
        Probe(
            {"value": 10, "unit": "K"},
            "error",
            names="unit",
            advice=(
                "단위가 'K'인 호출이 통과했습니다. 허용 값 목록이 스키마에 있으면 서버가 함수를 부르기 전에 거절합니다.",
                "A call with unit 'K' got through. With the allowed values in the schema, the server refuses it "
                "before calling the function.",
            ),
        ),
        Probe({"unit": "C"}, "error", names="value"),
    ],
    hints=[
        (
            "조건을 하나씩 코드로 옮기세요. 인자의 타입 힌트는 inputSchema가 되고, 반환 타입 힌트는 outputSchema가 되며, "
            "docstring은 description이 됩니다.",
            "Turn the conditions into code one by one: parameter type hints become the inputSchema, the return "
            "type hint the outputSchema, the docstring the description.",
        ),
        (
            "허용 값이 정해진 인자에는 `typing.Literal`을 쓰세요. 스키마에 enum이 생깁니다.",
            "For an argument with fixed allowed values use `typing.Literal`: the schema gets an enum.",
        ),
        (
            "읽기 전용 힌트는 데코레이터의 옵션으로 붙입니다. 00장의 `@tool(...)` 예를 다시 보세요.",
            "The read-only hint is an option of the decorator; look again at the `@tool(...)` examples.",
        ),
        (
            "모델에게 돌려줄 오류는 `from mcp_notebook import ToolError`로 가져와 함수 안에서 raise하면 됩니다.",
            "For an error the model should read, import `ToolError` from mcp_notebook and raise it in the "
            "function.",
        ),
    ],
    solution=(
        "from typing import Literal\n"
        "from mcp_notebook import ToolError, tool\n\n"
        "@tool(read_only=True)\n"
        'def convert_temperature(value: float, unit: Literal["C", "F"]) -> dict:\n'
        '    """온도를 섭씨(C)와 화씨(F) 사이에서 바꿉니다. unit은 value의 단위이고, 결과는 반대 단위입니다."""\n'
        '    if (unit == "C" and value < -273.15) or (unit == "F" and value < -459.67):\n'
        '        raise ToolError(f"{value}°{unit}는 절대영도보다 낮습니다. 실제로 있을 수 있는 온도를 넣어 주세요.")\n'
        '    if unit == "C":\n'
        '        return {"value": round(value * 9 / 5 + 32, 2), "unit": "F"}\n'
        '    return {"value": round((value - 32) * 5 / 9, 2), "unit": "C"}',
        "from typing import Literal\n"
        "from mcp_notebook import ToolError, tool\n\n"
        "@tool(read_only=True)\n"
        'def convert_temperature(value: float, unit: Literal["C", "F"]) -> dict:\n'
        '    """Convert a temperature between Celsius (C) and Fahrenheit (F); unit is the unit of value."""\n'
        '    if (unit == "C" and value < -273.15) or (unit == "F" and value < -459.67):\n'
        '        raise ToolError(f"{value}°{unit} is below absolute zero. Give a temperature that can exist.")\n'
        '    if unit == "C":\n'
        '        return {"value": round(value * 9 / 5 + 32, 2), "unit": "F"}\n'
        '    return {"value": round((value - 32) * 5 / 9, 2), "unit": "C"}',
    ),
    explanation=(
        "`Literal`이 enum을, 반환 타입 `dict`가 outputSchema를, docstring이 description을 만듭니다. 'K' 같은 값이나 "
        "빠진 인자는 함수에 닿기 전에 서버의 스키마 검사에서 `isError: true`로 돌아가고, 절대영도 아래의 값은 함수가 "
        "`ToolError`로 거절합니다. 둘 다 모델이 읽고 고칠 수 있는 도구 실행 오류입니다.",
        "`Literal` makes the enum, the `dict` return type the outputSchema, the docstring the description. A "
        "value like 'K' or a missing argument is sent back with `isError: true` by the server's schema check, "
        "before the function runs; a value below absolute zero is refused by the function with `ToolError`. "
        "Both are tool execution errors a model can read and fix.",
    ),
)
