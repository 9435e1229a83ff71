"""A request body that is not one well-formed JSON-RPC message, caught before the SDK sees it.

The SDK refuses such bodies in the handshake era with ``-32602`` and a pydantic dump of every
union branch it tried, and a ``tools/call`` whose ``arguments`` is not an object with a bare
"Invalid request parameters" in both eras. Neither says what to send instead. These answers keep
the JSON-RPC codes (``-32600`` Invalid Request for the envelope, ``-32602`` Invalid params for
the call) and say what is wrong and how to fix it, in English and Korean.
"""

from __future__ import annotations

from typing import Any

from ...core._text import clip, t

# What a JSON value that is not an object is called (``envelope.kind.*``).
_KINDS = {type(None): "null", bool: "bool", int: "number", float: "number", str: "string"}


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
        kind = t(f"envelope.kind.{_KINDS.get(type(message), 'other')}")
        return -32600, t("envelope.not_object", kind=kind), None
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
