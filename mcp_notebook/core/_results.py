"""Return values of tool functions → MCP tool results (wire JSON).

Pure: produces plain dicts in the shape of ``CallToolResult`` and imports neither `mcp` nor
plotting libraries (figures and images are recognised by what they can do).
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as _dt
import enum
import io
import json
import math
import sys
import uuid
from collections.abc import Mapping
from typing import Any

from ._arguments import argument_problems, compile_validator
from ._text import t

_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
_CONTENT_TYPES = frozenset({"text", "image", "audio", "resource_link", "resource"})
# Exact builtin types that can be neither an MCP content object nor an image: the common return
# values skip those checks (a tool call's result is built on the server loop, so every µs counts).
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

    - ``str`` → one text block;
    - PNG/JPEG/GIF bytes, a matplotlib ``Figure`` or a PIL image → an image block;
    - MCP content objects (or a list of them, or a whole ``CallToolResult``) pass through;
    - anything JSON-like (dict, list, dataclass, TypedDict, pydantic model, numbers ...) →
      ``structuredContent`` plus the same JSON in a text block.

    With an output schema the structured content is checked against it; a value that does not
    conform becomes an error result instead of a response the client would reject.
    """
    if type(value) not in _PLAIN:
        special = _special_result(value)
        if special is not None:
            return special
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


def _special_result(value: Any) -> dict[str, Any] | None:
    """The result of a value with a shape of its own (content objects, images, bytes), else None."""
    hook = getattr(type(value), "__mcp_result__", None)
    if hook is not None:  # helpers such as BatchResult know their own result shape
        shaped: dict[str, Any] = hook(value)
        return shaped
    passthrough = _mcp_passthrough(value)
    if passthrough is not None:
        return passthrough
    image = image_block(value)
    if image is not None:
        return {"content": [image], "isError": False}
    if isinstance(value, bytes | bytearray):
        blob = base64.b64encode(bytes(value)).decode("ascii")
        resource = {
            "uri": "data:application/octet-stream",
            "mimeType": "application/octet-stream",
            "blob": blob,
        }
        return {"content": [{"type": "resource", "resource": resource}], "isError": False}
    return None


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


def image_block(value: Any) -> dict[str, Any] | None:
    data: bytes | None = None
    mime = "image/png"
    if isinstance(value, bytes | bytearray):
        for magic, kind in _IMAGE_MAGIC:
            if bytes(value[: len(magic)]) == magic:
                data, mime = bytes(value), kind
                break
        else:
            if value[:4] == b"RIFF" and value[8:12] == b"WEBP":
                data, mime = bytes(value), "image/webp"
    elif hasattr(value, "savefig") and hasattr(value, "canvas"):  # matplotlib Figure
        data = _figure_png(value)
    elif hasattr(value, "save") and hasattr(value, "mode") and hasattr(value, "size"):  # PIL image
        buffer = io.BytesIO()
        value.save(buffer, format="PNG")
        data = buffer.getvalue()
    if data is None:
        return None
    return {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime}


def _figure_png(figure: Any) -> bytes:
    """The figure as PNG, and the figure closed: it was made to be sent, not to stay open.

    An open pyplot figure made by a tool is a leak (pyplot keeps every figure until it is closed)
    and, under the inline backend, shows up at the end of whatever cell runs next. Closed through
    pyplot only when something already imported it: importing it here would pick a backend.

    No ``bbox_inches="tight"``: it draws the figure twice (once to measure, once to save), which
    doubled the cost of every figure result (bench/bench_figures.py). The figure keeps the margins
    its author gave it; ``layout="constrained"`` or ``fig.tight_layout()`` trims them once, where
    the figure is made.
    """
    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png")
    finally:
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is not None:
            pyplot.close(figure)
    return buffer.getvalue()


def _mcp_passthrough(value: Any) -> dict[str, Any] | None:
    """Content objects of the `mcp` SDK, passed through as they are."""
    types_module = sys.modules.get("mcp_types")
    if types_module is None:
        return None
    from pydantic import BaseModel  # present whenever mcp_types is: the SDK's types are pydantic models

    def dump(obj: Any) -> dict[str, Any]:
        result: dict[str, Any] = obj.model_dump(by_alias=True, mode="json", exclude_none=True)
        return result

    if isinstance(value, types_module.CallToolResult):
        result = dump(value)
        result.setdefault("isError", False)
        return result
    items = value if isinstance(value, list) and value else [value]
    # Only the SDK's own classes: a user's model with a `type` field is data, not a content block.
    if all(
        isinstance(v, BaseModel)
        and type(v).__module__.startswith("mcp_types")
        and getattr(v, "type", None) in _CONTENT_TYPES
        for v in items
    ):
        return {"content": [dump(v) for v in items], "isError": False}
    return None
