"""What the Jupyter path costs: one tools/call straight to the in-kernel server vs through the Jupyter server.

Run from the project root with the project's venv::

    python bench/bench_jupyter_path.py [--calls N] [--warmup W] [--quick]

It starts a real Jupyter server (``python -m jupyter_server``, the mcp-notebook extension enabled
by the install) and one kernel that runs ``%mcp_serve`` with a read-only ``whoami`` tool. Then,
for both protocol eras (SDK ``Client(mode="legacy")`` and ``Client(mode="2026-07-28")``), one
connected SDK client in this process makes W warm-up and N timed sequential calls:

  (direct)  to the kernel's server itself, ``srv.url`` with a client token of its own;
  (jupyter) to ``{Jupyter URL}/mcp-notebook/shop/mcp`` with the Jupyter token: Jupyter's
            authentication, the extension's lookup of the kernel's link, and the forwarding hop.

Both servers run in other processes (the Jupyter server and the kernel), so the client competes
with neither for the GIL. Prints medians, p95 and the ratio; writes
``bench/results/jupyter_path.json``. Exits 0 whatever it finds: a benchmark reports, it does not gate.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.jupyter.servers import SERVE, connect, jupyter_server  # noqa: E402 - after the path above


async def measure(url: str, token: str, mode: str, n: int, warmup: int) -> list[int]:
    async with connect(url, token, mode) as client:
        for _ in range(warmup):
            await client.call_tool("whoami", {})
        samples = []
        for _ in range(n):
            start = time.perf_counter_ns()
            await client.call_tool("whoami", {})
            samples.append(time.perf_counter_ns() - start)
    return samples


def summary(samples: list[int]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": statistics.median(ordered) / 1e6,
        "p95_ms": ordered[int(len(ordered) * 0.95) - 1] / 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="N=50, W=5")
    args = parser.parse_args()
    n, warmup = (50, 5) if args.quick else (args.calls, args.warmup)
    results: dict[str, Any] = {"calls": n, "warmup": warmup, "eras": {}}
    with (
        tempfile.TemporaryDirectory() as folder,
        jupyter_server(Path(folder), secrets.token_urlsafe(24)) as server,
    ):
        _, kernel = server.start_kernel()
        try:
            kernel.run(SERVE, timeout=120).raise_for_error()
            direct_url = kernel.json("srv.url")
            direct_token = kernel.json("srv.add_client('bench')")
            via_jupyter = f"{server.url}/mcp-notebook/shop/mcp"
            for mode in ("legacy", "2026-07-28"):
                direct = summary(anyio.run(measure, direct_url, direct_token, mode, n, warmup))
                jupyter = summary(anyio.run(measure, via_jupyter, server.token, mode, n, warmup))
                results["eras"][mode] = {"direct": direct, "jupyter": jupyter}
        finally:
            kernel.shutdown()
    print(f"tools/call latency, N={n} (W={warmup}); the client in this process, both servers in others\n")
    print(f"{'era':<12} {'path':<9} {'median ms':>10} {'p95 ms':>8} {'x direct':>9}")
    for mode, rows in results["eras"].items():
        base = rows["direct"]["median_ms"]
        for path, row in rows.items():
            ratio = row["median_ms"] / base if base else float("nan")
            print(f"{mode:<12} {path:<9} {row['median_ms']:>10.2f} {row['p95_ms']:>8.2f} {ratio:>9.2f}")
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "jupyter_path.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
