"""How big a JSON value is, roughly, and a shortened copy that says what it left out.

Pure helpers for what must stay bounded however large a request is: the activity log's records
(`_activity`) and the problems listed for invalid arguments (`_arguments`). Estimating never
encodes anything: a string counts its length, a number eight bytes, a container its items plus a
little for punctuation; it stops counting as soon as it is past the limit it was given.
"""

from __future__ import annotations

from typing import Any

_OVERHEAD = 16  # per container entry, roughly what its JSON punctuation and Python bookkeeping cost
TEXT_KEPT = 2000  # characters of a long string a shortened copy keeps
ITEMS_KEPT = 50  # items of a long list or object
DEPTH_KEPT = 20


def estimated_size(value: Any, limit: int) -> int:
    """Roughly the bytes of `value` as JSON; once past `limit` the count stops, at ``limit + 1``."""
    budget = [limit + 1]
    _count(value, budget)
    return limit + 1 - budget[0] if budget[0] > 0 else limit + 1


def _count(value: Any, budget: list[int]) -> None:
    if isinstance(value, str | bytes):
        budget[0] -= len(value) + 2
    elif isinstance(value, dict):
        budget[0] -= 2
        for key, item in value.items():
            budget[0] -= len(str(key)) + _OVERHEAD
            _count(item, budget)
            if budget[0] <= 0:
                return
    elif isinstance(value, list | tuple):
        budget[0] -= 2
        for item in value:
            budget[0] -= _OVERHEAD
            _count(item, budget)
            if budget[0] <= 0:
                return
    else:
        budget[0] -= 8


def clipped(value: Any, where: str, depth: int = 0) -> Any:
    """`value` with long strings, long lists and big objects shortened, each saying how much was left out.

    `where` names what keeps the copy (``"activity log"``), for the notes. Values already small come
    back as they are.
    """
    if isinstance(value, str):
        if len(value) <= TEXT_KEPT:
            return value
        return f"{value[:TEXT_KEPT]}... [{len(value) - TEXT_KEPT:,} more characters not kept in the {where}]"
    if depth >= DEPTH_KEPT and isinstance(value, dict | list | tuple):
        return f"[nested too deep to keep in the {where}]"
    if isinstance(value, dict):
        items = list(value.items())
        kept = {str(key): clipped(item, where, depth + 1) for key, item in items[:ITEMS_KEPT]}
        if len(items) > ITEMS_KEPT:
            kept["..."] = f"[{len(items) - ITEMS_KEPT:,} more entries not kept in the {where}]"
        return kept
    if isinstance(value, list | tuple):
        kept_items = [clipped(item, where, depth + 1) for item in value[:ITEMS_KEPT]]
        if len(value) > ITEMS_KEPT:
            kept_items.append(f"[{len(value) - ITEMS_KEPT:,} more items not kept in the {where}]")
        return kept_items
    return value
