"""`serve()`: start the in-kernel server on the runtime's loop, and hand the user its `ServerHandle`.

One server per kernel: calling `serve` again while it runs returns the same handle. It stops and
frees its port on `stop()` / ``srv.stop()``, ``%mcp_stop``, ``%unload_ext``, kernel shutdown and
interpreter exit (it closes with the runtime, before the client connections). The socket and
uvicorn are set up in `mcp_notebook.server.http._listener`, joined to the protocol server by
`mcp_notebook.server._assembly.serve_http`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any, Literal

import anyio
import anyio.from_thread
import anyio.to_thread

from ..core import _ui
from ..core._arguments import _formats
from ..core._catalogue import Catalogue, RunIn, default_catalogue
from ..core._errors import ServerError
from ..core._identity import MIN_TOKEN, Identities, check_server_name, default_server_name, guessable
from ..core._secrets import new_token
from ..core._store import Store
from ..core._store_url import serve_store_as
from ..core._tasks import DEFAULT_TTL, check_task_ttl
from ..core._text import t
from ..runtime._execution import ToolRunner, install_capture, remove_capture
from ..runtime._loop import runtime
from ..server._approval import MODES, ApprovalPolicy, check_timeout
from ..server._assembly import serve_http, tool_server
from ..server._guardrails import server_store
from ..server._protocol import ToolServer
from ..server.http._gate import is_loopback
from ..server.http._listener import bind_socket
from ._handle import ServerHandle
from ._jupyter_link import publish as publish_link

_lock = threading.RLock()
_current: ServerHandle | None = None


def _owner_token(given: str | None) -> str:
    """The server token: `given`, else ``MCP_NOTEBOOK_TOKEN``, else a new random one.

    The server token opens every tool to whoever holds it, so one that could be guessed (``x``,
    ``1234``, a blank) is refused, saying where it came from, rather than served with.
    """
    where = "serve(token=...)" if given else "MCP_NOTEBOOK_TOKEN"
    token = given or os.environ.get("MCP_NOTEBOOK_TOKEN") or None
    if token is None:
        return new_token()
    if guessable(token):
        got = len(token) if isinstance(token, str) else type(token).__name__
        raise ValueError(t("serve.weak_token", where=where, got=got, min=MIN_TOKEN))
    return token


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
    store: Store | str | None = None,
    allow_remote: bool = False,
    catalogue: Catalogue | None = None,
    name: str | None = None,
    task_ttl: float = DEFAULT_TTL,
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
        The SQLite file of the server's store (same as ``store="sqlite:///PATH"``); kept for
        compatibility.
    store:
        Where the server keeps what outlives a call: results of ``@tool(idempotency_key=True)``
        tools and large results kept behind a link, each scoped to this server and to the
        identity that made it. A `Store` (``SQLiteStore``, ``MemoryStore``, your own; not closed
        by ``srv.stop()``) or a URL: ``"sqlite:///state.sqlite3"`` (a file; ``sqlite:////abs/path``
        for an absolute path), ``"sqlite://"`` (SQLite in memory), ``"memory://"``. Default: the
        SQLite file ``idempotency.sqlite3`` in the user cache folder (``$MCP_NOTEBOOK_CACHE_DIR``
        when set), which survives a kernel restart and is shared by every kernel of this user.
        ``srv.store`` is the store in use (pass it to ``HandleStore(store=...)``).
    name:
        This server's name, which scopes the results it stores (idempotency keys) to this notebook:
        another notebook's tool of the same name never replays them. Default: the notebook's file
        name and a digest of its path (``orders-3f9a2c1d``), the same after a kernel restart.
    task_ttl:
        Seconds a finished task (a long call a client polls: ``@tool(task=...)``) and its result stay
        readable in the store: one hour by default, at most a day. A running task never expires.
    """
    global _current
    with _lock:
        if _current is not None and _current.running:
            return _current
        if run_in not in ("thread", "kernel"):
            raise ValueError(t("serve.bad_run_in", value=run_in))
        if approval not in MODES:
            raise ValueError(t("approval.bad_mode", value=approval))
        approval_timeout = check_timeout(approval_timeout)
        server_name = check_server_name(name) if name is not None else default_server_name()
        # A store setting that cannot work fails now, before the port is taken.
        server_store(store, idempotency_path)
        task_ttl = check_task_ttl(task_ttl)
        if not is_loopback(host):
            if not allow_remote:
                raise ServerError(t("serve.host_refused", host=host))
            warnings.warn(t("serve.not_loopback", host=host), UserWarning, stacklevel=2)
        token = _owner_token(token)
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
        tools = tool_server(
            catalogue if catalogue is not None else default_catalogue,
            runner,
            identities=Identities(token, notebook_token=runtime.local_secret),
            approval=policy,
            name=server_name,
            store=store,
            idempotency_path=idempotency_path,
            page_size=page_size,
            result_limit=result_limit,
            history=history,
            history_bytes=history_bytes,
            max_output_chars=max_output_chars,
            audit_log=audit_log,
            task_ttl=task_ttl,
        )
        serve_store_as(tools.guards.store, server_name)  # HandleStore(shared=True) keeps its handles there
        handle = ServerHandle(tools, host=host, port=port, token=token, run_in=run_in, name=server_name)
        portal = runtime.portal()
        try:
            serving = functools.partial(
                serve_http,
                tools,
                sock,
                host,
                session_idle_timeout=session_idle_timeout,
                max_sessions=max_sessions,
            )
            _, server = portal.start_task(serving)
        except Exception as exc:
            sock.close()
            tools.close()  # the audit log it opened
            runner.workers.close()
            raise ServerError(t("serve.failed", error=exc)) from exc
        install_capture(lambda: runtime.thread)
        # Importing jsonschema can take most of a second; do it now, in the background, rather than
        # during the first call a client makes.
        portal.start_task_soon(anyio.to_thread.run_sync, _warm_up)
        unsubscribe = tools.catalogue.subscribe(_debounced_notifier(portal, tools))
        # In a Jupyter kernel: the Jupyter server extension's way in (`mcp_notebook.jupyter`).
        withdraw_link = publish_link(handle.url, server_name, tools.identities)

        def stop() -> None:
            withdraw_link()
            unsubscribe()
            for hook in list(runtime.before_server_stop):
                with contextlib.suppress(Exception):
                    hook(handle.url)
            _shut_down(portal, tools, server)
            remove_capture()
            runner.workers.close()
            tools.close()
            handle.running = False
            global _current
            with _lock:
                if _current is handle:
                    _current = None
                    runtime.endpoint = None

        handle._stop = stop
        handle.running = True
        _current = handle
        runtime.endpoint = handle.url
        runtime.on_close(_stop_current, first=True)
        if "ipykernel" in sys.modules:
            # In a notebook the page's badge counts the calls waiting here, whether or not a panel
            # is shown (the UI layer checks it runs in a kernel; a plain process imports no widgets).
            _ui.make("waiting_badge", handle)
        return handle


def serve_privately(catalogue: Catalogue, *, name: str) -> ServerHandle:
    """A second server of this kernel, for code of the kernel's own: a catalogue of its own, beside
    the one `serve()` runs.

    It is never the current server (`current_server`, ``%mcp_call`` and the panel do not see it),
    is not published to the Jupyter server extension, keeps its state in memory, writes no audit
    log, and asks nobody to approve anything: only the kernel holds its credentials. Call it as the
    notebook, with the kernel's own credential (``runtime.local_secret``). The lessons' checkers
    serve model answers with it, so that a learner's tool and the model answer are called through
    the same kind of server. Stop it with ``handle.stop()``.
    """
    token = new_token()
    sock = bind_socket("127.0.0.1", 0)
    runner = ToolRunner("thread", runtime.kernel_pump, server_thread=lambda: runtime.thread)
    tools = tool_server(
        catalogue,
        runner,
        identities=Identities(token, notebook_token=runtime.local_secret),
        approval=ApprovalPolicy("auto"),
        name=check_server_name(name),
        store="memory://",
        audit_log=False,
    )
    handle = ServerHandle(
        tools, host="127.0.0.1", port=sock.getsockname()[1], token=token, run_in="thread", name=name
    )
    portal = runtime.portal()
    try:
        _, server = portal.start_task(functools.partial(serve_http, tools, sock, "127.0.0.1"))
    except Exception as exc:
        sock.close()
        tools.close()
        runner.workers.close()
        raise ServerError(t("serve.failed", error=exc)) from exc

    def stop() -> None:
        _shut_down(portal, tools, server)
        runner.workers.close()
        tools.close()
        handle.running = False

    handle._stop = stop
    handle.running = True
    return handle


def _shut_down(portal: anyio.from_thread.BlockingPortal, tools: ToolServer, server: Any) -> None:
    """Close a server's streams, fail its running tasks (saying it stopped, while the store is still
    open), and wait until its HTTP server has let go of the port."""
    tools.close_streams()
    with contextlib.suppress(Exception):
        portal.call(tools.tasks.shutdown)
    server.should_exit = True
    with contextlib.suppress(Exception):
        portal.call(server.done.wait)


def stop() -> None:
    """Stop the in-kernel server if one runs."""
    if _current is not None:
        _current.stop()


_stop_current = stop  # one function object: registered with the runtime once, however often it serves


def current_server() -> ServerHandle | None:
    """The running in-kernel server, or None."""
    server = _current
    return server if server is not None and server.running else None


def _warm_up() -> None:
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
