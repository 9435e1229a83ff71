"""Content kinds: one registry says what a tool's value is, how it travels, reads and is limited.

The made-up kinds here are added the way a new kind is added: one `ContentKind` and one view,
registered in this file, no other module edited. Each then flows end to end: a tool that returns
one is sent by a real server, a real client's result holds and reads it, and the result's view
shows it with the view registered for it. A colour swatch is a block (an embedded resource of its
own media type); a signature is a part of the whole result (its ``_meta``), as an app bound to a
tool's result would be.
"""

from __future__ import annotations

import base64
import dataclasses
import html
import json
from collections.abc import Iterator, Mapping
from typing import Any

import ipywidgets as widgets
import pytest

import mcp_notebook
from mcp_notebook import Catalogue, set_language, tool
from mcp_notebook.core._guards import sanitize_result
from mcp_notebook.core._kinds import (
    Block,
    ContentKind,
    ViewContext,
    describe_block,
    kind_of_block,
    register_kind,
    register_view,
    remove_kind,
)
from mcp_notebook.core._results import to_result
from mcp_notebook.linter import lint
from mcp_notebook.widgets._content import EmbeddedResourceView
from tests.conftest import ERAS, Mode, serve_unattended

MIME = "application/vnd.example.swatch+json"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16


@dataclasses.dataclass
class Swatch:
    """A named colour: a dataclass, which without its kind would be structured content."""

    name: str
    rgb: str


def swatch_result(value: Swatch) -> dict[str, Any]:
    data = json.dumps({"name": value.name, "rgb": value.rgb})
    resource = {"uri": f"swatch://{value.name}", "mimeType": MIME, "text": data}
    return {"content": [{"type": "resource", "resource": resource}], "isError": False}


def is_swatch(block: Block) -> bool:
    inner = block.get("resource")
    return isinstance(inner, Mapping) and inner.get("mimeType") == MIME


def swatch_of(block: Block) -> dict[str, str]:
    return dict(json.loads(block["resource"]["text"]))


def swatch_line(block: Block) -> str:
    swatch = swatch_of(block)
    return f"[swatch {swatch['name']} {swatch['rgb']}]"


def swatch_html(block: Block) -> str:
    return f"<span class='swatch'>{html.escape(swatch_line(block))}</span>"


class SwatchView(widgets.HTML):
    """The kind's one view: a square of the colour and its name."""

    def __init__(self, block: Block, context: ViewContext) -> None:
        self.swatch, self.result = swatch_of(block), context.result
        colour, name = html.escape(self.swatch["rgb"]), html.escape(self.swatch["name"])
        super().__init__(f"<span style='background:{colour}'>&nbsp;&nbsp;</span> {name}")


SWATCH = ContentKind(
    "swatch",
    types=(Swatch,),
    encode=swatch_result,
    wire="resource",
    claims=is_swatch,
    describe=swatch_line,
    html=swatch_html,
)


@pytest.fixture
def swatches() -> Iterator[ContentKind]:
    kind = register_kind(SWATCH)
    register_view("swatch", SwatchView)
    try:
        yield kind
    finally:
        remove_kind("swatch")


@pytest.mark.parametrize("mode", ERAS)
def test_a_kind_added_in_one_place_flows_from_a_tool_to_a_client_and_its_view(
    swatches: ContentKind, mode: Mode
) -> None:
    catalogue = Catalogue()

    @tool(catalogue=catalogue, read_only=True, lint=False)
    def pick(name: str) -> Swatch:
        """The colour swatch of one colour name. Use to show a colour; not for mixing colours."""
        return Swatch(name, "#ff8800")

    entry = catalogue.get("pick")
    assert entry is not None
    # Sent as its block, not as structured content: no schema promised, and none asked for.
    assert "outputSchema" not in entry.to_wire()
    assert "MCP040" not in [finding.rule for finding in lint(entry)]

    srv = serve_unattended(catalogue)
    try:
        result = mcp_notebook.call("pick", {"name": "orange"}, url=srv.url, token=srv.token, mode=mode)
    finally:
        srv.stop()
    (block,) = result.content
    assert block["resource"]["mimeType"] == MIME and result.structured_content is None
    assert repr(result) == "Tool result: pick\n[swatch orange #ff8800]"
    assert "<span class='swatch'>[swatch orange #ff8800]</span>" in result._repr_html_()
    (shown,) = result.view().blocks
    assert isinstance(shown, SwatchView) and shown.result is result
    assert "background:#ff8800" in shown.value and "orange" in shown.value


def test_without_a_view_of_its_own_a_kind_shows_as_its_wire_type_and_removed_it_is_gone(
    swatches: ContentKind,
) -> None:
    remove_kind("swatch")
    register_kind(SWATCH)  # the kind again, but no view registered for it
    result = to_result(Swatch("teal", "#008080"))
    view = mcp_notebook.CallResult("pick", result["content"]).view()
    (shown,) = view.blocks
    assert isinstance(shown, EmbeddedResourceView) and shown.uri == "swatch://teal"
    assert kind_of_block(result["content"][0]) is SWATCH

    remove_kind("swatch")
    # Without the kind, the same dataclass is structured content, and the block an embedded resource.
    assert to_result(Swatch("teal", "#008080"))["structuredContent"] == {"name": "teal", "rgb": "#008080"}
    assert describe_block(result["content"][0]).startswith("[resource swatch://teal]")


def test_a_kind_claiming_blocks_cannot_take_them_past_the_guards(swatches: ContentKind) -> None:
    # The guards treat a block by its wire type: control characters a model or a terminal would
    # act on leave a claimed resource's text as they leave any resource's.
    block = swatch_result(Swatch("red", "#ff0000"))["content"][0]
    hostile = {**block, "resource": {**block["resource"], "text": '{"name": "red\x1b[2J", "rgb": "#ff0000"}'}}
    (sent,) = sanitize_result({"content": [hostile], "isError": False}, 10_000)["content"]
    assert kind_of_block(sent) is SWATCH and "\x1b" not in sent["resource"]["text"]


def test_a_kind_placed_before_another_is_tried_first() -> None:
    stamped = ContentKind(
        "stamped_png",
        detect=lambda value: isinstance(value, bytes) and value.startswith(PNG[:8]),
        encode=lambda value: {"content": [{"type": "text", "text": f"{len(value)} bytes"}], "isError": False},
    )
    try:
        register_kind(stamped)
        assert to_result(PNG)["content"][0]["type"] == "image"  # after the image kind: never reached
        register_kind(stamped, before="image")
        assert to_result(PNG)["content"] == [{"type": "text", "text": "24 bytes"}]
    finally:
        remove_kind("stamped_png")
    assert to_result(PNG)["content"][0]["data"] == base64.b64encode(PNG).decode()


SIGNED_BY = "example.com/signed-by"


@dataclasses.dataclass
class Signed:
    """A text with who signed it: sent as the text, the signer in the result's ``_meta``."""

    text: str
    by: str


def signer(result: Block) -> str:
    meta = result.get("_meta")
    return str(meta[SIGNED_BY]) if isinstance(meta, Mapping) and SIGNED_BY in meta else ""


class SignatureBadge(widgets.HTML):
    def __init__(self, result: Block, context: ViewContext) -> None:
        self.by = signer(result)
        super().__init__(f"<b>✍ {html.escape(self.by)}</b>")


SIGNED = ContentKind(
    "signed",
    types=(Signed,),
    encode=lambda value: {
        "content": [{"type": "text", "text": value.text}],
        "_meta": {SIGNED_BY: value.by},
        "isError": False,
    },
    in_result=lambda result: bool(signer(result)),
    describe=lambda result: f"[signed by {signer(result)}]",
    html=lambda result: f"<i>signed by {html.escape(signer(result))}</i>",
)


@pytest.fixture
def signatures() -> Iterator[ContentKind]:
    kind = register_kind(SIGNED)
    register_view("signed", SignatureBadge)
    try:
        yield kind
    finally:
        remove_kind("signed")


@pytest.mark.parametrize("mode", ERAS)
def test_a_kind_of_a_whole_result_is_shown_beside_its_blocks(signatures: ContentKind, mode: Mode) -> None:
    catalogue = Catalogue()  # after the kind: a tool's output schema is decided when it is defined

    @tool(catalogue=catalogue, read_only=True, lint=False)
    def motto() -> Signed:
        """The motto of the day, signed by its author."""
        return Signed("Measure twice.", "<Ada>")

    srv = serve_unattended(catalogue)
    try:
        result = mcp_notebook.call("motto", url=srv.url, token=srv.token, mode=mode)
        assert result.raw["_meta"][SIGNED_BY] == "<Ada>" and result.text == "Measure twice."
        assert repr(result) == "Tool result: motto\nMeasure twice.\n[signed by <Ada>]"
        assert "<i>signed by &lt;Ada&gt;</i>" in result._repr_html_()
        view = result.view()
        (badge,) = view.parts
        assert isinstance(badge, SignatureBadge) and badge in view.children and "&lt;Ada&gt;" in badge.value
    finally:
        srv.stop()
    remove_kind("signed")
    assert repr(result) == "Tool result: motto\nMeasure twice."  # the kind gone, the plain result stays


@pytest.mark.parametrize(
    ("kind", "before", "says"),
    [
        (ContentKind("half", types=(Swatch,)), None, "give it both the values that are of it"),
        (ContentKind("loose", claims=is_swatch), None, "give it wire="),
        (ContentKind("all_text", wire="text"), None, "would take every 'text' block from kind 'text'"),
        (SWATCH, "nowhere", "No content kind is named 'nowhere'"),
        (ContentKind("both", wire="text", claims=is_swatch, in_result=is_swatch), None, "Make two kinds"),
    ],
    ids=["encode missing", "claims without wire", "a second plain kind", "unknown place", "block and result"],
)
def test_a_kind_that_could_not_work_is_refused_saying_what_to_give(
    kind: ContentKind, before: str | None, says: str
) -> None:
    with pytest.raises(ValueError, match=says):
        register_kind(kind, before=before)
    assert kind_of_block({"type": "text", "text": "x"}).name == "text"  # nothing changed


def test_the_refusal_in_korean() -> None:
    set_language("ko")
    with pytest.raises(ValueError, match="콘텐츠 종류 'loose'는 블록을 가져가지만"):
        register_kind(ContentKind("loose", claims=is_swatch))
