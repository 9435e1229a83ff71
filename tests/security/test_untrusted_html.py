"""Output from another server is data: shown as HTML or widgets, none of it can run in the notebook.

The server in ``tests/servers/evil.py`` puts markup, attribute-breaking quotes and ``javascript:``
URIs into every field of every result: content blocks, structured content, resource contents,
prompt messages, error messages, and the questions it asks (elicitation, sampling). Each is shown
the ways a notebook shows it (``_repr_html_`` and ``.view()``) and checked with `assert_inert`.
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import ipywidgets as widgets
import pytest
from mcp.shared.exceptions import MCPError

import mcp_notebook
from mcp_notebook import CallResult, Catalogue, ProtocolError, ReadResult, tool
from mcp_notebook.widgets import ErrorView, ResultView
from mcp_notebook.widgets._activity import render_row
from mcp_notebook.widgets._questions import CallInProgress, ElicitationForm, SamplingForm
from tests.conftest import connect
from tests.security.inert import assert_inert, assert_widgets_inert, problems

EVIL = Path(__file__).resolve().parents[1] / "servers" / "evil.py"
COMMAND = f'"{sys.executable}" "{EVIL}"'
JS = "window.__pwned=1;alert(1)"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()


def test_the_checker_catches_what_it_must() -> None:
    """The checker itself: each of these would run or navigate in a browser."""
    for markup in (
        '<img src="data:image/png" onerror="x()">',
        '<img src="data:image/png;base64,x" onerror="x()" y="">',
        "<script>x()</script>",
        '<a href="javascript:x()">link</a>',
        '<img src="javascript:x()">',
        '<img src="data:text/html;base64,PHNjcmlwdD4=">',
    ):
        assert problems(markup), markup
    assert not problems(f'<pre>&lt;img onerror=x&gt;</pre><img src="data:image/png;base64,{PNG}"/>')


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_tool_result_from_another_server_cannot_script_the_notebook(mode: str) -> None:
    result = mcp_notebook.call("show", stdio=COMMAND, mode=mode)
    html = result._repr_html_()
    assert_inert(html)
    assert JS in result.text  # the text itself is kept, shown as text
    found = assert_widgets_inert(result.view())
    # A media type that is not a plain image/* or audio/* type is not shown as media at all.
    assert not [w for w in found if isinstance(w, widgets.Image | widgets.Audio)]
    assert "text/html" in html and "image/url" in html  # the refused types are named, as text


def test_resource_contents_from_another_server_cannot_script_the_notebook() -> None:
    result = mcp_notebook.read_resource("evil://r", stdio=COMMAND)
    assert_inert(result._repr_html_())
    assert_widgets_inert(result.view())


def test_prompt_messages_from_another_server_cannot_script_the_notebook() -> None:
    result = mcp_notebook.get_prompt("evil", stdio=COMMAND)
    assert_inert(result._repr_html_())
    assert_widgets_inert(result.view())


def test_an_error_from_another_server_cannot_script_the_notebook() -> None:
    with pytest.raises(ProtocolError) as raised:
        mcp_notebook.call("fail", stdio=COMMAND)
    assert_widgets_inert(ErrorView.of(raised.value))


def test_questions_from_another_server_show_their_markup_as_text() -> None:
    asked = mcp_notebook.call("ask", stdio=COMMAND, mode="legacy")
    assert isinstance(asked, CallInProgress)
    form = asked.children[0]
    assert isinstance(form, ElicitationForm)
    assert_widgets_inert(asked)
    form.buttons.children[1].click()  # Decline
    assert asked.result(30).text == "answered decline"

    sampled = mcp_notebook.call("sample", stdio=COMMAND, mode="legacy")
    assert isinstance(sampled, CallInProgress) and isinstance(sampled.children[0], SamplingForm)
    assert_widgets_inert(sampled)
    sampled.children[0].reply.value = "ok"
    sampled.children[0].send()
    assert sampled.result(30).text == "sampled person-at-the-notebook"


def test_a_resource_link_uri_never_becomes_a_live_link() -> None:
    read: list[str] = []
    block = {"type": "resource_link", "uri": f"javascript:{JS}", "name": "x"}
    view = ResultView.of(CallResult(tool="t", content=[block]), read=lambda uri: read.append(uri))
    assert_widgets_inert(view)
    assert "<a" not in view.blocks[0].header.value


@pytest.mark.parametrize(
    ("mime", "data"),
    [
        ('image/png" onerror="x()', PNG),
        ("image/png", 'x" onerror="x()'),
        ("image/png", PNG + "\n"),
        ("text/html", PNG),
        ("image/url", PNG),
        ("IMAGE/PNG", "not base64!"),
        ("", PNG),
    ],
)
def test_an_unsafe_image_is_shown_as_text(mime: str, data: str) -> None:
    result = CallResult(tool="t", content=[{"type": "image", "mimeType": mime, "data": data}])
    html = result._repr_html_()
    assert_inert(html)
    assert "<img" not in html
    found = assert_widgets_inert(result.view())
    assert not [w for w in found if isinstance(w, widgets.Image)]


def test_a_safe_image_is_still_an_image() -> None:
    result = CallResult(tool="t", content=[{"type": "image", "mimeType": "image/png", "data": PNG}])
    assert f'<img src="data:image/png;base64,{PNG}"/>' in result._repr_html_()
    images = [w for w in assert_widgets_inert(result.view()) if isinstance(w, widgets.Image)]
    assert len(images) == 1 and images[0].format == "png"
    read = ReadResult(uri="x://a", contents=[{"uri": "x://a", "mimeType": "image/png", "blob": PNG}])
    assert "<img" in read._repr_html_()


@pytest.mark.anyio
async def test_what_an_outside_client_sends_is_text_in_the_activity_log_and_approval(
    catalogue: Catalogue,
) -> None:
    """Our own server's clients are authenticated but untrusted: their name and arguments are data too."""
    from mcp_types import Implementation

    from mcp_notebook.widgets._panel import ApprovalPrompt
    from tests.conftest import serve_unattended

    markup = f'<img src=x onerror="{JS}">'

    @tool(catalogue=catalogue)
    def echo(text: str) -> str:
        """Echo the text."""
        print(text)
        return text

    srv = serve_unattended(catalogue)
    try:
        async with connect(srv, "legacy", client_info=Implementation(name=markup, version="1")) as client:
            await client.call_tool("echo", {"text": markup})
            with pytest.raises(MCPError):  # an unknown tool is logged too
                await client.call_tool("missing", {markup: markup})
    finally:
        srv.stop()
    for record in srv.activity:
        assert_inert(render_row(record))
    request = srv.approval.new_request(
        tool="echo", title=markup, description=markup, annotations={markup: markup},
        arguments={markup: markup}, client=markup,
    )  # fmt: skip
    assert_widgets_inert(ApprovalPrompt(request))
