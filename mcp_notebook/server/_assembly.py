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

import os
import socket
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import anyio
import anyio.abc
from starlette.types import ASGIApp

from ..core._catalogue import Catalogue
from ..core._identity import Identities
from ..core._questions import StoredRounds
from ..core._store import Store
from ..core._tasks import DEFAULT_TTL
from ..runtime._execution import ToolRunner
from ._approval import ApprovalPolicy
from ._audit import default_audit_path
from ._guardrails import Guardrails
from ._protocol import INSTRUCTIONS, TITLE, ToolServer
from .http._connections import ConnectionLimits
from .http._gate import build_app
from .http._listener import run_http
from .http._sessions import DEFAULT_IDLE_TIMEOUT, DEFAULT_PER_IDENTITY


def tool_server(
    catalogue: Catalogue,
    runner: ToolRunner,
    *,
    identities: Identities,
    approval: ApprovalPolicy,
    name: str,
    store: Store | str | None = None,
    idempotency_path: str | os.PathLike[str] | None = None,
    shared: bool = False,
    request_state_keys: Sequence[bytes] = (),
    page_size: int = 100,
    result_limit: int = 50_000,
    history: int = 500,
    history_bytes: int = 32 * 1024 * 1024,
    max_output_chars: int = 1_000_000,
    audit_log: str | os.PathLike[str] | Literal[False] | None = None,
    task_ttl: float = DEFAULT_TTL,
    title: str = TITLE,
    instructions: str = INSTRUCTIONS,
) -> ToolServer:
    """The protocol server over `catalogue`, with its guardrails, store, audit log and rounds.

    `shared`: state that a kernel's server keeps in its process (rate-limit buckets, the open
    rounds of 2026-07-28 calls) goes to the store too, so that every process and replica that
    serves it shares one (an exported app). `request_state_keys`: the keys that seal
    ``requestState`` (the first seals, all open); none: a key of this process.
    `audit_log`: a file, ``"-"`` for stdout, ``False`` for none, None for the default file.
    `task_ttl`: seconds a finished task and its result stay readable.
    `title`, `instructions`: what the server tells clients it is (a live notebook, by default).
    """
    guards = Guardrails(
        max_output_chars=max_output_chars,
        idempotency_path=idempotency_path,
        store=store,
        server_name=name,
        shared_limits=shared,
    )
    rounds = StoredRounds(guards.store, name) if shared else None
    server = ToolServer(
        catalogue,
        runner,
        page_size=page_size,
        result_limit=result_limit,
        history=history,
        history_bytes=history_bytes,
        approval=approval,
        guards=guards,
        identities=identities,
        audit_log=None if audit_log is False else (audit_log or default_audit_path()),
        request_state_keys=request_state_keys,
        rounds=rounds,
        task_ttl=task_ttl,
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
    host: str,
    *,
    limits: ConnectionLimits | None = None,
    session_idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    max_sessions: int = DEFAULT_PER_IDENTITY,
    task_status: anyio.abc.TaskStatus[Any] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve `tools` over HTTP on `sock` (from `http._listener.bind_socket`) until stopped.

    The listener gets the app and the task manager that runs beside it (`http._listener.run_http`);
    ``task_status`` is handed the uvicorn server once it listens.
    """
    app = http_app(tools, host=host, session_idle_timeout=session_idle_timeout, max_sessions=max_sessions)
    await run_http(app, sock, beside=tools.tasks, limits=limits, task_status=task_status)
