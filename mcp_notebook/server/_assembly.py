"""Where a server is put together: the `ToolServer`, its HTTP app and its listener, in one place.

Two callers build the same parts: `mcp_notebook.serve` in a kernel (a person approves, the
kernel's loop and thread exist) and `mcp_notebook.asgi_app` for an exported app (no kernel, no
person, replicas sharing a store). What differs is passed in: the runner, the approval policy,
the credentials, whether state is shared; how the parts fit is written once, here.

This is the one module that joins the protocol (`_protocol` and what it uses) to the HTTP face
(`http/`): the protocol never imports `http/`, and `http/` takes what it serves as arguments
(an SDK server, an ASGI app, the work that runs beside it), never by importing this module or
building a `ToolServer` itself. The import contracts in ``pyproject.toml`` hold both.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable, Sequence
from typing import Any

import anyio
import anyio.abc
from starlette.types import ASGIApp

from ..core._catalogue import Catalogue
from ..core._identity import Identities
from ..core._questions import StoredRounds
from ..runtime._execution import ToolRunner
from ._approval import ApprovalPolicy
from ._guardrails import Guardrails
from ._protocol import INSTRUCTIONS, TITLE, ToolServer
from ._settings import ServerSettings
from .http._gate import build_app
from .http._listener import run_http
from .http._sessions import DEFAULT_IDLE_TIMEOUT, DEFAULT_PER_IDENTITY


def tool_server(
    catalogue: Catalogue,
    runner: ToolRunner,
    settings: ServerSettings,
    *,
    identities: Identities,
    approval: ApprovalPolicy,
    shared: bool = False,
    request_state_keys: Sequence[bytes] = (),
    title: str = TITLE,
    instructions: str = INSTRUCTIONS,
) -> ToolServer:
    """The protocol server over `catalogue`, with its guardrails, store, audit log and rounds.

    `settings`: the server's (its name, store, limits, audit log). `shared`: state that a kernel's
    server keeps in its process (rate-limit buckets, the open rounds of 2026-07-28 calls) goes to
    the store too, so that every process and replica that serves it shares one (an exported app).
    `request_state_keys`: the keys that seal ``requestState`` (the first seals, all open); none: a
    key of this process. `title`, `instructions`: what the server tells clients it is (a live
    notebook, by default).

    Raises `ToolDefinitionError` when a tool is bound to an MCP Apps view (``@tool(app=...)``)
    that is not registered: a host would follow its link to nothing.
    """
    catalogue.check_apps()
    name = settings.name or "mcp-notebook"
    guards = Guardrails(
        max_output_chars=settings.max_output_chars,
        idempotency_path=settings.idempotency_path,
        store=settings.store,
        server_name=name,
        shared_limits=shared,
    )
    server = ToolServer(
        catalogue,
        runner,
        settings,
        approval=approval,
        guards=guards,
        identities=identities,
        request_state_keys=request_state_keys,
        rounds=StoredRounds(guards.store, name) if shared else None,
        title=title,
        instructions=instructions,
    )
    server.tasks.shared = shared  # a task may be cancelled or answered through another process
    return server


def http_app(
    tools: ToolServer,
    *,
    host: str,
    session_idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    max_sessions: int = DEFAULT_PER_IDENTITY,
    max_body: int | None = None,
    hosts: Iterable[str] = (),
    oauth: Any = None,
    unauthorized: str = "http.unauthorized",
) -> ASGIApp:
    """The server's ASGI app: the SDK's Streamable HTTP app behind the gate (`http._gate.build_app`).

    `unauthorized`: the message key of the 401 answer (where the token comes from differs).
    """
    return build_app(
        tools.sdk,
        identities=tools.identities,
        host=host,
        max_body=max_body,
        answers_at_once=tools.answers_at_once,
        sessions=tools.sessions,
        session_idle_timeout=session_idle_timeout,
        max_sessions=max_sessions,
        hosts=hosts,
        oauth=oauth,
        unauthorized=unauthorized,
    )


async def serve_http(
    tools: ToolServer,
    sock: socket.socket,
    settings: ServerSettings,
    *,
    task_status: anyio.abc.TaskStatus[Any] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve `tools` over HTTP on `sock` (from `http._listener.bind_socket`) until stopped.

    `settings`: the host it answers to, and its sessions' limits. The listener gets the app and the task manager that runs beside it (`http._listener.run_http`);
    ``task_status`` is handed the uvicorn server once it listens.
    """
    app = http_app(
        tools,
        host=settings.host,
        session_idle_timeout=settings.session_idle_timeout,
        max_sessions=settings.max_sessions,
    )
    await run_http(app, sock, beside=tools.tasks, task_status=task_status)
