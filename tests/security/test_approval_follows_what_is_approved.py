"""Approvals follow what is approved: the call of a client still there, the definition a person saw,
and the very characters the client sent.

Attacks, each a test that fails without its fix:
- a client that hangs up while its call waits leaves a live prompt, and a late Approve ran the call
  for nobody (handshake era: the SDK keeps the call running in the session);
- "Always allow" given to a harmless tool kept covering it after it was redefined as destructive;
- bidi overrides, terminal escapes and invisible tag characters in what a client sends made an
  approval prompt read differently from what would run;
- the same characters passed to the model inside structuredContent strings (text was cleaned).
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp_types import Implementation

from mcp_notebook import Catalogue, serve, tool
from mcp_notebook.core._approval_request import ApprovalRequest
from tests.conftest import ERAS, Mode, connect, until

pytestmark = pytest.mark.anyio

# A real SDK client in a process of its own, which the test kills while its call waits: the way a
# client dies or loses its network, without a goodbye (no DELETE, no notifications/cancelled).
HANGING_CLIENT = """
import os, anyio, httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

async def main():
    headers = {"Authorization": "Bearer " + os.environ["MCP_NOTEBOOK_TOKEN"]}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http:
        async with Client(streamable_http_client(os.environ["URL"], http_client=http), mode=os.environ["MODE"]) as c:
            await c.call_tool("drop_table", {"table": "sales"})

anyio.run(main)
"""


class Shown:
    """Approval requests as they appear (on the server's thread)."""

    def __init__(self, srv: Any) -> None:
        self.requests: list[ApprovalRequest] = []
        self.arrived = threading.Event()
        srv.approval.listeners.append(self._on)

    def _on(self, request: ApprovalRequest) -> None:
        self.requests.append(request)
        self.arrived.set()

    def next(self, timeout: float = 30) -> ApprovalRequest:
        assert self.arrived.wait(timeout), "no approval prompt appeared"
        self.arrived.clear()
        return self.requests[-1]


@pytest.fixture
def asking(catalogue: Catalogue) -> Iterator[Any]:
    srv = serve(catalogue=catalogue, approval_timeout=60)
    try:
        yield srv
    finally:
        srv.stop()


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_client_that_hangs_up_withdraws_its_prompt_and_a_late_approve_runs_nothing(
    asking: Any, catalogue: Catalogue, mode: str
) -> None:
    dropped: list[str] = []

    @tool(catalogue=catalogue, destructive=True)
    def drop_table(table: str) -> str:
        """Drop a table."""
        dropped.append(table)
        return f"dropped {table}"

    panel = asking.panel()
    shown = Shown(asking)
    env = {**os.environ, "URL": asking.url, "MCP_NOTEBOOK_TOKEN": asking.token, "MODE": mode}
    client = subprocess.Popen([sys.executable, "-c", HANGING_CLIENT], env=env, stderr=subprocess.DEVNULL)
    try:
        request = shown.next()
        prompt_widget = next(c for c in panel.approvals.children if c.request is request)
        withdrawn = threading.Event()
        request._on_resolve.append(lambda r: withdrawn.set())
        client.kill()  # the client is gone, mid-wait
        client.wait(30)
        assert withdrawn.wait(15), "the prompt still waits for a client that is gone"
        assert request.decision == "withdrawn" and asking.pending == []
        assert prompt_widget.approve_button.disabled and "withdrawn:" in prompt_widget.status.value
        prompt_widget.approve_button.click()  # a person clicks too late
        request.approve()
        assert until(lambda: any(c.tool == "drop_table" for c in asking.calls)), "the call never ended"
    finally:
        if client.poll() is None:
            client.kill()
            client.wait(30)
    assert dropped == []  # the tool never ran
    assert request.decision == "withdrawn"
    assert asking.calls[-1].decision == "withdrawn"


async def test_always_allow_does_not_cover_the_tool_once_it_is_redefined(
    asking: Any, catalogue: Catalogue
) -> None:
    source = '''
@tool(catalogue=catalogue{options})
def tidy(folder: str) -> str:
    """Tidy a folder."""
    return "tidied " + folder
'''

    def define(options: str = "") -> None:
        # The way a notebook redefines a tool: the same cell, edited and run again.
        exec(
            compile(source.format(options=options), "<cell-3>", "exec"),
            {"tool": tool, "catalogue": catalogue},
        )

    define()
    shown = Shown(asking)
    async with connect(asking, "auto") as client:
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "tidy", {"folder": "a"})
            (await anyio.to_thread.run_sync(shown.next)).always_allow()
        assert "tidy" in asking.approval.allowed

        define()  # the same cell run again, unchanged: still allowed, not asked
        assert (await client.call_tool("tidy", {"folder": "b"})).content[0].text == "tidied b"
        assert asking.calls[-1].decision == "not-needed"

        define(", destructive=True")  # now it says it destroys things: the person must see that
        assert "tidy" not in asking.approval.allowed
        results: list[Any] = []
        async with anyio.create_task_group() as group:

            async def call() -> None:
                results.append(await client.call_tool("tidy", {"folder": "c"}))

            group.start_soon(call)
            request = await anyio.to_thread.run_sync(shown.next)
            assert request.annotations["destructiveHint"] is True
            request.deny()
    assert results[0].is_error is True and asking.calls[-1].decision == "denied"


HIDDEN = {
    "name": "invoice\u202etxt.exe",  # reads "invoiceexe.txt" on screen
    "note": "ok\x1b[2J\x1b]0;pwned\x07",  # clears a terminal, retitles it
    "tag": "hi\U000e0049\U000e0047\U000e004e",  # invisible tag characters ("IGN...")
    "space": "a\u200bb",
}


async def test_an_approval_prompt_shows_hidden_characters_instead_of_obeying_them(
    asking: Any, catalogue: Catalogue
) -> None:
    @tool(catalogue=catalogue, destructive=True)
    def send_file(name: str, note: str, tag: str, space: str) -> str:
        """Send a file."""
        return "sent"

    from mcp_notebook.cli._terminal_approval import prompt  # what `mcp-notebook serve` asks at its terminal

    panel = asking.panel()
    shown = Shown(asking)
    claimed = Implementation(name="helper\u202egnp.exe", version="1")  # a client names itself
    async with connect(asking, "auto", client_info=claimed) as client, anyio.create_task_group() as group:
        group.start_soon(client.call_tool, "send_file", HIDDEN)
        request = await anyio.to_thread.run_sync(shown.next)
        widget = next(c for c in panel.approvals.children if c.request is request)
        page = widget.shown_html  # the prompt's HTML
        terminal = prompt({**request.__dict__, "seconds_left": 30})  # what mcp-notebook serve prints
        request.deny()
    read = html.unescape(re.sub("<[^>]+>", "", page))  # what a person reads on the page
    for shown_text in (read, terminal):
        for hidden in ("\u202e", "\x1b", "\x07", "\U000e0049", "\u200b"):
            assert hidden not in shown_text
        assert "invoice⟨U+202E⟩txt.exe" in shown_text
        assert "⟨U+E0049⟩⟨U+E0047⟩⟨U+E004E⟩" in shown_text and "a⟨U+200B⟩b" in shown_text
        assert "helper⟨U+202E⟩gnp.exe" in shown_text
        assert "\\u001b[2J" in shown_text  # the arguments' JSON writes ESC as an escape: inert
    assert "<mark" in page  # highlighted, so it stands out


@pytest.mark.parametrize("mode", ERAS)
async def test_structured_content_strings_lose_hidden_characters_as_text_does(
    catalogue: Catalogue, mode: Mode
) -> None:
    @tool(catalogue=catalogue, read_only=True)
    def lookup(key: str) -> dict[str, Any]:
        """Look a key up."""
        return {"value": HIDDEN["name"], "rows": [{"note": HIDDEN["note"], "tag": HIDDEN["tag"]}]}

    with pytest.warns(UserWarning, match="approval='auto'"):
        srv = serve(catalogue=catalogue, approval="auto")
    try:
        async with connect(srv, mode) as client:  # the SDK client checks the output schema too
            result = await client.call_tool("lookup", {"key": "k"})
    finally:
        srv.stop()
    expected = {"value": "invoicetxt.exe", "rows": [{"note": "ok", "tag": "hi"}]}  # escapes go whole
    assert result.is_error is False
    assert result.structured_content == expected
    assert json.loads(result.content[0].text) == expected  # its JSON text block says the same


async def test_structured_content_that_no_longer_fits_its_schema_once_cleaned_is_an_error(
    catalogue: Catalogue,
) -> None:
    @tool(
        catalogue=catalogue,
        read_only=True,
        output_schema={
            "type": "object",
            "properties": {"code": {"type": "string", "minLength": 3}},
            "required": ["code"],
        },
    )
    def code() -> dict[str, Any]:
        """A code."""
        return {"code": "\u202e\u202e\u202e"}

    with pytest.warns(UserWarning, match="approval='auto'"):
        srv = serve(catalogue=catalogue, approval="auto")
    try:
        async with connect(srv, "auto") as client:
            result = await client.call_tool("code", {})
    finally:
        srv.stop()
    assert result.is_error is True and result.structured_content is None
    assert "control characters" in result.content[0].text and "output schema" in result.content[0].text
