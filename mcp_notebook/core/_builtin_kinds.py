"""The content kinds this package knows, one entry each, in the order a tool's return value is tried.

`core._kinds` registers them and says what each field does. Their views are registered by
`mcp_notebook.widgets`. A tool returning a plain ``str``, ``None`` or JSON-like data needs no kind:
`core._results.to_result` makes text and structured content of it.
"""

from __future__ import annotations

import base64
import html
import sys
from collections.abc import Mapping
from typing import Any

from ._content_kind import Block, ContentKind
from ._media import image_block, is_base64, is_image, media_type

# The content block types of the protocol: an SDK object of another type is data, not content.
_SDK_CONTENT_TYPES = frozenset({"text", "image", "audio", "resource_link", "resource"})

# ipywidgets shows an Image or Audio from a blob: URL of the notebook page's origin. Opened in a tab
# of its own ("Open image in new tab", or dragged to the tab bar), an SVG there is a document whose
# script runs as the Jupyter page, with its cookies and its kernels. Only these subtypes, which a
# browser only draws or plays, get that URL; every other one (SVG, any +xml, a type not known here)
# is an <img> / <audio> with a data: URL, whose origin is opaque: even opened alone, it reaches nothing.
_IMAGE_BLOB_SAFE = frozenset({"png", "jpeg", "jpg", "pjpeg", "gif", "webp", "bmp", "avif", "apng", "x-icon"})
_AUDIO_BLOB_SAFE = frozenset(
    {"wav", "wave", "x-wav", "mpeg", "mp3", "mp4", "aac", "ogg", "opus", "webm", "flac"}
)


def _content(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"content": list(blocks), "isError": False}


def _has_result_hook(value: Any) -> bool:
    return getattr(type(value), "__mcp_result__", None) is not None


def _own_result(value: Any) -> dict[str, Any]:
    # Helpers such as BatchResult know their own result shape.
    shaped: dict[str, Any] = type(value).__mcp_result__(value)
    return shaped


def _is_sdk_content(value: Any) -> bool:
    """A ``CallToolResult`` or content objects of the `mcp` SDK (one, or a list of them)."""
    types_module = sys.modules.get("mcp_types")
    if types_module is None:
        return False
    if isinstance(value, types_module.CallToolResult):
        return True
    from pydantic import BaseModel  # present whenever mcp_types is: the SDK's types are pydantic models

    items = value if isinstance(value, list) and value else [value]
    # Only the SDK's own classes: a user's model with a `type` field is data, not a content block.
    return all(
        isinstance(v, BaseModel)
        and type(v).__module__.startswith("mcp_types")
        and getattr(v, "type", None) in _SDK_CONTENT_TYPES
        for v in items
    )


def _sdk_result(value: Any) -> dict[str, Any]:
    def dump(obj: Any) -> dict[str, Any]:
        result: dict[str, Any] = obj.model_dump(by_alias=True, mode="json", exclude_none=True)
        return result

    if isinstance(value, sys.modules["mcp_types"].CallToolResult):  # imported: `_is_sdk_content` saw it
        result = dump(value)
        result.setdefault("isError", False)
        return result
    return _content(*(dump(v) for v in (value if isinstance(value, list) else [value])))


def _image_result(value: Any) -> dict[str, Any]:
    block = image_block(value)
    return _content(block) if block is not None else _content()


def _blob_result(value: Any) -> dict[str, Any]:
    blob = base64.b64encode(bytes(value)).decode("ascii")
    resource = {"uri": "data:application/octet-stream", "mimeType": "application/octet-stream", "blob": blob}
    return _content({"type": "resource", "resource": resource})


def _text(block: Block) -> str:
    return str(block.get("text", ""))


def _text_html(block: Block) -> str:
    return f"<pre>{html.escape(_text(block))}</pre>"


def _media_line(block: Block) -> str:
    return f"[{block.get('type')} {block.get('mimeType', '')}, {len(block.get('data', '')) * 3 // 4} bytes]"


def _image_html(block: Block) -> str:
    """An ``<img>`` only for base64 data of a plain ``image/*`` type: never markup a server made."""
    safe, data = media_type(block.get("mimeType"), ("image",)), block.get("data")
    if safe is None or not is_base64(data):
        return f"<pre>{html.escape(_media_line(block))}</pre>"
    return f'<img src="data:{html.escape(safe)};base64,{data}"/>'


def _link_line(block: Block) -> str:
    return f"[resource_link] {block.get('uri')} ({block.get('mimeType', '')})"


def _resource_line(block: Block) -> str:
    inner = block.get("resource")
    inner = inner if isinstance(inner, Mapping) else {}
    return f"[resource {inner.get('uri')}]\n{inner.get('text', '[blob]')}"


BUILT_IN = (
    ContentKind("own_result", detect=_has_result_hook, encode=_own_result),
    ContentKind("sdk_content", detect=_is_sdk_content, encode=_sdk_result),
    ContentKind("text", wire="text", describe=_text, html=_text_html, text_at=("text",)),
    ContentKind(
        "image",
        detect=is_image,  # PNG/JPEG/GIF/WebP bytes, a matplotlib Figure, a PIL image
        encode=_image_result,
        wire="image",
        describe=_media_line,
        html=_image_html,
        media="image",
        blob_safe=_IMAGE_BLOB_SAFE,
    ),
    ContentKind("audio", wire="audio", describe=_media_line, media="audio", blob_safe=_AUDIO_BLOB_SAFE),
    ContentKind("resource_link", wire="resource_link", describe=_link_line),
    ContentKind(
        "resource",
        types=(bytes, bytearray),  # other bytes than images: a blob
        encode=_blob_result,
        wire="resource",
        describe=_resource_line,
        text_at=("resource", "text"),
    ),
)
