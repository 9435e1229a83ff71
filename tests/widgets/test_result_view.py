"""The result view: each content type as its widget, errors by layer, progress, and "Read it"."""

from __future__ import annotations

import base64
import html
import threading
from collections.abc import Iterator
from typing import Any

import ipywidgets as widgets
import pytest

import mcp_notebook
from mcp_notebook import Catalogue, InvalidResultError, ProtocolError, get_language, set_language, tool
from mcp_notebook.client._results import CallResult, Origin, PromptResult, ReadResult
from mcp_notebook.widgets._content import EmbeddedResourceView, JsonTree, RecordsTable
from mcp_notebook.widgets._result import CallProgress, ErrorView, ResourceLinkView, ResultView
from tests.conftest import serve_unattended

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 16


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def shown(widget: Any) -> str:
    """All HTML text of a widget tree, unescaped (what a person reads)."""
    if isinstance(widget, widgets.HTML):
        return html.unescape(widget.value)
    return "\n".join(shown(child) for child in getattr(widget, "children", ()))


@pytest.fixture
def korean() -> Iterator[None]:
    before = get_language()
    set_language("ko")
    try:
        yield
    finally:
        set_language(before)


def test_text_image_and_audio_blocks_become_text_an_image_and_a_player() -> None:
    result = CallResult(
        tool="snapshot",
        content=[
            {"type": "text", "text": "a <b>chart</b>"},
            {"type": "image", "mimeType": "image/png", "data": b64(PNG)},
            {"type": "audio", "mimeType": "audio/wav", "data": b64(WAV)},
        ],
    )
    view = ResultView.of(result)
    text, image, audio = view.blocks
    assert isinstance(text, widgets.HTML) and "&lt;b&gt;chart&lt;/b&gt;" in text.value  # escaped, not markup
    assert isinstance(image, widgets.Image) and image.value == PNG and image.format == "png"
    assert isinstance(audio, widgets.Audio) and audio.value == WAV and audio.format == "wav"
    assert audio.controls and not audio.autoplay
    assert all(block in view.children for block in view.blocks)
    assert "Tool result" in shown(view) and view.layer is None
    assert repr(view) == repr(result)  # the same text/plain as the result itself: nbval sees no change


def test_undecodable_media_is_a_note_not_a_crash() -> None:
    view = ResultView.of(CallResult("t", [{"type": "image", "mimeType": "image/png", "data": "not base64!"}]))
    assert "Could not decode the image data" in shown(view.blocks[0])


def test_records_become_a_table_and_nested_json_a_collapsible_tree() -> None:
    rows = [{"name": "Seoul", "people": 9_400_000}, {"name": "Busan", "tags": ["port", "<sea>"]}]
    view = ResultView.of(CallResult("cities", [], structured_content={"result": rows}))
    assert isinstance(view.table, RecordsTable) and view.table in view.children
    assert view.table.columns == ["name", "people", "tags"]
    assert view.table.value.count("<tr>") == 3 and "<td>9400000</td>" in view.table.value
    assert "&lt;sea&gt;" in view.table.value
    assert repr(view.table) == "<table: 2 rows × 3 columns (name, people, tags)>"

    nested = {"order": {"id": "A-17", "lines": [{"sku": "x", "qty": 2}]}, "ok": True}
    view = ResultView.of(CallResult("order", [], structured_content=nested))
    assert view.table is None and isinstance(view.tree, JsonTree) and view.tree in view.children
    tree = view.tree.value
    assert tree.count("<details") == 4 and tree.startswith("<details open>")
    assert "Structured content (structuredContent)" in tree and "<code>&quot;A-17&quot;</code>" in tree
    assert repr(view.tree) == "<JSON object: 2 keys>"


def test_embedded_resources_show_their_text_or_blob() -> None:
    content = [
        {"type": "resource", "resource": {"uri": "notes://a", "mimeType": "text/plain", "text": "hello"}},
        {"type": "resource", "resource": {"uri": "img://b", "mimeType": "image/png", "blob": b64(PNG)}},
        {
            "type": "resource",
            "resource": {"uri": "bin://c", "mimeType": "application/zip", "blob": b64(b"z" * 30)},
        },
    ]
    text, image, blob = ResultView.of(CallResult("files", content)).blocks
    assert all(isinstance(block, EmbeddedResourceView) for block in (text, image, blob))
    assert (
        "hello" in shown(text) and "Embedded resource" in shown(text) and repr(text) == "[resource notes://a]"
    )
    assert isinstance(image.body, widgets.Image) and image.body.value == PNG
    assert "Binary data, 30 bytes" in shown(blob)


def test_read_and_prompt_results_are_shown_too() -> None:
    read = ReadResult("notes://a", [{"uri": "notes://a", "mimeType": "text/plain", "text": "hi"}])
    view = ResultView.of(read)
    assert "<b>Resource</b>: <code>notes://a</code>" in shown(view) and isinstance(
        view.blocks[0], EmbeddedResourceView
    )
    assert repr(view) == repr(read)
    prompt = PromptResult("review", [{"role": "user", "content": {"type": "text", "text": "Review this."}}])
    view = ResultView.of(prompt)
    assert "[user]" in shown(view) and "Review this." in shown(view) and repr(view) == repr(prompt)
    wire = {"content": [{"type": "text", "text": "no such row"}], "isError": True}  # e.g. an activity record
    view = ResultView.of(wire, tool="delete_row")
    assert (
        view.layer == "tool" and repr(view) == "Tool execution error (isError: true): delete_row\nno such row"
    )
    with pytest.raises(TypeError, match=r"ErrorView\.of\(exc\)"):
        ResultView.of(ValueError("no"))


def test_tool_errors_and_protocol_errors_say_which_layer_they_come_from() -> None:
    failed = CallResult(
        "divide", [{"type": "text", "text": "b must not be 0; pass another b."}], is_error=True
    )
    tool_view = ResultView.of(failed)
    assert tool_view.layer == "tool"
    text = shown(tool_view)
    assert "Tool execution error (isError: true)" in text and "Tool-execution layer" in text
    assert "b must not be 0" in text

    refused = ErrorView.of(ProtocolError(-32602, "Unknown tool: nope", {"tool": "nope"}))
    assert refused.layer == "protocol"
    text = shown(refused)
    assert "Protocol error (JSON-RPC -32602 Invalid params)" in text and "Protocol layer" in text
    assert (
        "Unknown tool: nope" in text
        and "Error data" in text
        and "&quot;nope&quot;" in refused.children[1].value
    )
    assert "Tool-execution" not in text and "Protocol" not in shown(tool_view)
    assert repr(refused) == "Protocol error (JSON-RPC -32602 Invalid params): Unknown tool: nope"

    invalid = ErrorView.of(InvalidResultError("structuredContent does not match the output schema"))
    assert invalid.layer == "protocol" and "Invalid result (rejected by the client)" in shown(invalid)
    assert ErrorView.of(mcp_notebook.ClientConnectionError("refused")).layer == "transport"


def test_progress_from_another_thread_moves_the_bar_then_the_result_replaces_it() -> None:
    view = ResultView.pending("slow_sum")
    assert isinstance(view.progress, CallProgress) and view.children == (view.progress,)
    assert repr(view) == "<tool call slow_sum: waiting for progress>"

    def server_side() -> None:  # what a progress callback on the runtime's loop thread does
        view.update_progress(1, 4)
        view.update_progress(3, 4, "summing rows")
        view.show(CallResult("slow_sum", [{"type": "text", "text": "42"}]))

    worker = threading.Thread(target=server_side)
    worker.start()
    worker.join(10)
    assert not worker.is_alive()
    bar = view.progress.bar
    assert (bar.value, bar.max, bar.bar_style) == (4.0, 4.0, "success")  # finished: full and green
    assert view.blocks and "42" in shown(view) and view.progress not in view.children
    view.update_progress(1, 4)  # a notification that arrives late changes nothing
    assert bar.value == 4.0 and repr(view) == "Tool result: slow_sum\n42"
    assert ResultView.of(CallResult("t", [])).progress is None  # a finished result has no bar

    progress = CallProgress("count")
    worker = threading.Thread(target=progress.update_progress, args=(3, 10, "rows"))
    worker.start()
    worker.join(10)
    assert (progress.bar.value, progress.bar.max) == (3.0, 10.0)
    assert "3 of 10 · rows" in shown(progress) and repr(progress) == "<tool call count: 3 of 10 · rows>"
    progress.update_progress(5)  # no total: the count is shown, the bar stays
    assert "5 so far" in shown(progress) and progress.bar.value == 3.0


def test_a_failed_call_shows_its_error_in_place_of_the_progress_bar() -> None:
    view = ResultView.pending("slow_sum")
    view.show_error(ProtocolError(-32601, "Method not found"))
    assert view.layer == "protocol" and isinstance(view.children[0], ErrorView)
    assert view.progress.bar.bar_style == "danger"
    assert repr(view) == "Protocol error (JSON-RPC -32601 Method not found): Method not found"


def test_read_it_reads_a_resource_link_through_a_real_server() -> None:
    catalogue = Catalogue()
    mcp_notebook.publish("minutes of Monday", "notes://monday", name="monday", catalogue=catalogue)

    @tool(catalogue=catalogue, read_only=True, lint=False)
    def report() -> str:
        """A long report."""
        return "line\n" * 100

    srv = serve_unattended(catalogue, result_limit=100)
    try:
        listed = mcp_notebook.list_resources()["resources"][0]
        missing = {"type": "resource_link", "uri": "notes://nowhere", "name": "nowhere"}
        # Made by hand, a result says where it came from: here, the notebook's own server.
        found = CallResult("find", [{"type": "resource_link", **listed}, missing], origin=Origin())
        view = ResultView.of(found)
        link, broken = view.blocks
        assert isinstance(link, ResourceLinkView)
        assert "notes://monday" in shown(link) and "text/plain · 17 bytes" in shown(link)
        assert link.contents.children == ()
        link.read_button.click()
        assert link.read_result.text == "minutes of Monday" and not link.read_button.disabled
        assert "minutes of Monday" in shown(link.contents)
        assert repr(link) == "[resource_link] notes://monday (text/plain)"

        broken.read_button.click()
        error = broken.contents.children[0]
        assert isinstance(error, ErrorView) and error.layer == "protocol" and broken.read_result is None
        assert isinstance(broken.read_error, ProtocolError)

        kept = ResultView.of(mcp_notebook.call("report"))  # too long for the model: kept behind a link
        (kept_link,) = (block for block in kept.blocks if isinstance(block, ResourceLinkView))
        assert kept_link.read() is not None and kept_link.read_result.text == "line\n" * 100
    finally:
        srv.stop()


def test_a_link_in_a_result_from_nowhere_known_is_not_read_from_the_notebooks_server() -> None:
    view = ResultView.of(CallResult("find", [{"type": "resource_link", "uri": "notebook://variables/x"}]))
    (link,) = view.blocks
    assert isinstance(link, ResourceLinkView) and link.read_button not in link.children[1].children
    assert "does not say which server sent it" in shown(link) and link.read() is None


def test_korean_labels(korean: None) -> None:
    failed = ResultView.of(CallResult("divide", [{"type": "text", "text": "0"}], is_error=True))
    assert "도구 실행 오류" in shown(failed) and "도구 실행 계층" in shown(failed)
    refused = ErrorView.of(ProtocolError(-32602, "Unknown tool: nope"))
    assert "프로토콜 오류 (JSON-RPC -32602 Invalid params)" in shown(refused) and "프로토콜 계층" in shown(
        refused
    )
    link = ResourceLinkView({"type": "resource_link", "uri": "notes://a", "size": 2048})
    assert (
        link.read_button.description == "읽기"
        and "리소스 링크" in shown(link)
        and "2,048바이트" in shown(link)
    )
    progress = CallProgress("slow")
    progress.update_progress(2, 8)
    assert "slow 실행 중" in shown(progress) and "8 중 2" in shown(progress)
    tree = ResultView.of(CallResult("t", [], structured_content={"a": [1, 2]})).tree
    assert tree is not None and "구조화된 내용" in tree.value and "항목 2개" in tree.value
