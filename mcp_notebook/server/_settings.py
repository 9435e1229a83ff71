"""A server's settings, written, documented and checked in one place: `ServerSettings`.

`mcp_notebook.serve` (and ``%mcp_serve``, ``mcp-notebook serve``) take them as keywords and build
one; an exported app builds one from its config file and environment (`_service_config`), and
the assembly (`_assembly.tool_server`) and the protocol server (`_protocol.ToolServer`) read what
they need from it. A value that cannot work is refused when the settings are made, before a port
is taken, with an `OptionError` that names the setting (an exported app says which file or
variable it came from).
"""

from __future__ import annotations

import ipaddress
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..core._errors import OptionError, ServerError
from ..core._icons import IconsOption, check_icons
from ..core._identity import MIN_TOKEN, check_server_name, guessable
from ..core._options import build
from ..core._secrets import new_token
from ..core._store import Store
from ..core._tasks import DEFAULT_TTL, check_task_ttl
from ..core._text import t
from ..core._tool_options import RunIn
from ._approval import MODES, check_timeout
from ._audit import DEFAULT_KEEP, DEFAULT_MAX_BYTES, default_audit_path
from ._guardrails import server_store

AuditLogSetting = str | os.PathLike[str] | Literal[False] | None


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (``localhost``, ``127.0.0.1``, ``::1``, ...)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ServerSettings:
    """The settings of one MCP server (`mcp_notebook.serve` takes each as a keyword).

    Where it listens, and who may call:

    port:
        TCP port; ``0`` (default) picks a free one.
    host:
        Address to bind. Loopback (127.0.0.1) by default; anything else needs ``allow_remote=True``.
    allow_remote:
        Allow a `host` that is not loopback (with a warning).
    token:
        The server token, the owner's credential (identity ``"owner"``); default ``MCP_NOTEBOOK_TOKEN``
        or a new random token. Give each AI client a token of its own instead:
        ``srv.add_client("claude-code")`` or ``srv.client_config("claude-code")``.
    name:
        This server's name, which scopes the results it stores (idempotency keys) to this notebook:
        another notebook's tool of the same name never replays them. Default: the notebook's file
        name and a digest of its path (``orders-3f9a2c1d``), the same after a kernel restart.
    icons:
        The server's own icons (SEP-973), sent in ``serverInfo`` and in ``srv.server_json()``: as
        for ``@tool(icons=...)``. Prefer an https URL to a data: URI here: a 2026-07-28 client gets
        ``serverInfo`` with every answer.

    Where tools run, and who approves:

    run_in:
        Where tool functions run: ``"thread"`` (a worker thread, default) or ``"kernel"`` (the
        kernel's main thread, between cells). See `mcp_notebook.runtime._execution`.
    busy_timeout:
        With ``run_in="kernel"``: how long a call waits for a busy kernel before it fails.
    approval:
        ``"ask"`` (default): an outside client's call of a tool not annotated read-only waits for a
        person's Approve/Deny (``srv.pending``); ``"always"``: ask for every tool; ``"auto"``: never
        ask (tests, CI, demos; warns). Calls from this notebook itself are never asked about.
    approval_timeout:
        Seconds a call waits for a person's decision; no answer counts as Deny. While it waits, a
        call that carries a ``progressToken`` gets ``notifications/progress`` every 10 s
        (``srv.approval.progress_every``), which keeps clients that reset their own timeout on
        progress (the TypeScript SDK's ``resetTimeoutOnProgress``) waiting past their 60 s.

    Limits:

    page_size:
        Entries per page of ``tools/list``, ``resources/list`` and ``prompts/list``.
    result_limit:
        A tool result with more text than this (characters) is kept as a resource, and the client
        gets a summary with a ``resource_link`` to read all of it.
    max_output_chars:
        Hard cap on a result's text (control characters are always stripped).
    session_idle_timeout:
        Seconds after which a handshake-era session with nothing in flight ends (10 minutes).
    max_sessions:
        How many handshake-era sessions one credential may hold; opening one more closes its oldest
        idle one, or is refused (429) when all are busy.
    task_ttl:
        Seconds a finished task (a long call a client polls: ``@tool(task=...)``) and its result stay
        readable in the store: one hour by default, at most a day. A running task never expires.

    What it records and keeps:

    history:
        How many recent calls `srv.calls` (and the activity log) keep.
    history_bytes:
        How many bytes those records may hold together (32 MiB by default): the oldest go first, and
        one record's large arguments or results are kept shortened (the call itself had them whole).
    audit_log:
        Where to append one JSON line per call (default: ``audit.jsonl`` in the user cache folder,
        ``$MCP_NOTEBOOK_CACHE_DIR`` when set); ``"-"`` for stdout; ``False`` for none. Every kernel
        of a user writes the same file, each line whole, under a lock on ``audit.jsonl.lock``.
    audit_max_bytes:
        The audit file's size limit (50 MiB by default, about 200,000 calls): a line that would
        take it past this first rotates it to ``audit.jsonl.1`` (the older ones to ``.2`` ...).
    audit_keep:
        How many rotated audit files stay (5 by default); the oldest is removed.
    store:
        Where the server keeps what outlives a call: results of ``@tool(idempotency_key=True)``
        tools and large results kept behind a link, each scoped to this server and to the
        identity that made it. A `Store` (``SQLiteStore``, ``MemoryStore``, your own; not closed
        by ``srv.stop()``) or a URL: ``"sqlite:///state.sqlite3"`` (a file; ``sqlite:////abs/path``
        for an absolute path), ``"sqlite://"`` (SQLite in memory), ``"memory://"``. Default: the
        SQLite file ``idempotency.sqlite3`` in the user cache folder (``$MCP_NOTEBOOK_CACHE_DIR``
        when set), which survives a kernel restart and is shared by every kernel of this user.
        ``srv.store`` is the store in use (pass it to ``HandleStore(store=...)``).
    idempotency_path:
        The SQLite file of the server's store (same as ``store="sqlite:///PATH"``); kept for
        compatibility.

    Raises
    ------
    OptionError
        A setting that cannot work (its `option` names it), saying what to pass instead.
    ServerError
        A `host` that is not loopback, without ``allow_remote=True``.
    """

    port: int = 0
    host: str = "127.0.0.1"
    allow_remote: bool = False
    token: str | None = field(default=None, repr=False)
    name: str | None = None
    icons: IconsOption = ()

    run_in: RunIn = "thread"
    busy_timeout: float = 30.0
    approval: str = "ask"
    approval_timeout: float = 120.0

    page_size: int = 100
    result_limit: int = 50_000
    max_output_chars: int = 1_000_000
    session_idle_timeout: float = 600.0
    max_sessions: int = 32
    task_ttl: float = DEFAULT_TTL

    history: int = 500
    history_bytes: int = 32 * 1024 * 1024
    audit_log: AuditLogSetting = None
    audit_max_bytes: int = DEFAULT_MAX_BYTES
    audit_keep: int = DEFAULT_KEEP
    store: Store | str | None = None
    idempotency_path: str | os.PathLike[str] | None = None

    def __post_init__(self) -> None:
        self._check_address()
        if self.run_in not in ("thread", "kernel"):
            raise OptionError(t("serve.bad_run_in", value=self.run_in), "run_in")
        if self.approval not in MODES:
            raise OptionError(t("approval.bad_mode", value=self.approval), "approval")
        self._normalize("approval_timeout", check_timeout)
        self._normalize("task_ttl", check_task_ttl)
        if self.name is not None:
            self._normalize("name", check_server_name)
        self._normalize("icons", lambda icons: check_icons(icons, "serve(icons=...)"))
        for name in (
            "page_size",
            "result_limit",
            "max_output_chars",
            "max_sessions",
            "history",
            "history_bytes",
            "audit_max_bytes",
            "audit_keep",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise OptionError(t("settings.bad_count", name=name, value=value), name)
        for name in ("busy_timeout", "session_idle_timeout"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
                raise OptionError(t("settings.bad_seconds", name=name, value=value), name)
        try:
            server_store(self.store, self.idempotency_path)  # a malformed URL fails now; nothing opens yet
        except ValueError as exc:
            raise OptionError(str(exc), "store") from None

    def _check_address(self) -> None:
        if isinstance(self.port, bool) or not isinstance(self.port, int) or not 0 <= self.port <= 65535:
            raise OptionError(t("settings.bad_port", value=self.port), "port")
        if not isinstance(self.host, str) or not self.host:
            raise OptionError(t("settings.bad_host", value=self.host), "host")
        if not is_loopback(self.host) and not self.allow_remote:
            raise ServerError(t("serve.host_refused", host=self.host))
        if self.token and guessable(self.token):
            got = len(self.token) if isinstance(self.token, str) else type(self.token).__name__
            raise OptionError(
                t("serve.weak_token", where="serve(token=...)", got=got, min=MIN_TOKEN), "token"
            )

    def _normalize(self, name: str, check: Callable[[Any], Any]) -> None:
        """Set `name` to ``check(value)``; its ValueError becomes an `OptionError` naming the setting."""
        try:
            object.__setattr__(self, name, check(getattr(self, name)))
        except ValueError as exc:
            raise OptionError(str(exc), name) from None

    @classmethod
    def of(cls, settings: Mapping[str, Any], where: str) -> ServerSettings:
        """The settings named by a function's keywords (`where`: the function, for the message)."""
        return build(cls, settings, where)

    @property
    def remote(self) -> bool:
        """Whether the server listens beyond this machine."""
        return not is_loopback(self.host)

    def owner_token(self) -> str:
        """The server token: `token`, else ``MCP_NOTEBOOK_TOKEN``, else a new random one.

        The server token opens every tool to whoever holds it, so one that could be guessed (``x``,
        ``1234``, a blank) is refused, saying where it came from, rather than served with.
        """
        if self.token:
            return self.token
        token = os.environ.get("MCP_NOTEBOOK_TOKEN") or None
        if token is None:
            return new_token()
        if guessable(token):
            raise OptionError(
                t("serve.weak_token", where="MCP_NOTEBOOK_TOKEN", got=len(token), min=MIN_TOKEN), "token"
            )
        return token

    def audit_path(self) -> str | os.PathLike[str] | None:
        """Where the audit log goes: a file, ``"-"`` for stdout, or None for no audit log."""
        if self.audit_log is False:
            return None
        return self.audit_log or Path(default_audit_path())
