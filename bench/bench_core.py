"""Core latency benchmark: mcp_notebook against the MCP SDK's own servers and a bare HTTP floor.

Run from the project root with the project's venv::

    python bench/bench_core.py [--calls N] [--warmup W] [--quick] [--no-kernel]

For both protocol eras (handshake era: SDK ``Client(mode="legacy")``; stateless 2026-07-28 era:
``Client(mode="2026-07-28")``) it measures ``tools/call`` latency of the same ``add(a, b)`` tool,
served over Streamable HTTP on 127.0.0.1, by

  (a) mcp_notebook's background server (``serve()``; the product, in its own thread),
  (b) the SDK's high-level ``MCPServer``,
  (c) the SDK's low-level ``Server`` with nothing extra (typed result, no validation),
  (d) a bare Starlette JSON endpoint (the floor; plain httpx POSTs, no MCP client, so the
      same number stands for both eras),

and, for information only (no target), (a') the same ``serve()`` (same Catalogue, same URL and
token) calling ``add_async``, the same tool written ``async def``: (a) hands a sync tool to a
worker thread, an async tool runs on the server loop, so (a) - (a') is the cost of that hop; and
(c') the low-level ``Server`` of (c) with ``json_response=True``. In the handshake era (b) and (c)
answer every POST with an SSE stream (the SDK's default) while (a) answers a call that sends
nothing before its result with one JSON body, so (c') shows what that choice alone is worth.

(b)-(d) and (c') run in uvicorn on a thread of their own, all in this process. The measuring client runs
in a separate process (this script with ``--client-worker``, started once before anything is
timed), as a real MCP client would: in-process, its own Python work would compete for the GIL
with the server threads. Every measurement uses one connected client driven by the same loop in
that process (``anyio.run``): W warm-up calls, then N timed sequential calls
(``time.perf_counter_ns``). Then, each in fresh subprocesses (median of 5): ``import
mcp_notebook``, ``%load_ext mcp_notebook`` in a real IPython shell, and serve-to-ready (cold and
warm); optionally the magics in a real kernel via jupyter_client.

Client worker protocol (``--client-worker``): it prints ``{"ready": true, ...}`` once its imports
are done, then reads one JSON job per line on stdin and answers each with one JSON line on
stdout, until stdin closes. A job is ``{"kind": "mcp", "url", "headers", "mode", "n", "warmup"}``,
``{"kind": "plain-http", "url", "n", "warmup"}`` (the floor) or ``{"kind": "probe", "url",
"headers"}`` (what ``mode="auto"`` negotiates, and the shape of an ``add`` result); ``mcp`` and
``probe`` jobs take an optional ``"tool"``, the name of the tool to call (default ``"add"``,
``"add_async"`` for (a')), which must answer 5 to ``{"a": 2, "b": 3}``; the answer is
``{"ok": true, "samples_ns": [...], "protocol_version": ...}`` (or the probe's fields), or
``{"ok": false, "error": "..."}``.

Prints a table and writes ``bench/results/core.json``. Exits 0 even when a target is missed:
a benchmark reports, it does not gate.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import math
import os
import platform
import socket
import statistics
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "core.json"
MODERN = "2026-07-28"
ERAS = {"handshake": "legacy", "2026-07-28": MODERN}
SUBPROCESS_RUNS = 5

TARGETS = {
    "a/c": 1.10,  # (a) within 10% of the bare low-level SDK server
    "a/b": 1.0,  # (a) faster than the high-level MCPServer
    "load_ext_ms": 150.0,
    "serve_cold_ms": 2000.0,
}

if str(ROOT) not in sys.path:  # run as a script from anywhere: import the checkout, not an install
    sys.path.insert(0, str(ROOT))


# ------------------------------------------------------------------------------------------------
# Servers started here: uvicorn on a daemon thread with its own asyncio loop
# ------------------------------------------------------------------------------------------------
class ThreadedUvicorn:
    """Serve an ASGI app from a daemon thread; `start()` returns once uvicorn is listening."""

    def __init__(self, app: Any, name: str) -> None:
        import uvicorn

        self.name = name
        # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say so (else ~40 ms/response).
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        ready = self._ready = threading.Event()

        class _Server(uvicorn.Server):
            async def startup(self, sockets: list[socket.socket] | None = None) -> None:
                try:
                    await super().startup(sockets=sockets)
                finally:
                    ready.set()

        config = uvicorn.Config(
            app, log_level="warning", access_log=False, lifespan="on", ws="none", timeout_graceful_shutdown=1
        )
        self.server = _Server(config)
        self.thread = threading.Thread(target=self._run, name=f"bench-{name}", daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self.server.serve(sockets=[self.sock]))
        finally:
            self._ready.set()  # never leave start() waiting if serve() failed early

    def start(self) -> ThreadedUvicorn:
        self.thread.start()
        if not self._ready.wait(30) or not self.server.started:
            raise RuntimeError(f"{self.name}: uvicorn did not start")
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


def _silence_root_logger() -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.addHandler(logging.NullHandler())


def make_mcpserver_app() -> Any:
    """(b) the SDK's high-level MCPServer with the same add tool."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench-mcpserver")
    _silence_root_logger()  # MCPServer() calls logging.basicConfig

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return server.streamable_http_app()


def make_lowlevel_app(json_response: bool = False) -> Any:
    """(c) the SDK's low-level Server: one typed Tool, a typed CallToolResult, nothing else.

    The tool and its result have the same wire shape as (a)'s and (b)'s `add(a: int, b: int) -> int`
    (an outputSchema, structuredContent {"result": 5} and its JSON as text), so the three rows compare
    servers, not result sizes or the client's output-schema check; (c) just skips every check.
    """
    import mcp_types as types
    from mcp.server.lowlevel.server import Server

    add_tool = types.Tool(
        name="add",
        description="Add two integers.",
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
        output_schema={
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"],
        },
    )

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[add_tool])

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = params.arguments or {}
        total = args["a"] + args["b"]
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(total))], structured_content={"result": total}
        )

    server: Server[Any] = Server("bench-lowlevel", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    return server.streamable_http_app(json_response=json_response)


def make_floor_app() -> Any:
    """(d) a bare Starlette JSON endpoint answering any POST /mcp like a tools/call result."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def endpoint(request: Request) -> JSONResponse:
        message = json.loads(await request.body())
        args = (message.get("params") or {}).get("arguments") or {}
        text = str(args.get("a", 2) + args.get("b", 3))
        result = {"content": [{"type": "text", "text": text}], "isError": False}
        return JSONResponse({"jsonrpc": "2.0", "id": message.get("id"), "result": result})

    return Starlette(routes=[Route("/mcp", endpoint, methods=["POST"])])


# ------------------------------------------------------------------------------------------------
# The client loop (same for every server), run in the client worker process
# ------------------------------------------------------------------------------------------------
ARGS = {"a": 2, "b": 3}


async def _timed(n: int, warmup: int, call: Callable[[], Awaitable[str]], tool: str = "add") -> list[int]:
    for _ in range(warmup):
        text = await call()
        if text != "5":
            raise RuntimeError(f"{tool}(2, 3) answered {text!r}")
    samples = []
    clock = time.perf_counter_ns
    for _ in range(n):
        start = clock()
        await call()
        samples.append(clock() - start)
    return samples


@contextlib.asynccontextmanager
async def connect(url: str, headers: dict[str, str], mode: str) -> AsyncIterator[Any]:
    """An SDK `Client` over Streamable HTTP, sending `headers` with every request."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        yield client


async def measure_mcp(
    url: str, headers: dict[str, str], mode: str, n: int, warmup: int, tool: str = "add"
) -> dict[str, Any]:
    """One connected SDK client: list tools once, W warm-up calls, N timed calls of `tool`."""
    async with connect(url, headers, mode) as client:
        # A 2026-era call of a tool the client never listed may be bounced (HEADER_MISMATCH).
        listed = await client.list_tools()
        if tool not in {t.name for t in listed.tools}:
            raise RuntimeError(f"tool {tool!r} is not listed by {url}")

        async def call() -> str:
            result = await client.call_tool(tool, ARGS)
            if result.is_error:
                raise RuntimeError(f"{tool} failed: {result.content}")
            return str(result.content[0].text)

        samples = await _timed(n, warmup, call, tool)
        return {"samples_ns": samples, "protocol_version": client.protocol_version}


async def measure_floor(url: str, n: int, warmup: int) -> dict[str, Any]:
    import httpx2

    counter = iter(range(1, 1 << 30))
    accept = {"Accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient() as http:

        async def call() -> str:
            params = {"name": "add", "arguments": ARGS}
            body = {"jsonrpc": "2.0", "id": next(counter), "method": "tools/call", "params": params}
            response = await http.post(url, json=body, headers=accept)
            response.raise_for_status()
            return str(response.json()["result"]["content"][0]["text"])

        samples = await _timed(n, warmup, call)
        return {"samples_ns": samples, "protocol_version": None}


async def probe_auto(url: str, headers: dict[str, str], tool: str = "add") -> dict[str, Any]:
    """What `mode="auto"` (the SDK client's default) negotiates, and what one `tool` call returns."""
    async with connect(url, headers, "auto") as client:
        listed = await client.list_tools()
        schemas = {t.name: t.output_schema for t in listed.tools}
        result = await client.call_tool(tool, ARGS)
        return {
            "protocol_version": str(client.protocol_version),
            "output_schema": schemas.get(tool),
            "structured_content": result.structured_content,
            "content_types": [block.type for block in result.content],
        }


async def run_job(job: dict[str, Any]) -> dict[str, Any]:
    """One job of the client worker, bounded by the job's own timeout."""
    with anyio.fail_after(float(job.get("timeout", 120))):
        kind = job["kind"]
        tool = job.get("tool", "add")
        if kind == "mcp":
            return await measure_mcp(job["url"], job["headers"], job["mode"], job["n"], job["warmup"], tool)
        if kind == "plain-http":
            return await measure_floor(job["url"], job["n"], job["warmup"])
        if kind == "probe":
            return await probe_auto(job["url"], job["headers"], tool)
        raise ValueError(f"unknown job kind {kind!r}")


def client_worker_main(run: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None) -> int:
    """`--client-worker`: run JSON jobs from stdin (with `run`, default `run_job`), answering on stdout."""
    # Only this process's protocol lines go to the real stdout; anything else printed lands on stderr.
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr

    def answer(message: dict[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    # Pay for the imports here, before the parent starts any measurement.
    import httpx2  # noqa: F401
    import mcp.client.streamable_http
    import mcp.shared._httpx_utils  # noqa: F401

    answer({"ready": True, "pid": os.getpid()})
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            data = anyio.run(run or run_job, json.loads(line))
            answer({"ok": True, **data})
        except BaseException as exc:  # report every failure to the parent; a bad job ends no run
            if isinstance(exc, KeyboardInterrupt):
                raise
            answer({"ok": False, "error": f"{type(exc).__name__}: {exc}"})
    return 0


class ClientWorker:
    """The parent's handle on one long-lived `--client-worker` subprocess.

    `run(job)` sends one job and blocks (releasing the GIL) until its answer arrives, so while
    the client measures, this process does nothing but serve. A worker that dies or hangs is
    killed and replaced for the next job.
    """

    script = Path(__file__).resolve()  # started as `script --client-worker`

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.stderr: Any = None

    def _start(self) -> subprocess.Popen[str]:
        import tempfile

        # Kept open for the worker's lifetime (closed in close()); read back only to explain a failure.
        self.stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, str(self.script), "--client-worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            text=True, encoding="utf-8", bufsize=1, cwd=str(ROOT),
        )  # fmt: skip
        self.proc = proc
        hello = self._read(60)
        if not hello.get("ready"):
            raise RuntimeError(f"client worker did not start: {hello}")
        return proc

    def _stderr_tail(self) -> str:
        if self.stderr is None:
            return ""
        self.stderr.flush()
        self.stderr.seek(0)
        tail = self.stderr.read()[-1500:].strip()
        return f"; worker stderr: {tail}" if tail else ""

    def _read(self, timeout: float) -> dict[str, Any]:
        proc = self.proc
        assert proc is not None and proc.stdout is not None
        watchdog = threading.Timer(timeout, proc.kill)  # sleeps on a lock: no GIL traffic while waiting
        watchdog.daemon = True
        watchdog.start()
        try:
            line = proc.stdout.readline()
        finally:
            watchdog.cancel()
        if not line:
            self._discard()
            tail = self._stderr_tail()
            raise RuntimeError(f"client worker died or hung (no answer within {timeout:.0f} s){tail}")
        message: dict[str, Any] = json.loads(line)
        return message

    def _discard(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            proc.kill()
            proc.wait(10)

    def run(self, job: dict[str, Any]) -> dict[str, Any]:
        """Send one job; return its data or raise RuntimeError with the worker's error."""
        proc = self.proc if self.proc is not None and self.proc.poll() is None else self._start()
        assert proc.stdin is not None
        timeout = 60 + 0.1 * (job.get("n", 0) + job.get("warmup", 0))  # generous; ~1-3 ms per call
        job = {**job, "timeout": timeout}
        try:
            proc.stdin.write(json.dumps(job) + "\n")
            proc.stdin.flush()
        except OSError as exc:
            self._discard()
            raise RuntimeError(f"client worker is gone: {exc}{self._stderr_tail()}") from exc
        message = self._read(timeout + 30)
        if not message.pop("ok", False):
            raise RuntimeError(str(message.get("error", message)))
        return message

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            with contextlib.suppress(OSError):
                if proc.stdin is not None:
                    proc.stdin.close()  # EOF: the worker's loop ends
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
            if proc.stdout is not None:
                proc.stdout.close()
        if self.stderr is not None:
            self.stderr.close()
            self.stderr = None


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def measure_latency(
    client: ClientWorker,
    targets: dict[str, tuple[str, dict[str, str], str]],
    floor_url: str,
    n: int,
    warmup: int,
    rounds: int,
) -> dict[str, dict[str, Any]]:
    """N timed calls per (server, era), pooled over `rounds` interleaved measurements.

    Each measurement is one job of the client worker process: it connects a fresh client, warms
    it up with W calls, then times its share of N. Servers take turns within a round (rotating
    who goes first), so slow drift of the machine and connection-to-connection luck spread evenly
    over all servers instead of favouring one. The floor (d) takes turns in both eras' rounds;
    its shares add up to N once, in total.
    """
    latency: dict[str, dict[str, Any]] = {}
    floor_shares = iter(_split(n, 2 * rounds) if n >= 2 * rounds else [n] + [0] * (2 * rounds - 1))
    for era, mode in ERAS.items():
        for index, share in enumerate(_split(n, rounds)):
            order = [*targets, "d"]
            order = order[index % len(order) :] + order[: index % len(order)]
            for key in order:
                label = "d/any" if key == "d" else f"{key}/{era}"
                empty: dict[str, Any] = {"samples_ns": [], "round_medians_ms": [], "protocol_version": None}
                slot = latency.setdefault(label, empty)
                if "error" in slot:
                    continue
                try:
                    job: dict[str, Any]
                    if key == "d":
                        count = next(floor_shares)
                        if count == 0:
                            continue
                        job = {"kind": "plain-http", "url": floor_url, "n": count, "warmup": warmup}
                    else:
                        url, headers, tool = targets[key]
                        job = {"kind": "mcp", "url": url, "headers": headers, "mode": mode, "tool": tool}
                        job |= {"n": share, "warmup": warmup}
                    data = client.run(job)
                except Exception as exc:
                    latency[label] = {"error": f"{type(exc).__name__}: {exc}"}
                    continue
                slot["samples_ns"].extend(data["samples_ns"])
                slot["round_medians_ms"].append(statistics.median(data["samples_ns"]) / 1e6)
                slot["protocol_version"] = data["protocol_version"]
        print(f"  measured era {era}", flush=True)
    return latency


def summarize(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)
    rank = max(1, math.ceil(0.95 * len(ordered)))
    return {
        "n": len(ordered),
        "median_ms": statistics.median(ordered) / 1e6,
        "p95_ms": ordered[rank - 1] / 1e6,
        "mean_ms": statistics.fmean(ordered) / 1e6,
        "min_ms": ordered[0] / 1e6,
    }


# ------------------------------------------------------------------------------------------------
# Fresh-process measurements
# ------------------------------------------------------------------------------------------------
_PRELUDE = f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"

IMPORT_SNIPPET = """
import json, sys, time
t0 = time.perf_counter()
import mcp_notebook
t1 = time.perf_counter()
print(json.dumps({"ms": (t1 - t0) * 1e3, "mcp_imported": "mcp" in sys.modules}))
"""

LOAD_EXT_SNIPPET = """
import json, sys, time
from IPython.core.interactiveshell import InteractiveShell
sh = InteractiveShell.instance()
t0 = time.perf_counter()
sh.run_line_magic("load_ext", "mcp_notebook")
t1 = time.perf_counter()
print(json.dumps({"ms": (t1 - t0) * 1e3, "mcp_imported": "mcp" in sys.modules,
                  "uvicorn_imported": "uvicorn" in sys.modules}))
"""

SERVE_SNIPPET = """
import json, sys, time
import anyio
import mcp_notebook
from mcp_notebook import Catalogue, tool
assert "mcp" not in sys.modules, "importing mcp_notebook imported mcp"
cat = Catalogue()

@tool(catalogue=cat)
def add(a: int, b: int) -> int:
    "Add two integers."
    return a + b

async def first_list(url, token):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="auto") as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == ["add"], listed
            return client.protocol_version

def serve_to_ready():
    t0 = time.perf_counter()
    srv = mcp_notebook.serve(catalogue=cat)
    t1 = time.perf_counter()
    version = anyio.run(first_list, srv.url, srv.token)
    t2 = time.perf_counter()
    srv.stop()
    return {"serve_ms": (t1 - t0) * 1e3, "ready_ms": (t2 - t0) * 1e3, "protocol_version": version}

cold = serve_to_ready()
warm = serve_to_ready()
print(json.dumps({"cold": cold, "warm": warm}))
"""


def run_snippet(snippet: str, timeout: float = 60) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", _PRELUDE + textwrap.dedent(snippet)],
        capture_output=True, text=True, timeout=timeout, cwd=str(ROOT),
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"subprocess failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def median_of(values: list[float]) -> float:
    return statistics.median(values)


def measure_fresh_processes(runs: int) -> dict[str, Any]:
    run_snippet(IMPORT_SNIPPET)  # one untimed run so bytecode caches exist (a real user's second start)
    imports = [run_snippet(IMPORT_SNIPPET) for _ in range(runs)]
    load_ext = [run_snippet(LOAD_EXT_SNIPPET) for _ in range(runs)]
    serves = [run_snippet(SERVE_SNIPPET) for _ in range(runs)]
    return {
        "runs": runs,
        "import_ms": median_of([r["ms"] for r in imports]),
        "import_all_ms": [r["ms"] for r in imports],
        "import_pulls_mcp": any(r["mcp_imported"] for r in imports),
        "load_ext_ms": median_of([r["ms"] for r in load_ext]),
        "load_ext_all_ms": [r["ms"] for r in load_ext],
        "load_ext_pulls_mcp": any(r["mcp_imported"] for r in load_ext),
        "load_ext_pulls_uvicorn": any(r["uvicorn_imported"] for r in load_ext),
        "serve_cold_return_ms": median_of([r["cold"]["serve_ms"] for r in serves]),
        "serve_cold_ready_ms": median_of([r["cold"]["ready_ms"] for r in serves]),
        "serve_cold_ready_all_ms": [r["cold"]["ready_ms"] for r in serves],
        "serve_warm_return_ms": median_of([r["warm"]["serve_ms"] for r in serves]),
        "serve_warm_ready_ms": median_of([r["warm"]["ready_ms"] for r in serves]),
        "serve_ready_protocol_version": serves[0]["cold"]["protocol_version"],
    }


def measure_kernel() -> dict[str, Any]:
    """%load_ext, %mcp_serve and %mcp_call in a real ipykernel (wall time seen by the frontend)."""
    from jupyter_client.manager import start_new_kernel

    t0 = time.perf_counter()
    # The kernel's own stderr (e.g. its "running over TCP" warning) is not part of the report.
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(ROOT), stderr=subprocess.DEVNULL)
    started_ms = (time.perf_counter() - t0) * 1e3
    timings: dict[str, Any] = {"kernel_start_ms": started_ms}
    outputs: list[str] = []

    def hook(msg: dict[str, Any]) -> None:
        content = msg.get("content", {})
        if msg["header"]["msg_type"] in ("execute_result", "display_data"):
            outputs.append(content.get("data", {}).get("text/plain", ""))
        elif msg["header"]["msg_type"] == "stream":
            outputs.append(content.get("text", ""))
        elif msg["header"]["msg_type"] == "error":
            outputs.append(f"{content.get('ename')}: {content.get('evalue')}")

    def run(label: str, code: str) -> None:
        outputs.clear()
        start = time.perf_counter()
        reply = kc.execute_interactive(code, timeout=60, output_hook=hook)
        timings[label] = (time.perf_counter() - start) * 1e3
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"{code!r} failed in the kernel: {outputs}")

    try:
        run("noop_ms", "pass")  # the frontend round trip alone, for reference
        run("load_ext_ms", "%load_ext mcp_notebook")
        run(
            "define_tool_ms",
            "from mcp_notebook import tool\n"
            "@tool\ndef add(a: int, b: int) -> int:\n    'Add two integers.'\n    return a + b",
        )
        run("mcp_serve_ms", "srv = %mcp_serve")
        run("mcp_call_first_ms", "r = %mcp_call add a=2 b=3\nprint(r)")
        timings["mcp_call_first_output"] = "".join(outputs).strip()[:200]
        run("mcp_call_second_ms", "r = %mcp_call add a=2 b=3")
        calls = []
        for _ in range(10):
            run("_call", "r = %mcp_call add a=2 b=3")
            calls.append(timings.pop("_call"))
        timings["mcp_call_median_ms"] = statistics.median(calls)
        run("mcp_stop_ms", "%mcp_stop")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return timings


# ------------------------------------------------------------------------------------------------
# Main
# ------------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=None, help="timed calls per measurement (default 300)")
    parser.add_argument("--warmup", type=int, default=None, help="warm-up calls per measurement (default 30)")
    parser.add_argument("--quick", action="store_true", help="N=50, W=5 (and 3 subprocess runs)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="split the N calls into this many interleaved measurements, each with its own client",
    )
    parser.add_argument("--no-kernel", action="store_true", help="skip the real-kernel magics measurement")
    parser.add_argument("--output", type=Path, default=RESULTS, help="JSON results file")
    parser.add_argument(
        "--client-worker",
        action="store_true",
        help="internal: be the measuring client process (JSON jobs on stdin, JSON answers on stdout)",
    )
    opts = parser.parse_args(argv)
    if opts.client_worker:
        return client_worker_main()
    n = opts.calls if opts.calls is not None else (50 if opts.quick else 300)
    warmup = opts.warmup if opts.warmup is not None else (5 if opts.quick else 30)
    runs = 3 if opts.quick else SUBPROCESS_RUNS
    rounds = max(1, min(opts.rounds, n))
    began = time.perf_counter()

    from mcp_notebook import Catalogue, serve, tool

    cat = Catalogue()

    @tool(catalogue=cat)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @tool(catalogue=cat)
    async def add_async(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    print(
        f"bench_core: N={n} timed calls per server and era, in {rounds} interleaved rounds"
        f" (each: a fresh client, W={warmup} warm-up calls); servers in this process,"
        " the client in a separate process",
        flush=True,
    )
    with warnings.catch_warnings():
        # approval="auto" warns that calls run without asking a person: that is the point here.
        warnings.simplefilter("ignore", UserWarning)
        srv = serve(catalogue=cat, approval="auto")
    servers: list[ThreadedUvicorn] = []
    latency: dict[str, dict[str, Any]] = {}
    auto: dict[str, str | None] = {}
    shapes: dict[str, Any] = {}
    client = ClientWorker()
    try:
        mcpserver = ThreadedUvicorn(make_mcpserver_app(), "mcpserver").start()
        servers.append(mcpserver)
        lowlevel = ThreadedUvicorn(make_lowlevel_app(), "lowlevel").start()
        servers.append(lowlevel)
        lowlevel_json = ThreadedUvicorn(make_lowlevel_app(json_response=True), "lowlevel-json").start()
        servers.append(lowlevel_json)
        floor = ThreadedUvicorn(make_floor_app(), "floor").start()
        servers.append(floor)

        bearer = {"Authorization": f"Bearer {srv.token}"}
        targets = {
            "a": (srv.url, bearer, "add"),
            "a'": (srv.url, bearer, "add_async"),  # info only: same server, the async twin of add
            "b": (mcpserver.url, {}, "add"),
            "c": (lowlevel.url, {}, "add"),
            "c'": (lowlevel_json.url, {}, "add"),  # info only: the same server, every answer one JSON body
        }
        for key, (url, headers, tool_name) in targets.items():
            try:
                probe = client.run({"kind": "probe", "url": url, "headers": headers, "tool": tool_name})
            except Exception as exc:
                auto[key] = f"failed: {type(exc).__name__}: {exc}"
                continue
            auto[key] = probe.pop("protocol_version")
            shapes[key] = probe
        latency = measure_latency(client, targets, floor.url, n, warmup, rounds)
    finally:
        client.close()
        srv.stop()
        for server in servers:
            server.stop()

    print("  fresh-process measurements ...", flush=True)
    try:
        fresh = measure_fresh_processes(runs)
    except Exception as exc:  # report it; a benchmark run still ends normally
        fresh = {"error": f"{type(exc).__name__}: {exc}"}
    kernel: dict[str, Any] | None = None
    if not opts.no_kernel:
        print("  real-kernel magics ...", flush=True)
        try:
            kernel = measure_kernel()
        except Exception as exc:
            kernel = {"error": f"{type(exc).__name__}: {exc}"}

    report = build_report(n, warmup, rounds, latency, auto, shapes, fresh, kernel)
    report["elapsed_s"] = time.perf_counter() - began
    print_report(report)
    opts.output.parent.mkdir(parents=True, exist_ok=True)
    opts.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {_display_path(opts.output)} ({report['elapsed_s']:.0f} s)")
    return 0


def _display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


NAMES = {
    "a": "(a) mcp_notebook serve()",
    "a'": "(a') mcp_notebook, async tool",
    "b": "(b) SDK MCPServer",
    "c": "(c) SDK low-level Server",
    "c'": "(c') low-level, json_response",
    "d": "(d) bare Starlette floor",
}


def build_report(
    n: int,
    warmup: int,
    rounds: int,
    latency: dict[str, dict[str, Any]],
    auto: dict[str, str | None],
    shapes: dict[str, Any],
    fresh: dict[str, Any],
    kernel: dict[str, Any] | None,
) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for label, data in latency.items():
        if "error" in data:
            rows[label] = {"error": data["error"]}
        else:
            rows[label] = {
                **summarize(data["samples_ns"]),
                "round_medians_ms": data["round_medians_ms"],
                "protocol_version": data["protocol_version"],
            }

    def median(key: str, era: str) -> float | None:
        row = rows.get("d/any" if key == "d" else f"{key}/{era}", {})
        value = row.get("median_ms")
        return None if value is None else float(value)

    ratios: dict[str, Any] = {}
    for era in ERAS:
        a = median("a", era)
        for other, target in (("c", TARGETS["a/c"]), ("b", TARGETS["a/b"]), ("d", None)):
            o = median(other, era)
            if a is None or o is None:
                continue
            value = a / o
            ok = None if target is None else (value <= target if other == "c" else value < target)
            ratios[f"a/{other} {era}"] = {"value": value, "target": target, "ok": ok}
        a_async = median("a'", era)
        for other in ("b", "c"):  # info only: no target, no OK/MISS
            o = median(other, era)
            if a_async is not None and o is not None:
                ratios[f"a'/{other} {era}"] = {"value": a_async / o, "target": None, "ok": None}
        c_json = median("c'", era)
        if a is not None and c_json is not None:
            ratios[f"a/c' {era}"] = {"value": a / c_json, "target": None, "ok": None}
    checks = (
        {}
        if "error" in fresh
        else {
            "load_ext_ms": {
                "value": fresh["load_ext_ms"],
                "target": TARGETS["load_ext_ms"],
                "ok": fresh["load_ext_ms"] < TARGETS["load_ext_ms"],
            },
            "serve_cold_ready_ms": {
                "value": fresh["serve_cold_ready_ms"],
                "target": TARGETS["serve_cold_ms"],
                "ok": fresh["serve_cold_ready_ms"] < TARGETS["serve_cold_ms"],
            },
        }
    )
    return {
        "benchmark": "bench_core",
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "versions": _versions(),
        "calls": n,
        "warmup": warmup,
        "rounds": rounds,
        "client": "own process (bench_core.py --client-worker); servers: threads of the benchmark process",
        "latency": rows,
        "auto_mode_negotiates": auto,
        "add_result_shape": shapes,
        "ratios": ratios,
        "startup": fresh,
        "startup_checks": checks,
        "kernel": kernel,
    }


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for dist in ("mcp", "uvicorn", "starlette", "httpx2", "anyio", "ipykernel", "mcp-notebook"):
        try:
            found[dist] = version(dist)
        except PackageNotFoundError:
            found[dist] = "?"
    return found


def _mark(ok: bool | None) -> str:
    return "" if ok is None else ("OK" if ok else "MISS")


def print_report(report: dict[str, Any]) -> None:
    rows = report["latency"]
    print()
    print(
        f"tools/call latency in ms: N={report['calls']} calls per row over {report['rounds']} rounds"
        f" (fresh client + W={report['warmup']} warm-up calls each)"
    )
    width = max(map(len, NAMES.values())) + 2
    header = f"{'server':<{width}}{'era':<12}{'median':>9}{'p95':>9}{'min':>9}  {'round medians':<18}"
    header += "negotiated"
    print(header)
    print("-" * len(header))
    for era in ERAS:
        for key in NAMES:
            label = "d/any" if key == "d" else f"{key}/{era}"
            row = rows.get(label, {"error": "not measured"})
            if "error" in row:
                print(f"{NAMES[key]:<{width}}{era:<12}  ERROR {row['error'][:80]}")
                continue
            negotiated = row["protocol_version"] or "plain HTTP: one number for both eras"
            medians = row["round_medians_ms"]
            spread = f"{min(medians):.2f}-{max(medians):.2f} ({len(medians)})"
            print(
                f"{NAMES[key]:<{width}}{era:<12}{row['median_ms']:>9.3f}{row['p95_ms']:>9.3f}"
                f"{row['min_ms']:>9.3f}  {spread:<18}{negotiated}"
            )
    print()
    negotiated = ", ".join(f"({k}) {v}" for k, v in report["auto_mode_negotiates"].items())
    print(f"mode='auto' negotiates: {negotiated}")
    _print_result_shapes(report.get("add_result_shape", {}))
    print()
    print("ratios of medians")
    for name, ratio in report["ratios"].items():
        target = ratio["target"]
        if target is None:
            goal = "(floor, info)" if name.startswith("a/d") else "(info)"
        elif name.startswith("a/c"):
            goal = f"target <= {target:.2f}"
        else:
            goal = f"target <  {target:.2f}"
        print(f"  {name:<22}{ratio['value']:>7.2f}   {goal:<16}{_mark(ratio['ok'])}")
    print(
        "  (a') is informational: (a) hands a sync tool to a worker thread (as (b) does, through"
        " anyio.to_thread), so the server loop (and other clients, and %mcp_call) never wait on it; an"
        " async tool runs on the loop; the (a) - (a') difference is the cost of that hop."
    )
    print(
        "  (c') is informational: the low-level Server with json_response=True answers every request"
        " with one JSON body, as (a) answers a call that sends nothing before its result (handshake"
        " era; (a) keeps an SSE stream for Context tools and calls that wait for approval). (b) and (c)"
        " answer every handshake-era request with an SSE stream, the SDK's default; in 2026-07-28 the"
        " SDK itself answers with JSON unless the handler sends something first."
    )
    print()
    if "error" in report["startup"]:
        print(f"fresh processes: ERROR {report['startup']['error'][:500]}")
    else:
        _print_startup(report["startup"], report["startup_checks"])
    _print_kernel(report.get("kernel"))


def _print_result_shapes(shapes: dict[str, Any]) -> None:
    print(
        "note: every add returns the same wire shape as a `-> int` tool: an outputSchema, structuredContent"
        " and its JSON as text (the SDK client validates it: included in the timings); (a) and (b) check"
        " arguments and output on the server, (c) checks nothing"
    )
    seen = []
    for key, shape in shapes.items():
        schema = "outputSchema" if shape.get("output_schema") else "no outputSchema"
        structured = shape.get("structured_content")
        blocks = "+".join(shape.get("content_types", [])) or "no content"
        part = "no structuredContent" if structured is None else f"structuredContent {json.dumps(structured)}"
        seen.append(f"({key}) {schema}, {part}, {blocks}")
    if seen:
        print(f"  as probed: {'; '.join(seen)}")


def _print_startup(s: dict[str, Any], checks: dict[str, Any]) -> None:
    print(f"fresh processes (median of {s['runs']})")
    print(f"  import mcp_notebook          {s['import_ms']:>8.1f} ms   imports mcp: {s['import_pulls_mcp']}")
    print(
        f"  %load_ext mcp_notebook       {s['load_ext_ms']:>8.1f} ms   target < "
        f"{checks['load_ext_ms']['target']:.0f} ms   {_mark(checks['load_ext_ms']['ok'])}"
        f"   imports mcp: {s['load_ext_pulls_mcp']}"
        f", uvicorn: {s['load_ext_pulls_uvicorn']}"
    )
    print(
        f"  serve -> first tools/list    {s['serve_cold_ready_ms']:>8.1f} ms   target < "
        f"{checks['serve_cold_ready_ms']['target']:.0f} ms  {_mark(checks['serve_cold_ready_ms']['ok'])}"
        f"   cold (serve() itself returns after {s['serve_cold_return_ms']:.1f} ms)"
    )
    print(
        f"  serve -> first tools/list    {s['serve_warm_ready_ms']:>8.1f} ms   warm: second serve after stop"
        f" (serve() returns after {s['serve_warm_return_ms']:.1f} ms)"
    )


def _print_kernel(kernel: dict[str, Any] | None) -> None:
    if kernel:
        print()
        if "error" in kernel:
            print(f"real kernel: ERROR {kernel['error'][:200]}")
        else:
            print("real kernel via jupyter_client (frontend wall time, one run)")
            for key in (
                "kernel_start_ms", "noop_ms", "load_ext_ms", "define_tool_ms", "mcp_serve_ms",
                "mcp_call_first_ms", "mcp_call_second_ms", "mcp_call_median_ms", "mcp_stop_ms",
            ):  # fmt: skip
                if key in kernel:
                    print(f"  {key:<22}{kernel[key]:>9.1f} ms")


if __name__ == "__main__":
    sys.exit(main())
