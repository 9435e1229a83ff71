"""`SQLiteStore`: the default `Store`, one SQLite file shared by the processes of one machine.

A kernel restart loses nothing (the file stays), and several processes on one file (two kernels of
one notebook, workers of an exported app) see one state. How, each a choice:

- WAL journal: readers never wait for the writer. ``synchronous=NORMAL``: a crashed process loses
  nothing committed (only a power cut could lose the last transactions), and a write costs no fsync.
- Every write is a transaction; `claim` runs in one ``BEGIN IMMEDIATE`` (the write lock is taken
  before the row is read), so two processes never both claim a key. A busy file is waited for
  (``timeout``), never failed at once, in steps of a millisecond or two (`_retrying`): SQLite's own
  busy handler sleeps ever longer (up to 100 ms a step), and with many workers writing, a waiter
  slept through many free moments (seconds at the 99th percentile).
- A claim names its holder (host, process id, store instance). Closing a store releases its
  claims; a claim whose process has ended (a kernel restarted mid-call) is abandoned at once, not
  only when its lease ends.
- Values and requests are stored as JSON text; the file is created readable by its owner only
  (results can hold private data). SQLite gives its ``-wal`` and ``-shm`` files the same mode.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import secrets
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ._changes import FOLLOW_INTERVAL, KEEP_CHANGES, ChangeFeed
from ._store import (
    Claim,
    ClaimStatus,
    Slot,
    Store,
    StoreClosed,
    StoreError,
    StoreValueError,
    default_path,
    refill,
)
from ._text import t

# 3: one table of namespaced, scoped entries (the Store). 2 and 1 were the idempotency keys' own
# table, never released: it is dropped, and the keys it held are retried as new.
_SCHEMA_VERSION = 3
_HOST = socket.gethostname()
_LIVE: set[str] = set()  # the instance tokens of this process's open stores (see `_alive`)
_OPENING = threading.Lock()  # a new file is created, then opened, before any other store may open it
_COLUMNS = "namespace=? AND server=? AND identity=? AND tool=? AND key=?"
_BUCKET = "bucket"  # the holder of a rate limit's token bucket (`_take`): never a claim, never a value
_TRIM_SLACK = 100  # a full store trims to 1/100 below its limit (`_trim`)
_WRITE_STEP_MS = 2  # SQLite's busy handler gives up after this long; `_begin` then tries again


class SQLiteStore(Store):
    """A `Store` in one SQLite file (or ``":memory:"``), shared by the processes that open it.

    Parameters
    ----------
    path:
        The SQLite file (default: `default_path()`, in the user cache folder), or ``":memory:"``
        for a store of this process only. Created readable by its owner only.
    clock:
        Wall-clock seconds (``time.time``): entries outlive the process, and processes must agree.
    timeout:
        Seconds to wait for another process's write before failing.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        clock: Callable[[], float] = time.time,
        timeout: float = 30.0,
    ) -> None:
        super().__init__(clock=clock)
        self._timeout = timeout
        self.path = str(path) if path is not None else str(default_path())
        memory = self.path == ":memory:"
        with _OPENING:
            if not memory:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                # Created private before SQLite opens it. Only a new file: closing any descriptor of
                # a file drops every POSIX lock this process holds on it, those of SQLite's own
                # connections too (a second store on one file would then corrupt it).
                with contextlib.suppress(FileExistsError):
                    os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            # One connection shared under a lock: simpler than one per thread, and statements are short.
            # SQLite's busy handler sleeps ever longer steps (up to 100 ms); it is cut short here and
            # `_retrying` waits out the rest in short steps.
            self._db = sqlite3.connect(
                self.path, timeout=_WRITE_STEP_MS / 1000, isolation_level=None, check_same_thread=False
            )
        self._lock = threading.Lock()
        self._token = secrets.token_hex(8)
        self._holder = f"{_HOST}|{os.getpid()}|{self._token}"  # names this store's claims and its process row
        try:
            with self._lock:
                if not memory:
                    # Switching a new file to WAL takes its lock: processes opening one file at
                    # once wait for each other here as they do for writes.
                    self._retrying("PRAGMA journal_mode=WAL", ())
                    self._db.execute("PRAGMA synchronous=NORMAL")
                with self._transaction():
                    self._create()
                    if not memory:
                        self._db.execute(
                            "INSERT OR REPLACE INTO processes VALUES (?, ?)", (self._holder, self._clock())
                        )
        except BaseException:
            self._db.close()
            raise
        _LIVE.add(self._token)

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"

    def _create(self) -> None:
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        if version > _SCHEMA_VERSION:
            raise StoreError(t("store.newer_file", path=self.path, found=version, known=_SCHEMA_VERSION))
        if version < _SCHEMA_VERSION:
            self._db.execute("DROP TABLE IF EXISTS results")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS entries ("
            "namespace TEXT NOT NULL, server TEXT NOT NULL, identity TEXT NOT NULL, tool TEXT NOT NULL, "
            "key TEXT NOT NULL, definition TEXT NOT NULL, "
            "value TEXT, "  # JSON; NULL while a claim runs
            "holder TEXT, "  # the claim's holder while it runs, else NULL
            "digest TEXT, request TEXT, "  # run once: the request's digest and JSON
            "created REAL NOT NULL, expires REAL NOT NULL, "
            "PRIMARY KEY (namespace, server, identity, tool, key))"
        )
        self._db.execute("CREATE INDEX IF NOT EXISTS entries_expires ON entries (expires)")
        # `trim`'s index: a server's values (holder NULL) in the order they were made, so counting
        # them and finding the oldest read the index alone. (It replaces ``entries_age``, which had
        # no holder: counting values then read every row, milliseconds per call past 10,000 handles.)
        self._db.execute("DROP INDEX IF EXISTS entries_age")
        self._db.execute(
            "CREATE INDEX IF NOT EXISTS entries_kept ON entries (namespace, server, holder, created)"
        )
        # The change log (`changes`): appended to, read past the last id seen, old rows deleted.
        # AUTOINCREMENT: an id is never given twice, even after the rows before it were deleted.
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS changes (id INTEGER PRIMARY KEY AUTOINCREMENT, "
            "channel TEXT NOT NULL, event TEXT NOT NULL, created REAL NOT NULL)"
        )
        # The processes that have the file open (`sharers`): one row each, gone at close, and a
        # row whose process has ended is dropped when counted. (Not a schema change: an older
        # version of this package ignores the table.)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS processes (holder TEXT PRIMARY KEY, opened REAL NOT NULL)"
        )
        self._db.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """A write transaction that holds the file's write lock from its start (the caller holds `_lock`)."""
        self._begin()
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _begin(self) -> None:
        """``BEGIN IMMEDIATE``: the write lock, waited for in short steps until `timeout`."""
        self._retrying("BEGIN IMMEDIATE", ())

    def _retrying(self, sql: str, values: tuple[Any, ...]) -> sqlite3.Cursor:
        """`sql` run again while another process holds the lock it needs, until `timeout`.

        Each try waits up to `_WRITE_STEP_MS` in SQLite's busy handler; then a little jitter, so
        that waiting workers do not wake in lockstep. (Under WAL only writers wait for each other;
        a read waits only while a crashed writer's journal is recovered.)
        """
        deadline = time.monotonic() + self._timeout
        while True:
            try:
                return self._db.execute(sql, values)
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
            time.sleep(random.uniform(0, 0.0005))

    def _json(self, value: Any) -> str:
        try:
            return json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            got = f"{type(value).__name__} {value!r}"[:120]
            raise StoreValueError(t("store.not_json", store="SQLiteStore", got=got)) from exc

    # -- the primitives ----------------------------------------------------------------------------------
    def _get(self, slot: Slot, definition: str, default: Any) -> Any:
        with self._lock:
            row = self._retrying(
                f"SELECT value, definition FROM entries WHERE {_COLUMNS} AND holder IS NULL AND expires > ?",
                (*slot, self.now()),
            ).fetchone()
        if row is None or row[1] != definition:
            return default
        return json.loads(row[0])

    def _put(self, slot: Slot, definition: str, value: Any, ttl: float) -> None:
        text = self._json(value)
        with self._lock, self._transaction():
            now = self.now()
            self._db.execute(
                "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?, ?)",
                (*slot, definition, text, now, now + ttl),
            )
            if self._purge_due(now):
                self._db.execute("DELETE FROM entries WHERE expires <= ?", (now,))

    def _delete(self, slot: Slot) -> bool:
        with self._lock, self._transaction():
            cursor = self._db.execute(
                f"DELETE FROM entries WHERE {_COLUMNS} AND holder IS NULL AND expires > ?",
                (*slot, self.now()),
            )
            return cursor.rowcount > 0

    def _claim(self, slot: Slot, definition: str, digest: str, request: Any, lease: float) -> Claim:
        request_json = json.dumps(request, ensure_ascii=False)  # JSON already: its digest was taken
        with self._lock, self._transaction():
            now = self.now()
            row = self._db.execute(
                f"SELECT definition, value, holder, digest, request, expires FROM entries WHERE {_COLUMNS}",
                slot,
            ).fetchone()
            if row is not None and (row[5] <= now or (row[2] is not None and not _alive(row[2]))):
                self._db.execute(f"DELETE FROM entries WHERE {_COLUMNS}", slot)
                row = None
            if row is not None:
                stored_definition, value, holder, stored_digest, stored_request, _ = row
                running = holder is not None
                return self._classify(
                    slot,
                    definition,
                    digest,
                    stored_definition=stored_definition,
                    stored_digest=stored_digest,
                    stored_request=json.loads(stored_request) if stored_request is not None else None,
                    running=running,
                    value=None if running else json.loads(value),
                )
            holder = f"{_HOST}|{os.getpid()}|{self._token}"
            self._db.execute(
                "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)",
                (*slot, definition, holder, digest, request_json, now, now + lease),
            )
            if self._purge_due(now):
                self._db.execute("DELETE FROM entries WHERE expires <= ?", (now,))
        return Claim(slot, ClaimStatus.CLAIMED, definition, holder, request=request, digest=digest)

    def _complete(self, claim: Claim, value: Any, ttl: float) -> None:
        text = self._json(value)
        with self._lock, self._transaction():
            now = self.now()
            row = self._db.execute(
                f"SELECT holder FROM entries WHERE {_COLUMNS} AND expires > ?", (*claim.slot, now)
            ).fetchone()
            if row is not None and row[0] is None:
                return  # taken over after the lease, and done: the first value stays
            self._db.execute(
                "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)",
                (
                    *claim.slot,
                    claim.definition,
                    text,
                    claim.digest,
                    json.dumps(claim.request, ensure_ascii=False),
                    now,
                    now + ttl,
                ),
            )

    def _release(self, claim: Claim) -> None:
        with self._lock, self._transaction():
            self._db.execute(
                f"DELETE FROM entries WHERE {_COLUMNS} AND holder = ?", (*claim.slot, claim.holder)
            )

    def _take(self, slot: Slot, rate: float, burst: int) -> float | None:
        with self._lock, self._transaction():
            now = self.now()
            row = self._db.execute(
                f"SELECT value, expires FROM entries WHERE {_COLUMNS} AND holder = ?", (*slot, _BUCKET)
            ).fetchone()
            tokens, last = json.loads(row[0]) if row is not None and row[1] > now else (None, now)
            tokens, last, wait = refill(tokens, last, now, rate, burst)
            # A bucket is not a value (`count`, `trim` and `get` skip it): it is held by `_BUCKET`.
            self._db.execute(
                "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, '', ?, ?, NULL, NULL, ?, ?)",
                (*slot, json.dumps([tokens, last]), _BUCKET, now, now + burst / rate),
            )
            return wait

    def _count(self, namespace: str, server: str | None) -> int:
        query = "SELECT COUNT(*) FROM entries WHERE namespace=? AND holder IS NULL AND expires > ?"
        values: tuple[Any, ...] = (namespace, self.now())
        if server is not None:
            query, values = query + " AND server=?", (*values, server)
        with self._lock:
            (count,) = self._retrying(query, values).fetchone()
        return int(count)

    def _trim(self, namespace: str, server: str, limit: int) -> int:
        with self._lock:
            (count,) = self._retrying(
                "SELECT COUNT(*) FROM entries WHERE namespace=? AND server=?", (namespace, server)
            ).fetchone()
            if count <= limit:
                return 0  # the common case: one indexed count, no write
            with self._transaction():
                # The unary ``+`` keeps SQLite on the expiry index: the few expired rows, not all.
                removed = self._db.execute(
                    "DELETE FROM entries WHERE expires <= ? AND +namespace=? AND +server=?",
                    (self.now(), namespace, server),
                ).rowcount
                # Past the newest values, the oldest go (runs in progress stay): one walk down the
                # index, newest first, under the file's write lock. A full store keeps 1% fewer than
                # `limit` (`_TRIM_SLACK`), so the walk comes once per hundred writes, not on each.
                keep = limit - limit // _TRIM_SLACK
                removed += self._db.execute(
                    "DELETE FROM entries WHERE rowid IN (SELECT rowid FROM entries WHERE namespace=? AND "
                    "server=? AND holder IS NULL ORDER BY created DESC, rowid DESC LIMIT -1 OFFSET ?)",
                    (namespace, server, keep),
                ).rowcount
            return int(removed)

    def _purge(self, now: float) -> int:
        with self._lock, self._transaction():
            return int(self._db.execute("DELETE FROM entries WHERE expires <= ?", (now,)).rowcount)

    # -- the change log ----------------------------------------------------------------------------------
    def changes(self, channel: str) -> ChangeFeed:
        """Follow `channel` in this file's change log: what any process on this file publishes."""
        self._check_open()
        with self._lock:
            (last,) = self._retrying("SELECT COALESCE(MAX(id), 0) FROM changes", ()).fetchone()
        return _LogFeed(self, channel, int(last))

    def _append_change(self, channel: str, event: Any) -> None:
        self._check_open()
        text = self._json(event)
        now = self.now()
        with self._lock, self._transaction():
            self._db.execute(
                "INSERT INTO changes (channel, event, created) VALUES (?, ?, ?)", (channel, text, now)
            )
            self._db.execute("DELETE FROM changes WHERE created < ?", (now - KEEP_CHANGES,))

    def _changes_after(self, channel: str, last: int) -> list[tuple[int, str]]:
        self._check_open()
        with self._lock:
            rows = self._retrying(
                "SELECT id, event FROM changes WHERE id > ? AND channel = ? ORDER BY id", (last, channel)
            ).fetchall()
        return [(int(number), str(text)) for number, text in rows]

    def sharers(self) -> int:
        """How many open stores of live processes share this file, this one included.

        An exported app says at start what sharing costs (`asgi_app`): every store-bound call takes
        the file's one write lock, so such calls stop scaling a few workers in.
        """
        if self.path == ":memory:":
            return 1
        with self._lock, self._transaction():
            holders = [row[0] for row in self._db.execute("SELECT holder FROM processes")]
            gone = [(holder,) for holder in holders if not _alive(holder)]
            self._db.executemany("DELETE FROM processes WHERE holder = ?", gone)
        return len(holders) - len(gone)

    def _close(self) -> None:
        _LIVE.discard(self._token)
        with self._lock:
            try:  # runs of this store that never finished free their keys now, for every process
                with self._transaction():
                    self._db.execute("DELETE FROM entries WHERE holder LIKE ?", (f"%|{self._token}",))
                    self._db.execute("DELETE FROM processes WHERE holder = ?", (self._holder,))
            except (
                sqlite3.Error
            ):  # a busy or broken file: the claims are abandoned by `_alive` or their lease
                pass
            finally:
                self._db.close()


class _LogFeed(ChangeFeed):
    """A channel of a SQLite file's change log, read past the last id seen (polled: `FOLLOW_INTERVAL`)."""

    def __init__(self, store: SQLiteStore, channel: str, last: int) -> None:
        self._store, self._channel, self._last = store, channel, last
        self._closed = threading.Event()

    def publish(self, event: Mapping[str, Any]) -> None:
        self._store._append_change(self._channel, dict(event))

    def read(self, wait: float) -> list[dict[str, Any]]:
        deadline = time.monotonic() + wait
        while not self._closed.is_set():
            try:
                rows = self._store._changes_after(self._channel, self._last)
            except (StoreClosed, sqlite3.Error):
                return []  # a closed store (the app is stopping) or a busy file: the next read tries again
            if rows:
                self._last = rows[-1][0]
                return [json.loads(text) for _, text in rows]
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._closed.wait(min(FOLLOW_INTERVAL, left))  # a poll interval: the log cannot wake anyone
        return []

    def close(self) -> None:
        self._closed.set()


def _alive(holder: str) -> bool:
    """Whether the holder of a claim may still be running it (True when it cannot be told)."""
    host, _, rest = holder.partition("|")
    pid_text, _, token = rest.partition("|")
    if host != _HOST or not pid_text.isdigit():
        return True  # another machine: only its lease can tell
    pid = int(pid_text)
    if pid == os.getpid():
        return token in _LIVE
    if os.name == "nt":
        return True  # os.kill(pid, 0) would signal the process on Windows: rely on the lease
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, and belongs to someone else
        return True
    return True
