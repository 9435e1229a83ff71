"""The one background loop of a kernel.

ipykernel runs its own asyncio loop on the main thread, so the server cannot share it (and
``asyncio.run`` inside a cell fails). Instead one `Runtime` owns one anyio blocking portal: a
daemon thread with its own loop, on which uvicorn serves the SDK's Streamable HTTP app and the
sync client facade runs its connections. Closing is idempotent and happens on ``%unload_ext``,
kernel shutdown and interpreter exit (``atexit``): first what serves (the in-kernel server, which
registers itself with ``first=True``), then the client connections, then the loop.

The runtime also knows where this process's own server listens (`endpoint`), so the client can
reach it without knowing the server: `mcp_notebook.api` sets it when it starts one.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import secrets
import threading
from collections.abc import Callable

import anyio
import anyio.from_thread

from ._execution import KernelPump

logger = logging.getLogger(__name__)

# Library loggers must never reach a cell: with no handler configured anywhere, Python's
# last-resort handler writes to sys.stderr, which in a kernel is whatever cell runs now.
for _name in ("mcp", "uvicorn", "mcp_notebook"):
    logging.getLogger(_name).addHandler(logging.NullHandler())


class Runtime:
    """Owns the background loop (created on first use), and knows where this process's server listens."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._stack: contextlib.ExitStack | None = None
        self._portal: anyio.from_thread.BlockingPortal | None = None
        self._thread: threading.Thread | None = None
        self.kernel_pump = KernelPump(None)
        self._closers: list[Callable[[], None]] = []
        # The URL of this process's own MCP server while one runs (set by `mcp_notebook.api`).
        self.endpoint: str | None = None
        # Told the URL of this process's server just before it stops (clients close their connections).
        self.before_server_stop: list[Callable[[str], None]] = []
        # The credential of this process's own client (%mcp_call): identity "notebook". It is sent
        # only to this process's own server, and never leaves the process otherwise.
        self.local_secret = secrets.token_urlsafe(32)

    @property
    def thread(self) -> threading.Thread | None:
        return self._thread

    def portal(self) -> anyio.from_thread.BlockingPortal:
        with self._lock:
            if self._portal is None:
                stack = contextlib.ExitStack()
                self._portal = stack.enter_context(anyio.from_thread.start_blocking_portal())
                self._stack = stack
                self._thread = self._portal.call(threading.current_thread)
            return self._portal

    def on_close(self, closer: Callable[[], None], *, first: bool = False) -> None:
        """Run `closer` when the runtime closes: a server with ``first=True`` (before the clients
        that may be talking to it), client connections after it."""
        if closer not in self._closers:
            self._closers.insert(0, closer) if first else self._closers.append(closer)

    def close(self) -> None:
        """Stop what serves, close client connections, then the loop. Safe to call twice."""
        with self._lock:
            # Closers stay registered: the runtime can be started again after a close (%reload_ext).
            for closer in list(self._closers):
                with contextlib.suppress(Exception):
                    closer()
            stack, self._stack, self._portal, self._thread = self._stack, None, None, None
        if stack is not None:
            with contextlib.suppress(Exception):
                stack.close()


runtime = Runtime()
atexit.register(runtime.close)
