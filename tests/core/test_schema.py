"""Unit tests for mcp_notebook.core._schema: schemas from functions, argument problems, argument conversion."""

import dataclasses
import datetime as dt
import enum
import io
import pathlib
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal, NewType, NotRequired, Optional, TypedDict

import annotated_types as at
import jsonschema
import pydantic
import pytest

from mcp_notebook.core import _text
from mcp_notebook.core._arguments import argument_problems, compile_validator, convert_arguments
from mcp_notebook.core._errors import ToolDefinitionError
from mcp_notebook.core._schema import FunctionSchema, UnsupportedTypeError, function_schema, type_schema


def checked(schema: dict[str, Any] | None) -> Any:
    """Every schema we hand out must itself be a valid Draft 2020-12 schema."""
    assert schema is not None
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def ts(tp: Any) -> dict[str, Any]:
    return checked(type_schema(tp))


def fs(fn: Callable[..., Any]) -> FunctionSchema:
    result = function_schema(fn)
    checked(result.input_schema)
    if result.output_schema is not None:
        checked(result.output_schema)
    return result


def problems(fn: Callable[..., Any], arguments: Any) -> list[str]:
    return argument_problems(compile_validator(fs(fn).input_schema), arguments)


class Unit(enum.Enum):
    C = "C"
    F = "F"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass
class Line:
    sku: str
    qty: int = 1


@dataclasses.dataclass
class Order:
    lines: list[Line]
    note: str | None = None
    tags: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Node:
    name: str
    children: list["Node"] = dataclasses.field(default_factory=list)


class Address(TypedDict):
    street: str
    zip: str
    floor: NotRequired[int]


class Person(pydantic.BaseModel):
    name: str
    address: "PostalAddress"


class PostalAddress(pydantic.BaseModel):
    city: str
    zip: str = "00000"


Person.model_rebuild()


class Open(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow")
    x: int


class Opaque:
    pass


# -- single types ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tp", "schema"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (None, {"type": "null"}),
        (type(None), {"type": "null"}),
        (Any, {}),
        (dt.datetime, {"type": "string", "format": "date-time"}),
        (dt.date, {"type": "string", "format": "date"}),
        (uuid.UUID, {"type": "string", "format": "uuid"}),
    ],
)
def test_scalar_types(tp: Any, schema: dict[str, Any]) -> None:
    assert ts(tp) == schema


@pytest.mark.parametrize(
    ("tp", "schema"),
    [
        (str | None, {"anyOf": [{"type": "string"}, {"type": "null"}]}),
        (Optional[int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}),  # noqa: UP045
        (int | str, {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        (list[int] | None, {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]}),
    ],
)
def test_unions_are_any_of(tp: Any, schema: dict[str, Any]) -> None:
    assert ts(tp) == schema


@pytest.mark.parametrize(
    ("tp", "schema"),
    [
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (Sequence[str], {"type": "array", "items": {"type": "string"}}),
        (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        (frozenset[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        (tuple[float, ...], {"type": "array", "items": {"type": "number"}}),
        (
            tuple[int, str],
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
        ),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (Mapping[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
        (list, {"type": "array"}),
        (dict, {"type": "object"}),
        (dict[str, Any], {"type": "object"}),
        (list[Any], {"type": "array"}),
    ],
)
def test_containers(tp: Any, schema: dict[str, Any]) -> None:
    assert ts(tp) == schema


def test_literal_of_strings_has_a_type() -> None:
    assert ts(Literal["a", "b"]) == {"type": "string", "enum": ["a", "b"]}
    assert ts(Literal[1, 2]) == {"type": "integer", "enum": [1, 2]}


def test_literal_of_mixed_values_is_just_an_enum() -> None:
    assert ts(Literal["a", 1, None]) == {"enum": ["a", 1, None]}


def test_enum_classes() -> None:
    assert ts(Unit) == {"type": "string", "enum": ["C", "F"], "title": "Unit"}
    assert ts(Level) == {"type": "integer", "enum": [1, 2], "title": "Level"}


def test_enum_with_mixed_values_has_no_type() -> None:
    class Mixed(enum.Enum):
        A = "a"
        B = 2

    assert ts(Mixed) == {"enum": ["a", 2], "title": "Mixed"}


def test_annotated_string_is_the_description() -> None:
    assert ts(Annotated[str, "The city"]) == {"type": "string", "description": "The city"}


@pytest.mark.parametrize(
    ("tp", "schema"),
    [
        (Annotated[int, at.Gt(0)], {"type": "integer", "exclusiveMinimum": 0}),
        (Annotated[int, at.Ge(1), at.Le(14)], {"type": "integer", "minimum": 1, "maximum": 14}),
        (Annotated[float, at.Lt(1.5)], {"type": "number", "exclusiveMaximum": 1.5}),
        (Annotated[int, at.Interval(gt=0, le=10)], {"type": "integer", "exclusiveMinimum": 0, "maximum": 10}),
        (Annotated[float, at.MultipleOf(0.5)], {"type": "number", "multipleOf": 0.5}),
        (Annotated[str, at.MinLen(2)], {"type": "string", "minLength": 2}),
        (Annotated[str, at.MaxLen(5)], {"type": "string", "maxLength": 5}),
        (Annotated[str, at.Len(1, 3)], {"type": "string", "minLength": 1, "maxLength": 3}),
        (
            Annotated[list[int], at.Len(1, 3)],
            {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
        ),
        (
            Annotated[dict[str, int], at.MaxLen(2)],
            {"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 2},
        ),
    ],
)
def test_annotated_types_constraints(tp: Any, schema: dict[str, Any]) -> None:
    assert ts(tp) == schema


def test_pydantic_field_metadata() -> None:
    tp = Annotated[
        str,
        pydantic.Field(
            description="Code", title="Postcode", examples=["AB1"], pattern="^[A-Z]", max_length=8
        ),
    ]
    assert ts(tp) == {
        "type": "string",
        "title": "Postcode",
        "description": "Code",
        "examples": ["AB1"],
        "maxLength": 8,
        "pattern": "^[A-Z]",
    }
    assert ts(Annotated[int, pydantic.Field(ge=1, lt=10)]) == {
        "type": "integer",
        "minimum": 1,
        "exclusiveMaximum": 10,
    }


def test_typeddict_is_a_closed_object_with_its_required_keys() -> None:
    assert ts(Address) == {
        "type": "object",
        "title": "Address",
        "properties": {"street": {"type": "string"}, "zip": {"type": "string"}, "floor": {"type": "integer"}},
        "required": ["street", "zip"],
        "additionalProperties": False,
    }


def test_total_false_typeddict_has_no_required_keys() -> None:
    class Filters(TypedDict, total=False):
        city: str

    assert ts(Filters) == {
        "type": "object",
        "title": "Filters",
        "properties": {"city": {"type": "string"}},
        "additionalProperties": False,
    }


def test_nested_dataclasses_are_inlined_and_closed() -> None:
    line = {
        "type": "object",
        "title": "Line",
        "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "default": 1}},
        "required": ["sku"],
        "additionalProperties": False,
    }
    assert ts(Order) == {
        "type": "object",
        "title": "Order",
        "properties": {
            "lines": {"type": "array", "items": line},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["lines"],
        "additionalProperties": False,
    }


def test_dataclass_attribute_docs_become_descriptions() -> None:
    @dataclasses.dataclass
    class Point:
        """A point.

        Attributes:
            x: Distance from the left.
        """

        x: float

    assert ts(Point)["properties"] == {"x": {"type": "number", "description": "Distance from the left."}}


def test_recursive_dataclass_uses_defs() -> None:
    schema = ts(Node)
    assert schema == {
        "$ref": "#/$defs/Node",
        "$defs": {
            "Node": {
                "type": "object",
                "title": "Node",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
                "required": ["name"],
                "additionalProperties": False,
            }
        },
    }
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"name": "a", "children": [{"name": "b", "children": []}]})
    assert not validator.is_valid({"name": "a", "children": [{"children": []}]})


def test_pydantic_model_defs_move_to_the_root_and_models_are_closed() -> None:
    def register(person: Person) -> None:
        pass

    schema = fs(register).input_schema
    assert schema == {
        "type": "object",
        "properties": {
            "person": {
                "type": "object",
                "title": "Person",
                "properties": {
                    "name": {"title": "Name", "type": "string"},
                    "address": {"$ref": "#/$defs/PostalAddress"},
                },
                "required": ["name", "address"],
                "additionalProperties": False,
            }
        },
        "required": ["person"],
        "additionalProperties": False,
        "$defs": {
            "PostalAddress": {
                "type": "object",
                "title": "PostalAddress",
                "properties": {
                    "city": {"title": "City", "type": "string"},
                    "zip": {"title": "Zip", "type": "string", "default": "00000"},
                },
                "required": ["city"],
                "additionalProperties": False,
            }
        },
    }
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"person": {"name": "Ann", "address": {"city": "Seoul"}}})
    assert not validator.is_valid({"person": {"name": "Ann", "address": {"city": "Seoul", "x": 1}}})


def test_pydantic_extra_allow_stays_open() -> None:
    assert ts(Open)["additionalProperties"] is True


def test_pydantic_defs_with_clashing_names_are_renamed() -> None:
    class Inner(pydantic.BaseModel):
        a: int

    class First(pydantic.BaseModel):
        inner: Inner

    other_inner = type("Inner", (pydantic.BaseModel,), {"__annotations__": {"b": str}})
    second = pydantic.create_model("Second", inner=(other_inner, ...))

    def f(first: First, second: second) -> None:  # type: ignore[valid-type]
        pass

    schema = fs(f).input_schema
    refs = {schema["properties"][name]["properties"]["inner"]["$ref"] for name in ("first", "second")}
    assert len(refs) == 2
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"first": {"inner": {"a": 1}}, "second": {"inner": {"b": "x"}}})
    assert not validator.is_valid({"first": {"inner": {"b": "x"}}, "second": {"inner": {"b": "x"}}})


@pytest.mark.parametrize("tp", [Opaque, Callable[[int], int], io.TextIOWrapper, bytes, dict[int, str]])
def test_unsupported_types_raise(tp: Any) -> None:
    with pytest.raises(UnsupportedTypeError, match="has no JSON Schema equivalent") as info:
        type_schema(tp)
    assert isinstance(info.value, ToolDefinitionError)
    assert isinstance(info.value, TypeError)


# -- function_schema ------------------------------------------------------------------------------------


def get_weather(
    city: str, unit: Literal["C", "F"] = "C", days: Annotated[int, at.Ge(1), at.Le(14)] = 3
) -> str:
    """Get the weather forecast for a city.

    Uses the national weather service.

    Args:
        city: Name of the city.
        unit: Temperature unit.
        days: How many days to forecast.

    Returns:
        The forecast as text.
    """
    return city


def test_function_schema_of_a_google_style_function() -> None:
    result = fs(get_weather)
    assert result.description == "Get the weather forecast for a city.\n\nUses the national weather service."
    assert result.input_schema == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "Name of the city."},
            "unit": {
                "type": "string",
                "enum": ["C", "F"],
                "default": "C",
                "description": "Temperature unit.",
            },
            "days": {
                "type": "integer",
                "minimum": 1,
                "maximum": 14,
                "default": 3,
                "description": "How many days to forecast.",
            },
        },
        "required": ["city"],
        "additionalProperties": False,
    }
    assert list(result.input_schema["properties"]) == ["city", "unit", "days"]


def test_numpy_docstring() -> None:
    def convert(value: float, unit: Unit = Unit.C) -> float:
        """Convert a temperature.

        Parameters
        ----------
        value : float
            The temperature,
            in degrees.
        unit : Unit
            Its unit.

        Returns
        -------
        float
            The converted value.

        Examples
        --------
        >>> convert(1.0)
        """
        return value

    result = fs(convert)
    assert result.description == "Convert a temperature."
    assert result.input_schema["properties"] == {
        "value": {"type": "number", "description": "The temperature,\nin degrees."},
        "unit": {
            "type": "string",
            "enum": ["C", "F"],
            "title": "Unit",
            "default": "C",
            "description": "Its unit.",
        },
    }


def test_rest_docstring() -> None:
    def f(x: int) -> None:
        """Do it.

        :param x: The x.
        """

    assert fs(f).input_schema["properties"]["x"] == {"type": "integer", "description": "The x."}


def test_docstring_without_sections_is_the_description() -> None:
    def f() -> None:
        """First line.

        Second paragraph
            with indentation.
        """

    assert fs(f).description == "First line.\n\nSecond paragraph\n    with indentation."


def test_no_docstring_no_description() -> None:
    def f() -> None:
        pass

    assert fs(f).description is None


def test_explicit_descriptions_win_over_the_docstring() -> None:
    def f(
        a: Annotated[str, "From Annotated"], b: Annotated[str, pydantic.Field(description="From Field")]
    ) -> None:
        """Do.

        Args:
            a: From the docstring.
            b: From the docstring.
        """

    assert fs(f).input_schema["properties"] == {
        "a": {"type": "string", "description": "From Annotated"},
        "b": {"type": "string", "description": "From Field"},
    }


def test_function_without_parameters() -> None:
    def ping() -> None:
        pass

    assert fs(ping).input_schema == {"type": "object", "additionalProperties": False}


def test_unannotated_parameters_are_lenient() -> None:
    def f(anything, count=3, name="x", ratio=0.5, flag=False, other=None):  # type: ignore[no-untyped-def]
        pass

    assert fs(f).input_schema["properties"] == {
        "anything": {},
        "count": {"type": "integer", "default": 3},
        "name": {"type": "string", "default": "x"},
        "ratio": {"type": "number", "default": 0.5},
        "flag": {"type": "boolean", "default": False},
        "other": {"default": None},
    }
    assert fs(f).input_schema["required"] == ["anything"]


def test_defaults_that_are_not_json_are_left_out() -> None:
    def f(when: dt.date = dt.date(2024, 1, 1), pair: tuple[int, int] = (1, 2)) -> None:
        pass

    props = fs(f).input_schema["properties"]
    assert props["when"] == {"type": "string", "format": "date"}
    assert props["pair"]["default"] == [1, 2]
    assert "required" not in fs(f).input_schema


def test_field_default_makes_a_parameter_optional() -> None:
    def f(
        a: Annotated[int, pydantic.Field(default=5, ge=0)], b: int = pydantic.Field(7, description="B")
    ) -> None:
        pass

    schema = fs(f).input_schema
    assert schema["properties"] == {
        "a": {"type": "integer", "minimum": 0, "default": 5},
        "b": {"type": "integer", "description": "B", "default": 7},
    }
    assert "required" not in schema
    assert convert_arguments(f, {}) == {"a": 5, "b": 7}
    assert convert_arguments(f, {"b": 1}) == {"a": 5, "b": 1}


def test_string_annotations_are_resolved() -> None:
    def f(unit: "Unit", when: "dt.date") -> None:
        pass

    assert fs(f).input_schema["properties"]["unit"]["enum"] == ["C", "F"]


def test_async_functions() -> None:
    async def fetch(url: str) -> int:
        """Fetch a page."""
        return 0

    result = fs(fetch)
    assert result.description == "Fetch a page."
    assert result.input_schema["required"] == ["url"]
    assert result.wraps_output is True


def test_varargs_is_refused() -> None:
    def f(*names: str) -> None:
        pass

    with pytest.raises(ToolDefinitionError) as info:
        function_schema(f)
    assert str(info.value) == _text.t("param.varargs", func="f", param="names")


def test_varkw_is_refused() -> None:
    def f(**options: str) -> None:
        pass

    with pytest.raises(ToolDefinitionError) as info:
        function_schema(f)
    assert str(info.value) == _text.t("param.varkw", func="f", param="options")


def test_positional_only_is_refused() -> None:
    def f(a: int, /) -> None:
        pass

    with pytest.raises(ToolDefinitionError, match="positional-only"):
        function_schema(f)


def test_unsupported_parameter_type_names_parameter_and_function() -> None:
    def f(handle: Opaque) -> None:
        pass

    with pytest.raises(ToolDefinitionError) as info:
        function_schema(f)
    assert str(info.value) == _text.t("type.unsupported", param="handle", func="f", type="Opaque")


def test_unsupported_type_inside_another_is_named() -> None:
    def f(callbacks: list[Callable[[], None]]) -> None:
        pass

    with pytest.raises(ToolDefinitionError, match=r"'callbacks' of f\(\).*contains Callable\[\[\], None\]"):
        function_schema(f)


def test_unresolvable_parameter_hint_is_a_definition_error() -> None:
    def f(x: "Missing") -> None:  # type: ignore[name-defined]  # noqa: F821
        pass

    with pytest.raises(ToolDefinitionError, match="name 'Missing' is not defined"):
        function_schema(f)


def test_unresolvable_return_hint_only_drops_the_output_schema() -> None:
    def f(x: int) -> "Missing":  # type: ignore[name-defined]  # noqa: F821
        pass

    result = fs(f)
    assert result.input_schema["properties"] == {"x": {"type": "integer"}}
    assert (result.output_schema, result.wraps_output) == (None, False)


# -- output schemas ---------------------------------------------------------------------------------------


def test_scalar_output_is_wrapped() -> None:
    def f() -> int:
        return 1

    result = fs(f)
    assert result.output_schema == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }
    assert result.wraps_output is True


@pytest.mark.parametrize(
    "tp",
    [list[str], Literal["a", "b"], Unit, str | None, Address | None, float],
)
def test_non_object_outputs_are_wrapped(tp: Any) -> None:
    def f() -> None:
        pass

    f.__annotations__["return"] = tp
    result = fs(f)
    assert result.wraps_output is True
    assert result.output_schema is not None
    assert result.output_schema["properties"]["result"] == ts(tp)


def test_dict_output_is_not_wrapped_nor_closed() -> None:
    def f() -> dict:  # type: ignore[type-arg]
        return {}

    def g() -> dict[str, int]:
        return {}

    assert (fs(f).output_schema, fs(f).wraps_output) == ({"type": "object"}, False)
    assert fs(g).output_schema == {"type": "object", "additionalProperties": {"type": "integer"}}


def test_class_outputs_are_not_wrapped() -> None:
    def f() -> Address:
        return {"street": "", "zip": ""}

    def g() -> Line:
        return Line("x")

    def h() -> PostalAddress:
        return PostalAddress(city="x")

    assert fs(f).output_schema == ts(Address)
    assert fs(f).wraps_output is False
    assert fs(g).output_schema == ts(Line)
    assert fs(h).output_schema["title"] == "PostalAddress"  # type: ignore[index]
    assert fs(h).wraps_output is False


def test_recursive_output_has_an_object_root() -> None:
    def f() -> Node:
        return Node("x")

    result = fs(f)
    assert result.output_schema is not None
    assert result.output_schema["type"] == "object"
    assert result.output_schema["$ref"] == "#/$defs/Node"
    assert result.wraps_output is False


class FakeContent(pydantic.BaseModel):
    type: str


FakeContent.__module__ = "mcp.types"


@pytest.mark.parametrize("tp", [bytes, None, Any, Opaque, FakeContent, list[FakeContent], Callable[[], int]])
def test_outputs_without_a_schema(tp: Any) -> None:
    def f() -> None:
        pass

    f.__annotations__["return"] = tp
    assert (fs(f).output_schema, fs(f).wraps_output) == (None, False)


def test_no_return_annotation_no_output_schema() -> None:
    def f():  # type: ignore[no-untyped-def]
        pass

    assert (fs(f).output_schema, fs(f).wraps_output) == (None, False)


# -- argument problems ------------------------------------------------------------------------------------


def weather(
    city: str, unit: Literal["C", "F"] = "C", days: Annotated[int, at.Le(14)] = 3, count: int = 1
) -> None:
    pass


def test_valid_arguments_have_no_problems() -> None:
    assert problems(weather, {"city": "Seoul", "unit": "F"}) == []


def test_enum_problem() -> None:
    assert problems(weather, {"city": "Seoul", "unit": "K"}) == ["unit: 'K' is not one of ['C', 'F']"]


def test_missing_problem() -> None:
    assert problems(weather, {}) == ["missing required argument 'city'"]


def test_unexpected_problem() -> None:
    assert problems(weather, {"city": "Seoul", "colour": "red"}) == [
        "unexpected argument 'colour' (this tool accepts: city, unit, days, count)"
    ]


def test_type_and_bound_problems_are_all_reported_sorted_by_path() -> None:
    assert problems(weather, {"unit": "K", "count": "three", "days": 30}) == [
        "missing required argument 'city'",
        "count: 'three' is not of type 'integer'",
        "days: 30 is greater than the maximum of 14",
        "unit: 'K' is not one of ['C', 'F']",
    ]


def test_several_missing_and_unexpected_arguments_get_a_line_each() -> None:
    def f(a: int, b: int) -> None:
        pass

    assert problems(f, {"x": 1, "y": 2}) == [
        "missing required argument 'a'",
        "missing required argument 'b'",
        "unexpected argument 'x' (this tool accepts: a, b)",
        "unexpected argument 'y' (this tool accepts: a, b)",
    ]


def test_unexpected_argument_for_a_tool_without_parameters() -> None:
    def ping() -> None:
        pass

    assert problems(ping, {"x": 1}) == ["unexpected argument 'x' (this tool accepts: (none))"]


@pytest.mark.parametrize(
    ("arguments", "line"),
    [
        ([1, 2], "the arguments must be a JSON object of argument names and values, got array: [1, 2]"),
        ("Seoul", "the arguments must be a JSON object of argument names and values, got string: 'Seoul'"),
        (None, "the arguments must be a JSON object of argument names and values, got null: None"),
    ],
)
def test_arguments_that_are_not_an_object(arguments: Any, line: str) -> None:
    assert problems(weather, arguments) == [line]


def test_nested_problem_paths() -> None:
    def place(order: Order, address: Address) -> None:
        pass

    arguments = {
        "order": {"lines": [{"sku": "a"}, {"sku": "b"}, {"sku": "c", "qty": "two"}]},
        "address": {"street": "Main", "zap": "1"},
    }
    assert problems(place, arguments) == [
        "address: missing required argument 'zip'",
        "address: unexpected field 'zap' (allowed fields: street, zip, floor)",
        "order.lines[2].qty: 'two' is not of type 'integer'",
    ]


def test_optional_values_report_the_branch_that_was_meant() -> None:
    def f(unit: Unit | None = None, n: int | None = None, line: Line | None = None) -> None:
        pass

    assert problems(f, {"unit": "K", "n": "x", "line": {"sku": 1}}) == [
        "line.sku: 1 is not of type 'string'",
        "n: 'x' is not of type 'integer', 'null'",
        "unit: 'K' is not one of ['C', 'F']",
    ]


def test_ambiguous_union_falls_back_to_the_jsonschema_message() -> None:
    def f(x: Annotated[int, at.Ge(10)] | Annotated[float, at.Le(-10)]) -> None:
        pass

    assert problems(f, {"x": 0}) == ["x: 0 is not valid under any of the given schemas"]


def test_format_problems() -> None:
    def f(when: dt.date, at_: dt.datetime, id: uuid.UUID) -> None:
        pass

    assert problems(f, {"when": "2024-13-01", "at_": "soon", "id": "nope"}) == [
        "at_: 'soon' is not a 'date-time'",
        "id: 'nope' is not a 'uuid'",
        "when: '2024-13-01' is not a 'date'",
    ]
    assert (
        problems(f, {"when": "2024-02-01", "at_": "2024-02-01T10:00:00Z", "id": str(uuid.UUID(int=1))}) == []
    )


def test_problems_in_korean() -> None:
    _text.set_language("ko")
    assert problems(weather, {"colour": 1}) == [
        _text.both("call.missing", field="city")["ko"],
        _text.both("call.unexpected", field="colour", allowed="city, unit, days, count")["ko"],
    ]


def test_compile_validator_is_cached_per_schema_object() -> None:
    schema = {"type": "object"}
    assert compile_validator(schema) is compile_validator(schema)
    assert compile_validator(schema) is not compile_validator({"type": "object"})
    assert isinstance(compile_validator(schema), jsonschema.Draft202012Validator)


# -- conversion -----------------------------------------------------------------------------------------


def test_convert_enum_and_literal() -> None:
    def f(unit: Unit, level: Level, mode: Literal["a", "b"], maybe: Unit | None = None) -> None:
        pass

    assert convert_arguments(f, {"unit": "F", "level": 2, "mode": "a", "maybe": None}) == {
        "unit": Unit.F,
        "level": Level.HIGH,
        "mode": "a",
        "maybe": None,
    }
    assert convert_arguments(f, {"unit": "C", "level": 1, "mode": "b", "maybe": "F"})["maybe"] is Unit.F


def test_convert_nested_dataclasses() -> None:
    def place(order: Order) -> None:
        pass

    kwargs = convert_arguments(
        place, {"order": {"lines": [{"sku": "a", "qty": 2}, {"sku": "b"}], "note": None}}
    )
    assert kwargs == {"order": Order(lines=[Line("a", 2), Line("b")], note=None)}
    assert isinstance(kwargs["order"].lines[0], Line)


def test_convert_recursive_dataclass() -> None:
    def f(tree: Node) -> None:
        pass

    assert convert_arguments(f, {"tree": {"name": "a", "children": [{"name": "b"}]}}) == {
        "tree": Node("a", [Node("b")])
    }


def test_convert_pydantic_model() -> None:
    def register(person: Person, people: list[Person] | None = None) -> None:
        pass

    kwargs = convert_arguments(
        register, {"person": {"name": "Ann", "address": {"city": "Seoul"}}, "people": None}
    )
    assert kwargs["person"] == Person(name="Ann", address=PostalAddress(city="Seoul"))
    assert kwargs["people"] is None


def test_typeddict_stays_a_dict() -> None:
    def f(address: Address) -> None:
        pass

    value = {"street": "Main", "zip": "1"}
    assert convert_arguments(f, {"address": value}) == {"address": value}
    assert type(convert_arguments(f, {"address": value})["address"]) is dict


def test_convert_datetimes_uuids_tuples_and_sets() -> None:
    def f(
        when: dt.datetime,
        day: Annotated[dt.date, "The day"],
        id: uuid.UUID | None,
        pair: tuple[int, str],
        many: tuple[float, ...],
        tags: set[str],
    ) -> None:
        pass

    kwargs = convert_arguments(
        f,
        {
            "when": "2024-05-01T10:30:00+09:00",
            "day": "2024-05-01",
            "id": "12345678-1234-5678-1234-567812345678",
            "pair": [1, "a"],
            "many": [1, 2.5],
            "tags": ["x", "y", "x"],
        },
    )
    assert kwargs == {
        "when": dt.datetime(2024, 5, 1, 10, 30, tzinfo=dt.timezone(dt.timedelta(hours=9))),
        "day": dt.date(2024, 5, 1),
        "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "pair": (1, "a"),
        "many": (1.0, 2.5),
        "tags": {"x", "y"},
    }


def test_union_conversion_picks_the_member_that_fits() -> None:
    def f(x: int | dt.date, y: dict[str, Unit], z: int, w: Any) -> None:
        pass

    assert convert_arguments(f, {"x": "2024-01-02", "y": {"a": "C"}, "z": 3.0, "w": [1]}) == {
        "x": dt.date(2024, 1, 2),
        "y": {"a": Unit.C},
        "z": 3,
        "w": [1],
    }
    assert convert_arguments(f, {"x": 5, "y": {}, "z": 1, "w": None})["x"] == 5


def test_convert_leaves_plain_values_and_missing_defaults_alone() -> None:
    kwargs = convert_arguments(get_weather, {"city": "Seoul"})
    assert kwargs == {"city": "Seoul"}


def test_convert_fills_field_default_factory() -> None:
    def f(tags: Annotated[list[str], pydantic.Field(default_factory=list)]) -> None:
        pass

    assert "required" not in fs(f).input_schema
    first, second = convert_arguments(f, {}), convert_arguments(f, {})
    assert first == {"tags": []}
    assert first["tags"] is not second["tags"]


def test_convert_literal_of_enum_members_gives_the_member() -> None:
    def f(unit: Literal[Unit.C]) -> None:
        pass

    assert fs(f).input_schema["properties"]["unit"] == {"type": "string", "enum": ["C"]}
    assert convert_arguments(f, {"unit": "C"}) == {"unit": Unit.C}


def test_newtype_path_and_time() -> None:
    user_id = NewType("user_id", int)

    def f(user: user_id, folder: pathlib.Path, at: dt.time) -> None:
        pass

    assert fs(f).input_schema["properties"] == {
        "user": {"type": "integer"},
        "folder": {"type": "string"},
        "at": {"type": "string", "format": "time"},
    }
    assert convert_arguments(f, {"user": 7, "folder": "/tmp", "at": "10:30"}) == {
        "user": 7,
        "folder": pathlib.Path("/tmp"),
        "at": dt.time(10, 30),
    }


NOTEBOOK_CELL = '''
from __future__ import annotations
import dataclasses, enum

class Color(enum.Enum):
    RED = "red"

@dataclasses.dataclass
class Stroke:
    color: Color
    width: float = 1.0

def paint(stroke: Stroke, times: int = 1) -> list[Stroke]:
    """Paint a stroke."""
'''


def test_functions_and_classes_defined_in_a_notebook_namespace() -> None:
    # A kernel runs cells in a namespace that is not always sys.modules["__main__"].
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(NOTEBOOK_CELL, "<cell>", "exec"), namespace)
    result = fs(namespace["paint"])
    assert result.input_schema["properties"]["stroke"]["properties"]["color"] == {
        "type": "string",
        "enum": ["red"],
        "title": "Color",
    }
    assert result.wraps_output is True
    kwargs = convert_arguments(namespace["paint"], {"stroke": {"color": "red"}})
    assert kwargs == {"stroke": namespace["Stroke"](namespace["Color"].RED)}


def test_list_item_problem_paths() -> None:
    def f(units: list[Unit]) -> None:
        pass

    assert problems(f, {"units": ["C", "F", "K"]}) == ["units[2]: 'K' is not one of ['C', 'F']"]
