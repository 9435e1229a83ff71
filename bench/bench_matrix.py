"""Benchmark matrix: an exported app under uvicorn workers, per store, load and kind of tool.

Run from the project root with the project's venv (needs Debian's redis-server for the Redis rows)::

    python bench/bench_matrix.py                      # the whole matrix, sized to this machine
    python bench/bench_matrix.py --quick              # 1 and 2 workers, 1 and 10 in flight, 2 s cells
    python bench/bench_matrix.py --workers 1,8,16 --stores redis --inflight 50 --tools store

The same command on a 2-, 16- or 64-core machine measures that machine: by default workers go
1, 2, 4, ... up to the number of cores, and the load comes from client processes (one per four
cores, at least one) so that the clients are not what saturates.

Cells: workers x store {sqlite, redis} x clients in flight {1, 10, 50} x tool:

    read    ``price(item)``: read-only, no store (the app's fastest path)
    store   ``open_cart(idempotency_key)``: an idempotency key claimed and completed, a handle
            minted: three store writes per call
    cpu     ``crunch()``: 5 ms of CPU in the tool
    wait    ``pause()``: 20 ms of waiting (``await anyio.sleep``), no CPU

Each client holds one kept-alive connection and makes 2026-07-28 ``tools/call`` requests written by
hand (an HTTP client costs more than the server per call), one after another, for the cell's
seconds; every answer is checked against what the tool must return. Beside the ``read`` rows, the
SDK's own ``MCPServer`` (and FastMCP, when installed) serve the same tool under the same launcher
and load. Reported per cell: calls/s, latency p50/p95/p99, wrong answers.

Prints a table per store and tool, writes ``bench/results/matrix.json``. Exits 0 whatever it finds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import secrets
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "matrix.json"

if str(ROOT) not in sys.path:  # run as a script from anywhere: import the checkout, not an install
    sys.path.insert(0, str(ROOT))

TOOLS = ("read", "store", "cpu", "wait")
CLIENTS = 64  # tokens in the clients file: at least the most clients in flight
PRICES = {"tea": 3, "coffee": 4, "cake": 5}

APP = textwrap.dedent(
    '''
    """The matrix's app: one tool of each kind, served like an exported notebook."""
    import time

    import anyio

    from mcp_notebook import HandleStore, asgi_app, current_client, tool

    PRICES = {"tea": 3, "coffee": 4, "cake": 5}
    carts = HandleStore(ttl=3600, creator="open_cart", shared=True)


    @tool(read_only=True)
    def price(item: str) -> dict:
        """What an item costs."""
        return {"item": item, "price": PRICES[item]}


    @tool(idempotency_key=True)
    def open_cart() -> str:
        """Opens an empty cart and returns its handle."""
        return carts.mint(current_client(), "cart", [])


    @tool(read_only=True)
    def crunch() -> int:
        """5 ms of CPU."""
        end = time.thread_time() + 0.005
        spins = 0
        while time.thread_time() < end:
            spins += 1
        return 5


    @tool(read_only=True)
    async def pause() -> int:
        """20 ms of waiting."""
        await anyio.sleep(0.02)
        return 20


    app = asgi_app(name="matrix")
    '''
)
SDK_APP = textwrap.dedent(
    '''
    """The same read-only tool in the SDK's MCPServer (stateless, as the 2026-07-28 era is)."""
    import logging

    from mcp.server.mcpserver import MCPServer

    PRICES = {"tea": 3, "coffee": 4, "cake": 5}
    server = MCPServer("matrix-sdk")
    logging.getLogger().handlers.clear()


    @server.tool()
    def price(item: str) -> dict:
        """What an item costs."""
        return {"item": item, "price": PRICES[item]}


    app = server.streamable_http_app()
    '''
)
FASTMCP_APP = textwrap.dedent(
    '''
    """The same read-only tool in FastMCP."""
    from fastmcp import FastMCP

    PRICES = {"tea": 3, "coffee": 4, "cake": 5}
    server = FastMCP("matrix-fastmcp")


    @server.tool
    def price(item: str) -> dict:
        """What an item costs."""
        return {"item": item, "price": PRICES[item]}


    app = server.http_app(stateless_http=True)
    '''
)
CALLS = {"read": "price", "store": "open_cart", "cpu": "crunch", "wait": "pause"}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench-matrix", "version": "1"},
}


def token_of(n: int) -> str:
    return f"matrix-token-{n:02d}-{'x' * 24}"


# -- the clients (separate processes) ---------------------------------------------------------------
def _arguments(tool: str, n: int) -> dict[str, Any]:
    if tool == "read":
        return {"item": ("tea", "coffee", "cake")[n % 3]}
    if tool == "store":
        return {"idempotency_key": f"matrix-{secrets.token_hex(12)}"}
    return {}


def _right(tool: str, arguments: dict[str, Any], answer: dict[str, Any]) -> bool:
    result = answer.get("result") or {}
    if result.get("isError"):
        return False
    content = result.get("structuredContent")
    if content is None:  # the SDK's MCPServer sends a plain dict as JSON text only
        try:
            content = json.loads(result["content"][0]["text"])
        except (KeyError, IndexError, TypeError, ValueError):
            return False
    if isinstance(content, dict) and set(content) == {"result"} and isinstance(content["result"], dict):
        content = content["result"]  # the SDK's MCPServer wraps a dict the way it wraps any value
    if tool == "read":
        return bool(content == {"item": arguments["item"], "price": PRICES[arguments["item"]]})
    if tool == "store":
        return isinstance(content, dict) and str(content.get("result", "")).startswith("cart")
    return content == {"result": 5 if tool == "cpu" else 20}


async def _response(reader: asyncio.StreamReader) -> bytes:
    """One HTTP/1.1 response's body (Content-Length, chunked, or one SSE event)."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
    body = b""
    for line in head.split("\r\n"):
        if line.startswith("content-length:"):
            body = await reader.readexactly(int(line.split(":", 1)[1]))
            break
    else:
        while size := int((await reader.readuntil(b"\r\n")).strip(), 16):
            body += await reader.readexactly(size)
            await reader.readexactly(2)
        await reader.readexactly(2)
    if head.split(" ", 2)[1] != "200":  # read to its end, so the connection can go on
        return f"HTTP {head.split(' ', 2)[1]}: ".encode() + body
    if b"data:" in body and not body.lstrip().startswith(b"{"):  # an SSE stream: its one message
        body = next(line[5:] for line in body.splitlines() if line.startswith(b"data:"))
    return bytes(body)


async def _client_job(job: dict[str, Any]) -> list[list[Any]]:
    host, port, path = job["host"], job["port"], job["path"]
    tool, name = job["tool"], CALLS[job["tool"]]
    rows: list[list[Any]] = []
    said: list[bytes] = []
    fixed = (
        f"Host: {host}:{port}\r\nAccept: application/json, text/event-stream\r\n"
        "Content-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n"
        f"Mcp-Method: tools/call\r\nMcp-Name: {name}\r\n"
    )

    async def call(n: int, c: int, reader: Any, writer: Any) -> tuple[float, bool]:
        arguments = _arguments(tool, c)
        params: dict[str, Any] = {"name": name, "arguments": arguments, "_meta": META}
        body = json.dumps({"jsonrpc": "2.0", "id": c + 1, "method": "tools/call", "params": params}).encode()
        head = f"POST {path} HTTP/1.1\r\n{fixed}Authorization: Bearer {token_of(n)}\r\nContent-Length: {len(body)}\r\n\r\n"
        start = time.perf_counter()
        writer.write(head.encode() + body)
        raw = await _response(reader)
        try:
            answer = json.loads(raw)
        except ValueError:  # an HTTP error or not JSON: a wrong answer, said once, and the run goes on
            if not said:
                print(f"wrong answer: {raw[:200]!r}", file=sys.stderr, flush=True)
                said.append(raw)
            return time.perf_counter() - start, False
        return time.perf_counter() - start, _right(tool, arguments, answer)

    async def one(n: int, go: asyncio.Event, ready: list[int]) -> None:
        reader, writer = await asyncio.open_connection(host, port)
        for c in range(job["warmup"]):  # untimed: a worker's first calls pay for what it loads lazily
            await call(n, c, reader, writer)
        ready[0] += 1
        if ready[0] == len(job["clients"]):
            print(json.dumps({"ready": True}), flush=True)
        await go.wait()
        c = job["warmup"]
        while time.perf_counter() < deadline[0]:
            rows.append(list(await call(n, c, reader, writer)))
            c += 1
        writer.close()

    async def start(go: asyncio.Event) -> None:
        line = await asyncio.to_thread(sys.stdin.readline)
        deadline[0] = time.perf_counter() + float(json.loads(line)["seconds"])
        go.set()

    deadline = [0.0]
    go = asyncio.Event()
    ready = [0]  # clients warmed up, shared: the process says ready once all are
    await asyncio.gather(start(go), *(one(n, go, ready) for n in job["clients"]))
    return rows


def client_worker() -> None:
    job = json.loads(sys.stdin.readline())
    rows = asyncio.run(_client_job(job))
    print(json.dumps({"rows": rows}), flush=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def load(url: str, tool: str, inflight: int, processes: int, seconds: float, warmup: int) -> dict[str, Any]:
    """`inflight` clients spread over `processes` client processes, for `seconds` after a start signal."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    groups = [list(range(inflight))[p::processes] for p in range(min(processes, inflight))]
    workers = []
    for clients in groups:
        process = subprocess.Popen(
            [sys.executable, __file__, "--client-worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        job = {"host": parts.hostname, "port": parts.port, "path": parts.path, "tool": tool}
        job |= {"clients": clients, "warmup": warmup}
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(job) + "\n")
        process.stdin.flush()
        workers.append(process)
    for process in workers:
        assert process.stdout is not None and json.loads(process.stdout.readline())["ready"]
    started = time.perf_counter()
    for process in workers:
        assert process.stdin is not None
        process.stdin.write(json.dumps({"seconds": seconds}) + "\n")
        process.stdin.flush()
    rows: list[list[Any]] = []
    for process in workers:
        assert process.stdout is not None
        rows += json.loads(process.stdout.readline())["rows"]
        process.wait(60)
    window = time.perf_counter() - started
    latencies = [row[0] for row in rows]
    return {
        "calls": len(rows),
        "wrong": sum(1 for row in rows if not row[1]),
        "calls_per_s": len(rows) / window,
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p95_ms": percentile(latencies, 0.95) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
    }


# -- the servers ---------------------------------------------------------------------------------------
def environ_for(folder: Path, store: str) -> dict[str, str]:
    clients = folder / "clients.json"
    if not clients.exists():
        clients.write_text(
            json.dumps({"clients": {f"c{n:02d}": {"token": token_of(n)} for n in range(CLIENTS)}})
        )
        clients.chmod(0o600)
        key = folder / "state.key"
        key.write_text(secrets.token_hex(32))
        key.chmod(0o600)
    return {
        **os.environ,
        "MCP_NOTEBOOK_STORE": store,
        "MCP_NOTEBOOK_CLIENTS_FILE": str(clients),
        "MCP_NOTEBOOK_STATE_KEY_FILE": str(folder / "state.key"),
        "MCP_NOTEBOOK_ALLOW_TOOLS": "open_cart",
        "MCP_NOTEBOOK_AUDIT_LOG": "",
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    cores = os.cpu_count() or 1
    default_workers = [w for w in (1, 2, 4, 8, 16, 32, 64) if w <= cores] or [1]
    parser.add_argument("--workers", default=",".join(map(str, default_workers)))
    parser.add_argument("--stores", default="sqlite,redis")
    parser.add_argument("--inflight", default="1,10,50")
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--seconds", type=float, default=4.0, help="measured seconds per cell")
    parser.add_argument("--warmup", type=int, default=3, help="untimed calls per client per cell")
    parser.add_argument("--client-processes", type=int, default=max(1, cores // 4))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--client-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client_worker:
        client_worker()
        return
    if args.quick:
        args.workers, args.inflight, args.seconds = "1,2", "1,10", 2.0
    workers = [int(w) for w in args.workers.split(",")]
    stores = args.stores.split(",")
    inflight = [int(n) for n in args.inflight.split(",")]
    tools = [tool for tool in args.tools.split(",") if tool in TOOLS]

    import importlib.util

    from tests.services import RedisServer, Replica

    baselines = {"MCPServer": SDK_APP}
    if importlib.util.find_spec("fastmcp") is not None:
        baselines["FastMCP"] = FASTMCP_APP
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "cpus": cores,
        "client_processes": args.client_processes,
        "seconds": args.seconds,
        "load_before": " ".join(Path("/proc/loadavg").read_text().split()[:3]),
        "cells": [],
    }
    redis = RedisServer() if "redis" in stores else None
    try:
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch)
            (folder / "app.py").write_text(APP)
            for name, source in baselines.items():
                (folder / f"{name.lower()}_app.py").write_text(source)
            for store in stores:
                for count in workers:
                    # Each worker count starts from an empty store, so that rows compare: a store
                    # filled by the cells before (thousands of carts) costs more per call.
                    url = (
                        redis.url.rsplit("/", 1)[0] + f"/{workers.index(count) % 16}"
                        if store == "redis" and redis is not None
                        else f"sqlite:///{folder / f'matrix-{count}.sqlite3'}"
                    )
                    replica = Replica(folder, environ_for(folder, url), workers=count)
                    try:
                        for tool in tools:
                            for n in inflight:
                                cell = load(
                                    replica.url, tool, n, args.client_processes, args.seconds, args.warmup
                                )
                                cell |= {"server": "mcp-notebook", "store": store, "workers": count}
                                cell |= {"tool": tool, "inflight": n}
                                report["cells"].append(cell)
                                show_cell(cell)
                    finally:
                        replica.stop()
            if "read" in tools:
                for name in baselines:
                    for count in workers:
                        replica = Replica(
                            folder,
                            dict(os.environ),
                            workers=count,
                            module=f"{name.lower()}_app:app",
                            ready="Application startup complete",
                        )
                        try:
                            for n in inflight:
                                cell = load(
                                    replica.url, "read", n, args.client_processes, args.seconds, args.warmup
                                )
                                cell |= {
                                    "server": name,
                                    "store": "-",
                                    "workers": count,
                                    "tool": "read",
                                    "inflight": n,
                                }
                                report["cells"].append(cell)
                                show_cell(cell)
                        finally:
                            replica.stop()
    finally:
        if redis is not None:
            redis.stop()
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2))
    summary(report)
    print(f"wrote {RESULTS.relative_to(ROOT)}")


def show_cell(cell: dict[str, Any]) -> None:
    print(
        f"{cell['server']:<13} {cell['store']:<6} workers {cell['workers']:>2}  {cell['tool']:<5} "
        f"in flight {cell['inflight']:>3}: {cell['calls_per_s']:>8.0f} calls/s  p50 {cell['p50_ms']:>7.1f}  "
        f"p95 {cell['p95_ms']:>7.1f}  p99 {cell['p99_ms']:>7.1f} ms  wrong {cell['wrong']}",
        flush=True,
    )


def summary(report: dict[str, Any]) -> None:
    """Per server, store, tool and load: calls/s by workers, and the ratio to one worker."""
    print(
        f"\n{report['cpus']} CPUs, {report['client_processes']} client processes, {report['seconds']} s per cell"
    )
    groups: dict[tuple[str, str, str, int], dict[int, dict[str, Any]]] = {}
    for cell in report["cells"]:
        groups.setdefault((cell["server"], cell["store"], cell["tool"], cell["inflight"]), {})[
            cell["workers"]
        ] = cell
    for (server, store, tool, inflight), by_workers in groups.items():
        one = by_workers.get(1)
        parts = []
        for count, cell in sorted(by_workers.items()):
            ratio = (
                f" ({cell['calls_per_s'] / one['calls_per_s']:.2f}x)" if one and one["calls_per_s"] else ""
            )
            parts.append(f"{count}w {cell['calls_per_s']:.0f}/s p99 {cell['p99_ms']:.0f} ms{ratio}")
        print(f"{server:<13} {store:<6} {tool:<5} in flight {inflight:>3}: " + "; ".join(parts))
    print(
        f"median wrong answers per cell: {statistics.median(c['wrong'] for c in report['cells']) if report['cells'] else 0}"
    )


if __name__ == "__main__":
    main()
