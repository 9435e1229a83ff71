"""The linter's messages, English and Korean: for each rule what is wrong (``lint.ID``) and how to fix it
(``lint.ID.fix``). Kept apart from the rules so that the rules module stays readable."""

from __future__ import annotations

from ..core._text import Language, add_messages

_TOOL_NAME_FIX: dict[Language, str] = {
    "en": "Shorten it to {limit} characters or fewer (@tool(name=...)).",
    "ko": "이름을 {limit}자 이하로 줄이세요(@tool(name=...)).",
}

MESSAGES: dict[str, dict[Language, str]] = {
    "lint.MCP001": {
        "en": "{name!r} is not a valid MCP tool name: names are 1-128 characters of A-Z a-z 0-9 _ - . "
        "and clients refuse others.",
        "ko": "{name!r}은(는) 올바른 MCP 도구 이름이 아닙니다. 이름은 A-Z a-z 0-9 _ - . 로 된 "
        "1~128자여야 하며, 클라이언트는 다른 이름을 거부합니다.",
    },
    "lint.MCP001.fix": {
        "en": "Rename it, e.g. @tool(name={suggestion!r}).",
        "ko": "이름을 바꾸세요. 예: @tool(name={suggestion!r})",
    },
    "lint.MCP002": {
        "en": "The name contains {chars}: valid in MCP, but some clients accept only A-Z a-z 0-9 _ - in "
        "tool names.",
        "ko": "이름에 {chars} 문자가 있습니다. MCP에서는 허용되지만 일부 클라이언트는 도구 이름에 "
        "A-Z a-z 0-9 _ - 만 받습니다.",
    },
    "lint.MCP002.fix": {
        "en": "Use '_' or '-' instead, e.g. @tool(name={suggestion!r}).",
        "ko": "대신 '_'나 '-'를 쓰세요. 예: @tool(name={suggestion!r})",
    },
    "lint.MCP003": {
        "en": "The name has {n} characters; some clients cut or refuse tool names longer than 64.",
        "ko": "이름이 {n}자입니다. 일부 클라이언트는 64자보다 긴 도구 이름을 자르거나 거부합니다.",
    },
    "lint.MCP003.fix": _TOOL_NAME_FIX,
    "lint.MCP004": {
        "en": "With a client prefix such as 'mcp__<server>__' (assuming a server name of up to {server} "
        "characters), this {n}-character name goes past the 64 characters some clients allow.",
        "ko": "'mcp__<서버>__' 같은 클라이언트 접두사가 붙으면(서버 이름을 최대 {server}자로 가정) "
        "{n}자인 이 이름이 일부 클라이언트의 한도인 64자를 넘습니다.",
    },
    "lint.MCP004.fix": _TOOL_NAME_FIX,
    "lint.MCP010": {
        "en": "The tool has no description, so the model can only guess from its name what it does and "
        "when to call it.",
        "ko": "도구에 설명이 없어 모델은 이름만 보고 무엇을 하는지, 언제 호출할지 짐작해야 합니다.",
    },
    "lint.MCP010.fix": {
        "en": "Add a docstring: when to use it, what it does, and when not to (which tool to use instead).",
        "ko": "독스트링을 추가하세요: 언제 쓰는지, 무엇을 하는지, 언제 쓰면 안 되는지(대신 쓸 도구).",
    },
    "lint.MCP011": {
        "en": "The description has only {n} characters; models choose tools by their descriptions.",
        "ko": "설명이 {n}자뿐입니다. 모델은 설명을 보고 도구를 고릅니다.",
    },
    "lint.MCP011.fix": {
        "en": "In a sentence or two, say when to use it, what it does and what it needs.",
        "ko": "한두 문장으로 언제 쓰는지, 무엇을 하는지, 무엇이 필요한지 적으세요.",
    },
    "lint.MCP012": {
        "en": "The description says what the tool does but not when to use it, which matters more for "
        "choosing it.",
        "ko": "설명에 도구가 하는 일은 있지만 언제 쓰는지가 없습니다. 도구를 고를 때는 그쪽이 더 중요합니다.",
    },
    "lint.MCP012.fix": {
        "en": "Start with when to call it, e.g. 'Use when the user asks for ...'.",
        "ko": "언제 호출하는지를 먼저 적으세요. 예: '사용자가 ...을(를) 요청할 때 사용하세요.'",
    },
    "lint.MCP013": {
        "en": "Similar tools exist ({similar}) but the description does not say when not to use this one, "
        "so the model may pick either.",
        "ko": "비슷한 도구({similar})가 있는데 설명에 언제 이 도구를 쓰면 안 되는지가 없어 모델이 "
        "아무 쪽이나 고를 수 있습니다.",
    },
    "lint.MCP013.fix": {
        "en": "Say where the boundary is, e.g. 'Not for ...: use {other} instead.'",
        "ko": "경계를 적으세요. 예: '...에는 쓰지 마세요. 대신 {other}을(를) 쓰세요.'",
    },
    "lint.MCP020": {
        "en": "Parameter {param!r} has no description; the model has only its name and type to go on.",
        "ko": "매개변수 {param!r}에 설명이 없어 모델은 이름과 타입만 보고 값을 정해야 합니다.",
    },
    "lint.MCP020.fix": {
        "en": "Describe it (meaning, unit, format, where the value comes from) in the docstring's "
        "Parameters section or with Annotated[..., 'description'].",
        "ko": "독스트링의 Parameters 절이나 Annotated[..., '설명']으로 의미, 단위, 형식, 값의 출처를 적으세요.",
    },
    "lint.MCP021": {
        "en": "The tool takes {n} parameters (more than {limit}); each one is another field the model can "
        "fill in wrong.",
        "ko": "도구가 매개변수를 {n}개 받습니다({limit}개 초과). 필드가 하나 늘 때마다 모델이 잘못 "
        "채울 여지도 늘어납니다.",
    },
    "lint.MCP021.fix": {
        "en": "Drop what the server can work out itself (current user, time), give defaults, or split the "
        "tool into what a user would ask for in one sentence.",
        "ko": "서버가 알 수 있는 값(현재 사용자, 시각)은 빼고, 기본값을 주거나, 사용자가 한 문장으로 "
        "요청할 만한 단위로 도구를 나누세요.",
    },
    "lint.MCP022": {
        "en": "{param!r} is a free-form string, but its name suggests a fixed set of values; the model "
        "will mix spellings ('link', 'LINK', 'hyperlink').",
        "ko": "{param!r}은(는) 자유 문자열인데 이름을 보면 정해진 값 중 하나일 것 같습니다. 모델이 "
        "'link', 'LINK', 'hyperlink'처럼 표기를 섞어 쓰게 됩니다.",
    },
    "lint.MCP022.fix": {
        "en": "Use Literal['a', 'b'] or an Enum, or constrain it with a pattern or maxLength "
        "(Annotated[str, Field(pattern=...)]).",
        "ko": "Literal['a', 'b']나 Enum을 쓰거나, pattern 또는 maxLength로 제한하세요"
        "(Annotated[str, Field(pattern=...)]).",
    },
    "lint.MCP023": {
        "en": "Number {param!r} has no {missing}; the model cannot know the valid range and may send an "
        "impossible value.",
        "ko": "숫자 {param!r}에 {missing}이(가) 없어 모델이 허용 범위를 모르고 불가능한 값을 보낼 수 있습니다.",
    },
    "lint.MCP023.fix": {
        "en": "Give bounds: Annotated[int, Field(ge=0, le=100)] (pydantic) or annotated_types.Interval.",
        "ko": "범위를 주세요: Annotated[int, Field(ge=0, le=100)](pydantic) 또는 annotated_types.Interval.",
    },
    "lint.MCP024": {
        "en": "{param} is an open object: any keys are accepted, so the model cannot know which fields to "
        "send and typos pass silently.",
        "ko": "{param}은(는) 열린 객체라 어떤 키든 받습니다. 모델은 어떤 필드를 보내야 할지 모르고 "
        "오타도 그냥 통과합니다.",
    },
    "lint.MCP024.fix": {
        "en": "Use a TypedDict, dataclass or pydantic model (closed: additionalProperties false), or "
        "dict[str, <type>] for a real map.",
        "ko": "TypedDict, dataclass, pydantic 모델(additionalProperties false로 닫힌 형태)을 쓰고, "
        "정말 맵이라면 dict[str, <타입>]을 쓰세요.",
    },
    "lint.MCP025": {
        "en": "{params} look like pixel coordinates and sizes; models place things badly in raw pixels "
        "(off-screen, overlapping).",
        "ko": "{params}은(는) 픽셀 좌표와 크기로 보입니다. 모델은 픽셀 단위 배치를 잘 못해서 화면 밖에 "
        "두거나 겹치게 둡니다.",
    },
    "lint.MCP025.fix": {
        "en": "Use a bounded grid instead, e.g. col (0-11), row, colSpan (1-12), or a cell reference "
        "such as 'B3'.",
        "ko": "대신 범위가 정해진 그리드를 쓰세요. 예: col(0~11), row, colSpan(1~12), 또는 'B3' 같은 셀 참조.",
    },
    "lint.MCP030": {
        "en": "The tool is not marked read-only, so it may change things, and a model retries when an "
        "answer is lost: a retry could do it twice.",
        "ko": "도구가 읽기 전용으로 표시되지 않아 무언가를 바꿀 수 있는데, 모델은 응답을 못 받으면 "
        "재시도하므로 같은 작업이 두 번 실행될 수 있습니다.",
    },
    "lint.MCP030.fix": {
        "en": "If it changes nothing, mark it @tool(read_only=True); if repeating it is harmless, "
        "@tool(idempotent=True); otherwise add an idempotency key: @tool(idempotency_key=True).",
        "ko": "아무것도 바꾸지 않으면 @tool(read_only=True), 반복해도 괜찮으면 @tool(idempotent=True), "
        "그렇지 않으면 @tool(idempotency_key=True)로 멱등 키를 추가하세요.",
    },
    "lint.MCP031": {
        "en": "The tool is destructive but not declared to need approval: when the server runs with "
        "approval='auto', a model can run it without anyone confirming.",
        "ko": "파괴적인 도구인데 승인이 필요하다고 선언되지 않았습니다. 서버가 approval='auto'로 "
        "실행되면 아무도 확인하지 않은 채 모델이 실행할 수 있습니다.",
    },
    "lint.MCP031.fix": {
        "en": 'Ask every time: @tool(destructive=True, approval="always"), or keep it from outside clients.',
        "ko": '호출할 때마다 승인을 받게 하세요: @tool(destructive=True, approval="always"). '
        "아니면 외부 클라이언트에 노출하지 마세요.",
    },
    "lint.MCP032": {
        "en": "The tool is marked both read-only and destructive; a read-only tool changes nothing, so "
        "clients cannot tell which hint to believe.",
        "ko": "도구에 읽기 전용과 파괴적 표시가 함께 있습니다. 읽기 전용 도구는 아무것도 바꾸지 않으므로 "
        "클라이언트는 어느 쪽을 믿어야 할지 알 수 없습니다.",
    },
    "lint.MCP032.fix": {
        "en": "Keep only the true one: read_only=True or destructive=True.",
        "ko": "맞는 쪽 하나만 남기세요: read_only=True 또는 destructive=True.",
    },
    "lint.MCP040": {
        "en": "The tool returns structured data ({returns}) but has no output schema, so clients cannot "
        "validate it and models do not know its shape.",
        "ko": "도구가 구조화된 데이터({returns})를 반환하는데 출력 스키마가 없어 클라이언트는 검증할 수 "
        "없고 모델은 그 형태를 알 수 없습니다.",
    },
    "lint.MCP040.fix": {
        "en": "Drop output_schema=False, or pass an output_schema describing the result.",
        "ko": "output_schema=False를 빼거나, 결과를 설명하는 output_schema를 넘기세요.",
    },
    "lint.MCP041": {
        "en": "The output schema is a bare object (a plain dict return type): it tells clients and models "
        "nothing about the fields.",
        "ko": "출력 스키마가 필드 정보 없는 빈 객체입니다(반환 타입이 그냥 dict). 클라이언트와 모델에게 "
        "필드에 대해 아무것도 알려 주지 않습니다.",
    },
    "lint.MCP041.fix": {
        "en": "Return a TypedDict, dataclass or pydantic model instead of dict.",
        "ko": "dict 대신 TypedDict, dataclass, pydantic 모델을 반환하세요.",
    },
    "lint.MCP060": {
        "en": "This async tool calls {calls}, which blocks the server's event loop while it runs: every "
        "other client and %mcp_call wait, and the tool's timeout cannot stop it.",
        "ko": "이 async 도구는 {calls}을(를) 호출합니다. 이 호출은 도는 동안 서버의 이벤트 루프를 막아, 다른 "
        "클라이언트와 %mcp_call이 모두 기다리고 도구의 timeout도 멈추지 못합니다.",
    },
    "lint.MCP060.fix": {
        "en": "Await a non-blocking version instead (e.g. await asyncio.sleep(...), an async HTTP client, "
        "await asyncio.to_thread({first}, ...)), or make the tool a plain def: it then runs on a worker thread.",
        "ko": "막지 않는 방식으로 바꾸세요(예: await asyncio.sleep(...), 비동기 HTTP 클라이언트, await "
        "asyncio.to_thread({first}, ...)). 아니면 도구를 보통 def로 만드세요. 그러면 작업 스레드에서 돕니다.",
    },
    "lint.MCP050": {
        "en": "{param!r} looks like a secret; secrets passed as arguments go through the model, its "
        "context and logs.",
        "ko": "{param!r}은(는) 비밀 값으로 보입니다. 인자로 받은 비밀 값은 모델과 그 컨텍스트, 로그를 거쳐 갑니다.",
    },
    "lint.MCP050.fix": {
        "en": "Do not take it as input: read it on the server (an environment variable, a keyring, the "
        "notebook's own settings).",
        "ko": "입력으로 받지 말고 서버 쪽에서 읽으세요(환경 변수, 키링, 노트북 자체 설정).",
    },
    "lint.summary": {
        "en": "{tools} tools checked: {errors} errors, {warnings} warnings, {infos} notes.",
        "ko": "도구 {tools}개 검사: 오류 {errors}개, 경고 {warnings}개, 참고 {infos}개.",
    },
    "lint.notebook_failed": {
        "en": "Could not lint {path}: cell {cell} failed with {error}. Fix the cell, or tag it skip-lint "
        "(or start it with '# mcp: skip') if it should not run during lint.",
        "ko": "{path}을(를) 검사하지 못했습니다: {cell}번 셀이 {error} 오류로 실패했습니다. 셀을 고치거나, "
        "검사 중에 실행하면 안 되는 셀이면 skip-lint 태그를 달거나 첫 줄을 '# mcp: skip'으로 시작하세요.",
    },
    "lint.no_report": {
        "en": "Could not lint {path}: the kernel sent no lint report. Is mcp_notebook installed in the "
        "kernel's environment ({kernel})?",
        "ko": "{path}을(를) 검사하지 못했습니다: 커널이 검사 결과를 보내지 않았습니다. 커널 환경({kernel})에 "
        "mcp_notebook이 설치되어 있나요?",
    },
}

add_messages(MESSAGES)
