"""The exercise kit's own messages, and how lesson texts get into the message catalogue.

Every text a learner sees exists in Korean and English and goes through `mcp_notebook.core._text`,
so `set_language` switches the lessons too. Kit messages (statuses, feedback frames) have
``{fields}``; lesson texts (questions, hints, model answers) are literal and may contain code
with braces, so `register_literal` escapes them before registering.
"""

from __future__ import annotations

from ..core._text import Language, add_messages, all_keys

Text = tuple[str, str]
"""A lesson text as ``(한국어, English)``."""


def register(messages: dict[str, dict[Language, str]]) -> None:
    """Register messages whose keys are not registered yet (a reimported module is harmless)."""
    known = set(all_keys())
    fresh = {key: texts for key, texts in messages.items() if key not in known}
    if fresh:
        add_messages(fresh)


def register_literal(prefix: str, texts: dict[str, Text]) -> None:
    """Register literal ``(ko, en)`` texts under ``prefix.key``; braces are kept as written."""
    register({f"{prefix}.{key}": {"ko": _escape(ko), "en": _escape(en)} for key, (ko, en) in texts.items()})


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


KIT: dict[str, dict[Language, str]] = {
    # -- labels and states ------------------------------------------------------------------------
    "lessons.label": {"ko": "{chapter}장 · 문제 {number}", "en": "Chapter {chapter} · exercise {number}"},
    "lessons.status.not_attempted": {"ko": "아직 시도하지 않았습니다", "en": "not attempted yet"},
    "lessons.status.incorrect": {
        "ko": "아직 맞히지 못했습니다 (시도 {attempts}번)",
        "en": "not solved yet ({attempts} attempts)",
    },
    "lessons.status.correct": {"ko": "정답입니다", "en": "solved"},
    "lessons.how_to_answer": {"ko": "답 쓰는 법", "en": "How to answer"},
    "lessons.commands": {
        "ko": "{name}.check()로 채점 · {name}.hint()로 힌트 · {name}.solution()으로 모범 답안",
        "en": "{name}.check() to check · {name}.hint() for a hint · {name}.solution() for the model answer",
    },
    # -- check --------------------------------------------------------------------------------------
    "lessons.check.not_attempted": {
        "ko": "아직 시도하지 않았습니다. {how}",
        "en": "Not attempted yet. {how}",
    },
    "lessons.check.how_variable": {
        "ko": "{variable}에 답을 쓰고 {name}.check()를 다시 실행하세요.",
        "en": "Write your answer in {variable} and run {name}.check() again.",
    },
    "lessons.check.correct": {"ko": "정답입니다!", "en": "Correct!"},
    "lessons.check.incorrect": {"ko": "아직 아닙니다.", "en": "Not yet."},
    "lessons.check.more_help": {
        "ko": "막히면 {name}.hint()로 힌트를 하나씩 볼 수 있습니다.",
        "en": "Stuck? {name}.hint() shows one hint at a time.",
    },
    "lessons.check.score": {
        "ko": "{total}개 중 {right}개를 맞혔습니다.",
        "en": "{right} of {total} right.",
    },
    # -- hints and solutions ------------------------------------------------------------------------
    "lessons.hint.heading": {"ko": "힌트 {n}/{total}", "en": "Hint {n}/{total}"},
    "lessons.hint.none_left": {
        "ko": "더 이상 힌트가 없습니다(힌트 {total}개를 모두 보았습니다). {name}.solution()으로 모범 답안을 볼 수 있습니다.",
        "en": "No more hints (you have seen all {total}). {name}.solution() shows the model answer.",
    },
    "lessons.solution.heading": {"ko": "모범 답안", "en": "Model answer"},
    "lessons.solution.why": {"ko": "설명", "en": "Why"},
    # -- answers that are dicts of items (classification) -----------------------------------------
    "lessons.items.not_a_dict": {
        "ko": "답은 항목 이름을 키로 하는 dict여야 하는데 {kind} 값을 받았습니다. {name}을(를) 출력해서 틀을 확인하세요.",
        "en": "The answer must be a dict keyed by item name, got a {kind}. Print {name} to see the template.",
    },
    "lessons.items.unknown": {
        "ko": "알 수 없는 항목 {item!r}이(가) 있습니다. 항목 이름은 {known}입니다.",
        "en": "Unknown item {item!r}. The items are {known}.",
    },
    "lessons.items.missing": {
        "ko": "아직 답하지 않은 항목: {items}",
        "en": "Items without an answer yet: {items}",
    },
    "lessons.items.unreadable": {
        "ko": "{item!r}의 답 {given!r}을(를) 알아볼 수 없습니다. 쓸 수 있는 답: {choices}",
        "en": "Cannot read the answer {given!r} for {item!r}. Possible answers: {choices}",
    },
    "lessons.items.wrong": {
        "ko": "{item!r}: {given}(으)로 골랐습니다. {meaning} 이 상황이 정말 그런지 다시 보세요.",
        "en": "{item!r}: you chose {given}. {meaning} Is that really what happens here?",
    },
    "lessons.items.choices": {"ko": "쓸 수 있는 답: {choices}", "en": "Possible answers: {choices}"},
    # -- multiple choice and short answers ----------------------------------------------------------
    "lessons.choice.unreadable": {
        "ko": '{given!r}은(는) 보기에 없습니다. {letters} 중 하나를 문자열로 쓰세요. 예: "{first}"',
        "en": '{given!r} is not one of the options. Write one of {letters} as a string, e.g. "{first}".',
    },
    "lessons.choice.template": {"ko": "{letters} 중 하나", "en": "one of {letters}"},
    "lessons.short.template": {"ko": "따옴표로 감싼 짧은 답", "en": "a short answer in quotes"},
    "lessons.short.not_text": {
        "ko": "답은 문자열이어야 하는데 {kind} 값을 받았습니다. 따옴표로 감싸 쓰세요.",
        "en": "The answer must be a string, got a {kind}. Put it in quotes.",
    },
    "lessons.short.wrong": {
        "ko": "{given!r}은(는) 기대한 답이 아닙니다.",
        "en": "{given!r} is not the expected answer.",
    },
    # -- "write a tool" exercises -------------------------------------------------------------------
    "lessons.tool.how": {
        "ko": "@tool을 붙인 함수 {tool}을(를) 정의하는 셀을 실행한 뒤 {name}.check()를 다시 실행하세요.",
        "en": "Run a cell that defines the function {tool} with @tool, then run {name}.check() again.",
    },
    "lessons.tool.checked_via": {
        "ko": "채점기는 커널 안의 MCP 서버를 거쳐 tools/list와 tools/call로 도구를 확인했습니다 (호출 {calls}번).",
        "en": "The checker went through the in-kernel MCP server: tools/list and tools/call ({calls} calls).",
    },
    "lessons.tool.not_a_tool": {
        "ko": "{tool}() 함수는 있지만 도구로 등록되지 않았습니다. def 바로 위에 @tool을 붙이고 셀을 다시 실행하세요.",
        "en": "There is a function {tool}() but it is not a tool. Put @tool right above the def and run the cell again.",
    },
    "lessons.tool.wrong_name": {
        "ko": "이 도구의 이름은 {given!r}입니다. 채점기는 {tool!r}을(를) 찾습니다: 함수 이름을 바꾸거나 @tool(name={tool!r})을 쓰세요.",
        "en": "This tool is called {given!r}; the checker looks for {tool!r}. Rename the function or use @tool(name={tool!r}).",
    },
    "lessons.tool.not_listed": {
        "ko": "서버의 tools/list에 {tool!r}이(가) 없습니다. 도구를 정의한 셀을 다시 실행해 보세요.",
        "en": "The server's tools/list does not show {tool!r}. Run the cell defining the tool again.",
    },
    "lessons.tool.no_description": {
        "ko": "설명(description)이 없거나 너무 짧습니다({length}자). 모델은 설명을 읽고 도구를 고릅니다: 무엇을 하고 언제 쓰는지 docstring에 {minimum}자 이상으로 쓰세요.",
        "en": "The description is missing or too short ({length} characters). Models pick tools by their description: say what it does and when to use it, in a docstring of at least {minimum} characters.",
    },
    "lessons.tool.no_param": {
        "ko": "inputSchema에 매개변수 {param!r}이(가) 없습니다. 함수가 {param}을(를) 받게 하세요.",
        "en": "The inputSchema has no parameter {param!r}. Make the function take {param}.",
    },
    "lessons.tool.param_type": {
        "ko": "매개변수 {param!r}의 JSON 타입이 {actual}입니다. {expected}이어야 합니다: 타입 힌트를 확인하세요.",
        "en": "Parameter {param!r} has JSON type {actual}; it should be {expected}. Check its type hint.",
    },
    "lessons.tool.param_untyped": {
        "ko": "매개변수 {param!r}에 타입이 없어서 모델이 아무 값이나 보낼 수 있습니다. {expected} 타입이 되도록 타입 힌트를 붙이세요.",
        "en": "Parameter {param!r} has no type, so a model may send anything. Give it a type hint that makes it {expected}.",
    },
    "lessons.tool.not_required": {
        "ko": "매개변수 {param!r}이(가) 필수가 아닙니다. 꼭 받아야 하는 값이니 기본값을 지우세요.",
        "en": "Parameter {param!r} is not required. The tool cannot work without it: remove its default.",
    },
    "lessons.tool.no_enum": {
        "ko": "매개변수 {param!r}에 enum(허용 값 목록)이 없습니다. 모델이 {values} 말고 다른 값을 보내지 못하도록 타입 힌트로 허용 값을 못박으세요.",
        "en": "Parameter {param!r} has no enum. Pin the allowed values in its type hint, so a model cannot send anything but {values}.",
    },
    "lessons.tool.wrong_enum": {
        "ko": "매개변수 {param!r}의 enum이 {actual}입니다. 정확히 {expected}여야 합니다.",
        "en": "Parameter {param!r} has enum {actual}; it should be exactly {expected}.",
    },
    "lessons.tool.no_output_schema": {
        "ko": "outputSchema가 없습니다. 반환 타입 힌트를 붙이면(예: -> dict) 서버가 outputSchema를 만들고 structuredContent를 돌려줍니다.",
        "en": "There is no outputSchema. A return type hint (e.g. -> dict) gives the tool one, and its results then carry structuredContent.",
    },
    "lessons.tool.annotation": {
        "ko": "annotations의 {hint}가 {expected}가 아닙니다(지금: {actual}). @tool의 옵션으로 이 힌트를 붙이세요.",
        "en": "annotations.{hint} is not {expected} (now: {actual}). Set it with an option of @tool.",
    },
    "lessons.tool.call_error": {
        "ko": "{call} 호출이 도구 실행 오류를 돌려주었습니다: {text}",
        "en": "Calling {call} returned a tool execution error: {text}",
    },
    "lessons.tool.protocol_error": {
        "ko": "{call} 호출이 프로토콜 오류가 되었습니다: {error}",
        "en": "Calling {call} gave a protocol error: {error}",
    },
    "lessons.tool.unreachable": {
        "ko": "{call} 호출이 서버에 닿지 못했습니다: {error}",
        "en": "Calling {call} did not reach the server: {error}",
    },
    "lessons.tool.wrong_result": {
        "ko": "{call} 호출의 결과가 기대와 다릅니다: {got}",
        "en": "Calling {call} did not give the expected result: {got}",
    },
    "lessons.tool.should_fail": {
        "ko": "{call} 호출이 성공했습니다(결과: {got}). 이 호출은 isError: true로 거절되어야 합니다.",
        "en": "Calling {call} succeeded (result: {got}). It should be refused with isError: true.",
    },
    "lessons.tool.error_should_name": {
        "ko": "{call} 호출은 거절되었지만 오류 메시지에 {field!r}이(가) 없습니다. 모델이 고칠 수 있게 어느 값이 틀렸는지 알려 주세요.",
        "en": "Calling {call} was refused, but the message does not mention {field!r}. Say which value was wrong, so the model can fix it.",
    },
}

register(KIT)
