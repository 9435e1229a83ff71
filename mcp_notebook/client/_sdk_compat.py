"""Where the client side leans on the SDK's internals: every such use, in this one module.

The client side is the client layer and the bridge's upstream connections (``mcp-notebook bridge``,
which may import the client layer). Their needs the SDK's `Client` has no public way for: to
declare exactly the capabilities a bridged client declared (`DeclaringClient`), the 2026-07-28
tasks extension (`TasksClaim`, `get_task`, `cancel_task`: the SDK has no tasks, 2.3), and for the
bridge, a request whose answer the SDK would refuse to read (`send_unchecked`: a 2025-11-25
task-augmented ``tools/call`` is answered with a task) and the 2025-11-25 ``notifications/tasks/status``
(`TaskStatusWatch`), which the SDK drops unless an extension binds it. Nothing outside the
two compat modules touches a private name of the SDK (this one, and `mcp_notebook.server._sdk_compat`
for the server's side: the server and client layers never import each other, so each has its own);
``tests/peers/test_sdk_compat.py`` fails when a module elsewhere does.

`RELIES_ON` lists every private name used here and what else of the SDK's we use in a way it does not
document, with the shape we need and where we rely on it; the same test checks each one on the
installed SDK and fails naming the one that changed. pyproject keeps ``mcp`` below its next minor
release: raise the bound only once that test passes on it.

One reliance has no name to check: the SDK runs an upstream client's callbacks (log lines, questions)
in the context of the request that caused them, carrying context variables across its streams, which
is how the bridge knows which stdio request they belong to (``cli/_bridge_upstream.py``,
`forwarding`). ``tests/cli/test_bridge.py::test_progress_logs_and_questions_cross_between_any_two_eras``
fails when that changes.

Importing this module loads the SDK (over a second): import it where the SDK is loaded already.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, NotificationBinding, ResultClaim
from mcp.client.session import ClientSession
from mcp.shared.dispatcher import CallOptions, ProgressFnT
from pydantic import ConfigDict, Field, TypeAdapter

# (what, the shape we need, who relies on it). Shapes: "def (signature)" and "async def (signature)"
# (exactly those parameters, annotations aside), "dataclass".
RELIES_ON: tuple[tuple[str, str, str], ...] = (
    ("mcp.client.client.Client", "dataclass", "DeclaringClient (a dataclass subclass with one more field)"),
    # Not a reliance but a subclass's own: ABCMeta gives each subclass of the SDK's models one.
    (
        "mcp.types.Result._abc_impl",
        "attribute",
        "CreatedTask, GetTask, CancelTask (subclasses of SDK models)",
    ),
    ("mcp.client.client.Client._build_session", "async def (self, exit_stack)", "DeclaringClient"),
    ("mcp.client.session.ClientSession._build_capabilities", "def (self, version)", "DeclaringClient"),
    ("mcp.client.session.ClientSession._stamp", "attribute", "send_unchecked (the era's envelope)"),
    ("mcp.client.session.ClientSession._dispatcher", "attribute", "send_unchecked (the raw request)"),
)


@dataclass(kw_only=True)
class DeclaringClient(Client):
    """An SDK `Client` that declares the capabilities `declared`, exactly, instead of its own.

    ``ClientSession._build_capabilities(version)`` makes the declaration of ``initialize``,
    ``server/discover`` and each 2026-07-28 request from the callbacks alone: any elicitation callback
    declares form and url mode, any roots callback ``listChanged``, and only sampling's
    sub-capabilities have a parameter. So that one method is replaced on the session
    ``Client._build_session`` makes. `None` keeps the SDK's declaration. A ``capabilities`` parameter
    on `Client` (as the Go SDK's ``ClientOptions.Capabilities``) would replace this class.
    """

    declared: types.ClientCapabilities | None = None

    async def _build_session(self, exit_stack: contextlib.AsyncExitStack) -> ClientSession:
        session = await super()._build_session(exit_stack)
        declared = self.declared
        if declared is not None:
            session._build_capabilities = lambda version: declared  # type: ignore[method-assign]
        return session


# -- the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks), client side ------------------------
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TERMINAL = ("completed", "failed", "cancelled")
_RAW: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])


class GetTask(types.GetTaskRequest):
    """``tasks/get`` with ``Mcp-Name``: the extension requires the header; the SDK's 2025 type sets none."""

    name_param = "taskId"


class CancelTask(types.CancelTaskRequest):
    """``tasks/cancel`` with ``Mcp-Name``."""

    name_param = "taskId"


class CreatedTask(types.Result):
    """``tools/call`` answered with a task (flat); a claim model must subclass the SDK's `Result`."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None


async def get_task(session: Any, task_id: str) -> dict[str, Any]:
    """``tasks/get``: the task as the server sent it (its result or error inlined once it ended)."""
    request = GetTask(params=types.GetTaskRequestParams(task_id=task_id))
    return await session.send_request(request, _RAW)  # type: ignore[no-any-return]


async def cancel_task(session: Any, task_id: str) -> dict[str, Any]:
    request = CancelTask(params=types.CancelTaskRequestParams(task_id=task_id))
    return await session.send_request(request, _RAW)  # type: ignore[no-any-return]


async def _settle(created: CreatedTask, ctx: ClaimContext) -> types.CallToolResult:
    """A task answer to a plain ``call_tool`` on such a connection: poll it to its end."""
    while True:
        task = await get_task(ctx.session, created.task_id)
        if task.get("status") == "completed":
            return types.CallToolResult.model_validate(task.get("result") or {"content": []})
        if task.get("status") in TERMINAL:
            message = (
                (task.get("error") or {}).get("message") or task.get("statusMessage") or task.get("status")
            )
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(message))], is_error=True
            )
        await anyio.sleep((task.get("pollIntervalMs") or 500) / 1000)


class TasksClaim(ClientExtension):
    """The tasks extension, declared on every request of a connection made with it; a ``tools/call``
    with ``allow_claimed=True`` returns a task answer as a `CreatedTask`."""

    identifier = TASKS_EXTENSION

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=_settle)]


# -- for the bridge: what the SDK's client would refuse or drop ---------------------------------------------
async def send_unchecked(
    session: ClientSession, request: Any, progress_callback: ProgressFnT | None = None
) -> dict[str, Any]:
    """Send `request` as ``send_request`` does (the era's envelope, headers, progress), and return the
    result as it came, unread.

    ``send_request`` checks every result against the negotiated era's schema, and a 2025-11-25
    task-augmented ``tools/call`` is answered with ``{"task": {...}}``, which its ``CallToolResult``
    refuses (the SDK has no tasks, 2.3). A ``validate`` switch on ``send_request`` would replace this.
    """
    data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    opts: CallOptions = {}
    session._stamp(data, opts)
    if progress_callback is not None:
        opts["on_progress"] = progress_callback
    return await session._dispatcher.send_raw_request(data["method"], data.get("params"), opts)


class _RelayedRequest(types.Request):  # type: ignore[type-arg]
    """A request with the params another client sent (the bridge relays ``tasks/*`` as they came).

    Not ``types.Request[...]``: pydantic would put that parametrised class in this module, with no source.
    """

    method: str
    params: dict[str, Any] | None = None


class _NamedRelayedRequest(_RelayedRequest):
    """One that names its task in ``Mcp-Name``."""

    name_param = "taskId"


async def send_relayed(
    session: ClientSession, method: str, params: dict[str, Any], *, named: bool
) -> dict[str, Any]:
    """Send `method` with `params` as they are and return the result as it came (a JSON object).

    `named`: the request names ``params["taskId"]`` in ``Mcp-Name`` (a string, or the SDK refuses it).
    """
    kind = _NamedRelayedRequest if named and isinstance(params.get("taskId"), str) else _RelayedRequest
    # The SDK's result types are models; an answer relayed as it came is a JSON object.
    return await session.send_request(kind(method=method, params=params), _RAW)  # type: ignore[type-var]


class TaskStatusWatch(ClientExtension):
    """Hands each 2025-11-25 ``notifications/tasks/status`` to `handler` (the SDK drops them otherwise).

    Its capability ad is never sent: it is for a `DeclaringClient`, which declares what it is told.
    """

    identifier = TASKS_EXTENSION

    def __init__(self, handler: Callable[[types.TaskStatusNotificationParams], Awaitable[None]]) -> None:
        self._handler = handler

    def notifications(self) -> Sequence[NotificationBinding[Any]]:
        return [
            NotificationBinding(
                method="notifications/tasks/status",
                params_type=types.TaskStatusNotificationParams,
                handler=self._handler,
            )
        ]
