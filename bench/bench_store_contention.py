"""Store contention: N processes writing one SQLite store at once, as N workers of an app do.

Run from the project root with the project's venv::

    python bench/bench_store_contention.py [--processes 1,4,8,16] [--seconds 4] [--store sqlite|redis]

Each process opens its own `SQLiteStore` on one file (or one Redis) and ``put``s entries of its
own as fast as it can for the same seconds, all starting together. What a worker waits for is the
one write lock: reported are writes/s over all processes and the latency of one write, p50, p99,
p99.9 and the worst, which is what a call that writes waits at the tail.

Then a full store: one process mints handles (a `HandleStore` that keeps at most 10,000, as
`open_cart` does) into an empty store, then one nearly full, then one past its limit (each mint
then trims the oldest), as a service that has run for a while is. Reported: mints/s in each, and
the ratio to the empty store.

Prints a table, writes ``bench/results/store_contention.json``. Exits 0 whatever it finds.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "store_contention.json"

if str(ROOT) not in sys.path:  # run as a script from anywhere: import the checkout, not an install
    sys.path.insert(0, str(ROOT))


def _writer(url: str, n: int, seconds: float, start: Any, out: Any) -> None:
    from mcp_notebook.core._store import Scope
    from mcp_notebook.core._store_url import open_store

    store = open_store(url)
    scope = Scope(server="bench", identity=f"worker{n}", tool="t")
    start.wait()
    took: list[float] = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        began = time.perf_counter()
        store.put("bench", scope, f"k{len(took)}", {"n": len(took)}, ttl=60)
        took.append(time.perf_counter() - began)
    store.close()
    out.put(took)


def measure(url: str, processes: int, seconds: float) -> dict[str, Any]:
    start = multiprocessing.Barrier(processes)
    out: Any = multiprocessing.Queue()
    writers = [
        multiprocessing.Process(target=_writer, args=(url, n, seconds, start, out)) for n in range(processes)
    ]
    for writer in writers:
        writer.start()
    took: list[float] = []
    for _ in writers:
        took += out.get()
    for writer in writers:
        writer.join()
    took.sort()

    def at(q: float) -> float:
        return took[min(len(took) - 1, int(q * len(took)))] * 1000

    return {
        "processes": processes,
        "writes_per_s": len(took) / seconds,
        "p50_ms": statistics.median(took) * 1000,
        "p99_ms": at(0.99),
        "p999_ms": at(0.999),
        "max_ms": took[-1] * 1000,
    }


def held(url: str, batch: int = 2000) -> list[dict[str, Any]]:
    """Mints/s of a `HandleStore` (10,000 kept) as the store fills, then past its limit."""
    from mcp_notebook import HandleStore
    from mcp_notebook.core._store_url import open_store

    store = open_store(url)
    handles = HandleStore(ttl=3600, creator="open_cart", store=store, name="held", max_size=10_000)
    rows: list[dict[str, Any]] = []
    for held_before in range(0, 14_000, batch):
        began = time.perf_counter()
        for _ in range(batch):
            handles.mint("alice", "cart", [])
        rows.append({"held": held_before, "mints_per_s": batch / (time.perf_counter() - began)})
    store.close()
    return [row for row in rows if row["held"] in (0, 8_000, 12_000)]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--processes", default="1,4,8,16")
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--store", choices=["sqlite", "redis"], default="sqlite")
    args = parser.parse_args()
    redis = None
    with tempfile.TemporaryDirectory() as scratch:
        if args.store == "redis":
            from tests.services import RedisServer

            redis = RedisServer()
            url = redis.url
        else:
            url = f"sqlite:///{Path(scratch) / 'contention.sqlite3'}"
        try:
            rows = [measure(url, int(n), args.seconds) for n in args.processes.split(",")]
            full = held(url.replace("contention", "held") if args.store == "sqlite" else url)
        finally:
            if redis is not None:
                redis.stop()
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps({"store": args.store, "rows": rows, "held": full}, indent=2))
    print(f"{args.store}: processes writing at once, {args.seconds} s")
    print(f"{'processes':>9} {'writes/s':>9} {'p50 ms':>7} {'p99 ms':>7} {'p99.9 ms':>9} {'max ms':>7}")
    for row in rows:
        print(
            f"{row['processes']:>9} {row['writes_per_s']:>9.0f} {row['p50_ms']:>7.2f} {row['p99_ms']:>7.1f} "
            f"{row['p999_ms']:>9.1f} {row['max_ms']:>7.0f}"
        )
    print("\none process minting handles (10,000 kept) as the store fills")
    for row in full:
        ratio = row["mints_per_s"] / full[0]["mints_per_s"]
        print(f"  {row['held']:>6} held: {row['mints_per_s']:>7.0f} mints/s ({ratio:.2f}x of empty)")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
