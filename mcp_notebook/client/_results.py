"""What a client call returns, shown readably: text/plain for nbval and terminals, HTML for notebooks.

The rich widget views are in `mcp_notebook.widgets`; these fallbacks are what GitHub, nbconvert and
nbval see. A result may come from any server (``--url``, ``--stdio``), and such a server is
untrusted: every value it sent is escaped where it meets HTML, and media become an ``<img>`` only
with a plain ``image/*`` type and base64 data (`media_type`, `is_base64`), never markup of its making.
How each content block reads is its kind's (`core._kinds`): a kind added there reads here too.
Each result keeps its `Origin`: what it links to is read from the server that sent it, never from
another one.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from ..core import _ui
from ..core._kinds import block_html, describe_block, result_html, result_lines
from ..core._media import is_base64, media_type
from ..core._text import t
from ._apps import App
from ._target import Target

__all__ = ["App", "CallResult", "Origin", "PromptResult", "ReadResult", "app_line", "is_base64", "media_type"]


# The server a result came from, reached again the same way: to read what the result links to. A
# ``resource_link`` names a URI the sending server chose. Read anywhere else (the notebook's own
# server, as the notebook), a hostile server could name the notebook's secrets and have a person
# believe they came from it; read where it came from, the server can only show what it could send anyway.
Origin = Target


def _image_html(mime: Any, data: Any) -> str | None:
    """An ``<img>`` for base64 `data` of an ``image/*`` type, or None when either is not safe to use."""
    safe = media_type(mime, ("image",))
    if safe is None or not is_base64(data):
        return None
    return f'<img src="data:{html.escape(safe)};base64,{data}"/>'


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
    arguments:
        The arguments the tool was called with.
    app:
        The MCP App the tool is bound to (``_meta.ui.resourceUri``), read from the same server: the
        widget view shows the result in it, beside the plain result. None for a tool without one.
    from_app:
        The ``ui://`` app that asked for this call (approved by the person), or None.
    """

    tool: str
    content: list[dict[str, Any]]
    structured_content: dict[str, Any] | None = None
    is_error: bool = False
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    origin: Origin | None = field(default=None, repr=False, compare=False)
    arguments: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    app: App | None = field(default=None, repr=False, compare=False)
    from_app: str | None = field(default=None, compare=False)

    @property
    def text(self) -> str:
        """All text blocks, joined by newlines."""
        return "\n".join(block["text"] for block in self.content if block.get("type") == "text")

    def view(self) -> Any:
        """This result as a widget (images, players, JSON tree, "Read it", its app); its text/plain is unchanged."""
        return _ui.make("result_view", self)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        # A result bound to an app is its widget where widgets run; its text/plain stays this
        # result's, and IPython adds `_repr_html_` beside it (nbconvert, GitHub). Other results
        # keep their plain reprs.
        if self.app is None:
            return None
        bundle = self.view()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):  # ipywidgets cuts a widget's text/plain at 110 characters
            bundle["text/plain"] = self.__repr__()
        return bundle

    def __repr__(self) -> str:
        label = t("result.error_label") if self.is_error else t("result.ok_label")
        lines = [f"{label}: {self.tool}"]
        if self.from_app:
            lines.append(t("app.called_by", uri=self.from_app))
        lines.extend(describe_block(block) for block in self.content)
        lines.extend(result_lines(self.raw))
        if self.app is not None:
            lines.append(app_line(self.app))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        colour = "#b3261e" if self.is_error else "#1b6e3a"
        label = t("result.error_label") if self.is_error else t("result.ok_label")
        parts = [
            f'<div><b style="color:{colour}">{html.escape(label)}</b>: <code>{html.escape(self.tool)}</code>'
        ]
        if self.from_app:
            parts.append(f"<div><i>{html.escape(t('app.called_by', uri=self.from_app))}</i></div>")
        parts.extend(block_html(block) for block in self.content)
        parts.extend(result_html(self.raw))
        if self.app is not None:
            parts.append(f"<div><i>{html.escape(app_line(self.app))}</i></div>")
        parts.append("</div>")
        return "".join(parts)


def app_line(app: App) -> str:
    """The line that stands for an app where it cannot run (a terminal, nbconvert, nbval)."""
    if app.error is not None:
        return t("app.unreadable", uri=app.uri, error=app.error)
    return t("app.text_fallback", uri=app.uri)


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
            lines.append(f"[{message['role']}] {describe_block(message['content'])}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        parts = [
            f"<div><b>{html.escape(t('result.prompt_label'))}</b>: <code>{html.escape(self.name)}</code>"
        ]
        for message in self.messages:
            role = html.escape(str(message.get("role", "?")))
            parts.append(f"<div><b>{role}</b>{block_html(message.get('content'))}</div>")
        parts.append("</div>")
        return "".join(parts)
