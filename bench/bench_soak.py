"""Soak benchmark: minutes of mixed-era load on the in-kernel server and on the SDK's MCPServer.

Run from the project root with the project's venv::

    python bench/bench_soak.py [--minutes 15] [--sample-seconds 60] [--clients 8] [--processes P]
                               [--per-connection 200] [--idle-seconds 30] [--serve magic|api] [--no-baseline]

A real Jupyter kernel (jupyter_client) defines the read-only ``echo(tag) -> str`` tool of
``bench/kernel_load.py`` and serves it with ``srv = %mcp_serve`` (``--serve magic``, the default:
the panel and its activity log too) or ``mcp_notebook.serve()`` (``--serve api``). Side by side, in
its own process under uvicorn, the SDK's ``MCPServer`` serves the same tool. Each server gets the
same load at the same time: N SDK clients (``--clients``, alternating ``mode="legacy"`` and
``mode="2026-07-28"``) in P client processes of its own (``--processes``, default one per four
cores, at least one, at most four), each client calling ``echo`` one call after the other with a
tag no other call carries and checking that the answer is that tag, on a fresh connection (a new
session in the handshake era) every ``--per-connection`` calls.

Every ``--sample-seconds`` the driver samples each server process from outside (``/proc``): its
RSS, open fds and threads, with the calls answered so far; once before the load, then through it,
then once more after ``--idle-seconds`` without calls (does an idle pool shrink back?). The kernel's
own list of tags it ran is drained at each sample and counted against the calls made.

Prints, per server, the samples and the least-squares slope per 10,000 calls (MB, fds, threads)
over the load, the growth from before the load to its end and to the idle sample, and the errors
(lost, wrong or error answers, with examples). Writes ``bench/results/soak.json``. Exits 0 whatever
it finds: a benchmark reports, it does not gate. Linux only (``/proc``); the same command on 2 or 64
cores measures that machine.

Worker protocol (``--client-worker``): one JSON job line on stdin ``{"url", "token", "clients":
[[index, mode], ...], "per_connection", "warmup"}``; the worker makes its warm-up calls and prints
``{"ready": true}``; on the line ``{"seconds": S}`` it calls for S seconds, printing
``{"calls", "errors", "examples"}`` every second and ``{"done": true, ...}`` at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "soak.json"

if str(ROOT) not in sys.path:  # run as a script from anywhere: import the checkout, not an install
    sys.path.insert(0, str(ROOT))

from bench.bench_load import _blocks  # noqa: E402
from bench.kernel_load import (  # noqa: E402
    HITS,
    SERVE_API,
    SERVE_MAGIC,
    Answer,
    connect,
    drive,
    plan,
    serve_in_kernel,
)

SDK_APP = textwrap.dedent(
    '''
    """The soak's echo tool in the SDK's MCPServer."""
    import logging

    from mcp.server.mcpserver import MCPServer

    server = MCPServer("soak-sdk")
    logging.getLogger().handlers.clear()  # MCPServer() calls logging.basicConfig


    @server.tool()
    def echo(tag: str) -> str:
        """Return `tag` unchanged. The load test sends each tag once and checks it comes back."""
        return tag


    app = server.streamable_http_app()
    '''
)

# Drained at each sample, so the tags the kernel ran do not pile up in the kernel being measured.
DRAIN_HITS = f"(lambda n: (n, {HITS}.__delitem__(slice(0, n)))[0])(len({HITS}))"


# ------------------------------------------------------------------------------------------------
# The client worker process
# ------------------------------------------------------------------------------------------------
class Tally:
    """Calls made and what went wrong, as the answers come."""

    def __init__(self) -> None:
        self.calls = 0
        self.errors = 0
        self.examples: list[str] = []

    def __call__(self, answer: Answer) -> None:
        self.calls += 1
        if answer.echoed != answer.tag:
            self.errors += 1
            if len(self.examples) < 5:
                got = answer.error if answer.echoed is None else f"got {answer.echoed!r}"
                self.examples.append(f"{answer.mode} {answer.tag}: {got}")

    def to_json(self) -> dict[str, Any]:
        return {"calls": self.calls, "errors": self.errors, "examples": self.examples}


async def _client(
    url: str, token: str, index: int, mode: str, calls: int, tally: Tally, until: float
) -> None:
    """One client: a fresh connection every `calls` calls, until the monotonic clock reaches `until`
    (``0``: one connection, its calls all made: the warm-up)."""

    def over() -> bool:
        return bool(until) and time.monotonic() >= until

    while True:
        try:
            async with connect(url, token, mode) as client:
                await client.list_tools()  # a 2026-era client lists before it calls, as a host does
                made: list[Answer] = []
                await drive(client, index, mode, calls, made, lambda: False, tally, stop=over)
        except Exception as exc:  # a refused connection is a finding: counted, and the soak goes on
            tally.errors += 1
            if len(tally.examples) < 5:
                tally.examples.append(f"{mode} client {index}: {type(exc).__name__}: {exc}")
        if time.monotonic() >= until:
            return


def client_worker_main() -> int:
    """`--client-worker`: warm up, wait for the start line, call for its seconds, report as it goes."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt the protocol
    sys.stdout = sys.stderr

    def say(message: dict[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    job = json.loads(sys.stdin.readline())
    clients = [(int(index), str(mode)) for index, mode in job["clients"]]
    tally = Tally()

    async def main() -> None:
        warm = Tally()
        async with anyio.create_task_group() as group:
            for index, mode in clients:
                group.start_soon(_client, job["url"], job["token"], index, mode, job["warmup"], warm, 0.0)
        if warm.errors or warm.calls < len(clients) * job["warmup"]:
            raise RuntimeError(f"warm-up failed: {warm.to_json()}")
        say({"ready": True})
        start = json.loads(await anyio.to_thread.run_sync(sys.stdin.readline))
        until = time.monotonic() + float(start["seconds"])
        async with anyio.create_task_group() as group:
            for index, mode in clients:
                group.start_soon(
                    _client, job["url"], job["token"], index, mode, job["per_connection"], tally, until
                )
            while time.monotonic() < until:
                await anyio.sleep(1)  # a progress report, not synchronisation
                say(tally.to_json())
        say({"done": True, **tally.to_json()})

    try:
        anyio.run(main)
    except Exception as exc:
        say({"done": True, "failed": f"{type(exc).__name__}: {exc}", **tally.to_json()})
        return 1
    return 0


class Worker:
    """One client process; its latest progress report is in `progress`."""

    def __init__(self, url: str, token: str, clients: list[tuple[int, str]], per_connection: int) -> None:
        self.url = url
        self.stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--client-worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            text=True, encoding="utf-8", bufsize=1, cwd=str(ROOT),
        )  # fmt: skip
        assert self.proc.stdin is not None
        job = {"url": url, "token": token, "clients": clients, "per_connection": per_connection}
        self.proc.stdin.write(json.dumps(job | {"warmup": 3}) + "\n")
        self.proc.stdin.flush()
        self.progress: dict[str, Any] = {"calls": 0, "errors": 0, "examples": []}
        self.done = threading.Event()

    def wait_ready(self, timeout: float = 180) -> None:
        assert self.proc.stdout is not None
        watchdog = threading.Timer(timeout, self.proc.kill)  # a hung worker must not hang the benchmark
        watchdog.daemon = True
        watchdog.start()
        try:
            line = self.proc.stdout.readline()
        finally:
            watchdog.cancel()
        if not line or not json.loads(line).get("ready"):
            raise RuntimeError(f"client worker of {self.url} did not warm up: {line!r}{self._stderr_tail()}")

    def go(self, seconds: float) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        stdout = self.proc.stdout

        def follow() -> None:  # a thread per worker: the driver samples meanwhile
            for line in stdout:
                self.progress = json.loads(line)
                if self.progress.get("done"):
                    break
            else:
                self.progress = {**self.progress, "done": True, "failed": f"no report{self._stderr_tail()}"}
            self.done.set()

        threading.Thread(target=follow, daemon=True).start()
        self.proc.stdin.write(json.dumps({"seconds": seconds}) + "\n")
        self.proc.stdin.flush()

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


# ------------------------------------------------------------------------------------------------
# The servers and their samples
# ------------------------------------------------------------------------------------------------
def process_state(pid: int) -> dict[str, int]:
    """RSS (bytes), open fds and threads of process `pid`, read from ``/proc``."""
    status = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line
    )
    return {
        "rss": int(status["VmRSS"].split()[0]) * 1024,
        "fds": len(os.listdir(f"/proc/{pid}/fd")),
        "threads": int(status["Threads"]),
    }


class Served:
    """One server under soak: its process, its clients, its samples."""

    def __init__(self, name: str, pid: int, url: str, token: str, clients: int, processes: int, per: int):
        self.name, self.pid = name, pid
        blocks = _blocks(plan(clients), processes)
        self.workers = [Worker(url, token, block, per) for block in blocks]
        self.samples: list[dict[str, Any]] = []
        self.executed: int | None = None  # the kernel's count of tool runs (None: not known)

    def calls(self) -> int:
        return sum(int(w.progress.get("calls", 0)) for w in self.workers)

    def sample(self, phase: str, elapsed: float) -> dict[str, Any]:
        row = {"phase": phase, "t_s": round(elapsed, 1), "calls": self.calls(), **process_state(self.pid)}
        self.samples.append(row)
        return row

    def errors(self) -> dict[str, Any]:
        examples = [e for w in self.workers for e in w.progress.get("examples", [])]
        failed = [w.progress["failed"] for w in self.workers if w.progress.get("failed")]
        return {
            "count": sum(int(w.progress.get("errors", 0)) for w in self.workers) + len(failed),
            "examples": (failed + examples)[:8],
        }

    def close(self) -> None:
        for worker in self.workers:
            worker.close()


def slope(samples: list[dict[str, Any]], key: str) -> float | None:
    """Least-squares growth of `key` per 10,000 calls over `samples` (None with fewer than two)."""
    points = [(s["calls"], s[key]) for s in samples]
    if len(points) < 2:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    if not spread:
        return None
    return 10_000 * sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


def figures(served: Served) -> dict[str, Any]:
    """Slopes over the load, growth to the load's end and to the idle sample after it."""
    loaded = [s for s in served.samples if s["phase"] in ("before", "load")]
    before, end, idle = served.samples[0], loaded[-1], served.samples[-1]
    units = {"rss": 2**20, "fds": 1, "threads": 1}
    return {
        "calls": end["calls"],
        "slope_per_10k": {
            key: (None if (s := slope(loaded, key)) is None else s / unit) for key, unit in units.items()
        },
        "growth_under_load": {key: (end[key] - before[key]) / unit for key, unit in units.items()},
        "growth_after_idle": {key: (idle[key] - before[key]) / unit for key, unit in units.items()},
    }


def start_kernel(serve: str) -> tuple[Any, int, str, str]:
    from tests.kernel import Kernel

    kernel = Kernel(cwd=str(ROOT))
    url, token = serve_in_kernel(kernel, SERVE_MAGIC if serve == "magic" else SERVE_API)
    return kernel, int(kernel.json("__import__('os').getpid()")), url, token


def soak(opts: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    from tests.services import Replica

    kernel, pid, url, token = start_kernel(opts.serve)
    replica = None
    servers: list[Served] = []
    try:
        kernel_name = (
            "mcp-notebook (kernel, %mcp_serve)" if opts.serve == "magic" else "mcp-notebook (kernel, serve())"
        )
        servers.append(
            Served(kernel_name, pid, url, token, opts.clients, opts.processes, opts.per_connection)
        )
        if not opts.no_baseline:
            (scratch / "sdk_app.py").write_text(SDK_APP)
            replica = Replica(
                scratch, dict(os.environ), module="sdk_app:app", ready="Application startup complete"
            )
            servers.append(
                Served("SDK MCPServer (uvicorn)", replica.pid, replica.url, "-", opts.clients, opts.processes, opts.per_connection)
            )  # fmt: skip
        return run_load(opts, kernel, servers)
    finally:
        for served in servers:
            served.close()
        if replica is not None:
            replica.stop()
        kernel.shutdown()


def run_load(opts: argparse.Namespace, kernel: Any, servers: list[Served]) -> dict[str, Any]:
    workers = [w for served in servers for w in served.workers]
    for worker in workers:
        worker.wait_ready()
    executed = int(kernel.json(DRAIN_HITS))  # the warm-up's runs
    seconds = opts.minutes * 60
    began = time.monotonic()
    for served in servers:
        show(served, served.sample("before", 0.0))
    for worker in workers:
        worker.go(seconds)
    end, next_sample = began + seconds, began + opts.sample_seconds
    while time.monotonic() < end and not any(w.done.is_set() for w in workers):
        # Meanwhile the panel's updates are read as a browser reads them (a reader that lags would
        # make the kernel queue them, which is not what a session does).
        kernel.drain(max(0.01, min(next_sample, end, time.monotonic() + 1) - time.monotonic()))
        if next_sample <= time.monotonic() < end:
            executed += int(kernel.json(DRAIN_HITS))
            for served in servers:
                show(served, served.sample("load", time.monotonic() - began))
            next_sample += opts.sample_seconds
    for worker in workers:
        while not worker.done.is_set():
            kernel.drain(0.5)
    executed += int(kernel.json(DRAIN_HITS))
    for served in servers:
        show(served, served.sample("load", time.monotonic() - began))
    servers[0].executed = executed
    kernel.drain(opts.idle_seconds)  # the idle period being measured, a browser tab still open
    for served in servers:
        show(served, served.sample("idle", time.monotonic() - began))
    return {
        served.name: {"samples": served.samples, "errors": served.errors(), "executed": served.executed}
        | figures(served)
        for served in servers
    }


# ------------------------------------------------------------------------------------------------
# Report
# ------------------------------------------------------------------------------------------------
def show(served: Served, row: dict[str, Any]) -> None:
    print(
        f"  {served.name:<36} {row['phase']:<6} {row['t_s']:>7.0f} s {row['calls']:>8} calls"
        f"  RSS {row['rss'] / 2**20:7.1f} MB  fds {row['fds']:>4}  threads {row['threads']:>3}",
        flush=True,
    )


def print_report(results: dict[str, Any]) -> None:
    print()
    print(
        f"  {'server':<36}{'calls':>8}{'errors':>8}   per 10k calls: MB / fds / threads    growth: load end | idle"
    )
    for name, r in results.items():
        s, g, i = r["slope_per_10k"], r["growth_under_load"], r["growth_after_idle"]

        def num(value: float | None, digits: int) -> str:
            return "-" if value is None else f"{value:+.{digits}f}"

        print(
            f"  {name:<36}{r['calls']:>8}{r['errors']['count']:>8}"
            f"   {num(s['rss'], 2):>7} MB {num(s['fds'], 2):>6} {num(s['threads'], 2):>6}"
            f"    {num(g['rss'], 1)} MB {num(g['fds'], 0)} fds {num(g['threads'], 0)} thr"
            f" | {num(i['rss'], 1)} MB {num(i['fds'], 0)} fds {num(i['threads'], 0)} thr"
        )
        for example in r["errors"]["examples"]:
            print(f"      error: {example}")
        if r["executed"] is not None:
            print(f"      the kernel ran the tool {r['executed']} times (warm-up included)")


def main(argv: list[str] | None = None) -> int:
    cores = os.cpu_count() or 1
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=15, help="minutes of load (default 15)")
    parser.add_argument(
        "--sample-seconds", type=float, default=60, help="seconds between samples (default 60)"
    )
    parser.add_argument("--clients", type=int, default=8, help="clients per server, both eras (default 8)")
    parser.add_argument(
        "--processes", type=int, default=max(1, min(4, cores // 4)), help="client processes per server"
    )
    parser.add_argument("--per-connection", type=int, default=200, help="calls per connection (default 200)")
    parser.add_argument("--idle-seconds", type=float, default=30, help="idle wait before the last sample")
    parser.add_argument("--serve", choices=("magic", "api"), default="magic", help="%%mcp_serve or serve()")
    parser.add_argument("--no-baseline", action="store_true", help="the kernel only, no MCPServer")
    parser.add_argument("--output", type=Path, default=RESULTS, help="JSON results file")
    parser.add_argument("--client-worker", action="store_true", help="internal: be one client process")
    opts = parser.parse_args(argv)
    if opts.client_worker:
        return client_worker_main()
    opts.processes = max(1, min(opts.processes, opts.clients))
    load_before = os.getloadavg()[0]
    print(
        f"bench_soak: {opts.minutes:g} min; per server {opts.clients} clients (both eras) in"
        f" {opts.processes} processes, a fresh connection every {opts.per_connection} calls;"
        f" a sample every {opts.sample_seconds:g} s",
        flush=True,
    )
    # Audit logs and stores of the kernel's server go to a scratch folder.
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as scratch:
        os.environ["MCP_NOTEBOOK_CACHE_DIR"] = scratch
        results = soak(opts, Path(scratch))
    print_report(results)
    report = {
        "benchmark": "bench_soak",
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "python": platform.python_version(),
        "cpus": cores,
        "options": {k: v for k, v in vars(opts).items() if k not in ("output", "client_worker")},
        "loadavg_1min": {"start": load_before, "end": os.getloadavg()[0]},
        "servers": results,
    }
    opts.output.parent.mkdir(parents=True, exist_ok=True)
    opts.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(
        f"\nwrote {opts.output} (1-min load average {load_before:.1f} at start, {os.getloadavg()[0]:.1f} at end, {cores} CPUs)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
