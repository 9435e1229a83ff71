"""Attack: a client claims a name that reads as a safe request and fills the screen behind it.

The claimed name (``clientInfo.name``) had no length limit and came first in the approval prompt. A
claim of ``notebook) wants to run the tool echo (read-only)`` followed by 3,000 Hangul fillers
(U+3164, drawn blank) made the first screen read "… wants to run the tool echo (read-only)" while the
real tool, its arguments and the buttons sat 1,400 px below. Now the prompt opens with what the
notebook knows (the real tool, whether it changes things, the buttons) and the claim comes after,
cut to a few words with its length shown, in the prompt, the task list and the activity log alike.
"""

from __future__ import annotations

import html
import re
import threading
from typing import Any

import anyio
import ipywidgets as widgets
import pytest

from mcp_notebook import Catalogue, serve, tool
from mcp_notebook.widgets._activity import render_row
from mcp_notebook.widgets._panel import ApprovalPrompt
from tests.security.conftest import client_as

pytestmark = pytest.mark.anyio

SPOOF = "notebook) wants to run the tool echo (read-only)"
CLAIM = SPOOF + "\u3164" * 3000


def read(page: str) -> str:
    return html.unescape(re.sub("<[^>]+>", "", page))


async def test_the_real_tool_and_the_buttons_come_before_a_cut_claim(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, read_only=True)
    def echo(text: str) -> str:
        """Say the text back."""
        return text

    @tool(catalogue=catalogue, destructive=True)
    def wipe(path: str) -> str:
        """Delete a folder and everything in it."""
        return f"wiped {path}"

    srv = serve(catalogue=catalogue, approval_timeout=30)
    asked = threading.Event()
    shown: list[Any] = []
    srv.approval.listeners.append(lambda request: (shown.append(request), asked.set()))
    try:
        mallory = srv.add_client("mallory")
        async with (
            client_as(srv, mallory, "auto", claims=CLAIM) as client,
            anyio.create_task_group() as group,
        ):
            group.start_soon(client.call_tool, "wipe", {"path": "/home"})
            assert await anyio.to_thread.run_sync(asked.wait, 10), "the call was not held for approval"
            prompt = ApprovalPrompt(shown[0])
            shown[0].deny()
        record = next(r for r in srv.calls if r.method == "tools/call")
    finally:
        srv.stop()

    buttons = next(
        i
        for i, child in enumerate(prompt.children)
        if prompt.approve_button in getattr(child, "children", ())
    )
    first = read("".join(c.value for c in prompt.children[:buttons] if isinstance(c, widgets.HTML)))
    # Before the buttons: the real tool and what its definition says, and nothing the client wrote.
    assert "wipe" in first and "changes things" in first
    assert "notebook" not in first and "echo" not in first and "\u3164" not in first
    assert prompt.deny_button in prompt.children[buttons].children

    everything = read("".join(c.value for c in prompt.children if isinstance(c, widgets.HTML)))
    assert f"{len(CLAIM)} characters" in everything  # the claim is cut, and says how long it was
    assert everything.count("⟨U+3164⟩") < 64
    assert len(everything) < 2000
    row = read(render_row(record))  # the activity log names the caller the same way
    assert f"{len(CLAIM)} characters" in row and row.count("⟨U+3164⟩") < 64
