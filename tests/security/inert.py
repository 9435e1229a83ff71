"""Checks that HTML built from untrusted values cannot run anything: no script, no handler, no live link.

`assert_inert(html)` parses markup the way a browser would tokenise it and fails on any element or
attribute that can run script or navigate; `assert_widgets_inert(widget)` does the same for every
HTML value in a widget tree, and checks that media widgets cannot be told to load a URL.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

FORBIDDEN_TAGS = {
    "script", "iframe", "frame", "object", "embed", "link", "meta", "base", "form", "svg", "math",
    "style", "a", "area", "video", "source", "input", "button", "textarea", "select",
}  # fmt: skip
URL_ATTRIBUTES = {
    "href",
    "src",
    "action",
    "formaction",
    "xlink:href",
    "poster",
    "srcset",
    "data",
    "background",
}
SAFE_DATA_URL = re.compile(r"data:(image|audio)/[a-z0-9][a-z0-9.+-]*;base64,[A-Za-z0-9+/]*={0,2}")


class _Inspector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in FORBIDDEN_TAGS:
            self.problems.append(f"<{tag}> element")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...> handler")
            elif name == "srcdoc":
                self.problems.append(f"<{tag} srcdoc>")
            elif name in URL_ATTRIBUTES and not (tag == "img" and name == "src" and _safe_src(value)):
                self.problems.append(f"<{tag} {name}={value!r}>")
            elif (
                name == "style" and value is not None and re.search(r"url\(|expression|@import", value, re.I)
            ):
                self.problems.append(f"<{tag} style={value!r}>")

    handle_startendtag = handle_starttag


def _safe_src(value: str | None) -> bool:
    return value is not None and SAFE_DATA_URL.fullmatch(value) is not None


def problems(markup: str) -> list[str]:
    inspector = _Inspector()
    inspector.feed(markup)
    inspector.close()
    return inspector.problems


def assert_inert(markup: str) -> None:
    found = problems(markup)
    assert not found, f"live markup from an untrusted server: {found}\n{markup[:2000]}"


def walk(widget: Any) -> list[Any]:
    """`widget` and every widget under it (box children, accordion and tab pages)."""
    seen = [widget]
    for child in getattr(widget, "children", ()) or ():
        seen.extend(walk(child))
    return seen


def assert_widgets_inert(widget: Any) -> list[Any]:
    """Check a widget tree; returns its widgets for further checks."""
    import ipywidgets as widgets

    found = walk(widget)
    for item in found:
        if isinstance(item, widgets.HTML | widgets.HTMLMath):
            assert_inert(item.value)
        if isinstance(item, widgets.Image | widgets.Audio):
            # format "url" makes the browser load the value as an address: never for server data.
            assert re.fullmatch(r"[a-z0-9][a-z0-9.+-]*", item.format) and item.format != "url", item.format
        if getattr(item, "description_allow_html", False):
            raise AssertionError(f"{type(item).__name__} renders its description as HTML")
    return found
