"""What a question to the client and its answer look like on the wire (elicitation, sampling, roots).

Pure: no `mcp` import. `Context` (`_context.py`) asks; this module holds the shapes: the form schema
of an elicitation, the answers a client sends back (``inputResponses`` on 2026-07-28, results on
2025-11-25) as tool code gets them, and the server's own record inside a ``requestState`` (which the
SDK seals before it leaves).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ._text import add_messages, t

ELICIT = "elicitation/create"
SAMPLE = "sampling/createMessage"
ROOTS = "roots/list"
CAPABILITY = {ELICIT: "elicitation", SAMPLE: "sampling", ROOTS: "roots"}
KEY_PREFIX = {ELICIT: "elicit", SAMPLE: "sample", ROOTS: "roots"}

add_messages(
    {
        "context.bad_schema": {
            "en": "An elicitation schema is a JSON Schema object ({{'type': 'object', 'properties': ...}}) or "
            "a mapping of field names to types ({{'nights': int}}); got {what!r}.",
            "ko": "elicitation 스키마는 JSON Schema 객체({{'type': 'object', 'properties': ...}})이거나 필드 "
            "이름과 타입의 매핑({{'nights': int}})이어야 합니다. 받은 값: {what!r}",
        },
    }
)


@dataclass(frozen=True)
class Elicitation:
    """A person's answer to `Context.elicit`: ``action`` is accept, decline or cancel."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None

    @property
    def accepted(self) -> bool:
        return self.action == "accept"

    def get(self, field: str, default: Any = None) -> Any:
        """One field of the accepted form (``default`` if declined, cancelled or left empty)."""
        return (self.content or {}).get(field, default)


class InputRequired(BaseException):
    """Ends a 2026-07-28 round: the client must answer `requests`; `answers` so far ride the state."""

    def __init__(self, requests: dict[str, dict[str, Any]], answers: dict[str, Any]) -> None:
        super().__init__(sorted(requests))
        self.requests = requests
        self.answers = answers


class ProtocolRefusal(Exception):
    """The request cannot be served as asked (e.g. a client capability is missing): a protocol error."""

    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


UNANSWERED = object()


def parse_answer(method: str, raw: Any) -> Any:
    """A client's answer in the shape tool code gets, or `UNANSWERED` if it is not a valid answer."""
    if not isinstance(raw, Mapping):
        return UNANSWERED
    if method == ELICIT:
        action = raw.get("action")
        content = raw.get("content")
        if action not in ("accept", "decline", "cancel") or not (
            content is None or isinstance(content, Mapping)
        ):
            return UNANSWERED
        return Elicitation(action, dict(content) if content is not None else None)
    if method == SAMPLE:
        content = raw.get("content")
        blocks = content if isinstance(content, list) else [content]
        texts = [b.get("text") for b in blocks if isinstance(b, Mapping) and b.get("type") == "text"]
        if not blocks or not all(isinstance(text, str) for text in texts):
            return UNANSWERED
        return "".join(str(text) for text in texts)
    roots = raw.get("roots")
    if not isinstance(roots, list) or not all(isinstance(r, Mapping) and "uri" in r for r in roots):
        return UNANSWERED
    return [dict(r) for r in roots]


def form_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A requested schema: JSON Schema as given, or ``{"field": type}`` turned into one (all required)."""
    if not isinstance(schema, Mapping):
        raise TypeError(t("context.bad_schema", what=schema))
    if schema.get("type") == "object":
        return dict(schema)
    from ._schema import type_schema

    try:
        properties = {name: type_schema(tp) for name, tp in schema.items()}
    except Exception:
        raise TypeError(t("context.bad_schema", what=dict(schema))) from None
    return {"type": "object", "properties": properties, "required": list(properties)}


def state_of(plaintext: Any) -> dict[str, Any]:
    """The server's own record inside a (verified, unsealed) ``requestState``; ``{}`` if none."""
    if not isinstance(plaintext, str):
        return {}
    try:
        state = json.loads(plaintext)
    except ValueError:
        return {}
    return state if isinstance(state, dict) and state.get("v") == 1 else {}


def new_state(answers: Mapping[str, Any], *, approved: bool) -> str:
    """The plaintext ``requestState`` of the next round (the SDK seals it before it leaves)."""
    return json.dumps({"v": 1, "answers": dict(answers), "approved": approved}, separators=(",", ":"))
