"""Resources: notebook data that an application reads (static, templated, or published live values).

Pure: no IPython, no threads, no `mcp` import. A resource's value is produced when it is read
(a function) or held (a published object); `contents()` turns any value into MCP resource contents.
Who controls a resource: the application (the client decides what to read and when), not the model.
"""

from __future__ import annotations

import base64
import datetime as _dt
import inspect
import io
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._errors import ToolDefinitionError
from ._icons import Icons, IconsOption, check_icons
from ._results import to_jsonable
from ._text import t

_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_PNG = b"\x89PNG\r\n\x1a\n"


@dataclass(eq=False)
class ResourceEntry:
    """A resource at a fixed URI: its value comes from `read()` each time it is read."""

    uri: str
    name: str
    read: Callable[[], Any]
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: dict[str, Any] = field(default_factory=dict)
    icons: Icons = ()
    meta: dict[str, Any] | None = None  # ``_meta`` in the listing and on each content read (an app's ``ui``)

    def to_wire(self) -> dict[str, Any]:
        wire = _wire({"uri": self.uri}, self)
        if self.meta:
            wire["_meta"] = dict(self.meta)
        return wire

    def contents(self, value: Any) -> list[dict[str, Any]]:
        """The contents of a read of this resource that produced `value`, with its ``_meta``."""
        items = contents(self.uri, value, self.mime_type)
        if self.meta:
            # ext-apps 2026-01-26: the host builds the view's CSP from the content's _meta.ui.
            items = [{**item, "_meta": dict(self.meta)} for item in items]
        return items


@dataclass(eq=False)
class TemplateEntry:
    """A family of resources: ``data://sales/{region}`` is read by calling ``fn(region=...)``."""

    uri_template: str
    name: str
    fn: Callable[..., Any]
    variables: tuple[str, ...]
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    annotations: dict[str, Any] = field(default_factory=dict)
    completers: dict[str, Any] = field(default_factory=dict)
    icons: Icons = ()

    def __post_init__(self) -> None:
        pattern = ""
        for literal, variable in _split_template(self.uri_template):
            pattern += re.escape(literal)
            if variable:
                pattern += f"(?P<{variable}>[^/?#]+)"
        self._regex = re.compile(f"^{pattern}$")

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables of `uri` if it is one of this template's resources, else None."""
        found = self._regex.match(uri)
        return found.groupdict() if found else None

    def to_wire(self) -> dict[str, Any]:
        return _wire({"uriTemplate": self.uri_template}, self)


def _wire(wire: dict[str, Any], entry: ResourceEntry | TemplateEntry) -> dict[str, Any]:
    wire["name"] = entry.name
    for key, value in (
        ("title", entry.title),
        ("description", entry.description),
        ("mimeType", entry.mime_type),
    ):
        if value:
            wire[key] = value
    size = getattr(entry, "size", None)
    if size is not None:
        wire["size"] = size
    if entry.annotations:
        wire["annotations"] = dict(entry.annotations)
    if entry.icons:
        wire["icons"] = [dict(icon) for icon in entry.icons]
    return wire


def _split_template(template: str) -> list[tuple[str, str | None]]:
    parts: list[tuple[str, str | None]] = []
    position = 0
    for found in _VARIABLE.finditer(template):
        parts.append((template[position : found.start()], found.group(1)))
        position = found.end()
    parts.append((template[position:], None))
    return parts


def check_uri(uri: str) -> tuple[str, ...]:
    """Raise `ToolDefinitionError` for an unusable URI; return its template variables."""
    if not uri or not _SCHEME.match(uri):
        raise ToolDefinitionError(t("resource.bad_uri", uri=uri, why="it has no scheme"))
    if any(ch.isspace() for ch in uri):
        raise ToolDefinitionError(t("resource.bad_uri", uri=uri, why="it contains white space"))
    variables = tuple(_VARIABLE.findall(uri))
    if len(set(variables)) != len(variables):
        raise ToolDefinitionError(t("resource.bad_uri", uri=uri, why="a variable appears twice"))
    leftover = _VARIABLE.sub("", uri)
    if "{" in leftover or "}" in leftover:
        raise ToolDefinitionError(
            t("resource.bad_uri", uri=uri, why="only simple {name} variables are supported")
        )
    return variables


def annotations_of(
    audience: list[str] | None, priority: float | None, last_modified: _dt.datetime | str | None
) -> dict[str, Any]:
    notes: dict[str, Any] = {}
    if audience:
        notes["audience"] = list(audience)
    if priority is not None:
        notes["priority"] = float(priority)
    if last_modified is not None:
        notes["lastModified"] = (
            last_modified.isoformat() if isinstance(last_modified, _dt.datetime) else last_modified
        )
    return notes


def make_resource(
    fn: Callable[..., Any],
    uri: str,
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
    size: int | None = None,
    audience: list[str] | None = None,
    priority: float | None = None,
    last_modified: _dt.datetime | str | None = None,
    completers: Mapping[str, Any] | None = None,
    icons: IconsOption = None,
) -> ResourceEntry | TemplateEntry:
    """A static resource or, when `uri` has ``{variables}``, a template, read by calling `fn`."""
    variables = check_uri(uri)
    try:
        shown = check_icons(icons, "@resource(icons=...)")
    except ValueError as exc:
        raise ToolDefinitionError(str(exc)) from None
    func = getattr(fn, "__name__", "resource")
    params = [p.name for p in inspect.signature(fn).parameters.values()]
    doc = inspect.getdoc(fn)
    notes = annotations_of(audience, priority, last_modified)
    label = name or func
    if variables:
        if sorted(params) != sorted(variables):
            raise ToolDefinitionError(
                t("resource.params_mismatch", uri=uri, variables=list(variables), func=func, params=params)
            )
        return TemplateEntry(
            uri,
            label,
            fn,
            variables,
            title,
            description or doc,
            mime_type,
            notes,
            dict(completers or {}),
            icons=shown,
        )
    if params:
        raise ToolDefinitionError(t("resource.static_params", func=func, uri=uri))
    return ResourceEntry(uri, label, fn, title, description or doc, mime_type, size, notes, icons=shown)


def published(
    value: Any,
    uri: str,
    *,
    name: str,
    title: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
) -> ResourceEntry:
    """A resource holding a live notebook value (a DataFrame, text, bytes, a figure, JSON data)."""
    check_uri(uri)
    if _VARIABLE.search(uri):
        raise ToolDefinitionError(t("resource.bad_uri", uri=uri, why="a published value needs a fixed URI"))
    kind, detail = describe_value(value)
    text = description or detail
    size = _size_of(value)
    stamp = _dt.datetime.now(_dt.UTC).replace(microsecond=0)
    return ResourceEntry(
        uri, name, lambda: value, title, text, mime_type or kind, size, {"lastModified": stamp.isoformat()}
    )


def describe_value(value: Any) -> tuple[str, str]:
    """The mime type a value is served as, and a description a model can use (a table's schema)."""
    if is_dataframe(value):
        columns = ", ".join(f"{name} ({dtype})" for name, dtype in value.dtypes.astype(str).items())
        rows = len(value)
        return "text/csv", f"A table of {rows} rows. Columns: {columns}. Read as CSV, and as JSON records."
    if isinstance(value, str):
        return "text/plain", f"Text, {len(value)} characters."
    if isinstance(value, bytes | bytearray):
        kind = "image/png" if bytes(value[:8]) == _PNG else "application/octet-stream"
        return kind, f"Binary data, {len(value)} bytes."
    if _is_figure(value):
        return "image/png", "A figure, as a PNG image."
    return "application/json", "JSON data."


def contents(uri: str, value: Any, mime_type: str | None = None) -> list[dict[str, Any]]:
    """MCP resource contents for `value` read at `uri` (text or base64 blob)."""
    if is_dataframe(value):
        records = json.dumps(to_jsonable(value), ensure_ascii=False)
        return [
            {"uri": uri, "mimeType": "text/csv", "text": value.to_csv(index=False)},
            {"uri": uri, "mimeType": "application/json", "text": records},
        ]
    if isinstance(value, str):
        return [{"uri": uri, "mimeType": mime_type or "text/plain", "text": value}]
    if _is_figure(value):
        buffer = io.BytesIO()
        value.savefig(buffer, format="png", bbox_inches="tight")
        value = buffer.getvalue()
        mime_type = "image/png"
    if isinstance(value, bytes | bytearray):
        kind = mime_type or ("image/png" if bytes(value[:8]) == _PNG else "application/octet-stream")
        return [{"uri": uri, "mimeType": kind, "blob": base64.b64encode(bytes(value)).decode("ascii")}]
    data = json.dumps(to_jsonable(value), ensure_ascii=False, indent=2)
    return [{"uri": uri, "mimeType": mime_type or "application/json", "text": data}]


def _size_of(value: Any) -> int | None:
    if isinstance(value, str):
        return len(value.encode())
    if isinstance(value, bytes | bytearray):
        return len(value)
    return None


def is_dataframe(value: Any) -> bool:
    """Whether `value` is a pandas DataFrame (by its shape: pandas is not imported)."""
    return hasattr(value, "to_csv") and hasattr(value, "dtypes") and hasattr(value, "columns")


def _is_figure(value: Any) -> bool:
    return hasattr(value, "savefig") and hasattr(value, "canvas")
