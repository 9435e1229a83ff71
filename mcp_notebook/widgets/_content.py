"""Content blocks and structured content as widgets: the leaves `ResultView` is made of.

Image (an Image), audio (a player), embedded resource, and JSON as a collapsible tree or, for a
list of records, a table. (A resource_link, which reads and shows another result, is in `_result`.)

Results may come from an untrusted server: every value goes into HTML through `esc`, media widgets
get only a checked ``image/*`` / ``audio/*`` type (`media_type`), and a URI is shown, never linked.
Only subtypes a browser can do nothing but draw or play become blob widgets; the rest (SVG above
all) are shown from a ``data:`` URL, whose origin is not the notebook's (each media kind's
`blob_safe`, in `core._builtin_kinds`).
"""

from __future__ import annotations

import base64
import binascii
import html
import json
from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as widgets

from ..core._kinds import Block, ViewContext, blob_safe, media_kinds
from ..core._media import media_type
from ..core._text import t

MAX_ITEMS = 200  # per JSON container and per table: a huge result must not freeze the browser
MAX_DEPTH = 40
Reader = Callable[[str], Any]
PRE = "<pre style='white-space:pre-wrap;margin:0'>{}</pre>"


def esc(value: Any) -> str:
    """`value` as text safe inside HTML elements and quoted attributes."""
    return html.escape(str(value), quote=True)


def media_widget(kind: str, mime: str, data: str) -> widgets.Widget:
    """An Image or an Audio player for base64 `data`, or a note saying why it cannot be shown."""
    safe = media_type(mime, (kind,))
    if safe is None:
        size = f"{len(data) * 3 // 4:,}"
        return widgets.HTML(f"<i>{esc(t('view.not_media', kind=kind, mime=repr(mime[:100]), size=size))}</i>")
    mime = safe
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        return widgets.HTML(f"<i>{esc(t('view.bad_data', kind=kind, error=exc))}</i>")
    fmt = mime.partition("/")[2] or ("png" if kind == "image" else "wav")
    if fmt not in blob_safe(kind):
        # data is base64 (decoded above) and mime is letters, digits and +.- only: nothing can
        # leave the attribute.
        source = f"data:{mime};base64,{base64.b64encode(raw).decode('ascii')}"
        if kind == "image":
            return widgets.HTML(f'<img src="{esc(source)}" style="max-width:100%"/>')
        return widgets.HTML(f'<audio controls preload="none" src="{esc(source)}"></audio>')
    if kind == "image":
        return widgets.Image(value=raw, format=fmt)
    return widgets.Audio(value=raw, format=fmt, autoplay=False, loop=False, controls=True)


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _tree_html(value: Any, label: str, depth: int) -> str:
    if isinstance(value, dict | list) and value and depth < MAX_DEPTH:
        pairs = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        count = t("view.keys" if isinstance(value, dict) else "view.items", count=len(value))
        brackets = "{…}" if isinstance(value, dict) else "[…]"
        inner = "".join(
            _tree_html(item, f"<b>{esc(key)}</b>: ", depth + 1) for key, item in pairs[:MAX_ITEMS]
        )
        if len(pairs) > MAX_ITEMS:
            inner += f"<div><i>{esc(t('view.more', count=len(pairs) - MAX_ITEMS))}</i></div>"
        opened = " open" if depth < 2 else ""
        return (
            f"<details{opened}><summary>{label}{brackets} <i>{esc(count)}</i></summary>"
            f"<div style='margin-left:1.4em'>{inner}</div></details>"
        )
    shown = json.dumps(value, ensure_ascii=False)
    return f"<div>{label}<code>{esc(shown)}</code></div>"


class JsonTree(widgets.HTML):
    """Any JSON value as nested, collapsible ``<details>`` (two levels open)."""

    def __init__(self, value: Any, title: str = "") -> None:
        self.data = value
        label = f"<b>{esc(title)}</b> " if title else ""
        super().__init__(_tree_html(value, label, 0))

    def __repr__(self) -> str:
        if isinstance(self.data, dict):
            return f"<JSON object: {t('view.keys', count=len(self.data))}>"
        if isinstance(self.data, list):
            return f"<JSON array: {t('view.items', count=len(self.data))}>"
        return f"<JSON: {json.dumps(self.data, ensure_ascii=False)[:80]}>"


def records_of(value: Any) -> list[dict[str, Any]] | None:
    """The records in `value` (a non-empty list of objects, or ``{"result": [...]}``), else None."""
    if isinstance(value, dict) and list(value) == ["result"]:
        value = value["result"]
    if isinstance(value, list) and value and all(isinstance(row, dict) for row in value):
        return value
    return None


class RecordsTable(widgets.HTML):
    """A list of records as an HTML table: one column per key, in the order keys first appear."""

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.records = records
        self.columns = list(dict.fromkeys(key for row in records for key in row))
        head = "".join(f"<th>{esc(column)}</th>" for column in self.columns)
        body = "".join(
            "<tr>"
            + "".join(f"<td>{esc(_scalar(row[c])) if c in row else ''}</td>" for c in self.columns)
            + "</tr>"
            for row in records[:MAX_ITEMS]
        )
        more = len(records) - MAX_ITEMS
        note = f"<div><i>{esc(t('view.more', count=more))}</i></div>" if more > 0 else ""
        super().__init__(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}")

    def __repr__(self) -> str:
        shape = t("view.table", rows=len(self.records), columns=len(self.columns))
        return f"<{shape} ({', '.join(self.columns)})>"


class EmbeddedResourceView(widgets.VBox):
    """One resource's contents (an embedded ``resource`` block, or an item of a ReadResult)."""

    def __init__(self, contents: dict[str, Any], title: str | None = None) -> None:
        self.contents = contents
        self.uri = str(contents.get("uri", ""))
        mime = str(contents.get("mimeType", ""))
        head = f"<b>{esc(title)}</b>: " if title else ""
        self.header = widgets.HTML(f"{head}<code>{esc(self.uri)}</code> <i>{esc(mime)}</i>")
        if "text" in contents:
            self.body: widgets.Widget = widgets.HTML(PRE.format(esc(contents["text"])))
        elif media_type(mime, media_kinds()) is not None:
            self.body = media_widget(
                mime.strip().lower().partition("/")[0], mime, str(contents.get("blob", ""))
            )
        else:
            size = len(str(contents.get("blob", ""))) * 3 // 4
            self.body = widgets.HTML(f"<i>{esc(t('view.blob', size=f'{size:,}'))}</i>")
        super().__init__([self.header, self.body])

    def __repr__(self) -> str:
        return f"[resource {self.uri}]"


def text_view(block: Block, context: ViewContext) -> widgets.Widget:
    """The view of a ``text`` block: its text, escaped, as preformatted lines."""
    return widgets.HTML(PRE.format(esc(block.get("text", ""))))


def media_view(block: Block, context: ViewContext) -> widgets.Widget:
    """The view of an ``image`` or ``audio`` block: an Image, a player, or a note saying why not."""
    return media_widget(str(block.get("type")), str(block.get("mimeType", "")), str(block.get("data", "")))


def embedded_view(block: Block, context: ViewContext) -> widgets.Widget:
    """The view of an embedded ``resource`` block."""
    inner = block.get("resource")
    return EmbeddedResourceView(dict(inner) if isinstance(inner, Mapping) else {}, t("view.embedded"))
