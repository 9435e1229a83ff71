"""Scaling benchmark: concurrency, catalogue size and activity-log memory, beside the MCP SDK's servers.

Run from the project root with the project's venv::

    python bench/bench_scale.py [--quick] [--only concurrency,catalogue,memory]

Three parts, servers on threads of this process and the measuring clients in a separate process
(``bench_scale.py --client-worker``, the same worker protocol as ``bench_core.py``), both
protocol eras (SDK ``Client(mode="legacy")`` and ``Client(mode="2026-07-28")``):

concurrency
    1, 4 and 16 connected clients calling ``add(2, 3)`` at once (T calls per measurement, split
    evenly over the clients, after W warm-up calls per client) against (a) ``mcp_notebook.serve()``,
    (b) the SDK's ``MCPServer`` and (c) the SDK's low-level ``Server`` (bench_core's rows).
    Throughput (calls/s over the measurement's window), p50/p95 latency, the server process's
    CPU time per call, and how busy the client process was (near 100%: the client, not the
    server, limits throughput, and ratios shrink toward 1). Servers take turns, round by round.
catalogue
    10, 100 and 1000 tools ``add_0 ... add_<k-1>`` (each ``(a: int, b: int) -> int``) in (a)
    and (b): the time to fetch every ``tools/list`` page (the client's cache refreshed, so every
    page goes over the wire) and of one ``tools/call`` of the last tool.
memory
    (a) with ``serve(history=10000)``: the activity log (``srv.calls`` / ``srv.activity``) after
    10,000 ``tools/call`` against after 0, measured twice: the process RSS (no tracing), and
    Python allocations with ``tracemalloc`` (what clearing the log frees, i.e. what the log
    retains), in bytes per entry; then the same for ``tools/list`` entries (a 100-tool page each).

Prints side-by-side tables with ratios and writes ``bench/results/scale.json``. Exits 0 whatever
it finds: a benchmark reports, it does not gate.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "scale.json"

if str(ROOT) not in sys.path:  # run as a script from anywhere: import the checkout, not an install
    sys.path.insert(0, str(ROOT))

from bench.bench_core import (  # noqa: E402
    ARGS,
    ClientWorker,
    ThreadedUvicorn,
    _silence_root_logger,
    _versions,
    client_worker_main,
    connect,
    make_lowlevel_app,
    make_mcpserver_app,
)
from bench.bench_load import load_average_note  # noqa: E402
from bench.kernel_load import percentile  # noqa: E402

ERAS = {"handshake": "legacy", "2026-07-28": "2026-07-28"}
LEVELS = (1, 4, 16)
SIZES = (10, 100, 1000)
NAMES = {"a": "(a) mcp_notebook", "b": "(b) SDK MCPServer", "c": "(c) SDK low-level"}


class ScaleWorker(ClientWorker):
    script = Path(__file__).resolve()


# ------------------------------------------------------------------------------------------------
# Client jobs (run in the worker process)
# ------------------------------------------------------------------------------------------------
async def _call(client: Any, tool: str) -> None:
    result = await client.call_tool(tool, ARGS)
    if result.is_error or result.content[0].text != "5":
        raise RuntimeError(f"{tool}(2, 3) answered {result.content}")


async def measure_concurrent(job: dict[str, Any]) -> dict[str, Any]:
    """`clients` connected clients, W warm-up calls each, then all call at once, `calls` each."""
    tool = job.get("tool", "add")
    async with contextlib.AsyncExitStack() as stack:
        clients = []
        for _ in range(job["clients"]):
            client = await stack.enter_async_context(connect(job["url"], job["headers"], job["mode"]))
            if tool not in {t.name for t in (await client.list_tools()).tools}:
                raise RuntimeError(f"tool {tool!r} is not listed by {job['url']}")
            for _ in range(job["warmup"]):
                await _call(client, tool)
            clients.append(client)
        samples: list[int] = []
        clock = time.perf_counter_ns

        async def drive(client: Any) -> None:
            for _ in range(job["calls"]):
                start = clock()
                await _call(client, tool)
                samples.append(clock() - start)

        server = os.getppid()  # the servers are threads of the process that started this worker
        cpu, server_cpu, began = time.process_time(), process_cpu(server), clock()
        async with anyio.create_task_group() as group:
            for client in clients:
                group.start_soon(drive, client)
        window_ns = clock() - began
        cpu, server_cpu = time.process_time() - cpu, process_cpu(server) - server_cpu
    return {"samples_ns": samples, "window_ns": window_ns, "client_cpu_s": cpu, "server_cpu_s": server_cpu}


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far, all threads (clock-tick resolution)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure_catalogue(job: dict[str, Any]) -> dict[str, Any]:
    """Fetch every tools/list page `lists` times, then call the last tool `calls` times."""
    clock = time.perf_counter_ns
    async with connect(job["url"], job["headers"], job["mode"]) as client:
        list_ns: list[int] = []
        names: list[str] = []
        pages = 0
        for _ in range(job["lists"]):
            start, cursor, pages, names = clock(), None, 0, []
            while True:
                page = await client.list_tools(cursor=cursor, cache_mode="refresh")
                pages += 1
                names += [t.name for t in page.tools]
                cursor = page.next_cursor
                if cursor is None:
                    break
            list_ns.append(clock() - start)
        tool = job["tool"]
        if tool not in names:
            raise RuntimeError(f"{tool!r} is not among the {len(names)} tools listed")
        for _ in range(job["warmup"]):
            await _call(client, tool)
        call_ns = []
        for _ in range(job["calls"]):
            start = clock()
            await _call(client, tool)
            call_ns.append(clock() - start)
    return {"list_ns": list_ns, "pages": pages, "tools": len(names), "call_ns": call_ns}


async def run_scale_job(job: dict[str, Any]) -> dict[str, Any]:
    with anyio.fail_after(float(job.get("timeout", 300))):
        if job["kind"] == "concurrent":
            return await measure_concurrent(job)
        if job["kind"] == "catalogue":
            return await measure_catalogue(job)
        raise ValueError(f"unknown job kind {job['kind']!r}")


# ------------------------------------------------------------------------------------------------
# The servers
# ------------------------------------------------------------------------------------------------
def serve_catalogue(cat: Any, **options: Any) -> Any:
    from mcp_notebook import serve

    with warnings.catch_warnings():
        # approval="auto" warns that calls run without asking a person: that is the point here.
        warnings.simplefilter("ignore", UserWarning)
        return serve(catalogue=cat, approval="auto", **options)


def add_catalogue(size: int | None) -> Any:
    """(a)'s catalogue: `add`, or `add_0 ... add_<size-1>`."""
    from mcp_notebook import Catalogue, tool

    cat = Catalogue()
    for name, fn in _adders(size):
        tool(catalogue=cat, name=name, lint=False)(fn)
    return cat


def add_mcpserver(size: int) -> Any:
    """(b) with the same `add_0 ... add_<size-1>`."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench-mcpserver")
    _silence_root_logger()  # MCPServer() calls logging.basicConfig
    for name, fn in _adders(size):
        server.add_tool(fn, name=name)
    return server.streamable_http_app()


def _adders(size: int | None) -> list[tuple[str, Any]]:
    found = []
    for index in range(size or 1):

        def add(a: int, b: int) -> int:
            return a + b

        name = "add" if size is None else f"add_{index}"
        add.__name__ = name
        add.__doc__ = "Add two integers." if size is None else f"Add two integers (variant {index})."
        found.append((name, add))
    return found


# ------------------------------------------------------------------------------------------------
# Part 1: concurrency
# ------------------------------------------------------------------------------------------------
def run_concurrency(worker: ScaleWorker, total: int, warmup: int, rounds: int) -> dict[str, Any]:
    srv = serve_catalogue(add_catalogue(None))
    servers = []
    try:
        servers.append(mcpserver := ThreadedUvicorn(make_mcpserver_app(), "mcpserver").start())
        servers.append(lowlevel := ThreadedUvicorn(make_lowlevel_app(), "lowlevel").start())
        targets = {
            "a": (srv.url, {"Authorization": f"Bearer {srv.token}"}),
            "b": (mcpserver.url, {}),
            "c": (lowlevel.url, {}),
        }
        pooled: dict[str, dict[str, Any]] = {}
        for era, mode in ERAS.items():
            for level in LEVELS:
                calls = max(1, total // level // rounds)
                for index in range(rounds):
                    order = list(targets)
                    order = order[index % 3 :] + order[: index % 3]
                    for key in order:
                        url, headers = targets[key]
                        job = {"kind": "concurrent", "url": url, "headers": headers, "mode": mode}
                        job |= {
                            "clients": level,
                            "calls": calls,
                            "warmup": warmup,
                            "n": level * (calls + warmup),
                        }
                        data = worker.run(job)
                        slot = pooled.setdefault(f"{key}/{era}/{level}", {"samples_ns": [], "rounds": []})
                        slot["samples_ns"] += data["samples_ns"]
                        slot["rounds"].append(
                            {
                                "calls": len(data["samples_ns"]),
                                "window_s": data["window_ns"] / 1e9,
                                "server_cpu_s": data["server_cpu_s"],
                                "client_cpu_s": data["client_cpu_s"],
                            }
                        )
                print(f"  concurrency: {era}, {level} client(s)", flush=True)
    finally:
        srv.stop()
        for server in servers:
            server.stop()
    rows = {}
    for label, slot in pooled.items():
        ms = sorted(s / 1e6 for s in slot["samples_ns"])
        per_round = slot["rounds"]
        calls = sum(r["calls"] for r in per_round)
        window_s = sum(r["window_s"] for r in per_round)
        rows[label] = {
            "n": len(ms),
            # The median round, not the pooled mean: a burst of other work on the machine hits one round.
            "calls_per_s": statistics.median(r["calls"] / r["window_s"] for r in per_round),
            "round_calls_per_s": [r["calls"] / r["window_s"] for r in per_round],
            "p50_ms": percentile(ms, 50),
            "p95_ms": percentile(ms, 95),
            "server_cpu_ms_per_call": sum(r["server_cpu_s"] for r in per_round) * 1e3 / calls,
            "server_busy": sum(r["server_cpu_s"] for r in per_round) / window_s,
            "client_busy": sum(r["client_cpu_s"] for r in per_round) / window_s,
        }
    return {"total_calls": total, "warmup": warmup, "rounds": rounds, "rows": rows}


def print_concurrency(part: dict[str, Any]) -> None:
    rows = part["rows"]
    print()
    print(
        f"concurrency: tools/call add(2, 3), {part['total_calls']} timed calls per server, era and level,"
        f" split over the clients, in {part['rounds']} interleaved rounds (W={part['warmup']} warm-up calls"
        " per client first); calls/s: the median round; CPU and busy: the timed windows only"
    )
    header = (
        f"  {'era':<12}{'clients':>7}  {'server':<20}{'calls/s':>9}{'p50 ms':>9}{'p95 ms':>9}"
        f"{'srv CPU ms/call':>17}{'srv busy':>10}{'client busy':>13}"
    )
    print(header)
    print("  " + "-" * (len(header) - 2))
    for era in ERAS:
        for level in LEVELS:
            for key, name in NAMES.items():
                row = rows.get(f"{key}/{era}/{level}")
                if row is None:
                    continue
                print(
                    f"  {era:<12}{level:>7}  {name:<20}{row['calls_per_s']:>9.0f}{row['p50_ms']:>9.2f}"
                    f"{row['p95_ms']:>9.2f}{row['server_cpu_ms_per_call']:>17.3f}{row['server_busy']:>10.0%}"
                    f"{row['client_busy']:>13.0%}"
                )
    print(
        "  (busy: CPU time over wall time of the timed window; a process near 100% limits throughput;"
        " both well below it: other work on the machine took the CPU)"
    )
    print()
    print(
        "  ratios (a)/(x): throughput (above 1: (a) serves more); p50, p95 and server CPU per call"
        " (below 1: (a) is faster or cheaper)"
    )
    metrics = (
        ("thr", "calls_per_s"),
        ("p50", "p50_ms"),
        ("p95", "p95_ms"),
        ("CPU", "server_cpu_ms_per_call"),
    )
    header = f"  {'era':<12}{'clients':>7}   " + "   ".join(
        f"{name + ' a/b':>8}{name + ' a/c':>8}" for name, _ in metrics
    )
    print(header)
    print("  " + "-" * (len(header) - 2))
    for era in ERAS:
        for level in LEVELS:
            a = rows.get(f"a/{era}/{level}")
            if a is None:
                continue
            cells = []
            for _, metric in metrics:
                pair = []
                for other in ("b", "c"):
                    o = rows.get(f"{other}/{era}/{level}")
                    pair.append(f"{a[metric] / o[metric]:>8.2f}" if o and o[metric] else f"{'-':>8}")
                cells.append("".join(pair))
            print(f"  {era:<12}{level:>7}   " + "   ".join(cells))


# ------------------------------------------------------------------------------------------------
# Part 2: catalogue size
# ------------------------------------------------------------------------------------------------
def run_catalogue(worker: ScaleWorker, lists: int, calls: int, warmup: int, rounds: int) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for size in SIZES:
        srv = serve_catalogue(add_catalogue(size))
        mcpserver = None
        try:
            mcpserver = ThreadedUvicorn(add_mcpserver(size), "mcpserver").start()
            targets = {
                "a": (srv.url, {"Authorization": f"Bearer {srv.token}"}),
                "b": (mcpserver.url, {}),
            }
            for era, mode in ERAS.items():
                pooled: dict[str, dict[str, Any]] = {key: {"list_ns": [], "call_ns": []} for key in targets}
                for index in range(rounds):  # (a) and (b) take turns, who goes first alternating
                    for key in list(targets)[index % 2 :] + list(targets)[: index % 2]:
                        url, headers = targets[key]
                        job = {"kind": "catalogue", "url": url, "headers": headers, "mode": mode}
                        job |= {"lists": max(1, lists // rounds), "calls": max(1, calls // rounds)}
                        job |= {"warmup": warmup, "tool": f"add_{size - 1}"}
                        job["n"] = calls + warmup + lists * size // 10  # the worker's timeout only
                        data = worker.run(job)
                        pooled[key]["list_ns"] += data["list_ns"]
                        pooled[key]["call_ns"] += data["call_ns"]
                        pooled[key] |= {"tools": data["tools"], "pages": data["pages"]}
                for key, slot in pooled.items():
                    list_ms = sorted(s / 1e6 for s in slot["list_ns"])
                    call_ms = sorted(s / 1e6 for s in slot["call_ns"])
                    rows[f"{key}/{era}/{size}"] = {
                        "tools": slot["tools"],
                        "pages": slot["pages"],
                        "list_all_p50_ms": percentile(list_ms, 50),
                        "list_all_p95_ms": percentile(list_ms, 95),
                        "call_p50_ms": percentile(call_ms, 50),
                        "call_p95_ms": percentile(call_ms, 95),
                    }
        finally:
            srv.stop()
            if mcpserver is not None:
                mcpserver.stop()
        print(f"  catalogue: {size} tools", flush=True)
    return {"lists": lists, "calls": calls, "warmup": warmup, "rounds": rounds, "rows": rows}


def print_catalogue(part: dict[str, Any]) -> None:
    rows = part["rows"]
    print()
    print(
        f"catalogue size: every tools/list page ({part['lists']} times, client cache refreshed) and"
        f" tools/call of the last tool ({part['calls']} times), (a) and (b) taking turns in {part['rounds']} rounds"
    )
    header = (
        f"  {'era':<12}{'tools':>6}  {'server':<20}{'pages':>6}{'list p50':>10}{'list p95':>10}"
        f"{'call p50':>10}{'call p95':>10}   {'list a/b':>8}{'call a/b':>9}"
    )
    print(header + "   (ms)")
    print("  " + "-" * (len(header) - 2))
    for era in ERAS:
        for size in SIZES:
            a = rows.get(f"a/{era}/{size}")
            for key in ("a", "b"):
                row = rows.get(f"{key}/{era}/{size}")
                if row is None:
                    continue
                ratio = ""
                if key == "b" and a is not None:
                    ratio = (
                        f"   {a['list_all_p50_ms'] / row['list_all_p50_ms']:>8.2f}"
                        f"{a['call_p50_ms'] / row['call_p50_ms']:>9.2f}"
                    )
                print(
                    f"  {era:<12}{size:>6}  {NAMES[key]:<20}{row['pages']:>6}{row['list_all_p50_ms']:>10.2f}"
                    f"{row['list_all_p95_ms']:>10.2f}{row['call_p50_ms']:>10.2f}{row['call_p95_ms']:>10.2f}{ratio}"
                )


# ------------------------------------------------------------------------------------------------
# Part 3: memory of the activity log
# ------------------------------------------------------------------------------------------------
def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def run_memory(worker: ScaleWorker, history: int, calls: int) -> dict[str, Any]:
    srv = serve_catalogue(add_catalogue(None), history=history)
    tools = srv.tool_server
    headers = {"Authorization": f"Bearer {srv.token}"}

    def load(count: int) -> None:
        """`count` tools/call, half per era, 2 clients each."""
        for mode in ERAS.values():
            per_client = count // 2 // 2
            job = {"kind": "concurrent", "url": srv.url, "headers": headers, "mode": mode}
            job |= {"clients": 2, "calls": per_client, "warmup": 0, "n": 2 * per_client}
            worker.run(job)

    def empty_log() -> None:
        tools.calls.clear()
        tools.activity.clear()
        gc.collect()

    try:
        load(400)  # warm every code path and cache first: what stays after this is not the log's
        empty_log()
        rss_before = _rss()
        load(calls)
        gc.collect()
        rss_after = _rss()
        entries = len(tools.activity)
        kept_calls = len(tools.calls)
        empty_log()
        rss_emptied = _rss()

        tracemalloc.start()
        traced_before = tracemalloc.get_traced_memory()[0]
        start = tracemalloc.take_snapshot()
        load(calls)
        gc.collect()
        traced_after = tracemalloc.get_traced_memory()[0]
        full = tracemalloc.take_snapshot()
        empty_log()
        traced_emptied = tracemalloc.get_traced_memory()[0]
        emptied = tracemalloc.take_snapshot()
        tracemalloc.stop()
        freed = _by_file(full.compare_to(emptied, "filename"))
        left = _by_file(emptied.compare_to(start, "filename"))
    finally:
        srv.stop()
    retained = traced_after - traced_emptied
    return {
        "history": history,
        "calls": calls,
        "entries": entries,
        "calls_kept": kept_calls,
        "rss_before_mib": rss_before / 2**20,
        "rss_after_mib": rss_after / 2**20,
        "rss_after_emptying_mib": rss_emptied / 2**20,
        "rss_growth_bytes_per_entry": (rss_after - rss_before) / max(1, entries),
        "traced_growth_bytes": traced_after - traced_before,
        "traced_retained_by_log_bytes": retained,
        "traced_bytes_per_entry": retained / max(1, entries),
        "traced_left_after_emptying_bytes": traced_emptied - traced_before,
        "retained_by_file": freed,
        "left_by_file": left,
    }


def _by_file(stats: list[Any], count: int = 6) -> list[dict[str, Any]]:
    return [
        {
            "file": _short(stat.traceback[0].filename),
            "bytes": abs(stat.size_diff),
            "blocks": abs(stat.count_diff),
        }
        for stat in stats[:count]
    ]


def run_list_memory(worker: ScaleWorker, history: int, lists: int, size: int = 100) -> dict[str, Any]:
    """What one `tools/list` entry of the activity log costs: the log keeps each response page."""
    srv = serve_catalogue(add_catalogue(size), history=history)
    tools = srv.tool_server
    headers = {"Authorization": f"Bearer {srv.token}"}

    def load(count: int) -> None:
        for mode in ERAS.values():
            job = {"kind": "catalogue", "url": srv.url, "headers": headers, "mode": mode}
            job |= {"lists": count // 2, "calls": 0, "warmup": 0, "tool": f"add_{size - 1}", "n": count}
            worker.run(job)

    try:
        load(20)
        tools.calls.clear()
        tools.activity.clear()
        gc.collect()
        tracemalloc.start()
        load(lists)
        gc.collect()
        traced_after = tracemalloc.get_traced_memory()[0]
        entries = len(tools.activity)
        tools.activity.clear()
        gc.collect()
        traced_emptied = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    finally:
        srv.stop()
    per_entry = (traced_after - traced_emptied) / max(1, entries)
    return {
        "tools": size,
        "page_size": 100,
        "lists": lists,
        "entries": entries,
        "traced_bytes_per_entry": per_entry,
    }


def _short(filename: str) -> str:
    parts = Path(filename).parts
    for anchor in ("site-packages", "mcp_notebook", "lib"):
        if anchor in parts:
            return "/".join(parts[parts.index(anchor) + (1 if anchor != "mcp_notebook" else 0) :])
    return Path(filename).name


def print_memory(part: dict[str, Any]) -> None:
    print()
    print(
        f"activity-log memory: serve(history={part['history']}), {part['calls']} tools/call"
        f" ({part['entries']} entries in srv.activity, {part['calls_kept']} in srv.calls: the same records)"
    )
    print(
        f"  RSS          {part['rss_before_mib']:.1f} MiB after 0 -> {part['rss_after_mib']:.1f} MiB after"
        f" {part['calls']} ({part['rss_growth_bytes_per_entry']:.0f} B/entry;"
        f" {part['rss_after_emptying_mib']:.1f} MiB after emptying the log: freed memory stays with the allocator)"
    )
    print(
        f"  tracemalloc  +{part['traced_growth_bytes'] / 2**20:.2f} MiB over the calls, of which the log retains"
        f" {part['traced_retained_by_log_bytes'] / 2**20:.2f} MiB = {part['traced_bytes_per_entry']:.0f} B/entry;"
        f" {part['traced_left_after_emptying_bytes'] / 1024:.0f} KiB stays after emptying it"
    )
    per_entry = part["traced_bytes_per_entry"]
    print(
        f"  at the default history=500: about {500 * per_entry / 2**20:.1f} MiB;"
        f" at history=10000: about {10000 * per_entry / 2**20:.1f} MiB"
    )
    print("  what emptying the log freed, by allocating file:")
    for item in part["retained_by_file"]:
        print(f"    {item['bytes'] / 1024:>9.0f} KiB  {item['blocks']:>8} blocks  {item['file']}")
    print("  what stayed allocated after emptying the log, by allocating file:")
    for item in part["left_by_file"]:
        print(f"    {item['bytes'] / 1024:>9.0f} KiB  {item['blocks']:>8} blocks  {item['file']}")
    lists = part.get("list_entries")
    if lists:
        per_entry = lists["traced_bytes_per_entry"]
        print(
            f"  a tools/list entry (a page of {lists['page_size']} tools; {lists['entries']} entries measured):"
            f" {per_entry / 1024:.1f} KiB/entry (the log keeps the whole response), so about"
            f" {500 * per_entry / 2**20:.1f} MiB at history=500 and {10000 * per_entry / 2**20:.0f} MiB at"
            " history=10000 if a client keeps re-listing"
        )


# ------------------------------------------------------------------------------------------------
# Main
# ------------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls: about a minute in all")
    parser.add_argument(
        "--only", default="concurrency,catalogue,memory", help="comma-separated parts to run (default: all)"
    )
    parser.add_argument("--output", type=Path, default=RESULTS, help="JSON results file")
    parser.add_argument(
        "--client-worker", action="store_true", help="internal: be the measuring client process"
    )
    opts = parser.parse_args(argv)
    if opts.client_worker:
        return client_worker_main(run_scale_job)
    parts = {part.strip() for part in opts.only.split(",") if part.strip()}
    began, load_before = time.perf_counter(), os.getloadavg()[0]
    # Audit logs of the benchmark's servers go to a scratch folder, not the user's cache.
    scratch = tempfile.TemporaryDirectory(prefix="bench-scale-")
    os.environ["MCP_NOTEBOOK_CACHE_DIR"] = scratch.name
    print(
        "bench_scale: servers in this process, the clients in a separate process;"
        f" parts: {', '.join(sorted(parts))}{' (quick)' if opts.quick else ''}",
        flush=True,
    )
    report: dict[str, Any] = {
        "benchmark": "bench_scale",
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "versions": _versions(),
    }
    worker = ScaleWorker()
    try:
        if "memory" in parts:  # first: the process has served nothing else yet
            report["memory"] = run_memory(worker, history=10_000, calls=2_000 if opts.quick else 10_000)
            report["memory"]["list_entries"] = run_list_memory(
                worker, 10_000, lists=200 if opts.quick else 1_000
            )
            print_memory(report["memory"])
        if "concurrency" in parts:
            if opts.quick:
                report["concurrency"] = run_concurrency(worker, total=192, warmup=3, rounds=2)
            else:
                report["concurrency"] = run_concurrency(worker, total=960, warmup=5, rounds=4)
            print_concurrency(report["concurrency"])
        if "catalogue" in parts:
            if opts.quick:
                report["catalogue"] = run_catalogue(worker, lists=6, calls=40, warmup=3, rounds=2)
            else:
                report["catalogue"] = run_catalogue(worker, lists=20, calls=200, warmup=10, rounds=4)
            print_catalogue(report["catalogue"])
    finally:
        worker.close()
        scratch.cleanup()
    report["elapsed_s"] = time.perf_counter() - began
    report["loadavg_1min"] = {"start": load_before, "end": os.getloadavg()[0]}
    opts.output.parent.mkdir(parents=True, exist_ok=True)
    opts.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    shown = opts.output.relative_to(ROOT) if opts.output.is_relative_to(ROOT) else opts.output
    print(f"\nwrote {shown} ({report['elapsed_s']:.0f} s; {load_average_note(report)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
