"""The `Store` contract: what every implementation passes, so that the server never depends on one.

`TestStoreContract` runs once per entry of `BACKENDS`. `RedisStore` (for replicas behind a load
balancer) runs against a real ``redis-server`` started for the session (`tests.services`), each
test on keys of its own (a prefix): nothing in the server changed for it. A backend says what it is: `shared` (two instances, and two processes, see one
state, e.g. one SQLite file), `durable` (a reopened store still has its entries), `json_only`
(values leave the process, so they are JSON).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import queue
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook.core import _store as store_module
from mcp_notebook.core._store import (
    HANDLES,
    IDEMPOTENCY,
    KEPT_RESULTS,
    RATE_LIMITS,
    ClaimStatus,
    OtherDefinition,
    OtherRequest,
    Scope,
    StillRunning,
    Store,
    StoreClosed,
    StoreValueError,
)
from mcp_notebook.core._store_memory import MemoryStore
from mcp_notebook.core._store_redis import RedisStore
from mcp_notebook.core._store_sqlite import SQLiteStore
from tests.conftest import until
from tests.core.conftest import Child
from tests.services import RedisServer

ROOT = Path(__file__).resolve().parents[2]
NS = IDEMPOTENCY
RATE = RATE_LIMITS
SCOPE_OF_CHILD = Scope("shop", "alice", "orders_create", "v1")  # tests.core.store_process's scope
BASE = Scope("shop-3f9a2c1d", "alice", "orders_create", "v1")
KEY = "k-0123456789abcdef"


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclasses.dataclass
class Backend:
    """How the contract opens stores of one implementation."""

    open: Callable[[Callable[[], float]], Store]  # a new instance on the same backing, with this clock
    url: str | None = None  # to open it in another process (shared backends)
    shared: bool = False
    durable: bool = False
    json_only: bool = False


def sqlite_backend(folder: Path) -> Backend:
    path = folder / "state.sqlite3"
    return Backend(
        open=lambda clock: SQLiteStore(path, clock=clock),
        url=f"sqlite:///{path}",
        shared=True,
        durable=True,
        json_only=True,
    )


def memory_backend(folder: Path) -> Backend:
    return Backend(open=lambda clock: MemoryStore(clock=clock))


_prefixes = itertools.count(1)


def redis_backend(folder: Path, server: RedisServer) -> Backend:
    url = f"{server.url}?prefix=test-{next(_prefixes)}:"  # each test on keys of its own
    return Backend(
        open=lambda clock: RedisStore(url, clock=clock),
        url=url,
        shared=True,
        durable=True,
        json_only=True,
    )


BACKENDS: dict[str, Callable[..., Backend]] = {
    "sqlite": sqlite_backend,
    "memory": memory_backend,
    "redis": redis_backend,
}


@pytest.fixture(params=list(BACKENDS))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "redis":
        return redis_backend(tmp_path, request.getfixturevalue("redis_server"))
    return BACKENDS[request.param](tmp_path)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(backend: Backend, clock: Clock) -> Iterator[Store]:
    with backend.open(clock) as opened:
        yield opened


@pytest.fixture
def shared(backend: Backend) -> Backend:
    if not backend.shared:
        pytest.skip("a store of one process: nothing to share")
    return backend


class Counter:
    """The work of a run: counts its runs, returns a new order each time."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> dict[str, Any]:
        self.calls += 1
        return {"order": self.calls}


class Waiters:
    """Lets a test know that duplicates are waiting for a run, without sleeping."""

    def __init__(self) -> None:
        self.threads: set[int] = set()
        self.changed = threading.Condition()

    def entered(self) -> None:
        with self.changed:
            self.threads.add(threading.get_ident())
            self.changed.notify_all()

    def until(self, n: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.threads) >= n, 30), "duplicates never waited"

    def watch(self, store: Store) -> None:
        """Count the threads that wait for a run held by another store instance (or process)."""
        wait = store._wait_for_others

        def counted(timeout: float) -> None:
            self.entered()
            wait(timeout)

        store._wait_for_others = counted  # type: ignore[method-assign]


@pytest.fixture
def waiters(monkeypatch: pytest.MonkeyPatch) -> Waiters:
    """Counts waits on a run of the same instance (its `_Flight`) and, once watched, on other instances."""
    seen = Waiters()

    class CountedEvent(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            seen.entered()
            return super().wait(timeout)

    @dataclasses.dataclass
    class CountedFlight(store_module._Flight):
        done: threading.Event = dataclasses.field(default_factory=CountedEvent)

    monkeypatch.setattr(store_module, "_Flight", CountedFlight)
    return seen


def in_threads(n: int, call: Callable[[], Any]) -> tuple[list[threading.Thread], list[Any]]:
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


def join(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.join(30)
        assert not thread.is_alive(), "a run never finished"


class TestStoreContract:
    """What every `Store` does (each test runs for each backend)."""

    # -- put, get, delete ----------------------------------------------------------------------------------
    @pytest.mark.parametrize(
        "value",
        [
            {"content": [{"type": "text", "text": "주문 1 ✓"}], "isError": False},
            [1, 2.5, "three", None, True, {"nested": [[]]}],
            "a string",
            0,
            -1.25,
            False,
            {"big": "x" * 1_000_000},
        ],
        ids=["result", "list", "str", "int", "float", "bool", "1MB"],
    )
    def test_values_round_trip(self, store: Store, value: Any) -> None:
        store.put(NS, BASE, KEY, value, ttl=60)
        assert store.get(NS, BASE, KEY) == value
        assert json.dumps(store.get(NS, BASE, KEY), sort_keys=True) == json.dumps(value, sort_keys=True)

    def test_put_replaces_get_defaults_delete_forgets(self, store: Store) -> None:
        missing = object()
        assert store.get(NS, BASE, KEY) is None and store.get(NS, BASE, KEY, missing) is missing
        store.put(NS, BASE, KEY, None, ttl=60)  # null is a value, told apart with a default
        assert store.get(NS, BASE, KEY, missing) is None
        store.put(NS, BASE, KEY, {"v": 1}, ttl=60)
        store.put(NS, BASE, KEY, {"v": 2}, ttl=60)
        assert store.get(NS, BASE, KEY) == {"v": 2} and store.count(NS) == 1
        assert store.delete(NS, BASE, KEY) is True
        assert store.delete(NS, BASE, KEY) is False
        assert store.get(NS, BASE, KEY, missing) is missing and store.count(NS) == 0

    def test_namespaces_are_separate(self, store: Store) -> None:
        store.put(HANDLES, BASE, KEY, "a handle's value", ttl=60)
        assert store.get(KEPT_RESULTS, BASE, KEY) is None
        store.put(KEPT_RESULTS, BASE, KEY, "a kept result", ttl=60)
        assert store.get(HANDLES, BASE, KEY) == "a handle's value"
        assert (store.count(HANDLES), store.count(KEPT_RESULTS), store.count(IDEMPOTENCY)) == (1, 1, 0)

    # -- scope -----------------------------------------------------------------------------------------
    @pytest.mark.parametrize("part", ["server", "identity", "tool"])
    def test_each_part_of_the_scope_separates_keys(self, store: Store, part: str) -> None:
        other = dataclasses.replace(BASE, **{part: "someone-else"})
        store.put(NS, BASE, KEY, "mine", ttl=60)
        assert store.get(NS, other, KEY) is None
        assert store.delete(NS, other, KEY) is False  # nor can it be deleted from there
        store.put(NS, other, KEY, "theirs", ttl=60)
        assert (store.get(NS, BASE, KEY), store.get(NS, other, KEY)) == ("mine", "theirs")
        work = Counter()
        store.run_once(NS, BASE, "run-key-000000001", {}, work, ttl=60)
        store.run_once(NS, other, "run-key-000000001", {}, work, ttl=60)
        assert work.calls == 2

    def test_an_entry_made_under_another_definition_is_found_by_nobody(self, store: Store) -> None:
        redefined = dataclasses.replace(BASE, definition="v2")
        store.put(NS, BASE, KEY, "made by v1", ttl=60)
        assert store.get(NS, redefined, KEY) is None
        # One entry per key: the definition stamps it, it does not address it.
        store.put(NS, redefined, KEY, "made by v2", ttl=60)
        assert store.get(NS, BASE, KEY) is None and store.get(NS, redefined, KEY) == "made by v2"

    def test_a_scope_is_required_and_names_an_identity(self, store: Store) -> None:
        with pytest.raises(TypeError, match="always called with a Scope"):
            store.get(NS, ("shop", "alice", "t"), KEY)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="always called with a Scope"):
            store.put(NS, None, KEY, 1, ttl=60)  # type: ignore[arg-type]
        for identity in ("", None, 7):
            with pytest.raises(ValueError, match="identity"):
                Scope("shop", identity)  # type: ignore[arg-type]

    @pytest.mark.parametrize("namespace", ["", "Handles", "a b", "x" * 33, None])
    def test_malformed_namespaces_are_refused(self, store: Store, namespace: Any) -> None:
        with pytest.raises(ValueError, match="namespace is 1-32 lowercase"):
            store.get(namespace, BASE, KEY)

    @pytest.mark.parametrize("key", ["", "k" * 513, None, 12])
    def test_malformed_keys_are_refused(self, store: Store, key: Any) -> None:
        with pytest.raises(ValueError, match="key is a non-empty string of at most 512"):
            store.put(NS, BASE, key, 1, ttl=60)

    # -- time to live ------------------------------------------------------------------------------------
    def test_entries_expire_after_their_ttl(self, store: Store, clock: Clock) -> None:
        store.put(NS, BASE, KEY, "short", ttl=10)
        store.put(NS, BASE, "long-lived-key-01", "long", ttl=100)
        clock.now += 9.99
        assert store.get(NS, BASE, KEY) == "short" and store.count(NS) == 2
        clock.now += 0.01
        assert store.get(NS, BASE, KEY) is None and store.count(NS) == 1
        assert store.delete(NS, BASE, KEY) is False
        assert store.get(NS, BASE, "long-lived-key-01") == "long"

    @pytest.mark.parametrize("ttl", [0, -1, math.nan, math.inf, "60", True, None])
    def test_every_entry_has_a_positive_ttl(self, store: Store, ttl: Any) -> None:
        with pytest.raises(ValueError, match="ttl must be a number of seconds > 0"):
            store.put(NS, BASE, KEY, 1, ttl=ttl)
        with pytest.raises(ValueError, match="ttl must be a number of seconds > 0"):
            store.run_once(NS, BASE, KEY, {}, Counter(), ttl=ttl)

    def test_expired_entries_are_purged_so_the_store_does_not_grow(self, store: Store, clock: Clock) -> None:
        for n in range(20):
            store.put(NS, dataclasses.replace(BASE, identity=f"client-{n}"), KEY, n, ttl=10)
        store.put(NS, BASE, "keeps-living-0001", "live", ttl=1000)
        clock.now += 10
        assert store.purge() == 20
        assert store.purge() == 0 and store.count(NS) == 1
        # Writes purge on their own, now and then: what expired does not pile up between purges.
        for n in range(5):
            store.put(NS, dataclasses.replace(BASE, identity=f"later-{n}"), KEY, n, ttl=10)
        clock.now += 3600
        store.put(NS, BASE, "a-write-later-001", "x", ttl=10)
        assert store.purge() == 0

    def test_trim_bounds_one_servers_entries_oldest_first(self, store: Store, clock: Clock) -> None:
        other_server = dataclasses.replace(BASE, server="another-notebook")
        store.put(KEPT_RESULTS, other_server, "theirs-000000001", "theirs", ttl=1000)
        for n in range(5):
            store.put(KEPT_RESULTS, BASE, f"kept-{n:012d}", n, ttl=1000 if n != 3 else 5)
            clock.now += 1
        assert store.trim(KEPT_RESULTS, BASE.server, 5) == 0
        clock.now += 5  # entry 3 has expired: it goes first
        assert store.trim(KEPT_RESULTS, BASE.server, 3) == 2  # then the oldest: entry 0
        kept = [store.get(KEPT_RESULTS, BASE, f"kept-{n:012d}") for n in range(5)]
        assert kept == [None, 1, 2, None, 4]
        assert store.get(KEPT_RESULTS, other_server, "theirs-000000001") == "theirs"  # another server's bound
        assert store.count(KEPT_RESULTS, BASE.server) == 3 and store.count(KEPT_RESULTS) == 4

    # -- run once ----------------------------------------------------------------------------------------
    def test_run_once_stores_the_first_value_for_the_repeats(self, store: Store) -> None:
        work = Counter()
        first = store.run_once(NS, BASE, KEY, {"item": "tea"}, work, ttl=60)
        again = store.run_once(NS, BASE, KEY, {"item": "tea"}, work, ttl=60)
        assert first == again == {"order": 1} and work.calls == 1
        assert store.get(NS, BASE, KEY) == {"order": 1} and store.count(NS) == 1

    def test_the_same_key_with_another_request_is_a_conflict_that_says_what_was_asked(
        self, store: Store
    ) -> None:
        work = Counter()
        store.run_once(NS, BASE, KEY, {"item": "tea", "n": 1}, work, ttl=60)
        with pytest.raises(OtherRequest, match="used before with another request") as caught:
            store.run_once(NS, BASE, KEY, {"item": "tea", "n": 2}, work, ttl=60)
        assert caught.value.stored == {"item": "tea", "n": 1} and work.calls == 1
        # The same request in another key order is the same request.
        assert store.run_once(NS, BASE, KEY, {"n": 1, "item": "tea"}, work, ttl=60) == {"order": 1}

    def test_a_key_used_under_another_definition_is_a_conflict_never_a_replay_or_a_rerun(
        self, store: Store
    ) -> None:
        work = Counter()
        store.run_once(NS, BASE, KEY, {}, work, ttl=60)
        with pytest.raises(OtherDefinition, match="under another definition of 'orders_create'"):
            store.run_once(NS, dataclasses.replace(BASE, definition="v2"), KEY, {}, work, ttl=60)
        assert work.calls == 1
        assert store.run_once(NS, BASE, KEY, {}, work, ttl=60) == {"order": 1}

    def test_a_failure_frees_the_key(self, store: Store) -> None:
        def fail() -> Any:
            raise RuntimeError("payment service down")

        with pytest.raises(RuntimeError, match="payment service down"):
            store.run_once(NS, BASE, KEY, {}, fail, ttl=60)
        assert store.count(NS) == 0
        work = Counter()
        assert store.run_once(NS, BASE, KEY, {"other": "request"}, work, ttl=60) == {"order": 1}

    def test_a_value_not_kept_is_returned_and_frees_the_key(self, store: Store) -> None:
        error = {"isError": True}
        assert (
            store.run_once(NS, BASE, KEY, {}, lambda: error, ttl=60, keep=lambda v: not v.get("isError"))
            == error
        )
        assert store.get(NS, BASE, KEY) is None
        work = Counter()
        store.run_once(NS, BASE, KEY, {}, work, ttl=60)
        assert work.calls == 1

    def test_a_key_held_between_steps_stores_its_value_for_the_repeats(self, store: Store) -> None:
        once = store.begin_once(NS, BASE, KEY, {"item": "tea"})
        assert not once.done
        assert store.end_once(once, {"order": 1}, ttl=60) == {"order": 1}
        again = store.begin_once(NS, BASE, KEY, {"item": "tea"})
        assert again.done and again.value == {"order": 1}
        with pytest.raises(ValueError, match="held"):
            store.end_once(once, {"order": 2}, ttl=60)  # a key is ended once

    def test_a_duplicate_of_a_holder_that_gives_up_takes_the_key_itself(self, store: Store) -> None:
        # Whether the duplicate waited on the holder or came after it gave up, it ends up holding the key.
        held = store.begin_once(NS, BASE, KEY, {})
        found: queue.Queue[Any] = queue.Queue()
        duplicate = threading.Thread(target=lambda: found.put(store.begin_once(NS, BASE, KEY, {})))
        duplicate.start()
        store.fail_once(held, None)  # the holder was cancelled before any outcome
        duplicate.join(10)
        taken = found.get(timeout=10)
        assert not taken.done  # it holds the key now, and runs the work itself
        store.end_once(taken, {"order": 1}, ttl=60)
        assert store.get(NS, BASE, KEY) == {"order": 1}

    def test_a_run_expires_like_any_entry(self, store: Store, clock: Clock) -> None:
        work = Counter()
        store.run_once(NS, BASE, KEY, {"n": 1}, work, ttl=60)
        clock.now += 60
        assert store.run_once(NS, BASE, KEY, {"n": 2}, work, ttl=60) == {"order": 2}  # free again

    def test_concurrent_duplicates_wait_for_the_first_and_get_its_value(
        self, store: Store, waiters: Waiters
    ) -> None:
        entered, release = threading.Event(), threading.Event()
        work = Counter()

        def slow() -> dict[str, Any]:
            entered.set()
            assert release.wait(30)
            return work()

        def run() -> Any:
            return store.run_once(NS, BASE, KEY, {"item": "tea"}, slow, ttl=60)

        first, first_outcome = in_threads(1, run)
        assert entered.wait(30)
        duplicates, outcomes = in_threads(6, run)
        waiters.until(6)
        # A duplicate with other arguments is a conflict at once, even while the first runs.
        with pytest.raises(OtherRequest):
            store.run_once(NS, BASE, KEY, {"item": "coffee"}, slow, ttl=60)
        release.set()
        join(first + duplicates)
        assert work.calls == 1 and first_outcome + outcomes == [{"order": 1}] * 7

    def test_a_duplicate_that_cannot_wait_longer_is_told_the_run_is_still_going(self, store: Store) -> None:
        entered, release = threading.Event(), threading.Event()

        def slow() -> dict[str, Any]:
            entered.set()
            assert release.wait(30)
            return {"done": True}

        first, outcome = in_threads(1, lambda: store.run_once(NS, BASE, KEY, {}, slow, ttl=60))
        assert entered.wait(30)
        with pytest.raises(StillRunning, match="still running"):
            store.run_once(NS, BASE, KEY, {}, Counter(), ttl=60, wait_timeout=0)
        release.set()
        join(first)
        assert outcome == [{"done": True}]

    def test_duplicates_on_another_instance_of_a_shared_store_wait_too(
        self, shared: Backend, store: Store, clock: Clock, waiters: Waiters
    ) -> None:
        entered, release = threading.Event(), threading.Event()
        work = Counter()

        def slow() -> dict[str, Any]:
            entered.set()
            assert release.wait(30)
            return work()

        with shared.open(clock) as other:
            waiters.watch(other)
            first, first_outcome = in_threads(1, lambda: store.run_once(NS, BASE, KEY, {}, slow, ttl=60))
            assert entered.wait(30)
            duplicates, outcomes = in_threads(3, lambda: other.run_once(NS, BASE, KEY, {}, slow, ttl=60))
            waiters.until(3)
            release.set()
            join(first + duplicates)
        assert work.calls == 1 and first_outcome + outcomes == [{"order": 1}] * 4

    def test_processes_sharing_a_store_run_it_once(self, shared: Backend) -> None:
        assert shared.url is not None
        children = [Child("run-once", shared.url, KEY) for _ in range(3)]
        try:
            said = [child.line() for child in children]
            assert sorted(said) == ["producing", "waiting", "waiting"], said
            producer = children[said.index("producing")]
            producer.send()  # the work is done
            values = [json.loads(child.line()) for child in children]
        finally:
            codes = [child.finish() for child in children]
        assert codes == [0, 0, 0]
        assert values == [{"by": producer.process.pid}] * 3

    def test_a_claim_that_outlives_its_lease_is_taken_over_and_the_first_value_stays(
        self, store: Store, clock: Clock
    ) -> None:
        stuck = store.claim(NS, BASE, KEY, {}, lease=30)
        assert stuck.status is ClaimStatus.CLAIMED
        assert store.claim(NS, BASE, KEY, {}, lease=30).status is ClaimStatus.RUNNING
        clock.now += 30
        taken = store.claim(NS, BASE, KEY, {}, lease=30)
        assert taken.status is ClaimStatus.CLAIMED
        store.complete(taken, "second try", ttl=60)
        store.complete(stuck, "first try, late", ttl=60)
        done = store.claim(NS, BASE, KEY, {})
        assert (done.status, done.value) == (ClaimStatus.DONE, "second try")

    def test_a_claim_whose_process_was_killed_is_taken_over_without_waiting_for_its_lease(
        self, shared: Backend, store: Store
    ) -> None:
        assert shared.url is not None
        child = Child("claim", shared.url, KEY)
        try:
            assert child.line() == "claimed"
            assert store.claim(NS, SCOPE_OF_CHILD, KEY, {"item": "tea"}).status is ClaimStatus.RUNNING
            child.process.kill()  # a replica killed while the tool ran: its claim's lease is an hour
            child.process.wait(timeout=60)
            # Redis learns of the closed connection on its own loop: look again until it has.
            taken = None

            def claimed() -> bool:
                nonlocal taken
                taken = store.claim(NS, SCOPE_OF_CHILD, KEY, {"item": "tea"})
                return taken.status is ClaimStatus.CLAIMED

            assert until(claimed, 10), taken
        finally:
            child.finish()

    def test_closing_a_store_frees_the_keys_it_was_running(self, backend: Backend, clock: Clock) -> None:
        first = backend.open(clock)
        assert first.claim(NS, BASE, KEY, {}).status is ClaimStatus.CLAIMED
        first.close()
        with backend.open(clock) as second:
            assert second.claim(NS, BASE, KEY, {}).status is ClaimStatus.CLAIMED

    # -- rate limits ---------------------------------------------------------------------------------------
    def test_a_bucket_gives_its_burst_then_says_how_long_to_wait(self, store: Store, clock: Clock) -> None:
        takes = [store.take(RATE, BASE, "3/60", rate=3 / 60, burst=3) for _ in range(3)]
        assert takes == [None, None, None]
        assert store.take(RATE, BASE, "3/60", rate=3 / 60, burst=3) == pytest.approx(20.0)
        clock.now += 19.9
        assert store.take(RATE, BASE, "3/60", rate=3 / 60, burst=3) == pytest.approx(0.1)
        clock.now += 0.1
        assert store.take(RATE, BASE, "3/60", rate=3 / 60, burst=3) is None  # one token came back
        clock.now += 3600  # left alone: full again, never more than its burst
        assert [store.take(RATE, BASE, "3/60", rate=3 / 60, burst=3) for _ in range(4)][-1] is not None
        assert store.count(RATE) == 0 and store.get(RATE, BASE, "3/60") is None  # a bucket is no value

    @pytest.mark.parametrize("part", ["server", "identity", "tool"])
    def test_each_scope_has_a_bucket_of_its_own(self, store: Store, part: str) -> None:
        other = dataclasses.replace(BASE, **{part: "someone-else"})
        assert store.take(RATE, BASE, "1/60", rate=1 / 60, burst=1) is None
        assert store.take(RATE, BASE, "1/60", rate=1 / 60, burst=1) is not None
        assert store.take(RATE, other, "1/60", rate=1 / 60, burst=1) is None

    def test_takes_from_many_threads_and_instances_never_exceed_the_burst(
        self, backend: Backend, store: Store, clock: Clock
    ) -> None:
        others = [backend.open(clock) for _ in range(2)] if backend.shared else []
        stores = [store, *others]
        try:
            threads, outcomes = in_threads(
                30,
                lambda: stores[threading.get_ident() % len(stores)].take(
                    RATE, BASE, "10/3600", rate=10 / 3600, burst=10
                ),
            )
            join(threads)
        finally:
            for other in others:
                other.close()
        assert sum(outcome is None for outcome in outcomes) == 10, outcomes

    @pytest.mark.parametrize("rate, burst", [(0, 1), (-1, 1), (math.inf, 1), (1, 0), (1, 1.5), (1, True)])
    def test_a_bucket_needs_a_positive_rate_and_burst(self, store: Store, rate: Any, burst: Any) -> None:
        with pytest.raises(ValueError, match=r"rate must be|burst must be"):
            store.take(RATE, BASE, "x", rate=rate, burst=burst)

    # -- lifetime and values ---------------------------------------------------------------------------
    def test_a_reopened_store_still_has_its_entries(self, backend: Backend, clock: Clock) -> None:
        if not backend.durable:
            pytest.skip("a store of one process's memory ends with it")
        with backend.open(clock) as store:
            store.put(HANDLES, BASE, KEY, {"cart": ["apple"]}, ttl=60)
            store.run_once(NS, BASE, KEY, {"item": "tea"}, Counter(), ttl=60)
        with backend.open(clock) as reopened:  # a kernel restart
            assert reopened.get(HANDLES, BASE, KEY) == {"cart": ["apple"]}
            work = Counter()
            assert reopened.run_once(NS, BASE, KEY, {"item": "tea"}, work, ttl=60) == {"order": 1}
            assert work.calls == 0
            with pytest.raises(OtherRequest):
                reopened.run_once(NS, BASE, KEY, {"item": "juice"}, work, ttl=60)

    def test_a_value_that_cannot_leave_the_process_is_refused(self, backend: Backend, store: Store) -> None:
        if not backend.json_only:
            pytest.skip("a store of one process keeps values as they are")
        for value in (object(), {"when": {1, 2}}, math.nan):
            with pytest.raises(StoreValueError, match="holds JSON values") as caught:
                store.put(NS, BASE, KEY, value, ttl=60)
            assert isinstance(caught.value, TypeError)
        assert store.count(NS) == 0
        with pytest.raises(StoreValueError):
            store.run_once(NS, BASE, KEY, {}, lambda: object(), ttl=60)
        assert store.run_once(NS, BASE, KEY, {}, Counter(), ttl=60) == {"order": 1}  # the key was freed

    def test_a_closed_store_refuses_every_call(self, backend: Backend, clock: Clock) -> None:
        store = backend.open(clock)
        store.close()
        store.close()  # twice is fine
        for call in (
            lambda: store.get(NS, BASE, KEY),
            lambda: store.put(NS, BASE, KEY, 1, ttl=60),
            lambda: store.run_once(NS, BASE, KEY, {}, Counter(), ttl=60),
            lambda: store.count(NS),
            store.purge,
        ):
            with pytest.raises(StoreClosed, match="This store is closed"):
                call()


class TestChangeFeedContract:
    """`Store.changes`: what one follower publishes, every follower of the channel reads once."""

    WAIT = 10.0  # seconds a read may wait for an event that was published (returns at once when here)

    def test_every_follower_of_a_channel_reads_each_change_once_the_publisher_too(self, store: Store) -> None:
        early, other = store.changes("shop"), store.changes("elsewhere")
        early.publish({"kind": "tools"})
        late = store.changes("shop")  # opened after the first change: reads only what follows
        late.publish({"kind": "resource", "uri": "notes://a"})
        assert early.read(self.WAIT) == [{"kind": "tools"}, {"kind": "resource", "uri": "notes://a"}]
        assert late.read(self.WAIT) == [{"kind": "resource", "uri": "notes://a"}]
        assert early.read(0) == [] and late.read(0) == [] and other.read(0) == []
        for feed in (early, other, late):
            feed.close()

    def test_a_change_published_through_another_instance_is_read(self, shared: Backend, clock: Clock) -> None:
        with shared.open(clock) as one, shared.open(clock) as two:
            reader, writer = one.changes("shop"), two.changes("shop")
            writer.publish({"kind": "prompts"})
            assert reader.read(self.WAIT) == [{"kind": "prompts"}]
            assert writer.read(self.WAIT) == [{"kind": "prompts"}]
            reader.close()
            writer.close()

    def test_a_closed_feed_reads_nothing_and_does_not_wait(self, store: Store) -> None:
        feed = store.changes("shop")
        feed.publish({"kind": "tools"})
        feed.close()
        feed.close()  # twice is fine
        threads, outcomes = in_threads(1, lambda: feed.read(60))
        join(threads)
        assert outcomes == [[]]
