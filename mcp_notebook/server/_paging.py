"""Pagination of */list results with an opaque cursor (spec: server/utilities/pagination)."""

from __future__ import annotations

import base64
import binascii
from typing import Any, TypeVar

import mcp_types as types
from mcp.shared.exceptions import MCPError

T = TypeVar("T")


def page(items: list[T], params: Any, size: int) -> tuple[list[T], str | None]:
    """One page of `items` for a */list request, and the cursor of the next page (None at the end)."""
    start = _decode_cursor(params.cursor if params else None)
    end = start + size
    return items[start:end], (_encode_cursor(end) if end < len(items) else None)


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"page:{offset}".encode()).decode("ascii")


def _decode_cursor(cursor: str | None) -> int:
    if cursor is None:
        return 0
    try:
        kind, _, number = base64.urlsafe_b64decode(cursor.encode("ascii")).decode().partition(":")
        offset = int(number)
        if kind != "page" or offset < 0:
            raise ValueError(cursor)
    except (ValueError, UnicodeError, binascii.Error):
        raise MCPError(
            types.INVALID_PARAMS,
            f"Invalid cursor {cursor!r}: pass back the nextCursor of the previous list result, unchanged.",
        ) from None
    return offset
