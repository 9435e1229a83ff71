"""`asgi_app`: a notebook's tools as a plain ASGI application, served without a kernel.

``mcp-notebook export NB -o app.py`` writes a module that defines the notebook's tools, resources
and prompts, then ``app = asgi_app(...)``; ``uvicorn app:app --workers 4`` or
``gunicorn -k uvicorn.workers.UvicornWorker app:app`` serve it, as replicas behind a load balancer
if need be. Every worker process imports the module and builds its own app: what must be the
same for all of them lives in the configured store (idempotency keys, handles, kept results,
rate-limit buckets, the open rounds of 2026-07-28 calls) or in the configuration (the key that
seals ``requestState``, the credentials). See `_service_config` for the settings.

No person watches a service, so approval is explicit: a tool annotated read-only runs, a tool
allowed by name in the configuration runs, and every other tool is refused at once with a
message that says so (``approval = "auto"`` runs everything, and says that loudly). The app says
which tools run and which are refused when it starts.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import uuid
from collections.abc import Mapping
from typing import Any

import anyio
from anyio.abc import TaskStatus
from starlette.types import Receive, Scope, Send

from ..core._catalogue import Catalogue, default_catalogue
from ..core._identity import Identities
from ..core._registry import RegistryEntry, registry_entry
from ..core._secrets import new_token
from ..core._store import Scope as StateScope
from ..core._store_sqlite import SQLiteStore
from ..core._store_url import serve_store_as
from ..core._text import t
from ..runtime._execution import KernelPump, ToolRunner
from ._approval import ApprovalPolicy
from ._assembly import http_app, tool_server
from ._changes import ChangeRelay
from ._protocol import SERVICE_INSTRUCTIONS, SERVICE_TITLE
from ._service_config import ServiceConfig, ServiceConfigError, load_config, shown_store
from ._service_log import setup_logging
from ._session_state import SessionRecords
from ._versions import SUPPORTED_VERSIONS
from .http._delivery import DeliveryWatch
from .http._discovery import ServerCardRoute
from .http._gate import AddressCheck

logger = logging.getLogger("mcp_notebook.service")


def asgi_app(
    catalogue: Catalogue | None = None,
    *,
    config: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    **settings: Any,
) -> ServiceApp:
    """An ASGI application serving `catalogue`'s tools, resources and prompts (both protocol eras).

    Parameters
    ----------
    catalogue:
        What to serve; default: everything ``@tool``, ``@resource`` and ``@prompt`` defined in
        this process (what the exported module's cells defined).
    config:
        A TOML config file; default: ``$MCP_NOTEBOOK_CONFIG`` if set.
    environ:
        The environment to read ``MCP_NOTEBOOK_...`` settings from (default: ``os.environ``).
    **settings:
        Defaults for the settings (``name=``, ``store=``, ``allow=[...]``, ...; see README "Serving
        an exported app"): the config file and the environment override them.

    Raises
    ------
    ServiceConfigError
        A setting cannot work: the message says where it came from and what to write.
    """
    return ServiceApp(
        catalogue if catalogue is not None else default_catalogue,
        load_config(settings, config=config, environ=environ),
    )


class ServiceApp:
    """The ASGI app of an exported notebook (one per process: each worker builds its own).

    Attributes
    ----------
    config:
        The settings in force.
    name:
        The app's name (``config.server.name``), which scopes its stored state.
    tools:
        The protocol server (its ``calls``, ``store``, ``approval`` ... as in a kernel).
    """

    def __init__(self, catalogue: Catalogue, config: ServiceConfig) -> None:
        self.config = config
        self.name = str(config.server.name)  # the app's name, which scopes its stored state
        names = [entry.name for entry in catalogue.tools()]
        unknown = [name for name in config.allow if name not in names]
        if unknown:
            listing = ", ".join(repr(name) for name in names) or t("none")
            raise ServiceConfigError(
                t("service.unknown_allowed", names=", ".join(map(repr, unknown)), tools=listing)
            )
        # Now, not at start-up only: uvicorn logs "Started server process" after importing the app
        # and before its start-up, and every line of a worker's output should be JSON.
        setup_logging(config.log_format, config.log_level)
        runner = ToolRunner("thread", KernelPump(None), kernel=False)
        approval = ApprovalPolicy("auto" if config.approval == "auto" else "ask")
        approval.answered_in = None  # nobody watches: what needs a person is refused at once, saying so
        approval.unattended_message = "service.approval_refused"  # the way out is the operator's allow list
        # A tool's own approval="never" exempts it in a notebook, where its author watches; a service
        # runs only what is read-only or what its operator allowed by name.
        approval.tool_exemptions = False
        identities = Identities(config.owner_token or new_token())  # no owner token: one nobody knows
        for client, token in config.clients.items():
            identities.add(client, token=token)
        self.tools = tool_server(
            catalogue,
            runner,
            config.server,
            identities=identities,
            approval=approval,
            shared=True,
            request_state_keys=config.state_keys,
            title=SERVICE_TITLE,
            instructions=SERVICE_INSTRUCTIONS,
        )
        self.tools.tool_calls.tool_error_level = logging.WARNING  # the operator sees why a tool failed
        for name in config.allow:
            approval.allowed.add(name)  # for every client, as the tool is defined now
        # `HandleStore(shared=True)` in the module's cells keeps handles in this app's store.
        serve_store_as(self.tools.guards.store, self.name)
        oauth = None
        if config.oauth is not None:
            # Deferred, for an app that accepts OAuth tokens only: it needs `pyjwt` (the `service` extra).
            from .http._oauth import OAuthResource

            oauth = OAuthResource(config.oauth)
        self.oauth = oauth
        # Sessions of 2025-11-25 clients are recorded in the store, so that any worker or replica
        # sharing it can serve them (a client's next connection may reach another process).
        self.tools.sessions.records = SessionRecords(
            self.tools.guards.store, self.name, config.server.session_idle_timeout
        )
        self._app = http_app(
            self.tools,
            host="127.0.0.1",
            session_idle_timeout=config.server.session_idle_timeout,
            max_sessions=config.server.max_sessions,
            max_body=config.max_request_bytes,
            hosts=config.hosts,
            oauth=oauth,
            unauthorized="service.unauthorized",
        )
        # The server card (a draft: `http._discovery`) is public, so it is answered before the gate.
        self._app = ServerCardRoute(self._app, self.server_card, AddressCheck("127.0.0.1", config.hosts))
        # Whatever server runs the app, the audit line of a call says whether its answer arrived whole.
        self._app = DeliveryWatch(self._app)

    def registry_entry(self, url: str | None = None) -> RegistryEntry:
        """This app's ``server.json`` (`core._registry`), from its ``[card]`` settings and icons.

        `url`: the endpoint to name when ``card.url`` is not set (as a request reached it).
        """
        listing = self.config.listing
        if listing.url is None and url is not None:
            listing = dataclasses.replace(listing, url=url)
        return registry_entry(
            listing,
            slug=self.name,
            tools=[entry.name for entry in self.tools.catalogue.tools() if entry.expose],
            icons=self.tools.icons,
            auth=self.config.auth,
        )

    def server_card(self, url: str | None = None) -> dict[str, Any]:
        """The server card this app serves (SEP-2127 draft), naming `url` unless ``card.url`` is set."""
        return self.registry_entry(url).card(SUPPORTED_VERSIONS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self._app(scope, receive, send)
            return
        message = await receive()
        if message["type"] == "lifespan.startup":
            try:
                self.check_store()
            except ServiceConfigError as exc:
                # Said as one line of the log, not as a traceback: uvicorn then exits saying so.
                logger.error("%s", exc, extra={"fields": {"event": "start_failed"}})
                await send({"type": "lifespan.startup.failed", "message": str(exc)})
                return
            self.started()
        replay = [message]

        async def told() -> Any:
            return replay.pop() if replay else await receive()

        relay, following = self._relay(), anyio.CancelScope()

        async def follow(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            with following:
                await relay.follow(task_status=task_status)

        # This process's changes (a tool that calls publish()) go on the store's feed; what the
        # feed carries, from any worker or replica, this process tells its own clients.
        unsubscribe = self.tools.catalogue.subscribe(relay.publish)
        try:
            async with anyio.create_task_group() as group:
                # Calls that become tasks run in the task manager's group for as long as the app
                # runs: they outlive the request that started them (as in a kernel's server).
                await group.start(self.tools.tasks.run)
                await group.start(follow)
                try:
                    await self._app(scope, told, send)
                finally:
                    self.tools.tasks.stop()
                    following.cancel()
        finally:
            unsubscribe()
            relay.close()
            self.tools.close()

    def _relay(self) -> ChangeRelay:
        """The relay of this app's changes through its store (`_changes`), made the server's."""
        feed = self.tools.guards.store().changes(self.name)
        self.tools.relay = ChangeRelay(feed, self.tools.deliver)
        return self.tools.relay

    def check_store(self) -> None:
        """Write, read and delete one entry: a store that cannot work stops the app at start.

        The store opens on first use; without this, a wrong path or an unreachable Redis would
        show only as failed calls, in one era and not the other.
        """
        probe = StateScope(self.name, "start-check")
        key = uuid.uuid4().hex
        try:
            store = self.tools.guards.store()  # opened now: opening fails for a folder that is not there
            store.put("start-check", probe, key, True, ttl=60)
            seen = store.get("start-check", probe, key)
            store.delete("start-check", probe, key)
        except Exception as exc:  # any failure of the store's own library: say it, then stop
            problem = _problem(exc)
        else:
            if seen is True:
                return
            problem = t("service.store_lost_value")
        raise ServiceConfigError(
            t("service.store_unusable", store=shown_store(self.config.store), problem=problem)
        )

    def started(self) -> None:
        """Set up the logs and say how this app serves (once per worker process, at its start)."""
        config = self.config
        setup_logging(config.log_format, config.log_level)
        tools = list(self.tools.catalogue.tools())
        policy = self.tools.approval
        runs = [e.name for e in tools if not policy.needs_approval(e.name, e.read_only, e.approval, False)]
        refused = [e.name for e in tools if e.name not in runs]
        fields = {
            "event": "start",
            "name": self.name,
            "pid": os.getpid(),
            "tools": [e.name for e in tools],
            "store": shown_store(config.store),
            "clients": sorted(config.clients),
            "oauth_issuer": config.oauth.issuer if config.oauth is not None else None,
            "request_state_key": "shared" if config.state_keys else "this process",
            "approval": config.approval,
            "runs": runs,
            "refused": refused,
            "config": list(config.sources),
        }
        catalogue = self.tools.catalogue
        counts = {
            "resources": len(catalogue.resources()),
            "templates": len(catalogue.templates()),
            "prompts": len(catalogue.prompts()),
        }
        fields |= {name: [entry.name for entry in getattr(catalogue, name)()] for name in counts}
        said = t("service.started", name=self.name, count=len(tools), **counts)
        logger.info("%s", said, extra={"fields": fields})
        if config.approval == "auto":
            logger.warning("%s", t("service.approval_auto"), extra={"fields": {"event": "approval"}})
        else:
            none = t("none")
            message = t(
                "service.approval_unattended",
                runs=", ".join(runs) or none,
                refused=", ".join(refused) or none,
            )
            logger.info(
                "%s", message, extra={"fields": {"event": "approval", "runs": runs, "refused": refused}}
            )
        in_kernel = [e.name for e in tools if e.run_in == "kernel"]
        if in_kernel:
            logger.warning(
                "%s",
                t("service.no_kernel", tools=", ".join(in_kernel)),
                extra={"fields": {"event": "run_in", "tools": in_kernel}},
            )
        if not config.state_keys:
            logger.warning("%s", t("service.process_key"), extra={"fields": {"event": "request_state_key"}})
        if config.listing.name is None:  # the card's URL comes from each request: never a placeholder
            logger.warning("%s", t("service.card_placeholder"), extra={"fields": {"event": "card"}})
        self._say_sharing()

    def _say_sharing(self) -> None:
        """Say what sharing a SQLite file costs, once a second process (worker) has it open.

        Workers start together, so the last one to start counts them all; each says what it sees.
        """
        store = self.tools.guards.store()
        if not isinstance(store, SQLiteStore):
            return
        count = store.sharers()
        if count > 1:
            logger.warning(
                "%s",
                t("service.sqlite_shared", count=count, store=shown_store(self.config.store)),
                extra={"fields": {"event": "store_shared", "processes": count}},
            )


def _problem(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text if text.endswith(".") else f"{text}."
