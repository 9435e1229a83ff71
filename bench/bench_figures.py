"""Figure results: what encoding a matplotlib figure costs a tool call, next to matplotlib's own savefig.

Run from the project root with the project's venv::

    python bench/bench_figures.py [--calls N] [--rounds R] [--quick]

One figure, made the way a notebook makes it (``plt.subplots``, the Agg backend: a line of 2,000
points, a title, axis labels, a legend; 6.4 x 4.8 in at 100 dpi), encoded N times per row, the rows
interleaved over R rounds so drift hits them alike:

  (s) ``fig.savefig(BytesIO(), format="png")``: matplotlib's own PNG encoding, the floor;
  (r) ``mcp_notebook``'s figure result (``to_result(fig)``: PNG, base64, the image block, the figure
      closed through pyplot), what every call of a figure tool pays;
  (t) info only: ``savefig`` with ``bbox_inches="tight"``, which the results used before: it draws
      the figure twice (once to measure the tight box, once to save).

Then (c), info only: a whole ``tools/call`` of a tool that makes that figure and returns it, on
``serve()`` (an in-process SDK client, handshake era): drawing the figure anew, (r), and the protocol.

Target, printed OK/MISS: (r)/(s) <= 1.10. Writes ``bench/results/figures.json``; exits 0 whatever
it finds (a benchmark reports, it does not gate).
"""

from __future__ import annotations

import argparse
import io
import json
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "figures.json"
TARGET = 1.10


def make_figure() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6.4, 4.8), dpi=100)
    xs = [i / 100 for i in range(2000)]
    axes.plot(xs, [((x * 7) % 3) - 1.5 for x in xs], label="sawtooth")
    axes.set(title="Sales by hour", xlabel="hour", ylabel="units")
    axes.legend()
    return figure


def timed(fn: Callable[[], Any], n: int) -> list[float]:
    samples = []
    for _ in range(n):
        start = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - start) / 1e6)
    return samples


def encoding_rows(n: int, rounds: int) -> dict[str, list[float]]:
    sys.path.insert(0, str(ROOT))
    from mcp_notebook.core._results import to_result

    figure = make_figure()

    def savefig() -> None:
        figure.savefig(io.BytesIO(), format="png")

    def tight() -> None:
        figure.savefig(io.BytesIO(), format="png", bbox_inches="tight")

    def ours() -> None:
        # The first call closes the figure in pyplot; savefig keeps working on a closed figure, and
        # closing it again costs what it costs every tool call (a look-up that finds nothing).
        to_result(figure)

    rows: dict[str, list[float]] = {"s": [], "r": [], "t": []}
    for fn in (savefig, ours, tight):  # warm-up: fonts, the Agg renderer, the PNG writer
        timed(fn, 3)
    per_round = max(1, n // rounds)
    for _ in range(rounds):
        rows["s"] += timed(savefig, per_round)
        rows["r"] += timed(ours, per_round)
        rows["t"] += timed(tight, per_round)
    return rows


def call_row(n: int) -> list[float]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from mcp_notebook import Catalogue, serve, tool

    catalogue = Catalogue()

    @tool(catalogue=catalogue, read_only=True)
    def chart():  # type: ignore[no-untyped-def]
        """The benchmark's figure, made anew each call as a tool would."""
        return make_figure()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # approval="auto" warns, as it should
        srv = serve(catalogue=catalogue, approval="auto", audit_log=False)

    async def main() -> list[float]:
        samples = []
        headers = {"Authorization": f"Bearer {srv.token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(srv.url, http_client=http), mode="legacy") as client,
        ):
            for i in range(n + 3):
                start = time.perf_counter_ns()
                await client.call_tool("chart", {})
                if i >= 3:
                    samples.append((time.perf_counter_ns() - start) / 1e6)
        return samples

    try:
        return anyio.run(main)
    finally:
        srv.stop()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=60, help="encodings per row (default 60)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--quick", action="store_true", help="--calls 15")
    args = parser.parse_args()
    n = 15 if args.quick else args.calls
    sys.path.insert(0, str(ROOT))
    rows = encoding_rows(n, args.rounds)
    medians = {name: statistics.median(samples) for name, samples in rows.items()}
    medians["c"] = statistics.median(call_row(max(5, n // 3)))

    labels = {
        "s": '(s) fig.savefig(BytesIO, format="png")',
        "r": "(r) mcp_notebook figure result",
        "t": '(t) savefig, bbox_inches="tight" (info)',
        "c": "(c) tools/call: make the figure, encode (info)",
    }
    print(f"figure encoding, median ms per call (N={n}, {args.rounds} rounds)")
    for key, label in labels.items():
        print(f"  {label:<48} {medians[key]:8.2f}")
    ratio = medians["r"] / medians["s"]
    verdict = "OK" if ratio <= TARGET else "MISS"
    print(f"  (r)/(s) {ratio:.2f} {verdict} (target <= {TARGET:.2f})")
    print(f"  (t)/(s) {medians['t'] / medians['s']:.2f} (info: what a tight bounding box costs)")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "medians_ms": medians,
                "ratio_r_s": ratio,
                "target": TARGET,
                "calls": n,
                "rounds": args.rounds,
                "python": platform.python_version(),
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
