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
from ._text import add_messages, t

add_messages(
    {
        "token.on_argv": {
            "en": (
                "--token puts the token on the command line, where other users of this machine can read it "
                "(ps, /proc). Use the environment variable MCP_NOTEBOOK_TOKEN, or --token-file PATH with a "
                "file only you can read (chmod 600 PATH)."
            ),
            "ko": (
                "--token은 토큰을 명령줄에 올리므로 이 컴퓨터의 다른 사용자도 읽을 수 있습니다(ps, /proc). 환경 변수 "
                "MCP_NOTEBOOK_TOKEN을 쓰거나, 나만 읽을 수 있는 파일(chmod 600 PATH)을 --token-file PATH로 주세요."
            ),
        },
        "token.file_unreadable": {
            "en": "Cannot read the token file {path}: {error}. Write the token into it, alone on one line.",
            "ko": "토큰 파일을 읽지 못했습니다({path}): {error}. 토큰만 한 줄로 적은 파일을 주세요.",
        },
        "token.file_empty": {
            "en": "The token file {path} is empty. Write the token into it, alone on one line.",
            "ko": "토큰 파일이 비어 있습니다({path}). 토큰만 한 줄로 적으세요.",
        },
        "token.file_open": {
            "en": (
                "The token file {path} can be read by other users of this machine (mode {mode}). "
                "Make it yours only: chmod 600 {path}"
            ),
            "ko": (
                "이 컴퓨터의 다른 사용자도 토큰 파일을 읽을 수 있습니다({path}, 권한 {mode}). "
                "나만 읽도록 바꾸세요: chmod 600 {path}"
            ),
        },
    }
)


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
