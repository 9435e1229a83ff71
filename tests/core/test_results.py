"""Return values of tool functions → ``CallToolResult`` dicts (content, structuredContent, isError)."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import enum
import importlib
import io
import json
import math
import uuid
from typing import Any, TypedDict

import pytest
from pydantic import BaseModel

import mcp_notebook
from mcp_notebook import Catalogue, tool
from mcp_notebook.core._catalogue import make_entry
from mcp_notebook.core._results import error_result, to_jsonable, to_result


def image_bytes(fmt: str) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (1, 1), "red").save(buffer, format=fmt)
    return buffer.getvalue()


def only_image(result: dict[str, Any]) -> tuple[str, bytes]:
    """The mime type and decoded bytes of a result that is exactly one image block."""
    assert result["isError"] is False
    assert "structuredContent" not in result
    [block] = result["content"]
    assert block["type"] == "image"
    return block["mimeType"], base64.b64decode(block["data"], validate=True)


class Colour(enum.Enum):
    RED = "red"
    GREEN = "green"


@dataclasses.dataclass
class Reading:
    city: str
    taken: dt.datetime
    colour: Colour
    tags: set[str]


class Forecast(TypedDict):
    city: str
    temperature: float


class Point(BaseModel):
    x: int
    y: float


# -- text ---------------------------------------------------------------------------------------------------


def test_a_string_is_one_text_block_without_structured_content() -> None:
    assert to_result("Sunny, 23 °C") == {
        "content": [{"type": "text", "text": "Sunny, 23 °C"}],
        "isError": False,
    }


def test_a_wrapped_string_is_text_plus_structured_result() -> None:
    result = to_result("Sunny", wraps_output=True)

    assert result["content"] == [{"type": "text", "text": "Sunny"}]
    assert result["structuredContent"] == {"result": "Sunny"}
    assert result["isError"] is False


def test_none_without_an_output_schema_is_an_empty_success() -> None:
    assert to_result(None) == {"content": [], "isError": False}


# -- structured data -------------------------------------------------------------------------------------


def test_a_dict_is_structured_content_and_the_same_json_as_text() -> None:
    value = {"city": "서울", "temperature": 23.5, "tags": ["clear"], "wind": None}

    result = to_result(value)

    assert result["structuredContent"] == value
    [block] = result["content"]
    assert block["type"] == "text"
    assert json.loads(block["text"]) == value
    assert "서울" in block["text"]  # readable, not \\u-escaped
    assert result["isError"] is False


@pytest.mark.parametrize("value", [[1, 2, 3], 42, 2.5, True], ids=["list", "int", "float", "bool"])
def test_non_objects_are_wrapped_in_result(value: Any) -> None:
    result = to_result(value)

    assert result["structuredContent"] == {"result": value}
    assert json.loads(result["content"][0]["text"]) == value
    assert result["isError"] is False


def test_a_wrapped_dict_is_nested_under_result() -> None:
    result = to_result({"a": 1}, wraps_output=True)

    assert result["structuredContent"] == {"result": {"a": 1}}


def test_a_dataclass_becomes_json() -> None:
    reading = Reading("Seoul", dt.datetime(2025, 5, 1, 12, 30), Colour.RED, {"rain", "cold"})

    result = to_result(reading)

    assert result["structuredContent"] == {
        "city": "Seoul",
        "taken": "2025-05-01T12:30:00",
        "colour": "red",
        "tags": ["cold", "rain"],
    }
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


def test_a_typeddict_becomes_json() -> None:
    forecast: Forecast = {"city": "Busan", "temperature": 21.0}

    assert to_result(forecast)["structuredContent"] == {"city": "Busan", "temperature": 21.0}


def test_a_pydantic_model_becomes_json() -> None:
    result = to_result(Point(x=1, y=2.5))

    assert result["structuredContent"] == {"x": 1, "y": 2.5}
    assert json.loads(result["content"][0]["text"]) == {"x": 1, "y": 2.5}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Colour.GREEN, "green"),
        (dt.datetime(2025, 5, 1, 9, 0, tzinfo=dt.UTC), "2025-05-01T09:00:00+00:00"),
        (dt.date(2025, 5, 1), "2025-05-01"),
        (dt.time(9, 30), "09:30:00"),
        (uuid.UUID(int=1), "00000000-0000-0000-0000-000000000001"),
        ((1, "a", None), [1, "a", None]),
        (frozenset({"b", "a"}), ["a", "b"]),
        (math.nan, None),
        (math.inf, None),
        (-math.inf, None),
        ({"nested": [math.nan, (1, 2)], 3: {"b"}}, {"nested": [None, [1, 2]], "3": ["b"]}),
    ],
    ids=["enum", "datetime", "date", "time", "uuid", "tuple", "frozenset", "nan", "inf", "-inf", "nested"],
)
def test_to_jsonable(value: Any, expected: Any) -> None:
    converted = to_jsonable(value)

    assert converted == expected
    json.dumps(converted, allow_nan=False)  # strict JSON: no NaN or Infinity


def test_a_set_becomes_a_list_of_its_items() -> None:
    converted = to_jsonable({3, 1, 2})

    assert isinstance(converted, list)
    assert sorted(converted) == [1, 2, 3]
    assert to_jsonable({3, 1, 2}) == converted  # the same order every time


def test_nan_in_a_result_is_null_in_the_text_too() -> None:
    result = to_result({"temperature": math.nan})

    assert result["structuredContent"] == {"temperature": None}
    assert json.loads(result["content"][0]["text"]) == {"temperature": None}


# -- images and bytes --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "mime"), [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif")]
)
def test_image_bytes_are_an_image_block(fmt: str, mime: str) -> None:
    data = image_bytes(fmt)

    assert only_image(to_result(data)) == (mime, data)
    assert only_image(to_result(bytearray(data))) == (mime, data)


def test_a_matplotlib_figure_is_a_png_image() -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure(figsize=(2, 2))
    figure.add_subplot().plot([0, 1], [0, 1])

    mime, data = only_image(to_result(figure))

    assert mime == "image/png"
    assert data.startswith(b"\x89PNG\r\n\x1a\n")


def test_a_pil_image_is_a_png_image() -> None:
    from PIL import Image

    mime, data = only_image(to_result(Image.new("RGB", (3, 2), "blue")))

    assert mime == "image/png"
    with Image.open(io.BytesIO(data)) as decoded:
        assert decoded.format == "PNG"
        assert decoded.size == (3, 2)


def test_other_bytes_are_an_embedded_blob() -> None:
    data = b"\x00\x01 not an image \xff"

    result = to_result(data)

    assert result["isError"] is False
    [block] = result["content"]
    assert block["type"] == "resource"
    assert block["resource"]["mimeType"] == "application/octet-stream"
    assert base64.b64decode(block["resource"]["blob"], validate=True) == data


# -- SDK content objects ----------------------------------------------------------------------------------


def test_sdk_text_content_passes_through() -> None:
    import mcp_types

    result = to_result(mcp_types.TextContent(type="text", text="x"))

    assert result == {"content": [{"type": "text", "text": "x"}], "isError": False}


def test_sdk_image_content_passes_through_with_camel_case_keys() -> None:
    import mcp_types

    data = base64.b64encode(image_bytes("PNG")).decode("ascii")

    result = to_result(mcp_types.ImageContent(type="image", data=data, mime_type="image/png"))

    assert result == {"content": [{"type": "image", "data": data, "mimeType": "image/png"}], "isError": False}


def test_a_list_of_sdk_content_passes_through_in_order() -> None:
    import mcp_types

    blocks = [
        mcp_types.TextContent(type="text", text="A red dot:"),
        mcp_types.ImageContent(type="image", data="AAAA", mime_type="image/png"),
    ]

    result = to_result(blocks)

    assert result["content"] == [
        {"type": "text", "text": "A red dot:"},
        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
    ]
    assert result["isError"] is False
    assert "structuredContent" not in result


def test_an_sdk_call_tool_result_passes_through() -> None:
    import mcp_types

    value = mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text="No such city.")],
        structured_content={"city": None},
        is_error=True,
    )

    result = to_result(value)

    assert result["content"] == [{"type": "text", "text": "No such city."}]
    assert result["structuredContent"] == {"city": None}
    assert result["isError"] is True


def test_an_sdk_call_tool_result_without_is_error_is_a_success() -> None:
    import mcp_types

    result = to_result(mcp_types.CallToolResult(content=[]))

    assert result["content"] == []
    assert result["isError"] is False


def test_a_user_model_with_a_type_field_is_data_not_a_content_block() -> None:
    importlib.import_module("mcp_types")  # as it is whenever the server is running

    class Attachment(BaseModel):
        type: str
        name: str

    result = to_result(Attachment(type="image", name="cat.png"))

    assert result.get("structuredContent") == {"type": "image", "name": "cat.png"}


# -- output schema -----------------------------------------------------------------------------------------

FORECAST_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "temperature": {"type": "number"}},
    "required": ["city", "temperature"],
    "additionalProperties": False,
}


def test_a_value_matching_the_output_schema_is_a_success() -> None:
    value = {"city": "Seoul", "temperature": 23}

    result = to_result(value, output_schema=FORECAST_SCHEMA, tool_name="forecast")

    assert result["isError"] is False
    assert result["structuredContent"] == value


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"city": "Seoul"}, "missing required field 'temperature'"),
        ({"city": "Seoul", "temperature": "hot"}, "temperature: 'hot' is not of type 'number'"),
        ({"city": "Seoul", "temperature": 23, "wind": 3}, "'wind'"),
    ],
    ids=["missing", "wrong-type", "extra"],
)
def test_a_value_not_matching_the_output_schema_is_an_error_naming_tool_and_problem(
    value: dict[str, Any], problem: str
) -> None:
    result = to_result(value, output_schema=FORECAST_SCHEMA, tool_name="forecast")

    assert result["isError"] is True
    assert "structuredContent" not in result
    [block] = result["content"]
    assert block["text"].startswith(
        "Tool 'forecast' returned a value that does not match its output schema: "
    )
    assert problem in block["text"]


def test_a_wrapped_scalar_is_checked_against_the_derived_schema() -> None:
    def add(a: int, b: int) -> int:
        return a + b

    entry = make_entry(add)
    schema = entry.output_schema
    assert schema is not None

    ok = to_result(5, output_schema=schema, wraps_output=entry.wraps_output, tool_name=entry.name)
    bad = to_result("five", output_schema=schema, wraps_output=entry.wraps_output, tool_name=entry.name)

    assert ok == {
        "content": [{"type": "text", "text": "5"}],
        "structuredContent": {"result": 5},
        "isError": False,
    }
    assert bad["isError"] is True
    assert "'add'" in bad["content"][0]["text"]
    assert "'five' is not of type 'integer'" in bad["content"][0]["text"]


def test_none_with_an_output_schema_is_an_error() -> None:
    result = to_result(None, output_schema=FORECAST_SCHEMA, tool_name="forecast")

    assert result["isError"] is True
    assert "'forecast'" in result["content"][0]["text"]


# -- errors ------------------------------------------------------------------------------------------------


def test_error_result() -> None:
    message = "No order 'A-17'. List orders with list_orders, then retry."

    assert error_result(message) == {"content": [{"type": "text", "text": message}], "isError": True}


def test_a_tool_redefined_to_return_another_shape_is_answered_on_a_connection_that_called_it_before(
    catalogue: Catalogue,
) -> None:
    """The client checks results against the output schema it listed; a cell that redefines the tool
    must not leave it checking the new answers against the old shape (plain calls and tasks alike)."""
    srv = mcp_notebook.serve(catalogue=catalogue)
    try:

        @tool(catalogue=catalogue, lint=False)
        def shape(n: int) -> str:
            """A tool whose return type the next cell changes."""
            return "text"

        assert mcp_notebook.call("shape", {"n": 1}).structured_content == {"result": "text"}
        assert mcp_notebook.call("shape", {"n": 1}, task=True).result(20).structured_content == {
            "result": "text"
        }

        @tool(catalogue=catalogue, lint=False)  # type: ignore[no-redef]
        def shape(n: int) -> dict[str, int]:  # noqa: F811 - a cell run again, as a notebook does
            """The same tool, now returning an object."""
            return {"n": n}

        assert mcp_notebook.call("shape", {"n": 2}).structured_content == {"n": 2}
        assert mcp_notebook.call("shape", {"n": 3}, task=True).result(20).structured_content == {"n": 3}
    finally:
        srv.stop()
