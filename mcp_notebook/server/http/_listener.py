"""The HTTP listener: a bound socket, and uvicorn serving an ASGI app on it from the background loop.

`bind_socket` binds before anything starts, so a port in use is reported at once, in words.
`run_http` runs uvicorn as a task of `mcp_notebook.runtime._loop`'s loop and reports started only once
it listens; the caller stops it with ``should_exit`` and waits on ``done``. uvicorn is configured for
a kernel: no logging setup of its own, a short graceful shutdown, and limits on what connections may
cost (`_connection_limits`: deadlines for slow clients, a cap on open connections).

It takes the app and what runs beside it ready-made: `mcp_notebook.server._assembly.serve_http`
builds them from a `ToolServer`, so this module knows uvicorn and sockets, not the protocol.
"""

from __future__ import annotations

import errno
import socket
from typing import Any, Protocol

import anyio
import uvicorn
from starlette.types import ASGIApp

from ...core._errors import ServerError
from ...core._text import t
from ._connections import ConnectionLimits, connection_protocol

# A request line and headers larger than this are refused (431) before anything else reads them.
MAX_HEAD_BYTES = 16 * 1024


class Beside(Protocol):
    """Work that runs beside the HTTP server, in its task group, and ends when the server stops.

    A `ToolServer`'s task manager: calls that became tasks outlive the request that started them.
    """

    async def run(self, *, task_status: anyio.abc.TaskStatus[None] = ...) -> None: ...

    def stop(self) -> None: ...


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


def bind_socket(host: str, port: int) -> socket.socket:
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
    # A deep accept queue: a burst of connections is accepted (and, over the cap, closed) rather than
    # left to retry their handshake while a real client waits behind them.
    sock.listen(1024)
    sock.setblocking(False)
    return sock


async def run_http(
    app: ASGIApp,
    sock: socket.socket,
    *,
    beside: Beside,
    limits: ConnectionLimits | None = None,
    task_status: anyio.abc.TaskStatus[Any] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve `app` on `sock` until stopped, with `beside` running in the same task group."""
    config = uvicorn.Config(
        app,
        http=connection_protocol(limits if limits is not None else ConnectionLimits.from_environment()),
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
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
        # Calls that become tasks run in the task manager's group, beside the HTTP server: they
        # outlive the request that started them, and end (failed, saying why) when it stops.
        await group.start(beside.run)

        async def serve_until_stopped() -> None:
            try:
                await server.serve(sockets=[sock])
            finally:
                beside.stop()
                sock.close()
                server.done.set()  # type: ignore[attr-defined]

        group.start_soon(serve_until_stopped)
        await server.ready.wait()
        if not server.started:
            raise ServerError(
                t("serve.failed", error="the HTTP server did not start (see the 'uvicorn' log)")
            )
        task_status.started(server)
