"""Service benchmark: an exported app as 1 and 2 uvicorn workers behind HAProxy, sharing Redis.

Run from the project root with the project's venv (needs Debian's haproxy and redis-server)::

    python bench/bench_service.py [--clients N] [--calls M] [--processes P] [--quick]

The example notebook ``notebooks/examples/orders_service.ipynb`` is exported and served by
uvicorn processes that share one ``redis-server``, behind ``haproxy`` running the repo's
``deploy/haproxy.cfg``: first one worker (both of HAProxy's server lines point at it), then two.
P client processes (``--client-worker``) connect N SDK clients between them, half
``mode="2026-07-28"`` (spread request by request) and half ``mode="legacy"`` (each session kept on
one worker), make W untimed warm-up calls, wait at a barrier, and each makes M calls of the
read-only ``price`` tool, one after the other; every answer is checked.

Reported: calls/s over the load's window and latency p50/p95/p99 for 1 and 2 workers and their
ratio; the CPU seconds per call each process spent (workers, HAProxy, Redis, the clients, from
``/proc``), which is what a model of N replicas needs; then the store's cost per call: one
client, one worker, ``open_cart`` (an idempotency key claimed and completed, a handle minted)
against ``price`` (no store), with ``store=sqlite`` and ``store=redis``.

Prints tables and writes ``bench/results/service.json``. Exits 0 whatever it finds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "service.json"

if str(ROOT) not in sys.path:  # run as a script from anywhere: import the checkout, not an install
    sys.path.insert(0, str(ROOT))

NOTEBOOK = ROOT / "notebooks" / "examples" / "orders_service.ipynb"
CLIENTS = 40


def token_of(n: int) -> str:
    return f"bench{n:02d}-{'b' * 24}"


# -- the client processes -------------------------------------------------------------------------


async def _client_job(job: dict[str, Any]) -> list[list[Any]]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    ready = anyio.Event()
    go = anyio.Event()
    rows: list[list[Any]] = []
    connected = [0]
    count = len(job["clients"])

    async def one(n: int, mode: str) -> None:
        if job["raw"]:
            await raw(n, mode)
            return
        headers = {"Authorization": f"Bearer {token_of(n)}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60)) as http,
            Client(streamable_http_client(job["url"], http_client=http), mode=mode) as client,
        ):
            items = ["tea", "coffee", "cake"]
            for w in range(job["warmup"]):
                await client.call_tool(job["tool"], _arguments(job["tool"], w, items))
            connected[0] += 1
            if connected[0] == count:
                ready.set()
            await go.wait()
            for c in range(job["calls"]):
                arguments = _arguments(job["tool"], c, items)
                start = time.perf_counter()
                result = await client.call_tool(job["tool"], arguments)
                took = time.perf_counter() - start
                ok = result.is_error is False and _expected(job["tool"], arguments, result.structured_content)
                rows.append([mode, took, time.time(), ok])

    async def raw(n: int, mode: str) -> None:
        """Hand-written requests: what the server does per call, without an HTTP client's cost."""
        headers = {"Authorization": f"Bearer {token_of(n)}", "Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60)) as http:
            if mode == "legacy":
                opened = await http.post(job["url"], json=_INITIALIZE)
                headers = {
                    "Mcp-Session-Id": opened.headers["mcp-session-id"],
                    "MCP-Protocol-Version": "2025-11-25",
                }
                initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
                await http.post(job["url"], json=initialized, headers=headers)
            else:
                headers = {
                    "MCP-Protocol-Version": "2026-07-28",
                    "Mcp-Method": "tools/call",
                    "Mcp-Name": job["tool"],
                }
            items = ["tea", "coffee", "cake"]

            # The calls themselves on one kept-alive socket, the request bytes written by hand: an
            # HTTP client costs several times what the server spends on a call, and on 2 cores the
            # load generator would be what saturates.
            target = httpx2.URL(job["url"])
            reader, writer = await _open(target)
            fixed = "".join(
                f"{name}: {value}\r\n"
                for name, value in {
                    "Host": f"{target.host}:{target.port}",
                    "Authorization": f"Bearer {token_of(n)}",
                    "Accept": "application/json, text/event-stream",
                    "Content-Type": "application/json",
                    **headers,
                }.items()
            )

            async def call(c: int) -> tuple[dict[str, Any], Any]:
                arguments = _arguments(job["tool"], c, items)
                params: dict[str, Any] = {"name": job["tool"], "arguments": arguments}
                if mode != "legacy":
                    params["_meta"] = _MODERN_META
                body = json.dumps(
                    {"jsonrpc": "2.0", "id": c + 2, "method": "tools/call", "params": params}
                ).encode()
                head = (
                    f"POST {target.raw_path.decode()} HTTP/1.1\r\n{fixed}Content-Length: {len(body)}\r\n\r\n"
                )
                writer.write(head.encode() + body)
                answer = json.loads(await _response(reader))
                return arguments, answer.get("result", {}).get("structuredContent")

            for w in range(job["warmup"]):
                await call(w)
            connected[0] += 1
            if connected[0] == count:
                ready.set()
            await go.wait()
            for c in range(job["calls"]):
                start = time.perf_counter()
                arguments, content = await call(c)
                took = time.perf_counter() - start
                rows.append([mode, took, time.time(), _expected(job["tool"], arguments, content)])
            writer.close()

    async def barrier() -> None:
        await ready.wait()
        print(json.dumps({"ready": True}), flush=True)
        line = await anyio.to_thread.run_sync(sys.stdin.readline)
        assert line.strip() == "go"
        go.set()

    async with anyio.create_task_group() as group:
        group.start_soon(barrier)
        for n, mode in job["clients"]:
            group.start_soon(one, n, mode)
    return rows


async def _open(target: Any) -> Any:
    import asyncio

    return await asyncio.open_connection(target.host, target.port)


async def _response(reader: Any) -> bytes:
    """One HTTP/1.1 response's body (Content-Length or chunked)."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
    status = head.split(" ", 2)[1]
    if status != "200":
        raise RuntimeError(f"HTTP {status}: {head!r}")
    for line in head.split("\r\n"):
        if line.startswith("content-length:"):
            return bytes(await reader.readexactly(int(line.split(":", 1)[1])))
    body = b""
    while size := int((await reader.readuntil(b"\r\n")).strip(), 16):
        body += await reader.readexactly(size)
        await reader.readexactly(2)
    await reader.readexactly(2)
    return body


_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
_MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}


def _arguments(tool: str, n: int, items: list[str]) -> dict[str, Any]:
    if tool == "price":
        return {"item": items[n % 3]}
    return {"idempotency_key": f"bench-{secrets.token_hex(12)}"}  # open_cart: a new key each call


def _expected(tool: str, arguments: dict[str, Any], content: Any) -> bool:
    if tool == "price":
        return bool(
            content
            == {"item": arguments["item"], "price": {"tea": 3, "coffee": 4, "cake": 5}[arguments["item"]]}
        )
    return isinstance(content, dict) and isinstance(content.get("result"), str)


def client_worker() -> None:
    job = json.loads(sys.stdin.readline())
    rows = anyio.run(_client_job, job)
    print(json.dumps({"ok": True, "rows": rows}), flush=True)


# -- the servers ----------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its reaped children (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / ticks


def setup(folder: Path) -> dict[str, str]:
    from mcp_notebook.cli._export import export_notebook

    (folder / "app.py").write_text(export_notebook(NOTEBOOK), encoding="utf-8")
    clients = folder / "clients.json"
    clients.write_text(
        json.dumps({"clients": {f"bench{n:02d}": {"token": token_of(n)} for n in range(CLIENTS)}})
    )
    clients.chmod(0o600)
    key = folder / "state.key"
    key.write_text(secrets.token_hex(32))
    key.chmod(0o600)
    return {
        **os.environ,
        "MCP_NOTEBOOK_CLIENTS_FILE": str(clients),
        "MCP_NOTEBOOK_STATE_KEY_FILE": str(key),
        "MCP_NOTEBOOK_ALLOW_TOOLS": "open_cart",
        "MCP_NOTEBOOK_AUDIT_LOG": "",  # one JSON line per call on stdout is the operator's choice; not measured
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_load(
    url: str, args: argparse.Namespace, pids: dict[str, list[int]], raw: bool, tool: str = "price"
) -> dict[str, Any]:
    """P client processes, N clients, M calls each; CPU of every process over the load's window."""
    per: list[list[list[Any]]] = [[] for _ in range(args.processes)]
    for n in range(args.clients):
        per[n % args.processes].append([n, "2026-07-28" if n % 2 == 0 else "legacy"])
    workers = []
    for clients in per:
        process = subprocess.Popen(
            [sys.executable, __file__, "--client-worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        job = {
            "url": url,
            "clients": clients,
            "calls": args.calls,
            "warmup": args.warmup,
            "tool": tool,
            "raw": raw,
        }
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(job) + "\n")
        process.stdin.flush()
        workers.append(process)
    for process in workers:
        assert process.stdout is not None
        assert json.loads(process.stdout.readline())["ready"]
    watched = {**pids, "clients": [p.pid for p in workers]}
    before = {name: sum(cpu_seconds(pid) for pid in group) for name, group in watched.items()}
    started = time.time()
    for process in workers:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    rows: list[list[Any]] = []
    client_cpu = 0.0  # each client process's CPU read once it has printed its rows, before it exits
    for process in workers:
        assert process.stdout is not None
        line = process.stdout.readline()
        client_cpu += cpu_seconds(process.pid)
        answer = json.loads(line)
        rows += answer["rows"]
        process.wait(60)
    after = {name: sum(cpu_seconds(pid) for pid in group) for name, group in pids.items()}
    after["clients"] = client_cpu
    ended = max(row[2] for row in rows)
    latencies = [row[1] for row in rows]
    calls = len(rows)
    window = ended - started
    return {
        "calls": calls,
        "wrong": sum(1 for row in rows if not row[3]),
        "expected": args.clients * args.calls,
        "window_s": window,
        "calls_per_s": calls / window,
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p95_ms": percentile(latencies, 0.95) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "cpu_ms_per_call": {name: (after[name] - before[name]) * 1000 / calls for name in after},
        "by_era": {
            era: {
                "calls": sum(1 for row in rows if row[0] == era),
                "p50_ms": percentile([row[1] for row in rows if row[0] == era], 0.5) * 1000,
            }
            for era in ("2026-07-28", "legacy")
        },
    }


def behind_haproxy(
    folder: Path, environ: dict[str, str], workers: int, args: argparse.Namespace, redis_pid: int, raw: bool
) -> dict[str, Any]:
    from tests.services import HAProxy, Replica

    replicas = [Replica(folder, environ) for _ in range(workers)]
    ports = [replica.port for replica in replicas]
    proxy = HAProxy(ports if workers > 1 else ports * 2)  # one worker: both server lines point at it
    try:
        pids = {"workers": [r.pid for r in replicas], "haproxy": [proxy.process.pid], "redis": [redis_pid]}
        return run_load(proxy.url, args, pids, raw)
    finally:
        proxy.stop()
        for replica in replicas:
            replica.stop()


async def _sequential(url: str, tool: str, calls: int, warmup: int) -> list[float]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token_of(0)}"}
    items = ["tea", "coffee", "cake"]
    took = []
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60)) as http,
        Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client,
    ):
        for n in range(warmup + calls):
            arguments = _arguments(tool, n, items)
            start = time.perf_counter()
            result = await client.call_tool(tool, arguments)
            if n >= warmup:
                took.append(time.perf_counter() - start)
            assert result.is_error is False, result
    return took


def store_cost(
    folder: Path, environ: dict[str, str], store: str, args: argparse.Namespace, redis_pid: int
) -> dict[str, Any]:
    """Median latency of `price` and `open_cart`, one client, one worker; Redis's CPU per call of each."""
    from tests.services import Replica

    replica = Replica(folder, {**environ, "MCP_NOTEBOOK_STORE": store})
    try:
        rounds: dict[str, list[float]] = {"price": [], "open_cart": []}
        redis_cpu = dict.fromkeys(rounds, 0.0)
        for _ in range(3):  # interleaved, so both tools meet the same machine
            for tool in rounds:
                before = cpu_seconds(redis_pid)
                rounds[tool] += anyio.run(_sequential, replica.url, tool, args.store_calls // 3, 10)
                redis_cpu[tool] += cpu_seconds(redis_pid) - before
        result = {tool: statistics.median(values) * 1000 for tool, values in rounds.items()}
        calls = 3 * (args.store_calls // 3 + 10)
        result |= {f"redis_cpu_ms_{tool}": redis_cpu[tool] * 1000 / calls for tool in rounds}
        return result
    finally:
        replica.stop()


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--calls", type=int, default=150)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2, help="1 then 2 workers, this many times")
    parser.add_argument("--store-calls", type=int, default=300)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--client-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client_worker:
        client_worker()
        return
    if args.quick:
        args.clients, args.calls, args.rounds, args.store_calls = 8, 30, 1, 60
    args.clients = min(args.clients, CLIENTS)

    from tests.services import RedisServer

    report: dict[str, Any] = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_before": load_average(),
        "clients": args.clients,
        "calls": args.calls,
        "processes": args.processes,
    }
    redis = RedisServer()
    try:
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch)
            environ = {**setup(folder), "MCP_NOTEBOOK_STORE": redis.url}
            for kind in ("raw", "sdk"):
                runs: dict[str, list[dict[str, Any]]] = {"1": [], "2": []}
                for _ in range(args.rounds):
                    for workers in (1, 2):
                        result = behind_haproxy(
                            folder, environ, workers, args, redis.process.pid, kind == "raw"
                        )
                        runs[str(workers)].append(result)
                report[f"load_{kind}"] = runs
            stores = {
                "sqlite": store_cost(
                    folder, {**environ}, f"sqlite:///{folder / 'bench.sqlite3'}", args, redis.process.pid
                ),
                "redis": store_cost(folder, {**environ}, redis.url, args, redis.process.pid),
            }
            report["stores"] = stores
    finally:
        redis.stop()
    report["load_after"] = load_average()
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2))
    show(report)


def show(report: dict[str, Any]) -> None:
    print(f"load average before {report['load_before']}, after {report['load_after']}; {report['cpus']} CPUs")
    print(f"{report['clients']} clients (half 2026-07-28, half legacy) x {report['calls']} calls of `price`,")
    print(f"from {report['processes']} client processes, through HAProxy (deploy/haproxy.cfg)")
    for kind, title in (
        ("raw", "requests written by hand on a kept-alive socket"),
        ("sdk", "the SDK's Client"),
    ):
        print(f"\nclients: {title}\n")
        print("| workers | round | calls/s | p50 ms | p95 ms | p99 ms | wrong/lost | CPU ms/call: workers, haproxy, redis, clients |")  # fmt: skip
        print("|---:|---:|---:|---:|---:|---:|---:|---|")
        load = report[f"load_{kind}"]
        for workers, results in load.items():
            for n, r in enumerate(results, 1):
                cpu = r["cpu_ms_per_call"]
                lost = r["expected"] - r["calls"]
                print(
                    f"| {workers} | {n} | {r['calls_per_s']:.0f} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} | "
                    f"{r['p99_ms']:.1f} | {r['wrong']}/{lost} | {cpu['workers']:.2f}, {cpu['haproxy']:.2f}, "
                    f"{cpu['redis']:.3f}, {cpu['clients']:.2f} |"
                )
        ratios = [b["calls_per_s"] / a["calls_per_s"] for a, b in zip(load["1"], load["2"], strict=True)]
        shown = ", ".join(f"{r:.2f}x" for r in ratios)
        print(f"\nratio 2 workers / 1 worker, calls/s, per round: {shown} (target >= 1.4x)")
    stores = report["stores"]
    print("\n| store | `price` median ms | `open_cart` median ms | store cost per call ms | Redis CPU ms per `open_cart` |")  # fmt: skip
    print("|---|---:|---:|---:|---:|")
    for name, s in stores.items():
        cost = s["open_cart"] - s["price"]
        print(
            f"| {name} | {s['price']:.2f} | {s['open_cart']:.2f} | {cost:.2f} | {s['redis_cpu_ms_open_cart']:.3f} |"
        )
    redis = stores["redis"]["open_cart"] - stores["redis"]["price"]
    sqlite = stores["sqlite"]["open_cart"] - stores["sqlite"]["price"]
    if sqlite > 0:
        print(f"\nRedis / SQLite store cost per call: {redis / sqlite:.2f}x")


if __name__ == "__main__":
    main()
