"""Protocol handlers for resources, prompts and completion (the application's and person's side).

Error codes follow each era's spec: an unknown resource is ``-32002`` on the handshake era
(2025-11-25 server/resources "Error Handling") and ``-32602`` on 2026-07-28; an unknown prompt
and missing prompt arguments are ``-32602`` on both.
"""

from __future__ import annotations

import logging
import secrets
import typing
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import ResourceUpdated, SubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..core._catalogue import Catalogue
from ..core._identity import identity_of
from ..core._prompts import literal_choices, render
from ..core._questions import InputRequired, ProtocolRefusal, RoundLedger, new_state
from ..core._resources import ResourceEntry, TemplateEntry, contents
from ..core._store import KEPT_RESULTS, KEY_MAX, Scope, Store
from ..core._store_memory import MemoryStore
from ..core._text import t
from ..runtime._execution import ToolRunner
from ._contexts import answered_round, context_for, open_round
from ._paging import page
from ._session_state import Sessions, session_id_of

logger = logging.getLogger(__name__)
RESOURCE_NOT_FOUND_HANDSHAKE = -32002
KEPT_SCHEME = "mcp-notebook://results/"
MAX_COMPLETIONS = 100


class KeptResults:
    """Large tool results, kept as resources for a while (bounded in count and age), in a `Store`.

    Each is readable only by the identity whose call produced it: its link holds an unguessable id,
    it is stored under that identity's scope (namespace `KEPT_RESULTS`), and a read by anyone else
    is answered exactly as a read of a link that never existed. In the server's store (a shared
    SQLite file by default), a link still reads after a kernel restart and from another process
    serving the same notebook, until it ages out.

    Parameters
    ----------
    store:
        The store, or a function that opens it on first use (the server's `Guardrails.store`).
        Default: a `MemoryStore` of its own.
    server:
        The server's name, which scopes what is kept (another notebook's links read as unknown).
    max_items:
        How many results this server keeps at most (the oldest go first).
    max_age:
        Seconds a result is kept.
    """

    def __init__(
        self,
        store: Store | Callable[[], Store] | None = None,
        *,
        server: str = "mcp-notebook",
        max_items: int = 64,
        max_age: float = 3600.0,
    ) -> None:
        if store is None:
            store = MemoryStore()
        self._store = store if not isinstance(store, Store) else (lambda: store)
        self.server = server
        self.max_items = max_items
        self.max_age = max_age

    def keep(self, tool: str, items: list[dict[str, Any]], owner: str) -> str:
        """Keep `items` for `owner` (an identity); the URI to read them with."""
        uri = f"{KEPT_SCHEME}{tool}/{secrets.token_urlsafe(18)}"
        store = self._store()
        store.put(
            KEPT_RESULTS,
            Scope(self.server, owner),
            uri,
            [{**item, "uri": uri} for item in items],
            ttl=self.max_age,
        )
        store.trim(KEPT_RESULTS, self.server, self.max_items)
        return uri

    def get(self, uri: str, reader: str) -> list[dict[str, Any]] | None:
        """What was kept at `uri`, if `reader` (an identity) is the one it was kept for."""
        if not 0 < len(uri) <= KEY_MAX or not reader:
            return None  # no such link could have been made
        kept = self._store().get(KEPT_RESULTS, Scope(self.server, reader), uri)
        return kept if isinstance(kept, list) else None


class DataHandlers:
    """resources/*, prompts/* and completion/complete over a catalogue."""

    def __init__(
        self,
        catalogue: Catalogue,
        runner: ToolRunner,
        bus: SubscriptionBus,
        page_size: int,
        rounds: RoundLedger | None = None,
        kept: KeptResults | None = None,
        sessions: Sessions | None = None,
    ) -> None:
        self.catalogue = catalogue
        self.runner = runner
        self.bus = bus
        self.page_size = page_size
        self.kept = kept if kept is not None else KeptResults()
        self.rounds = rounds if rounds is not None else RoundLedger()
        # Handshake-era subscriptions are kept with the rest of each session's state.
        self.sessions = sessions if sessions is not None else Sessions()

    # -- resources ---------------------------------------------------------------------------
    async def list_resources(self, ctx: ServerRequestContext[Any], params: Any) -> Any:  # a wire dict
        entries, cursor = page([r.to_wire() for r in self.catalogue.resources()], params, self.page_size)
        return _complete({"resources": entries}, cursor)

    async def list_templates(self, ctx: ServerRequestContext[Any], params: Any) -> Any:  # a wire dict
        entries, cursor = page([r.to_wire() for r in self.catalogue.templates()], params, self.page_size)
        return _complete({"resourceTemplates": entries}, cursor)

    async def read(self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams) -> Any:
        uri = str(params.uri)
        kept = None
        if uri.startswith(KEPT_SCHEME):  # read from the store (maybe a file) off the loop
            kept = await anyio.to_thread.run_sync(self.kept.get, uri, identity_of(ctx).name)
        if kept is not None:
            return {"resultType": "complete", "contents": kept}
        found = self.catalogue.find_resource(uri)
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        not_found = MCPError(
            types.INVALID_PARAMS if modern else RESOURCE_NOT_FOUND_HANDSHAKE,
            t("resource.unknown", uri=uri),
            data={"uri": uri},
        )
        if found is None:
            raise not_found
        entry, variables = found
        fn = entry.read if isinstance(entry, ResourceEntry) else entry.fn
        try:
            value, _ = await self.runner.run(fn, variables)
        except LookupError:
            # A template matched, but its function knows no such item (KeyError, IndexError ...):
            # that is "resource not found", in the era's own code.
            raise not_found from None
        except Exception as exc:
            # A resource has no error result, unlike a tool: a failed read is a JSON-RPC error.
            raise MCPError(
                types.INTERNAL_ERROR, t("resource.read_failed", uri=uri, error=f"{type(exc).__name__}: {exc}")
            ) from None
        made = (
            entry.contents(value)
            if isinstance(entry, ResourceEntry)
            else contents(uri, value, entry.mime_type)
        )
        return {"resultType": "complete", "contents": made}

    async def subscribe(self, ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams) -> Any:
        state = self.sessions.get(session_id_of(ctx))
        if state is not None:
            if state.session is None:
                state.session = ctx.session
            state.subscriptions.add(str(params.uri))
        return {}

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams
    ) -> Any:
        state = self.sessions.get(session_id_of(ctx))
        if state is not None:
            state.subscriptions.discard(str(params.uri))
        return {}

    async def resource_updated(self, uri: str) -> None:
        await self.bus.publish(ResourceUpdated(uri=uri))
        for state in self.sessions.reachable():
            if uri in state.subscriptions and state.session is not None:
                try:
                    await state.session.send_resource_updated(uri)
                except Exception:  # the client went away: its session ends soon, and its state with it
                    state.subscriptions.clear()

    # -- prompts -----------------------------------------------------------------------------------
    async def list_prompts(self, ctx: ServerRequestContext[Any], params: Any) -> Any:  # a wire dict
        entries, cursor = page([p.to_wire() for p in self.catalogue.prompts()], params, self.page_size)
        return _complete({"prompts": entries}, cursor)

    async def get_prompt(self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> Any:
        entry = self.catalogue.get_prompt(params.name)
        if entry is None:
            near = self.catalogue.near_names(params.name, among=[p.name for p in self.catalogue.prompts()])
            hint = t("did_you_mean", names=", ".join(repr(n) for n in near)) if near else ""
            raise MCPError(
                types.INVALID_PARAMS,
                t("prompt.unknown", name=params.name, hint=hint),
                data={"prompt": params.name, "suggestions": near},
            )
        identity = identity_of(ctx).name
        if entry.context and (ctx.params or {}).get("requestState") is not None:
            try:  # a later round answers its round once (see `_call_checks.AnswerRound`)
                await answered_round(self.rounds, (ctx.params or {})["requestState"], identity)
            except ProtocolRefusal as exc:
                raise MCPError(exc.code, exc.message, data=exc.data) from None
        arguments = dict(params.arguments or {})
        problems = entry.problems(arguments)
        if problems:
            raise MCPError(types.INVALID_PARAMS, " ".join(problems), data={"prompt": entry.name})
        try:
            kwargs = entry.convert(arguments)
        except ValueError as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        context = None
        if entry.context:
            context = kwargs[entry.context] = context_for(ctx)
        try:
            value, _ = await self.runner.run(entry.fn, kwargs)
            messages = render(entry, value, self._read_now)
        except InputRequired as asked:  # 2026-07-28: the client answers, then asks for the prompt again
            round_id = await open_round(self.rounds, identity)
            state = new_state(asked.answers, approved=True, asked=list(asked.requests), round_id=round_id)
            return {"resultType": "input_required", "inputRequests": asked.requests, "requestState": state}
        except ProtocolRefusal as exc:
            raise MCPError(exc.code, exc.message, data=exc.data) from None
        except Exception as exc:
            raise MCPError(
                types.INTERNAL_ERROR, f"Prompt {entry.name!r} failed: {type(exc).__name__}: {exc}"
            ) from None
        finally:
            if context is not None:
                context.close()
        result: dict[str, Any] = {"resultType": "complete", "messages": messages}
        if entry.description:
            result["description"] = entry.description
        return result

    def _read_now(self, uri: str) -> list[dict[str, Any]]:
        found = self.catalogue.find_resource(uri)
        if found is None:
            raise LookupError(t("resource.unknown", uri=uri))
        entry, variables = found
        if isinstance(entry, ResourceEntry):
            return entry.contents(entry.read())
        return contents(uri, entry.fn(**variables), entry.mime_type)

    # -- completion --------------------------------------------------------------------------------
    async def complete(self, ctx: ServerRequestContext[Any], params: types.CompleteRequestParams) -> Any:
        ref = params.ref
        name, partial = params.argument.name, params.argument.value
        context = dict(params.context.arguments or {}) if params.context else {}
        options: Any = []
        if isinstance(ref, types.PromptReference):
            entry = self.catalogue.get_prompt(ref.name)
            if entry is None:
                raise MCPError(types.INVALID_PARAMS, t("prompt.unknown", name=ref.name, hint=""))
            options = entry.completers.get(name, entry.choices.get(name, []))
        else:
            template = next((x for x in self.catalogue.templates() if x.uri_template == ref.uri), None)
            if template is not None:
                options = template.completers.get(name) or _template_choices(template, name)
        if callable(options):
            options = await anyio.to_thread.run_sync(_call_completer, options, partial, context)
        values = [str(v) for v in options if str(v).lower().startswith(partial.lower())]
        completion = {
            "values": values[:MAX_COMPLETIONS],
            "total": len(values),
            "hasMore": len(values) > MAX_COMPLETIONS,
        }
        return {"resultType": "complete", "completion": completion}


def _call_completer(completer: Callable[..., Any], partial: str, context: dict[str, str]) -> list[Any]:
    try:
        return list(completer(partial, context))
    except TypeError:
        return list(completer(partial))


def _template_choices(template: TemplateEntry, variable: str) -> list[str]:
    try:
        hint = typing.get_type_hints(template.fn).get(variable)
    except Exception:  # an unresolvable hint simply offers no completions
        return []
    return literal_choices(hint) if hint is not None else []


def _complete(result: dict[str, Any], cursor: str | None) -> dict[str, Any]:
    result["resultType"] = "complete"
    if cursor is not None:
        result["nextCursor"] = cursor
    return result
