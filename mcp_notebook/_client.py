"""A synchronous client for magics and plain Python: call tools on any MCP server.

Targets: the in-kernel server (default), any Streamable HTTP URL, or a stdio command. The SDK's
`Client` is async and must be entered and exited by one task; each connection here is owned by
one task on the runtime's background loop, and requests are handed to that loop. A cell waiting
for an answer from the in-kernel server keeps running queued ``run_in="kernel"`` calls, so it
cannot deadlock with the server it is calling.
"""

from __future__ import annotations

import contextlib
import math
import os
import shlex
import threading
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import anyio

from ._errors import ClientConnectionError, InvalidResultError, ProtocolError, ServerError
from ._execution import STOPPED
from ._runtime import current_server, runtime
from ._server import LOCAL_HEADER
from ._text import t
from ._views import CallResult, PromptResult, ReadResult

DEFAULT_TIMEOUT = 60.0


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
        runtime.before_server_stop.append(lambda server: self.close_target(server.url))

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
            raise ClientConnectionError(t("client.unreachable", target=target, error=_describe(exc))) from exc
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


def _get_pool() -> ClientPool:
    global _pool
    if _pool is None:
        _pool = ClientPool()
    return _pool


def _wait(future: Any, timeout: float, target: str) -> Any:
    """The future's result; or `STOPPED` when the server asked for a person's input meanwhile."""
    from . import _asks

    try:
        if threading.current_thread() is threading.main_thread():
            unregister = _asks.on_request(runtime.kernel_pump.wake)
            try:
                return runtime.kernel_pump.wait(future, timeout, stop=lambda: not _asks.inbox.empty())
            finally:
                unregister()
        woken = threading.Event()
        future.add_done_callback(lambda _: woken.set())
        unregister = _asks.on_request(woken.set)
        try:
            if not woken.wait(timeout):
                raise TimeoutError
            if not future.done():
                return STOPPED
            return future.result()
        finally:
            unregister()
    except TimeoutError:
        future.cancel()
        raise ClientConnectionError(t("client.timeout", target=target, seconds=timeout)) from None


def _finishing(finish: Callable[[Any], Any] | None, target: str) -> Callable[[Any], Any]:
    """`finish` for a result that arrives later (given its future), translating errors as `request` does."""
    from mcp.shared.exceptions import MCPError

    def done(future: Any) -> Any:
        try:
            raw = future.result()
        except MCPError as exc:
            raise ProtocolError(exc.code, exc.error.message, exc.error.data) from None
        except (RuntimeError, ValueError) as exc:
            raise InvalidResultError(
                t("client.invalid_result", target=target, error=_describe(exc))
            ) from None
        return raw if finish is None else finish(raw)

    return done


def _is_connection_error(exc: BaseException) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return any(_is_connection_error(inner) for inner in exc.exceptions)
    name = type(exc).__module__
    return isinstance(
        exc, OSError | anyio.ClosedResourceError | anyio.BrokenResourceError
    ) or name.startswith(("httpx", "httpcore"))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _resolve_target(
    url: str | None, token: str | None, stdio: str | None, mode: str
) -> tuple[tuple[str, ...], Callable[[], Any], str]:
    # A server may ask for input (elicitation) or for a model's reply (sampling): a person answers.
    import mcp_types
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    from ._asks import elicitation_callback, sampling_callback
    from ._version import __version__

    asks: dict[str, Any] = {
        "elicitation_callback": elicitation_callback,
        "sampling_callback": sampling_callback,
        # How this client introduces itself to servers (their approval prompts and logs show it).
        "client_info": mcp_types.Implementation(name="mcp-notebook", version=__version__),
    }
    if stdio is not None:
        argv = shlex.split(stdio)
        params = StdioServerParameters(command=argv[0], args=argv[1:])

        @contextlib.asynccontextmanager
        async def open_stdio() -> AsyncIterator[Any]:
            # The child's stderr must not land in a random cell: send it nowhere.
            with open(os.devnull, "w") as errlog:
                async with Client(stdio_client(params, errlog=errlog), mode=mode, **asks) as client:
                    yield client

        return ("stdio", stdio, mode), open_stdio, stdio
    headers: dict[str, str] = {}
    if url is None:
        server = current_server()
        if server is None:
            raise ServerError(t("serve.not_running"))
        url, token = server.url, token or server.token
        # The notebook calling its own server: the person is the caller, so no approval is asked.
        headers[LOCAL_HEADER] = runtime.local_secret
    if token:
        headers["Authorization"] = f"Bearer {token}"

    def open_http() -> Any:
        http = create_mcp_http_client(headers=headers)
        return _HttpClient(Client(streamable_http_client(url, http_client=http), mode=mode, **asks), http)

    # The local flag is part of the key: an outside-style connection must never serve a local call.
    return ("http", url, token or "", mode, str(LOCAL_HEADER in headers)), open_http, url


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


def request(
    fn: Callable[[Any], Coroutine[Any, Any, Any]],
    *,
    url: str | None = None,
    token: str | None = None,
    stdio: str | None = None,
    mode: str = "auto",
    timeout: float = DEFAULT_TIMEOUT,
    finish: Callable[[Any], Any] | None = None,
    label: str = "",
) -> Any:
    """Run ``await fn(client)`` against the target and return ``finish(result)`` (sync).

    If the server asks for a person's input meanwhile, a `CallInProgress` is returned instead.
    """
    from mcp.shared.exceptions import MCPError

    key, open_client, target = _resolve_target(url, token, stdio, mode)
    pool = _get_pool()
    for attempt in (1, 2):
        connection = pool.get(key, open_client, target, timeout)
        future = runtime.portal().start_task_soon(fn, connection.client)
        try:
            outcome = _wait(future, timeout, target)
            if outcome is STOPPED:
                # A person must answer first: stop waiting, show the question(s), finish later.
                from ._asks import CallInProgress, take_questions

                return CallInProgress(label or target, take_questions(), future, _finishing(finish, target))
            return outcome if finish is None else finish(outcome)
        except MCPError as exc:
            raise ProtocolError(exc.code, exc.error.message, exc.error.data) from None
        except ClientConnectionError:
            pool.drop(key)
            raise
        except (RuntimeError, ValueError) as exc:
            # The SDK client checks what it receives (output schemas, result shapes): the server
            # answered, but wrongly. Not a connection problem: say so, and keep the connection.
            if not _is_connection_error(exc):
                raise InvalidResultError(
                    t("client.invalid_result", target=target, error=_describe(exc))
                ) from None
            pool.drop(key)
            if attempt == 2:
                raise ClientConnectionError(
                    t("client.unreachable", target=target, error=_describe(exc))
                ) from exc
        except Exception as exc:
            # A broken connection (server restarted, process gone): reconnect once, then give up.
            pool.drop(key)
            if attempt == 2:
                raise ClientConnectionError(
                    t("client.unreachable", target=target, error=_describe(exc))
                ) from exc
    raise AssertionError("unreachable")


def call(
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    url: str | None = None,
    token: str | None = None,
    stdio: str | None = None,
    mode: str = "auto",
    timeout: float = DEFAULT_TIMEOUT,
    confirm: bool = False,
    on_progress: Callable[[float, float | None, str | None], None] | None = None,
) -> Any:
    """Call the tool `name` and return its result.

    Parameters
    ----------
    name, arguments:
        The tool and its arguments (a dict of JSON values).
    url, token:
        Reach any Streamable HTTP server instead of the in-kernel one.
    stdio:
        A command line that starts a stdio MCP server, instead of a URL.
    mode:
        ``"auto"`` (default), ``"legacy"`` (2025-11-25 handshake) or ``"2026-07-28"``.
    timeout:
        Seconds to wait for the answer.
    on_progress:
        ``on_progress(progress, total, message)`` for each progress notification of the call
        (called on the client's thread).
    confirm:
        Do not call yet: return a `PendingCall` at once that shows Approve / Deny and runs the
        call only when approved (``.result()``, ``await``, ``.approve()``, ``.deny()``).

    Raises
    ------
    ProtocolError
        The server answered with a JSON-RPC error (e.g. ``-32602`` for an unknown tool).
    ClientConnectionError
        The server could not be reached, or did not answer in time.
    """

    if confirm:
        from ._pending import PendingCall

        options = {"url": url, "token": token, "stdio": stdio, "mode": mode, "timeout": timeout}
        return PendingCall(name, dict(arguments or {}), options)

    async def progress(value: float, total: float | None, message: str | None) -> None:
        if on_progress is not None:
            on_progress(value, total, message)

    async def do(client: Any) -> Any:
        return await client.call_tool(name, arguments or {}, progress_callback=progress)

    def finish(result: Any) -> CallResult:
        raw = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return CallResult(
            tool=name,
            content=raw.get("content", []),
            structured_content=raw.get("structuredContent"),
            is_error=bool(raw.get("isError")),
            raw=raw,
        )

    return request(
        do, url=url, token=token, stdio=stdio, mode=mode, timeout=timeout, finish=finish, label=name
    )


def list_tools(
    *,
    url: str | None = None,
    token: str | None = None,
    stdio: str | None = None,
    mode: str = "auto",
    timeout: float = DEFAULT_TIMEOUT,
) -> list[dict[str, Any]]:
    """Every tool the target lists (all pages), as JSON dicts."""

    async def do(client: Any) -> list[dict[str, Any]]:
        return await _all_pages(client.list_tools, "tools")

    result: list[dict[str, Any]] = request(do, url=url, token=token, stdio=stdio, mode=mode, timeout=timeout)
    return result


async def _all_pages(method: Any, attribute: str) -> list[dict[str, Any]]:
    """Every item of a paginated */list, following nextCursor to the end."""
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = await method(cursor=cursor)
        items.extend(_dump(item) for item in getattr(page, attribute))
        cursor = page.next_cursor
        if not cursor:
            return items


def _dump(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


def read_resource(
    uri: str,
    *,
    url: str | None = None,
    token: str | None = None,
    stdio: str | None = None,
    mode: str = "auto",
    timeout: float = DEFAULT_TIMEOUT,
) -> ReadResult:
    """Read the resource at `uri` (``resources/read``). Targets as in `call`.

    Raises
    ------
    ProtocolError
        For example an unknown URI (``-32002`` on 2025-11-25, ``-32602`` on 2026-07-28).
    """

    async def do(client: Any) -> Any:
        return await client.read_resource(uri)

    result = request(do, url=url, token=token, stdio=stdio, mode=mode, timeout=timeout)
    return ReadResult(uri=uri, contents=_dump(result).get("contents", []))


def get_prompt(
    name: str,
    arguments: dict[str, str] | None = None,
    *,
    url: str | None = None,
    token: str | None = None,
    stdio: str | None = None,
    mode: str = "auto",
    timeout: float = DEFAULT_TIMEOUT,
) -> PromptResult:
    """Get the prompt `name` filled with `arguments` (``prompts/get``). Targets as in `call`."""

    async def do(client: Any) -> Any:
        return await client.get_prompt(name, {key: str(value) for key, value in (arguments or {}).items()})

    raw = _dump(request(do, url=url, token=token, stdio=stdio, mode=mode, timeout=timeout))
    return PromptResult(
        name=name, messages=raw.get("messages", []), description=raw.get("description"), raw=raw
    )


def list_resources(
    *,
    url: str | None = None,
    token: str | None = None,
    stdio: str | None = None,
    mode: str = "auto",
    timeout: float = DEFAULT_TIMEOUT,
) -> dict[str, list[dict[str, Any]]]:
    """All resources and resource templates of the target: ``{"resources": [...], "templates": [...]}``."""

    async def do(client: Any) -> dict[str, list[dict[str, Any]]]:
        return {
            "resources": await _all_pages(client.list_resources, "resources"),
            "templates": await _all_pages(client.list_resource_templates, "resource_templates"),
        }

    listed: dict[str, list[dict[str, Any]]] = request(
        do, url=url, token=token, stdio=stdio, mode=mode, timeout=timeout
    )
    return listed


def list_prompts(
    *,
    url: str | None = None,
    token: str | None = None,
    stdio: str | None = None,
    mode: str = "auto",
    timeout: float = DEFAULT_TIMEOUT,
) -> list[dict[str, Any]]:
    """Every prompt the target lists (all pages), as JSON dicts."""

    async def do(client: Any) -> list[dict[str, Any]]:
        return await _all_pages(client.list_prompts, "prompts")

    listed: list[dict[str, Any]] = request(do, url=url, token=token, stdio=stdio, mode=mode, timeout=timeout)
    return listed


def complete(
    ref: str,
    argument: str,
    value: str = "",
    *,
    context: dict[str, str] | None = None,
    url: str | None = None,
    token: str | None = None,
    stdio: str | None = None,
    mode: str = "auto",
    timeout: float = DEFAULT_TIMEOUT,
) -> list[str]:
    """Completions for an argument of a prompt (`ref` = its name) or a resource template (`ref` = its URI)."""
    import mcp_types as types

    reference: Any = (
        types.ResourceTemplateReference(type="ref/resource", uri=ref)
        if "://" in ref
        else types.PromptReference(type="ref/prompt", name=ref)
    )

    async def do(client: Any) -> Any:
        return await client.complete(reference, {"name": argument, "value": value}, context_arguments=context)

    result = request(do, url=url, token=token, stdio=stdio, mode=mode, timeout=timeout)
    return list(result.completion.values)
