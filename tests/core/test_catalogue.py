"""The catalogue: `@tool` registration, names, annotations, schemas, replacement and change events."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from mcp_notebook import Catalogue, ToolDefinitionError, set_language, tool
from mcp_notebook.core._catalogue import check_tool_name, make_entry


def events_of(catalogue: Catalogue) -> list[str]:
    events: list[str] = []
    catalogue.subscribe(events.append)
    return events


# -- registration -----------------------------------------------------------------------------------------


def test_bare_decorator_registers_and_returns_the_function_unchanged() -> None:
    catalogue = Catalogue()

    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    # The bare form, called directly: the overloads do not declare catalogue= for it.
    decorated = tool(add, catalogue=catalogue)  # type: ignore[call-overload]

    assert decorated is add
    assert add(2, 3) == 5
    assert catalogue.names() == ["add"]
    entry = catalogue.get("add")
    assert entry is not None and entry.fn is add


def test_decorator_with_options_registers_and_returns_the_function_unchanged() -> None:
    catalogue = Catalogue()

    @tool(name="sum_two", read_only=True, catalogue=catalogue)
    def add(a: int, b: int) -> int:
        return a + b

    assert add(2, 3) == 5
    assert add.__name__ == "add"
    assert catalogue.names() == ["sum_two"]
    entry = catalogue.get("sum_two")
    assert entry is not None and entry.fn is add and entry.read_only


def test_decorating_something_that_is_not_a_function_says_where_to_put_tool() -> None:
    with pytest.raises(ToolDefinitionError, match="@tool needs a function, got int"):
        tool(42, catalogue=Catalogue())  # type: ignore[call-overload]


# -- names -------------------------------------------------------------------------------------------------


def test_name_defaults_to_the_function_name() -> None:
    catalogue = Catalogue()

    @tool(catalogue=catalogue)
    def get_weather() -> str:
        return "sunny"

    assert catalogue.names() == ["get_weather"]


def test_name_option_overrides_the_function_name() -> None:
    catalogue = Catalogue()

    @tool(name="weather.now", catalogue=catalogue)
    def get_weather() -> str:
        return "sunny"

    assert catalogue.names() == ["weather.now"]
    assert "get_weather" not in catalogue


@pytest.mark.parametrize(
    ("name", "why", "suggestion"),
    [
        ("", "it is empty", "my_tool"),
        ("x" * 129, "it has 129 characters", "x" * 128),
        ("get weather", "it contains ' '", "get_weather"),
        ("날씨", "it contains '날', '씨'", "my_tool"),
        ("files/read", "it contains '/'", "files_read"),
        ("user@host", "it contains '@'", "user_host"),
    ],
    ids=["empty", "129-chars", "space", "korean", "slash", "at-sign"],
)
def test_invalid_name_says_what_is_wrong_and_suggests_a_valid_one(
    name: str, why: str, suggestion: str
) -> None:
    def fn() -> None:
        pass

    with pytest.raises(ToolDefinitionError) as caught:
        tool(name=name, catalogue=Catalogue())(fn)

    message = str(caught.value)
    assert f"Tool name {name!r} is not allowed: {why}." in message
    assert f"name='{suggestion}'" in message
    check_tool_name(suggestion)  # the suggestion itself is accepted


def test_korean_function_name_suggests_an_ascii_name() -> None:
    catalogue = Catalogue()
    with pytest.raises(ToolDefinitionError, match=r"name='my_tool'") as caught:

        @tool(catalogue=catalogue)
        def 날씨() -> str:
            return "맑음"

    assert "'날씨'" in str(caught.value)
    assert len(catalogue) == 0


@pytest.mark.parametrize("name", ["x" * 128, "db.query-v2", "A_b.C-9", "x"])
def test_valid_edge_names_pass(name: str) -> None:
    catalogue = Catalogue()

    def fn() -> None:
        pass

    tool(name=name, catalogue=catalogue)(fn)

    assert catalogue.names() == [name]


def test_a_name_ending_in_a_newline_is_rejected() -> None:
    with pytest.raises(ToolDefinitionError, match="is not allowed"):
        check_tool_name("forecast\n")


# -- annotations -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "annotations"),
    [
        ({"read_only": True}, {"readOnlyHint": True, "destructiveHint": False}),
        ({"read_only": False}, {"readOnlyHint": False}),
        ({"destructive": True}, {"destructiveHint": True}),
        ({"idempotent": True}, {"idempotentHint": True}),
        ({"open_world": False}, {"openWorldHint": False}),
        (
            {"read_only": True, "idempotent": True, "open_world": True},
            {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": True},
        ),
        ({"destructive": True, "idempotent": False}, {"destructiveHint": True, "idempotentHint": False}),
    ],
)
def test_behaviour_options_become_hints(options: dict[str, Any], annotations: dict[str, bool]) -> None:
    def fn() -> None:
        pass

    assert make_entry(fn, **options).to_wire()["annotations"] == annotations


def test_no_behaviour_options_means_no_annotations() -> None:
    def fn() -> None:
        pass

    assert "annotations" not in make_entry(fn).to_wire()


def test_read_only_and_destructive_together_are_refused() -> None:
    def wipe() -> None:
        pass

    with pytest.raises(ToolDefinitionError, match="'wipe' is marked both read_only and destructive"):
        tool(read_only=True, destructive=True, catalogue=Catalogue())(wipe)


# -- title, description, output schema --------------------------------------------------------------------


def test_title_is_shown_and_repeated_in_the_annotations() -> None:
    def fn() -> None:
        pass

    wire = make_entry(fn, title="Weather now", read_only=True).to_wire()

    assert wire["title"] == "Weather now"
    assert wire["annotations"] == {"readOnlyHint": True, "destructiveHint": False, "title": "Weather now"}


def test_docstring_is_the_default_description_and_description_overrides_it() -> None:
    def forecast(city: str) -> str:
        """Current weather for one city."""
        return city

    assert make_entry(forecast).to_wire()["description"] == "Current weather for one city."
    wire = make_entry(forecast, description="Use for questions about weather now.").to_wire()
    assert wire["description"] == "Use for questions about weather now."


def test_no_docstring_means_no_description() -> None:
    def forecast(city: str) -> str:
        return city

    assert "description" not in make_entry(forecast).to_wire()


def test_output_schema_override_is_used_as_is() -> None:
    schema = {
        "type": "object",
        "properties": {"temperature": {"type": "number"}},
        "required": ["temperature"],
    }

    def forecast(city: str) -> int:
        return 23

    entry = make_entry(forecast, output_schema=schema)

    assert entry.to_wire()["outputSchema"] == schema
    assert entry.wraps_output is False


def test_output_schema_false_removes_it() -> None:
    def forecast(city: str) -> int:
        return 23

    entry = make_entry(forecast, output_schema=False)

    assert "outputSchema" not in entry.to_wire()
    assert entry.wraps_output is False


def test_a_malformed_output_schema_override_fails_at_definition_time() -> None:
    def forecast(city: str) -> dict[str, Any]:
        return {}

    with pytest.raises(ToolDefinitionError):
        make_entry(forecast, output_schema={"type": 12})


def test_an_output_schema_override_must_be_an_object_schema() -> None:
    def forecast(city: str) -> list[int]:
        return []

    with pytest.raises(ToolDefinitionError):
        make_entry(forecast, output_schema={"type": "array", "items": {"type": "integer"}})


# -- the wire form -----------------------------------------------------------------------------------------


def test_to_wire_of_a_typical_tool() -> None:
    def forecast(city: str, days: int = 1) -> dict[str, Any]:
        """Weather forecast for one city.

        Parameters
        ----------
        city:
            The city, e.g. Seoul.
        """
        return {}

    wire = make_entry(forecast).to_wire()

    assert wire["name"] == "forecast"
    assert wire["description"] == "Weather forecast for one city."
    assert wire["inputSchema"] == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city, e.g. Seoul."},
            "days": {"type": "integer", "default": 1},
        },
        "required": ["city"],
        "additionalProperties": False,
    }
    assert wire["outputSchema"]["type"] == "object"


def test_to_wire_of_a_tool_without_parameters_is_still_a_closed_object() -> None:
    def ping() -> None:
        pass

    schema = make_entry(ping).to_wire()["inputSchema"]

    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False


def test_a_scalar_return_type_is_wrapped_in_an_object() -> None:
    def add(a: int, b: int) -> int:
        return a + b

    entry = make_entry(add)

    assert entry.wraps_output is True
    assert entry.to_wire()["outputSchema"] == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }


def test_no_return_annotation_means_no_output_schema() -> None:
    def add(a: int, b: int):  # type: ignore[no-untyped-def]
        return a + b

    entry = make_entry(add)

    assert "outputSchema" not in entry.to_wire()
    assert entry.wraps_output is False


# -- replacement and change events ------------------------------------------------------------------------


def test_redefining_a_tool_replaces_it_in_place() -> None:
    catalogue = Catalogue()

    @tool(catalogue=catalogue)
    def a() -> str:
        return "a"

    @tool(catalogue=catalogue)
    def b() -> str:
        return "old b"

    old_b = b

    @tool(catalogue=catalogue)
    def c() -> str:
        return "c"

    @tool(catalogue=catalogue)  # type: ignore[no-redef]
    def b() -> str:  # the cell defining b is run again
        return "new b"

    assert catalogue.names() == ["a", "b", "c"]
    entry = catalogue.get("b")
    assert entry is not None and entry.fn is b and entry.fn is not old_b
    assert entry.fn() == "new b"
    assert len(catalogue) == 3


def test_every_add_and_remove_emits_one_tools_event() -> None:
    catalogue = Catalogue()
    events = events_of(catalogue)

    def a() -> None:
        pass

    def b() -> None:
        pass

    tool(catalogue=catalogue)(a)
    tool(catalogue=catalogue)(b)
    tool(catalogue=catalogue)(b)  # a redefinition is a change too
    catalogue.remove("a")

    assert events == ["tools"] * 4


def test_every_subscriber_is_told() -> None:
    catalogue = Catalogue()
    first, second = events_of(catalogue), events_of(catalogue)

    def a() -> None:
        pass

    tool(catalogue=catalogue)(a)

    assert first == second == ["tools"]


def test_unsubscribe_stops_events_and_is_idempotent() -> None:
    catalogue = Catalogue()
    events: list[str] = []
    unsubscribe = catalogue.subscribe(events.append)

    def a() -> None:
        pass

    tool(catalogue=catalogue)(a)
    unsubscribe()
    unsubscribe()
    tool(catalogue=catalogue)(a)
    catalogue.remove("a")

    assert events == ["tools"]


def test_remove_returns_the_entry() -> None:
    catalogue = Catalogue()

    def a() -> None:
        pass

    tool(catalogue=catalogue)(a)

    assert catalogue.remove("a").fn is a
    assert catalogue.names() == []
    assert catalogue.get("a") is None


def test_removing_an_unknown_tool_suggests_near_names_and_lists_the_tools() -> None:
    catalogue = Catalogue()

    def forecast() -> None:
        pass

    def search() -> None:
        pass

    tool(catalogue=catalogue)(forecast)
    tool(catalogue=catalogue)(search)
    events = events_of(catalogue)

    with pytest.raises(KeyError) as caught:
        catalogue.remove("forcast")

    message = caught.value.args[0]
    assert "There is no tool named 'forcast'." in message
    assert "Did you mean 'forecast'?" in message
    assert "Defined tools: forecast, search." in message
    assert events == []
    assert catalogue.names() == ["forecast", "search"]


def test_removing_from_an_empty_catalogue_says_there_are_no_tools() -> None:
    with pytest.raises(KeyError) as caught:
        Catalogue().remove("forecast")

    message = caught.value.args[0]
    assert "Did you mean" not in message
    assert "Defined tools: (none)." in message


def test_clear_emits_one_event_only_when_there_was_something_to_clear() -> None:
    catalogue = Catalogue()

    def a() -> None:
        pass

    def b() -> None:
        pass

    tool(catalogue=catalogue)(a)
    tool(catalogue=catalogue)(b)
    events = events_of(catalogue)

    catalogue.clear()
    assert events == ["tools"]
    assert len(catalogue) == 0

    catalogue.clear()
    assert events == ["tools"]


# -- Korean messages -------------------------------------------------------------------------------------


def test_definition_errors_are_in_korean_after_set_language_ko() -> None:
    def fn() -> None:
        pass

    set_language("ko")  # the autouse fixture restores the language
    with pytest.raises(ToolDefinitionError) as bad_name:
        tool(name="날씨 예보", catalogue=Catalogue())(fn)
    with pytest.raises(ToolDefinitionError) as conflict:
        tool(read_only=True, destructive=True, catalogue=Catalogue())(fn)
    with pytest.raises(KeyError) as unknown:
        Catalogue().remove("fn")

    assert "도구 이름 '날씨 예보'는 쓸 수 없습니다" in str(bad_name.value)
    assert "name='my_tool'" in str(bad_name.value)
    assert "읽기 전용 도구는 아무것도 바꾸지 않으니" in str(conflict.value)
    assert unknown.value.args[0] == "'fn'이라는 도구가 없습니다. 정의된 도구: (없음)."  # 에프엔


# -- threads ------------------------------------------------------------------------------------------------


def test_concurrent_adds_and_removes_end_consistent() -> None:
    catalogue = Catalogue()
    events = events_of(catalogue)  # list.append is atomic, so the count is exact
    workers, per_worker = 8, 200
    start = threading.Barrier(workers, timeout=30)
    errors: list[BaseException] = []

    def fn() -> None:
        pass

    def work(worker: int) -> None:
        try:
            start.wait()
            for i in range(per_worker):
                tool(name=f"w{worker}_{i}", catalogue=catalogue)(fn)
                catalogue.names()
                if i % 2:
                    catalogue.remove(f"w{worker}_{i}")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    names = catalogue.names()
    assert len(names) == len(catalogue) == workers * per_worker // 2
    assert set(names) == {f"w{w}_{i}" for w in range(workers) for i in range(0, per_worker, 2)}
    for w in range(workers):  # each worker's tools keep their definition order
        mine = [name for name in names if name.startswith(f"w{w}_")]
        assert mine == [f"w{w}_{i}" for i in range(0, per_worker, 2)]
    assert len(events) == workers * per_worker * 3 // 2
