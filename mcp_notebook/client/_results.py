"""What a client call returns, shown readably: text/plain for nbval and terminals, HTML for notebooks.

The rich widget views are in `mcp_notebook.widgets`; these fallbacks are what GitHub, nbconvert and
nbval see. A result may come from any server (``--url``, ``--stdio``), and such a server is
untrusted: every value it sent is escaped where it meets HTML, and media become an ``<img>`` only
with a plain ``image/*`` type and base64 data (`media_type`, `is_base64`), never markup of its making.
Each result keeps its `Origin`: what it links to is read from the server that sent it, never from
another one.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..core import _ui
from ..core._text import t
from ._target import Target

# A type and subtype of letters, digits and + . - only: nothing that can end an attribute or a URL part.
_MEDIA_TYPE = re.compile(r"(image|audio)/[a-z0-9][a-z0-9.+-]{0,126}")
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def media_type(value: Any, kinds: tuple[str, ...] = ("image", "audio")) -> str | None:
    """`value` as a media type safe to put into markup and a ``data:`` URL, or None.

    Only ``image/*`` / ``audio/*`` (as `kinds` allows) made of letters, digits and ``+.-``, compared
    in lower case. ``image/url`` is refused: ipywidgets reads that format as "load this address".
    """
    if not isinstance(value, str):
        return None
    lowered = value.strip().lower()
    if _MEDIA_TYPE.fullmatch(lowered) is None or lowered.partition("/")[2] == "url":
        return None
    return lowered if lowered.partition("/")[0] in kinds else None


# The server a result came from, reached again the same way: to read what the result links to. A
# ``resource_link`` names a URI the sending server chose. Read anywhere else (the notebook's own
# server, as the notebook), a hostile server could name the notebook's secrets and have a person
# believe they came from it; read where it came from, the server can only show what it could send anyway.
Origin = Target


def is_base64(data: Any) -> bool:
    """Whether `data` is base64 text and nothing else (the only thing allowed after ``;base64,``)."""
    return isinstance(data, str) and len(data) % 4 == 0 and _BASE64.fullmatch(data) is not None


def _block_lines(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":
        return str(block["text"])
    if kind in ("image", "audio"):
        return f"[{kind} {block.get('mimeType', '')}, {len(block.get('data', '')) * 3 // 4} bytes]"
    if kind == "resource_link":
        return f"[resource_link] {block.get('uri')} ({block.get('mimeType', '')})"
    if kind == "resource":
        inner = block.get("resource", {})
        return f"[resource {inner.get('uri')}]\n{inner.get('text', '[blob]')}"
    return f"[{kind}] {json.dumps(block, ensure_ascii=False)[:200]}"


def _image_html(mime: Any, data: Any) -> str | None:
    """An ``<img>`` for base64 `data` of an ``image/*`` type, or None when either is not safe to use."""
    safe = media_type(mime, ("image",))
    if safe is None or not is_base64(data):
        return None
    return f'<img src="data:{html.escape(safe)};base64,{data}"/>'


def _block_html(block: Any) -> str:
    if not isinstance(block, dict):
        return f"<pre>{html.escape(json.dumps(block, ensure_ascii=False, default=str)[:200])}</pre>"
    kind = block.get("type")
    if kind == "text":
        return f"<pre>{html.escape(str(block.get('text', '')))}</pre>"
    if kind == "image":
        image = _image_html(block.get("mimeType"), block.get("data"))
        if image is not None:
            return image
    return f"<pre>{html.escape(_block_lines(block))}</pre>"


@dataclass
class CallResult:
    """The result of a ``tools/call``: a tool result, possibly a tool execution error.

    Attributes
    ----------
    content:
        The content blocks as JSON dicts (``{"type": "text", "text": ...}``, images ...).
    structured_content:
        The ``structuredContent`` object, if the tool returned one.
    is_error:
        True for a tool execution error (the tool ran, or tried to, and reports a problem).
    """

    tool: str
    content: list[dict[str, Any]]
    structured_content: dict[str, Any] | None = None
    is_error: bool = False
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    origin: Origin | None = field(default=None, repr=False, compare=False)

    @property
    def text(self) -> str:
        """All text blocks, joined by newlines."""
        return "\n".join(block["text"] for block in self.content if block.get("type") == "text")

    def view(self) -> Any:
        """This result as a widget (images, players, JSON tree, "Read it"); its text/plain is unchanged."""
        return _ui.make("result_view", self)

    def __repr__(self) -> str:
        label = t("result.error_label") if self.is_error else t("result.ok_label")
        lines = [f"{label}: {self.tool}"]
        lines.extend(_block_lines(block) for block in self.content)
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        colour = "#b3261e" if self.is_error else "#1b6e3a"
        label = t("result.error_label") if self.is_error else t("result.ok_label")
        parts = [
            f'<div><b style="color:{colour}">{html.escape(label)}</b>: <code>{html.escape(self.tool)}</code>'
        ]
        parts.extend(_block_html(block) for block in self.content)
        parts.append("</div>")
        return "".join(parts)


@dataclass
class ReadResult:
    """The contents of a ``resources/read``: one or more text or blob items."""

    uri: str
    contents: list[dict[str, Any]]
    origin: Origin | None = field(default=None, repr=False, compare=False)

    @property
    def text(self) -> str:
        """All text contents, joined by newlines."""
        return "\n".join(item["text"] for item in self.contents if "text" in item)

    def view(self) -> Any:
        """This result as a widget (images, players, JSON tree, "Read it"); its text/plain is unchanged."""
        return _ui.make("result_view", self)

    def __repr__(self) -> str:
        lines = [f"{t('result.resource_label')}: {self.uri}"]
        for item in self.contents:
            mime = item.get("mimeType", "")
            body = item["text"] if "text" in item else f"[blob, {len(item.get('blob', '')) * 3 // 4} bytes]"
            lines.append(f"--- {mime}\n{body}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        parts = [
            f"<div><b>{html.escape(t('result.resource_label'))}</b>: <code>{html.escape(self.uri)}</code>"
        ]
        for item in self.contents:
            mime = str(item.get("mimeType", ""))
            image = _image_html(mime, item["blob"]) if "blob" in item else None
            if image is not None:
                parts.append(image)
            else:
                body = str(item.get("text", "[blob]"))
                parts.append(f"<div><i>{html.escape(mime)}</i><pre>{html.escape(body)}</pre></div>")
        parts.append("</div>")
        return "".join(parts)


@dataclass
class PromptResult:
    """The messages of a ``prompts/get``, ready to hand to a model."""

    name: str
    messages: list[dict[str, Any]]
    description: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    origin: Origin | None = field(default=None, repr=False, compare=False)

    def view(self) -> Any:
        """This result as a widget (images, players, JSON tree, "Read it"); its text/plain is unchanged."""
        return _ui.make("result_view", self)

    def __repr__(self) -> str:
        lines = [f"{t('result.prompt_label')}: {self.name}"]
        if self.description:
            lines.append(self.description)
        for message in self.messages:
            lines.append(f"[{message['role']}] {_block_lines(message['content'])}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        parts = [
            f"<div><b>{html.escape(t('result.prompt_label'))}</b>: <code>{html.escape(self.name)}</code>"
        ]
        for message in self.messages:
            role = html.escape(str(message.get("role", "?")))
            parts.append(f"<div><b>{role}</b>{_block_html(message.get('content'))}</div>")
        parts.append("</div>")
        return "".join(parts)
