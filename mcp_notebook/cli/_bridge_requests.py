"""How the bridge forwards each request of its stdio client, and carries back what comes with it.

Every request goes upstream as it is, with the stdio client's own ``_meta`` (its progress token is
the upstream client's to mint again, its log level goes with it), on the connection that declares
what the stdio client declared (`_bridge_upstream`). Errors come back with their codes; only
"resource not found", whose code changed between the eras, is given in the stdio client's era.
Results come back in the stdio client's era: what one hop adds for the next (the 2026-07-28
``serverInfo`` stamp) is dropped, and the stdio side stamps its own where its era wants one.

A request the server may answer with questions (``tools/call``, ``prompts/get``, ``resources/read``)
is answered in the era of the stdio client: see `RequestRelay.interactive`. A ``tools/call`` the
server answers with a task (2026-07-28 ``resultType: "task"``, 2025-11-25 ``{"task": {...}}``) is
passed on as it came, for the stdio client to follow with ``tasks/*`` (`_bridge_tasks`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.server.context import ServerRequestContext
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, TypeAdapter

from ..client._sdk_compat import send_unchecked
from ..core._text import t
from ..server._sdk_compat import answer_instead
from ._bridge_held import HeldCall, HeldCalls
from ._bridge_upstream import Upstreams, ask_downstream, forwarding, is_modern

# resources/read of an unknown URI: spec 2025-11-25 server/resources "Error Handling".
_NOT_FOUND_2025 = -32002
# Input rounds of one request before giving up (the SDK client's own limit).
MAX_ROUNDS = 10
# The stdio client's own `_meta` keys travel upstream; the reserved ones describe this hop only (the
# upstream client stamps its own), and a progress token is the upstream client's to mint.
_RESERVED = "io.modelcontextprotocol/"

_RAW: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])
# What the server may answer with questions, and the answers it gives (either shape).
_INTERACTIVE: dict[str, tuple[Any, TypeAdapter[Any]]] = {
    "tools/call": (types.CallToolRequest, TypeAdapter(types.CallToolResult | types.InputRequiredResult)),
    "prompts/get": (types.GetPromptRequest, TypeAdapter(types.GetPromptResult | types.InputRequiredResult)),
    "resources/read": (
        types.ReadResourceRequest,
        TypeAdapter(types.ReadResourceResult | types.InputRequiredResult),
    ),
}


class RequestRelay:
    """The request handlers of the stdio-facing server: each forwards upstream and answers in kind."""

    def __init__(self, url: str, upstreams: Upstreams, held: HeldCalls) -> None:
        self.url = url
        self.upstreams = upstreams
        self.held = held

    async def forward(
        self, ctx: ServerRequestContext[Any], request: Callable[[Client], Awaitable[Any]]
    ) -> Any:
        try:
            async with self.upstreams.connection(ctx) as upstream:
                with forwarding(ctx):
                    result = await request(upstream)
        except MCPError:
            raise  # the upstream's answer, code and all
        except Exception as exc:
            raise MCPError(
                types.INTERNAL_ERROR, t("bridge.upstream_failed", url=self.url, error=exc)
            ) from exc
        return _for_stdio(result)

    def upstream_meta(self, ctx: ServerRequestContext[Any], upstream: Client) -> Any:
        """The ``_meta`` the upstream request carries: the stdio client's own keys, and its log level."""
        given = _wire_meta(ctx)
        meta = {k: v for k, v in given.items() if not k.startswith(_RESERVED) and k != "progressToken"}
        if is_modern(upstream.protocol_version):
            # 2026-07-28 sends log lines only to requests that ask: ask at the level the stdio client
            # wants (a 2025-11-25 client's logging/setLevel; all of them until it sets one, as a
            # 2025-11-25 server would).
            if is_modern(ctx.protocol_version):
                level = given.get(types.LOG_LEVEL_META_KEY)
            else:
                level = self.upstreams.log_level or "debug"
            if level is not None:
                meta[types.LOG_LEVEL_META_KEY] = level
        return meta or None

    @staticmethod
    def _progress(ctx: ServerRequestContext[Any]) -> ProgressFnT | None:
        """Relay the upstream's progress to the stdio client, if it asked for progress.

        It asks with a ``progressToken`` on the wire, and the bridge's server is only ever served on a
        wire (stdio). The SDK's in-process connection to a `Server` hands the callback over without a
        token, so a client connected to `Bridge.build_server` that way gets no progress: connect it
        through a pipe, as stdio does.
        """
        if "progressToken" not in _wire_meta(ctx):
            return None

        async def report(progress: float, total: float | None, message: str | None) -> None:
            await ctx.session.report_progress(progress, total, message)

        return report

    async def interactive(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        """A request the server may answer with questions: ``tools/call``, ``prompts/get``, ``resources/read``.

        A 2026-07-28 upstream asks with ``input_required``. A 2026-07-28 stdio client answers that itself
        and asks again: every round passes through. A 2025-11-25 one cannot: the bridge asks it, one
        request per question, and asks upstream again. A 2025-11-25 upstream asks with requests of its
        own (`_bridge_upstream`), which a 2026-07-28 stdio client answers in rounds (`_bridge_held`).
        """
        request_type, answer_type = _INTERACTIVE[ctx.method]

        async def send(up: Client, answers: Any, state: str | None, progress: ProgressFnT | None) -> Any:
            update = {"input_responses": answers, "request_state": state, "meta": self.upstream_meta(ctx, up)}
            legacy_task = ctx.method == "tools/call" and params.task is not None
            if legacy_task and (is_modern(ctx.protocol_version) or is_modern(up.protocol_version)):
                # A 2025-11-25 task goes to a 2025-11-25 server from a 2025-11-25 client only (each
                # era's tasks are relayed in that era; `_bridge_tasks` offers them where they are).
                legacy_task, update["task"] = False, None
            request = request_type(params=params.model_copy(update=update))
            if legacy_task:
                return await _task_augmented(up, request, answer_type, progress)
            if ctx.method == "tools/call" and is_modern(up.protocol_version):
                # Read as it came (the SDK's result types are models; a task answer is the server's data).
                raw = await up.session.send_request(request, _RAW, progress_callback=progress)  # type: ignore[type-var]
                if raw.get("resultType") == "task":
                    return raw  # the task, as the server made it: the stdio client follows it
                return answer_type.validate_python(raw, by_name=False)
            return await up.session.send_request(request, answer_type, progress_callback=progress)

        async def forward(up: Client) -> Any:
            modern = is_modern(ctx.protocol_version)
            if modern and not is_modern(up.protocol_version) and self.upstreams.asks(ctx):
                wants_progress = self._progress(ctx) is not None

                def start(call: HeldCall) -> Callable[[], Awaitable[Any]]:
                    async def held() -> Any:
                        with self.upstreams.using(up), forwarding(call):
                            return await send(up, None, None, call.report() if wants_progress else None)

                    return held

                return await self.held.round(ctx, params, start)
            if modern:
                return await send(up, params.input_responses, params.request_state, self._progress(ctx))
            return await self._asked_in_turn(
                ctx, lambda answers, state: send(up, answers, state, self._progress(ctx))
            )

        async def in_era(up: Client) -> Any:
            try:
                return await forward(up)
            except MCPError as exc:
                # "Resource not found" changed code between eras (-32002 → -32602): speak the client's.
                modern = is_modern(ctx.protocol_version)
                mismatch = modern != is_modern(up.protocol_version)
                if (
                    ctx.method == "resources/read"
                    and mismatch
                    and exc.code in (_NOT_FOUND_2025, types.INVALID_PARAMS)
                ):
                    code = types.INVALID_PARAMS if modern else _NOT_FOUND_2025
                    raise MCPError(code, exc.error.message, exc.error.data) from None
                raise

        return await self.forward(ctx, in_era)

    async def _asked_in_turn(
        self, ctx: ServerRequestContext[Any], send: Callable[[Any, str | None], Awaitable[Any]]
    ) -> Any:
        """Drive the ``input_required`` rounds of a 2026-07-28 upstream for a 2025-11-25 stdio client."""
        result = await send(None, None)
        rounds = 0
        while isinstance(result, types.InputRequiredResult):
            rounds += 1
            if rounds > MAX_ROUNDS:
                raise MCPError(
                    types.INTERNAL_ERROR, t("bridge.too_many_rounds", url=self.url, rounds=MAX_ROUNDS)
                )
            answers: dict[str, Any] = {}
            for key, request in (result.input_requests or {}).items():
                answer = await ask_downstream(ctx, request)
                if isinstance(answer, types.ErrorData):
                    raise MCPError.from_error_data(answer)
                answers[key] = answer
            if not answers:  # only state to hand back: the server is not ready yet; do not hammer it
                await anyio.sleep(min(0.05 * 2 ** (rounds - 1), 0.25))
            result = await send(answers or None, result.request_state)
        return result

    @staticmethod
    def _cursor(params: types.PaginatedRequestParams | None) -> str | None:
        return params.cursor if params is not None else None

    async def list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
        return await self.forward(
            ctx, lambda up: up.list_tools(cursor=self._cursor(params), meta=self.upstream_meta(ctx, up))
        )

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        return await self.interactive(ctx, params)

    async def list_resources(self, ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
        return await self.forward(
            ctx, lambda up: up.list_resources(cursor=self._cursor(params), meta=self.upstream_meta(ctx, up))
        )

    async def list_templates(self, ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
        return await self.forward(
            ctx,
            lambda up: up.list_resource_templates(
                cursor=self._cursor(params), meta=self.upstream_meta(ctx, up)
            ),
        )

    async def read_resource(self, ctx: Any, params: types.ReadResourceRequestParams) -> Any:
        return await self.interactive(ctx, params)

    async def list_prompts(self, ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
        return await self.forward(
            ctx, lambda up: up.list_prompts(cursor=self._cursor(params), meta=self.upstream_meta(ctx, up))
        )

    async def get_prompt(self, ctx: Any, params: types.GetPromptRequestParams) -> Any:
        return await self.interactive(ctx, params)

    async def complete(self, ctx: Any, params: types.CompleteRequestParams) -> Any:
        argument = {"name": params.argument.name, "value": params.argument.value}
        context = params.context.arguments if params.context is not None else None
        return await self.forward(
            ctx, lambda up: up.complete(params.ref, argument, context_arguments=context)
        )

    async def set_level(self, ctx: Any, params: types.SetLevelRequestParams) -> Any:
        await self.forward(ctx, lambda up: self.upstreams.set_level(up, params.level))
        return types.EmptyResult()


async def _task_augmented(
    up: Client, request: Any, answer_type: TypeAdapter[Any], progress: ProgressFnT | None
) -> Any:
    """A 2025-11-25 ``tools/call`` with ``params.task``: the server's task goes to the stdio client.

    The SDK's client would refuse the ``{"task": {...}}`` answer and its server would refuse to send
    it as a ``tools/call`` result: it is read unchecked and sent through `TaskAnswers` (the stdio
    server's middleware), which puts it in place of the placeholder this returns.
    """
    raw = await send_unchecked(up.session, request, progress)
    if not isinstance(raw.get("task"), dict):  # the server ran it as a plain call after all
        return answer_type.validate_python(raw, by_name=False)
    if not answer_instead(_for_stdio(raw)):
        raise MCPError(types.INTERNAL_ERROR, t("task.unavailable"))
    return {"content": []}


def _wire_meta(ctx: ServerRequestContext[Any]) -> dict[str, Any]:
    """The request's ``_meta`` as the stdio client sent it (wire names: ``progressToken``)."""
    meta = (ctx.params or {}).get("_meta")
    return dict(meta) if isinstance(meta, dict) else {}


def _for_stdio(result: Any) -> Any:
    """An upstream result as the stdio side sends it: without the upstream's per-hop ``serverInfo`` stamp.

    A 2025-11-25 stdio client must not see it at all (its era has none, and direct HTTP sends none);
    for a 2026-07-28 one the stdio server stamps its own.
    """
    if isinstance(result, BaseModel):
        dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    elif isinstance(result, dict):
        dumped = dict(result)
    else:
        return result
    meta = dumped.get("_meta")
    if isinstance(meta, dict):
        meta = dumped["_meta"] = dict(meta)
    if isinstance(meta, dict) and types.SERVER_INFO_META_KEY in meta:
        meta.pop(types.SERVER_INFO_META_KEY)
        if not meta:
            del dumped["_meta"]
    return dumped
