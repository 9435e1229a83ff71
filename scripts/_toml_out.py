"""Write the lessons' data as TOML that reads well (``tomllib`` reads it; the standard library writes none).

Short texts ``{ko, en}`` and small tables go inline; a table of texts becomes dotted keys
(``markdown.ko = '''...'''``); other tables and lists of tables get their own headers. Multi-line text
is written as a literal string (``'''``), exactly as it is, whenever TOML allows.
"""

from __future__ import annotations

import re
from typing import Any

INLINE_WIDTH = 100
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def dumps(data: dict[str, Any], header: str = "") -> str:
    """`data` as TOML text, after `header` (comment lines)."""
    lines: list[str] = [f"# {line}".rstrip() for line in header.splitlines()]
    _table(data, [], lines, headed=True)
    return "\n".join(lines).strip("\n") + "\n"


def _key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _basic(key)


def _path(path: list[str]) -> str:
    return ".".join(_key(p) for p in path)


def _basic(text: str) -> str:
    out = []
    for ch in text:
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _string(text: str) -> str:
    if "\n" not in text:
        if '"' in text and "'" not in text and not _controls(text):
            return f"'{text}'"
        return _basic(text)
    if "'''" not in text and not text.endswith("'") and not _controls(text.replace("\n", "")):
        return "'''\n" + text + "'''"
    escaped = _basic(text)[1:-1].replace("\\n", "\n")
    return '"""\n' + escaped.replace('"""', '""\\"') + '"""'


def _controls(text: str) -> bool:
    return any((ord(ch) < 0x20 and ch != "\t") or ord(ch) == 0x7F for ch in text)


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        items = [_scalar(v) or "" for v in value]
        one_line = "[" + ", ".join(items) + "]"
        if len(one_line) <= INLINE_WIDTH and "\n" not in one_line:
            return one_line
        return "[\n" + "".join(f"    {item},\n" for item in items) + "]"
    return None


def _inline(value: Any) -> str | None:
    """`value` on one line, if it fits."""
    if isinstance(value, dict):
        parts = []
        for key, item in value.items():
            shown = _inline(item)
            if shown is None:
                return None
            parts.append(f"{_key(key)} = {shown}")
        text = "{ " + ", ".join(parts) + " }" if parts else "{}"
    elif isinstance(value, list):
        shown_items = [_inline(item) for item in value]
        if any(item is None for item in shown_items):
            return None
        text = "[" + ", ".join(str(item) for item in shown_items) + "]"
    else:
        text = _scalar(value) or ""
    return text if "\n" not in text and len(text) <= INLINE_WIDTH else None


def _is_text(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and bool(value)
        and set(value) <= {"ko", "en"}
        and all(isinstance(v, str) for v in value.values())
    )


def _own_lines(key: str, value: Any) -> list[str] | None:
    """`key = value` as lines of the table it is in, or None when it needs a header of its own."""
    if isinstance(value, dict):
        inline = _inline(value)
        if inline is not None:
            return [f"{_key(key)} = {inline}"]
        if _is_text(value):  # a long text: markdown.ko = '''...''', markdown.en = ...
            return [f"{_key(key)}.{_key(k)} = {_scalar(v)}" for k, v in value.items()]
        return None
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        inline = _inline(value)
        return None if inline is None else [f"{_key(key)} = {inline}"]
    shown = _scalar(value)
    if shown is None:  # a list mixing tables and values: inline tables, one per line
        items = [_inline(v) or _scalar(v) or "" for v in value]
        shown = "[\n" + "".join(f"    {item},\n" for item in items) + "]"
    return [f"{_key(key)} = {shown}"]


def _table(data: dict[str, Any], path: list[str], lines: list[str], *, headed: bool) -> None:
    rendered = {key: _own_lines(key, value) for key, value in data.items()}
    if data and all(isinstance(v, dict) for v in data.values()) and None in rendered.values():
        # A collection (items, options, categories): its order matters, and a key written inline
        # would come before the ones with headers, so every member gets a header.
        rendered = dict.fromkeys(data)
    own = [line for lines_of in rendered.values() if lines_of is not None for line in lines_of]
    if own:
        if not headed:
            lines.extend(["", f"[{_path(path)}]"])
        lines.extend(own)
    for key, value in data.items():
        if rendered[key] is not None:
            continue
        if isinstance(value, dict):
            _table(value, [*path, key], lines, headed=False)
        else:
            for item in value:
                lines.extend(["", f"[[{_path([*path, key])}]]"])
                _table(item, [*path, key], lines, headed=True)
