"""Tasks: what running a call as a task costs, next to the same call answered in its own request.

Run from the project root with the project's venv::

    python bench/bench_tasks.py [--calls N] [--rounds R] [--quick]

One server (``serve()``, approval off, no audit log), 2026-07-28 SDK clients over HTTP: one that
declares the tasks extension on its requests and one that does not. Rows, interleaved over R rounds:

  (a) a quick ``@tool(task="optional")`` tool (returns at once), called by a client without tasks:
      the plain path, ms per call;
  (b) the same tool, called by a client that declares tasks: the call runs as a job and, being
      quick, is answered at once (the "immediate result"), ms per call. (b)/(a) is what task
      support costs a quick call;
  (c) a tool that works for one second, called plainly: ms to the result;
  (d) the same tool as a task: ``tools/call`` answers with the task at half a second, the client
      polls ``tasks/get`` every 50 ms until it is completed and reads the result inlined there:
      ms to the result. (d)/(c) is what a task costs a long call, polling included;
  (e) info: (d), polling at the interval the server suggests (``pollIntervalMs``, 500 ms at first),
      as a polite client does: the result waits up to one interval longer.

Writes ``bench/results/tasks.json``; exits 0 whatever it finds (a benchmark reports, it does not gate).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "tasks.json"
WORK = 1.0  # seconds the long tool works


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=60, help="quick calls per row (default 60)")
    parser.add_argument("--long", type=int, default=6, help="long calls per row (default 6)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--quick", action="store_true", help="--calls 15 --long 3")
    args = parser.parse_args()
    quick_n, long_n = (15, 3) if args.quick else (args.calls, args.long)
    sys.path.insert(0, str(ROOT))
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from mcp_notebook import Catalogue, Context, serve, tool
    from mcp_notebook.client._sdk_compat import CreatedTask, TasksClaim, get_task

    catalogue = Catalogue()

    @tool(catalogue=catalogue, read_only=True, task="optional")
    def quick() -> str:
        """Answers at once."""
        return "ok"

    @tool(catalogue=catalogue, read_only=True, task="optional")
    def long(ctx: Context) -> str:
        """Works a second."""
        ctx.sleep(WORK)
        return "done"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # approval="auto" warns, as it should
        srv = serve(catalogue=catalogue, approval="auto", audit_log=False)

    rows: dict[str, list[float]] = {key: [] for key in "abcde"}

    async def run() -> None:
        headers = {"Authorization": f"Bearer {srv.token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http_plain,
            httpx2.AsyncClient(headers=headers, timeout=60) as http_tasks,
            Client(streamable_http_client(srv.url, http_client=http_plain), mode="2026-07-28") as plain,
            Client(
                streamable_http_client(srv.url, http_client=http_tasks),
                mode="2026-07-28",
                extensions=[TasksClaim()],
            ) as tasks,
        ):

            async def timed(row: str, call: Any) -> None:
                start = time.perf_counter_ns()
                await call()
                rows[row].append((time.perf_counter_ns() - start) / 1e6)

            async def as_task(poll: float | None) -> None:
                created = await tasks.session.call_tool("long", {}, allow_claimed=True)
                assert isinstance(created, CreatedTask), created
                interval = poll if poll is not None else (created.poll_interval_ms or 500) / 1000
                while True:
                    await anyio.sleep(interval)  # the client's poll interval: what is measured
                    task = await get_task(tasks.session, created.task_id)
                    if task["status"] == "completed":
                        return
                    if poll is None:
                        interval = (task.get("pollIntervalMs") or 500) / 1000

            for _ in range(5):  # warm-up: connections, the SDK's models, the store
                await plain.call_tool("quick", {})
                await tasks.session.call_tool("quick", {}, allow_claimed=True)
            for _ in range(args.rounds):
                for _ in range(max(1, quick_n // args.rounds)):
                    await timed("a", lambda: plain.call_tool("quick", {}))
                    await timed("b", lambda: tasks.session.call_tool("quick", {}, allow_claimed=True))
                for _ in range(max(1, long_n // args.rounds)):
                    await timed("c", lambda: plain.call_tool("long", {}))
                    await timed("d", lambda: as_task(0.05))
                    await timed("e", lambda: as_task(None))

    try:
        anyio.run(run)
    finally:
        srv.stop()
    medians = {key: statistics.median(samples) for key, samples in rows.items()}
    labels = {
        "a": "(a) quick tool, client without tasks",
        "b": "(b) quick tool, client with tasks (answered at once)",
        "c": f"(c) {WORK:g} s tool, plain call",
        "d": f"(d) {WORK:g} s tool as a task, polled every 50 ms",
        "e": f"(e) {WORK:g} s tool as a task, polled as suggested (info)",
    }
    print(
        f"tasks, median ms per call ({quick_n} quick and {long_n} long calls per row, {args.rounds} rounds)"
    )
    for key, label in labels.items():
        print(f"  {label:<58} {medians[key]:9.2f}")
    quick_ratio, long_ratio = medians["b"] / medians["a"], medians["d"] / medians["c"]
    print(f"  (b)/(a) {quick_ratio:.2f}  what task support costs a quick call")
    print(f"  (d)/(c) {long_ratio:.3f} what a task costs a long call, polling included")
    print(f"  (e)/(c) {medians['e'] / medians['c']:.3f} (info: polling at the suggested interval)")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "medians_ms": medians,
                "ratio_b_a": quick_ratio,
                "ratio_d_c": long_ratio,
                "calls": quick_n,
                "long_calls": long_n,
                "rounds": args.rounds,
                "python": platform.python_version(),
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
