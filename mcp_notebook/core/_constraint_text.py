"""One line about a value that breaks a JSON Schema constraint, in the reader's language.

English keeps the validator's own words (``'K' is not one of ['C', 'F']``): what a model reads
and what JSON Schema documentation uses. In Korean the same facts, the constraint and the value
received, are said in Korean for the common keywords; anything rarer keeps the validator's words.
"""

from __future__ import annotations

from typing import Any

from ._text import get_language

# Korean only: English keeps the validator's own message (see the module docstring).
_KO = {
    "enum": "{value}은(는) {allowed} 중 하나가 아닙니다",
    "const": "{value}이(가) 아니라 {expected}여야 합니다",
    "type": "{value}은(는) {types} 타입이 아닙니다",
    "minimum": "{value}은(는) 최솟값 {limit}보다 작습니다",
    "maximum": "{value}은(는) 최댓값 {limit}보다 큽니다",
    "exclusiveMinimum": "{value}은(는) {limit}보다 커야 합니다",
    "exclusiveMaximum": "{value}은(는) {limit}보다 작아야 합니다",
    "multipleOf": "{value}은(는) {limit}의 배수가 아닙니다",
    "minLength": "{value}은(는) 너무 짧습니다(최소 {limit}자)",
    "maxLength": "{value}은(는) 너무 깁니다(최대 {limit}자)",
    "minItems": "항목이 너무 적습니다(최소 {limit}개, 받은 것은 {count}개)",
    "maxItems": "항목이 너무 많습니다(최대 {limit}개, 받은 것은 {count}개)",
    "uniqueItems": "{value}에 같은 항목이 두 번 이상 있습니다",
    "pattern": "{value}이(가) 패턴 {pattern}과(와) 맞지 않습니다",
    "format": "{value}은(는) 올바른 {format} 형식이 아닙니다",
}

# JSON Schema type names, with what a Korean reader calls them.
_KIND_KO = {
    "integer": "정수",
    "number": "수",
    "string": "문자열",
    "boolean": "참/거짓",
    "array": "배열",
    "object": "객체",
}


def constraint_message(keyword: str, expected: Any, value: Any, english: str) -> str:
    """Why `value` breaks the constraint `keyword` (whose schema value is `expected`).

    `english` is the validator's own message, returned as it is in English and for any keyword
    not translated here.
    """
    template = _KO.get(keyword)
    if get_language() == "en" or template is None:
        return english
    fields: dict[str, Any] = {"value": repr(value), "limit": expected}
    if keyword == "enum":
        fields["allowed"] = repr(list(expected))
    elif keyword == "const":
        fields["expected"] = repr(expected)
    elif keyword == "type":
        fields["types"] = type_names(expected)
    elif keyword in ("minItems", "maxItems"):
        fields["count"] = len(value) if isinstance(value, list | tuple) else "?"
    elif keyword == "pattern":
        fields["pattern"] = repr(expected)
    elif keyword == "format":
        fields["format"] = repr(expected)
    return template.format(**fields)


def type_message(types: Any, value: Any) -> str:
    """``value is not of type ...`` for one JSON type name or several, in the reader's language."""
    names = [types] if isinstance(types, str) else list(types)
    english = f"{value!r} is not of type {', '.join(repr(name) for name in names)}"
    return constraint_message("type", names, value, english)


def type_names(types: Any) -> str:
    names = [types] if isinstance(types, str) else list(types)
    return " 또는 ".join(f"{name!r}({_KIND_KO[name]})" if name in _KIND_KO else repr(name) for name in names)
