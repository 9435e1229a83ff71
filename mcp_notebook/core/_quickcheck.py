"""A fast "yes" for the argument objects most tools take, before the full JSON Schema check.

Most notebook tools take a flat object of strings, numbers, booleans, enums and lists of those.
For such schemas a check compiled into a few closures answers in about a microsecond, where the
general validator takes about ten. It only ever says "valid" when the schema surely accepts the
value; anything it is unsure of (an unknown keyword, ``3.0`` for an integer, ...) says "not
sure", and the full validator decides and explains. So it can make a call faster, never wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]

_TYPES: dict[str, Check] = {
    "string": lambda v: type(v) is str,
    "integer": lambda v: type(v) is int,  # 3.0 is an integer to JSON Schema: left to the full check
    "number": lambda v: type(v) is int or type(v) is float,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
}
_NOTES = frozenset({"description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly"})
_BOUNDS: dict[str, Callable[[Any, Any], bool]] = {
    "minimum": lambda v, b: v >= b,
    "maximum": lambda v, b: v <= b,
    "exclusiveMinimum": lambda v, b: v > b,
    "exclusiveMaximum": lambda v, b: v < b,
}
_LENGTHS: dict[str, tuple[type[str] | type[list[Any]], bool]] = {
    "minLength": (str, True),
    "maxLength": (str, False),
    "minItems": (list, True),
    "maxItems": (list, False),
}


def quick_check(schema: Mapping[str, Any]) -> Check | None:
    """A check for the root arguments object, or None when `schema` is beyond this module."""
    if schema.get("type") != "object" or not set(schema) <= _NOTES | {
        "type",
        "properties",
        "required",
        "additionalProperties",
    }:
        return None
    closed = schema.get("additionalProperties", True)
    if closed not in (True, False):
        return None
    properties: dict[str, Check] = {}
    for name, sub in schema.get("properties", {}).items():
        check = _value_check(sub)
        if check is None:
            return None
        properties[name] = check
    required = tuple(schema.get("required", ()))

    def check_object(value: Any) -> bool:
        if type(value) is not dict:
            return False
        for name in required:
            if name not in value:
                return False
        for name, item in value.items():
            check = properties.get(name)
            if check is None:
                if closed is False:
                    return False  # an open object takes unknown keys; a closed one does not
            elif not check(item):
                return False
        return True

    return check_object


def _value_check(schema: Any) -> Check | None:
    if not isinstance(schema, Mapping):
        return None
    keys = set(schema) - _NOTES
    if "anyOf" in keys:
        return _any_of(schema) if keys == {"anyOf"} else None
    checks: list[Check] = []
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else None
    if kinds is None or not all(k in _TYPES or k == "array" for k in kinds):
        return None
    type_checks = []
    for k in kinds:
        if k == "array":
            items = schema.get("items", {})
            item_check = _value_check(items) if items != {} else (lambda v: True)
            if item_check is None:
                return None
            type_checks.append(_array(item_check))
        else:
            type_checks.append(_TYPES[k])
    checks.append(type_checks[0] if len(type_checks) == 1 else lambda v: any(c(v) for c in type_checks))
    for key in keys - {"type", "items"}:
        extra = _keyword(key, schema[key])
        if extra is None:
            return None
        checks.append(extra)
    return checks[0] if len(checks) == 1 else lambda v: all(c(v) for c in checks)


def _array(item_check: Check) -> Check:
    return lambda v: type(v) is list and all(item_check(item) for item in v)


def _any_of(schema: Mapping[str, Any]) -> Check | None:
    branches = [_value_check(branch) for branch in schema["anyOf"]]
    if any(branch is None for branch in branches):
        return None
    return lambda v: any(branch(v) for branch in branches)  # type: ignore[misc]


def _keyword(key: str, bound: Any) -> Check | None:
    if key in _BOUNDS and type(bound) in (int, float):
        compare = _BOUNDS[key]
        # Bounds apply to numbers only; a bool is not a number to JSON Schema.
        return lambda v: not (type(v) is int or type(v) is float) or compare(v, bound)
    if key in _LENGTHS and type(bound) is int:
        kind, at_least = _LENGTHS[key]
        if at_least:
            return lambda v: type(v) is not kind or len(v) >= bound
        return lambda v: type(v) is not kind or len(v) <= bound
    if key == "enum" and isinstance(bound, list) and bound and all(type(e) is str for e in bound):
        allowed = frozenset(bound)  # strings only: JSON Schema tells 1 from True, Python's `in` does not
        return lambda v: type(v) is str and v in allowed
    return None
