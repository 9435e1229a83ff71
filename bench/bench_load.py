"""Load benchmark: N concurrent clients of both eras x M calls against a server in a real kernel.

Run from the project root with the project's venv::

    python bench/bench_load.py [--clients N] [--calls M] [--processes P] [--quick] [--serve magic|api|both]

A real Jupyter kernel (jupyter_client) runs ``%load_ext mcp_notebook``, defines a read-only
``echo(tag) -> str`` tool and serves it with ``srv = %mcp_serve`` (``--serve magic``) or with
``mcp_notebook.serve()``, the same server without the panel the magic displays (``--serve api``);
by default both, one fresh kernel each, one after the other, with their ratios. Then P client
processes (``--client-worker``) connect N SDK clients between them, alternating
``mode="legacy"`` (handshake era) and ``mode="2026-07-28"``, make W untimed warm-up calls each,
wait at a barrier until every client is ready, and each client makes M calls, one after the
other, every call with a tag of its own that the answer must echo.

Reported, per era and overall: throughput (answered calls per second, over the load's own
window), latency p50/p95/p99/max; lost, mismatched and duplicated answers (checked against the
requests and against the list of tags the kernel's tool actually ran); kernel responsiveness:
how long a trivial cell (``sum(range(100))``) takes to complete, idle before the load, back to
back during it, and idle after it; the kernel's RSS and live widget count before and after.

Prints tables and writes ``bench/results/load.json``. Exits 0 whatever it finds: a benchmark
reports, it does not gate (``tests/service/test_load.py`` asserts correctness).

Worker protocol (``--client-worker``): one JSON job line on stdin ``{"url", "token", "clients":
[[index, mode], ...], "calls"}``; the worker connects its clients and prints ``{"ready": true}``;
it starts calling when it reads the line ``go``, and prints ``{"ok": true, "answers": [...]}``
(rows of `kernel_load.Answer`) or ``{"ok": false, "error": ...}`` when done.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "load.json"

if str(ROOT) not in sys.path:  # run as a script from anywhere: import the checkout, not an install
    sys.path.insert(0, str(ROOT))

from bench.kernel_load import (  # noqa: E402
    PROBE_CELL,
    SERVE_API,
    SERVE_MAGIC,
    Answer,
    by_era,
    check,
    executed_in_kernel,
    percentile,
    plan,
    run_clients,
    serve_in_kernel,
)

KERNEL_STATE = """{
    "rss": int(open("/proc/self/statm").read().split()[1]) * __import__("os").sysconf("SC_PAGE_SIZE"),
    "widgets": len(__import__("ipywidgets.widgets.widget").widgets.widget._instances),
    "calls_kept": len(srv.calls),
    "activity_kept": len(srv.activity),
    "tool_runs": len(LOAD_HITS),
}"""


# ------------------------------------------------------------------------------------------------
# The client worker process
# ------------------------------------------------------------------------------------------------
def client_worker_main() -> int:
    """`--client-worker`: connect this process's clients, wait for ``go``, call, report every answer."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt the protocol
    sys.stdout = sys.stderr

    def answer(message: dict[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    job = json.loads(sys.stdin.readline())
    answers: list[Answer] = []
    warmup_answers: list[Answer] = []

    async def connected() -> None:
        answer({"ready": True})
        line = await anyio.to_thread.run_sync(sys.stdin.readline)
        if line.strip() != "go":
            raise RuntimeError(f"expected 'go', got {line!r}")

    async def main() -> None:
        clients = [(int(index), str(mode)) for index, mode in job["clients"]]
        await run_clients(
            job["url"], job["token"], clients, int(job["calls"]), answers,
            connected=connected, warmup=int(job["warmup"]), warmup_answers=warmup_answers,
        )  # fmt: skip

    try:
        anyio.run(main)
    except Exception as exc:
        answer({"ok": False, "error": f"{type(exc).__name__}: {exc}"})
        return 1
    answer(
        {
            "ok": True,
            "answers": [a.to_json() for a in answers],
            "warmup_answers": [a.to_json() for a in warmup_answers],
        }
    )
    return 0


class Worker:
    """One client process: connected, warmed up and waiting at the barrier after `wait_ready()`."""

    def __init__(self, url: str, token: str, clients: list[tuple[int, str]], calls: int, warmup: int) -> None:
        self.stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--client-worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            text=True, encoding="utf-8", bufsize=1, cwd=str(ROOT),
        )  # fmt: skip
        assert self.proc.stdin is not None and self.proc.stdout is not None
        job = {"url": url, "token": token, "clients": clients, "calls": calls, "warmup": warmup}
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        self.result: dict[str, Any] | None = None
        self.done = threading.Event()

    def wait_ready(self, timeout: float = 120) -> None:
        assert self.proc.stdout is not None
        watchdog = threading.Timer(timeout, self.proc.kill)  # a hung worker must not hang the benchmark
        watchdog.daemon = True
        watchdog.start()
        try:
            line = self.proc.stdout.readline()
        finally:
            watchdog.cancel()
        if not line or not json.loads(line).get("ready"):
            raise RuntimeError(f"client worker did not connect: {line!r}{self._stderr_tail()}")

    def go(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        stdout = self.proc.stdout

        def collect() -> None:  # a thread per worker, so the driver can probe the kernel meanwhile
            line = stdout.readline()
            self.result = json.loads(line) if line else {"ok": False, "error": "no answer"}
            self.done.set()

        threading.Thread(target=collect, daemon=True).start()
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()

    def answers(self) -> tuple[list[Answer], list[Answer]]:
        """The timed calls' answers, and the warm-up calls' answers."""
        self.done.wait()
        self.proc.wait(60)
        result = self.result or {}
        if not result.get("ok"):
            raise RuntimeError(f"client worker failed: {result.get('error')}{self._stderr_tail()}")
        return (
            [Answer.from_json(row) for row in result["answers"]],
            [Answer.from_json(row) for row in result["warmup_answers"]],
        )

    def _stderr_tail(self) -> str:
        self.stderr.flush()
        self.stderr.seek(0)
        tail = self.stderr.read()[-1500:].strip()
        return f"; worker stderr: {tail}" if tail else ""

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        for stream in (self.proc.stdin, self.proc.stdout, self.stderr):
            if stream is not None:
                stream.close()


def _blocks(items: list[Any], parts: int) -> list[list[Any]]:
    """Contiguous blocks, so every process gets clients of both eras."""
    size, extra = divmod(len(items), parts)
    blocks, start = [], 0
    for part in range(parts):
        end = start + size + (1 if part < extra else 0)
        blocks.append(items[start:end])
        start = end
    return [block for block in blocks if block]


# ------------------------------------------------------------------------------------------------
# One run against one kernel
# ------------------------------------------------------------------------------------------------
def probe(kernel: Any) -> float:
    """Milliseconds from sending a trivial cell to the kernel reporting it idle."""
    start = time.perf_counter()
    kernel.run(PROBE_CELL, timeout=120).raise_for_error()
    return (time.perf_counter() - start) * 1e3


def probe_figures(samples: list[float]) -> dict[str, Any]:
    if not samples:
        return {"n": 0}
    ordered = sorted(samples)
    return {
        "n": len(ordered),
        "p50_ms": percentile(ordered, 50),
        "p95_ms": percentile(ordered, 95),
        "max_ms": ordered[-1],
    }


def run_once(
    serve: str, clients: int, calls: int, warmup: int, processes: int, idle_probes: int
) -> dict[str, Any]:
    from tests.kernel import Kernel

    kernel = Kernel(cwd=str(ROOT))
    workers: list[Worker] = []
    try:
        url, token = serve_in_kernel(kernel, SERVE_MAGIC if serve == "magic" else SERVE_API)
        workers = [Worker(url, token, block, calls, warmup) for block in _blocks(plan(clients), processes)]
        for worker in workers:
            worker.wait_ready()
        # Every client is connected and warmed up, and waits at the barrier: the kernel is idle.
        before_idle = [probe(kernel) for _ in range(idle_probes)]
        state_before = kernel.json(KERNEL_STATE)
        for worker in workers:
            worker.go()
        started = time.monotonic_ns()
        # Trivial cells back to back for as long as any client still calls.
        during: list[tuple[int, int]] = []
        while not all(worker.done.is_set() for worker in workers):
            begin = time.monotonic_ns()
            kernel.run(PROBE_CELL, timeout=120).raise_for_error()
            during.append((begin, time.monotonic_ns()))
        answers, warmup_answers = [], []
        for worker in workers:
            timed, warm = worker.answers()
            answers += timed
            warmup_answers += warm
        load_end = max(a.ended_ns for a in answers)
        # A probe counts as "under load" only if it completed before the last answer.
        under_load = [(end - begin) / 1e6 for begin, end in during if end <= load_end]
        after_idle = [probe(kernel) for _ in range(idle_probes)]
        state_after = kernel.json(KERNEL_STATE)
        executed = executed_in_kernel(kernel)
    finally:
        for worker in workers:
            worker.close()
        kernel.shutdown()
    result = check(answers + warmup_answers, executed)
    first_calls = sorted(
        min((a for a in warmup_answers if a.client == index), key=lambda a: a.started_ns).latency_ns / 1e6
        for index in {a.client for a in warmup_answers}
    )
    return {
        "serve": SERVE_MAGIC if serve == "magic" else SERVE_API,
        "clients": clients,
        "calls_per_client": calls,
        "warmup_per_client": warmup,
        "first_call_ms": {"p50": percentile(first_calls, 50), "max": first_calls[-1]}
        if first_calls
        else None,
        "processes": len(workers),
        "figures": by_era(answers),
        "check": result.summary(),
        "probe_ms": {
            "idle_before": probe_figures(before_idle),
            "under_load": probe_figures(under_load),
            "idle_after": probe_figures(after_idle),
        },
        "probes_completed_under_load": len(under_load),
        "load_started_to_first_probe_done_ms": (during[0][1] - started) / 1e6 if during else None,
        "kernel_before": state_before,
        "kernel_after": state_after,
    }


# ------------------------------------------------------------------------------------------------
# Report
# ------------------------------------------------------------------------------------------------
def print_run(run: dict[str, Any]) -> None:
    print()
    print(
        f"{run['serve'].splitlines()[-1]}: {run['clients']} clients x {run['calls_per_client']} calls,"
        f" in {run['processes']} client processes (after {run['warmup_per_client']} untimed warm-up calls each)"
    )
    header = f"  {'era':<12}{'calls':>7}{'calls/s':>10}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}"
    print(header)
    print("  " + "-" * (len(header) - 2))
    for era, f in run["figures"].items():
        if not f.get("answered"):
            print(f"  {era:<12}{f['calls']:>7}   nothing answered")
            continue
        print(
            f"  {era:<12}{f['answered']:>7}{f['calls_per_s']:>10.0f}{f['p50_ms']:>9.2f}{f['p95_ms']:>9.2f}"
            f"{f['p99_ms']:>9.2f}{f['max_ms']:>9.2f}"
        )
    first = run["first_call_ms"]
    if first:
        print(
            f"  first call of each client (warm-up, untimed above): p50 {first['p50']:.2f} ms, max {first['max']:.2f} ms"
        )
    c = run["check"]
    verdict = "OK" if c["ok"] else "PROBLEM"
    print(
        f"  answers: {c['answered']}/{c['calls']} matched; lost {c['lost']['count']},"
        f" mismatched {c['mismatched']['count']}, duplicated {c['duplicated']['count']},"
        f" answered but not run {c['not_executed']['count']}, run but never sent {c['unexpected']['count']}"
        f"  {verdict}"
    )
    for key in ("lost", "mismatched", "duplicated", "not_executed", "unexpected"):
        if c[key]["count"]:
            print(f"    {key}: {c[key]['examples']}")
    probes = run["probe_ms"]
    print(f"  kernel responsiveness: a trivial cell ({PROBE_CELL}), send to idle, ms")
    for label, key in (
        ("idle, before", "idle_before"),
        ("under load", "under_load"),
        ("idle, after", "idle_after"),
    ):
        p = probes[key]
        if not p["n"]:
            print(f"    {label:<14} no probe completed")
            continue
        print(
            f"    {label:<14} n={p['n']:<4} p50 {p['p50_ms']:7.2f}   p95 {p['p95_ms']:7.2f}   max {p['max_ms']:7.2f}"
        )
    first = run["load_started_to_first_probe_done_ms"]
    if first is not None:
        print(f"    first cell under load completed {first:.1f} ms after the load started")
    before, after = run["kernel_before"], run["kernel_after"]
    runs = max(1, after["tool_runs"] - before["tool_runs"])
    print(
        f"  kernel over the load ({runs} tool runs): RSS {before['rss'] / 2**20:.1f} -> {after['rss'] / 2**20:.1f} MiB"
        f" ({(after['rss'] - before['rss']) / runs / 1024:.1f} KiB/call);"
        f" live widgets {before['widgets']} -> {after['widgets']} ({(after['widgets'] - before['widgets']) / runs:.1f}/call);"
        f" srv.calls keeps {after['calls_kept']}, srv.activity {after['activity_kept']}"
    )


def print_comparison(runs: list[dict[str, Any]]) -> None:
    if len(runs) != 2:
        return
    magic, api = runs
    print()
    print("ratios, %mcp_serve (panel) / serve() (no panel)")
    for era in magic["figures"]:
        m, a = magic["figures"][era], api["figures"].get(era, {})
        if m.get("answered") and a.get("answered"):
            print(
                f"  {era:<12} throughput {m['calls_per_s'] / a['calls_per_s']:5.2f}"
                f"   p50 {m['p50_ms'] / a['p50_ms']:5.2f}   p95 {m['p95_ms'] / a['p95_ms']:5.2f}"
            )
    m, a = magic["probe_ms"]["under_load"], api["probe_ms"]["under_load"]
    if m["n"] and a["n"]:
        print(
            f"  a trivial cell under load: p50 {m['p50_ms'] / a['p50_ms']:5.2f}   p95 {m['p95_ms'] / a['p95_ms']:5.2f}"
        )


def load_average_note(report: dict[str, Any]) -> str:
    load = report["loadavg_1min"]
    return (
        f"1-min load average {load['start']:.1f} at start, {load['end']:.1f} at end, on {report['cpus']} CPUs"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--clients", type=int, default=None, help="concurrent clients N (default 16; --quick 4)"
    )
    parser.add_argument(
        "--calls", type=int, default=None, help="calls per client M (default 100; --quick 25)"
    )
    parser.add_argument(
        "--processes", type=int, default=2, help="client processes sharing the N clients (default 2)"
    )
    parser.add_argument("--warmup", type=int, default=3, help="untimed calls per client first (default 3)")
    parser.add_argument("--quick", action="store_true", help="N=4, M=25, 5 idle probes")
    parser.add_argument(
        "--serve",
        choices=("magic", "api", "both"),
        default="both",
        help="serve with `%%mcp_serve` (displays the panel), `mcp_notebook.serve()` (no panel), or both (default)",
    )
    parser.add_argument("--output", type=Path, default=RESULTS, help="JSON results file")
    parser.add_argument("--client-worker", action="store_true", help="internal: be one client process")
    opts = parser.parse_args(argv)
    if opts.client_worker:
        return client_worker_main()
    clients = opts.clients if opts.clients is not None else (4 if opts.quick else 16)
    calls = opts.calls if opts.calls is not None else (25 if opts.quick else 100)
    idle_probes = 5 if opts.quick else 20
    processes = max(1, min(opts.processes, clients))
    began, load_before = time.perf_counter(), os.getloadavg()[0]
    # Audit logs and idempotency stores of the benchmark's servers go to a scratch folder.
    scratch = tempfile.TemporaryDirectory(prefix="bench-load-")
    os.environ["MCP_NOTEBOOK_CACHE_DIR"] = scratch.name
    print(
        f"bench_load: {clients} clients (both eras) x {calls} calls against a server in a real kernel;"
        f" clients in {processes} separate processes",
        flush=True,
    )
    runs = []
    for serve in ("magic", "api") if opts.serve == "both" else (opts.serve,):
        runs.append(run_once(serve, clients, calls, opts.warmup, processes, idle_probes))
        print_run(runs[-1])
    print_comparison(runs)
    scratch.cleanup()
    report = {
        "benchmark": "bench_load",
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "runs": runs,
        "elapsed_s": time.perf_counter() - began,
        "loadavg_1min": {"start": load_before, "end": os.getloadavg()[0]},
    }
    opts.output.parent.mkdir(parents=True, exist_ok=True)
    opts.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(
        f"\nwrote {opts.output.relative_to(ROOT) if opts.output.is_relative_to(ROOT) else opts.output}"
        f" ({report['elapsed_s']:.0f} s; {load_average_note(report)})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
