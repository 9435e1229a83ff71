"""What the magics read from their line: a trailing comment, target options, ``key=value`` pairs, JSON.

Every line is read like a shell reads one: a ``#`` that starts a word starts a comment, which ends
the line (`strip_comment`). The client magics then split it like a shell but keep JSON whole, parse
values as JSON where they parse (else text), and resolve ``$name`` from the kernel's namespace only
where a value is expected (never in a key, never inside JSON), so a secret or a DataFrame never has
to be written into a cell.
"""

from __future__ import annotations

import json
import re
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic_arguments import argument

from ..client._target import DEFAULT_TIMEOUT, MODES, Target
from ..core._options import option_names
from ..core._text import t


def target_options(func: Any) -> Any:
    """The options that pick which server a client magic talks to: a `Target`'s, on the command line."""
    options = [
        argument(
            "--url", default=None, help="Talk to another Streamable HTTP server instead of this kernel's."
        ),
        argument("--token", default=None, help="Token for --url."),
        argument(
            "--stdio",
            default=None,
            help='Talk to a stdio server started by this command, e.g. "python srv.py".',
        ),
        argument("--mode", default="auto", choices=MODES, help="Protocol era to use."),
        argument(
            "--timeout",
            type=float,
            default=DEFAULT_TIMEOUT,
            help=f"Seconds to wait for the answer (default {DEFAULT_TIMEOUT:g}).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


# Options whose value names a target: a `$name` after them is that value, never the arguments object.
TARGET_VALUES = ("--url", "--token", "--stdio")


def target(args: Any, namespace: dict[str, Any] | None = None) -> dict[str, Any]:
    """The target options of a parsed line, as the client's functions take them (`Target`)."""
    # `--token $tok`: a kernel variable, so a secret never has to be written into a cell.
    for option in TARGET_VALUES:
        name = option.removeprefix("--")
        value = getattr(args, name)
        if namespace is not None and isinstance(value, str) and value.startswith("$"):
            setattr(args, name, str(lookup(namespace, value[1:])))
    return {name: getattr(args, name) for name in option_names(Target)}


def parse_arguments(namespace: dict[str, Any], pairs: list[str], json_part: str | None) -> dict[str, Any]:
    """A tool's arguments from ``key=value`` pairs and/or one JSON object (``$name``: a kernel variable)."""
    arguments: dict[str, Any] = {}
    if json_part is not None:
        if json_part.startswith("$"):
            value = lookup(namespace, json_part[1:])
        else:
            try:
                value = json.loads(json_part)
            except json.JSONDecodeError as exc:
                raise UsageError(t("magic.bad_json", error=exc)) from None
        if not isinstance(value, dict):
            raise UsageError(t("magic.bad_json", error=f"expected an object, got {type(value).__name__}"))
        arguments.update(value)
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise UsageError(t("magic.bad_pair", token=pair))
        arguments[key] = lookup(namespace, raw[1:]) if raw.startswith("$") else _json_or_str(raw)
    return arguments


def strip_comment(line: str) -> str:
    """`line` without its trailing comment, as a shell reads it: ``%mcp_serve  # note`` → ``%mcp_serve``.

    A ``#`` starts a comment only at the start of a word, outside quotes and outside JSON brackets, so
    ``text="#1 item"``, ``tag=#a`` and ``{"tag": "#a"}`` keep theirs. A line with an unclosed quote
    is returned whole, for the magic's own parser to report.
    """
    comment = _split(line)[1]
    return line if comment is None else line[:comment].rstrip()


def tokens(text: str) -> list[str]:
    """Split like a shell, but keep JSON intact: ``tags=["a","b"] text='two words'``.

    Whitespace inside quotes or brackets does not split. A quoted value stays a string
    (``n='3'`` is the text "3", ``n=3`` the number 3); a wholly quoted token loses its quotes.
    """
    words, _, closed = _split(text)
    if not closed:
        raise UsageError(t("magic.bad_pair", token=text))
    return [_unquote(word) for word in words]


def _split(text: str) -> tuple[list[str], int | None, bool]:
    """The words of `text`, where a comment starts (if one does), and whether every quote is closed.

    One reading for `strip_comment` and `tokens`, so a ``#`` is a comment for both or for neither.
    Inside double quotes a backslash escapes the next character (as in JSON and in a shell).
    """
    words: list[str] = []
    current: list[str] = []
    quote: str | None = None
    escaped = False
    depth = 0
    for index, char in enumerate(text):
        if quote is not None:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth = max(0, depth - 1)
        elif depth == 0 and char.isspace():
            if current:
                words.append("".join(current))
                current = []
            continue
        elif depth == 0 and char == "#" and not current:
            return words, index, True
        current.append(char)
    if current:
        words.append("".join(current))
    return words, None, quote is None


def _unquote(token: str) -> str:
    key, sep, value = token.partition("=")
    if sep and key.isidentifier() and len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return f"{key}={json.dumps(_inside(value))}"  # a JSON string literal: parsed back as text
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        return _inside(token)
    return token


def _inside(quoted: str) -> str:
    """The text between the quotes; in double quotes, ``\\"`` and ``\\\\`` stand for ``"`` and ``\\``."""
    inner = quoted[1:-1]
    return re.sub(r'\\(["\\])', r"\1", inner) if quoted[0] == '"' else inner


def _json_or_str(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def lookup(namespace: dict[str, Any], name: str) -> Any:
    if name not in namespace:
        raise UsageError(t("magic.unknown_var", name=name))
    return namespace[name]
