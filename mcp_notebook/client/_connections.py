"""Where the client's calls go: the targets, and one open connection per target.

Targets: the in-kernel server (default), any Streamable HTTP URL, or a stdio command. The SDK's
`Client` is async and must be entered and exited by one task, so each connection here is owned
by one task on the runtime's background loop, and the pool keeps it open for the next call to
the same target. Sending a request over a connection and waiting for it is `_client_requests`.
"""

from __future__ import annotations

import contextlib
import math
import os
import shlex
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio

from .._version import __version__
from ..core._errors import ClientConnectionError, ServerError
from ..core._text import t
from ..runtime._loop import runtime
from ._apps import declaration
from ._questions import elicitation_callback, sampling_callback
from ._target import Target


class _Connection:
    """One SDK `Client`, entered and exited by one task on the runtime loop."""

    def __init__(self, open_client: Callable[[], Any], target: str) -> None:
        self.target = target
        self._open_client = open_client
        self._closed: anyio.Event | None = None
        self.client: Any = None

    async def run(
        self, timeout: float, *, task_status: anyio.abc.TaskStatus[Any] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        self._closed = anyio.Event()
        # One scope for the whole life of the connection (anyio scopes must nest), with a
        # deadline only while connecting.
        with anyio.CancelScope(deadline=anyio.current_time() + timeout) as scope:
            async with self._open_client() as client:
                self.client = client
                scope.deadline = math.inf
                task_status.started(client)
                await self._closed.wait()
        if scope.cancelled_caught and self.client is None:
            raise TimeoutError

    async def close(self) -> None:
        if self._closed is not None:
            self._closed.set()


class ClientPool:
    """Open connections, reused across calls and keyed by target."""

    def __init__(self) -> None:
        self._connections: dict[tuple[str, ...], _Connection] = {}
        self._lock = threading.Lock()
        runtime.on_close(self.close_all)
        # Close our connections to a server before it stops: an open GET stream would hold its shutdown.
        runtime.before_server_stop.append(self.close_target)

    def get(
        self, key: tuple[str, ...], open_client: Callable[[], Any], target: str, timeout: float
    ) -> _Connection:
        with self._lock:
            connection = self._connections.get(key)
        if connection is not None:
            return connection
        connection = _Connection(open_client, target)
        try:
            # The owner task outlives this call: start_task leaves it running in the portal.
            runtime.portal().start_task(connection.run, timeout)
        except TimeoutError:
            raise ClientConnectionError(t("client.timeout", target=target, seconds=timeout)) from None
        except Exception as exc:
            raise ClientConnectionError(
                t("client.unreachable", target=target, error=describe_error(exc))
            ) from exc
        with self._lock:
            self._connections[key] = connection
        return connection

    def drop(self, key: tuple[str, ...], *, wait: bool = False) -> None:
        with self._lock:
            connection = self._connections.pop(key, None)
        if connection is not None:
            with contextlib.suppress(Exception):
                future = runtime.portal().start_task_soon(connection.close)
                if wait:
                    future.result(5)

    def close_target(self, target: str) -> None:
        with self._lock:
            keys = [key for key, connection in self._connections.items() if connection.target == target]
        for key in keys:
            self.drop(key, wait=True)

    def close_all(self) -> None:
        with self._lock:
            connections, self._connections = list(self._connections.values()), {}
        for connection in connections:
            with contextlib.suppress(Exception):
                runtime.portal().call(connection.close)


_pool: ClientPool | None = None


def get_pool() -> ClientPool:
    global _pool
    if _pool is None:
        _pool = ClientPool()
    return _pool


def describe_error(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe_error(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def resolve_target(where: Target, *, tasks: bool = False) -> tuple[tuple[str, ...], Callable[[], Any], str]:
    """The pool key, the opener and the name of a target. `tasks`: a connection that declares the
    2026-07-28 tasks extension on its requests (its own key: other calls never become tasks)."""
    # The SDK loads on the first call (`import mcp` takes over a second): not on `%load_ext`.
    import httpx2
    import mcp_types
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import get_default_environment, stdio_client
    from mcp.client.streamable_http import streamable_http_client

    from ._http import http_client

    url, token, stdio, mode = where.url, where.token, where.stdio, where.mode
    # A server may ask for input (elicitation) or for a model's reply (sampling): a person answers.
    asks: dict[str, Any] = {
        "elicitation_callback": elicitation_callback,
        "sampling_callback": sampling_callback,
        # How this client introduces itself to servers (their approval prompts and logs show it).
        "client_info": mcp_types.Implementation(name="mcp-notebook", version=__version__),
    }
    # Every connection is an MCP Apps host's (`_apps`): a server binds its tools to apps for it as
    # for any host; the tasks extension only where asked for (its own key, below).
    extensions: list[Any] = [declaration()]
    if tasks:
        from ._sdk_compat import TasksClaim  # the SDK is loaded by now (above)

        extensions.append(TasksClaim())
    asks["extensions"] = extensions
    flavour = ("tasks",) if tasks else ()
    if stdio is not None:
        argv = shlex.split(stdio)
        env = None
        if token:
            # For `mcp-notebook bridge` (and any command that reads it): the token goes to the child
            # in its environment, as Claude Desktop's configuration hands it over, never in its argv.
            env = {**get_default_environment(), "MCP_NOTEBOOK_TOKEN": token}
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)

        @contextlib.asynccontextmanager
        async def open_stdio() -> AsyncIterator[Any]:
            # The child's stderr must not land in a random cell: send it nowhere.
            with open(os.devnull, "w") as errlog:
                async with Client(stdio_client(params, errlog=errlog), mode=mode, **asks) as client:
                    yield client

        return ("stdio", stdio, token or "", mode, *flavour), open_stdio, stdio
    headers: dict[str, str] = {}
    if url is None:
        if runtime.endpoint is None:
            raise ServerError(t("serve.not_running"))
        # The notebook calling its own server proves it is the notebook (identity "notebook": the
        # person is the caller, so no approval is asked) with a secret that never leaves this process.
        # A token given on purpose is that identity's instead.
        url, token = runtime.endpoint, token or runtime.local_secret
    if token:
        headers["Authorization"] = f"Bearer {token}"

    def open_http() -> Any:
        # The SDK's own timeouts (30 s; 300 s to read, a stream may stay quiet) with our headers, on a
        # client of our own: the way the SDK documents to send headers (its HTTP client factory is private).
        http = http_client(headers=headers, timeout=httpx2.Timeout(30, read=300))
        return _HttpClient(Client(streamable_http_client(url, http_client=http), mode=mode, **asks), http)

    # The token is part of the key: a connection of one identity never serves another's calls.
    return ("http", url, token or "", mode, *flavour), open_http, url


class _HttpClient:
    """Enter an SDK client together with the httpx client it was given (which it does not own)."""

    def __init__(self, client: Any, http: Any) -> None:
        self._client, self._http = client, http

    async def __aenter__(self) -> Any:
        await self._http.__aenter__()
        try:
            return await self._client.__aenter__()
        except BaseException:
            await self._http.__aexit__(None, None, None)
            raise

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await self._client.__aexit__(*exc)
        finally:
            await self._http.__aexit__(None, None, None)
