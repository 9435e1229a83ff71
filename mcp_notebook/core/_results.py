"""Return values of tool functions → MCP tool results (wire JSON).

Pure: produces plain dicts in the shape of ``CallToolResult`` and imports neither `mcp` nor
plotting libraries. Values with a shape of their own (images, bytes, content objects, a kind a
notebook registered) are encoded by their kind (`core._kinds`); the rest is text or structured
content, here.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import json
import math
import uuid
from collections.abc import Mapping
from typing import Any

from ._arguments import argument_problems, compile_validator
from ._kinds import kind_of_value
from ._text import t

__all__ = ["error_result", "text_block", "to_jsonable", "to_result"]

# Exact builtin types that no kind is of (they are text and structured content): the common return
# values skip the kinds (a tool call's result is built on the server loop, so every µs counts).
_PLAIN = frozenset({int, float, bool, str, dict, type(None)})
# One encoder each, built once (json.dumps with options builds a new one per call).
_COMPACT = json.JSONEncoder(ensure_ascii=False)
_PRETTY = json.JSONEncoder(ensure_ascii=False, indent=2)


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def error_result(message: str) -> dict[str, Any]:
    """A tool execution error: the model reads `message` and can act on it."""
    return {"content": [text_block(message)], "isError": True}


def to_result(
    value: Any,
    *,
    output_schema: Mapping[str, Any] | None = None,
    wraps_output: bool = False,
    tool_name: str = "",
) -> dict[str, Any]:
    """Turn what a tool function returned into a ``CallToolResult`` dict.

    - a value of a registered kind (`core._kinds`) → what that kind encodes it as: PNG/JPEG/GIF
      bytes, a matplotlib ``Figure`` or a PIL image → an image block; other bytes → a blob; MCP
      content objects (or a list of them, or a whole ``CallToolResult``) pass through;
    - ``str`` → one text block;
    - anything JSON-like (dict, list, dataclass, TypedDict, pydantic model, numbers ...) →
      ``structuredContent`` plus the same JSON in a text block.

    With an output schema the structured content is checked against it; a value that does not
    conform becomes an error result instead of a response the client would reject.
    """
    if type(value) not in _PLAIN:
        kind = kind_of_value(value)
        if kind is not None and kind.encode is not None:
            return kind.encode(value)
    if value is None and output_schema is None:
        return {"content": [], "isError": False}
    if isinstance(value, str) and not wraps_output and output_schema is None:
        return {"content": [text_block(value)], "isError": False}

    data = to_jsonable(value)
    structured = {"result": data} if wraps_output or not isinstance(data, dict) else data
    if output_schema is not None:
        problems = argument_problems(compile_validator(output_schema), structured, output=True)
        if problems:
            return error_result(t("call.bad_output", name=tool_name, problems="; ".join(problems)))
    if isinstance(data, str):
        text = data
    else:
        # Pretty JSON for a person or a model to read; a number or a flag is the same either way.
        text = (_PRETTY if isinstance(data, dict | list) else _COMPACT).encode(data)
    return {"content": [text_block(text)], "structuredContent": structured, "isError": False}


def to_jsonable(value: Any) -> Any:
    """A JSON-compatible copy of `value` (dataclasses, pydantic models, numpy, pandas, dates ...)."""
    if isinstance(value, enum.Enum):  # before int/str: IntEnum and StrEnum members become plain values
        return to_jsonable(value.value)
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        # JSON has no NaN or infinity; null is the honest value a client can parse.
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = _stable_order(value) if isinstance(value, set | frozenset) else value
        return [to_jsonable(v) for v in items]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, _dt.datetime | _dt.date | _dt.time):
        return value.isoformat()
    if isinstance(value, uuid.UUID | _dt.timedelta):
        return str(value)
    if hasattr(value, "model_dump") and callable(value.model_dump):  # pydantic v2 model
        return to_jsonable(value.model_dump(mode="json"))
    if hasattr(value, "to_dict") and hasattr(value, "columns"):  # pandas DataFrame
        return to_jsonable(value.to_dict(orient="records"))
    if hasattr(value, "to_dict") and hasattr(value, "index"):  # pandas Series
        return to_jsonable(value.to_dict())
    if hasattr(value, "tolist"):  # numpy array or scalar
        return to_jsonable(value.tolist())
    return repr(value)


def _stable_order(items: set[Any] | frozenset[Any]) -> list[Any]:
    # A set has no order; give one that is the same on every run (numbers by value when possible).
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)
