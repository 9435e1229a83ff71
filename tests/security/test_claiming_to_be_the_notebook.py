"""Attack: an outside client says it is "notebook" and is taken for the notebook itself.

"notebook" is the identity of the notebook's own calls: they see hidden tools, skip approval and
own the notebook's handles. When identity was the self-reported name, a client that claimed
"notebook" reached the notebook's handles and appeared as "notebook" in the approval prompt, so
the person was asked to approve what looked like their own call. Now "notebook" is proven only by
a secret that never leaves the kernel, and cannot be given to a client.
"""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest

import mcp_notebook
from mcp_notebook import Catalogue, HandleStore, current_client, serve, tool
from mcp_notebook.widgets._panel import ApprovalPrompt
from tests.conftest import ERAS
from tests.security.conftest import client_as

pytestmark = pytest.mark.anyio


@pytest.fixture
def notebook(catalogue: Catalogue) -> Any:
    drafts = HandleStore(creator="new_draft")
    ran: list[str] = []

    @tool(catalogue=catalogue)
    def new_draft(text: str) -> str:
        """Start a draft and return its handle."""
        return drafts.mint(current_client(), "draft", text)

    @tool(catalogue=catalogue, read_only=True)
    def read_draft(draft: str) -> str:
        """Read a draft."""
        text: str = drafts.resolve(draft, current_client(), "draft")
        return text

    @tool(catalogue=catalogue, expose=False)
    def wipe_disk() -> str:
        """Only the notebook may run this."""
        ran.append("wiped")
        return "wiped"

    @tool(catalogue=catalogue, destructive=True)
    def send_mail(to: str) -> str:
        """Send the draft (changes things: a person approves)."""
        ran.append(f"mail to {to}")
        return "sent"

    srv = serve(catalogue=catalogue, approval_timeout=10)
    srv.ran = ran
    try:
        yield srv
    finally:
        srv.stop()


@pytest.mark.parametrize("mode", ERAS)
async def test_claiming_notebook_reaches_nothing_of_the_notebooks(notebook: Any, mode: Any) -> None:
    draft = mcp_notebook.call("new_draft", {"text": "salary review"}).text  # the notebook's own handle
    mallory = notebook.add_client("mallory")
    async with client_as(notebook, mallory, mode, claims="notebook") as client:
        listed = [t.name for t in (await client.list_tools()).tools]
        read = await client.call_tool("read_draft", {"draft": draft})
        with pytest.raises(Exception) as hidden:
            await client.call_tool("wipe_disk", {})
    assert "wipe_disk" not in listed
    assert read.is_error and "salary" not in read.content[0].text
    assert getattr(hidden.value, "code", None) == -32602 and notebook.ran == []


async def test_the_approval_prompt_shows_who_asks_and_what_it_claims(notebook: Any) -> None:
    mallory = notebook.add_client("mallory")
    shown: list[Any] = []
    asked = threading.Event()

    def on_request(request: Any) -> None:
        shown.append(request)
        asked.set()

    notebook.approval.listeners.append(on_request)
    results: list[Any] = []
    async with (
        client_as(notebook, mallory, "auto", claims="notebook") as client,
        anyio.create_task_group() as group,
    ):

        async def call() -> None:
            results.append(await client.call_tool("send_mail", {"to": "everyone@example.com"}))

        group.start_soon(call)
        assert await anyio.to_thread.run_sync(asked.wait, 10), "the call was not held for approval"
        request = shown[0]
        prompt = ApprovalPrompt(request)
        request.deny()
    assert request.client == "mallory" and request.claimed == "notebook"
    text = prompt.shown_html
    assert "mallory" in text and "claims to be notebook" in text
    assert results[0].is_error and notebook.ran == []


@pytest.mark.parametrize("name", ["notebook", "Notebook", "owner"])
def test_the_notebooks_identity_cannot_be_handed_out(notebook: Any, name: str) -> None:
    with pytest.raises(ValueError, match="reserved"):
        notebook.add_client(name)
