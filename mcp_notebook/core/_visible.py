"""What a person reads before deciding: every hidden character shown, and no value long enough to hide the rest.

Pure text and HTML helpers for approval prompts, task rows, the activity log and question forms:

- `visible` / `visible_html`: every character that draws nothing or rewrites the text around it
  shown as ``⟨U+XXXX⟩`` (controls, format characters, line and paragraph separators, surrogates,
  and Unicode's default-ignorable code points such as the Hangul fillers).
- `clip`: a client's short text (its claimed name) cut to a length, saying how long it was.
- `json_html`: arguments as indented JSON in HTML, long strings cut with their length shown.
- `WRAPPED`: the style of a box holding text a client controls, so it wraps instead of pushing
  what follows off to the side.
"""

from __future__ import annotations

import functools
import html
import json
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from ._text import t

MAX_CLAIM_CHARS = 64
"""A claimed name longer than this is cut: a name is a few words, and a longer one is a screenful of filler."""
MAX_VALUE_CHARS = 1000
"""A string argument longer than this is shown cut, with its length: nobody reads more in a prompt."""

# Categories whose every character draws nothing or acts on the text around it: controls, format
# characters (bidi controls, zero-width characters, the soft hyphen, tags ...), line and paragraph
# separators, and surrogates (a lone one is not text at all). Scanned from `unicodedata`, so the
# set follows the Unicode version of the Python that runs.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
# Default_Ignorable_Code_Point, from Unicode's DerivedCoreProperties.txt (15.1): drawn as nothing
# when a font has no glyph for them. `unicodedata` does not carry this property, and several are
# letters (the Hangul fillers are Lo) or marks that no category test finds.
_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors, vowel separator
    (0x200B, 0x200F),  # zero-width space, non-joiner, joiner; left-to-right and right-to-left marks
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidi isolates, deprecated format controls
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # zero-width no-break space (byte-order mark)
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFF8),  # reserved
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls
    (0xE0000, 0xE0FFF),  # tags, variation selectors supplement, reserved
)
# Not default-ignorable, yet drawn blank on purpose and used as filler the way U+3164 is.
_BLANK = ((0x2800, 0x2800),)  # Braille pattern blank
# Tab and newline are how a description or pretty-printed JSON is laid out; in a name they are hidden.
_LAYOUT = frozenset({0x09, 0x0A})


@functools.cache
def _hidden(one_line: bool) -> re.Pattern[str]:
    """One character class of everything to mark; built once, on first use (a scan of about 0.1 s)."""
    wanted = [
        code
        for code in range(0x110000)
        if unicodedata.category(chr(code)) in _HIDDEN_CATEGORIES and (one_line or code not in _LAYOUT)
    ]
    wanted += [code for low, high in (*_DEFAULT_IGNORABLE, *_BLANK) for code in range(low, high + 1)]
    ranges: list[list[int]] = []
    for code in sorted(set(wanted)):
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    body = "".join(_escape(low) if low == high else f"{_escape(low)}-{_escape(high)}" for low, high in ranges)
    return re.compile(f"[{body}]")


def _escape(code: int) -> str:
    # \UXXXXXXXX, not the character: the pattern then holds no raw surrogate or control character.
    return f"\\U{code:08x}"


def _marker(match: re.Match[str]) -> str:
    return f"⟨U+{ord(match.group()):04X}⟩"


def visible(text: str, *, one_line: bool = False) -> str:
    """`text` with every invisible or text-rewriting character shown as ``⟨U+XXXX⟩``.

    Nothing is removed, so a person approving a call sees exactly what the client sent:
    ``"rm\\u202etxt.exe"`` reads ``rm⟨U+202E⟩txt.exe``, ``"\\x1b[2J"`` reads ``⟨U+001B⟩[2J`` instead of
    clearing the screen, and a name of Hangul fillers (U+3164) reads as the markers it is. Tab and
    newline stay unless `one_line` (a name, where they are hidden too).
    """
    return _hidden(one_line).sub(_marker, text)


def visible_html(text: str, *, one_line: bool = False) -> str:
    """`visible` for HTML: escaped, each marker highlighted so it stands out from the text around it."""
    parts: list[str] = []
    last = 0
    for match in _hidden(one_line).finditer(text):
        parts.append(html.escape(text[last : match.start()]))
        parts.append(f"<mark title='hidden character'>{_marker(match)}</mark>")
        last = match.end()
    parts.append(html.escape(text[last:]))
    return "".join(parts)


def clip(text: str, limit: int = MAX_CLAIM_CHARS) -> str:
    """`text` itself, or its first `limit` characters and ``… (N characters)`` saying how long it was."""
    if len(text) <= limit:
        return text
    return text[:limit] + t("visible.cut", n=len(text))


def json_html(value: Any, limit: int = MAX_VALUE_CHARS) -> str:
    """`value` as indented JSON in HTML: hidden characters marked, strings over `limit` cut with their length.

    The length note is highlighted markup outside the string's quotes, so text a client wrote
    cannot pass for it.
    """
    return _json_html(value, limit, "")


def _json_html(value: Any, limit: int, pad: str) -> str:
    inner = pad + "  "
    if isinstance(value, str):
        shown = visible_html(json.dumps(value[:limit], ensure_ascii=False))
        if len(value) > limit:
            shown += f" <mark title='cut'>{html.escape(t('visible.cut', n=len(value)))}</mark>"
        return shown
    if isinstance(value, Mapping) and value:
        items = [
            f"{inner}{_json_html(str(k), limit, inner)}: {_json_html(v, limit, inner)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list | tuple) and value:
        items = [f"{inner}{_json_html(item, limit, inner)}" for item in value]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return visible_html(json.dumps(value, ensure_ascii=False, default=str))


WRAPPED = "white-space:pre-wrap;overflow-wrap:anywhere;max-height:24em;overflow:auto"
"""CSS for a box of text a client controls: long words and runs of spaces wrap, and a tall value scrolls."""
