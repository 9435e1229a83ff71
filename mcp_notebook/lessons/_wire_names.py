"""Short answers that are names or codes on the wire, judged exactly, and the near misses among them.

A JSON field (``isError``), a method (``tools/list``) or a JSON-RPC error code (``-32602``) is right only
as the protocol spells it: a client that sends ``iserror`` or ``32602`` is not understood, so case and
sign matter. Forgiven is only what is not part of the name: whitespace, quotes and backticks around it,
and a full stop after it (`exact_form`).

An answer that misses a name the exercise knows (an accepted spelling, or a wrong answer it has advice
for) is told how it missed, in this order (`near_miss`):

- ``"sdk"``: the Python SDK's snake_case spelling of a camelCase name (``is_error`` for ``isError``);
  every camelCase name has one, found from the name itself (`sdk_spelling`);
- ``"sign"``: a negative code written without its minus sign (``32602`` for ``-32602``);
- ``"case"``: the same letters in another case (``iserror``, ``Tools/List``);
- ``"spelling"``: the same name once spaces, hyphens or underscores are ignored (``is-error``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

Miss = Literal["sdk", "sign", "case", "spelling"]

_AROUND = " \t\r\n`'\"“”‘’"
_FULL_STOPS = (".", "。")
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_IGNORED = re.compile(r"[\s_\-]+")
_MINUS = "-−"  # an ASCII hyphen-minus, or the minus sign a word processor puts in its place


def exact_form(value: str) -> str:
    """`value` without what surrounds a name: ``' `isError`. '`` → ``"isError"``; its case is kept."""
    form = value.strip(_AROUND)
    while form.endswith(_FULL_STOPS):
        form = form[:-1].strip(_AROUND)
    return form


def sdk_spelling(name: str) -> str:
    """How the Python SDK spells wire name `name` as an attribute: ``"isError"`` → ``"is_error"``."""
    return _HUMP.sub("_", name).lower()


def near_miss(given: str, names: Iterable[str]) -> tuple[str, Miss] | None:
    """The name among `names` that `given` (in `exact_form`) misses, and how; None when it misses none.

    Each kind of miss is looked for across all `names` before the next kind: ``is_error`` is also
    ``isError`` with an underscore added, but the advice it needs is the one about the SDK.
    """
    names = list(names)
    for name in names:
        snake = sdk_spelling(name)
        if snake != name and given.casefold() == snake:
            return name, "sdk"
    for name in names:
        if given.isdigit() and name[:1] in _MINUS and name[1:] == given:
            return name, "sign"
    for name in names:
        if given != name and given.casefold() == name.casefold():
            return name, "case"
    for name in names:
        if given != name and _IGNORED.sub("", given.casefold()) == _IGNORED.sub("", name.casefold()):
            return name, "spelling"
    return None
