"""`%mcp_call --confirm`: the call waits for Approve / Deny in its own output, never blocking a cell."""

from __future__ import annotations

import asyncio
import textwrap
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, MCPNotebookError, tool
from mcp_notebook.widgets._pending import CallDenied, PendingCall
from tests.kernel import Kernel


@pytest.fixture
def deleting(server: Any, catalogue: Catalogue) -> list[int]:
    deleted: list[int] = []

    @tool(catalogue=catalogue, destructive=True)
    def delete_row(row: int) -> str:
        """Delete one row."""
        deleted.append(row)
        return f"deleted {row}"

    return deleted


def test_confirm_returns_at_once_and_runs_only_when_approved(deleting: list[int]) -> None:
    pending = mcp_notebook.call("delete_row", {"row": 3}, confirm=True)
    assert isinstance(pending, PendingCall) and deleting == []
    assert repr(pending) == '<pending call delete_row {"row": 3}: pending>'
    with pytest.raises(MCPNotebookError, match="not been approved yet"):
        pending.result()  # says so at once instead of blocking the cell
    pending.approve_button.click()
    assert pending.result(30).text == "deleted 3" and deleting == [3]
    assert pending.approve_button.disabled and pending.decision == "approved"
    pending.deny()  # too late: the first decision counts
    assert pending.decision == "approved"


def test_deny_never_runs_it(deleting: list[int]) -> None:
    pending = mcp_notebook.call("delete_row", {"row": 4}, confirm=True)
    pending.deny()
    with pytest.raises(CallDenied, match="denied"):
        pending.result()
    assert deleting == []


def test_await_waits_for_the_decision(deleting: list[int]) -> None:
    pending = mcp_notebook.call("delete_row", {"row": 5}, confirm=True)

    async def main() -> Any:
        waiting = asyncio.ensure_future(pending._wait_async())  # awaiting before any decision exists
        pending.approve()
        return await waiting

    assert asyncio.run(main()).text == "deleted 5"


def test_the_magic_takes_confirm(deleting: list[int]) -> None:
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mcp_notebook")
    try:
        pending = shell.run_line_magic("mcp_call", "delete_row row=6 --confirm")
        assert isinstance(pending, PendingCall) and deleting == []
        pending.approve()
        assert pending.result(30).text == "deleted 6"
    finally:
        shell.run_line_magic("unload_ext", "mcp_notebook")


@pytest.mark.kernel
def test_clicking_approve_in_a_real_kernel_then_collecting_the_result() -> None:
    kernel = Kernel()
    try:
        cell = kernel.run(
            textwrap.dedent(
                '''
                %load_ext mcp_notebook
                from mcp_notebook import tool

                @tool(destructive=True, run_in="kernel")
                def delete_row(row: int) -> str:
                    """Delete one row."""
                    return f"deleted {row}"

                srv = %mcp_serve
                pending = %mcp_call delete_row row=8 --confirm
                '''
            )
        )
        cell.raise_for_error()
        # The pending call's own Approve (the panel's prompts come only for outside clients).
        button = cell.comm(
            lambda state: state.get("_model_name") == "ButtonModel" and state.get("description") == "Approve"
        )["comm_id"]
        kernel.click(button)
        out = kernel.run("print(pending.result(30).text)")
        out.raise_for_error()
        assert out.stdout.strip() == "deleted 8"
    finally:
        kernel.shutdown()
