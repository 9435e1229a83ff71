"""Attack: a flood of spaces in an argument pushes the real value out of the approval prompt's box.

Argument values were shown as one unwrapped ``<pre>`` line, so ``{"path": "<400 spaces>/etc/passwd"}``
showed ``"path": "`` and nothing else in an 860 px box: the path a person was approving sat far off
to the right. Now the arguments wrap (long words and runs of spaces alike) in a box that scrolls
when tall, and a string over a thousand characters is cut with its length shown.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import ipywidgets as widgets

from mcp_notebook.core._approval_request import ApprovalRequest
from mcp_notebook.widgets._panel import ApprovalPrompt

PATH = " " * 400 + "/etc/passwd"
LONG = "ok " * 2000


class Styles(HTMLParser):
    """The styles of every element around the first text that holds `needle`."""

    def __init__(self, needle: str) -> None:
        super().__init__()
        self.needle = needle
        self.open: list[tuple[str, str]] = []
        self.found: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.open.append((tag, (dict(attrs).get("style") or "").replace(" ", "")))

    def handle_endtag(self, tag: str) -> None:
        while self.open and self.open.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        if self.found is None and self.needle in data:
            self.found = [style for _, style in self.open]


def prompt_html() -> str:
    request = ApprovalRequest(
        id=1,
        tool="read_file",
        title=None,
        description="Read a file.",
        annotations={},
        arguments={"path": PATH, "note": LONG},
        client="mallory",
    )
    prompt = ApprovalPrompt(request)
    return "".join(child.value for child in prompt.children if isinstance(child, widgets.HTML))


def test_an_argument_value_wraps_inside_its_box() -> None:
    page = prompt_html()
    parser = Styles("/etc/passwd")
    parser.feed(page)
    assert parser.found is not None, "the path is not shown"
    styles = ";".join(parser.found)
    assert "white-space:pre-wrap" in styles and "overflow-wrap:anywhere" in styles
    assert "max-height:" in styles and "overflow:auto" in styles  # a tall value scrolls in its box


def test_a_long_argument_value_is_cut_and_says_how_long_it_was() -> None:
    text = html.unescape(re.sub("<[^>]+>", "", prompt_html()))
    assert f"{len(LONG)} characters" in text
    assert text.count("ok ") < 1000
