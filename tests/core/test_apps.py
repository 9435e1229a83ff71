"""MCP Apps in the catalogue: ``app_resource``, ``@tool(app=, visibility=)`` and ``app_from(df)``.

What each refuses (and says, in English and Korean), what the entries carry for the wire, and that
a DataFrame's cells reach the table's page as data only, whatever they hold (hypothesis draws them).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_notebook import Catalogue, ToolDefinitionError, app_from, app_resource, resource, set_language, tool
from mcp_notebook.core._apps import MIME_TYPE, listed
from mcp_notebook.core._errors import ToolError
from mcp_notebook.core._table_app import script_json

PAGE = "<!doctype html><title>v</title><p>view</p>"


def config_of(page: str) -> dict[str, Any]:
    """The JSON the table's page carries, read as its script reads it (the element's text)."""
    found = re.search(r'<script type="application/json" id="config">(.*?)</script>', page, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


# -- app_resource --------------------------------------------------------------------------------------


def test_an_app_resource_is_a_ui_resource_served_as_an_mcp_app_with_its_csp_and_permissions(
    catalogue: Catalogue,
) -> None:
    uri = app_resource(
        "ui://sales/view",
        PAGE,
        description="Sales as a chart",
        csp={"connect_domains": ["https://api.example.com"], "resourceDomains": ["https://*.example.org"]},
        permissions=["clipboard_write"],
        prefers_border=True,
        catalogue=catalogue,
    )
    assert uri == "ui://sales/view"
    (entry,) = catalogue.resources()
    ui = {
        "csp": {
            "connectDomains": ["https://api.example.com"],
            "resourceDomains": ["https://*.example.org"],
        },
        "permissions": {"clipboardWrite": {}},
        "prefersBorder": True,
    }
    assert entry.to_wire() == {
        "uri": uri,
        "name": "sales/view",
        "description": "Sales as a chart",
        "mimeType": MIME_TYPE,
        "size": len(PAGE),
        "_meta": {"ui": ui},
    }
    assert entry.contents(entry.read()) == [
        {"uri": uri, "mimeType": MIME_TYPE, "text": PAGE, "_meta": {"ui": ui}}
    ]


def test_an_app_resource_reads_its_file_once_where_it_is_registered(
    catalogue: Catalogue, tmp_path: Path
) -> None:
    page = tmp_path / "view.html"
    page.write_text(PAGE, encoding="utf-8")
    app_resource("ui://v/page", path=page, catalogue=catalogue)
    page.write_text("changed", encoding="utf-8")
    (entry,) = catalogue.resources()
    assert entry.read() == PAGE and entry.to_wire().get("_meta") is None  # no csp: the host's strict default


@pytest.mark.parametrize(
    ("call", "english", "korean"),
    [
        (lambda c: app_resource("data://x", PAGE, catalogue=c), "starts with 'ui://'", "'ui://'로 시작"),
        (lambda c: app_resource("ui://", PAGE, catalogue=c), "starts with 'ui://'", "'ui://'로 시작"),
        (lambda c: app_resource("ui://x/{id}", PAGE, catalogue=c), "one fixed resource", "고정된 리소스"),
        (lambda c: app_resource("ui://x", catalogue=c), "not both and not neither", "하나만"),
        (lambda c: app_resource("ui://x", PAGE, path="v.html", catalogue=c), "not both", "하나만"),
        (
            lambda c: app_resource("ui://x", path="/nowhere/v.html", catalogue=c),
            "cannot read '/nowhere/v.html'",
            "읽지 못했습니다",
        ),
        (lambda c: app_resource("ui://x", b"<p>", catalogue=c), "not bytes", "bytes"),  # type: ignore[arg-type]
        (
            lambda c: app_resource("ui://x", PAGE, csp={"connect": ["https://a.io"]}, catalogue=c),
            "Did you mean 'connectDomains'",
            "connectDomains",
        ),
        (
            lambda c: app_resource("ui://x", PAGE, csp={"scriptDomains": []}, catalogue=c),
            "does not define",
            "정의하지 않은",
        ),
        (lambda c: app_resource("ui://x", PAGE, csp=["https://a.io"], catalogue=c), "must be a dict", "dict"),  # type: ignore[arg-type]
        (
            lambda c: app_resource("ui://x", PAGE, csp={"connectDomains": "https://a.io"}, catalogue=c),
            "must be a list",
            "목록",
        ),
        (
            lambda c: app_resource(
                "ui://x", PAGE, csp={"connectDomains": ["https://a.io; script-src *"]}, catalogue=c
            ),
            "not an origin",
            "출처가 아닙니다",
        ),
        (
            lambda c: app_resource(
                "ui://x", PAGE, csp={"frameDomains": ["javascript:alert(1)"]}, catalogue=c
            ),
            "not an origin",
            "출처가 아닙니다",
        ),
        (
            lambda c: app_resource("ui://x", PAGE, permissions=["camra"], catalogue=c),
            "Did you mean 'camera'",
            "camera",
        ),
        (lambda c: app_resource("ui://x", PAGE, permissions="camera", catalogue=c), "must be a list", "목록"),
    ],
)
def test_app_resource_refuses_what_cannot_work_saying_what_to_write_in_both_languages(
    catalogue: Catalogue, call: Any, english: str, korean: str
) -> None:
    for language, expected in (("en", english), ("ko", korean)):
        set_language(language)  # type: ignore[arg-type]
        with pytest.raises(ToolDefinitionError) as caught:
            call(catalogue)
        assert expected in str(caught.value), (language, str(caught.value))
    assert catalogue.resources() == []


def test_a_resource_function_at_a_ui_uri_is_a_view_made_at_each_read(catalogue: Catalogue) -> None:
    count = {"reads": 0}

    @resource("ui://live/view", catalogue=catalogue)
    def live_view() -> str:
        count["reads"] += 1
        return f"<!doctype html><p>read {count['reads']}</p>"

    @tool(catalogue=catalogue, app="ui://live/view", read_only=True)
    def shown() -> str:
        return "x"

    catalogue.check_apps()  # the view is registered, as app_resource registers one
    (entry,) = catalogue.resources()
    assert entry.mime_type == MIME_TYPE and entry.to_wire()["mimeType"] == MIME_TYPE
    assert entry.contents(entry.read())[0]["text"] == "<!doctype html><p>read 1</p>"
    assert entry.read() == "<!doctype html><p>read 2</p>"  # the page as the function makes it now
    with pytest.raises(ToolDefinitionError, match="hosts render only as 'text/html;profile=mcp-app'"):
        resource("ui://live/other", mime_type="text/html", catalogue=catalogue)
    with pytest.raises(ToolDefinitionError, match="one fixed resource"):
        resource("ui://live/{name}", catalogue=catalogue)


# -- @tool(app=..., visibility=...) -------------------------------------------------------------------


def test_a_tool_bound_to_a_view_carries_its_uri_and_visibility_in_meta(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, app="ui://t/v", read_only=True)
    def shown() -> str:
        return "x"

    @tool(catalogue=catalogue, app="ui://t/v", visibility=("app", "model"), read_only=True)
    def both() -> str:
        return "x"

    @tool(catalogue=catalogue, app="ui://t/v", visibility="app", read_only=True)
    def refresh() -> str:
        return "x"

    wires = {entry.name: entry.to_wire().get("_meta") for entry in catalogue.tools()}
    assert wires == {
        "shown": {"ui": {"resourceUri": "ui://t/v"}},  # the spec's default: model and app
        "both": {"ui": {"resourceUri": "ui://t/v", "visibility": ["model", "app"]}},
        "refresh": {"ui": {"resourceUri": "ui://t/v", "visibility": ["app"]}},
    }


@pytest.mark.parametrize(
    ("options", "english", "korean"),
    [
        ({"app": "https://example.com/v.html"}, "starts with 'ui://'", "'ui://'로 시작"),
        ({"app": "ui://t/v", "visibility": ["user"]}, "'model', 'app' or both", "'model', 'app'"),
        ({"app": "ui://t/v", "visibility": []}, "'model', 'app' or both", "'model', 'app'"),
        ({"app": "ui://t/v", "visibility": ["app", "app"]}, "each once", "한 번씩"),
        ({"app": "ui://t/v", "visibility": {"app": True}}, "'model', 'app' or both", "'model', 'app'"),
        ({"visibility": ["app"]}, "has visibility but no app", "visibility는 있는데 app이 없습니다"),
        ({"ap": "ui://t/v"}, "Did you mean 'app'", "'app'"),
    ],
)
def test_tool_app_options_are_checked_where_the_tool_is_defined(
    catalogue: Catalogue, options: dict[str, Any], english: str, korean: str
) -> None:
    def view() -> str:
        return "x"

    for language, expected in (("en", english), ("ko", korean)):
        set_language(language)  # type: ignore[arg-type]
        with pytest.raises(ToolDefinitionError) as caught:
            tool(catalogue=catalogue, **options)(view)
        assert expected in str(caught.value), (language, str(caught.value))
    assert catalogue.tools() == []


def test_a_tool_whose_view_is_missing_is_found_and_its_listing_drops_only_the_link(
    catalogue: Catalogue,
) -> None:
    @tool(catalogue=catalogue, app="ui://t/missing", read_only=True)
    def orphan() -> str:
        return "x"

    events: list[str] = []
    catalogue.subscribe(events.append)
    assert catalogue.unbound_apps() == [("orphan", "ui://t/missing")]
    with pytest.raises(ToolDefinitionError, match=r"'orphan' → 'ui://t/missing'.*app_resource"):
        catalogue.check_apps()
    wire = catalogue.tools()[0].to_wire()
    assert "_meta" not in listed(wire, "ui://t/missing", catalogue.app_uris())
    assert listed(wire, "ui://t/missing", {"ui://t/missing"}) == wire
    app_resource("ui://t/missing", PAGE, catalogue=catalogue)
    assert events == ["resources", "tools"]  # the tool's listing changed: clients list it again
    catalogue.check_apps()


# -- app_from(df) -------------------------------------------------------------------------------------


def test_app_from_registers_the_view_the_tool_and_the_views_tool(catalogue: Catalogue) -> None:
    frame = pd.DataFrame({"region": ["north", "south", "east"], "amount": [120, 80, None]})
    made = app_from(frame, name="sales", catalogue=catalogue)
    assert (made.uri, made.tool, made.rows_tool) == ("ui://sales/table", "sales", "sales_rows")
    metas = {entry.name: entry.to_wire()["_meta"]["ui"] for entry in catalogue.tools()}
    assert metas == {
        "sales": {"resourceUri": made.uri, "visibility": ["model", "app"]},
        "sales_rows": {"resourceUri": made.uri, "visibility": ["app"]},
    }
    (view,) = catalogue.resources()
    assert view.uri == made.uri and view.mime_type == MIME_TYPE and view.meta is None  # no network at all
    page = config_of(view.read())["page"]
    assert page["columns"] == ["region", "amount"] and page["total"] == 3
    assert page["rows"][2] == {"region": "east", "amount": None}
    rows = catalogue.get("sales").fn  # type: ignore[union-attr]
    answer = rows(query="TH", sort_by="amount", descending=True)
    assert [r["region"] for r in answer["rows"]] == ["north", "south"] and answer["matched"] == 2
    assert [r["region"] for r in rows(sort_by="amount")["rows"]] == ["south", "north", "east"]  # empty last
    with pytest.raises(ToolError, match=r"no column 'price'\. Sort by one of: region, amount"):
        rows(sort_by="price")


def test_app_from_a_function_follows_the_variable_it_reads(catalogue: Catalogue) -> None:
    data = {"frame": pd.DataFrame({"a": [1]})}
    app_from(lambda: data["frame"], name="live", catalogue=catalogue)
    data["frame"] = pd.DataFrame({"a": [1, 2, 3]})
    assert catalogue.get("live").fn()["total"] == 3  # type: ignore[union-attr]
    assert config_of(catalogue.resources()[0].read())["page"]["total"] == 3
    data["frame"] = pd.DataFrame({"b": [1]})  # a column gone: said by name, with the ones there are
    with pytest.raises(ToolError, match=r"no column 'a'\. Sort by one of: b"):
        catalogue.get("live").fn(sort_by="a")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda c: app_from([1, 2], name="t", catalogue=c), "needs a pandas DataFrame"),
        (lambda c: app_from(pd.DataFrame(), name="bad name", catalogue=c), "is not allowed"),
        (lambda c: app_from(pd.DataFrame(), name="t", max_rows=0, catalogue=c), "at least 1"),
    ],
)
def test_app_from_refuses_what_cannot_work(catalogue: Catalogue, call: Any, expected: str) -> None:
    with pytest.raises(ToolDefinitionError, match=expected):
        call(catalogue)


CELLS = st.one_of(
    st.text(),
    st.sampled_from(
        ["<script>alert(1)</script>", "</script><script>alert(1)</script>", "<!--", "&lt;", "\u2028"]
    ),
    st.integers(),
    st.none(),
)


@settings(max_examples=60, deadline=None)
@given(cells=st.lists(CELLS, min_size=1, max_size=6), column=st.text(min_size=1, max_size=12))
def test_no_cell_or_column_name_ever_reaches_the_page_as_markup(cells: list[Any], column: str) -> None:
    catalogue = Catalogue()
    frame = pd.DataFrame({column: pd.Series(cells, dtype=object)})
    app_from(frame, name="t", title=column, catalogue=catalogue)
    page = catalogue.resources()[0].read()
    config = page.split('id="config">', 1)[1].split("</script>", 1)[0]
    # Only the page's own markup has '<': the data block has none, so nothing in it opens a tag.
    assert "<" not in config and ">" not in config and "&" not in config
    assert page.count("<script") == 2 and page.count("</script>") == 2
    assert json.loads(config)["page"]["rows"] == [{column: cell} for cell in cells]


@settings(max_examples=100, deadline=None)
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
        max_leaves=12,
    )
)
def test_script_json_is_the_same_json_with_no_character_that_could_end_a_script(value: Any) -> None:
    written = script_json(value)
    assert not set(written) & {"<", ">", "&", "\u2028", "\u2029"}
    assert json.loads(written) == value


@settings(max_examples=200, deadline=None)
@given(
    origin=st.text(max_size=40)
    | st.from_regex(r"(https?|wss?)://[a-z*.;' \"-]{1,20}(:\d{1,6})?", fullmatch=True)
)
def test_an_origin_the_csp_takes_cannot_write_another_directive_into_a_hosts_policy(origin: str) -> None:
    from mcp_notebook.core._apps import check_csp

    try:
        made = check_csp({"connectDomains": [origin]})
    except ToolDefinitionError:
        return
    assert made == {"connectDomains": [origin]}
    assert not set(origin) & set(" \t\r\n;,'\"") and "://" in origin
