"""User-facing messages in English and Korean.

Every message the package shows a person lives here, under a stable key, in both languages.
The language is chosen once per process (`set_language`), from ``MCP_NOTEBOOK_LANG`` or the
locale; lessons switch to Korean explicitly so their outputs do not depend on the machine.
"""

from __future__ import annotations

import os
import re
import string
from typing import Any, Literal

Language = Literal["en", "ko"]

_MESSAGES: dict[str, dict[Language, str]] = {
    # -- tool definitions -------------------------------------------------------------------
    "name.invalid": {
        "en": (
            "Tool name {name!r} is not allowed: {why}. MCP tool names are 1-128 characters of "
            "A-Z, a-z, 0-9, '_', '-' and '.'. Rename the function or pass name='{suggestion}' to @tool."
        ),
        "ko": (
            "도구 이름 {name!r}은(는) 쓸 수 없습니다: {why}. MCP 도구 이름은 A-Z, a-z, 0-9, '_', '-', '.'로 "
            "이루어진 1~128자여야 합니다. 함수 이름을 바꾸거나 @tool에 name='{suggestion}'을 넘기세요."
        ),
    },
    "name.empty": {"en": "it is empty", "ko": "비어 있습니다"},
    "name.too_long": {"en": "it has {n} characters", "ko": "{n}자입니다"},
    "name.bad_chars": {"en": "it contains {chars}", "ko": "{chars} 문자가 들어 있습니다"},
    "type.unsupported": {
        "en": (
            "Parameter {param!r} of {func}() has type {type}, which has no JSON Schema equivalent. "
            "Use str, int, float, bool, list[...], dict[str, ...], Literal, Enum, a TypedDict, a dataclass "
            "or a pydantic model."
        ),
        "ko": (
            "{func}()의 매개변수 {param!r}의 타입 {type}은(는) JSON Schema로 바꿀 수 없습니다. "
            "str, int, float, bool, list[...], dict[str, ...], Literal, Enum, TypedDict, dataclass, "
            "pydantic 모델 중 하나를 쓰세요."
        ),
    },
    "param.varargs": {
        "en": "{func}() takes *{param}; a tool needs named parameters. Replace *{param} with a list parameter.",
        "ko": "{func}()가 *{param}을(를) 받습니다. 도구에는 이름 있는 매개변수가 필요합니다. list 매개변수로 바꾸세요.",
    },
    "param.varkw": {
        "en": "{func}() takes **{param}; a tool's inputs must be declared. Name each parameter explicitly.",
        "ko": "{func}()가 **{param}을(를) 받습니다. 도구의 입력은 모두 선언해야 합니다. 매개변수를 하나씩 적으세요.",
    },
    "param.positional_only": {
        "en": (
            "{func}() takes {param!r} as positional-only (before '/'); tools are called with named "
            "arguments. Remove the '/'."
        ),
        "ko": (
            "{func}()의 매개변수 {param!r}은(는) 위치 전용('/' 앞)입니다. "
            "도구는 이름 있는 인자로 호출되니 '/'를 지우세요."
        ),
    },
    "type.unsupported_inner": {
        "en": (
            "Parameter {param!r} of {func}() has type {type}, which contains {inner}; {inner} has no "
            "JSON Schema equivalent. Use str, int, float, bool, list[...], dict[str, ...], Literal, Enum, "
            "a TypedDict, a dataclass or a pydantic model there."
        ),
        "ko": (
            "{func}()의 매개변수 {param!r}의 타입 {type} 안에 있는 {inner}은(는) "
            "JSON Schema로 바꿀 수 없습니다. 그 자리에는 str, int, float, bool, list[...], "
            "dict[str, ...], Literal, Enum, TypedDict, dataclass, pydantic 모델 중 하나를 쓰세요."
        ),
    },
    "type.unsupported_bare": {
        "en": (
            "Type {type} has no JSON Schema equivalent. Use str, int, float, bool, list[...], "
            "dict[str, ...], Literal, Enum, a TypedDict, a dataclass or a pydantic model."
        ),
        "ko": (
            "타입 {type}은(는) JSON Schema로 바꿀 수 없습니다. str, int, float, bool, list[...], "
            "dict[str, ...], Literal, Enum, TypedDict, dataclass, pydantic 모델 중 하나를 쓰세요."
        ),
    },
    "type.unresolved": {
        "en": (
            "Could not resolve the type hints of {name}: {error}. Define or import every name its type "
            "hints use before defining it."
        ),
        "ko": (
            "{name}의 타입 힌트를 해석하지 못했습니다: {error}. "
            "타입 힌트에 쓰인 이름을 모두 먼저 정의하거나 import한 뒤에 정의하세요."
        ),
    },
    "tool.not_callable": {
        "en": "@tool needs a function, got {what}. Put @tool directly above a def.",
        "ko": "@tool에는 함수가 필요한데 {what}을(를) 받았습니다. @tool을 def 바로 위에 두세요.",
    },
    "tool.annotations_conflict": {
        "en": "Tool {name!r} is marked both read_only and destructive. A read-only tool changes nothing; drop one.",
        "ko": "도구 {name!r}에 read_only와 destructive가 함께 붙어 있습니다. 읽기 전용 도구는 아무것도 바꾸지 않으니 하나를 빼세요.",
    },
    "tool.bad_rate_limit": {
        "en": "rate_limit must be (calls, seconds) with at least 1 call in more than 0 s, e.g. (10, 60); got {value!r}.",
        "ko": "rate_limit은 (호출 수, 초) 형태여야 합니다(호출 1번 이상, 0초 초과). 예: (10, 60). 받은 값: {value!r}.",
    },
    "tool.bad_timeout": {
        "en": "timeout must be a number of seconds greater than 0, got {value!r}.",
        "ko": "timeout은 0보다 큰 초 단위 숫자여야 하는데 {value!r}을(를) 받았습니다.",
    },
    "call.timeout": {
        "en": "Tool {name!r} took longer than {seconds:g} s and was abandoned; nothing it returns later is used. Try a smaller request.",
        "ko": "도구 {name!r}이(가) {seconds:g}초 넘게 걸려 중단했습니다. 나중에 돌려주는 결과는 쓰지 않습니다. 더 작은 요청으로 다시 시도하세요.",
    },
    "call.stuck": {
        "en": (
            "{count} earlier calls of tool {name!r} are still running although nobody waits for them any "
            "more (its timeout: {timeout}). A running call cannot be stopped, only abandoned, and these "
            "hold worker threads other tools need, so new calls of {name!r} are refused until some of them "
            "finish. Wait, then call again; if this keeps happening, the tool hangs or its timeout is too "
            "short: the notebook's owner should fix the tool or its @tool(timeout=...)."
        ),
        "ko": (
            "도구 {name!r}의 이전 호출 {count}개가 이제 아무도 기다리지 않는데도 아직 실행 중입니다(제한 시간: "
            "{timeout}). 실행 중인 호출은 멈출 수 없고 버려 둘 수만 있는데, 이 호출들이 다른 도구에 필요한 작업 스레드를 쥐고 있어서 그중 "
            "일부가 끝날 때까지 {name!r}의 새 호출을 거절합니다. 기다렸다가 다시 호출하세요. 이런 일이 되풀이되면 "
            "도구가 멈춰 있거나 제한 시간이 너무 짧은 것이니, 노트북 주인이 도구나 @tool(timeout=...)을 고쳐야 합니다."
        ),
    },
    "call.seconds": {"en": "{seconds:g} s", "ko": "{seconds:g}초"},
    "tool.bad_approval": {
        "en": "approval must be 'always', 'never' or left out, got {value!r}.",
        "ko": "approval은 'always', 'never' 중 하나이거나 생략해야 하는데 {value!r}을(를) 받았습니다.",
    },
    "tool.bad_input_schema": {
        "en": (
            "The input_schema given for tool {name!r} cannot be used: {why}. Give a JSON Schema (2020-12) whose "
            'root is {{"type": "object", ...}}, with properties that match the function\'s parameters.'
        ),
        "ko": (
            '도구 {name!r}에 준 input_schema를 쓸 수 없습니다: {why}. 루트가 {{"type": "object", ...}}인 '
            "JSON Schema(2020-12)를 주고, 속성 이름은 함수의 매개변수와 맞추세요."
        ),
    },
    "tool.bad_output_schema": {
        "en": (
            "The output_schema given for tool {name!r} cannot be used: {why}. Give a JSON Schema whose root is "
            '{{"type": "object", ...}}, or output_schema=False for none.'
        ),
        "ko": (
            '도구 {name!r}에 준 output_schema를 쓸 수 없습니다: {why}. 루트가 {{"type": "object", ...}}인 '
            "JSON Schema를 주거나, 출력 스키마가 필요 없으면 output_schema=False를 넘기세요."
        ),
    },
    "tool.unknown_local": {
        "en": "There is no tool named {name!r}.{hint} Defined tools: {known}.",
        "ko": "{name!r}라는 도구가 없습니다.{hint} 정의된 도구: {known}.",
    },
    "did_you_mean": {"en": " Did you mean {names}?", "ko": " 혹시 {names}을(를) 찾으셨나요?"},
    "none": {"en": "(none)", "ko": "(없음)"},
    # -- tool calls (these texts reach the model) -------------------------------------------
    "call.unknown_tool": {
        "en": "Unknown tool: {name!r}.{hint} Call tools/list to see the available tools.",
        "ko": "알 수 없는 도구: {name!r}.{hint} tools/list로 사용할 수 있는 도구를 확인하세요.",
    },
    "call.invalid_arguments": {
        "en": "Invalid arguments for tool {name!r}:\n{problems}\nFix these arguments and call the tool again.",
        "ko": "도구 {name!r}의 인자가 올바르지 않습니다:\n{problems}\n이 인자들을 고쳐서 다시 호출하세요.",
    },
    "call.more_problems": {
        "en": "... and {count} more problems (fix these first, then call again to see the rest)",
        "ko": "... 그 밖에 문제 {count}개가 더 있습니다(먼저 위의 것을 고치고 다시 호출하면 나머지가 보입니다)",
    },
    "call.many_more_problems": {
        "en": "... and many more problems (fix these first, then call again to see the rest)",
        "ko": "... 그 밖에도 문제가 많습니다(먼저 위의 것을 고치고 다시 호출하면 나머지가 보입니다)",
    },
    "call.missing": {"en": "missing required argument {field!r}", "ko": "필수 인자 {field!r}이(가) 없습니다"},
    "call.unexpected": {
        "en": "unexpected argument {field!r} (this tool accepts: {allowed})",
        "ko": "예상하지 못한 인자 {field!r} (이 도구가 받는 인자: {allowed})",
    },
    "call.unexpected_field": {
        "en": "unexpected field {field!r} (allowed fields: {allowed})",
        "ko": "예상하지 못한 필드 {field!r} (허용되는 필드: {allowed})",
    },
    "call.not_object": {
        "en": "the arguments must be a JSON object of argument names and values, got {kind}: {value}",
        "ko": "인자는 인자 이름과 값으로 이루어진 JSON 객체여야 하는데 {kind} 값을 받았습니다: {value}",
    },
    "call.kernel_busy": {
        "en": (
            "The notebook kernel stayed busy for {seconds:g} s, so tool {name!r} could not run. "
            "Try again when the running cell has finished."
        ),
        "ko": "노트북 커널이 {seconds:g}초 동안 바빠서 도구 {name!r}을(를) 실행하지 못했습니다. 실행 중인 셀이 끝난 뒤 다시 시도하세요.",
    },
    "call.bad_output": {
        "en": "Tool {name!r} returned a value that does not match its output schema: {problems}",
        "ko": "도구 {name!r}이(가) 출력 스키마에 맞지 않는 값을 돌려주었습니다: {problems}",
    },
    # -- HTTP layer ---------------------------------------------------------------------------
    "http.unauthorized": {
        "en": (
            "Missing or wrong token. This mcp-notebook server needs its token: send the header "
            "'Authorization: Bearer <token>' or add '?token=<token>' to the URL. In the notebook the token "
            "is srv.token (or run %mcp_status); set MCP_NOTEBOOK_TOKEN before serving to choose it. A client "
            "with a token of its own gets it from srv.client_config(...) or srv.add_client(name), and needs it "
            "again after srv.revoke_client(name) or a server restart."
        ),
        "ko": (
            "토큰이 없거나 틀립니다. 이 mcp-notebook 서버에는 토큰이 필요합니다: 'Authorization: Bearer <토큰>' "
            "헤더를 보내거나 URL에 '?token=<토큰>'을 붙이세요. 노트북에서는 srv.token(또는 %mcp_status)으로 "
            "토큰을 볼 수 있고, 서버를 켜기 전에 MCP_NOTEBOOK_TOKEN을 설정하면 직접 정할 수 있습니다. 자기 토큰을 "
            "쓰는 클라이언트는 srv.client_config(...)나 srv.add_client(이름)에서 토큰을 받고, "
            "srv.revoke_client(이름)으로 내보냈거나 서버를 다시 켰다면 토큰을 다시 받아야 합니다."
        ),
    },
    # -- server lifecycle -----------------------------------------------------------------------
    "serve.port_in_use": {
        "en": "Port {port} on {host} is already in use, so the server could not start. Pick another port or use port=0 for a free one.",
        "ko": "{host}의 포트 {port}을(를) 이미 다른 프로그램이 쓰고 있어 서버를 시작하지 못했습니다. 다른 포트를 고르거나 port=0으로 빈 포트를 쓰세요.",
    },
    "serve.failed": {
        "en": "The MCP server could not start: {error}",
        "ko": "MCP 서버를 시작하지 못했습니다: {error}",
    },
    "serve.not_loopback": {
        "en": (
            "Serving on {host}, beyond this machine's loopback: anyone who can reach this address and knows the "
            "token can run the notebook's tools. Use the default host 127.0.0.1 unless you mean it."
        ),
        "ko": (
            "{host}에서 서비스합니다. 루프백 밖이므로 이 주소에 닿고 토큰을 아는 누구나 노트북의 도구를 실행할 수 "
            "있습니다. 의도한 것이 아니라면 기본 호스트 127.0.0.1을 쓰세요."
        ),
    },
    "serve.host_refused": {
        "en": "Refusing to serve on {host}: it is not a loopback address. Pass allow_remote=True (or --allow-remote) if you really mean it.",
        "ko": "{host}에서는 서비스하지 않습니다: 루프백 주소가 아닙니다. 정말 의도했다면 allow_remote=True(또는 --allow-remote)를 넘기세요.",
    },
    "serve.bad_run_in": {
        "en": "run_in must be 'thread' or 'kernel', got {value!r}.",
        "ko": "run_in은 'thread' 또는 'kernel'이어야 하는데 {value!r}을(를) 받았습니다.",
    },
    "serve.not_running": {
        "en": "No MCP server is running in this kernel. Start one with %mcp_serve (or mcp_notebook.serve()), or pass --url.",
        "ko": "이 커널에서 실행 중인 MCP 서버가 없습니다. %mcp_serve(또는 mcp_notebook.serve())로 시작하거나 --url을 넘기세요.",
    },
    "serve.status_running": {
        "en": "MCP server running at {url} ({tools} tools, run_in={run_in}). Token: srv.token",
        "ko": "MCP 서버 실행 중: {url} (도구 {tools}개, run_in={run_in}). 토큰: srv.token",
    },
    "serve.status_stopped": {"en": "MCP server stopped.", "ko": "MCP 서버가 멈췄습니다."},
    # -- client -------------------------------------------------------------------------------------
    "client.unreachable": {
        "en": "Could not connect to {target}: {error}. Check that the server is running and the URL is right.",
        "ko": "{target}에 연결하지 못했습니다: {error}. 서버가 실행 중인지, URL이 맞는지 확인하세요.",
    },
    "client.invalid_result": {
        "en": "{target} answered, but the answer breaks the protocol, so the client rejected it: {error}",
        "ko": "{target}이(가) 답했지만 프로토콜에 맞지 않아 클라이언트가 받지 않았습니다: {error}",
    },
    "client.timeout": {
        "en": "No answer from {target} within {seconds:g} s. The tool may still be running; raise timeout= or check the server.",
        "ko": "{target}에서 {seconds:g}초 안에 답이 없습니다. 도구가 아직 실행 중일 수 있습니다. timeout=을 늘리거나 서버를 확인하세요.",
    },
    "magic.bad_json": {
        "en": 'Could not read the arguments as JSON: {error}. Write %mcp_call NAME key=value ... or %mcp_call NAME {{"key": "value"}}.',
        "ko": '인자를 JSON으로 읽지 못했습니다: {error}. %mcp_call 이름 key=value ... 또는 %mcp_call 이름 {{"key": "value"}} 형태로 쓰세요.',
    },
    "magic.bad_pair": {
        "en": "{token!r} is not key=value. Write %mcp_call NAME key=value ... (or one JSON object).",
        "ko": "{token!r}은(는) key=value 형태가 아닙니다. %mcp_call 이름 key=value ...(또는 JSON 객체 하나)로 쓰세요.",
    },
    "magic.unknown_var": {
        "en": "${name} refers to no variable in this notebook. Define {name} first, or quote the value.",
        "ko": "${name}에 해당하는 변수가 이 노트북에 없습니다. 먼저 {name}을(를) 정의하거나 값을 따옴표로 감싸세요.",
    },
    # -- results display ----------------------------------------------------------------------------------
    "result.error_label": {
        "en": "Tool execution error (isError: true)",
        "ko": "도구 실행 오류 (isError: true)",
    },
    "result.ok_label": {"en": "Tool result", "ko": "도구 결과"},
}

_language: Language = "en"


def _initial_language() -> Language:
    for var in ("MCP_NOTEBOOK_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "ko" if value.lower().startswith("ko") else "en"
    return "en"


_language = _initial_language()


def set_language(language: Language) -> None:
    """Choose the language of messages: ``"ko"`` (한국어) or ``"en"`` (English)."""
    global _language
    if language not in ("en", "ko"):
        raise ValueError(f"language must be 'en' or 'ko', got {language!r}")
    _language = language


def get_language() -> Language:
    """The language messages are shown in now."""
    return _language


def t(key: str, /, **values: object) -> str:
    """The message `key` in the current language, filled with `values`.

    A Korean template picks a particle from the value it follows: ``{tool!r:을/를}`` (see
    `with_particle`).
    """
    template = _MESSAGES[key][_language]
    if template in _WITH_PARTICLES:
        return _PARTICLE_FORMATTER.format(template, **values)
    return template.format(**values)


def add_messages(messages: dict[str, dict[Language, str]]) -> None:
    """Register a module's own messages (each key once, in both languages).

    Modules keep the messages they own next to their code and register them at import; `t()`
    finds them all the same.
    """
    for key, texts in messages.items():
        if key in _MESSAGES and _MESSAGES[key] != texts:
            raise ValueError(f"message key {key!r} is already registered with other texts")
        if set(texts) != {"en", "ko"}:
            raise ValueError(f"message {key!r} needs both 'en' and 'ko'")
        _MESSAGES[key] = texts
        _WITH_PARTICLES.update(text for text in texts.values() if _PARTICLE_SPEC.search(text))


def all_keys() -> list[str]:
    """Every message key (tests check each has both languages)."""
    return list(_MESSAGES)


def both(key: str, /, **values: object) -> dict[Language, str]:
    """The message in both languages, for tests and for the lessons."""
    return {lang: _PARTICLE_FORMATTER.format(text, **values) for lang, text in _MESSAGES[key].items()}


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- Korean particles -------------------------------------------------------------------------------------
# A particle depends on whether the word before it ends in a consonant sound (a final, 받침): 책을 / 사과를.
# Runtime values (a client's name, a tool's name) are often Latin letters or digits, read aloud the Korean
# way: digits by their Korean names, acronyms letter by letter, words by their usual sound.
_DIGIT_FINAL = {"0": "ㅇ", "1": "ㄹ", "3": "ㅁ", "6": "ㄱ", "7": "ㄹ", "8": "ㄹ"}  # 영 일 삼 육 칠 팔
_ACRONYM_FINAL = {"L": "ㄹ", "M": "ㅁ", "N": "ㄴ", "R": "ㄹ"}  # 엘 엠 엔 알
_WORD_FINAL = {"l": "ㄹ", "m": "ㅁ", "n": "ㄴ", "b": "ㅂ", "p": "ㅂ", "k": "ㄱ", "c": "ㄱ", "t": "ㅅ"}
_PARTICLES = {
    "을/를": ("을", "를"),
    "이/가": ("이", "가"),
    "은/는": ("은", "는"),
    "과/와": ("과", "와"),
    "으로/로": ("으로", "로"),
    "이라고/라고": ("이라고", "라고"),
    "이라는/라는": ("이라는", "라는"),
}


_TAG = re.compile(r"<[^>]*>")
_TRAILING_ASIDE = re.compile(r"\s*\([^()]*\)\s*$")  # "철수(영희의 친구)가": the particle follows 철수


def _final(word: str) -> str | None:
    """The final consonant sound of `word` as read aloud in Korean (a jamo), or None if it ends in a vowel."""
    word = _TAG.sub("", word)  # markup around a name (<code>, <i>) is not read aloud
    while True:
        shorter = _TRAILING_ASIDE.sub("", word)
        if shorter == word or not shorter.strip():
            break
        word = shorter
    stripped = word.rstrip(" '\"`)]}>…·.,:;!?")
    if not stripped:
        return None
    last = stripped[-1]
    if "가" <= last <= "힣":
        index = (ord(last) - ord("가")) % 28
        return None if index == 0 else ("ㄹ" if index == 8 else "ㅇ")  # only ㄹ matters beyond yes/no
    if last.isdigit():
        return _DIGIT_FINAL.get(last)
    if not last.isascii() or not last.isalpha():
        return None
    if last.isupper() and (len(stripped) == 1 or stripped[-2].isupper() or not stripped[-2].isalpha()):
        return _ACRONYM_FINAL.get(last)  # GPT → 지피티, HTML → 에이치티엠엘
    tail = stripped.lower()
    if tail.endswith("ng"):
        return "ㅇ"
    return _WORD_FINAL.get(tail[-1])


class _ParticleFormatter(string.Formatter):
    """``{value:을/를}``: the value, then the particle that fits it."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec in _PARTICLES:
            return with_particle(format(value, ""), format_spec)
        return str(super().format_field(value, format_spec))


_PARTICLE_FORMATTER = _ParticleFormatter()
_PARTICLE_SPEC = re.compile(r"\{[^{}]*:(?:" + "|".join(re.escape(p) for p in _PARTICLES) + r")\}")
_WITH_PARTICLES: set[str] = set()  # the templates that use one (the others keep the fast str.format)


def with_particle(word: str, particle: str) -> str:
    """`word` followed by the Korean particle that fits it: ``with_particle("노트북", "이/가") == "노트북이"``.

    `particle` names the pair, consonant form first: ``"을/를"``, ``"이/가"``, ``"은/는"``, ``"과/와"``,
    ``"으로/로"``, ``"이라고/라고"`` or ``"이라는/라는"``. For words in Latin letters or digits the choice follows how they are
    read aloud (``"claude-code를"``, ``"notebook을"``, ``"GPT가"``, ``"student-7이"``): a best effort.
    """
    after_consonant, after_vowel = _PARTICLES[particle]
    final = _final(word)
    if particle == "으로/로":
        return word + (after_consonant if final not in (None, "ㄹ") else after_vowel)
    return word + (after_consonant if final is not None else after_vowel)


for _texts in _MESSAGES.values():
    _WITH_PARTICLES.update(text for text in _texts.values() if _PARTICLE_SPEC.search(text))
