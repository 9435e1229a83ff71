"""What the SQLite store adds to the contract: a private file, WAL, kernels that die mid-run, URLs."""

from __future__ import annotations

import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_notebook import set_language
from mcp_notebook.core._store import IDEMPOTENCY, ClaimStatus, Scope, StoreError
from mcp_notebook.core._store_memory import MemoryStore
from mcp_notebook.core._store_sqlite import SQLiteStore
from mcp_notebook.core._store_url import open_store, store_opener
from tests.core.conftest import Child

SCOPE = Scope("shop", "alice", "orders_create", "v1")  # the scope tests.core.store_process uses
KEY = "k-0123456789abcdef"


def test_the_file_and_its_journal_are_private_and_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "state.sqlite3"
    with SQLiteStore(path) as store:
        store.put(IDEMPOTENCY, SCOPE, KEY, {"card": "4111 ..."}, ttl=60)  # results can hold private data
        for file in (path, Path(f"{path}-wal")):
            assert stat.S_IMODE(file.stat().st_mode) == 0o600, file
        with sqlite3.connect(path) as reader:
            assert reader.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_opening_a_second_store_on_a_file_keeps_what_other_processes_see(tmp_path: Path) -> None:
    # The server's store and a HandleStore on the same file, read by another process (another
    # kernel): opening the second store must not drop the first's locks on the file, or the other
    # process takes itself for the file's last user and removes the journal the first still writes.
    path = tmp_path / "state.sqlite3"

    def entries_seen_elsewhere() -> str:
        code = f"import sqlite3; print(sqlite3.connect({str(path)!r}).execute('SELECT COUNT(*) FROM entries').fetchone()[0])"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        return out.stdout.strip() or out.stderr

    with SQLiteStore(path) as first:
        first.put(IDEMPOTENCY, SCOPE, KEY, ["kept"], ttl=60)
        with SQLiteStore(path):
            assert entries_seen_elsewhere() == "1"
            assert first.delete(IDEMPOTENCY, SCOPE, KEY)
            assert entries_seen_elsewhere() == "0"


def test_a_kernel_killed_mid_run_does_not_keep_the_key_taken(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'state.sqlite3'}"
    child = Child("claim", url, KEY)
    try:
        assert child.line() == "claimed"
        with open_store(url) as store:
            assert store.claim(IDEMPOTENCY, SCOPE, KEY, {"item": "tea"}).status is ClaimStatus.RUNNING
            child.process.kill()  # a kernel restarted while the tool ran: its claim's lease is an hour
            child.process.wait(timeout=60)
            taken = store.claim(IDEMPOTENCY, SCOPE, KEY, {"item": "tea"})
            assert taken.status is ClaimStatus.CLAIMED  # at once: its process is gone
    finally:
        child.finish()


def test_a_file_from_a_newer_version_is_refused_with_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    with sqlite3.connect(path) as newer:
        newer.execute("PRAGMA user_version = 99")
    with pytest.raises(
        StoreError, match=r"written by a newer mcp-notebook \(layout 99.*Upgrade mcp-notebook"
    ):
        SQLiteStore(path)
    with sqlite3.connect(path) as untouched:
        assert untouched.execute("PRAGMA user_version").fetchone() == (99,)


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("sqlite:///state.sqlite3", "state.sqlite3"),  # relative, as SQLAlchemy spells it
        ("sqlite:///sub/state.sqlite3", "sub/state.sqlite3"),
        ("sqlite://", ":memory:"),
        ("sqlite:///:memory:", ":memory:"),
    ],
)
def test_sqlite_urls(url: str, path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with open_store(url) as store:
        assert isinstance(store, SQLiteStore) and store.path == path


def test_absolute_and_home_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with open_store(f"sqlite:///{tmp_path}/abs.sqlite3") as store:  # four slashes: /abs/path
        assert isinstance(store, SQLiteStore) and store.path == f"{tmp_path}/abs.sqlite3"
    monkeypatch.setenv("HOME", str(tmp_path))
    with open_store("sqlite:///~/home.sqlite3") as store:
        assert isinstance(store, SQLiteStore) and store.path == f"{tmp_path}/home.sqlite3"


def test_a_store_instance_and_memory_urls() -> None:
    mine = MemoryStore()
    assert open_store(mine) is mine
    assert isinstance(open_store("memory://"), MemoryStore)


@pytest.mark.parametrize(
    "url", ["postgres://localhost", "sqlite:", "state.sqlite3", "memory://x", "", 42, None]
)
def test_a_malformed_store_is_refused_before_anything_opens(url: object) -> None:
    with pytest.raises(ValueError, match=r"does not name a store\. Use 'sqlite:///file\.sqlite3'"):
        store_opener(url)  # type: ignore[arg-type]


def test_korean_messages(tmp_path: Path) -> None:
    set_language("ko")
    with pytest.raises(ValueError, match="'postgres://x'는 저장소를 가리키지 않습니다"):
        store_opener("postgres://x")
    with (
        SQLiteStore(tmp_path / "state.sqlite3") as store,
        pytest.raises(TypeError, match="SQLiteStore는 JSON 값"),
    ):
        store.put(IDEMPOTENCY, SCOPE, KEY, object(), ttl=60)


def test_the_change_log_forgets_changes_older_than_a_minute(tmp_path: Path) -> None:
    now = [1_700_000_000.0]
    with SQLiteStore(tmp_path / "state.sqlite3", clock=lambda: now[0]) as store:
        feed = store.changes("shop")
        feed.publish({"kind": "tools"})
        now[0] += 61
        feed.publish({"kind": "prompts"})
        (rows,) = store._db.execute("SELECT COUNT(*) FROM changes").fetchone()
        assert rows == 1
        assert feed.read(5) == [{"kind": "prompts"}]  # a follower a minute late misses what was deleted
        feed.close()


def test_a_store_counts_the_live_processes_that_share_its_file(tmp_path: Path) -> None:
    """What an exported app's start says when workers share one file (`asgi_app`)."""
    url = f"sqlite:///{tmp_path / 'state.sqlite3'}"
    with open_store(url) as store:
        assert isinstance(store, SQLiteStore)
        assert store.sharers() == 1
        with open_store(url):  # a second store of this process (a HandleStore beside the server's)
            assert store.sharers() == 2
        assert store.sharers() == 1  # closed: gone at once
        child = Child("claim", url, KEY)  # another process with the file open
        try:
            assert child.line() == "claimed"
            assert store.sharers() == 2
            child.process.kill()  # ended without closing: its row is dropped when counted
            child.process.wait(timeout=60)
            assert store.sharers() == 1
        finally:
            child.finish()
    with SQLiteStore(":memory:") as alone:
        assert alone.sharers() == 1


OPEN_ON_SIGNAL = """
import sys
from mcp_notebook.core._store_sqlite import SQLiteStore
sys.stdin.readline()  # every process waits here, then all open the new file at once
store = SQLiteStore(sys.argv[1])
print("opened", flush=True)
store.close()
"""


def test_processes_opening_a_new_file_at_once_all_open_it(tmp_path: Path) -> None:
    # Making a new file WAL takes its lock: one process's switch must not refuse the others.
    for attempt in range(3):
        path = tmp_path / f"at-once-{attempt}.sqlite"
        children = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN_ON_SIGNAL, str(path)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(8)
        ]
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        outcomes = [child.communicate(timeout=60) for child in children]
        assert [out for out, _ in outcomes] == ["opened\n"] * 8, [err for _, err in outcomes]
