"""Idempotency keys: first result stored and replayed, conflicts, failures, retention, durability, threads."""

from __future__ import annotations

import dataclasses
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook import ToolError, set_language
from mcp_notebook.core import _store as store_module
from mcp_notebook.core._idempotency import (
    IdempotencyConflict,
    IdempotencyStore,
    Scope,
    default_path,
    definition_fingerprint,
    idempotency_key_schema,
)

KEY = "k-0123456789abcdef"
OTHER_KEY = "k-fedcba9876543210"
NOTEBOOK = "orders-3f9a2c1d"


def at(client: str, tool: str, *, server: str = NOTEBOOK, definition: str = "v1") -> Scope:
    """The scope of a key: which notebook, which identity, which tool (and its definition)."""
    return Scope(server, client, tool, definition)


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(tmp_path: Path, clock: Clock) -> Iterator[IdempotencyStore]:
    with IdempotencyStore(tmp_path / "idem.sqlite3", clock=clock) as opened:
        yield opened


class Counter:
    """A tool body that counts its runs and returns a fresh order id each time."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> dict[str, Any]:
        self.calls += 1
        return {"content": [{"type": "text", "text": f"order {self.calls}"}], "isError": False}


def order(**extra: Any) -> dict[str, Any]:
    return {"item": "book", "quantity": 1, **extra}


def test_the_first_result_is_returned_for_repeats(store: IdempotencyStore) -> None:
    work = Counter()
    first = store.run(at("alice", "orders_create"), KEY, order(), work)
    again = store.run(at("alice", "orders_create"), KEY, order(), work)
    assert first == again == {"content": [{"type": "text", "text": "order 1"}], "isError": False}
    assert work.calls == 1
    assert len(store) == 1


def test_keys_are_scoped_by_client_and_tool(store: IdempotencyStore) -> None:
    work = Counter()
    store.run(at("alice", "orders_create"), KEY, order(), work)
    store.run(at("bob", "orders_create"), KEY, order(), work)
    store.run(at("alice", "refunds_create"), KEY, order(), work)
    store.run(at("alice", "orders_create"), OTHER_KEY, order(), work)
    assert work.calls == 4


def test_keys_are_scoped_by_the_serving_notebook(store: IdempotencyStore) -> None:
    # Two notebooks that both define orders_create share one cache file, never their results.
    work = Counter()
    first = store.run(at("alice", "orders_create", server="orders-3f9a2c1d"), KEY, order(), work)
    other = store.run(at("alice", "orders_create", server="orders-77b0e412"), KEY, order(), work)
    assert work.calls == 2 and first != other
    # The same notebook (same name, e.g. after a kernel restart) still recognises the retry.
    again = store.run(at("alice", "orders_create", server="orders-3f9a2c1d"), KEY, order(), work)
    assert again == first and work.calls == 2


def test_a_key_used_under_another_definition_of_the_tool_is_a_conflict(store: IdempotencyStore) -> None:
    work = Counter()
    store.run(at("alice", "orders_create", definition="v1"), KEY, order(), work)
    with pytest.raises(IdempotencyConflict) as caught:
        store.run(at("alice", "orders_create", definition="v2"), KEY, order(), work)
    assert work.calls == 1  # neither replayed nor run a second time
    message = str(caught.value)
    assert "redefined" in message and "did run" in message and "new idempotency_key" in message
    # A new key runs under the new definition; the old definition still gets its result back.
    store.run(at("alice", "orders_create", definition="v2"), OTHER_KEY, order(), work)
    assert work.calls == 2
    assert (
        store.run(at("alice", "orders_create", definition="v1"), KEY, order(), work)["content"][0]["text"]
        == "order 1"
    )


def test_the_definition_fingerprint_follows_the_schemas_not_their_wording() -> None:
    base = {
        "type": "object",
        "properties": {
            "item": {"type": "string", "description": "What to order"},
            "description": {"type": "string"},  # a parameter named like the keyword stays
        },
        "required": ["item"],
    }
    reworded = {**base, "properties": {**base["properties"], "item": {"type": "string", "title": "Item"}}}
    widened = {**base, "properties": {**base["properties"], "gift": {"type": "boolean"}}}
    without_param = {**base, "properties": {"item": base["properties"]["item"]}}
    fingerprint = definition_fingerprint(base, None)
    assert definition_fingerprint(reworded, None) == fingerprint
    assert definition_fingerprint(widened, None) != fingerprint
    assert definition_fingerprint(without_param, None) != fingerprint
    assert definition_fingerprint(base, {"type": "object"}) != fingerprint  # the result's shape counts too


def test_a_cache_file_from_before_notebook_scoping_starts_empty(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "idem.sqlite3"
    with sqlite3.connect(path) as old:  # the version-1 layout: keys scoped by (client, tool) only
        old.execute(
            "CREATE TABLE results (client TEXT NOT NULL, tool TEXT NOT NULL, key TEXT NOT NULL, "
            "args_hash TEXT NOT NULL, args_json TEXT NOT NULL, result_json TEXT NOT NULL, created REAL NOT NULL, "
            "PRIMARY KEY (client, tool, key))"
        )
        old.execute(
            "INSERT INTO results VALUES ('alice', 't', ?, 'h', '{}', '{\"from\": \"elsewhere\"}', 1e12)",
            (KEY,),
        )
        old.execute("PRAGMA user_version = 1")
    with IdempotencyStore(path) as store:
        assert len(store) == 0  # which notebook made that result is unknown: never replayed
        assert store.run(at("alice", "t"), KEY, {}, lambda: {"from": "here"}) == {"from": "here"}


def test_the_first_caller_gets_the_stored_json_too(store: IdempotencyStore) -> None:
    first = store.run(at("alice", "t"), KEY, {}, lambda: {"pair": (1, 2)})
    assert first == {"pair": [1, 2]} == store.run(at("alice", "t"), KEY, {}, lambda: {"pair": (3, 4)})


def test_argument_order_and_the_key_itself_do_not_matter(store: IdempotencyStore) -> None:
    work = Counter()
    store.run(at("alice", "t"), KEY, {"a": 1, "b": {"x": 1, "y": 2}, "idempotency_key": KEY}, work)
    store.run(at("alice", "t"), KEY, {"b": {"y": 2, "x": 1}, "a": 1}, work)
    assert work.calls == 1


def test_same_key_different_arguments_is_a_conflict(store: IdempotencyStore) -> None:
    store.run(at("alice", "orders_create"), KEY, order(), Counter())
    with pytest.raises(IdempotencyConflict) as caught:
        store.run(at("alice", "orders_create"), KEY, order(quantity=2, note="gift"), Counter())
    assert isinstance(caught.value, ToolError)  # an error result the model reads, not a crash
    message = str(caught.value)
    assert f"The idempotency_key {KEY!r} was already used for a call of 'orders_create'" in message
    assert "(differing: note, quantity)" in message
    assert "send exactly its arguments again" in message and "use a new idempotency_key" in message


def test_failures_are_not_stored_so_a_retry_runs_again(store: IdempotencyStore) -> None:
    def fail() -> dict[str, Any]:
        raise RuntimeError("payment service down")

    with pytest.raises(RuntimeError, match="payment service down"):
        store.run(at("alice", "t"), KEY, order(), fail)
    work = Counter()
    assert store.run(at("alice", "t"), KEY, order(), work)["content"][0]["text"] == "order 1"
    assert work.calls == 1


def test_error_results_are_returned_but_not_stored(store: IdempotencyStore) -> None:
    error = {"content": [{"type": "text", "text": "out of stock"}], "isError": True}
    assert store.run(at("alice", "t"), KEY, order(), lambda: error) == error
    assert len(store) == 0
    work = Counter()
    store.run(at("alice", "t"), KEY, order(), work)
    assert work.calls == 1


def test_unserializable_results_are_failures(store: IdempotencyStore) -> None:
    with pytest.raises(TypeError):
        store.run(at("alice", "t"), KEY, {}, lambda: {"when": object()})
    assert len(store) == 0


def test_entries_expire_after_the_retention(tmp_path: Path, clock: Clock) -> None:
    with IdempotencyStore(tmp_path / "idem.sqlite3", retention=3600, clock=clock) as store:
        work = Counter()
        store.run(at("alice", "t"), KEY, order(), work)
        clock.now += 3599
        store.run(at("alice", "t"), KEY, order(), work)
        assert work.calls == 1
        clock.now += 1
        assert len(store) == 0
        # Expired: the key is free again, even with other arguments.
        assert store.run(at("alice", "t"), KEY, order(quantity=5), work)["content"][0]["text"] == "order 2"


def test_results_survive_closing_and_reopening_the_file(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "cache" / "idem.sqlite3"
    with IdempotencyStore(path, clock=clock) as store:
        store.run(at("alice", "t"), KEY, order(), Counter())
    # A kernel restart: a new store on the same file.
    with IdempotencyStore(path, clock=clock) as reopened:
        work = Counter()
        assert reopened.run(at("alice", "t"), KEY, order(), work)["content"][0]["text"] == "order 1"
        assert work.calls == 0
        with pytest.raises(IdempotencyConflict):
            reopened.run(at("alice", "t"), KEY, order(quantity=9), work)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # results may hold private data


@pytest.mark.parametrize("key", ["short", "x" * 65, 12345678901234567890])
def test_malformed_keys_are_refused(store: IdempotencyStore, key: Any) -> None:
    with pytest.raises(ToolError, match="idempotency_key must be a string of 16-64 characters"):
        store.run(at("alice", "t"), key, {}, Counter())


# -- concurrency -------------------------------------------------------------------------------------------


class WaitCountingEvent(threading.Event):
    """Lets a test know that a duplicate call is waiting, without sleeping."""

    waiting = threading.Semaphore(0)

    def wait(self, timeout: float | None = None) -> bool:
        WaitCountingEvent.waiting.release()
        return super().wait(timeout)


@pytest.fixture
def counted_waits(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    @dataclasses.dataclass
    class CountedFlight(store_module._Flight):
        done: threading.Event = dataclasses.field(default_factory=WaitCountingEvent)

    WaitCountingEvent.waiting = threading.Semaphore(0)
    monkeypatch.setattr(store_module, "_Flight", CountedFlight)

    def until_waiting(n: int) -> None:
        for _ in range(n):
            assert WaitCountingEvent.waiting.acquire(timeout=30), "a duplicate never started waiting"

    return until_waiting


def run_in_threads(n: int, call: Callable[[], Any]) -> tuple[list[threading.Thread], list[Any]]:
    outcomes: list[Any] = []

    def target() -> None:
        try:
            outcomes.append(call())
        except Exception as exc:
            outcomes.append(exc)

    threads = [threading.Thread(target=target) for _ in range(n)]
    for thread in threads:
        thread.start()
    return threads, outcomes


def test_concurrent_duplicates_run_the_function_once(
    store: IdempotencyStore, counted_waits: Callable[[int], None]
) -> None:
    entered, release = threading.Event(), threading.Event()
    work = Counter()

    def slow() -> dict[str, Any]:
        entered.set()
        assert release.wait(30)
        return work()

    first, first_outcome = run_in_threads(1, lambda: store.run(at("alice", "t"), KEY, order(), slow))
    assert entered.wait(30)
    duplicates, outcomes = run_in_threads(5, lambda: store.run(at("alice", "t"), KEY, order(), slow))
    counted_waits(5)  # all five are waiting for the first call
    release.set()
    for thread in first + duplicates:
        thread.join(30)
    assert work.calls == 1
    assert first_outcome + outcomes == [first_outcome[0]] * 6


def test_concurrent_duplicates_share_a_failure_and_a_later_retry_runs_again(
    store: IdempotencyStore, counted_waits: Callable[[int], None]
) -> None:
    entered, release = threading.Event(), threading.Event()

    def failing() -> dict[str, Any]:
        entered.set()
        assert release.wait(30)
        raise ToolError("card service down")

    first, first_outcome = run_in_threads(1, lambda: store.run(at("alice", "t"), KEY, order(), failing))
    assert entered.wait(30)
    duplicates, outcomes = run_in_threads(3, lambda: store.run(at("alice", "t"), KEY, order(), failing))
    counted_waits(3)
    release.set()
    for thread in first + duplicates:
        thread.join(30)
    assert [str(outcome) for outcome in first_outcome + outcomes] == ["card service down"] * 4
    work = Counter()
    store.run(at("alice", "t"), KEY, order(), work)
    assert work.calls == 1


def test_a_duplicate_that_cannot_wait_is_told_to_retry_and_conflicts_are_caught_in_flight(
    tmp_path: Path, clock: Clock
) -> None:
    entered, release = threading.Event(), threading.Event()

    def slow() -> dict[str, Any]:
        entered.set()
        assert release.wait(30)
        return {"ok": True}

    with IdempotencyStore(tmp_path / "idem.sqlite3", clock=clock, wait_timeout=0) as store:
        first, outcome = run_in_threads(1, lambda: store.run(at("alice", "t"), KEY, order(), slow))
        assert entered.wait(30)
        with pytest.raises(ToolError, match=r"still running\. Retry with the same key and arguments"):
            store.run(at("alice", "t"), KEY, order(), Counter())
        with pytest.raises(IdempotencyConflict):
            store.run(at("alice", "t"), KEY, order(quantity=3), Counter())
        release.set()
        first[0].join(30)
        assert outcome == [{"ok": True}]


# -- schema and location -----------------------------------------------------------------------------------


def test_key_schema_tells_the_model_why_and_how_long() -> None:
    schema = idempotency_key_schema()
    assert (schema["type"], schema["minLength"], schema["maxLength"]) == ("string", 16, 64)
    description = schema["description"]
    assert "retry" in description and "same key and the same arguments" in description
    assert "new random key for each new operation" in description
    assert "Keys are kept for 24 hours." in description
    assert "kept for 30 minutes" in idempotency_key_schema(1800)["description"]
    assert "kept for 1 hour." in idempotency_key_schema(3600)["description"]
    set_language("ko")
    assert "키는 24시간 동안 보관됩니다" in idempotency_key_schema()["description"]


def test_default_path_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MCP_NOTEBOOK_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_path() == tmp_path / "xdg" / "mcp-notebook" / "idempotency.sqlite3"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_path() == tmp_path / "home" / ".cache" / "mcp-notebook" / "idempotency.sqlite3"
    monkeypatch.setenv("MCP_NOTEBOOK_CACHE_DIR", str(tmp_path / "mine"))
    assert default_path() == tmp_path / "mine" / "idempotency.sqlite3"
    with IdempotencyStore() as store:
        assert store.path == str(tmp_path / "mine" / "idempotency.sqlite3")
    assert (tmp_path / "mine" / "idempotency.sqlite3").exists()


def test_an_in_memory_store_works_for_tests_and_demos() -> None:
    with IdempotencyStore(":memory:") as store:
        work = Counter()
        store.run(at("alice", "t"), KEY, {}, work)
        store.run(at("alice", "t"), KEY, {}, work)
        assert work.calls == 1
