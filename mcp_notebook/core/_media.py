"""Images and sound: recognising them in what a tool returns, and the checks before they are shown.

Pure: figures and PIL images are recognised by what they can do, so neither matplotlib nor PIL is
imported here. The checks are for data from any server, trusted or not: a media type goes into
markup and a ``data:`` URL only as letters, digits and ``+.-`` (`media_type`), data only as base64
(`is_base64`).
"""

from __future__ import annotations

import base64
import io
import re
import sys
from typing import Any

_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
# A type and subtype of letters, digits and + . - only: nothing that can end an attribute or a URL part.
_MEDIA_TYPE = re.compile(r"([a-z]+)/[a-z0-9][a-z0-9.+-]{0,126}")
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def media_type(value: Any, kinds: tuple[str, ...] = ("image", "audio")) -> str | None:
    """`value` as a media type safe to put into markup and a ``data:`` URL, or None.

    Only a type whose major part is in `kinds` (``image/*``, ``audio/*``), made of letters, digits
    and ``+.-``, compared in lower case. ``image/url`` is refused: ipywidgets reads that format as
    "load this address".
    """
    if not isinstance(value, str):
        return None
    lowered = value.strip().lower()
    match = _MEDIA_TYPE.fullmatch(lowered)
    if match is None or lowered.partition("/")[2] == "url":
        return None
    return lowered if match.group(1) in kinds else None


def is_base64(data: Any) -> bool:
    """Whether `data` is base64 text and nothing else (the only thing allowed after ``;base64,``)."""
    return isinstance(data, str) and len(data) % 4 == 0 and _BASE64.fullmatch(data) is not None


def is_image(value: Any) -> bool:
    """Whether `value` is image bytes (PNG, JPEG, GIF, WebP), a matplotlib ``Figure`` or a PIL image."""
    if isinstance(value, bytes | bytearray):
        return _image_bytes_type(value) is not None
    return _is_figure(value) or _is_pil_image(value)


def image_block(value: Any) -> dict[str, Any] | None:
    """An ``image`` content block of `value` (see `is_image`), or None when it is no image."""
    data: bytes | None = None
    mime = "image/png"
    if isinstance(value, bytes | bytearray):
        kind = _image_bytes_type(value)
        if kind is not None:
            data, mime = bytes(value), kind
    elif _is_figure(value):
        data = _figure_png(value)
    elif _is_pil_image(value):
        buffer = io.BytesIO()
        value.save(buffer, format="PNG")
        data = buffer.getvalue()
    if data is None:
        return None
    return {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime}


def _image_bytes_type(value: bytes | bytearray) -> str | None:
    for magic, kind in _IMAGE_MAGIC:
        if bytes(value[: len(magic)]) == magic:
            return kind
    if value[:4] == b"RIFF" and value[8:12] == b"WEBP":
        return "image/webp"
    return None


def _is_figure(value: Any) -> bool:
    return hasattr(value, "savefig") and hasattr(value, "canvas")


def _is_pil_image(value: Any) -> bool:
    return hasattr(value, "save") and hasattr(value, "mode") and hasattr(value, "size")


def _figure_png(figure: Any) -> bytes:
    """The figure as PNG, and the figure closed: it was made to be sent, not to stay open.

    An open pyplot figure made by a tool is a leak (pyplot keeps every figure until it is closed)
    and, under the inline backend, shows up at the end of whatever cell runs next. Closed through
    pyplot only when something already imported it: importing it here would pick a backend.

    No ``bbox_inches="tight"``: it draws the figure twice (once to measure, once to save), which
    doubled the cost of every figure result (bench/bench_figures.py). The figure keeps the margins
    its author gave it; ``layout="constrained"`` or ``fig.tight_layout()`` trims them once, where
    the figure is made.
    """
    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png")
    finally:
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is not None:
            pyplot.close(figure)
    return buffer.getvalue()
