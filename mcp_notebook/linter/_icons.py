"""The icon rules (MCP070-MCP073): an icon a client could not fetch or show.

`check_icons` (core) has already made each icon a dict with a string ``src``; what is left is
whether a client gets an image from it. A client fetches an icon itself, from wherever it runs, so
only an https URL or a data: URI works everywhere: http is refused by careful clients (and by the
registry), a relative path or a file names nothing on the client's machine. A data: URI travels in
every list answer (and the server's, in every 2026-07-28 answer), so it must be small, and really be
the base64 image it says it is.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..core._text import t

Hit = tuple[str, str | None, dict[str, Any]]

# What SEP-973 asks clients to show (png, jpeg: MUST; svg+xml, webp: SHOULD), as the registry's
# server.json schema lists them (image/jpg is its alias of image/jpeg).
IMAGE_TYPES = ("image/png", "image/jpeg", "image/jpg", "image/svg+xml", "image/webp")
# A 48x48 PNG is 2-4 KB; 16 KiB leaves room for 96x96 and a small SVG without making every
# tools/list (or every 2026-07-28 answer, for the server's icon) carry a photograph.
MAX_DATA_BYTES = 16 * 1024
_SIZE = re.compile(r"[1-9][0-9]*x[1-9][0-9]*|any")
_DATA = re.compile(r"data:(?P<type>[^;,]*)(?P<params>(;[^;,]*)*),(?P<payload>.*)", re.DOTALL)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/jpg": (b"\xff\xd8\xff",),
    "image/webp": (b"RIFF",),
}


def icon_hits(icons: Iterable[Mapping[str, Any]]) -> list[Hit]:
    """Every icon rule that fires, one per icon and rule; the field is ``icons[N]`` (from 0)."""
    hits: list[Hit] = []
    for number, icon in enumerate(icons):
        field = f"icons[{number}]"
        src = str(icon.get("src", ""))
        shown = src if len(src) <= 60 else src[:57] + "..."
        mime = icon.get("mimeType")
        if src.startswith("data:"):
            problem = _data_problem(src, mime)
            if problem is not None:
                why = t(problem[0], **problem[1])
                hits.append(
                    ("MCP071", field, {"src": shown, "why": why, "limit_kib": MAX_DATA_BYTES // 1024})
                )
        elif not src.startswith("https://"):
            hits.append(("MCP070", field, {"src": shown, "why": t(_fetch_problem(src))}))
        if mime is not None and str(mime).lower() not in IMAGE_TYPES:
            hits.append(("MCP072", field, {"src": shown, "mime": mime, "known": ", ".join(IMAGE_TYPES)}))
        bad = [size for size in icon.get("sizes") or [] if not _SIZE.fullmatch(size)]
        if bad:
            hits.append(("MCP073", field, {"src": shown, "sizes": ", ".join(repr(s) for s in bad)}))
    return hits


def _fetch_problem(src: str) -> str:
    """Why a client cannot fetch `src` (which is neither https nor data:), as a message key."""
    if src.lower().startswith("http://"):
        return "lint.icon.http"
    if src.lower().startswith(("https://", "data:")):  # upper-case scheme: clients compare it as written
        return "lint.icon.case"
    if _SCHEME.match(src) and not src.lower().startswith("file:"):
        return "lint.icon.scheme"
    return "lint.icon.local"


def _data_problem(src: str, mime: Any) -> tuple[str, dict[str, Any]] | None:
    """Why a data: URI is not a small base64 image (a message key and its values), or None."""
    found = _DATA.fullmatch(src)
    if found is None or ";base64" not in found["params"].lower():
        return "lint.icon.not_base64", {}
    kind = found["type"].lower() or "text/plain"
    if not kind.startswith("image/"):
        return "lint.icon.not_image", {"kind": kind}
    try:
        data = base64.b64decode(found["payload"], validate=True)
    except (binascii.Error, ValueError):
        return "lint.icon.not_base64", {}
    if len(data) > MAX_DATA_BYTES:
        return "lint.icon.too_large", {"size": len(data), "limit": MAX_DATA_BYTES}
    declared = str(mime).lower() if isinstance(mime, str) else kind
    magic = _MAGIC.get(declared)
    looks_svg = declared == "image/svg+xml" and b"<svg" in data[:4096]
    if (magic is not None and not data.startswith(magic)) or (declared == "image/svg+xml" and not looks_svg):
        return "lint.icon.not_that_image", {"kind": declared}
    return None
