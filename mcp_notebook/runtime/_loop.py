"""The one background loop, and the in-kernel HTTP server that runs on it.

ipykernel runs its own asyncio loop on the main thread, so the server cannot share it (and
``asyncio.run`` inside a cell fails). Instead one `Runtime` owns one anyio blocking portal: a
daemon thread with its own loop, on which uvicorn serves the SDK's Streamable HTTP app and the
sync client facade runs its connections. Start and stop are idempotent; the server stops and
frees its port on ``%unload_ext``, kernel shutdown and interpreter exit (``atexit``).

This module owns the loop and starts and stops the server. The socket and uvicorn are set up in
`mcp_notebook.server.http._listener`; the `ServerHandle` that `serve` returns to the user is in
`mcp_notebook.api._handle`.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import logging
import os
import secrets
import threading
import warnings
from collections.abc import Callable
from typing import Literal

import anyio
import anyio.from_thread

from ..api._handle import ServerHandle
from ..core._catalogue import Catalogue, RunIn, default_catalogue
from ..core._errors import ServerError
from ..core._identity import Identities, check_server_name, default_server_name
from ..core._secrets import new_token
from ..core._text import t
from ..server._approval import MODES, ApprovalPolicy, check_timeout
from ..server._guardrails import Guardrails, default_audit_path
from ..server._protocol import ToolServer
from ..server.http._gate import is_loopback
from ..server.http._listener import bind_socket, run_http
from ._execution import KernelPump, ToolRunner, install_capture, remove_capture

logger = logging.getLogger(__name__)

# Library loggers must never reach a cell: with no handler configured anywhere, Python's
# last-resort handler writes to sys.stderr, which in a kernel is whatever cell runs now.
for _name in ("mcp", "uvicorn", "mcp_notebook"):
    logging.getLogger(_name).addHandler(logging.NullHandler())


class Runtime:
    """Owns the background loop (created on first use) and the running server, if any."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._stack: contextlib.ExitStack | None = None
        self._portal: anyio.from_thread.BlockingPortal | None = None
        self._thread: threading.Thread | None = None
        self.server: ServerHandle | None = None
        self.kernel_pump = KernelPump(None)
        self._closers: list[Callable[[], None]] = []
        self.before_server_stop: list[Callable[[ServerHandle], None]] = []
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

    def on_close(self, closer: Callable[[], None]) -> None:
        """Run `closer` when the runtime closes (clients register their connections here)."""
        self._closers.append(closer)

    def close(self) -> None:
        """Stop the server, close client connections and the loop. Safe to call twice."""
        with self._lock:
            if self.server is not None:
                self.server.stop()
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


def serve(
    port: int = 0,
    host: str = "127.0.0.1",
    *,
    token: str | None = None,
    run_in: RunIn = "thread",
    busy_timeout: float = 30.0,
    approval: str = "ask",
    approval_timeout: float = 120.0,
    page_size: int = 100,
    history: int = 500,
    history_bytes: int = 32 * 1024 * 1024,
    session_idle_timeout: float = 600.0,
    max_sessions: int = 32,
    result_limit: int = 50_000,
    max_output_chars: int = 1_000_000,
    audit_log: str | os.PathLike[str] | Literal[False] | None = None,
    idempotency_path: str | os.PathLike[str] | None = None,
    allow_remote: bool = False,
    catalogue: Catalogue | None = None,
    name: str | None = None,
) -> ServerHandle:
    """Serve the notebook's tools over Streamable HTTP from a background thread of this kernel.

    Returns at once with a handle; calling it again while a server runs returns the same handle.

    Parameters
    ----------
    port:
        TCP port; ``0`` (default) picks a free one.
    host:
        Address to bind. Loopback (127.0.0.1) by default; anything else needs ``allow_remote=True``.
    token:
        The server token, the owner's credential (identity ``"owner"``); default ``MCP_NOTEBOOK_TOKEN``
        or a new random token. Give each AI client a token of its own instead:
        ``srv.add_client("claude-code")`` or ``srv.client_config("claude-code")``.
    run_in:
        Where tool functions run: ``"thread"`` (a worker thread, default) or ``"kernel"`` (the
        kernel's main thread, between cells). See `mcp_notebook.runtime._execution`.
    busy_timeout:
        With ``run_in="kernel"``: how long a call waits for a busy kernel before it fails.
    approval:
        ``"ask"`` (default): an outside client's call of a tool not annotated read-only waits for a
        person's Approve/Deny (``srv.pending``); ``"always"``: ask for every tool; ``"auto"``: never
        ask (tests, CI, demos; warns). Calls from this notebook itself are never asked about.
    approval_timeout:
        Seconds a call waits for a person's decision; no answer counts as Deny. While it waits, a
        call that carries a ``progressToken`` gets ``notifications/progress`` every 10 s
        (``srv.approval.progress_every``), which keeps clients that reset their own timeout on
        progress (the TypeScript SDK's ``resetTimeoutOnProgress``) waiting past their 60 s.
    page_size:
        Entries per page of ``tools/list``, ``resources/list`` and ``prompts/list``.
    history:
        How many recent calls `srv.calls` (and the activity log) keep.
    history_bytes:
        How many bytes those records may hold together (32 MiB by default): the oldest go first, and
        one record's large arguments or results are kept shortened (the call itself had them whole).
    session_idle_timeout:
        Seconds after which a handshake-era session with nothing in flight ends (10 minutes).
    max_sessions:
        How many handshake-era sessions one credential may hold; opening one more closes its oldest
        idle one, or is refused (429) when all are busy.
    result_limit:
        A tool result with more text than this (characters) is kept as a resource, and the client
        gets a summary with a ``resource_link`` to read all of it.
    max_output_chars:
        Hard cap on a result's text (control characters are always stripped).
    audit_log:
        Where to append one JSON line per call (default: ``audit.jsonl`` in the user cache folder,
        ``$MCP_NOTEBOOK_CACHE_DIR`` when set); ``False`` for none.
    idempotency_path:
        The SQLite file that keeps results of ``@tool(idempotency_key=True)`` tools.
    name:
        This server's name, which scopes the results it stores (idempotency keys) to this notebook:
        another notebook's tool of the same name never replays them. Default: the notebook's file
        name and a digest of its path (``orders-3f9a2c1d``), the same after a kernel restart.
    """
    with runtime._lock:
        if runtime.server is not None and runtime.server.running:
            return runtime.server
        if run_in not in ("thread", "kernel"):
            raise ValueError(t("serve.bad_run_in", value=run_in))
        if approval not in MODES:
            raise ValueError(t("approval.bad_mode", value=approval))
        approval_timeout = check_timeout(approval_timeout)
        server_name = check_server_name(name) if name is not None else default_server_name()
        if not is_loopback(host):
            if not allow_remote:
                raise ServerError(t("serve.host_refused", host=host))
            warnings.warn(t("serve.not_loopback", host=host), UserWarning, stacklevel=2)
        token = token or os.environ.get("MCP_NOTEBOOK_TOKEN") or new_token()
        sock = bind_socket(host, port)
        port = sock.getsockname()[1]
        with contextlib.suppress(RuntimeError):
            # On the kernel's main thread this is the kernel's own loop (ipykernel 7 runs cells on it).
            runtime.kernel_pump.loop = asyncio.get_running_loop()
        runner = ToolRunner(
            run_in, runtime.kernel_pump, busy_timeout=busy_timeout, server_thread=lambda: runtime.thread
        )
        policy = ApprovalPolicy(approval, timeout=approval_timeout)
        if approval == "auto":
            warnings.warn(t("approval.auto_warning"), UserWarning, stacklevel=2)
        tools = ToolServer(
            catalogue if catalogue is not None else default_catalogue,
            runner,
            page_size=page_size,
            result_limit=result_limit,
            history=history,
            history_bytes=history_bytes,
            approval=policy,
            guards=Guardrails(
                max_output_chars=max_output_chars,
                audit_log=None if audit_log is False else (audit_log or default_audit_path()),
                idempotency_path=idempotency_path,
                server_name=server_name,
            ),
            identities=Identities(token, notebook_token=runtime.local_secret),
        )
        handle = ServerHandle(tools, host=host, port=port, token=token, run_in=run_in, name=server_name)
        portal = runtime.portal()
        try:
            serving = functools.partial(
                run_http,
                tools,
                sock,
                host,
                session_idle_timeout=session_idle_timeout,
                max_sessions=max_sessions,
            )
            _, server = portal.start_task(serving)
        except Exception as exc:
            sock.close()
            tools.guards.close()  # the audit log it opened
            runner.workers.close()
            raise ServerError(t("serve.failed", error=exc)) from exc
        install_capture(lambda: runtime.thread)
        # Importing jsonschema can take most of a second; do it now, in the background, rather than
        # during the first call a client makes.
        portal.start_task_soon(anyio.to_thread.run_sync, _warm_up)
        unsubscribe = tools.catalogue.subscribe(_debounced_notifier(portal, tools))

        def stop() -> None:
            unsubscribe()
            for hook in list(runtime.before_server_stop):
                with contextlib.suppress(Exception):
                    hook(handle)
            tools.close_streams()
            server.should_exit = True
            with contextlib.suppress(Exception):
                portal.call(server.done.wait)
            remove_capture()
            runner.workers.close()
            tools.guards.close()
            handle.running = False
            with runtime._lock:
                if runtime.server is handle:
                    runtime.server = None

        handle._stop = stop
        handle.running = True
        runtime.server = handle
        return handle


def stop() -> None:
    """Stop the in-kernel server if one runs."""
    if runtime.server is not None:
        runtime.server.stop()


def current_server() -> ServerHandle | None:
    """The running in-kernel server, or None."""
    server = runtime.server
    return server if server is not None and server.running else None


def _warm_up() -> None:
    from ..core._arguments import _formats

    _formats()


def _debounced_notifier(portal: anyio.from_thread.BlockingPortal, tools: ToolServer) -> Callable[[str], None]:
    """A catalogue listener that sends one notification per kind of change in a burst.

    A cell that defines ten tools should cost clients one re-list, not ten.
    """
    pending: set[str] = set()
    lock = threading.Lock()

    async def send(kind: str) -> None:
        await anyio.sleep(0)  # let the rest of the burst land first
        with lock:
            pending.discard(kind)
        await tools.notify(kind)

    def on_change(kind: str) -> None:
        with lock:
            if kind in pending:
                return
            pending.add(kind)
        with contextlib.suppress(RuntimeError):  # the loop is closing: nobody left to tell
            portal.start_task_soon(send, kind)

    return on_change
