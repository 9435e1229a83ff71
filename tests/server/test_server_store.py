"""The server's store: choosing it (`serve(store=...)`), and what it keeps across a kernel restart."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

import mcp_notebook
from mcp_notebook import Catalogue, HandleStore, current_client, tool
from mcp_notebook.core._store import default_path
from mcp_notebook.core._store_memory import MemoryStore
from mcp_notebook.core._store_sqlite import SQLiteStore
from tests.conftest import connect, serve_unattended
from tests.security.conftest import client_as

pytestmark = pytest.mark.anyio
KEY = "k-0123456789abcdef"


def orders(catalogue: Catalogue) -> list[str]:
    """Define an idempotent tool; the list of orders it made."""
    made: list[str] = []

    @tool(catalogue=catalogue, idempotency_key=True)
    def place_order(item: str) -> dict[str, Any]:
        """Place an order. Use once per order the person asked for."""
        made.append(item)
        return {"order": len(made), "item": item}

    return made


def report(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, read_only=True)
    def big_report() -> str:
        """A long report."""
        return "line\n" * 1000


def link_of(text: str) -> str:
    found = re.search(r"mcp-notebook://results/\S+", text)
    assert found is not None, text
    return found.group(0).rstrip(".,")


def test_the_default_store_is_the_sqlite_file_in_the_cache_folder(catalogue: Catalogue) -> None:
    srv = serve_unattended(catalogue)
    try:
        assert isinstance(srv.store, SQLiteStore) and srv.store.path == str(default_path())
    finally:
        srv.stop()


def test_a_store_url_and_what_it_keeps(catalogue: Catalogue) -> None:
    made = orders(catalogue)
    srv = serve_unattended(catalogue, store="memory://")
    try:
        assert isinstance(srv.store, MemoryStore)
        args = {"item": "tea", "idempotency_key": KEY}
        first = mcp_notebook.call("place_order", args).structured_content
        assert mcp_notebook.call("place_order", args).structured_content == first and made == ["tea"]
    finally:
        srv.stop()


def test_a_store_given_as_an_instance_is_used_and_left_open(catalogue: Catalogue, tmp_path: Path) -> None:
    made = orders(catalogue)
    store = SQLiteStore(tmp_path / "shared.sqlite3")
    args = {"item": "tea", "idempotency_key": KEY}
    for _ in range(2):  # the second server is a restarted kernel: same store, same name
        srv = serve_unattended(catalogue, store=store)
        try:
            assert srv.store is store
            assert mcp_notebook.call("place_order", args).structured_content == {"order": 1, "item": "tea"}
        finally:
            srv.stop()
    assert made == ["tea"]
    assert store.count("idempotency") == 1  # still open: its owner closes it
    store.close()


def test_store_settings_that_cannot_work_are_refused_before_the_server_starts(
    catalogue: Catalogue, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match="both store= and idempotency_path="):
        mcp_notebook.serve(catalogue=catalogue, store="memory://", idempotency_path=tmp_path / "x.sqlite3")
    with pytest.raises(ValueError, match="does not name a store"):
        mcp_notebook.serve(catalogue=catalogue, store="state.sqlite3")
    assert mcp_notebook.current_server() is None


def test_idempotency_path_names_the_stores_file(catalogue: Catalogue, tmp_path: Path) -> None:
    srv = serve_unattended(catalogue, idempotency_path=tmp_path / "idem.sqlite3")
    try:
        assert isinstance(srv.store, SQLiteStore) and srv.store.path == str(tmp_path / "idem.sqlite3")
    finally:
        srv.stop()


async def test_kept_results_outlive_a_kernel_restart_for_their_owner_only(
    catalogue: Catalogue, tmp_path: Path
) -> None:
    report(catalogue)
    url = f"sqlite:///{tmp_path / 'state.sqlite3'}"
    srv = serve_unattended(catalogue, store=url, result_limit=1000)
    try:
        async with connect(srv, "auto") as client:  # the owner, from outside
            link = link_of((await client.call_tool("big_report", {})).content[0].text)
    finally:
        srv.stop()
    srv = serve_unattended(catalogue, store=url, result_limit=1000)  # a new kernel, the same notebook
    try:
        alice = srv.add_client("alice")
        async with connect(srv, "auto") as client:
            assert (await client.read_resource(link)).contents[0].text == "line\n" * 1000  # type: ignore[union-attr]
        async with client_as(srv, alice, "auto") as client:
            with pytest.raises(MCPError) as caught:
                await client.read_resource(link)
        assert caught.value.code in (-32602, -32002) and "line" not in caught.value.error.message
    finally:
        srv.stop()


def test_handles_in_the_servers_store_outlive_a_kernel_restart(catalogue: Catalogue, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'state.sqlite3'}"

    def define(srv: Any) -> HandleStore:
        carts = HandleStore(store=srv.store, name=srv.name, creator="open_cart")

        @tool(catalogue=catalogue)
        def open_cart() -> str:
            """Open a cart; returns its handle."""
            return carts.mint(current_client(), "cart", [])

        @tool(catalogue=catalogue)
        def add_to_cart(cart: str, item: str) -> list[str]:
            """Add an item to a cart."""
            items: list[str] = carts.resolve(cart, current_client(), "cart")
            items.append(item)
            carts.update(cart, current_client(), "cart", items)  # the store holds JSON: store it back
            return items

        return carts

    srv = serve_unattended(catalogue, store=url)
    try:
        define(srv)
        cart = mcp_notebook.call("open_cart").text
        mcp_notebook.call("add_to_cart", {"cart": cart, "item": "apple"})
    finally:
        srv.stop()
    srv = serve_unattended(catalogue, store=url)
    try:
        define(srv)
        assert mcp_notebook.call("add_to_cart", {"cart": cart, "item": "bread"}).structured_content == {
            "result": ["apple", "bread"]
        }
    finally:
        srv.stop()
