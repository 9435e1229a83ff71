"""The one background loop, and the in-kernel HTTP server that runs on it.

ipykernel runs its own asyncio loop on the main thread, so the server cannot share it (and
``asyncio.run`` inside a cell fails). Instead one `Runtime` owns one anyio blocking portal: a
daemon thread with its own loop, on which uvicorn serves the SDK's Streamable HTTP app and the
sync client facade runs its connections. Start and stop are idempotent; the server stops and
frees its port on ``%unload_ext``, kernel shutdown and interpreter exit (``atexit``).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import errno
import logging
import os
import secrets
import socket
import threading
import warnings
from collections.abc import Callable
from typing import Any, Literal

import anyio
import anyio.from_thread
import uvicorn

from ._activity import CallRecord
from ._approval import MODES, ApprovalPolicy, ApprovalRequest
from ._catalogue import Catalogue, RunIn, default_catalogue
from ._errors import ServerError
from ._execution import KernelPump, ToolRunner, install_capture, remove_capture
from ._guarded import Guardrails, default_audit_path
from ._http import MCP_PATH, build_app, is_loopback
from ._secrets import new_token
from ._server import ToolServer
from ._text import t

logger = logging.getLogger(__name__)

# Library loggers must never reach a cell: with no handler configured anywhere, Python's
# last-resort handler writes to sys.stderr, which in a kernel is whatever cell runs now.
for _name in ("mcp", "uvicorn", "mcp_notebook"):
    logging.getLogger(_name).addHandler(logging.NullHandler())


class _Uvicorn(uvicorn.Server):
    """uvicorn with a "ready" event, so starting never polls."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = anyio.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets=sockets)
        finally:
            self.ready.set()


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
        # Proves a request comes from this process's own client (%mcp_call): never sent elsewhere.
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


class ServerHandle:
    """A running (or stopped) in-kernel MCP server.

    Attributes
    ----------
    url:
        The MCP endpoint, e.g. ``http://127.0.0.1:8765/mcp`` (no token in it).
    token:
        The secret a client must send (``Authorization: Bearer <token>`` or ``?token=``).
    calls:
        The most recent tool calls, newest last (`CallRecord`).
    """

    def __init__(self, tools: ToolServer, *, host: str, port: int, token: str, run_in: str) -> None:
        self._tools = tools
        self.host = host
        self.port = port
        self.token = token
        self.run_in = run_in
        url_host = f"[{host}]" if ":" in host else host
        self.url = f"http://{url_host}:{port}{MCP_PATH}"
        self._stop: Callable[[], None] | None = None
        self._panel: Any = None
        self.running = False

    @property
    def catalogue(self) -> Catalogue:
        return self._tools.catalogue

    @property
    def calls(self) -> list[CallRecord]:
        return list(self._tools.calls)

    @property
    def tool_server(self) -> ToolServer:
        return self._tools

    @property
    def approval(self) -> ApprovalPolicy:
        """The approval policy: ``.mode``, ``.timeout``, ``.allowed`` (tools always allowed)."""
        return self._tools.approval

    def client_config(self, name: str, *, server_name: str = "notebook") -> str:
        """Ready-to-paste configuration for an AI client, with this server's URL and token.

        `name`: ``"claude-code"``, ``"claude-desktop"`` (through the stdio bridge), ``"cursor"``,
        ``"vscode"`` or ``"inspector"``. On a remote kernel (Binder, JupyterHub) it starts with a
        warning that a desktop client cannot reach it.
        """
        from ._configs import client_config

        return client_config(name, self.url, self.token, server_name=server_name)

    def check(self, timeout: float = 10.0) -> Any:
        """Connect the way a client would and report success, or the precise failure and its fix."""
        from ._configs import check_connection

        return check_connection(self.url, self.token, timeout=timeout)

    @property
    def activity(self) -> list[CallRecord]:
        """Every recent request (lists, reads, prompts ... and tool calls), newest last."""
        return list(self._tools.activity)

    def export_activity(self, path: str | os.PathLike[str]) -> int:
        """Write the recent requests (with their JSON-RPC request and response) as JSON lines; returns the count."""
        import json

        calls = self.activity
        with open(path, "w", encoding="utf-8") as out:
            for record in calls:
                out.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
        return len(calls)

    def panel(self) -> Any:
        """A widget with the server's status, approval prompts and activity log (display it).

        One panel per server: showing it again (``%mcp_serve`` run twice) shows the same one, so
        the server never feeds two.
        """
        from .widgets import ServerPanel

        if self._panel is None:
            self._panel = ServerPanel(self)
        return self._panel

    @property
    def pending(self) -> list[ApprovalRequest]:
        """Calls waiting for a person: ``srv.pending[0].approve()`` / ``.deny()`` / ``.always_allow()``."""
        return list(self._tools.approval.pending)

    def stop(self) -> None:
        """Stop serving and free the port. Does nothing if already stopped."""
        stop, self._stop = self._stop, None
        if stop is not None:
            stop()
            if self._panel is not None:
                self._panel.stopped()

    def status(self) -> str:
        if not self.running:
            return t("serve.status_stopped")
        status = t("serve.status_running", url=self.url, tools=len(self.catalogue), run_in=self.run_in)
        if self.approval.mode == "auto":
            status += "\n" + t("approval.auto_warning")
        return status

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        approval = self.approval.mode
        return (
            f"<MCP server {self.url} ({state}, tools={len(self.catalogue)}, run_in={self.run_in!r}, "
            f"approval={approval!r})>"
        )


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
    result_limit: int = 50_000,
    max_output_chars: int = 1_000_000,
    audit_log: str | os.PathLike[str] | Literal[False] | None = None,
    idempotency_path: str | os.PathLike[str] | None = None,
    allow_remote: bool = False,
    catalogue: Catalogue | None = None,
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
        The secret clients must send; default ``MCP_NOTEBOOK_TOKEN`` or a new random token.
    run_in:
        Where tool functions run: ``"thread"`` (a worker thread, default) or ``"kernel"`` (the
        kernel's main thread, between cells). See `mcp_notebook._execution`.
    busy_timeout:
        With ``run_in="kernel"``: how long a call waits for a busy kernel before it fails.
    approval:
        ``"ask"`` (default): an outside client's call of a tool not annotated read-only waits for a
        person's Approve/Deny (``srv.pending``); ``"always"``: ask for every tool; ``"auto"``: never
        ask (tests, CI, demos; warns). Calls from this notebook itself are never asked about.
    approval_timeout:
        Seconds to wait for a decision; no answer counts as Deny.
    page_size:
        Entries per page of ``tools/list``, ``resources/list`` and ``prompts/list``.
    history:
        How many recent calls `srv.calls` (and the activity log) keep.
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
    """
    with runtime._lock:
        if runtime.server is not None and runtime.server.running:
            return runtime.server
        if run_in not in ("thread", "kernel"):
            raise ValueError(t("serve.bad_run_in", value=run_in))
        if approval not in MODES:
            raise ValueError(t("approval.bad_mode", value=approval))
        if not is_loopback(host):
            if not allow_remote:
                raise ServerError(t("serve.host_refused", host=host))
            warnings.warn(t("serve.not_loopback", host=host), UserWarning, stacklevel=2)
        token = token or os.environ.get("MCP_NOTEBOOK_TOKEN") or new_token()
        sock = _bind(host, port)
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
            approval=policy,
            guards=Guardrails(
                max_output_chars=max_output_chars,
                audit_log=None if audit_log is False else (audit_log or default_audit_path()),
                idempotency_path=idempotency_path,
            ),
            local_secret=runtime.local_secret,
        )
        handle = ServerHandle(tools, host=host, port=port, token=token, run_in=run_in)
        portal = runtime.portal()
        try:
            _, server = portal.start_task(_run_http, tools, sock, token, host, port)
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
    from ._arguments import _formats

    _formats()


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio only sets TCP_NODELAY on sockets that say so (else ~40 ms/response).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ServerError(t("serve.port_in_use", host=host, port=port)) from None
        raise ServerError(t("serve.failed", error=exc)) from exc
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def _run_http(
    tools: ToolServer,
    sock: socket.socket,
    token: str,
    host: str,
    port: int,
    *,
    task_status: anyio.abc.TaskStatus[Any] = anyio.TASK_STATUS_IGNORED,
) -> None:
    app = build_app(tools.sdk, token=token, host=host, port=port, answers_at_once=tools.answers_at_once)
    config = uvicorn.Config(
        app,
        log_level="warning",
        # No logging setup of uvicorn's own: its default puts a stderr handler on the "uvicorn" logger,
        # and a warning (a port scanner, a client speaking https) would land in the %mcp_serve cell.
        log_config=None,
        access_log=False,
        lifespan="on",
        ws="none",
        # Open GET/listen streams would otherwise hold shutdown (and the port) for long.
        timeout_graceful_shutdown=1,
    )
    server = _Uvicorn(config)
    server.done = anyio.Event()  # type: ignore[attr-defined]
    async with anyio.create_task_group() as group:

        async def serve_until_stopped() -> None:
            try:
                await server.serve(sockets=[sock])
            finally:
                sock.close()
                server.done.set()  # type: ignore[attr-defined]

        group.start_soon(serve_until_stopped)
        await server.ready.wait()
        if not server.started:
            raise ServerError(
                t("serve.failed", error="the HTTP server did not start (see the 'uvicorn' log)")
            )
        task_status.started(server)


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
