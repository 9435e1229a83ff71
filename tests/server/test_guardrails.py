"""The design kit and guardrails in the call path: rate limits, timeouts, idempotency, hidden tools,
sanitized output, the audit log, batch results and handles, and the linter when a tool is defined."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from mcp.shared.exceptions import MCPError

import mcp_notebook
from mcp_notebook import BatchResult, Catalogue, HandleStore, current_client, tool
from mcp_notebook.server._audit import AuditLog
from tests.conftest import connect, serve_unattended, until

pytestmark = pytest.mark.anyio
KEY = "k-0123456789abcdef"


async def test_over_the_rate_limit_says_when_to_retry(server: Any, catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, rate_limit=(2, 60), read_only=True)
    def lookup(word: str) -> str:
        """Look a word up. Use when a word needs a definition."""
        return word

    async with connect(server, "auto") as client:
        first = await client.call_tool("lookup", {"word": "a"})
        second = await client.call_tool("lookup", {"word": "b"})
        third = await client.call_tool("lookup", {"word": "c"})
    assert not first.is_error and not second.is_error
    assert third.is_error and "Wait 30.0 s, then call it again" in third.content[0].text
    assert server.calls[-1].decision == "rate limited"

    # Re-running the cell with a looser limit applies it at once (no server restart).
    @tool(catalogue=catalogue, rate_limit=(5, 60), read_only=True)
    def lookup(word: str) -> str:  # noqa: F811 - the cell, run again
        """Look a word up. Use when a word needs a definition."""
        return word

    async with connect(server, "auto") as client:
        again = await client.call_tool("lookup", {"word": "d"})
    assert not again.is_error


async def test_a_slow_call_is_abandoned_and_the_server_goes_on(server: Any, catalogue: Catalogue) -> None:
    release = threading.Event()

    @tool(catalogue=catalogue, timeout=0.3, read_only=True)
    def slow() -> str:
        """Wait for a long time."""
        release.wait(30)
        return "late"

    @tool(catalogue=catalogue, read_only=True)
    def quick() -> str:
        """Answer at once."""
        return "quick"

    try:
        async with connect(server, "auto") as client:
            timed_out = await client.call_tool("slow", {})
            after = await client.call_tool("quick", {})
        assert timed_out.is_error and "longer than 0.3 s" in timed_out.content[0].text
        assert after.content[0].text == "quick"
    finally:
        release.set()


async def test_idempotency_key_replays_the_first_result(catalogue: Catalogue, tmp_path: Any) -> None:
    runs: list[int] = []

    @tool(catalogue=catalogue, idempotency_key=True)
    def place_order(item: str, quantity: int) -> dict[str, Any]:
        """Place an order. Use once per order the person asked for."""
        runs.append(quantity)
        return {"order": len(runs), "item": item, "quantity": quantity}

    schema = catalogue.get("place_order").input_schema  # type: ignore[union-attr]
    assert (
        "idempotency_key" in schema["required"] and schema["properties"]["idempotency_key"]["minLength"] == 16
    )
    store = tmp_path / "idem.sqlite3"
    srv = serve_unattended(catalogue, idempotency_path=store)
    try:
        async with connect(srv, "auto") as client:
            args = {"item": "umbrella", "quantity": 2, "idempotency_key": KEY}
            first = await client.call_tool("place_order", args)
            again = await client.call_tool("place_order", args)
            conflict = await client.call_tool("place_order", {**args, "quantity": 3})
    finally:
        srv.stop()
    assert (
        first.structured_content
        == again.structured_content
        == {"order": 1, "item": "umbrella", "quantity": 2}
    )
    assert runs == [2]
    assert conflict.is_error and "quantity" in conflict.content[0].text
    # A new server (a restarted kernel) still remembers the key.
    srv = serve_unattended(catalogue, idempotency_path=store)
    try:
        async with connect(srv, "auto") as client:
            replay = await client.call_tool(
                "place_order", {"item": "umbrella", "quantity": 2, "idempotency_key": KEY}
            )
        assert replay.structured_content == {"order": 1, "item": "umbrella", "quantity": 2} and runs == [2]
    finally:
        srv.stop()


async def test_hidden_tools_exist_only_for_the_notebook(server: Any, catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, expose=False, destructive=True)
    def revoke_all() -> str:
        """Revoke every published report."""
        return "revoked"

    async with connect(server, "auto") as client:
        assert (await client.list_tools()).tools == []
        with pytest.raises(MCPError) as caught:
            await client.call_tool("revoke_all", {})
    assert caught.value.code == -32602 and "revoke_all" not in caught.value.error.message.split(".", 1)[1]
    assert [t["name"] for t in mcp_notebook.list_tools()] == ["revoke_all"]  # the notebook sees it
    assert mcp_notebook.call("revoke_all").text == "revoked"


async def test_output_is_sanitized_and_every_call_is_audited(catalogue: Catalogue, tmp_path: Any) -> None:
    @tool(catalogue=catalogue)
    def login(user: str, password: str) -> str:
        """Log in (test tool)."""
        return f"welcome {user}\x1b[31m\x07!"

    log = tmp_path / "audit.jsonl"
    srv = serve_unattended(catalogue, audit_log=log)
    try:
        async with connect(srv, "legacy") as client:
            result = await client.call_tool("login", {"user": "kim", "password": "hunter2"})
            await client.call_tool("login", {"user": "kim"})
        # Read while the server still runs: each line is on disk once its answer has left.
        assert until(lambda: len(AuditLog.read(log)) == 2)
        lines = AuditLog.read(log)
    finally:
        srv.stop()
    assert result.content[0].text == "welcome kim!"  # control characters and escape sequences stripped
    assert [line["tool"] for line in lines] == ["login", "login"]
    assert lines[0]["arguments"] == {"user": "kim", "password": "[redacted]"}
    assert lines[0]["outcome"] == "ok" and lines[1]["outcome"] == "invalid arguments" and lines[1]["is_error"]
    assert {"time", "client", "decision", "duration_ms"} <= set(lines[0])
    assert "hunter2" not in log.read_text()


async def test_batch_results_and_handles_in_real_tools(server: Any, catalogue: Catalogue) -> None:
    carts = HandleStore(ttl=600, creator="open_cart")

    @tool(catalogue=catalogue)
    def open_cart() -> str:
        """Open a shopping cart and return its handle. Use before add_items."""
        return carts.mint(current_client(), "cart", [])

    @tool(catalogue=catalogue)
    def add_items(cart: str, items: list[str]) -> BatchResult:
        """Add items to a cart; unknown items are reported one by one."""
        contents = carts.resolve(cart, current_client(), "cart")
        batch = BatchResult(label="items")
        for index, item in enumerate(items):
            if item in ("apple", "pear"):
                contents.append(item)
                batch.add_ok(index, item)
            else:
                batch.add_failure(index, "unknown_item", f"No item {item!r}.", "Use apple or pear.")
        return batch

    async with connect(server, "auto") as client:
        handle = (await client.call_tool("open_cart", {})).content[0].text
        partial = await client.call_tool("add_items", {"cart": handle, "items": ["apple", "kiwi"]})
        failed = await client.call_tool("add_items", {"cart": handle, "items": ["kiwi"]})
        unknown = await client.call_tool("add_items", {"cart": "cart_forged", "items": ["apple"]})
    assert handle.startswith("cart_")
    assert partial.is_error is False and "kiwi" in partial.content[0].text
    assert failed.is_error is True
    assert unknown.is_error and "open_cart" in unknown.content[0].text


def test_defining_a_tool_shows_the_linters_findings(capsys: Any) -> None:
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mcp_notebook")
    try:
        catalogue = Catalogue()

        @tool(catalogue=catalogue)
        def do(x: float, status: str) -> dict[str, Any]:
            return {}

        shown = capsys.readouterr().out
        assert "MCP010" in shown and "MCP022" in shown  # no description; free-form "status"

        @tool(catalogue=catalogue, lint=False)
        def quiet(x: float) -> None:
            pass

        assert capsys.readouterr().out == ""
    finally:
        shell.run_line_magic("unload_ext", "mcp_notebook")
    findings = mcp_notebook.lint(catalogue)
    assert {f.rule for f in findings} >= {"MCP010", "MCP022"}
    assert json.dumps([f.to_json() for f in findings])
