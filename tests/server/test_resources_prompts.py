"""Resources, prompts and completion, over the real server, with SDK clients of both eras."""

from __future__ import annotations

import base64
import datetime as dt
import warnings
from typing import Any, Literal

import anyio
import mcp_types as types
import pandas as pd
import pytest
from mcp.shared.exceptions import MCPError

import mcp_notebook
from mcp_notebook import Catalogue, ProtocolError, embed_resource, prompt, publish, resource, serve, tool
from mcp_notebook.core._store import Store
from mcp_notebook.core._store_memory import MemoryStore
from mcp_notebook.core._store_sqlite import SQLiteStore
from mcp_notebook.server._data import KeptResults
from tests.conftest import ERAS, connect, serve_unattended

pytestmark = pytest.mark.anyio
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def define(catalogue: Catalogue) -> None:
    @resource(
        "notes://today",
        title="Today's notes",
        audience=["user", "assistant"],
        priority=0.8,
        last_modified=dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC),
        catalogue=catalogue,
    )
    def today() -> str:
        """What happened today."""
        return "Sold 3 umbrellas."

    @resource("images://logo", mime_type="image/png", catalogue=catalogue)
    def logo() -> bytes:
        """The shop's logo."""
        return PNG

    @resource("data://sales/{region}", completers={"region": ["north", "south", "east"]}, catalogue=catalogue)
    def sales(region: str) -> dict[str, Any]:
        """Sales of one region."""
        return {"region": region, "total": {"north": 10, "south": 7}.get(region, 0)}

    @prompt(catalogue=catalogue)
    def review(code: str, language: Literal["python", "sql"] = "python") -> str:
        """Ask for a code review.

        Args:
            code: The code to review.
            language: Its language.
        """
        return f"Review this {language} code:\n{code}"

    @prompt(catalogue=catalogue)
    def with_context(topic: str) -> list[Any]:
        """Discuss a topic with today's notes and the logo attached."""
        return [
            f"Let's talk about {topic}.",
            ("assistant", "Sure. What do the notes say?"),
            ("user", embed_resource("notes://today")),
            ("user", PNG),
        ]


@pytest.mark.parametrize("mode", ERAS)
async def test_lists_and_reads_resources(server: Any, catalogue: Catalogue, mode: Any) -> None:
    define(catalogue)
    async with connect(server, mode) as client:
        listed = (await client.list_resources()).resources
        templates = (await client.list_resource_templates()).resource_templates
        today = await client.read_resource("notes://today")
        logo = await client.read_resource("images://logo")
        north = await client.read_resource("data://sales/north")
    assert [str(r.uri) for r in listed] == ["notes://today", "images://logo"]
    first = listed[0]
    assert first.title == "Today's notes" and first.description == "What happened today."
    assert first.annotations is not None and first.annotations.priority == 0.8
    assert first.annotations.audience == ["user", "assistant"]
    assert first.annotations.last_modified == "2026-11-30T09:00:00+00:00"
    assert [t.uri_template for t in templates] == ["data://sales/{region}"]
    assert today.contents[0].text == "Sold 3 umbrellas."
    assert today.contents[0].mime_type == "text/plain"
    assert base64.b64decode(logo.contents[0].blob) == PNG and logo.contents[0].mime_type == "image/png"
    assert '"total": 10' in north.contents[0].text and north.contents[0].mime_type == "application/json"


@pytest.mark.parametrize("mode", ERAS)
async def test_unknown_resource_code_depends_on_the_era(server: Any, catalogue: Catalogue, mode: Any) -> None:
    define(catalogue)
    async with connect(server, mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource("notes://tomorrow")
    assert caught.value.code == (-32002 if mode == "legacy" else -32602)
    assert "notes://tomorrow" in caught.value.error.message


async def test_resources_list_paginates(catalogue: Catalogue) -> None:
    for i in range(5):
        publish(f"text {i}", f"notes://n{i}", name=f"n{i}", catalogue=catalogue)
    srv = serve(catalogue=catalogue, page_size=2)
    try:
        async with connect(srv, "auto") as client:
            uris, cursor = [], None
            while True:
                page = await client.list_resources(cursor=cursor)
                uris.append([str(r.uri) for r in page.resources])
                cursor = page.next_cursor
                if cursor is None:
                    break
        assert uris == [["notes://n0", "notes://n1"], ["notes://n2", "notes://n3"], ["notes://n4"]]
    finally:
        srv.stop()


async def test_published_dataframe_is_csv_and_json_with_its_schema(server: Any, catalogue: Catalogue) -> None:
    frame = pd.DataFrame({"region": ["north", "south"], "total": [10, 7]})
    uri = publish(frame, name="sales", catalogue=catalogue)
    assert uri == "notebook://variables/sales"
    async with connect(server, "auto") as client:
        listed = (await client.list_resources()).resources
        read = await client.read_resource(uri)
    assert "Columns: region (" in listed[0].description and "total (int64)" in listed[0].description
    kinds = {item.mime_type: item.text for item in read.contents}
    assert kinds["text/csv"].splitlines() == ["region,total", "north,10", "south,7"]
    assert '"total": 7' in kinds["application/json"]


async def test_republishing_notifies_subscribers_of_both_eras(server: Any, catalogue: Catalogue) -> None:
    publish("v1", "notes://live", name="live", catalogue=catalogue)
    updated = anyio.Event()

    async def on_message(message: Any) -> None:
        if (
            isinstance(message, types.ResourceUpdatedNotification)
            and str(message.params.uri) == "notes://live"
        ):
            updated.set()

    async with (
        connect(server, "legacy", message_handler=on_message) as legacy,
        connect(server, "auto") as modern,
        modern.listen(resource_subscriptions=["notes://live"], resources_list_changed=True) as subscription,
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # resources/subscribe is deprecated for 2026 clients only
            await legacy.subscribe_resource("notes://live")
        publish("v2", "notes://live", name="live", catalogue=catalogue)  # the cell runs again
        with anyio.fail_after(10):
            await updated.wait()
            seen = set()
            while "ResourceUpdated" not in seen:
                seen.add(type(await subscription.__anext__()).__name__)
        assert (await modern.read_resource("notes://live")).contents[0].text == "v2"
        publish("new", "notes://other", name="other", catalogue=catalogue)
        with anyio.fail_after(10):
            while "ResourcesListChanged" not in seen:
                seen.add(type(await subscription.__anext__()).__name__)


@pytest.mark.parametrize("mode", ERAS)
async def test_prompts_list_and_get(server: Any, catalogue: Catalogue, mode: Any) -> None:
    define(catalogue)
    async with connect(server, mode) as client:
        listed = (await client.list_prompts()).prompts
        simple = await client.get_prompt("review", {"code": "x = 1"})
        rich = await client.get_prompt("with_context", {"topic": "umbrellas"})
    review = listed[0]
    assert [p.name for p in listed] == ["review", "with_context"]
    assert [(a.name, a.required, a.description) for a in review.arguments or []] == [
        ("code", True, "The code to review."),
        ("language", False, "Its language."),
    ]
    assert simple.messages[0].role == "user"
    assert simple.messages[0].content.text == "Review this python code:\nx = 1"
    roles = [m.role for m in rich.messages]
    assert roles == ["user", "assistant", "user", "user"]
    assert rich.messages[2].content.type == "resource"
    assert rich.messages[2].content.resource.text == "Sold 3 umbrellas."
    assert rich.messages[3].content.type == "image"


@pytest.mark.parametrize("mode", ERAS)
async def test_prompt_errors_name_what_is_wrong(server: Any, catalogue: Catalogue, mode: Any) -> None:
    define(catalogue)
    async with connect(server, mode) as client:
        with pytest.raises(MCPError) as unknown:
            await client.get_prompt("reveiw", {})
        with pytest.raises(MCPError) as missing:
            await client.get_prompt("review", {"language": "sql"})
        with pytest.raises(MCPError) as wrong:
            await client.get_prompt("review", {"code": "x", "language": "cobol"})
    assert unknown.value.code == -32602 and "'reveiw'" in unknown.value.error.message
    assert "Did you mean 'review'" in unknown.value.error.message
    assert missing.value.code == -32602 and "'code'" in missing.value.error.message
    assert (
        wrong.value.code == -32602 and "'cobol' is not one of ['python', 'sql']" in wrong.value.error.message
    )


async def test_prompt_list_changes_reach_listeners(server: Any, catalogue: Catalogue) -> None:
    define(catalogue)
    async with connect(server, "auto") as client, client.listen(prompts_list_changed=True) as subscription:

        @prompt(catalogue=catalogue)
        def greet(name: str) -> str:
            """Greet someone."""
            return f"Say hello to {name}."

        with anyio.fail_after(10):
            event = await subscription.__anext__()
        assert type(event).__name__ == "PromptsListChanged"
        assert "greet" in [p.name for p in (await client.list_prompts()).prompts]


@pytest.mark.parametrize("mode", ERAS)
async def test_completion_for_prompt_arguments_and_template_variables(
    server: Any, catalogue: Catalogue, mode: Any
) -> None:
    define(catalogue)

    @resource(
        "files://{name}",
        completers={"name": lambda partial: ["alpha.csv", "beta.csv", "alps.txt"]},
        catalogue=catalogue,
    )
    def files(name: str) -> str:
        """A file by name."""
        return name

    prompt_ref = types.PromptReference(type="ref/prompt", name="review")
    sales_ref = types.ResourceTemplateReference(type="ref/resource", uri="data://sales/{region}")
    files_ref = types.ResourceTemplateReference(type="ref/resource", uri="files://{name}")
    async with connect(server, mode) as client:
        language = await client.complete(prompt_ref, {"name": "language", "value": "p"})
        region = await client.complete(sales_ref, {"name": "region", "value": "so"})
        file = await client.complete(files_ref, {"name": "name", "value": "al"})
    assert language.completion.values == ["python"]
    assert region.completion.values == ["south"]
    assert file.completion.values == ["alpha.csv", "alps.txt"] and file.completion.total == 2


async def test_large_tool_results_become_a_link_to_a_kept_resource(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    def big_report() -> str:
        """A long report."""
        return "line\n" * 10_000

    srv = serve_unattended(catalogue, result_limit=1_000)
    try:
        async with connect(srv, "auto") as client:
            result = await client.call_tool("big_report", {})
            link = next(block for block in result.content if block.type == "resource_link")
            full = await client.read_resource(str(link.uri))
        assert result.is_error is False
        assert "50000 characters" in result.content[0].text and len(result.content[0].text) < 1_500
        assert full.contents[0].text == "line\n" * 10_000
    finally:
        srv.stop()


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_kept_results_are_bounded_in_count_and_age(kind: str, tmp_path: Any) -> None:
    now = [0.0]
    store: Store = (
        MemoryStore(clock=lambda: now[0])
        if kind == "memory"
        else SQLiteStore(tmp_path / "state.sqlite3", clock=lambda: now[0])
    )
    kept = KeptResults(store, server="shop", max_items=2, max_age=60)
    first = kept.keep("t", [{"mimeType": "text/plain", "text": "1"}], "alice")
    second = kept.keep("t", [{"mimeType": "text/plain", "text": "2"}], "alice")
    third = kept.keep("t", [{"mimeType": "text/plain", "text": "3"}], "alice")
    assert kept.get(first, "alice") is None
    assert kept.get(second, "alice") is not None and kept.get(third, "alice") is not None
    assert kept.get(third, "bob") is None  # only the identity it was kept for reads it
    # Another notebook's server on the same store: its own links, and none of these.
    other = KeptResults(store, server="archive", max_items=2, max_age=60)
    assert other.get(third, "alice") is None
    other.keep("t", [{"mimeType": "text/plain", "text": "elsewhere"}], "alice")
    assert kept.get(second, "alice") is not None  # its bound counts its own results only
    now[0] = 61
    assert kept.get(second, "alice") is None and kept.get(third, "alice") is None
    store.close()


def test_client_side_read_and_prompt(server: Any, catalogue: Catalogue) -> None:
    define(catalogue)
    read = mcp_notebook.read_resource("data://sales/south")
    assert '"total": 7' in read.text and "data://sales/south" in repr(read)
    got = mcp_notebook.get_prompt("review", {"code": "SELECT 1", "language": "sql"}, mode="legacy")
    assert got.messages[0]["content"]["text"].startswith("Review this sql code")
    assert "[user] Review this sql code" in repr(got) and "<b>user</b>" in got._repr_html_()
    assert [r["uri"] for r in mcp_notebook.list_resources()["resources"]] == [
        "notes://today",
        "images://logo",
    ]
    assert [p["name"] for p in mcp_notebook.list_prompts()] == ["review", "with_context"]
    assert mcp_notebook.complete("review", "language", "s") == ["sql"]
    with pytest.raises(ProtocolError) as caught:
        mcp_notebook.read_resource("notes://nowhere", mode="legacy")
    assert caught.value.code == -32002


def test_definition_errors_say_how_to_fix() -> None:
    from mcp_notebook import ToolDefinitionError

    with pytest.raises(ToolDefinitionError, match="scheme://"):
        resource("no-scheme")(lambda: "x")
    with pytest.raises(ToolDefinitionError, match="one parameter per"):

        @resource("data://{a}/{b}", catalogue=Catalogue())
        def wrong(a: str) -> str:
            return a


def test_published_values_of_each_kind() -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from mcp_notebook.core._resources import contents, published

    figure = Figure()
    figure.add_subplot().plot([1, 2], [3, 4])
    text = published("hello", "notes://t", name="t")
    assert (text.mime_type, text.size) == ("text/plain", 5)
    [png] = contents("plots://p", figure)
    assert png["mimeType"] == "image/png" and base64.b64decode(png["blob"]).startswith(b"\x89PNG")
    [blob] = contents("bin://b", b"\x00\x01")
    assert blob["mimeType"] == "application/octet-stream" and base64.b64decode(blob["blob"]) == b"\x00\x01"
    [data] = contents("data://d", {"a": [1, 2]})
    assert data["mimeType"] == "application/json" and '"a"' in data["text"]


async def test_template_variables_complete_from_their_literal_type(server: Any, catalogue: Catalogue) -> None:
    @resource("weather://{city}", catalogue=catalogue)
    def weather(city: Literal["Seoul", "Busan", "Suwon"]) -> str:
        """Weather of a city."""
        return city

    ref = types.ResourceTemplateReference(type="ref/resource", uri="weather://{city}")
    async with connect(server, "legacy") as client:
        found = await client.complete(ref, {"name": "city", "value": "s"})
    assert found.completion.values == ["Seoul", "Suwon"]


async def test_handshake_clients_hear_prompt_and_resource_list_changes(
    server: Any, catalogue: Catalogue
) -> None:
    heard: set[str] = set()
    both = anyio.Event()

    async def on_message(message: Any) -> None:
        heard.add(type(message).__name__)
        if {"PromptListChangedNotification", "ResourceListChangedNotification"} <= heard:
            both.set()

    async with connect(server, "legacy", message_handler=on_message) as client:
        await client.list_prompts()
        with anyio.fail_after(10):
            while not both.is_set():  # the GET stream opens in the background: repeat until heard
                define(catalogue)
                with anyio.move_on_after(0.5):
                    await both.wait()


@pytest.mark.parametrize("mode", ERAS)
async def test_a_template_that_knows_no_such_item_says_not_found(
    server: Any, catalogue: Catalogue, mode: Any
) -> None:
    totals = {"north": 10}

    @resource("data://totals/{region}", catalogue=catalogue)
    def total(region: str) -> int:
        """Sales total of one region."""
        return totals[region]  # KeyError for an unknown region

    async with connect(server, mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource("data://totals/atlantis")
    assert caught.value.code == (-32002 if mode == "legacy" else -32602)
