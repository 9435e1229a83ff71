"""What a content kind is: one entry of the registry in `core._kinds` (the built-in ones are in
`core._builtin_kinds`), and what a kind's view is given."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Block = Mapping[str, Any]
"""A content block, or for a kind of a whole result, the ``CallToolResult``, as wire JSON."""


@dataclass(frozen=True)
class ViewContext:
    """What a kind's view is given besides the block: how to read a link, and the whole result."""

    read: Callable[[str], Any] | None = None
    """Reads a URI from the server the result came from; None when that server is not known."""
    result: Any = None
    """The CallResult or PromptResult the block belongs to, when there is one."""


@dataclass(frozen=True)
class ContentKind:
    """One kind of content: what a tool returns, what travels, how it reads, what it may hold.

    Every field but `name` may be left out; a kind has a tool side, a wire side, or both.

    Attributes
    ----------
    name:
        The kind's name, which its view is registered under.
    types, detect:
        The tool side: return values of these classes are of this kind, or those `detect` says
        are (for values recognised by what they can do). Only `types` makes a return annotation
        this kind: such a tool gets no output schema, and the linter asks for none.
    encode:
        A value of this kind as a ``CallToolResult`` dict (``content``, ``isError``, ``_meta`` ...).
    wire:
        The content block type its blocks travel as (``"text"``, ``"image"``, ``"audio"``,
        ``"resource_link"``, ``"resource"``: the protocol has no others).
    claims:
        Which blocks of type `wire` are this kind; without it, every block no other kind claims
        (one such plain kind per wire type).
    in_result:
        For a kind that is a part of a whole result rather than a block (its ``_meta``, say):
        whether a ``CallToolResult`` dict holds it. Its text, HTML and view are given that dict
        and shown after the blocks.
    describe, html:
        Its text/plain line (terminals, nbval, a result's repr) and fallback HTML (GitHub,
        nbconvert); a refinement without them reads as its wire type. Blocks come from any
        server, trusted or not: `html`, like every registered view, escapes every value it shows.
    media, blob_safe:
        Limits of a media kind: the major media type its data may have (``"image"``), and the
        subtypes a browser can only draw or play, which alone may become a blob URL of the
        notebook's origin (the rest, SVG above all, are shown from an opaque ``data:`` URL).
        Only a wire type's plain kind sets them.
    text_at:
        Where in a block the text a model reads is (``("resource", "text")``): the guards clean it
        of control characters and count it against the result's size budget. Only a wire type's
        plain kind sets it, so a refinement can never take text past the guards.
    """

    name: str
    types: tuple[type, ...] = ()
    detect: Callable[[Any], bool] | None = None
    encode: Callable[[Any], dict[str, Any]] | None = None
    wire: str | None = None
    claims: Callable[[Block], bool] | None = None
    in_result: Callable[[Block], bool] | None = None
    describe: Callable[[Block], str] | None = None
    html: Callable[[Block], str] | None = None
    media: str | None = None
    blob_safe: frozenset[str] = field(default_factory=frozenset)
    text_at: tuple[str, ...] = ()

    def is_value(self, value: Any) -> bool:
        """Whether a tool's return value is of this kind."""
        if self.detect is not None:
            return self.detect(value)
        return bool(self.types) and isinstance(value, self.types)

    def is_annotation(self, hint: Any) -> bool:
        """Whether a return annotation names values of this kind (only `types` can say)."""
        return isinstance(hint, type) and bool(self.types) and issubclass(hint, self.types)
