"""The MCP protocol over a catalogue, on the SDK's low-level `Server`.

One endpoint serves both protocol eras (the SDK routes each request by its
``MCP-Protocol-Version``). What this module adds to the SDK, and why:

- one call pipeline (`_pipeline`): every request is recorded once, for the activity view, the audit
  log and the notebook's views; ``tools/call`` runs its steps in it: error layering, approval,
  guardrails, as an ordered list of steps (`_calls`).
- what handshake-era sessions asked for (log level, subscriptions), kept per session and dropped
  when the session ends (`_session_state`).
- change notifications to both eras: handshake-era sessions get
  ``notifications/tools/list_changed`` on their GET stream; 2026-07-28 clients get it on their
  ``subscriptions/listen`` stream (through the SDK's subscription bus).
- ``tools/list`` pagination with an opaque cursor, and ``listChanged: true`` advertised.
- tasks in both eras (`_tasks`): the 2026-07-28 extension advertised in ``server/discover``, the
  2025-11-25 ``capabilities.tasks`` at ``initialize``, and the ``tasks/*`` methods of each era.
- MCP Apps (``io.modelcontextprotocol/ui``): advertised in ``server/discover`` like tasks (a
  2025-11-25 ``initialize`` has no ``extensions`` to say it in); a tool bound to a view carries
  ``_meta.ui`` in ``tools/list`` for every client, of either era, which a client without Apps
  ignores (SEP-2133: it gets the tool and its text result as always).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
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
from mcp_types.methods import CacheableMethod
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from .._version import __version__
from ..core._apps import EXTENSION as APPS_EXTENSION
from ..core._apps import listed
from ..core._catalogue import Catalogue
from ..core._icons import Icons
from ..core._identity import Identities, Identity, identity_of
from ..core._questions import RoundLedger
from ..core._secrets import new_token
from ..core._tasks import EXTENSION, TaskBook
from ..core._text import t
from ..runtime._execution import ToolRunner
from ._activity import ActivityLog
from ._approval import ApprovalPolicy
from ._audit import AuditTrail
from ._calls import ToolCalls
from ._changes import ChangeRelay
from ._data import DataHandlers, KeptResults
from ._guardrails import Guardrails
from ._paging import page
from ._pipeline import CallPipeline, Handler
from ._sdk_compat import TaskAnswers, default_discover
from ._session_state import Sessions, session_id_of
from ._settings import ServerSettings
from ._tasks import TaskIdParams, TaskManager, TaskUpdateParams
from ._tasks_legacy import LegacyTaskMethods
from ._tasks_modern import ModernTaskMethods, removed
from ._versions import SUPPORTED_VERSIONS

logger = logging.getLogger(__name__)

IMPLEMENTATION = "mcp-notebook"
TITLE = "Jupyter notebook tools"
INSTRUCTIONS = (
    "Tools defined in a live Jupyter notebook. They run against the notebook's current state, "
    "and the list changes while the notebook is edited: re-list tools when notified."
)
# An exported app: the same tools, fixed for as long as the app runs, with nobody watching.
SERVICE_TITLE = "Notebook tools, served as an app"
SERVICE_INSTRUCTIONS = (
    "Tools exported from a notebook and served as an app. Tools that change things run only if the "
    "app's operator allowed them; a refused call says so and should not be retried."
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
        made = super().create_initialization_options(options, *args, **kwargs)
        # 2025-11-25 tasks (basic/utilities/tasks): task-augmented tools/call, tasks/list, tasks/cancel.
        # The SDK has no tasks, so it says nothing of them; server/discover does not read this.
        tasks = types.ServerTasksCapability(
            list=types.TasksListCapability(),
            cancel=types.TasksCancelCapability(),
            requests=types.ServerTasksRequestsCapability(
                tools=types.TasksToolsCapability(call=types.TasksCallCapability())
            ),
        )
        made.capabilities = made.capabilities.model_copy(update={"tasks": tasks})
        return made


class ToolServer:
    """Serves a `Catalogue` as MCP tools; one instance per running server."""

    def __init__(
        self,
        catalogue: Catalogue,
        runner: ToolRunner,
        settings: ServerSettings | None = None,
        *,
        approval: ApprovalPolicy | None = None,
        guards: Guardrails | None = None,
        identities: Identities | None = None,
        request_state_keys: Sequence[bytes] = (),
        rounds: RoundLedger | None = None,
        title: str = TITLE,
        instructions: str = INSTRUCTIONS,
    ) -> None:
        settings = settings if settings is not None else ServerSettings(audit_log=False)
        # What clients are told this server is (serverInfo.name), and whom sealed state is for: the
        # implementation, the same for every notebook; `settings.name` scopes stored state instead.
        name = IMPLEMENTATION
        self.catalogue = catalogue
        self.runner = runner
        self.page_size = settings.page_size
        self.icons: Icons = settings.icons  # type: ignore[assignment]  # made a tuple by the settings
        self.approval = approval if approval is not None else ApprovalPolicy()
        # "Always allow" holds for the definition a person saw: the catalogue says what it is now.
        self.approval.allowed.definition = self._definition
        self.guards = guards if guards is not None else Guardrails()
        # Who may call, and whom each credential proves (the HTTP gate reads it on every request).
        self.identities = identities if identities is not None else Identities(new_token())
        # Every request is one call of the pipeline; each finished record goes to its sinks, in order:
        # the audit log first (it writes the arguments before the activity log clips large ones), the
        # activity log, then whoever listens (the notebook's views).
        self.audit = AuditTrail(
            settings.audit_path(), max_bytes=settings.audit_max_bytes, keep=settings.audit_keep
        )
        self.log = ActivityLog(settings.history, max_bytes=settings.history_bytes)
        self.pipeline = CallPipeline()
        self.pipeline.sinks += [self.audit, self.log.keep]
        self.calls = self.log.calls  # tools/call only
        self.activity = self.log.activity  # every request
        self.call_listeners = self.pipeline.sinks  # the notebook's views subscribe here
        # What each handshake-era session asked for, dropped when it ends (the HTTP session manager says).
        self.sessions = Sessions()
        self._bus = InMemorySubscriptionBus()
        # An exported app's processes share changes through the store (`_changes`); a kernel's one
        # server tells its clients itself.
        self.relay: ChangeRelay | None = None
        self.listen_handler = ListenHandler(self._bus)
        self.boundary, self.rounds = _sealed_state(name, request_state_keys, rounds)
        # Large results are kept in the server's store, scoped to this server (and the caller).
        kept = KeptResults(self.guards.store, server=self.guards.server_name)
        # Calls that run as tasks: their records in the same store, scoped to this server and the caller.
        self.tasks = TaskManager(TaskBook(self.guards.store, self.guards.server_name), ttl=settings.task_ttl)
        self.data = DataHandlers(
            catalogue, runner, self._bus, self.page_size, self.rounds, kept, self.sessions
        )
        self.tool_calls = ToolCalls(
            catalogue=catalogue,
            runner=runner,
            approval=self.approval,
            guards=self.guards,
            pipeline=self.pipeline,
            sessions=self.sessions,
            boundary=self.boundary,
            kept=self.data.kept,
            rounds=self.rounds,
            result_limit=settings.result_limit,
            tasks=self.tasks,
        )
        self.sdk = self._sdk_server(name, title, instructions)
        self._serve_tasks()
        # server/discover: MCP Apps (SEP-1865), negotiated as SEP-2133 says; no settings of its own.
        self.sdk.extensions[APPS_EXTENSION] = {}
        self._unbound_warned: set[tuple[str, str]] = set()

    def _sdk_server(self, name: str, title: str, instructions: str) -> _NotebookServer:
        """The SDK's server, every method routed through the pipeline to its handler here."""
        observed = self.pipeline.observed
        sdk = _NotebookServer(
            name,
            version=__version__,
            title=title,
            instructions=instructions,
            icons=[types.Icon.model_validate(icon) for icon in self.icons] or None,
            cache_hints=never_cached(),
            get_tool_input_schema=self._input_schema,
            on_list_tools=observed("tools/list", self._list_tools),
            on_call_tool=self.tool_calls,  # opens its call itself, and runs its steps in it
            on_list_resources=observed("resources/list", self.data.list_resources),
            on_list_resource_templates=observed("resources/templates/list", self.data.list_templates),
            on_read_resource=observed("resources/read", self.data.read),
            on_subscribe_resource=observed("resources/subscribe", self.data.subscribe),
            on_unsubscribe_resource=observed("resources/unsubscribe", self.data.unsubscribe),
            on_list_prompts=observed("prompts/list", self.data.list_prompts),
            on_get_prompt=observed("prompts/get", self._get_prompt),
            on_completion=observed("completion/complete", self.data.complete),
            on_subscriptions_listen=self.listen_handler,
        )
        # A notification handler, not a middleware: it costs nothing on every other request.
        sdk.add_notification_handler(
            "notifications/initialized", types.NotificationParams, self._on_initialized
        )
        sdk.add_request_handler(
            "logging/setLevel",
            types.SetLevelRequestParams,
            observed("logging/setLevel", self._set_level),
        )
        # One list of versions everywhere: server/discover names every version this endpoint serves,
        # as the -32022 answer does (a client of either era learns it can fall back).
        sdk.add_request_handler(
            "server/discover", types.RequestParams, observed("server/discover", self._discover)
        )
        return sdk

    def _serve_tasks(self) -> None:
        """The tasks methods of both eras, each routed to its era's adapter (one model: `_tasks`)."""
        self.sdk.extensions = {EXTENSION: {}}  # server/discover: the 2026-07-28 extension (SEP-2663)
        self.sdk.middleware.append(TaskAnswers())  # 2025-11-25: tools/call answered with a task
        modern, legacy = ModernTaskMethods(self.tasks), LegacyTaskMethods(self.tasks)
        methods: list[tuple[str, type[Any], Handler | None, Handler | None]] = [
            ("tasks/get", TaskIdParams, modern.get, legacy.get),
            ("tasks/cancel", TaskIdParams, modern.cancel, legacy.cancel),
            ("tasks/update", TaskUpdateParams, modern.update, None),
            ("tasks/result", TaskIdParams, None, legacy.result),
            ("tasks/list", types.PaginatedRequestParams, None, legacy.list),
        ]
        for method, params_type, in_modern, in_legacy in methods:
            self.sdk.add_request_handler(
                method, params_type, self.pipeline.observed(method, _by_era(method, in_modern, in_legacy))
            )

    def answers_at_once(self, request: Mapping[str, Any], identity: Identity) -> bool:
        """Whether a request can be answered with one JSON body instead of a stream (both eras).

        Only a call that may send something before its result (a tool or prompt that takes a
        `Context`: progress, log lines, questions to the client) or that may wait for a person
        (approval) keeps the SSE stream, which also keeps a long wait alive through proxies. A
        hidden tool is answered as an unknown one is, to anyone but the notebook: the kind of
        reply must not tell that it exists.
        """
        method = request.get("method")
        if method == "tasks/result":
            return False  # 2025-11-25: the task's questions go to the client on this request's stream
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
        if entry is None or not (entry.expose or identity.is_notebook):
            return True
        # local=False: the notebook's own calls never wait for approval, but may take the stream.
        return not entry.context and not self.approval.needs_approval(
            entry.name, entry.read_only, entry.approval, local=False, client=identity.name
        )

    def _definition(self, name: str) -> str | None:
        entry = self.catalogue.get(name)
        return entry.fingerprint if entry is not None else None

    # -- tools/list --------------------------------------------------------------------------
    def _input_schema(self, name: str) -> dict[str, Any] | None:
        # The SDK checks 2026-07-28 Mcp-Param headers against this schema before any handler runs,
        # without saying who asks: a hidden tool gets no check at all (only the notebook, which is
        # trusted, can call it), so its answer to an outsider is the unknown tool's -32602.
        entry = self.catalogue.get(name)
        return entry.input_schema if entry is not None and entry.expose else None

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> Any:
        local = identity_of(ctx).is_notebook
        visible = [entry for entry in self.catalogue.tools() if entry.expose or local]
        tools, cursor = page(visible, params, self.page_size)
        # A tool whose visibility leaves out "model" is still listed: ext-apps 2026-01-26 ("Visibility")
        # gives hiding it to the host ("Host MUST NOT include tools in the agent's tool list when
        # their visibility does not include 'model'"), which needs the tool to let its view call it.
        registered = self.catalogue.app_uris()
        wires = [listed(entry.to_wire(), entry.app, registered) for entry in tools]
        self._warn_unbound([(entry.name, entry.app) for entry in tools if entry.app not in registered])
        result: dict[str, Any] = {"resultType": "complete", "tools": wires}
        if cursor is not None:
            result["nextCursor"] = cursor
        return result

    def _warn_unbound(self, tools: list[tuple[str, str | None]]) -> None:
        # The server never prints: the owner reads this in the log (once per tool and view), and a
        # served notebook or exported app refused to start with the same message (`check_apps`).
        for name, app in tools:
            if app is not None and (name, app) not in self._unbound_warned:
                self._unbound_warned.add((name, app))
                logger.warning(t("app.unbound_listed", name=name, uri=app))

    # -- prompts -----------------------------------------------------------------------------
    async def _get_prompt(self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> Any:
        entry = self.catalogue.get_prompt(params.name)
        if entry is not None and entry.context:
            return await self.boundary(ctx, lambda c: self.data.get_prompt(c, params))
        return await self.data.get_prompt(ctx, params)

    # -- logging and discovery ------------------------------------------------------------------
    async def _set_level(self, ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams) -> Any:
        state = self.sessions.get(session_id_of(ctx))
        if state is not None:
            state.log_level = params.level
        return {}

    async def _discover(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        result = await default_discover(self.sdk, ctx, params)
        return result.model_copy(update={"supported_versions": list(SUPPORTED_VERSIONS)})

    # -- change notifications -----------------------------------------------------------------
    async def _on_initialized(self, ctx: ServerRequestContext[Any], params: types.NotificationParams) -> None:
        # Handshake-era sessions have no public registry in the SDK: remember each one to notify it later.
        if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
            state = self.sessions.get(session_id_of(ctx))
            if state is not None:
                state.session = ctx.session

    async def notify(self, kind: str) -> None:
        """Tell every connected client, of either era, about a catalogue change.

        `kind` is a catalogue event: ``"tools"``, ``"resources"``, ``"prompts"`` or ``"resource:<uri>"``.
        With a `relay` (an exported app: several processes), the change goes on the store's change
        feed and every process, this one too, tells its own clients as it reads it there.
        """
        if self.relay is not None:
            await anyio.to_thread.run_sync(self.relay.publish, kind)
            return
        await self.deliver(kind)

    async def deliver(self, kind: str) -> None:
        """Tell this process's clients, of either era, about a catalogue change (see `notify`)."""
        if kind.startswith("resource:"):
            await self.data.resource_updated(kind.removeprefix("resource:"))
            return
        event, send = _LIST_EVENTS[kind]
        await self._bus.publish(event)
        for state in self.sessions.reachable():
            session = state.session
            if session is None:
                continue
            try:
                await send(session)
            except Exception:  # the client went away: its session ends soon, and its state with it
                state.session = None

    def close_streams(self) -> None:
        """End 2026-era listen streams gracefully (before the HTTP server shuts down)."""
        self.listen_handler.close()

    def close(self) -> None:
        """Close what the server opened: the audit log, the store; safe to call twice."""
        self.audit.close()
        self.guards.close()


def never_cached() -> dict[CacheableMethod, CacheHint]:
    """The cache hints of a live notebook's lists and reads (2026-07-28 ``ttlMs``): never serve a stale one.

    The bridge relays a notebook's server, so it says the same.
    """
    no_cache = CacheHint(ttl_ms=0, scope="private")
    listed: tuple[CacheableMethod, ...] = (
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "prompts/list",
    )
    return dict.fromkeys(listed, no_cache)


def _sealed_state(
    name: str, keys: Sequence[bytes], rounds: RoundLedger | None
) -> tuple[RequestStateBoundary, RoundLedger]:
    """The boundary that seals and opens 2026-07-28 ``requestState``, and the ledger of its rounds.

    Sealed (AES-GCM, per-process key) on the way out and verified on the way back by the SDK's
    boundary, so a tool's earlier answers cannot be forged or edited by a client, and bound to the
    identity it was issued to (spec 2026-07-28 basic/patterns/mrtr: "the authenticated principal,
    rejecting state presented by a different principal"). Only calls of tools and prompts that take
    a Context go through it (no one else mints state), so every other request pays nothing for it.
    Each state also names one round, answerable once. Replicas share their keys (`keys`: the first
    seals, all open) and their rounds (a `RoundLedger` in the shared store), so any replica answers
    any round.
    """
    security = RequestStateSecurity(keys=list(keys) or [os.urandom(32)], bind_principal=_principal)
    boundary = RequestStateBoundary(security, default_audience=name)
    return boundary, rounds if rounds is not None else RoundLedger(ttl=security.ttl)


def _by_era(method: str, modern: Handler | None, legacy: Handler | None) -> Handler:
    """One handler for `method`: the adapter of the request's era, or ``-32601`` where the era has none."""

    async def handler(ctx: ServerRequestContext[Any], params: Any) -> Any:
        handshake = ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS
        chosen = legacy if handshake else modern
        if chosen is None:
            raise (
                removed(method)
                if not handshake
                else MCPError(types.METHOD_NOT_FOUND, t("task.not_in_2025", method=method))
            )
        return await chosen(ctx, params)

    return handler


def _principal(ctx: ServerRequestContext[Any]) -> str:
    """Whom a sealed requestState is bound to: the identity the credential proved, never a claim."""
    return identity_of(ctx).name


_LIST_EVENTS: dict[str, tuple[Any, Callable[[ServerSession], Awaitable[None]]]] = {
    "tools": (ToolsListChanged(), ServerSession.send_tool_list_changed),
    "resources": (ResourcesListChanged(), ServerSession.send_resource_list_changed),
    "prompts": (PromptsListChanged(), ServerSession.send_prompt_list_changed),
}
