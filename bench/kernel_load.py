"""Load on an MCP server running in a real Jupyter kernel: the set-up cell, the clients, the checks.

Shared by ``bench/bench_load.py`` (throughput, latency, kernel responsiveness under load) and
``tests/service/test_load.py`` (no lost or duplicated answers; a cell completes while calls are in flight).

The kernel serves one read-only tool, ``echo(tag) -> str``, with ``srv = %mcp_serve`` exactly as a
learner would (default approval "ask": a read-only tool needs none, so nothing blocks), or with
``mcp_notebook.serve()`` (the same server, no panel). Every call carries a tag no other call
carries, and the answer must be that same tag: an answer delivered to the wrong request, lost, or
executed twice shows up in `check`. The tool also appends each tag it runs to a kernel list
(``LOAD_HITS``), so the kernel's side of the story is checked too.

Clients are SDK ``Client`` objects over Streamable HTTP, alternating the handshake era
(``mode="legacy"``) and the stateless era (``mode="2026-07-28"``), so both are always mixed.
"""

from __future__ import annotations

import contextlib
import math
import secrets
import statistics
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

MODES = ("legacy", "2026-07-28")
"""Client modes, alternated by client index: even clients speak the handshake era, odd the 2026 era."""

ERA_NAMES = {"legacy": "handshake", "2026-07-28": "2026-07-28"}

HITS = "LOAD_HITS"
SERVE_MAGIC = "srv = %mcp_serve"
"""How a learner serves: the magic, which also displays the server's panel (activity log)."""
SERVE_API = "import mcp_notebook\nsrv = mcp_notebook.serve()"
"""The same server and defaults without the panel (for comparison)."""

SETUP_CELL = f'''
%load_ext mcp_notebook
from mcp_notebook import tool

{HITS} = []

@tool(read_only=True)
def echo(tag: str) -> str:
    """Return `tag` unchanged. The load test sends each tag once and checks it comes back."""
    {HITS}.append(tag)  # list.append is atomic: tools run on worker threads
    return tag
'''
"""The tool, as a learner writes it (served by `SERVE_MAGIC` or `SERVE_API` in the next cell)."""

PROBE_CELL = "sum(range(100))"
"""The trivial cell whose completion time says whether the kernel is responsive."""


def mode_of(index: int) -> str:
    return MODES[index % len(MODES)]


def plan(clients: int, first: int = 0) -> list[tuple[int, str]]:
    """(client index, mode) for `clients` clients numbered from `first`, both eras mixed."""
    return [(index, mode_of(index)) for index in range(first, first + clients)]


# ------------------------------------------------------------------------------------------------
# Clients
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Answer:
    """One call: what was sent, what came back, and when (``time.monotonic_ns``, same clock
    in every process on one machine)."""

    client: int
    mode: str
    tag: str
    echoed: str | None
    error: str | None
    started_ns: int
    ended_ns: int

    @property
    def latency_ns(self) -> int:
        return self.ended_ns - self.started_ns

    def to_json(self) -> list[Any]:
        return [self.client, self.mode, self.tag, self.echoed, self.error, self.started_ns, self.ended_ns]

    @classmethod
    def from_json(cls, row: Sequence[Any]) -> Answer:
        return cls(*row)


@contextlib.asynccontextmanager
async def connect(url: str, token: str, mode: str) -> AsyncIterator[Any]:
    """A real SDK client over Streamable HTTP, with the server's token as a bearer header."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=300)) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        yield client


def _never() -> bool:
    return False


async def run_clients(
    url: str,
    token: str,
    clients: Sequence[tuple[int, str]],
    calls: int,
    answers: list[Answer],
    *,
    connected: Callable[[], Awaitable[None]] | None = None,
    keep_going: Callable[[], bool] = _never,
    on_answer: Callable[[Answer], None] | None = None,
    warmup: int = 0,
    warmup_answers: list[Answer] | None = None,
) -> None:
    """Connect one SDK client per (index, mode), then let all of them call ``echo`` at once.

    Each client makes `calls` calls, one after the other, and more while `keep_going()` is true.
    Every call's `Answer` is appended to `answers` (and passed to `on_answer`) as it completes.
    `connected` is awaited once every client is connected, has listed the tools and made its
    `warmup` calls (their answers go to `warmup_answers`): the load starts when it returns (a
    barrier, so connection set-up and first-call costs are not part of the load).
    """
    async with contextlib.AsyncExitStack() as stack:
        ready = []
        for index, mode in clients:
            client = await stack.enter_async_context(connect(url, token, mode))
            # A 2026-era call of a tool the client never listed may be refused (header check).
            listed = await client.list_tools()
            if "echo" not in {t.name for t in listed.tools}:
                raise RuntimeError(f"the server at {url} does not list the echo tool")
            ready.append((index, mode, client))
        if warmup:
            spent = warmup_answers if warmup_answers is not None else []
            for index, mode, client in ready:
                await drive(client, index, mode, warmup, spent, _never, None, prefix="w")
        if connected is not None:
            await connected()
        async with anyio.create_task_group() as group:
            for index, mode, client in ready:
                group.start_soon(drive, client, index, mode, calls, answers, keep_going, on_answer)


async def drive(
    client: Any,
    index: int,
    mode: str,
    calls: int,
    answers: list[Answer],
    keep_going: Callable[[], bool],
    on_answer: Callable[[Answer], None] | None,
    prefix: str = "c",
    stop: Callable[[], bool] = _never,
) -> None:
    """Call ``echo`` `calls` times, one call after the other, and more while `keep_going()`; `stop()`
    true ends it before the next call."""
    made = 0
    clock = time.monotonic_ns
    while (made < calls or keep_going()) and not stop():
        tag = f"{prefix}{index}-{made}-{secrets.token_hex(4)}"
        started = clock()
        echoed = error = None
        try:
            result = await client.call_tool("echo", {"tag": tag})
            if result.is_error:
                error = f"isError: {result.content[0].text if result.content else ''}"
            else:
                echoed = result.content[0].text
        except Exception as exc:  # a lost call is a finding, not a crash of the load
            error = f"{type(exc).__name__}: {exc}"
        answer = Answer(index, mode, tag, echoed, error, started, clock())
        answers.append(answer)
        if on_answer is not None:
            on_answer(answer)
        made += 1


# ------------------------------------------------------------------------------------------------
# Checks and figures
# ------------------------------------------------------------------------------------------------
@dataclass
class Check:
    """Every answer against its request, and the kernel's own list of executed tags."""

    calls: int = 0
    answered: int = 0  # echoed exactly the tag its request sent
    lost: list[str] = field(default_factory=list)  # errors: no answer, or an error answer
    mismatched: list[str] = field(default_factory=list)  # an answer that belongs to another request
    duplicated: list[str] = field(default_factory=list)  # one tag answered, or executed, twice
    not_executed: list[str] = field(default_factory=list)  # answered, but the kernel never ran it
    unexpected: list[str] = field(default_factory=list)  # ran in the kernel, but no client sent it

    @property
    def ok(self) -> bool:
        bad = (self.lost, self.mismatched, self.duplicated, self.not_executed, self.unexpected)
        return self.answered == self.calls and not any(bad)

    def summary(self) -> dict[str, Any]:
        def some(items: list[str]) -> dict[str, Any]:
            return {"count": len(items), "examples": items[:5]}

        return {
            "calls": self.calls,
            "answered": self.answered,
            "lost": some(self.lost),
            "mismatched": some(self.mismatched),
            "duplicated": some(self.duplicated),
            "not_executed": some(self.not_executed),
            "unexpected": some(self.unexpected),
            "ok": self.ok,
        }


def check(answers: Iterable[Answer], executed: Iterable[str] | None = None) -> Check:
    """Match every answer to its request; with `executed` (the kernel's tags), check that side too."""
    result = Check()
    sent: Counter[str] = Counter()
    echoed: Counter[str] = Counter()
    for answer in answers:
        result.calls += 1
        sent[answer.tag] += 1
        if answer.echoed is None:
            result.lost.append(f"{answer.tag}: {answer.error}")
            continue
        echoed[answer.echoed] += 1
        if answer.echoed == answer.tag:
            result.answered += 1
        else:
            result.mismatched.append(f"sent {answer.tag}, got {answer.echoed}")
    result.duplicated += [f"{tag} sent {n} times" for tag, n in sent.items() if n > 1]
    result.duplicated += [f"{tag} answered {n} times" for tag, n in echoed.items() if n > 1]
    if executed is not None:
        ran = Counter(executed)
        result.duplicated += [f"{tag} executed {n} times" for tag, n in ran.items() if n > 1]
        result.not_executed += [tag for tag in echoed if tag not in ran]
        result.unexpected += [tag for tag in ran if tag not in sent]
    return result


def percentile(ordered: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted sequence."""
    return ordered[max(1, math.ceil(q / 100 * len(ordered))) - 1]


def latency_figures(answers: Sequence[Answer]) -> dict[str, Any]:
    """Throughput (answered calls per second over the load's own window) and latency percentiles."""
    good = [a for a in answers if a.echoed is not None]
    if not good:
        return {"calls": len(answers), "answered": 0}
    window_ns = max(a.ended_ns for a in good) - min(a.started_ns for a in good)
    ms = sorted(a.latency_ns / 1e6 for a in good)
    return {
        "calls": len(answers),
        "answered": len(good),
        "window_s": window_ns / 1e9,
        "calls_per_s": len(good) / (window_ns / 1e9) if window_ns else math.inf,
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "p99_ms": percentile(ms, 99),
        "mean_ms": statistics.fmean(ms),
        "max_ms": ms[-1],
    }


def by_era(answers: Sequence[Answer]) -> dict[str, dict[str, Any]]:
    """`latency_figures` per protocol era, then ``"all"``."""
    figures = {
        ERA_NAMES[mode]: latency_figures([a for a in answers if a.mode == mode])
        for mode in MODES
        if any(a.mode == mode for a in answers)
    }
    figures["all"] = latency_figures(answers)
    return figures


# ------------------------------------------------------------------------------------------------
# The kernel side (`kernel` is a `tests.kernel.Kernel`: run / start / wait / json)
# ------------------------------------------------------------------------------------------------
def serve_in_kernel(kernel: Any, serve: str = SERVE_MAGIC) -> tuple[str, str]:
    """Run `SETUP_CELL`, then `serve`, in the kernel; return the server's URL and token."""
    kernel.run(SETUP_CELL, timeout=120).raise_for_error()
    kernel.run(serve, timeout=120).raise_for_error()
    info = kernel.json('{"url": srv.url, "token": srv.token}')
    return str(info["url"]), str(info["token"])


def executed_in_kernel(kernel: Any) -> list[str]:
    """The tags the kernel's echo tool ran, in the order it ran them."""
    return list(kernel.json(HITS))
