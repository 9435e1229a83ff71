"""The quick argument check never says "valid" where the full JSON Schema check would not."""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_notebook.core._quickcheck import quick_check

SCALAR_SCHEMAS = st.one_of(
    st.just({"type": "string"}),
    st.just({"type": "integer"}),
    st.just({"type": "number"}),
    st.just({"type": "boolean"}),
    st.just({"type": "null"}),
    st.builds(
        lambda lo, hi: {"type": "integer", "minimum": lo, "maximum": hi},
        st.integers(-5, 5),
        st.integers(-5, 5),
    ),
    st.builds(lambda b: {"type": "number", "exclusiveMaximum": b}, st.floats(-5, 5)),
    st.builds(lambda n: {"type": "string", "maxLength": n}, st.integers(0, 4)),
    st.builds(lambda n: {"type": "string", "minLength": n}, st.integers(0, 4)),
    st.builds(
        lambda values: {"type": "string", "enum": values},
        st.lists(st.text(max_size=2), min_size=1, max_size=3),
    ),
)
VALUE_SCHEMAS = st.recursive(
    SCALAR_SCHEMAS,
    lambda inner: st.one_of(
        st.builds(lambda s: {"type": "array", "items": s}, inner),
        st.builds(lambda s: {"anyOf": [s, {"type": "null"}]}, inner),
        st.builds(lambda s, n: {**s, "description": "x", "default": n}, inner, st.integers()),
    ),
    max_leaves=3,
)
NAMES = st.sampled_from(["a", "b", "c"])
OBJECT_SCHEMAS = st.builds(
    lambda props, required, closed: {
        "type": "object",
        "properties": props,
        "required": [name for name in required if name in props],
        "additionalProperties": closed,
    },
    st.dictionaries(NAMES, VALUE_SCHEMAS, max_size=3),
    st.lists(NAMES, max_size=3, unique=True),
    st.booleans(),
)
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.floats(-10, 10), st.text(max_size=4)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=2), inner, max_size=2)
    ),
    max_leaves=5,
)
ARGUMENTS = st.dictionaries(st.sampled_from(["a", "b", "c", "zz"]), JSON, max_size=4)


@settings(max_examples=2000, deadline=None)
@given(OBJECT_SCHEMAS, ARGUMENTS)
def test_quick_yes_implies_full_yes(schema: dict[str, Any], arguments: dict[str, Any]) -> None:
    check = quick_check(schema)
    assert check is not None  # every generated schema is within the quick check's reach
    if check(arguments):
        assert jsonschema.Draft202012Validator(schema).is_valid(arguments), (schema, arguments)


def test_typical_tool_schemas_are_fast_and_right() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["C", "F"], "default": "C"},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
        },
        "required": ["city"],
        "additionalProperties": False,
    }
    check = quick_check(schema)
    assert check is not None
    assert check({"city": "Seoul", "unit": "F", "days": 3, "tags": ["x"]})
    assert not check({"city": "Seoul", "unit": "K"})
    assert not check({"unit": "C"})
    assert not check({"city": "Seoul", "colour": "red"})
    assert not check({"city": "Seoul", "days": True})  # a bool is not an integer
    assert not check({"city": "Seoul", "days": 30})


def test_unknown_keywords_leave_it_to_the_full_check() -> None:
    assert quick_check({"type": "object", "properties": {"p": {"type": "string", "pattern": "^a"}}}) is None
    assert quick_check({"type": "object", "$defs": {}}) is None
    assert quick_check({"type": "array"}) is None
