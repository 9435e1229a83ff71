"""Attack: an SVG from another server, opened in a tab of its own, runs script as the notebook.

``tests/servers/svg.py`` sends SVG documents with a ``<script>`` wherever an image can go. Shown
as an ipywidgets ``Image``, an image is a ``blob:`` URL of the notebook page's origin; "Open image in
new tab" loads it as a document and its script runs as the Jupyter page (which can reach every
kernel of the user). Inline nothing runs, so the page looked safe. Now no SVG (nor any XML type,
nor a type not known to be only pixels or sound) becomes a blob widget: it is an ``<img>`` with a
``data:`` URL, whose origin is opaque. The browser test beside this one opens every image of such a
result in a new tab, in JupyterLab.
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import pytest

import mcp_notebook
from mcp_notebook.widgets import ResultView
from mcp_notebook.widgets._content import media_widget
from mcp_notebook.widgets._result import ResourceLinkView
from tests.servers.svg import DATA, SVG

COMMAND = f'"{sys.executable}" "{Path(__file__).resolve().parents[1] / "servers" / "svg.py"}"'


def walk(widget: Any) -> list[Any]:
    found = [widget]
    for child in getattr(widget, "children", ()):
        found += walk(child)
    return found


def blobs(view: Any) -> list[bytes]:
    """What the view hands the browser as blob: URLs of the page's own origin."""
    return [
        bytes(w.value) for w in walk(view) if isinstance(w, widgets.Image | widgets.Audio | widgets.Video)
    ]


def html_of(view: Any) -> str:
    return "\n".join(w.value for w in walk(view) if isinstance(w, widgets.HTML))


def assert_svg_only_as_data_url(view: Any) -> None:
    assert not [blob for blob in blobs(view) if b"<svg" in blob or b"<script" in blob]
    assert f"data:image/svg+xml;base64,{DATA}" in html_of(view)  # still shown, as a person expects


@pytest.mark.parametrize(
    "fetch",
    [
        lambda: mcp_notebook.call("draw", stdio=COMMAND),
        lambda: mcp_notebook.read_resource("svg://picture", stdio=COMMAND),
        lambda: mcp_notebook.get_prompt("svg", stdio=COMMAND),
    ],
    ids=["tool result", "resource", "prompt"],
)
def test_no_svg_from_another_server_becomes_a_blob_of_the_notebooks_origin(fetch: Any) -> None:
    view = ResultView.of(fetch())
    assert_svg_only_as_data_url(view)
    for link in (w for w in walk(view) if isinstance(w, ResourceLinkView)):
        assert link.read() is not None, link.read_error  # "Read it": the SVG it reads, shown the same way
        assert_svg_only_as_data_url(link.contents)


@pytest.mark.parametrize(
    "mime", ["image/svg+xml", "image/SVG+xml", "image/xml", "image/x-unknown", "audio/x+xml"]
)
def test_an_image_of_a_kind_that_can_be_a_document_is_a_data_url(mime: str) -> None:
    kind = mime.partition("/")[0]
    shown = media_widget(kind, mime, base64.b64encode(SVG.encode()).decode())
    assert isinstance(shown, widgets.HTML) and 'src="data:' in shown.value


def test_pixels_and_sound_are_still_widgets() -> None:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16).decode()
    assert isinstance(media_widget("image", "image/png", png), widgets.Image)
    assert isinstance(media_widget("image", "image/jpeg", png), widgets.Image)
    assert isinstance(media_widget("audio", "audio/wav", png), widgets.Audio)
