"""Handles: unpredictable, bound to a client and a kind, with a time to live and a bounded store."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mcp_notebook import ToolError, set_language
from mcp_notebook.core._handles import HandleError, HandleStore
from mcp_notebook.core._store_sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_mint_then_resolve_returns_the_value() -> None:
    store = HandleStore()
    cart: dict[str, list[str]] = {"items": []}
    handle = store.mint("alice", "cart", cart, creator="cart_create")
    assert re.fullmatch(r"cart_[A-Za-z0-9_-]{24}", handle)
    assert store.resolve(handle, "alice", "cart") is cart


def test_handles_are_unpredictable_and_unique() -> None:
    store = HandleStore()
    handles = {store.mint("alice", "cart", n) for n in range(500)}
    assert len(handles) == 500
    assert len(store) == 500


def test_handle_error_is_a_tool_error_so_the_model_gets_an_error_result() -> None:
    assert issubclass(HandleError, ToolError)


def test_unknown_handle_names_the_tool_that_creates_one() -> None:
    store = HandleStore(creator="cart_create")
    with pytest.raises(HandleError) as caught:
        store.resolve("cart_doesnotexist", "alice", "cart")
    message = str(caught.value)
    assert "'cart_doesnotexist' is not a valid cart handle" in message
    assert "Call cart_create to get a new cart handle" in message


def test_the_creator_given_at_mint_is_remembered_per_kind() -> None:
    store = HandleStore(creator="make_anything")
    store.mint("alice", "browser", object(), creator="browser_open")
    with pytest.raises(HandleError, match="Call browser_open"):
        store.resolve("browser_nope", "alice", "browser")
    with pytest.raises(HandleError, match="Call make_anything"):
        store.resolve("cart_nope", "alice", "cart")


def test_without_any_creator_the_message_still_says_what_to_do() -> None:
    with pytest.raises(HandleError, match="Create a new cart handle with the tool that makes them"):
        HandleStore().resolve("cart_x", "alice", "cart")


def test_another_clients_handle_reads_exactly_like_an_unknown_one() -> None:
    store = HandleStore(creator="cart_create")
    handle = store.mint("alice", "cart", "alice's cart")
    with pytest.raises(HandleError) as foreign:
        store.resolve(handle, "mallory", "cart")
    other = handle[:-1] + ("A" if handle[-1] != "A" else "B")
    with pytest.raises(HandleError) as unknown:
        store.resolve(other, "mallory", "cart")
    assert str(foreign.value).replace(handle, "H") == str(unknown.value).replace(other, "H")
    assert store.resolve(handle, "alice", "cart") == "alice's cart"  # still there for its owner


def test_expired_handle_says_it_expired_and_how_to_get_a_new_one() -> None:
    clock = Clock()
    store = HandleStore(ttl=1800, creator="cart_create", clock=clock)
    handle = store.mint("alice", "cart", 1)
    clock.now += 1799.9
    assert store.resolve(handle, "alice", "cart") == 1
    clock.now += 0.1
    with pytest.raises(HandleError) as caught:
        store.resolve(handle, "alice", "cart")
    assert "has expired (handles last 30 minutes)" in str(caught.value)
    assert "Call cart_create" in str(caught.value)
    assert len(store) == 0


def test_a_handle_of_another_kind_is_refused() -> None:
    store = HandleStore()
    store.mint("alice", "cart", 1, creator="cart_create")
    browser = store.mint("alice", "browser", 2)
    with pytest.raises(
        HandleError, match=r"is a browser handle, but a cart handle is needed here\. Call cart_create"
    ):
        store.resolve(browser, "alice", "cart")


def test_korean_messages() -> None:
    store = HandleStore(ttl=3600, creator="cart_create", clock=Clock())
    set_language("ko")
    with pytest.raises(HandleError, match=r"유효한 cart 핸들이 아닙니다.*cart_create를 호출해"):
        store.resolve("cart_nope", "alice", "cart")


def test_a_long_garbage_handle_is_not_echoed_in_full() -> None:
    with pytest.raises(HandleError) as caught:
        HandleStore().resolve("x" * 10_000, "alice", "cart")
    assert len(str(caught.value)) < 400


def test_discard_forgets_only_the_owners_handle() -> None:
    store = HandleStore()
    handle = store.mint("alice", "cart", 1)
    assert store.discard(handle, "mallory") is False
    assert store.discard(handle, "alice") is True
    assert store.discard(handle, "alice") is False
    with pytest.raises(HandleError):
        store.resolve(handle, "alice", "cart")


def test_a_full_store_drops_expired_handles_first_then_the_oldest() -> None:
    clock = Clock()
    store = HandleStore(ttl=10, max_size=3, clock=clock)
    old = store.mint("alice", "cart", "old")
    clock.now += 5
    keep1 = store.mint("alice", "cart", "keep1")
    keep2 = store.mint("alice", "cart", "keep2")
    clock.now += 6  # `old` has expired, the others have not
    newest = store.mint("alice", "cart", "newest")
    assert len(store) == 3
    assert [store.resolve(h, "alice", "cart") for h in (keep1, keep2, newest)] == ["keep1", "keep2", "newest"]
    with pytest.raises(HandleError, match="not a valid"):
        store.resolve(old, "alice", "cart")
    fourth = store.mint("alice", "cart", "fourth")  # nothing expired: the oldest live one goes
    assert len(store) == 3
    with pytest.raises(HandleError):
        store.resolve(keep1, "alice", "cart")
    assert store.resolve(fourth, "alice", "cart") == "fourth"


def test_bad_kinds_and_settings_are_refused() -> None:
    store = HandleStore()
    for kind in ("", "1cart", "cart kind", "c" * 33):
        with pytest.raises(ValueError, match="kind must be"):
            store.mint("alice", kind, 1)
    with pytest.raises(ValueError, match="ttl"):
        HandleStore(ttl=0)
    with pytest.raises(ValueError, match="max_size"):
        HandleStore(max_size=0)


def test_minting_from_many_threads_loses_nothing() -> None:
    store = HandleStore()
    start = threading.Barrier(8)
    minted: list[list[str]] = [[] for _ in range(8)]

    def work(slot: int) -> None:
        start.wait()
        minted[slot].extend(store.mint(f"client{slot}", "cart", (slot, n)) for n in range(200))

    threads = [threading.Thread(target=work, args=(slot,)) for slot in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store) == 1600
    for slot, handles in enumerate(minted):
        assert [store.resolve(h, f"client{slot}", "cart") for h in handles] == [(slot, n) for n in range(200)]


# -- where handles live ------------------------------------------------------------------------------------


def test_the_default_store_keeps_live_objects_and_update_is_harmless() -> None:
    store = HandleStore(creator="open_cart")
    cart: list[str] = []
    handle = store.mint("alice", "cart", cart)
    store.resolve(handle, "alice", "cart").append("apple")
    assert cart == ["apple"]  # the very object: nothing was copied
    store.update(handle, "alice", "cart", ["pear"])
    assert store.resolve(handle, "alice", "cart") == ["pear"]
    with pytest.raises(HandleError, match="not a valid cart handle"):
        store.update(handle, "mallory", "cart", ["stolen"])
    assert store.resolve(handle, "alice", "cart") == ["pear"]


def test_handles_minted_in_one_process_resolve_in_another(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'handles.sqlite3'}"
    minted = subprocess.run(
        [sys.executable, "-m", "tests.core.store_process", "mint", url, "shop", "alice", '["apple"]'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert minted.returncode == 0, minted.stderr
    handle = minted.stdout.strip()
    assert handle.startswith("cart_")

    here = HandleStore(store=url, name="shop", creator="open_cart")
    items = here.resolve(handle, "alice", "cart")
    assert items == ["apple"]
    here.update(handle, "alice", "cart", [*items, "bread"])  # a shared store holds copies: store it back
    for client, name in (("mallory", "shop"), ("alice", "another-notebook")):
        with pytest.raises(HandleError, match="not a valid cart handle"):
            HandleStore(store=url, name=name).resolve(handle, client, "cart")

    def resolved_elsewhere(client: str) -> str:
        out = subprocess.run(
            [sys.executable, "-m", "tests.core.store_process", "resolve", url, "shop", client, handle],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    assert json.loads(resolved_elsewhere("alice")) == ["apple", "bread"]
    assert resolved_elsewhere("mallory").startswith(f"HandleError: {handle!r} is not a valid cart handle")
    assert here.discard(handle, "alice") is True
    assert resolved_elsewhere("alice").startswith("HandleError:")


def test_a_shared_store_expires_handles_by_its_clock(tmp_path: Path) -> None:
    clock = Clock()
    store = SQLiteStore(tmp_path / "handles.sqlite3", clock=clock)
    carts = HandleStore(ttl=60, store=store, name="shop", creator="open_cart")
    handle = carts.mint("alice", "cart", {"items": []})
    clock.now += 60
    with pytest.raises(HandleError, match="has expired"):
        carts.resolve(handle, "alice", "cart")
    assert len(carts) == 0
    clock.now += 3600
    with pytest.raises(HandleError, match="not a valid cart handle"):
        carts.resolve(handle, "alice", "cart")


def test_a_shared_store_refuses_live_objects_with_what_to_do(tmp_path: Path) -> None:
    carts = HandleStore(store=f"sqlite:///{tmp_path / 'handles.sqlite3'}", name="shop")
    with pytest.raises(TypeError, match=r"holds JSON values.*keep live objects in a MemoryStore"):
        carts.mint("alice", "browser", threading.Lock())
    assert len(carts) == 0


def test_store_settings_that_cannot_work_together_are_refused() -> None:
    with pytest.raises(ValueError, match="both a clock and a store"):
        HandleStore(clock=Clock(), store="memory://")
    with pytest.raises(ValueError, match="does not name a store"):
        HandleStore(store="carts.sqlite3")
    for client in ("", None):
        with pytest.raises(ValueError, match="pass current_client"):
            HandleStore().mint(client, "cart", [])  # type: ignore[arg-type]
    assert HandleStore().discard("cart_x", "") is False
    with pytest.raises(HandleError, match="not a valid cart handle"):
        HandleStore().resolve("cart_x", "", "cart")
