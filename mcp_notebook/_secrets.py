"""Server tokens."""

from __future__ import annotations

import secrets


def new_token() -> str:
    """A random token (192 bits) that never starts with "-".

    A token is pasted into command lines (``--token T``, ``claude mcp add --header ...``), where a
    leading dash would be read as an option.
    """
    while True:
        token = secrets.token_urlsafe(24)
        if not token.startswith("-"):
            return token
