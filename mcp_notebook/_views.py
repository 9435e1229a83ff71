"""What a client call returns, shown readably: text/plain for nbval and terminals, HTML for notebooks.

The rich widget views come later; these fallbacks are what GitHub, nbconvert and nbval see.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any

from ._text import add_messages, t

add_messages(
    {
        "result.resource_label": {"en": "Resource", "ko": "리소스"},
        "result.prompt_label": {"en": "Prompt", "ko": "프롬프트"},
    }
)


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


def _block_html(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":
        return f"<pre>{html.escape(block['text'])}</pre>"
    if kind == "image":
        return f'<img src="data:{block["mimeType"]};base64,{block["data"]}"/>'
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

    @property
    def text(self) -> str:
        """All text blocks, joined by newlines."""
        return "\n".join(block["text"] for block in self.content if block.get("type") == "text")

    def view(self) -> Any:
        """This result as a widget (images, players, JSON tree, "Read it"); its text/plain is unchanged."""
        from .widgets import ResultView

        return ResultView.of(self)

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

    @property
    def text(self) -> str:
        """All text contents, joined by newlines."""
        return "\n".join(item["text"] for item in self.contents if "text" in item)

    def view(self) -> Any:
        """This result as a widget (images, players, JSON tree, "Read it"); its text/plain is unchanged."""
        from .widgets import ResultView

        return ResultView.of(self)

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
            mime = item.get("mimeType", "")
            if "blob" in item and mime.startswith("image/"):
                parts.append(f'<img src="data:{mime};base64,{item["blob"]}"/>')
            else:
                body = item.get("text", "[blob]")
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

    def view(self) -> Any:
        """This result as a widget (images, players, JSON tree, "Read it"); its text/plain is unchanged."""
        from .widgets import ResultView

        return ResultView.of(self)

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
            parts.append(f"<div><b>{html.escape(message['role'])}</b>{_block_html(message['content'])}</div>")
        parts.append("</div>")
        return "".join(parts)
