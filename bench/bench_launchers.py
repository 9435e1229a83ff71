"""Launcher benchmark: one client's latency under each launcher README recommends, beside one process.

Run from the project root with the project's venv::

    python bench/bench_launchers.py [--calls 60] [--rounds 4] [--workers 2]

The example notebook ``notebooks/examples/orders_service.ipynb`` is exported and served by
``uvicorn app:app`` (one process: the reference), ``uvicorn app:app --workers N`` and
``gunicorn -k uvicorn.workers.UvicornWorker -w N``, all at once, on one SQLite store. One
2026-07-28 SDK client calls the read-only ``price`` tool one call after another on one kept-alive
connection, the launchers taking turns round by round; every answer is checked. An agent making
one call at a time sees exactly this: a launcher whose accepted connections lack ``TCP_NODELAY``
adds Nagle's ~40 ms to every answer, which a throughput benchmark hides behind queueing.

Prints p50/p95 per launcher and its ratio to the single process, writes
``bench/results/launchers.json``. Exits 0 whatever it finds.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "launchers.json"

if str(ROOT) not in sys.path:  # run as a script from anywhere: import the checkout, not an install
    sys.path.insert(0, str(ROOT))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=60, help="timed calls per launcher per round")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    import uvicorn

    from tests.exported import export_example, service_environ, token_of
    from tests.services import Replica, lone_client_latencies

    launchers: dict[str, dict[str, Any]] = {
        "uvicorn app:app (one process)": {},
        f"uvicorn app:app --workers {args.workers}": {"workers": args.workers},
        f"gunicorn -k uvicorn.workers.UvicornWorker -w {args.workers}": {
            "workers": args.workers,
            "server": "gunicorn",
        },
    }
    with tempfile.TemporaryDirectory() as scratch:
        folder = export_example(Path(scratch))
        environ = service_environ(folder, f"sqlite:///{folder / 'state.sqlite3'}")
        replicas = {name: Replica(folder, environ, **options) for name, options in launchers.items()}
        took: dict[str, list[float]] = {name: [] for name in launchers}
        try:
            for _ in range(args.rounds):
                for name, replica in replicas.items():
                    took[name] += anyio.run(
                        lone_client_latencies, replica.url, token_of("client00"), args.calls
                    )
        finally:
            for replica in replicas.values():
                replica.stop()

    reference = statistics.median(next(iter(took.values())))
    rows = [
        {
            "launcher": name,
            "p50_ms": statistics.median(values) * 1000,
            "p95_ms": percentile(values, 0.95) * 1000,
            "ratio_p50": statistics.median(values) / reference,
            "calls": len(values),
        }
        for name, values in took.items()
    ]
    report = {"uvicorn": uvicorn.__version__, "machine": platform.machine(), "rows": rows}
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2))
    print(f"One client, `price` one call after another, uvicorn {uvicorn.__version__}:")
    print(f"{'launcher':<58} {'p50 ms':>8} {'p95 ms':>8} {'p50 ratio':>10}")
    for row in rows:
        print(f"{row['launcher']:<58} {row['p50_ms']:>8.2f} {row['p95_ms']:>8.2f} {row['ratio_p50']:>9.2f}x")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
