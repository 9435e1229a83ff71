"""What a person reads before deciding (`core._visible`) and one-line JSON for logs (`core._jsonlines`)."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest

from mcp_notebook.core._jsonlines import escape_line_breaks
from mcp_notebook.core._visible import MAX_CLAIM_CHARS, clip, json_html, visible


def test_a_short_text_is_kept_and_a_long_one_cut_with_its_length(english: None) -> None:
    assert clip("helper") == "helper"
    assert clip("x" * 3000) == "x" * MAX_CLAIM_CHARS + "… (3000 characters)"


def test_tab_and_newline_are_layout_in_text_and_hidden_in_a_name() -> None:
    assert visible("a\tb\nc") == "a\tb\nc"
    assert visible("a\tb\nc", one_line=True) == "a⟨U+0009⟩b⟨U+000A⟩c"


@pytest.mark.parametrize(
    "value",
    [{}, [], {"a": 1, "b": [True, None, 2.5], "c": {"d": 'e "quoted" <b>'}}, {"k": ["x", {"y": []}]}],
)
def test_arguments_read_as_their_indented_json(value: Any) -> None:
    assert html.unescape(json_html(value)) == json.dumps(value, ensure_ascii=False, indent=2)


def test_a_long_string_is_cut_and_its_length_said_outside_its_quotes(english: None) -> None:
    shown = json_html({"note": "y" * 1500}, limit=10)
    assert '"yyyyyyyyyy" <mark' in html.unescape(shown) and "… (1500 characters)</mark>" in shown
    assert re.sub("<[^>]+>", "", shown).count("y") == 10


def test_unicode_line_breaks_are_escaped_and_read_back_the_same() -> None:
    value = {"text": "a\u2028b\u2029c\x85d\ne"}
    line = escape_line_breaks(json.dumps(value, ensure_ascii=False))
    assert len(line.splitlines()) == 1 and json.loads(line) == value
