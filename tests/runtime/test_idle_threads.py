"""After a burst of calls, a long-running server gives back the threads the burst made it start.

A notebook's server lives as long as the kernel: a burst of concurrent calls grows its pool of worker
threads, and each thread holds a stack and, in a kernel, an output pipe of its own. Measured where a
user (or `ps`) would notice: the threads that ran the burst's calls end once the burst is over, and
the server still answers afterwards.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import anyio
import pytest

from mcp_notebook import Catalogue, tool
from tests.conftest import connect, serve_unattended, until

pytestmark = pytest.mark.anyio

BURST = 6


async def test_worker_threads_of_a_burst_end_once_it_is_over(catalogue: Catalogue) -> None:
    together = [threading.Barrier(BURST)]  # every call waits for the others: one thread per call
    used: set[threading.Thread] = set()

    @tool(catalogue=catalogue, read_only=True)
    def meet(n: int) -> int:
        """Wait until the whole burst has arrived, then return `n`."""
        used.add(threading.current_thread())
        together[0].wait(timeout=30)
        return n

    srv = serve_unattended(catalogue)
    srv.tool_server.runner.workers.idle_timeout = 0.2  # the shipped 10 s, shortened for the test
    try:
        async with connect(srv, "legacy") as legacy, connect(srv, "2026-07-28") as modern:
            answers: dict[int, Any] = {}

            async def call(client: Any, n: int) -> None:
                answers[n] = await client.call_tool("meet", {"n": n})

            with anyio.fail_after(60):
                async with anyio.create_task_group() as group:
                    for n in range(BURST):
                        group.start_soon(call, (legacy, modern)[n % 2], n)
            assert {n: answers[n].structured_content for n in answers} == {
                n: {"result": n} for n in range(BURST)
            }
            assert len(used) == BURST
            # Was: every one of them waited for work for as long as the kernel lived.
            assert until(lambda: not any(thread.is_alive() for thread in used), timeout=30), [
                thread for thread in used if thread.is_alive()
            ]
            together[0] = threading.Barrier(1)  # the pool starts a thread again for a call after it
            again = await modern.call_tool("meet", {"n": 7})
            assert again.structured_content == {"result": 7}
    finally:
        srv.stop()


async def test_the_last_worker_to_end_gives_the_bursts_freed_memory_back_once() -> None:
    """Once the pool has no thread left, the server is idle: the heap a burst grew goes back to the
    system (glibc's malloc_trim), once per burst, not on every thread that ends."""
    import sys

    from mcp_notebook.runtime._execution import WorkerPool
    from mcp_notebook.runtime._memory import release_free_memory

    released: list[bool] = []
    idle = threading.Event()

    def on_idle() -> None:
        released.append(release_free_memory())
        idle.set()

    pool = WorkerPool(idle_timeout=0.2, on_idle=on_idle)
    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            for _ in range(3):  # a burst of three slow calls (as many threads as the pool starts for them)
                group.start_soon(pool.run, lambda: time.sleep(0.3))
    assert await anyio.to_thread.run_sync(idle.wait, 30)
    assert until(lambda: pool._threads == 0, timeout=10)
    assert released == [sys.platform.startswith("linux")]  # once; glibc's Linux can, elsewhere a no-op
    idle.clear()
    assert await pool.run(lambda: 42) == 42  # the pool starts again, and empties again
    assert await anyio.to_thread.run_sync(idle.wait, 30)
    assert len(released) == 2


async def test_calls_that_arrive_together_while_one_worker_is_idle_each_get_a_thread() -> None:
    """Two calls queued in the same turn of the loop, with one worker idle: one takes the idle worker,
    the other starts a thread. Was: the idle worker still counted as idle until it woke, so the
    second call started no thread and waited in the queue behind the first for as long as it ran."""
    from mcp_notebook.runtime._execution import WorkerPool

    pool = WorkerPool(idle_timeout=30)
    hold, held = threading.Event(), threading.Event()

    def holding() -> None:
        held.set()
        hold.wait(30)

    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(pool.run, holding)  # a call in flight: the next are not alone
            assert await anyio.to_thread.run_sync(held.wait, 10)
            assert await pool.run(lambda: 1) == 1  # a second worker, idle once this returns
            assert until(lambda: pool._idle == 1, timeout=10)
            meet = threading.Barrier(2, timeout=10)  # each call waits for the other: two threads or none
            first, second = await asyncio.gather(pool.run(lambda: meet.wait()), pool.run(lambda: meet.wait()))
            assert {first, second} == {0, 1}
            hold.set()
    pool.close()
