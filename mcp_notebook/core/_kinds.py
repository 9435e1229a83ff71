"""The registry of content kinds: what a tool's return value is, how it travels, and how it is shown.

A `ContentKind` (`core._content_kind`, which says what each field does) has two sides, either of
which may be empty:

- the tool side: which values are of this kind and how one becomes a ``CallToolResult``, and so
  which return annotations are this kind rather than structured data (`core._schema` gives them no
  output schema, the linter asks for none);
- the wire side: which content blocks (or, for a part of a result such as its ``_meta``, which
  results) are this kind, its text/plain line and fallback HTML (the client's results), and its
  limits (`core._guards`, the widgets' media).

The kinds this package knows are listed in `core._builtin_kinds`; a new kind is one more entry
there (or one `register_kind` call, from a notebook or a test) and one view: the widgets register
a view per kind with `register_view`, since the core never imports them. A kind that refines a
wire type (an app's ``ui://`` link is a ``resource_link``) falls back to that type's text, HTML and
view where it has none of its own; the guards always treat a block by its wire type, so a
refinement can never weaken them.

Plain ``str``, ``None`` and JSON-like values (dict, list, dataclass, pydantic, DataFrame ...) are
text and structured content: `core._results.to_result` handles them itself, after every kind here,
and the result view shows structured content as a table and a tree.
"""

from __future__ import annotations

import html
import json
import types as _types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from ._builtin_kinds import BUILT_IN
from ._content_kind import Block, ContentKind, ViewContext
from ._text import t

__all__ = [
    "Block",
    "ContentKind",
    "ViewContext",
    "blob_safe",
    "block_html",
    "describe_block",
    "is_wire_type",
    "kind_of_annotation",
    "kind_of_block",
    "kind_of_value",
    "kinds_of_result",
    "media_kinds",
    "plain_kind",
    "register_kind",
    "register_view",
    "remove_kind",
    "result_html",
    "result_lines",
    "view_of",
]

# Replaced whole, never changed in place: the server's threads read them without a lock.
_kinds: tuple[ContentKind, ...] = ()  # in the order a tool's return value is tried
_plain: dict[Any, ContentKind] = {}  # wire type -> the kind of the blocks no refinement claims
# The tool side as (test, kind) pairs, in order: a result is built on the server's loop for every
# call, so finding a value's kind is one plain loop of calls.
_tool_side: tuple[tuple[Callable[[Any], bool], ContentKind], ...] = ()
_views: dict[str, Callable[[Block, ViewContext], Any]] = {}


def register_kind(kind: ContentKind, *, before: str | None = None) -> ContentKind:
    """Add `kind`, tried before the kind named `before` if given, else last; returns it.

    A kind of a name already registered is replaced in its place (re-running a notebook cell that
    registers one changes nothing else). Register a kind before defining the tools that return it:
    a tool's output schema is decided when it is defined.
    """
    _check(kind)
    names = [k.name for k in _kinds]
    kept = [k for k in _kinds if k.name != kind.name]
    if before is not None:
        places = [k.name for k in kept]
        if before not in places:
            raise ValueError(t("kinds.unknown", name=before, known=", ".join(places)))
        at = places.index(before)
    else:
        at = names.index(kind.name) if kind.name in names else len(kept)
    kept.insert(at, kind)
    _install(kept)
    return kind


def _check(kind: ContentKind) -> None:
    if (kind.encode is None) != (kind.detect is None and not kind.types):
        raise ValueError(t("kinds.half_tool_side", name=kind.name))
    if kind.claims is not None and kind.wire is None:
        raise ValueError(t("kinds.claims_without_wire", name=kind.name))
    if kind.in_result is not None and kind.wire is not None:
        raise ValueError(t("kinds.block_and_result", name=kind.name))
    plain = _plain.get(kind.wire) if kind.wire is not None and kind.claims is None else None
    if plain is not None and plain.name != kind.name:
        raise ValueError(t("kinds.second_plain", name=kind.name, wire=kind.wire, other=plain.name))


def _install(kinds: list[ContentKind]) -> None:
    global _kinds, _plain, _tool_side
    _plain = {k.wire: k for k in kinds if k.wire is not None and k.claims is None}
    _tool_side = tuple((k.detect or k.is_value, k) for k in kinds if k.encode is not None)
    _kinds = tuple(kinds)


def remove_kind(name: str) -> None:
    """Forget the kind `name` and its view (nothing happens when there is none)."""
    _install([k for k in _kinds if k.name != name])
    _views.pop(name, None)


def kind_of_value(value: Any) -> ContentKind | None:
    """The first kind, in order, that a tool's return value is of (None: text or structured data)."""
    for test, kind in _tool_side:
        if test(value):
            return kind
    return None


def kind_of_annotation(hint: Any) -> ContentKind | None:
    """The kind a return annotation names: a kind's class, or a union of them (with None)."""
    if typing.get_origin(hint) in (typing.Union, _types.UnionType):
        arms = [kind_of_annotation(arm) for arm in typing.get_args(hint) if arm is not type(None)]
        return arms[0] if arms and all(arms) else None
    return next((k for k in _kinds if k.encode is not None and k.is_annotation(hint)), None)


def plain_kind(wire: Any) -> ContentKind | None:
    """The kind of every block of wire type `wire` that no refinement claims (None: not a wire type)."""
    try:
        return _plain.get(wire)
    except TypeError:  # a block's "type" may be anything a server sent, a list even
        return None


def kind_of_block(block: Any) -> ContentKind | None:
    """The kind of a content block: a refinement that claims it, else its wire type's plain kind."""
    if not isinstance(block, Mapping):
        return None
    wire = block.get("type")
    for kind in _kinds:
        if kind.claims is not None and kind.wire == wire and kind.claims(block):
            return kind
    return plain_kind(wire)


def kinds_of_result(result: Any) -> list[ContentKind]:
    """The kinds a whole ``CallToolResult`` (wire JSON) holds besides its blocks, in order."""
    if not isinstance(result, Mapping):
        return []
    return [k for k in _kinds if k.in_result is not None and k.in_result(result)]


def result_lines(result: Any) -> list[str]:
    """The text/plain lines of the kinds `result` holds besides its blocks."""
    return [k.describe(result) for k in kinds_of_result(result) if k.describe is not None]


def result_html(result: Any) -> list[str]:
    """The HTML of the kinds `result` holds besides its blocks (escaped by each kind)."""
    return [k.html(result) for k in kinds_of_result(result) if k.html is not None]


def is_wire_type(wire: Any) -> bool:
    """Whether `wire` is a content block type of the protocol (one with a plain kind)."""
    return plain_kind(wire) is not None


def media_kinds() -> tuple[str, ...]:
    """The major media types (``image``, ``audio``) whose data may be shown as media."""
    return tuple(dict.fromkeys(k.media for k in _kinds if k.media is not None))


def blob_safe(media: str) -> frozenset[str]:
    """The subtypes of major type `media` a browser only draws or plays, as its wire type's kind says.

    Only a plain kind says: a refinement of a wire type cannot widen what the notebook's own origin
    is handed.
    """
    return next((k.blob_safe for k in _plain.values() if k.media == media), frozenset())


def describe_block(block: Any) -> str:
    """A content block as text/plain, for terminals, nbval and a result's repr."""
    for kind in _own_then_plain(block):
        if kind.describe is not None:
            return kind.describe(block)
    return f"[{_type_of(block)}] {json.dumps(block, ensure_ascii=False, default=str)[:200]}"


def block_html(block: Any) -> str:
    """A content block as escaped HTML, for where there are no widgets (GitHub, nbconvert)."""
    if not isinstance(block, Mapping):
        return f"<pre>{html.escape(json.dumps(block, ensure_ascii=False, default=str)[:200])}</pre>"
    for kind in _own_then_plain(block):
        if kind.html is not None:
            return kind.html(block)
    return f"<pre>{html.escape(describe_block(block))}</pre>"


def _own_then_plain(block: Any) -> list[ContentKind]:
    kind = kind_of_block(block)
    if kind is None:
        return []
    plain = plain_kind(kind.wire)
    return [kind] if plain is None or plain is kind else [kind, plain]


def _type_of(block: Any) -> Any:
    return block.get("type") if isinstance(block, Mapping) else type(block).__name__


def register_view(name: str, view: Callable[[Block, ViewContext], Any]) -> None:
    """Make `view(block, context)` the widget of kind `name` (registered by the widgets, not the core)."""
    _views[name] = view


def view_of(kind: ContentKind) -> Callable[[Block, ViewContext], Any] | None:
    """The view registered for `kind`, else for its wire type's plain kind, else None."""
    view = _views.get(kind.name)
    plain = plain_kind(kind.wire)
    if view is None and plain is not None:
        view = _views.get(plain.name)
    return view


for _built_in in BUILT_IN:
    register_kind(_built_in)
