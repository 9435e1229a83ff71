"""A synchronous client for magics and plain Python: call tools on any MCP server.

Targets: the in-kernel server (default), any Streamable HTTP URL, or a stdio command, named by the
same keywords everywhere (``url``, ``token``, ``stdio``, ``mode``, ``timeout``: `Target`). Each public
function here (`call`, `list_tools`, `read_resource`, ...) names one SDK call and turns its answer
into JSON dicts or a result view (`CallResult`, `ReadResult`, `PromptResult`). What they all share
lives apart: sending a request and waiting for it (`_client_requests`), and the open connection
to each target (`_client_connections`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..core import _ui
from ..core._app_frame import resource_uri
from ..core._apps import FROM_APP
from ..core._catalogue import tools_changed
from ..core._options import takes_options
from ..core._text import t
from ._apps import app_for, definition, remember
from ._requests import request
from ._results import CallResult, PromptResult, ReadResult
from ._target import Target
from ._tasks import TaskCall, to_call_result


@takes_options(Target)
def call(
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    confirm: bool = False,
    on_progress: Callable[[float, float | None, str | None], None] | None = None,
    task: bool = False,
    from_app: str | None = None,
    **target: Any,
) -> Any:
    """Call the tool `name` and return its result.

    Parameters
    ----------
    name, arguments:
        The tool and its arguments (a dict of JSON values).
    url, token, stdio, mode, timeout:
        Which server to call and how long to wait (see `Target`). Without `url` or `stdio`, the
        call goes to the in-kernel server as the notebook itself (identity ``"notebook"``), or,
        given a `token`, as the identity that token proves (a client's, from ``srv.add_client``).
    on_progress:
        ``on_progress(progress, total, message)`` for each progress notification of the call
        (called on the client's thread).
    confirm:
        Do not call yet: return a `PendingCall` at once that shows Approve / Deny and runs the
        call only when approved (``.result()``, ``await``, ``.approve()``, ``.deny()``).
    task:
        Run the call as a task (a tool with ``@tool(task="optional")`` or ``"required"``, on a
        server of the 2026-07-28 era): return a `TaskCall` at once, shown as a progress bar with a
        Cancel button, with ``.status``, ``.progress``, ``.result(timeout)``, ``await`` and
        ``.cancel()``. A call the server answers at once gives a `TaskCall` that has ended.
    from_app:
        The ``ui://`` app on whose behalf the call is made (a host showing an MCP App): sent in the
        request's ``_meta`` so that the server's activity log says so, and kept on the result.

    Raises
    ------
    ProtocolError
        The server answered with a JSON-RPC error (e.g. ``-32602`` for an unknown tool).
    ClientConnectionError
        The server could not be reached, or did not answer in time.
    OptionError
        A target option that cannot work (a ``mode`` that is not an era, ``url`` and ``stdio`` both).
    """
    where = Target.of(target, "call()")
    if confirm:
        asks = {"from_app": from_app} if from_app else {}
        return _ui.make("pending_call", name, dict(arguments or {}), where.options(), **asks)
    if task:
        return _as_task(name, dict(arguments or {}), where)

    async def progress(value: float, total: float | None, message: str | None) -> None:
        if on_progress is not None:
            on_progress(value, total, message)

    async def do(client: Any) -> Any:
        await current_definitions(client)
        # The app is found before the call (the SDK lists the tools before a first call anyway, to
        # check its result) and read after it, over this same connection.
        try:
            bound = await definition(client, name)
        except Exception:  # a listing the server fails: the call still goes, shown without an app
            bound = None
        meta = {FROM_APP: from_app} if from_app else None
        result = await client.call_tool(name, arguments or {}, progress_callback=progress, meta=meta)
        return result, (await app_for(client, name) if resource_uri(bound) else None)

    def finish(answer: Any) -> CallResult:
        result, app = answer
        raw = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        called = to_call_result(name, raw, where)
        called.arguments, called.app = dict(arguments or {}), app
        if from_app:
            # The app asked: the result goes back to it, and is not shown with the app again.
            called.from_app, called.app = from_app, None
        return called

    return request(do, where, finish=finish, label=name)


def _as_task(name: str, arguments: dict[str, Any], where: Target) -> TaskCall:
    """`call` with ``task=True``: the call over a connection that declares the tasks extension."""
    if where.mode == "legacy":
        raise ValueError(t("task_call.legacy"))

    def send(fn: Callable[[Any], Any]) -> Any:
        return request(fn, where, label=name, tasks=True)

    async def start(client: Any) -> Any:
        await current_definitions(client)
        return await client.session.call_tool(name, arguments, allow_claimed=True)

    answer = send(start)
    task_id = getattr(answer, "task_id", None)
    if task_id is None:  # answered at once (quick, or a tool that does not run as a task)
        raw = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
        return TaskCall.answered(name, to_call_result(name, raw, where))
    followed = TaskCall(name, send, task_id, where)
    followed.status, followed.message = answer.status, answer.status_message
    followed.follow(answer.poll_interval_ms)
    return followed


@takes_options(Target)
def list_tools(**target: Any) -> list[dict[str, Any]]:
    """Every tool the target lists (all pages), as JSON dicts. Targets as in `call`."""
    return _every("list_tools", "tools", Target.of(target, "list_tools()"))


def _every(method: str, attribute: str, where: Target) -> list[dict[str, Any]]:
    """Every item a paginated ``*/list`` of `where` lists (the client's `method`, the page's `attribute`)."""

    async def do(client: Any) -> list[dict[str, Any]]:
        return await _all_pages(getattr(client, method), attribute)

    listed: list[dict[str, Any]] = request(do, where)
    return listed


async def current_definitions(client: Any) -> None:
    """List the tools again on this connection when a cell of this process has redefined a tool since
    it last listed them.

    The SDK checks a result's structured content against the output schema it listed for the tool,
    and keeps that schema until the connection lists again: a tool redefined to return another shape
    (``-> str`` became ``-> dict``) would have its answers refused as breaking the protocol.
    """
    changed = tools_changed()
    seen = getattr(client, "_mcp_notebook_tools_changed", None)
    client._mcp_notebook_tools_changed = changed
    if seen is not None and seen != changed:
        remember(
            client, await _all_pages(functools.partial(client.list_tools, cache_mode="refresh"), "tools")
        )


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


@takes_options(Target)
def read_resource(uri: str, **target: Any) -> ReadResult:
    """Read the resource at `uri` (``resources/read``). Targets as in `call`.

    Raises
    ------
    ProtocolError
        For example an unknown URI (``-32002`` on 2025-11-25, ``-32602`` on 2026-07-28).
    """

    async def do(client: Any) -> Any:
        return await client.read_resource(uri)

    where = Target.of(target, "read_resource()")
    result = request(do, where)
    return ReadResult(uri=uri, contents=_dump(result).get("contents", []), origin=where)


@takes_options(Target)
def get_prompt(name: str, arguments: dict[str, str] | None = None, **target: Any) -> PromptResult:
    """Get the prompt `name` filled with `arguments` (``prompts/get``). Targets as in `call`."""

    async def do(client: Any) -> Any:
        return await client.get_prompt(name, {key: str(value) for key, value in (arguments or {}).items()})

    where = Target.of(target, "get_prompt()")
    raw = _dump(request(do, where))
    return PromptResult(
        name=name,
        messages=raw.get("messages", []),
        description=raw.get("description"),
        raw=raw,
        origin=where,
    )


@takes_options(Target)
def list_resources(**target: Any) -> dict[str, list[dict[str, Any]]]:
    """All resources and resource templates of the target: ``{"resources": [...], "templates": [...]}``."""

    async def do(client: Any) -> dict[str, list[dict[str, Any]]]:
        return {
            "resources": await _all_pages(client.list_resources, "resources"),
            "templates": await _all_pages(client.list_resource_templates, "resource_templates"),
        }

    listed: dict[str, list[dict[str, Any]]] = request(do, Target.of(target, "list_resources()"))
    return listed


@takes_options(Target)
def list_prompts(**target: Any) -> list[dict[str, Any]]:
    """Every prompt the target lists (all pages), as JSON dicts. Targets as in `call`."""
    return _every("list_prompts", "prompts", Target.of(target, "list_prompts()"))


@takes_options(Target)
def complete(
    ref: str, argument: str, value: str = "", *, context: dict[str, str] | None = None, **target: Any
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

    result = request(do, Target.of(target, "complete()"))
    return list(result.completion.values)
