"""One synchronous request to a target, over the pool's connection for it.

The request runs on the runtime's background loop while the calling thread waits. A cell waiting
for an answer from the in-kernel server keeps running queued ``run_in="kernel"`` calls, so it
cannot deadlock with the server it is calling; and when the server asks a person for input
meanwhile, the wait stops so the question can be shown. SDK and transport errors become this
package's exceptions here, in one place for every public function of `_client`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Coroutine
from typing import Any

import anyio

from ..core import _ui
from ..core._errors import ClientConnectionError, InvalidResultError, ProtocolError
from ..core._text import t
from ..core._tracing import attached, carried
from ..runtime._execution import STOPPED
from ..runtime._loop import runtime
from . import _questions
from ._connections import describe_error, get_pool, resolve_target
from ._target import Target


def _wait(future: Any, timeout: float, target: str) -> Any:
    """The future's result; or `STOPPED` when the server asked for a person's input meanwhile."""
    try:
        if threading.current_thread() is threading.main_thread():
            unregister = _questions.on_request(runtime.kernel_pump.wake)
            try:
                return runtime.kernel_pump.wait(future, timeout, stop=lambda: not _questions.inbox.empty())
            finally:
                unregister()
        woken = threading.Event()
        future.add_done_callback(lambda _: woken.set())
        unregister = _questions.on_request(woken.set)
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
                t("client.invalid_result", target=target, error=describe_error(exc))
            ) from None
        return raw if finish is None else finish(raw)

    return done


def _in_trace(
    fn: Callable[[Any], Coroutine[Any, Any, Any]], caller: Any
) -> Callable[[Any], Coroutine[Any, Any, Any]]:
    async def traced(client: Any) -> Any:
        with attached(caller):
            return await fn(client)

    return traced


def _is_connection_error(exc: BaseException) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return any(_is_connection_error(inner) for inner in exc.exceptions)
    name = type(exc).__module__
    return isinstance(
        exc, OSError | anyio.ClosedResourceError | anyio.BrokenResourceError
    ) or name.startswith(("httpx", "httpcore"))


def _closed_locally(exc: Any) -> bool:
    """Whether `exc` is the SDK's ``Connection closed``, raised on this side, not a server's error."""
    from mcp.types import CONNECTION_CLOSED

    return bool(exc.code == CONNECTION_CLOSED and exc.error.message == "Connection closed")


def request(
    fn: Callable[[Any], Coroutine[Any, Any, Any]],
    where: Target,
    *,
    finish: Callable[[Any], Any] | None = None,
    label: str = "",
    tasks: bool = False,
) -> Any:
    """Run ``await fn(client)`` against the target `where` and return ``finish(result)`` (sync).

    If the server asks for a person's input meanwhile, a `CallInProgress` is returned instead.
    `tasks`: over a connection that declares the tasks extension (`resolve_target`).
    """
    from mcp.shared.exceptions import MCPError

    key, open_client, target = resolve_target(where, tasks=tasks)
    timeout = where.timeout
    pool = get_pool()
    caller = carried()
    if caller is not None:
        # The request runs as a task of the runtime's loop: the caller's trace goes with it,
        # whatever the portal does with the caller's context variables (anyio's versions differ),
        # so the SDK client sends it (``traceparent`` in ``_meta``) and the call joins the trace.
        fn = _in_trace(fn, caller)
    for attempt in (1, 2):
        connection = pool.get(key, open_client, target, timeout)
        future = runtime.portal().start_task_soon(fn, connection.client)
        try:
            outcome = _wait(future, timeout, target)
            if outcome is STOPPED:
                # A person must answer first: stop waiting, show the question(s), finish later.
                return _ui.make(
                    "call_in_progress",
                    label or target,
                    _questions.take_questions(),
                    future,
                    _finishing(finish, target),
                )
            return outcome if finish is None else finish(outcome)
        except MCPError as exc:
            if _closed_locally(exc):
                # The SDK's own word for a transport that ended with the request unanswered (a
                # refused connection reads the same in the stateless era): not the server's answer.
                # No retry: the call may have reached the server and run.
                pool.drop(key)
                raise ClientConnectionError(t("client.closed", target=target)) from None
            raise ProtocolError(exc.code, exc.error.message, exc.error.data) from None
        except ClientConnectionError:
            pool.drop(key)
            raise
        except (RuntimeError, ValueError) as exc:
            # The SDK client checks what it receives (output schemas, result shapes): the server
            # answered, but wrongly. Not a connection problem: say so, and keep the connection.
            if not _is_connection_error(exc):
                raise InvalidResultError(
                    t("client.invalid_result", target=target, error=describe_error(exc))
                ) from None
            pool.drop(key)
            if attempt == 2:
                raise ClientConnectionError(
                    t("client.unreachable", target=target, error=describe_error(exc))
                ) from exc
        except Exception as exc:
            # A broken connection (server restarted, process gone): reconnect once, then give up.
            pool.drop(key)
            if attempt == 2:
                raise ClientConnectionError(
                    t("client.unreachable", target=target, error=describe_error(exc))
                ) from exc
    raise AssertionError("unreachable")
