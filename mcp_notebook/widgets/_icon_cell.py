"""The icon cell of the catalogue view: icons shown without the notebook page fetching anything.

An icon's ``src`` is text someone wrote, so every value is escaped. A data: URI of a base64 image is
shown inline: it is already in the page, and an SVG shown by ``<img>`` runs no script. An https URL
becomes a link the person may open: the page never fetches it by itself, since a request to
another origin would tell that origin that this notebook is open, and when. Anything else is shown
as text, never as a link (a ``javascript:`` URL stays words).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..core._text import t

_INLINE = re.compile(r"data:image/(png|jpeg|jpg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/]+={0,2}")


def icon_cell(icons: Iterable[Mapping[str, Any]]) -> str:
    """HTML for `icons`, followed by a space; empty for none."""
    parts = []
    for icon in icons:
        src = str(icon.get("src", ""))
        quoted = html.escape(src, quote=True)
        if _INLINE.fullmatch(src):
            parts.append(f'<img src="{quoted}" alt="" width="16" height="16" style="vertical-align: middle">')
        elif src.startswith("https://"):
            label = html.escape(t("catalogue.icon_link"))
            parts.append(
                f'<a href="{quoted}" title="{quoted}" target="_blank" rel="noopener noreferrer">{label}</a>'
            )
        else:
            shown = src if len(src) <= 60 else src[:57] + "..."
            parts.append(f"<code>{html.escape(shown)}</code>")
    return " ".join(parts) + " " if parts else ""
