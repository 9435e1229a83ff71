"""Server tokens: making one, and reading one without a command line.

A token on a command line (``--token T``) can be read by every user of the machine (``ps``, and
``/proc/PID/cmdline``), and ends up in shell history. So the command line reads tokens from the
environment (``MCP_NOTEBOOK_TOKEN``) or from a file (``--token-file``), and the client
configurations it writes pass the token in ``env`` or in a file, never in ``args``.
"""

from __future__ import annotations

import os
import secrets
import stat

from ._errors import MCPNotebookError
from ._text import t


class TokenFileError(MCPNotebookError):
    """A token file that cannot be used (missing, unreadable or empty)."""


def new_token() -> str:
    """A random token (192 bits) that never starts with "-".

    A token may still be pasted where a leading dash would be read as an option.
    """
    while True:
        token = secrets.token_urlsafe(24)
        if not token.startswith("-"):
            return token


def read_token_file(path: str | os.PathLike[str]) -> tuple[str, str | None]:
    """The token in the file at `path` (its first line, stripped), and a warning if others can read it.

    Raises
    ------
    TokenFileError
        The file cannot be read, or holds no token.
    """
    try:
        with open(path, encoding="utf-8") as file:
            info = os.fstat(file.fileno())
            first = file.readline().strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenFileError(t("token.file_unreadable", path=os.fspath(path), error=exc)) from None
    if not first:
        raise TokenFileError(t("token.file_empty", path=os.fspath(path)))
    warning = None
    if os.name == "posix" and info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        warning = t("token.file_open", path=os.fspath(path), mode=oct(stat.S_IMODE(info.st_mode)))
    return first, warning


def token_on_argv_warning() -> str:
    """What to say when a token was given on a command line."""
    return t("token.on_argv")
