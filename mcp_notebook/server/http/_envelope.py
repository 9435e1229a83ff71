"""A request body that is not one well-formed JSON-RPC message, caught before the SDK sees it.

The SDK refuses such bodies in the handshake era with ``-32602`` and a pydantic dump of every
union branch it tried, and a ``tools/call`` whose ``arguments`` is not an object with a bare
"Invalid request parameters" in both eras. Neither says what to send instead. These answers keep
the JSON-RPC codes (``-32600`` Invalid Request for the envelope, ``-32602`` Invalid params for
the call) and say what is wrong and how to fix it, in English and Korean.
"""

from __future__ import annotations

from typing import Any

from ...core._text import add_messages, clip, get_language, t

add_messages(
    {
        "envelope.batch": {
            "en": (
                "The body is a JSON array (a batch). MCP has no batches since 2025-06-18: send one JSON-RPC "
                "message per POST, a JSON object such as "
                '{{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}.'
            ),
            "ko": (
                "본문이 JSON 배열(배치)입니다. MCP는 2025-06-18부터 배치를 받지 않습니다. POST 하나에 JSON-RPC "
                '메시지 하나를, {{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}} 같은 JSON 객체로 보내세요.'
            ),
        },
        "envelope.not_object": {
            "en": (
                "The body is {kind}, not a JSON-RPC message. Send one JSON object such as "
                '{{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}.'
            ),
            "ko": (
                "본문이 {kind}(으)로, JSON-RPC 메시지가 아닙니다. "
                '{{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}} 같은 JSON 객체 하나를 보내세요.'
            ),
        },
        "envelope.not_a_message": {
            "en": (
                "The message is no JSON-RPC request, notification or response: a request needs "
                '"jsonrpc": "2.0", an "id" and a "method" (got the keys {keys}). Send an object such as '
                '{{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}.'
            ),
            "ko": (
                "메시지가 JSON-RPC 요청, 알림, 응답 중 어느 것도 아닙니다. 요청에는 "
                '"jsonrpc": "2.0", "id", "method"가 있어야 합니다(받은 키: {keys}). '
                '{{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}} 같은 객체를 보내세요.'
            ),
        },
        "envelope.bad_call": {
            "en": "tools/call needs {fix}; got {got}.",
            "ko": "tools/call에는 {fix}이(가) 필요합니다. 받은 값: {got}.",
        },
        "envelope.call_params": {
            "en": '"params" as a JSON object {{"name": ..., "arguments": {{...}}}}',
            "ko": '{{"name": ..., "arguments": {{...}}}} 모양의 JSON 객체 "params"',
        },
        "envelope.call_name": {
            "en": '"params.name", the tool\'s name as a string',
            "ko": '도구 이름을 문자열로 적은 "params.name"',
        },
        "envelope.call_arguments": {
            "en": '"params.arguments" as a JSON object of argument names to values, e.g. {{"a": 2, "b": 3}}',
            "ko": '인자 이름과 값을 짝지은 JSON 객체 "params.arguments"(예: {{"a": 2, "b": 3}})',
        },
    }
)

_KINDS = {
    type(None): ("null", "null"),
    bool: ("true or false", "true/false"),
    int: ("a number", "수"),
    float: ("a number", "수"),
    str: ("a string", "문자열"),
}


def not_a_message(message: Any) -> str:
    """What to say of a JSON object that is no JSON-RPC message (wrong keys or values)."""
    keys = ", ".join(repr(key) for key in message) if isinstance(message, dict) else "-"
    return t("envelope.not_a_message", keys=clip(keys, 80))


def envelope_problem(message: Any) -> tuple[int, str, Any] | None:
    """``(code, message, id)`` of the JSON-RPC error that answers `message`, or None if it may pass.

    Only shapes the SDK would answer unhelpfully are caught here; everything else (a wrong
    ``jsonrpc`` value, an unknown method ...) is left to the SDK, which answers those well.
    """
    if isinstance(message, list):
        return -32600, t("envelope.batch"), None
    if not isinstance(message, dict):
        english, korean = _KINDS.get(type(message), ("not an object", "객체가 아닌 값"))
        return -32600, t("envelope.not_object", kind=korean if get_language() == "ko" else english), None
    request_id = message.get("id")
    valid_id = isinstance(request_id, str | int) and not isinstance(request_id, bool)
    if message.get("method") != "tools/call" or not valid_id:
        return None  # a notification, or an id the SDK must refuse first: no answer can carry it
    params = message.get("params")
    if not isinstance(params, dict):
        fix, got = "envelope.call_params", params
    elif not isinstance(params.get("name"), str):
        fix, got = "envelope.call_name", params.get("name")
    elif params.get("arguments") is not None and not isinstance(params["arguments"], dict):
        fix, got = "envelope.call_arguments", params["arguments"]
    else:
        return None
    return -32602, t("envelope.bad_call", fix=t(fix), got=clip(repr(got), 80)), request_id
