"""Icons (SEP-973): what ``@tool(icons=...)``, ``@resource``, ``@prompt`` and ``serve(icons=...)`` take.

An icon is ``{"src": ..., "mimeType": ..., "sizes": [...], "theme": "light" | "dark"}`` (the spec's
`Icon` since 2025-11-25, sent in ``tools/list``, ``resources/list``, ``prompts/list`` and
``serverInfo``); a plain string is its ``src``. `check_icons` is the one place their shape is
checked, when the cell that defines them runs. Whether a client can fetch one (an https URL, a
small base64 image) is the linter's to say (MCP070-MCP073): a notebook being written may well
point at a file that is not published yet, and it still runs.

Pure: no `mcp` import.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._text import t

IconsOption = str | Mapping[str, Any] | Sequence[str | Mapping[str, Any]] | None
"""What the ``icons=`` options take: one icon or a list of them, each a `src` string or a dict."""

Icons = tuple[dict[str, Any], ...]
"""Icons in their wire form (camelCase keys, only those given)."""

THEMES = ("light", "dark")
# mime_type is the Python spelling of the wire's mimeType; both are taken.
_KEYS = {"src": "src", "mimeType": "mimeType", "mime_type": "mimeType", "sizes": "sizes", "theme": "theme"}


def check_icons(value: IconsOption, option: str) -> Icons:
    """`value` as wire icons; ValueError saying which icon is wrong, why, and what to write.

    `option` is where the icons were given (``"@tool(icons=...)"``), for the message.
    """
    if value is None:
        return ()
    items: Sequence[Any] = [value] if isinstance(value, str | Mapping) else value
    if not isinstance(items, Sequence):
        raise ValueError(t("icon.not_list", option=option, got=type(value).__name__))
    icons = []
    for number, item in enumerate(items, 1):
        try:
            icons.append(_icon(item))
        except ValueError as exc:
            shown = repr(item)
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            raise ValueError(t("icon.bad", option=option, n=number, shown=shown, why=exc)) from None
    return tuple(icons)


def _icon(item: Any) -> dict[str, Any]:
    """One icon in wire form; ValueError with why it is not one."""
    if isinstance(item, str):
        item = {"src": item}
    if not isinstance(item, Mapping):
        raise ValueError(t("icon.why.type", type=type(item).__name__))
    icon: dict[str, Any] = {}
    for key, value in item.items():
        wire = _KEYS.get(key)
        if wire is None:
            raise ValueError(t("icon.why.unknown_key", key=key))
        icon[wire] = value
    src = icon.get("src")
    if not isinstance(src, str) or not src.strip():
        raise ValueError(t("icon.why.no_src"))
    if "mimeType" in icon and not (isinstance(icon["mimeType"], str) and icon["mimeType"].strip()):
        raise ValueError(t("icon.why.mime", got=repr(icon["mimeType"])))
    sizes = icon.get("sizes")
    if "sizes" in icon and (
        isinstance(sizes, str)
        or not isinstance(sizes, Sequence)
        or not all(isinstance(s, str) for s in sizes)
    ):
        raise ValueError(t("icon.why.sizes", got=repr(sizes)))
    if "sizes" in icon:
        icon["sizes"] = list(icon["sizes"])
    if "theme" in icon and icon["theme"] not in THEMES:
        raise ValueError(t("icon.why.theme", got=repr(icon["theme"])))
    return icon
