"""The MCP protocol over a catalogue, on the SDK's low-level `Server`.

One endpoint serves both protocol eras (the SDK routes each request by its
``MCP-Protocol-Version``). What this module adds to the SDK, and why:

- error layering (spec 2025-11-25 and 2026-07-28, server/tools "Error Handling"): an unknown
  tool is a JSON-RPC ``-32602``; arguments that fail the input schema, and exceptions raised by a
  tool, are *tool execution errors* (``isError: true``) that the model can read and fix. The SDK
  neither validates arguments nor catches tool exceptions, so both happen here.
- change notifications to both eras: handshake-era sessions get
  ``notifications/tools/list_changed`` on their GET stream; 2026-07-28 clients get it on their
  ``subscriptions/listen`` stream (through the SDK's subscription bus).
- ``tools/list`` pagination with an opaque cursor, and ``listChanged: true`` advertised.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from ._activity import SEALED, ActivityLog, CallRecord, client_name, session_id_of
from ._approval import ApprovalPolicy
from ._arguments import argument_problems
from ._catalogue import Catalogue
from ._context import Context
from ._errors import ToolError
from ._execution import KernelBusy, ToolRunner
from ._guarded import Guardrails
from ._idempotency import KEY_PARAMETER
from ._paging import page
from ._questions import InputRequired, ProtocolRefusal, new_state, state_of
from ._results import error_result, to_result
from ._server_data import DataHandlers
from ._text import t
from ._version import __version__

logger = logging.getLogger(__name__)

LOCAL_HEADER = "x-mcp-notebook-local"
INSTRUCTIONS = (
    "Tools defined in a live Jupyter notebook. They run against the notebook's current state, "
    "and the list changes while the notebook is edited: re-list tools when notified."
)


class _NotebookServer(Server[Any]):
    # The streamable-HTTP session manager builds initialization options itself, without
    # NotificationOptions, so handshake-era clients would be told tools.listChanged=false.
    def create_initialization_options(
        self, notification_options: NotificationOptions | None = None, *args: Any, **kwargs: Any
    ) -> Any:
        options = notification_options or NotificationOptions(
            tools_changed=True, resources_changed=True, prompts_changed=True
        )
        return super().create_initialization_options(options, *args, **kwargs)


class ToolServer:
    """Serves a `Catalogue` as MCP tools; one instance per running server."""

    def __init__(
        self,
        catalogue: Catalogue,
        runner: ToolRunner,
        *,
        page_size: int = 100,
        result_limit: int = 50_000,
        approval: ApprovalPolicy | None = None,
        guards: Guardrails | None = None,
        local_secret: str | None = None,
        name: str = "mcp-notebook",
        history: int = 500,
    ) -> None:
        if page_size < 1:
            raise ValueError("page_size must be at least 1")
        self.catalogue = catalogue
        self.runner = runner
        self.page_size = page_size
        self.result_limit = result_limit
        self.approval = approval if approval is not None else ApprovalPolicy()
        self.guards = guards if guards is not None else Guardrails()
        self._local_secret = (local_secret or "").encode()
        self.log = ActivityLog(history, self.guards, self._is_local)
        self.calls = self.log.calls  # tools/call only
        self.activity = self.log.activity  # every request
        self.call_listeners = self.log.listeners
        self._bus = InMemorySubscriptionBus()
        self.listen_handler = ListenHandler(self._bus)
        self._legacy_sessions: dict[str, ServerSession] = {}
        self.data = DataHandlers(catalogue, runner, self._bus, page_size)
        no_cache = CacheHint(ttl_ms=0, scope="private")  # a live notebook: never serve a stale list
        cached = (
            "tools/list",
            "resources/list",
            "resources/templates/list",
            "resources/read",
            "prompts/list",
        )
        self.sdk = _NotebookServer(
            name,
            version=__version__,
            title="Jupyter notebook tools",
            instructions=INSTRUCTIONS,
            cache_hints=dict.fromkeys(cached, no_cache),  # type: ignore[arg-type]
            get_tool_input_schema=self._input_schema,
            on_list_tools=self.log.observed("tools/list", self._list_tools),
            on_call_tool=self._call_tool,  # records itself, in full
            on_list_resources=self.log.observed("resources/list", self.data.list_resources),
            on_list_resource_templates=self.log.observed(
                "resources/templates/list", self.data.list_templates
            ),
            on_read_resource=self.log.observed("resources/read", self.data.read),
            on_subscribe_resource=self.log.observed("resources/subscribe", self.data.subscribe),
            on_unsubscribe_resource=self.log.observed("resources/unsubscribe", self.data.unsubscribe),
            on_list_prompts=self.log.observed("prompts/list", self.data.list_prompts),
            on_get_prompt=self.log.observed("prompts/get", self._get_prompt),
            on_completion=self.log.observed("completion/complete", self.data.complete),
            on_subscriptions_listen=self.listen_handler,
        )
        # A notification handler, not a middleware: it costs nothing on every other request.
        self.sdk.add_notification_handler(
            "notifications/initialized", types.NotificationParams, self._on_initialized
        )
        # Handshake-era logging/setLevel, per session (2026-07-28 opts in per request instead).
        self._log_levels: dict[str, str] = {}
        self.sdk.add_request_handler(
            "logging/setLevel",
            types.SetLevelRequestParams,
            self.log.observed("logging/setLevel", self._set_level),
        )
        # One list of versions everywhere: server/discover names every version this endpoint serves,
        # as the -32022 answer does (a client of either era learns it can fall back).
        self.sdk.add_request_handler(
            "server/discover", types.RequestParams, self.log.observed("server/discover", self._discover)
        )
        # 2026-07-28 requestState: sealed (AES-GCM, per-process key) on the way out and verified on the
        # way back by the SDK's boundary, so a tool's earlier answers cannot be forged or edited by a
        # client. Only calls of tools and prompts that take a Context go through it (no one else
        # mints state), so every other request pays nothing for it.
        self.boundary = RequestStateBoundary(RequestStateSecurity.ephemeral(), default_audience=name)

    def answers_at_once(self, request: Mapping[str, Any]) -> bool:
        """Whether a request can be answered with one JSON body instead of a stream (both eras).

        Only a call that may send something before its result (a tool or prompt that takes a
        `Context`: progress, log lines, questions to the client) or that may wait for a person
        (approval) keeps the SSE stream, which also keeps a long wait alive through proxies.
        """
        method = request.get("method")
        if method not in ("tools/call", "prompts/get"):
            return True
        params = request.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        if not isinstance(name, str):
            return True  # the SDK answers with an error at once
        if method == "prompts/get":
            prompt = self.catalogue.get_prompt(name)
            return prompt is None or not prompt.context
        entry = self.catalogue.get(name)
        if entry is None:
            return True
        # local=False: the notebook's own calls never wait for approval, but may take the stream.
        return not entry.context and not self.approval.needs_approval(
            entry.name, entry.read_only, entry.approval, local=False
        )

    # -- tools/list --------------------------------------------------------------------------
    def _input_schema(self, name: str) -> dict[str, Any] | None:
        entry = self.catalogue.get(name)
        return entry.input_schema if entry is not None else None

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> Any:
        local = self._is_local(ctx)
        visible = [entry for entry in self.catalogue.tools() if entry.expose or local]
        tools, cursor = page(visible, params, self.page_size)
        result: dict[str, Any] = {"resultType": "complete", "tools": [entry.to_wire() for entry in tools]}
        if cursor is not None:
            result["nextCursor"] = cursor
        return result

    # -- tools/call --------------------------------------------------------------------------
    async def _call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> Any:
        entry = self.catalogue.get(params.name)
        local = self._is_local(ctx)
        if entry is None or not (entry.expose or local):  # a hidden tool does not exist for outsiders
            # Suggest only what this caller may see: a hidden tool must not leak through a hint.
            visible = [e.name for e in self.catalogue.tools() if e.expose or local]
            near = self.catalogue.near_names(params.name, among=visible)
            hint = t("did_you_mean", names=", ".join(repr(n) for n in near)) if near else ""
            error = MCPError(
                types.INVALID_PARAMS,
                t("call.unknown_tool", name=params.name, hint=hint),
                data={"tool": params.name, "suggestions": near},
            )
            # The activity log shows protocol errors too: learners compare them with tool errors.
            refused = CallRecord(
                tool=params.name,
                arguments=dict(params.arguments or {}),
                client="notebook" if local else client_name(ctx),
                protocol_version=ctx.protocol_version,
                started=time.time(),
                request_id=ctx.request_id,
                outcome=f"error {types.INVALID_PARAMS}",
                is_error=True,
                error={"code": types.INVALID_PARAMS, "message": error.error.message},
            )
            self.activity.append(refused)
            self.log.show(refused)
            raise error
        arguments = dict(params.arguments or {})
        record = CallRecord(
            tool=entry.name,
            arguments=arguments,
            client="notebook" if local else client_name(ctx),
            protocol_version=ctx.protocol_version,
            started=time.time(),
            request_id=ctx.request_id,
        )
        if params.input_responses is not None or params.request_state is not None:
            # What the client sent for a later round (the state as the client holds it: sealed).
            answers = {
                k: v.model_dump(by_alias=True, mode="json", exclude_none=True)
                for k, v in (params.input_responses or {}).items()
            }
            record.rounds = {"inputResponses": answers} if answers else {}
            if params.request_state is not None:
                record.rounds["requestState"] = SEALED
        clock = time.perf_counter()
        client = self.guards.set_client(record.client)
        try:
            if entry.context:
                sealed = await self.boundary(
                    ctx, lambda c: self._checked_call(c, entry, arguments, record, local)
                )
                result = dict(sealed) if isinstance(sealed, dict) else {}  # our own dict, state sealed
            else:
                result = await self._checked_call(ctx, entry, arguments, record, local)
        except MCPError as exc:  # a requestState that fails verification (forged, edited, expired)
            record.outcome, record.is_error = f"error {exc.code}", True
            record.error = {"code": exc.code, "message": exc.error.message}
            record.duration = time.perf_counter() - clock
            self.log.record(record)
            raise
        except ProtocolRefusal as exc:  # e.g. a client capability the tool needs is missing
            record.outcome, record.is_error = f"error {exc.code}", True
            record.error = {"code": exc.code, "message": exc.message}
            record.duration = time.perf_counter() - clock
            self.log.record(record)
            raise MCPError(exc.code, exc.message, data=exc.data) from None
        except anyio.get_cancelled_exc_class():
            # The client hung up (the SDK cancels the handler): what did run must still be on record.
            record.outcome = (
                f"{record.outcome} (client disconnected)" if record.outcome else "client disconnected"
            )
            record.is_error = True
            record.duration = time.perf_counter() - clock
            self.log.record(record)
            raise
        finally:
            self.guards.reset_client(client)
        record.duration = time.perf_counter() - clock
        record.is_error = bool(result.get("isError"))
        # The SDK sieves results per era: 2026-07-28 requires resultType, older eras drop it.
        answer = {"resultType": "complete", **result}
        if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
            record.result = result
        elif "requestState" in answer:
            record.result = {**answer, "requestState": SEALED}
        else:
            record.result = answer
        self.log.record(record)
        return answer

    async def _checked_call(
        self,
        ctx: ServerRequestContext[Any],
        entry: Any,
        arguments: dict[str, Any],
        record: CallRecord,
        local: bool,
    ) -> dict[str, Any]:
        # Order matters: validate, then rate-limit (a flood must not flood the person with prompts),
        # then ask, then run.
        if "validator" not in entry.__dict__:
            # The first call of a tool compiles its schema, which may wait for jsonschema's import
            # (warming up in the background right after serve()): not on the loop, which serves others.
            await anyio.to_thread.run_sync(lambda: entry.validator)
        problems = argument_problems(entry.validator, arguments)
        if problems:
            listing = "\n".join(f"- {problem}" for problem in problems)
            record.outcome = "invalid arguments"
            return error_result(t("call.invalid_arguments", name=entry.name, problems=listing))
        try:
            self.guards.check_rate(entry)
        except ToolError as exc:
            record.outcome = record.decision = "rate limited"
            return error_result(str(exc))
        state = state_of((ctx.params or {}).get("requestState")) if entry.context else {}
        if state.get("approved") is True:
            # A later round of a call a person already approved (the SDK verified the sealed state and
            # that it belongs to this very tool and these very arguments): do not ask again.
            record.decision = "approved"
        elif (refusal := await self._ask(entry, arguments, record, local)) is not None:
            record.outcome = record.decision
            return error_result(refusal)
        context = None
        if entry.context:
            log_level = self._log_levels.get(session_id_of(ctx) or "")
            context = Context.of_request(ctx, log_level=log_level)
        try:
            result = await self.guards.run(
                entry, arguments, lambda: self._run(entry, arguments, record, context)
            )
        except TimeoutError:
            record.outcome = "timeout"
            return error_result(t("call.timeout", name=entry.name, seconds=entry.timeout))
        except ToolError as exc:  # an idempotency conflict or a malformed key
            record.outcome = "ToolError"
            return error_result(str(exc))
        except InputRequired as asked:
            record.outcome = "input required: " + ", ".join(asked.requests)
            approved = record.decision in ("approved", "not-needed")
            return {
                "resultType": "input_required",
                "inputRequests": asked.requests,
                "requestState": new_state(asked.answers, approved=approved),
            }
        finally:
            if context is not None:
                context.close()
        return self.guards.finish(result)

    async def _ask(
        self, entry: Any, arguments: dict[str, Any], record: CallRecord, local: bool
    ) -> str | None:
        """Ask a person when the policy says so; the refusal message, or None to run the call."""
        if not self.approval.needs_approval(entry.name, entry.read_only, entry.approval, local):
            return None
        request = self.approval.new_request(
            tool=entry.name,
            title=entry.title,
            description=entry.description,
            annotations=dict(entry.annotations),
            arguments=arguments,
            client=record.client,
        )
        decision = await self.approval.decide(request)
        record.decision = decision
        return self.approval.message(decision, entry.name)

    def _is_local(self, ctx: ServerRequestContext[Any]) -> bool:
        # The notebook's own client (%mcp_call) proves itself with a per-process secret header.
        request = ctx.request
        if not self._local_secret or request is None:
            return False
        presented = request.headers.get(LOCAL_HEADER, "").encode()
        return hmac.compare_digest(presented, self._local_secret)

    async def _run(
        self, entry: Any, arguments: dict[str, Any], record: CallRecord, context: Context | None = None
    ) -> dict[str, Any]:
        try:
            kwargs = entry.convert(arguments)
            if entry.idempotency_key and not entry.takes_key:
                kwargs.pop(KEY_PARAMETER, None)
            if context is not None:
                kwargs[entry.context] = context
            value, record.stdout = await self.runner.run(entry.fn, kwargs, entry.run_in)
            result = to_result(
                value,
                output_schema=entry.output_schema,
                wraps_output=entry.wraps_output,
                tool_name=entry.name,
            )
            record.outcome = "error result" if result.get("isError") else "ok"
            return self._keep_if_large(entry.name, result)
        except ToolError as exc:
            record.outcome = "ToolError"
            return error_result(str(exc))
        except (TimeoutError, InputRequired, ProtocolRefusal):
            raise  # the tool's own timeout, a question for the client, a protocol error: the caller's
        except KernelBusy:
            record.outcome = "kernel busy"
            return error_result(t("call.kernel_busy", name=entry.name, seconds=self.runner.busy_timeout))
        except BaseException as exc:
            if isinstance(exc, anyio.get_cancelled_exc_class()):
                raise  # the client went away or the server is stopping: not the tool's failure
            # Never a traceback and never a protocol error: the model gets what it can act on. Even
            # SystemExit or KeyboardInterrupt from a tool must not end the server.
            record.outcome = type(exc).__name__
            logger.debug("tool %r raised", entry.name, exc_info=True)
            return error_result(f"{type(exc).__name__}: {exc}")

    def _keep_if_large(self, tool: str, result: dict[str, Any]) -> dict[str, Any]:
        """Replace a result too large for a model's context by a summary and a link to all of it."""
        texts = [block["text"] for block in result.get("content", []) if block.get("type") == "text"]
        size = sum(len(text) for text in texts)
        if size <= self.result_limit or result.get("isError"):
            return result
        full = "\n".join(texts)
        mime = "application/json" if "structuredContent" in result else "text/plain"
        uri = self.data.kept.keep(tool, [{"mimeType": mime, "text": full}])
        preview = full[: min(1000, self.result_limit // 2)]
        link = {
            "type": "resource_link",
            "uri": uri,
            "name": f"{tool} result",
            "mimeType": mime,
            "size": len(full),
        }
        others = [block for block in result["content"] if block.get("type") != "text"]
        summary = {"type": "text", "text": t("result.kept", tool=tool, size=size, uri=uri, preview=preview)}
        kept: dict[str, Any] = {"content": [summary, link, *others], "isError": False}
        entry = self.catalogue.get(tool)
        if entry is not None and entry.output_schema is not None and "structuredContent" in result:
            # With an output schema, structured content is required: it stays, only the text shrinks.
            kept["structuredContent"] = result["structuredContent"]
        return kept

    async def _get_prompt(self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> Any:
        entry = self.catalogue.get_prompt(params.name)
        if entry is not None and entry.context:
            return await self.boundary(ctx, lambda c: self.data.get_prompt(c, params))
        return await self.data.get_prompt(ctx, params)

    # -- logging and discovery ------------------------------------------------------------------
    async def _set_level(self, ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams) -> Any:
        session_id = session_id_of(ctx)
        if session_id:
            self._log_levels[session_id] = params.level
        return {}

    async def _discover(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        from ._http import SUPPORTED_VERSIONS

        result = await self.sdk._handle_discover(ctx, params)
        return result.model_copy(update={"supported_versions": list(SUPPORTED_VERSIONS)})

    # -- change notifications -----------------------------------------------------------------
    async def _on_initialized(self, ctx: ServerRequestContext[Any], params: types.NotificationParams) -> None:
        # Handshake-era sessions have no public registry in the SDK: remember each one to notify it later.
        if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
            session_id = session_id_of(ctx)
            if session_id:
                self._legacy_sessions[session_id] = ctx.session

    async def notify(self, kind: str) -> None:
        """Tell every connected client, of either era, about a catalogue change.

        `kind` is a catalogue event: ``"tools"``, ``"resources"``, ``"prompts"`` or ``"resource:<uri>"``.
        """
        if kind.startswith("resource:"):
            await self.data.resource_updated(kind.removeprefix("resource:"))
            return
        event, send = _LIST_EVENTS[kind]
        await self._bus.publish(event)
        for session_id, session in list(self._legacy_sessions.items()):
            try:
                await send(session)
            except Exception:  # the client went away: forget its session
                self._legacy_sessions.pop(session_id, None)

    async def notify_tools_changed(self) -> None:
        await self.notify("tools")

    def forget_session(self, session_id: str) -> None:
        self._legacy_sessions.pop(session_id, None)

    def close_streams(self) -> None:
        """End 2026-era listen streams gracefully (before the HTTP server shuts down)."""
        self.listen_handler.close()


_LIST_EVENTS: dict[str, tuple[Any, Callable[[ServerSession], Awaitable[None]]]] = {
    "tools": (ToolsListChanged(), ServerSession.send_tool_list_changed),
    "resources": (ResourcesListChanged(), ServerSession.send_resource_list_changed),
    "prompts": (PromptsListChanged(), ServerSession.send_prompt_list_changed),
}
