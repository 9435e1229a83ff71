"""Where tool functions run, and what happens to what they print.

Two places, chosen per server (``serve(run_in=...)``) and per tool (``@tool(run_in=...)``):

``"thread"`` (default)
    A worker thread. The kernel stays free: a cell can run, and ``%mcp_call`` can wait for a
    result, while a tool runs. The cost: a tool runs concurrently with the user's cells, so it
    sees kernel variables as they are at that moment.
``"kernel"``
    The kernel's main thread, between cells, like code typed into a cell. Calls are serialized
    with cells; while a cell is busy, a call waits (up to ``busy_timeout`` seconds, then the
    model gets an error saying the kernel was busy). A cell that is itself waiting for a tool
    result (``%mcp_call``) runs queued calls while it waits, so it can never deadlock.

Async tools are awaited on the server's loop ("thread") or on the kernel's loop ("kernel").

A call can be stopped from outside (a cancelled task: `Interruptible`). A ``"kernel"`` tool is
interrupted like a cell, with ``KeyboardInterrupt`` on the kernel's main thread, but only while that
very call runs there (`KernelPump.interrupt`): an interrupt that comes too late for the call is
swallowed, never raised into a cell. A ``"thread"`` tool cannot be stopped by force (stopping a
thread can leave locks and C state broken): it stops at its next `Context` call.
"""

from __future__ import annotations

import _thread
import asyncio
import concurrent.futures
import contextlib
import contextvars
import functools
import io
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

import anyio

from ..core._context import CallCancelled
from ..core._text import t
from ._memory import release_free_memory

_captured: contextvars.ContextVar[io.StringIO | None] = contextvars.ContextVar(
    "mcp_notebook_captured", default=None
)


STOPPED = object()
"""What `KernelPump.wait` returns when its `stop` condition ended the wait early."""


_cell_waiting = threading.local()


def cell_is_waiting() -> bool:
    """Whether this thread runs a tool for a cell that waits for it (``%mcp_call`` of a kernel tool)."""
    return bool(getattr(_cell_waiting, "active", False))


class KernelBusy(Exception):
    """The kernel's main thread did not pick up a call in time."""


class Interruptible:
    """How to stop one tool call from outside while it runs (a cancelled task). Thread-safe.

    The runner arms it with the way to stop the call where it runs (`arm`); `stop` stops it now,
    or as soon as it is armed. What was stopped raises where the call is awaited.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stop: Callable[[], Any] | None = None
        self.requested = False

    def arm(self, stop: Callable[[], Any] | None) -> None:
        with self._lock:
            self._stop = stop
            requested = self.requested
        if requested and stop is not None:
            stop()

    def stop(self) -> None:
        with self._lock:
            self.requested = True
            stop = self._stop
        if stop is not None:
            stop()


def _interrupt_main() -> None:
    """Send SIGINT to the main thread, as a kernel interrupt does.

    A real signal, not just `_thread.interrupt_main`: that only marks the signal pending, and a
    main thread blocked in a wait (a lock, ``Event.wait``, ``time.sleep``) would not see it until
    the wait ended; the signal ends the wait (EINTR) and Python raises ``KeyboardInterrupt`` there.
    """
    if hasattr(signal, "pthread_kill"):
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
    else:  # Windows: no signals to a thread; the interpreter still raises at its next bytecode
        _thread.interrupt_main(signal.SIGINT)


def _signals_checked() -> None:
    """A Python call: the interpreter handles a pending signal at the latest when it enters one."""


class KernelPump:
    """Runs callables on the kernel's main thread, from any other thread.

    Work is queued and the kernel's event loop is asked to run it between cells. A main-thread
    caller that blocks waiting for a result (the sync client behind ``%mcp_call``) drains the
    queue itself while it waits, which is what rules out a deadlock.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop | None) -> None:
        self.loop = loop
        self._items: queue.SimpleQueue[tuple[Callable[[], Any], concurrent.futures.Future[Any]]] = (
            queue.SimpleQueue()
        )
        self._wakeup = threading.Event()
        self._lock = threading.Lock()
        self._running: concurrent.futures.Future[Any] | None = None  # the call the main thread runs now
        self._interrupted: concurrent.futures.Future[Any] | None = None  # the call `interrupt` stopped

    def submit(self, fn: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._items.put((fn, future))
        self._wakeup.set()
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.drain)
        return future

    def interrupt(self, future: concurrent.futures.Future[Any]) -> bool:
        """Stop the call behind `future` with ``KeyboardInterrupt``, if the main thread runs it now.

        Checked and sent under the lock `drain` clears its mark with, so an interrupt is only ever
        sent while that very call runs; one that lands after the call returned is swallowed by
        `drain`. Returns whether it was sent (a call still queued is cancelled instead: `future.cancel()`).
        """
        with self._lock:
            if self._running is not future:
                return False
            self._interrupted = future
            _interrupt_main()
            return True

    def drain(self, *, in_cell: bool = False) -> None:
        """Run every queued callable now (call only on the kernel's main thread).

        A kernel interrupt that lands in a tool ends that call (the server reports it to the
        client); it is raised again only if a cell is waiting here (`in_cell`), never into the
        kernel's event loop, which it would stop. An interrupt sent by `interrupt` (a cancelled
        task) is the call's alone: never raised again, whatever waits here.
        """
        while True:
            try:
                fn, future = self._items.get_nowait()
            except queue.Empty:
                return
            if not future.set_running_or_notify_cancel():
                continue  # the caller gave up waiting (busy timeout): never run it late
            # Between cells ipykernel ignores SIGINT; while a tool runs here, the kernel's interrupt
            # button must stop it, as it would stop a cell.
            on_main = threading.current_thread() is threading.main_thread()
            previous = signal.signal(signal.SIGINT, signal.default_int_handler) if on_main else None
            _cell_waiting.active = in_cell
            ours = False
            try:
                try:
                    if on_main:
                        with self._lock:
                            self._running = future
                    value = fn()
                finally:
                    ours = self._unmark(future) if on_main else False
                future.set_result(value)
            except KeyboardInterrupt as exc:
                ours = ours or self._interrupted is future
                if not future.done():
                    future.set_exception(exc)
                if in_cell and not ours:
                    raise
            except BaseException as exc:  # handed to the waiting server task, which reports it
                future.set_exception(exc)
            finally:
                _cell_waiting.active = False
                if on_main:
                    signal.signal(signal.SIGINT, previous)

    def _unmark(self, future: concurrent.futures.Future[Any]) -> bool:
        """No interrupt for `future` from now on; whether one was sent (a late one is swallowed here).

        An interrupt sent just before the mark is cleared is pending, not yet raised: the call to
        `_signals_checked` makes the interpreter raise it here, where it belongs to this call.
        """
        sent = False
        while True:
            try:
                with self._lock:
                    self._running = None
                    sent = sent or self._interrupted is future
                _signals_checked()
                return sent
            except KeyboardInterrupt:
                if not (sent or self._interrupted is future):
                    raise  # the person's own interrupt, right at the end of the call: theirs to see
                sent = True

    def wake(self) -> None:
        """Wake a main-thread `wait` (to look at `stop` again)."""
        self._wakeup.set()

    def wait(
        self,
        future: concurrent.futures.Future[Any],
        timeout: float | None,
        stop: Callable[[], bool] = lambda: False,
    ) -> Any:
        """Block the main thread until `future` is done, running queued calls meanwhile.

        Returns `STOPPED` instead when `stop()` becomes true (checked whenever woken).
        """
        future.add_done_callback(lambda _: self._wakeup.set())
        deadline = None if timeout is None else _monotonic() + timeout
        while not future.done():
            self._wakeup.clear()
            self.drain(in_cell=True)
            if future.done():
                break
            if stop():
                return STOPPED
            remaining = None if deadline is None else deadline - _monotonic()
            if remaining is not None and remaining <= 0:
                raise TimeoutError
            self._wakeup.wait(remaining)
        return future.result()


def _monotonic() -> float:
    return time.monotonic()


class _Job:
    """One call handed to the pool: what to run, where its result goes, and whose call it is."""

    __slots__ = ("abandoned", "fn", "future", "key")

    def __init__(self, fn: Callable[[], Any], future: concurrent.futures.Future[Any], key: str) -> None:
        self.fn, self.future, self.key = fn, future, key
        self.abandoned = False  # its caller gave up (a timeout, a client that left) while it ran


class WorkerPool:
    """Daemon worker threads for sync tools, with a fast hand-back for quick calls.

    Daemon threads, so a tool that never returns cannot hold up kernel shutdown. When no other call
    is in flight, the server's loop waits up to `quick` seconds for the result on the spot: a typical
    notebook tool answers in microseconds, and waking the loop from another thread costs more than
    that. Under concurrency (or for slower tools) the call is awaited without blocking the loop.

    A thread cannot be stopped: a call its caller gave up on (``@tool(timeout=...)``, a client that
    left) runs on, *abandoned*. Its thread no longer counts towards `max_workers`, so the other tools
    keep their workers; the abandoned calls are counted per tool (`abandoned`), and the server
    refuses new calls of a tool once its count reaches `share`, so one hanging tool cannot pile up
    threads without end.

    A worker that has waited `idle_timeout` seconds for a job ends: a burst of concurrent calls
    grows the pool, and its threads (with the stacks and per-thread output pipes of the kernel
    they hold) do not outlive the burst. When the last one ends, `on_idle` is called on its thread
    (by default `_memory.release_free_memory`: the heap the burst grew goes back to the system).
    """

    def __init__(
        self,
        max_workers: int = 32,
        quick: float = 0.001,
        idle_timeout: float = 10.0,
        on_idle: Callable[[], Any] = release_free_memory,
    ) -> None:
        self.on_idle = on_idle
        self.max_workers = max_workers
        self.quick = quick
        self.idle_timeout = idle_timeout
        self.share = max(1, max_workers // 4)
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0
        self._queued = 0  # jobs put and not yet taken: each needs a worker of its own
        self._in_flight = 0
        self._abandoned: dict[str, int] = {}

    def abandoned(self, key: str) -> int:
        """How many calls of `key` (a tool's name) still run after their caller gave up on them."""
        return self._abandoned.get(key, 0)

    async def run(self, fn: Callable[[], Any], key: str = "") -> Any:
        """Run `fn` on a worker thread and return its value; `key` names whose call it is (the tool)."""
        job = _Job(fn, concurrent.futures.Future(), key)
        with self._lock:
            alone = self._in_flight == 0
            self._in_flight += 1
            # An idle worker counts for one queued job only: until it wakes it is still "idle", and
            # a second call in the same moment must start a thread rather than wait behind the first.
            self._queued += 1
            if self._idle < self._queued and self._threads < self.max_workers:
                self._threads += 1
                threading.Thread(target=self._work, name="mcp-notebook-tool", daemon=True).start()
            # Queued under the lock: an idle worker about to end checks the queue under it too.
            self._jobs.put(job)
        try:
            if alone:
                with contextlib.suppress(concurrent.futures.TimeoutError):
                    return job.future.result(timeout=self.quick)
            return await asyncio.wrap_future(job.future)
        except BaseException:  # cancelled: the tool's timeout, a client that left, the server stopping
            self._abandon(job)
            raise
        finally:
            with self._lock:
                self._in_flight -= 1

    def _abandon(self, job: _Job) -> None:
        if job.future.cancel():
            return  # it never started: nothing runs on
        with self._lock:
            if job.future.done():
                return  # it finished just now
            job.abandoned = True
            self._abandoned[job.key] = self._abandoned.get(job.key, 0) + 1
            # Its thread is lost to the pool until the call ends: another may start in its place.
            self._threads -= 1

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1  # "idle" = waiting for a job; a new call spawns a thread only if none is
            try:
                job = self._jobs.get(timeout=self.idle_timeout)
            except queue.Empty:
                with self._lock:
                    self._idle -= 1
                    ending = self._jobs.empty()  # a job queued meanwhile counted on this worker: stay for it
                    if ending:
                        self._threads -= 1
                        last = self._threads == 0 and self._in_flight == 0
                if not ending:
                    continue
                if last:
                    with contextlib.suppress(Exception):  # never fails a thread that is ending anyway
                        self.on_idle()
                return
            with self._lock:
                self._idle -= 1
                if job is not None:
                    self._queued -= 1
            if job is None:
                return
            if job.future.set_running_or_notify_cancel():
                try:
                    job.future.set_result(job.fn())
                except BaseException as exc:  # reported to the awaiting call, which makes it an error result
                    job.future.set_exception(exc)
            with self._lock:
                if job.abandoned:
                    left = self._abandoned[job.key] - 1
                    if left:
                        self._abandoned[job.key] = left
                    else:
                        del self._abandoned[job.key]
                    return  # this thread was replaced when the call was abandoned: it ends here

    def close(self) -> None:
        """Let idle workers end (busy ones end after their current call)."""
        with self._lock:
            count, self._threads = self._threads, 0
        for _ in range(count):
            self._jobs.put(None)


class ToolRunner:
    """Calls tool functions where the server was told to, capturing their output."""

    def __init__(
        self,
        run_in: str,
        pump: KernelPump,
        *,
        busy_timeout: float = 30.0,
        server_thread: Callable[[], threading.Thread | None] = lambda: None,
        kernel: bool = True,
    ) -> None:
        self.run_in = run_in
        # No kernel (an exported app): `run_in="kernel"` has no cells to serialize with, and its
        # tools run on the worker threads like the others.
        self.kernel = kernel
        self.pump = pump
        self.busy_timeout = busy_timeout
        self._server_thread = server_thread
        self.workers = WorkerPool()

    async def run(
        self,
        fn: Callable[..., Any],
        kwargs: dict[str, Any],
        run_in: str | None = None,
        *,
        tool: str = "",
        stopper: Interruptible | None = None,
        wait_for_kernel: bool = False,
    ) -> tuple[Any, str]:
        """Call ``fn(**kwargs)``; return its value and what it printed. `tool` names it for `abandoned`.

        `stopper`: armed with the way to stop a ``"kernel"`` call while it runs. `wait_for_kernel`:
        wait for a busy kernel as long as it takes (a task, which no client times out) instead of
        `busy_timeout`.
        """
        where = (run_in or self.run_in) if self.kernel else "thread"
        install_capture(self._server_thread)
        buffer = io.StringIO()
        token = _captured.set(buffer)
        try:
            if where == "kernel":
                value = await self._on_kernel(fn, kwargs, buffer, stopper, wait_for_kernel)
            elif asyncio.iscoroutinefunction(fn):
                value = await fn(**kwargs)
            else:
                value = await self.workers.run(
                    functools.partial(contextvars.copy_context().run, fn, **kwargs), tool
                )
        finally:
            _captured.reset(token)
        return value, buffer.getvalue()

    def abandoned(self, tool: str) -> int:
        """How many calls of `tool` still run on worker threads after their caller gave up on them."""
        return self.workers.abandoned(tool)

    async def _on_kernel(
        self,
        fn: Callable[..., Any],
        kwargs: dict[str, Any],
        buffer: io.StringIO,
        stopper: Interruptible | None = None,
        wait_for_kernel: bool = False,
    ) -> Any:
        context = contextvars.copy_context()
        server_loop = asyncio.get_running_loop()
        started = asyncio.Event()

        def mark_started() -> None:
            server_loop.call_soon_threadsafe(started.set)

        future: concurrent.futures.Future[Any]
        if asyncio.iscoroutinefunction(fn):
            loop = self.pump.loop
            if loop is None or loop.is_closed():
                raise KernelBusy
            future = asyncio.run_coroutine_threadsafe(_in_context(context, mark_started, fn, kwargs), loop)
        else:

            def call() -> Any:
                mark_started()
                return context.run(fn, **kwargs)

            future = self.pump.submit(call)
        if stopper is not None:
            pump, is_async = self.pump, asyncio.iscoroutinefunction(fn)
            # A queued call is cancelled; a running one is interrupted (sync) or cancelled (async).
            stopper.arm(lambda: future.cancel() or (not is_async and pump.interrupt(future)))
            future.add_done_callback(lambda _: server_loop.call_soon_threadsafe(started.set))
        with anyio.move_on_after(None if wait_for_kernel else self.busy_timeout):
            await started.wait()
        # cancel() fails once the kernel has picked the call up: then it runs to the end.
        if not started.is_set() and future.cancel():
            raise KernelBusy
        try:
            if future.cancelled():
                raise concurrent.futures.CancelledError
            return await asyncio.wrap_future(future)
        except (KeyboardInterrupt, asyncio.CancelledError, concurrent.futures.CancelledError) as exc:
            # Stopped on purpose: the call itself was cancelled or interrupted (not this awaiting task).
            stopped = isinstance(exc, KeyboardInterrupt) or future.cancelled()
            if stopper is not None and stopper.requested and stopped:
                raise CallCancelled(t("context.cancelled")) from None
            raise


async def _in_context(
    context: contextvars.Context,
    mark_started: Callable[[], None],
    fn: Callable[..., Any],
    kwargs: dict[str, Any],
) -> Any:
    mark_started()
    for var, value in context.items():
        var.set(value)
    return await fn(**kwargs)


class CapturingStream(io.TextIOBase):
    """Stands in for ``sys.stdout``/``sys.stderr`` while a server runs.

    Writes made inside a tool call go to that call's record; writes from the server's own
    thread are dropped (the server must never print into whatever cell happens to run); all
    other writes reach the original stream untouched.
    """

    def __init__(self, original: TextIO, server_thread: Callable[[], threading.Thread | None]) -> None:
        self.original = original
        self._server_thread = server_thread

    def write(self, text: str) -> int:
        buffer = _captured.get()
        if buffer is not None:
            return buffer.write(text)
        if threading.current_thread() is self._server_thread():
            return len(text)
        return self.original.write(text)

    def flush(self) -> None:
        if _captured.get() is None:
            self.original.flush()

    def writable(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:
        # ipykernel's streams carry extra API (set_parent, isatty, encoding ...): keep it reachable.
        return getattr(self.original, name)


def install_capture(server_thread: Callable[[], threading.Thread | None]) -> None:
    """Route tool output away from the notebook's cells (idempotent; cheap enough to call per call).

    Called again before every tool call because cells may swap ``sys.stdout`` themselves
    (``%%capture``, ``redirect_stdout``) while the server runs.
    """
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if not isinstance(stream, CapturingStream):
            setattr(sys, name, CapturingStream(stream, server_thread))


def remove_capture() -> None:
    """Put back the streams `install_capture` wrapped (those still in place)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        while isinstance(stream, CapturingStream):
            stream = stream.original
        setattr(sys, name, stream)
