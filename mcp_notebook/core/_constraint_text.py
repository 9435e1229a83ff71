"""One line about a value that breaks a JSON Schema constraint, in the reader's language.

English keeps the validator's own words (``'K' is not one of ['C', 'F']``): what a model reads
and what JSON Schema documentation uses, except where those words hide the bound (``'abc' is too
short``: how short may it be?). In Korean the same facts, the constraint and the value received,
are said in Korean for the common keywords (the ``constraint.*`` messages); anything rarer keeps
the validator's words. Every message names the bound it was held to.
"""

from __future__ import annotations

from typing import Any

from ._text import get_language, t

# The keywords with a message of their own (``constraint.KEYWORD``).
_KEYWORDS = frozenset(
    {
        "enum", "const", "type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "uniqueItems",
        "pattern", "format",
    }
)  # fmt: skip
# Keywords whose validator words (``is too short``, ``has too many properties``) leave out the bound:
# said in our words in English too, so that a model knows what would pass.
_BOUNDLESS = frozenset({"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"})
# JSON Schema type names that have a message saying what a reader calls them (``constraint.kind.NAME``).
_KINDS = frozenset({"integer", "number", "string", "boolean", "array", "object"})


def constraint_message(keyword: str, expected: Any, value: Any, english: str) -> str:
    """Why `value` breaks the constraint `keyword` (whose schema value is `expected`).

    `english` is the validator's own message, returned as it is in English and for any keyword
    without a message of its own.
    """
    if keyword not in _KEYWORDS or (get_language() == "en" and keyword not in _BOUNDLESS):
        return english
    fields: dict[str, Any] = {"value": repr(value), "limit": expected}
    if keyword == "enum":
        fields["allowed"] = repr(list(expected))
    elif keyword == "const":
        fields["expected"] = repr(expected)
    elif keyword == "type":
        fields["types"] = type_names(expected)
    elif keyword in ("minItems", "maxItems", "minProperties", "maxProperties"):
        fields["count"] = len(value) if isinstance(value, list | tuple | dict) else "?"
    elif keyword == "pattern":
        fields["pattern"] = repr(expected)
    elif keyword == "format":
        fields["format"] = repr(expected)
    return t(f"constraint.{keyword}", **fields)


def type_message(types: Any, value: Any) -> str:
    """``value is not of type ...`` for one JSON type name or several, in the reader's language."""
    names = [types] if isinstance(types, str) else list(types)
    english = f"{value!r} is not of type {', '.join(repr(name) for name in names)}"
    return constraint_message("type", names, value, english)


def type_names(types: Any) -> str:
    """``'array'(배열) 또는 'null'``: JSON type names, each with what a reader calls it."""
    names = [types] if isinstance(types, str) else list(types)
    shown = [t(f"constraint.kind.{name}") if name in _KINDS else repr(name) for name in names]
    return t("constraint.or").join(shown)
