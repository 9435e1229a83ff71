"""The `Store`: state that outlives a call or is shared, scoped to the identity that made it.

Idempotency keys, handles and large results kept behind a link live in a store, and so will tasks.
`Store` is the interface; `SQLiteStore` (one file, several processes on one machine: the default)
and `MemoryStore` (one process) implement it, and a networked store (Redis, for replicas behind a
load balancer) is another implementation: the server only ever sees this interface. The contract
every implementation passes is a test suite (``tests/core/test_store_contract.py``).

The contract:

- **Namespaced, scoped keys.** Every entry lives at (namespace, `Scope`, key). A namespace says
  what kind of state it is (`IDEMPOTENCY`, `HANDLES`, `KEPT_RESULTS`, `TASKS`); the scope says
  whose and for what: the serving notebook (``server``), the identity its credential proves
  (``identity``), the tool, and the tool's definition fingerprint. A `Scope` is required on every
  call, and no call reaches across identities: an entry of one identity is invisible to another,
  as are entries of another server or tool. The definition is not part of the address: one key
  of one tool holds one entry, stamped with the definition it was made under, and a read under
  another definition finds nothing (`get`) or a conflict (`run_once`), never the old value.
- **Time to live.** Every entry expires (``ttl`` is required); an expired entry is never read, and
  expired entries are purged (`purge`, and now and then by writes), so a store does not grow
  without bound. `trim` bounds a namespace's entries for one server in count too. Expiry follows
  the store's clock (injected in tests: never sleep).
- **Run once.** `run_once` runs ``produce`` once per key, across threads and (for a shared store)
  processes: a concurrent duplicate waits for the first and gets its result; a failure (an
  exception, or a value ``keep`` rejects) frees the key for the next attempt; the same key with
  another request raises `OtherRequest` (carrying the first request, to say what differs), and
  under another definition `OtherDefinition`. A caller that runs the work itself between steps of
  its own holds the key with `begin_once` and ends it with `end_once` or `fail_once`. It is built on
  three atomic primitives, `claim`, `complete` and `release`, which is all an implementation
  provides; a claim whose run never ends (a killed process) is abandoned after its ``lease``.
- **Rate limits.** `take` takes a token from a bucket (``burst`` at once, refilled at ``rate``
  per second), atomically, across processes for a shared store: replicas behind a load balancer
  share one limit per identity and tool, not one each. A bucket left alone until it is full
  again is gone (its entry expires then): absent and full are the same.
- **Changes.** `changes(channel)` opens a `ChangeFeed` (`_changes`): what any follower of the
  channel publishes, through any store that shares this one, every follower reads once. A store
  of one process keeps it in memory; SQLite in a change log, Redis through pub/sub.
- **Values are JSON** (results are JSON dicts already) in every store that leaves the process.
  `MemoryStore` keeps values as they are, which lets a handle stand for a live object.

Tasks (next) have their namespace, `TASKS`. A task record lives under ``Scope(server, identity)``
of the call that started it, keyed by the task id (``tasks/get`` names only the task, so the tool
and its definition go in the record); its status and result are one JSON value, `put` again with
the task's ``ttl`` at each change (working, input_required, completed, failed, cancelled). So ``tasks/get``, ``tasks/result`` and ``tasks/cancel`` answered by
any replica read the same record, and only for the identity that started the task: another
identity's task id reads as unknown. A task started with an idempotency key `claim`s that key
first, so a retried ``tools/call`` finds the task already running instead of starting a second.

Exceptions::

    StoreError (MCPNotebookError)
    ├── OtherRequest       run_once: the key was used with another request
    ├── OtherDefinition    run_once: the key was used under another definition of the tool
    ├── StillRunning       run_once: the first run did not finish within the wait
    ├── StoreClosed        the store was closed
    └── StoreValueError    (also a TypeError) a value a shared store cannot hold: not JSON
"""

from __future__ import annotations

import abc
import enum
import hashlib
import json
import math
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ._changes import ChangeFeed, MemoryChannels
from ._errors import MCPNotebookError
from ._text import t

IDEMPOTENCY = "idempotency"
"""First results of calls with an idempotency key (key: the model's idempotency key)."""
HANDLES = "handles"
"""What `HandleStore` handles point at (key: the handle)."""
KEPT_RESULTS = "kept-results"
"""Results too large for a model, kept behind a ``resource_link`` (key: the link)."""
TASKS = "tasks"
"""Reserved for the tasks extension (see the module docstring)."""
ROUNDS = "rounds"
"""2026-07-28 rounds waiting for answers (key: the round id in a sealed ``requestState``): each is
answered once, by whichever replica the answer reaches (`delete` is true once)."""
SESSIONS = "sessions"
"""Handshakes of open 2025-11-25 sessions (key: the ``Mcp-Session-Id``), scoped to the identity that
opened each, so that another worker or replica can take a session over for that identity only."""
RATE_LIMITS = "rate-limits"
"""Token buckets of rate-limited tools (key: the limit), taken from with `Store.take`."""

DEFAULT_LEASE = 3600.0
"""Seconds a `claim` holds before it counts as abandoned, when the caller sets no lease."""
KEY_MAX = 512
_PURGE_EVERY = 60.0  # seconds of store time between purges that writes do on their own
_NAMESPACE_RE = re.compile(r"[a-z][a-z0-9-]{0,31}")
_SCOPE_FIELD_MAX = 256


@dataclass(frozen=True)
class Scope:
    """Whose state it is, and for what: part of the address of every stored entry.

    Attributes
    ----------
    server:
        The serving notebook's (or exported app's) name: ``srv.name``.
    identity:
        Who called, as its credential proves it (`mcp_notebook.current_client`). Required.
    tool:
        The tool's name (empty for state that belongs to no one tool).
    definition:
        A fingerprint of the tool's definition (`definition_fingerprint`); not part of the lookup:
        an entry made under another definition is found by nobody (a conflict for `run_once`).
    """

    server: str
    identity: str
    tool: str = ""
    definition: str = ""

    def __post_init__(self) -> None:
        fields = (self.server, self.identity, self.tool, self.definition)
        if (
            not all(isinstance(value, str) and len(value) <= _SCOPE_FIELD_MAX for value in fields)
            or not self.identity
        ):
            raise ValueError(t("store.bad_scope", got=repr(self)[:200]))

    @property
    def slot(self) -> tuple[str, str, str]:
        return (self.server, self.identity, self.tool)


class Slot(NamedTuple):
    """The address of one entry (everything but the definition, which stamps the entry)."""

    namespace: str
    server: str
    identity: str
    tool: str
    key: str


class ClaimStatus(enum.Enum):
    CLAIMED = "claimed"  # the caller holds the key: it runs, then completes or releases
    DONE = "done"  # a value is stored: `Claim.value`
    RUNNING = "running"  # another holder runs it now
    OTHER_REQUEST = "other-request"  # the key holds another request: `Claim.request`
    OTHER_DEFINITION = "other-definition"  # the key was used under another definition


@dataclass(frozen=True)
class Claim:
    """What `Store.claim` found: the key is the caller's now, or done, or busy, or in conflict."""

    slot: Slot
    status: ClaimStatus
    definition: str = ""
    holder: str = ""  # CLAIMED: the caller's claim, to complete or release it
    value: Any = None  # DONE
    request: Any = None  # CLAIMED: the caller's request; OTHER_REQUEST: the one the key was used with
    digest: str = ""  # CLAIMED: the digest of the caller's request


class StoreError(MCPNotebookError):
    """A store could not do what was asked (see the subclasses)."""


class OtherRequest(StoreError):
    """`run_once`: the key was used before with another request (`stored` is that request)."""

    def __init__(self, message: str, stored: Any) -> None:
        super().__init__(message)
        self.stored = stored


class OtherDefinition(StoreError):
    """`run_once`: the key was used before under another definition of the tool."""


class StillRunning(StoreError):
    """`run_once`: the first run of the key did not finish within the wait."""


class StoreClosed(StoreError):
    """The store was closed."""


class StoreValueError(StoreError, TypeError):
    """A value that this store cannot hold (a shared store holds JSON)."""


@dataclass
class _Flight:
    """A run this store instance is producing; duplicates in this process wait on `done`."""

    digest: str
    request: Any
    definition: str
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None
    retry: bool = False  # ended with no outcome: a waiting duplicate takes the key instead


@dataclass
class Once:
    """What `Store.begin_once` found: the value stored for a key (`done`), or the key, held by the caller."""

    done: bool
    value: Any = None
    _claim: Claim | None = field(default=None, repr=False)
    _flight: _Flight | None = field(default=None, repr=False)
    _ended: bool = field(default=False, repr=False)

    def held(self) -> tuple[Claim, _Flight]:
        """The claim and flight of a held key, once: a key is ended only once."""
        if self.done or self._claim is None or self._flight is None or self._ended:
            raise ValueError("only a key held by begin_once, and not ended yet, can be ended")
        self._ended = True
        return self._claim, self._flight


def default_path() -> Path:
    """``$MCP_NOTEBOOK_CACHE_DIR`` or ``$XDG_CACHE_HOME/mcp-notebook`` (``~/.cache``), then ``idempotency.sqlite3``.

    The file of the default `SQLiteStore` (it was the idempotency keys' file first, and keeps its name).
    """
    folder = os.environ.get("MCP_NOTEBOOK_CACHE_DIR")
    if not folder:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(cache, "mcp-notebook")
    return Path(folder) / "idempotency.sqlite3"


def canonical_json(value: Any) -> str:
    """`value` as canonical JSON: sorted keys, no spaces, non-ASCII kept (what requests are compared by)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_digest(request: Any) -> str:
    """The SHA-256 of `request`'s canonical JSON: two requests are the same when their digests are."""
    return hashlib.sha256(canonical_json(request).encode("utf-8")).hexdigest()


def check_ttl(ttl: Any, what: str = "ttl") -> float:
    """`ttl` as a float if it is a finite number of seconds > 0, else ValueError saying so."""
    if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not math.isfinite(ttl) or ttl <= 0:
        raise ValueError(t("store.bad_ttl", what=what, got=repr(ttl)[:80]))
    return float(ttl)


def _always(value: Any) -> bool:
    return True


class Store(abc.ABC):
    """State that outlives a call or is shared: namespaced, scoped keys with TTLs, and run-once.

    See the module docstring for the contract. The public methods check their arguments and then
    call the underscored primitives an implementation provides, so that no implementation can
    skip the checks (a missing `Scope`, a malformed key). Thread-safe; a context manager.

    Parameters
    ----------
    clock:
        Seconds (``time.time`` for a store that outlives the process, so that other processes
        agree on it); tests inject their own.
    """

    networked = False
    """Whether processes on other machines can share this store (a Redis store); one file is not."""

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._closed = False
        self._next_purge = -math.inf
        self._flights: dict[Slot, _Flight] = {}
        self._flights_lock = threading.Lock()
        self._closing = threading.Event()  # wakes the waiters on other processes' runs (`_wait_for_others`)
        self._channels = MemoryChannels()

    # -- the interface ---------------------------------------------------------------------------------
    def now(self) -> float:
        """The store's clock, which TTLs and leases follow."""
        return self._clock()

    def get(self, namespace: str, scope: Scope, key: str, default: Any = None) -> Any:
        """The value at `key` in `scope`, or `default` (absent, expired, or made under another definition)."""
        return self._get(self._address(namespace, scope, key), scope.definition, default)

    def put(self, namespace: str, scope: Scope, key: str, value: Any, *, ttl: float) -> None:
        """Store `value` at `key` in `scope` for `ttl` seconds, replacing what was there."""
        self._put(self._address(namespace, scope, key), scope.definition, value, check_ttl(ttl))

    def delete(self, namespace: str, scope: Scope, key: str) -> bool:
        """Forget `key` in `scope`; False if it held nothing (or had expired)."""
        return self._delete(self._address(namespace, scope, key))

    def claim(
        self, namespace: str, scope: Scope, key: str, request: Any, *, lease: float = DEFAULT_LEASE
    ) -> Claim:
        """Take `key` in `scope` to run it once, atomically; or say why not (`Claim.status`).

        A claim that is neither completed nor released within `lease` seconds is abandoned: the
        next claim takes it over.
        """
        slot = self._address(namespace, scope, key)
        return self._claim(
            slot, scope.definition, request_digest(request), request, check_ttl(lease, "lease")
        )

    def complete(self, claim: Claim, value: Any, *, ttl: float) -> None:
        """Store `value` for a claim the caller holds, for `ttl` seconds, and end the claim."""
        self._check_open()
        if claim.status is not ClaimStatus.CLAIMED:
            raise ValueError(f"only a claim with status CLAIMED can be completed, not {claim.status}")
        self._complete(claim, value, check_ttl(ttl))

    def release(self, claim: Claim) -> None:
        """End a claim without a value: the key is free for the next attempt."""
        self._check_open()
        if claim.status is ClaimStatus.CLAIMED:
            self._release(claim)

    def take(self, namespace: str, scope: Scope, key: str, *, rate: float, burst: int) -> float | None:
        """Take one token from the bucket at `key`: None if there was one, else the seconds until one is.

        The bucket holds `burst` tokens, starts full, and gains `rate` tokens per second.
        """
        slot = self._address(namespace, scope, key)
        if (
            isinstance(rate, bool)
            or not isinstance(rate, int | float)
            or not math.isfinite(rate)
            or rate <= 0
        ):
            raise ValueError(f"rate must be > 0 tokens per second, got {rate!r}")
        if isinstance(burst, bool) or not isinstance(burst, int) or burst < 1:
            raise ValueError(f"burst must be an integer >= 1, got {burst!r}")
        return self._take(slot, float(rate), burst)

    def count(self, namespace: str, server: str | None = None) -> int:
        """How many unexpired values `namespace` holds (for one server, or all): a number, never keys."""
        return self._count(self._namespace(namespace), server)

    def trim(self, namespace: str, server: str, limit: int) -> int:
        """Keep at most `limit` values of `namespace` for `server`: the expired go, then the oldest.

        Runs in progress are never trimmed. Returns how many entries were removed. A store whose
        trimming costs a walk over what it keeps (SQLite) may trim up to 1% below `limit`, so that a
        full store walks once per hundred writes rather than on each.
        """
        if limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit!r}")
        return self._trim(self._namespace(namespace), server, limit)

    def purge(self) -> int:
        """Delete every expired entry (writes also do it now and then); how many were deleted."""
        self._check_open()
        return self._purge(self.now())

    def changes(self, channel: str) -> ChangeFeed:
        """Follow `channel`'s changes, published through any store that shares this one (`_changes`).

        This implementation: within this process only; a store that other processes share
        overrides it. Close the feed when done (closing the store does not).
        """
        self._check_open()
        return self._channels.open(channel)

    def close(self) -> None:
        """Release the store's resources; safe to call twice. A closed store refuses every call."""
        if not self._closed:
            self._closed = True
            self._closing.set()
            self._close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- run once ----------------------------------------------------------------------------------------
    def run_once(
        self,
        namespace: str,
        scope: Scope,
        key: str,
        request: Any,
        produce: Callable[[], Any],
        *,
        ttl: float,
        lease: float = DEFAULT_LEASE,
        wait_timeout: float | None = None,
        keep: Callable[[Any], bool] = _always,
    ) -> Any:
        """The value stored at `key` in `scope`, or `produce()`'s, stored for `ttl` seconds.

        `begin_once`, `produce()`, then `end_once` (or `fail_once` when it raises): a caller that
        runs the work itself, between other steps, uses those three.

        Parameters
        ----------
        request:
            What is asked (JSON): a repeat must ask the same, or it raises `OtherRequest`.
        produce:
            Does the work, once per key: concurrent duplicates wait for it and get its value.
        lease:
            Seconds a run may take before its claim counts as abandoned (a killed process).
        wait_timeout:
            Seconds a duplicate waits for the first run (``None``: as long as it takes), then
            `StillRunning`.
        keep:
            Whether a produced value is stored; one that is not (an error result) is returned to
            the caller and to the duplicates waiting in this process, and frees the key.

        Raises
        ------
        OtherRequest, OtherDefinition
            The key was used before with another request, or under another definition.
        StillRunning
            A duplicate waited `wait_timeout` seconds and the first run has not finished.
        """
        check_ttl(ttl)
        once = self.begin_once(namespace, scope, key, request, lease=lease, wait_timeout=wait_timeout)
        if once.done:
            return once.value
        try:
            value = produce()
        except BaseException as exc:
            self.fail_once(once, exc)
            raise
        return self.end_once(once, value, ttl=ttl, keep=keep)

    def begin_once(
        self,
        namespace: str,
        scope: Scope,
        key: str,
        request: Any,
        *,
        lease: float = DEFAULT_LEASE,
        wait_timeout: float | None = None,
    ) -> Once:
        """The value stored at `key` (`Once.done`), or the key held for the caller to produce it.

        A held key must be ended, once: `end_once` with the value, or `fail_once`. A concurrent
        duplicate in this process waits for the holder and gets its value (or raises its failure);
        one of another process polls the store. Raises as `run_once` does.
        """
        slot = self._address(namespace, scope, key)
        lease = check_ttl(lease, "lease")
        digest = request_digest(request)
        deadline = None if wait_timeout is None else time.monotonic() + wait_timeout
        poll = 0.01
        while True:
            self._check_open()
            with self._flights_lock:
                flight = self._flights.get(slot)
                if flight is not None:  # this process runs it now: check, then wait for it below
                    _check_repeat(slot, flight, scope.definition, digest)
                    claim = None
                else:
                    claim = self._claim(slot, scope.definition, digest, request, lease)
                    if claim.status is ClaimStatus.CLAIMED:
                        flight = self._flights[slot] = _Flight(digest, request, scope.definition)
                        return Once(done=False, _claim=claim, _flight=flight)
            if flight is not None:
                if not flight.done.wait(_remaining(deadline)):
                    raise StillRunning(t("store.still_running", key=key))
                if flight.error is not None:
                    raise flight.error
                if flight.retry:
                    continue  # its holder gave it up with no outcome: this one may take the key
                return Once(done=True, value=flight.result)
            assert claim is not None
            if claim.status is ClaimStatus.DONE:
                return Once(done=True, value=claim.value)
            if claim.status is ClaimStatus.OTHER_DEFINITION:
                raise OtherDefinition(t("store.other_definition", key=key, tool=scope.tool))
            if claim.status is ClaimStatus.OTHER_REQUEST:
                raise OtherRequest(t("store.other_request", key=key), claim.request)
            # RUNNING elsewhere (another process, or another store on the same file): poll its end.
            left = _remaining(deadline)
            if left is not None and left <= 0:
                raise StillRunning(t("store.still_running", key=key))
            self._wait_for_others(poll if left is None else min(poll, left))
            poll = min(poll * 2, 0.25)

    def end_once(self, once: Once, value: Any, *, ttl: float, keep: Callable[[Any], bool] = _always) -> Any:
        """End a held key with `value`: stored for `ttl` seconds if `keep` says so, else the key is freed.

        The duplicates waiting in this process get `value` either way. Returns `value`.
        """
        claim, flight = once.held()
        try:
            if keep(value):
                self.complete(claim, value, ttl=ttl)
            else:
                self.release(claim)
        except BaseException as exc:
            self._fail(claim, flight, exc)
            raise
        flight.result = value
        self._land(claim.slot, flight)
        return value

    def fail_once(self, once: Once, error: BaseException | None) -> None:
        """End a held key with no value: the key is freed; duplicates waiting in this process raise
        `error`, or with None (the holder gave up, say cancelled, before any outcome) take the key."""
        claim, flight = once.held()
        self._fail(claim, flight, error)

    def _fail(self, claim: Claim, flight: _Flight, error: BaseException | None) -> None:
        flight.error, flight.retry = error, error is None
        try:
            if not self._closed:
                self.release(claim)  # complete() may be what failed: the key must not stay taken
        except Exception as failed:
            if error is not None:
                error.add_note(f"releasing the key failed too: {failed!r}")
            # With no error to carry it, the claim lapses after its lease, as a killed process's does.
        finally:
            self._land(claim.slot, flight)

    def _land(self, slot: Slot, flight: _Flight) -> None:
        with self._flights_lock:
            if self._flights.get(slot) is flight:
                del self._flights[slot]
        flight.done.set()

    # -- what an implementation provides -----------------------------------------------------------------
    @abc.abstractmethod
    def _get(self, slot: Slot, definition: str, default: Any) -> Any: ...

    @abc.abstractmethod
    def _put(self, slot: Slot, definition: str, value: Any, ttl: float) -> None: ...

    @abc.abstractmethod
    def _delete(self, slot: Slot) -> bool: ...

    @abc.abstractmethod
    def _claim(self, slot: Slot, definition: str, digest: str, request: Any, lease: float) -> Claim:
        """Atomically: if the slot holds a live value or claim, compare it (`_classify`); else claim it.

        An expired entry, and a claim that is abandoned (`_abandoned`), count as absent.
        """

    @abc.abstractmethod
    def _complete(self, claim: Claim, value: Any, ttl: float) -> None:
        """Store the value; if the claim was taken over meanwhile, keep a value already stored."""

    @abc.abstractmethod
    def _release(self, claim: Claim) -> None:
        """Delete the claim if it is still the caller's."""

    @abc.abstractmethod
    def _take(self, slot: Slot, rate: float, burst: int) -> float | None:
        """Atomically: refill the bucket at `slot` (`refill`), take a token or say how long to wait."""

    @abc.abstractmethod
    def _count(self, namespace: str, server: str | None) -> int: ...

    @abc.abstractmethod
    def _trim(self, namespace: str, server: str, limit: int) -> int: ...

    @abc.abstractmethod
    def _purge(self, now: float) -> int: ...

    @abc.abstractmethod
    def _close(self) -> None: ...

    def _wait_for_others(self, timeout: float) -> None:
        """Wait `timeout` seconds before looking again at a run held elsewhere (another process or instance).

        Duplicates of this instance's own runs never come here: they wait on the run itself. A
        networked store may override this to wait for a notification instead of polling.
        """
        self._closing.wait(timeout)

    # -- helpers for implementations ---------------------------------------------------------------------
    def _purge_due(self, now: float) -> bool:
        """True once every `_PURGE_EVERY` seconds: a write then purges what expired."""
        if now < self._next_purge:
            return False
        self._next_purge = now + _PURGE_EVERY
        return True

    @staticmethod
    def _classify(
        slot: Slot,
        definition: str,
        digest: str,
        *,
        stored_definition: str,
        stored_digest: str | None,
        stored_request: Any,
        running: bool,
        value: Any,
    ) -> Claim:
        """The claim that a live entry gives: a conflict, a value, or a run in progress."""
        if stored_definition != definition:
            return Claim(slot, ClaimStatus.OTHER_DEFINITION, definition)
        if stored_digest is not None and stored_digest != digest:
            return Claim(slot, ClaimStatus.OTHER_REQUEST, definition, request=stored_request)
        if running:
            return Claim(slot, ClaimStatus.RUNNING, definition)
        return Claim(slot, ClaimStatus.DONE, definition, value=value)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed(t("store.closed"))

    def _namespace(self, namespace: str) -> str:
        self._check_open()
        if not isinstance(namespace, str) or not _NAMESPACE_RE.fullmatch(namespace):
            raise ValueError(t("store.bad_namespace", got=repr(namespace)[:80]))
        return namespace

    def _address(self, namespace: str, scope: Scope, key: str) -> Slot:
        namespace = self._namespace(namespace)
        if not isinstance(scope, Scope):
            raise TypeError(t("store.bad_scope", got=repr(scope)[:200]))
        if not isinstance(key, str) or not 0 < len(key) <= KEY_MAX:
            raise ValueError(t("store.bad_key", max=KEY_MAX, got=repr(key)[:80]))
        return Slot(namespace, scope.server, scope.identity, scope.tool, key)


def refill(
    tokens: float | None, last: float, now: float, rate: float, burst: int
) -> tuple[float, float, float | None]:
    """One take from a token bucket: (tokens left, its time, None or the seconds to wait).

    `tokens` None is a bucket never used (or gone): full. A clock that goes backwards adds nothing.
    """
    if tokens is None:
        tokens, last = float(burst), now
    else:
        tokens = min(float(burst), tokens + max(0.0, now - last) * rate)
        last = max(last, now)
    if tokens >= 1.0:
        return tokens - 1.0, last, None
    return tokens, last, (1.0 - tokens) / rate


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def _check_repeat(slot: Slot, flight: _Flight, definition: str, digest: str) -> None:
    """A duplicate of a run in progress here must be one: same definition, same request."""
    if flight.definition != definition:
        raise OtherDefinition(t("store.other_definition", key=slot.key, tool=slot.tool))
    if flight.digest != digest:
        raise OtherRequest(t("store.other_request", key=slot.key), flight.request)
