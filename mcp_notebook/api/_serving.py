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
import dataclasses
import functools
import socket
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread

from ..core import _ui
from ..core._arguments import _formats
from ..core._catalogue import Catalogue, default_catalogue
from ..core._errors import ServerError
from ..core._identity import Identities, default_server_name
from ..core._options import takes_options
from ..core._secrets import new_token
from ..core._store_url import serve_store_as
from ..core._text import t
from ..runtime._execution import ToolRunner, install_capture, remove_capture
from ..runtime._loop import runtime
from ..server._approval import ApprovalPolicy
from ..server._assembly import serve_http, tool_server
from ..server._protocol import ToolServer
from ..server._settings import ServerSettings
from ..server.http._listener import bind_socket
from ._handle import ServerHandle
from ._jupyter_link import publish as publish_link

_lock = threading.RLock()
_current: ServerHandle | None = None


@takes_options(ServerSettings)
def serve(
    port: int = 0, host: str = "127.0.0.1", *, catalogue: Catalogue | None = None, **settings: Any
) -> ServerHandle:
    """Serve the notebook's tools over Streamable HTTP from a background thread of this kernel.

    Returns at once with a handle; calling it again while a server runs returns the same handle.

    Parameters
    ----------
    port, host, allow_remote, token, name:
        Where it listens (loopback, a free port, by default), and who may call: the server token
        is the owner's credential; give each AI client a token of its own instead
        (``srv.add_client("claude-code")`` or ``srv.client_config("claude-code")``).
    run_in, busy_timeout, approval, approval_timeout:
        Where tool functions run (a worker thread by default), and who approves an outside
        client's call (``"ask"``: a person, for tools not annotated read-only).
    page_size, result_limit, max_output_chars, session_idle_timeout, max_sessions, task_ttl:
        Limits.
    history, history_bytes, audit_log, audit_max_bytes, audit_keep, store, idempotency_path:
        What it records (the activity and audit logs) and where it keeps what outlives a call.
    catalogue:
        What to serve (default: everything ``@tool``, ``@resource`` and ``@prompt`` defined here).

    Every setting is documented, with its default, and checked in one place: `ServerSettings`.

    Raises
    ------
    OptionError
        A setting that cannot work, saying what to pass instead.
    ServerError
        A `host` that is not loopback without ``allow_remote=True``, or the server could not start.
    """
    global _current
    with _lock:
        if _current is not None and _current.running:
            return _current
        chosen = ServerSettings.of({"port": port, "host": host, **settings}, "serve()")
        if chosen.name is None:
            chosen = dataclasses.replace(chosen, name=default_server_name())
        if chosen.remote:
            warnings.warn(t("serve.not_loopback", host=chosen.host), UserWarning, stacklevel=2)
        if chosen.approval == "auto":
            warnings.warn(t("approval.auto_warning"), UserWarning, stacklevel=2)
        _current = _start(chosen, catalogue if catalogue is not None else default_catalogue)
        runtime.endpoint = _current.url
        runtime.on_close(_stop_current, first=True)
        if "ipykernel" in sys.modules:
            # In a notebook the page's badge counts the calls waiting here, whether or not a panel
            # is shown (the UI layer checks it runs in a kernel; a plain process imports no widgets).
            _ui.make("waiting_badge", _current)
        return _current


def _start(settings: ServerSettings, catalogue: Catalogue) -> ServerHandle:
    """Start a server with `settings` on the runtime's loop, and the handle that stops it."""
    catalogue.check_apps()  # before the port is taken (`tool_server` checks it too)
    token = settings.owner_token()
    sock = bind_socket(settings.host, settings.port)
    with contextlib.suppress(RuntimeError):
        # On the kernel's main thread this is the kernel's own loop (ipykernel 7 runs cells on it).
        runtime.kernel_pump.loop = asyncio.get_running_loop()
    runner = ToolRunner(
        settings.run_in,
        runtime.kernel_pump,
        busy_timeout=settings.busy_timeout,
        server_thread=lambda: runtime.thread,
    )
    tools = tool_server(
        catalogue,
        runner,
        settings,
        identities=Identities(token, notebook_token=runtime.local_secret),
        approval=ApprovalPolicy(settings.approval, timeout=settings.approval_timeout),
    )
    name = str(settings.name)
    serve_store_as(tools.guards.store, name)  # HandleStore(shared=True) keeps its handles there
    handle = ServerHandle(
        tools,
        host=settings.host,
        port=sock.getsockname()[1],
        token=token,
        run_in=settings.run_in,
        name=name,
    )
    portal = runtime.portal()
    server = _listen(portal, tools, sock, settings, runner)
    install_capture(lambda: runtime.thread)
    # Importing jsonschema can take most of a second; do it now, in the background, rather than
    # during the first call a client makes.
    portal.start_task_soon(anyio.to_thread.run_sync, _warm_up)
    unsubscribe = tools.catalogue.subscribe(_debounced_notifier(portal, tools))
    # In a Jupyter kernel: the Jupyter server extension's way in (`mcp_notebook.jupyter`).
    withdraw_link, handle._jupyter_folder = publish_link(handle.url, name, tools.identities)

    def stop() -> None:
        withdraw_link()
        handle._jupyter_folder = None
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
    return handle


def _listen(
    portal: anyio.from_thread.BlockingPortal,
    tools: ToolServer,
    sock: socket.socket,
    settings: ServerSettings,
    runner: ToolRunner,
) -> Any:
    """Serve `tools` over HTTP on `sock`; the uvicorn server, once it listens. A failure frees all."""
    try:
        _, server = portal.start_task(functools.partial(serve_http, tools, sock, settings))
    except Exception as exc:
        sock.close()
        tools.close()  # the audit log it opened
        runner.workers.close()
        raise ServerError(t("serve.failed", error=exc)) from exc
    return server


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
    settings = ServerSettings(name=name, store="memory://", audit_log=False)
    sock = bind_socket(settings.host, 0)
    runner = ToolRunner("thread", runtime.kernel_pump, server_thread=lambda: runtime.thread)
    tools = tool_server(
        catalogue,
        runner,
        settings,
        identities=Identities(token, notebook_token=runtime.local_secret),
        approval=ApprovalPolicy("auto"),
    )
    handle = ServerHandle(
        tools, host=settings.host, port=sock.getsockname()[1], token=token, run_in="thread", name=name
    )
    portal = runtime.portal()
    server = _listen(portal, tools, sock, settings, runner)

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
