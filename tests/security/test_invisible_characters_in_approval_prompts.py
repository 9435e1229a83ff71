"""Attack: characters that draw nothing make an approval prompt read as something it is not.

A person approves what the prompt shows. Controls, bidi controls and zero-width characters were
already shown as ``⟨U+XXXX⟩``, but many more draw nothing: the Hangul fillers (U+3164, U+115F,
U+1160, U+FFA0, letters to Unicode), the line and paragraph separators U+2028/U+2029, the soft
hyphen U+00AD, the combining grapheme joiner U+034F, the Mongolian vowel separator U+180E, the
deprecated format controls U+206A-U+206F, variation selectors ... A client's claimed name or
argument made of them looked blank, or split a line where none is. Now every character of the
categories Cc, Cf, Zl, Zp and every default-ignorable code point is marked wherever a client's text
reaches the prompt.
"""

from __future__ import annotations

import html
import json
import re
import threading
from typing import Any

import anyio
import ipywidgets as widgets
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_notebook import Catalogue, serve, tool
from mcp_notebook.core._approval_request import ApprovalRequest
from mcp_notebook.widgets._panel import ApprovalPrompt
from tests.security.conftest import client_as

# The list, and more default-ignorable code points from Unicode's DerivedCoreProperties.txt.
LISTED = [0x3164, 0x115F, 0x1160, 0xFFA0, 0x2028, 0x2029, 0x00AD, 0x034F, 0x180E, *range(0x206A, 0x2070)]
IGNORABLE = [
    0x17B4,
    0x17B5,
    0x180B,
    0x180F,
    0xFE00,
    0xFE0F,
    0xFFF0,
    0x1BCA0,
    0x1D173,
    0xE0001,
    0xE0100,
    0xE01EF,
]
HIDDEN = [chr(code) for code in LISTED + IGNORABLE]


def prompt_html(prompt: ApprovalPrompt) -> str:
    """Everything the prompt's HTML parts say, in order (whatever its layout)."""
    return "".join(child.value for child in prompt.children if isinstance(child, widgets.HTML))


def read(page: str) -> str:
    """What a person reads on the page: the text, without the markup."""
    return html.unescape(re.sub("<[^>]+>", "", page))


def marker(character: str) -> str:
    return f"⟨U+{ord(character):04X}⟩"


def prompt_for(claimed: str, value: str) -> ApprovalPrompt:
    request = ApprovalRequest(
        id=1,
        tool="send_file",
        title=None,
        description="Send a file.",
        annotations={"destructiveHint": True},
        arguments={"name": value},
        client="mallory",
        claimed=claimed,
    )
    return ApprovalPrompt(request)


@pytest.mark.anyio
async def test_each_listed_character_from_a_real_client_is_marked(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, destructive=True)
    def send_file(name: str) -> str:
        """Send a file."""
        return "sent"

    srv = serve(catalogue=catalogue, approval_timeout=30)
    asked = threading.Event()
    shown: list[Any] = []
    srv.approval.listeners.append(lambda request: (shown.append(request), asked.set()))
    hidden = "".join(HIDDEN)
    try:
        mallory = srv.add_client("mallory")
        async with (
            client_as(srv, mallory, "auto", claims=f"help{hidden}er") as client,
            anyio.create_task_group() as group,
        ):
            group.start_soon(client.call_tool, "send_file", {"name": f"report{hidden}.pdf"})
            assert await anyio.to_thread.run_sync(asked.wait, 10), "the call was not held for approval"
            page = prompt_html(ApprovalPrompt(shown[0]))
            shown[0].deny()
    finally:
        srv.stop()
    text = read(page)
    for character in HIDDEN:
        assert character not in text, f"U+{ord(character):04X} is shown raw"
        # Once in the claimed name, once in the argument.
        assert text.count(marker(character)) >= 2, f"U+{ord(character):04X} is not marked"


@settings(max_examples=200, deadline=None)
@given(
    st.characters(categories=["Cf", "Zl", "Zp", "Cc"], exclude_characters="\t\n") | st.sampled_from(HIDDEN)
)
def test_every_format_separator_control_and_ignorable_character_is_marked(character: str) -> None:
    text = read(prompt_html(prompt_for(f"a{character}b", f"c{character}d")))
    assert character not in text
    assert f"a{marker(character)}b" in text
    # In the arguments' JSON a C0 control is an escape (inert); everything else is a marker.
    assert f"c{marker(character)}d" in text or f"c{json.dumps(character)[1:-1]}d" in text
