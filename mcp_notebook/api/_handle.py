"""`ServerHandle`: what `serve()` (and ``%mcp_serve``) hands the user for the server it started.

The handle is the user's view of one in-kernel server: its URL and token, the clients it lets in
(each with a token of its own), the recent calls and activity, the approval policy and its pending
calls, ready-to-paste client configurations, a connection check, the status panel, and `stop`. Starting and stopping the server itself, and the
loop it runs on, belong to `mcp_notebook.api._serving`, which gives the handle its ``_stop``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..client._configs import CLIENTS, check_connection, client_config
from ..client._hub import TOKEN_PLACEHOLDER, HubLocation, hub_check_token, hub_location
from ..client._jupyter import JUPYTER_URL_ENV, JupyterLocation, jupyter_location
from ..client._jupyter import TOKEN_PLACEHOLDER as JUPYTER_TOKEN_PLACEHOLDER
from ..core import _ui
from ..core._approval_request import ApprovalRequest
from ..core._catalogue import Catalogue
from ..core._guards import redact
from ..core._identity import OWNER, notebook_path
from ..core._jsonlines import escape_line_breaks
from ..core._options import build, takes_options
from ..core._registry import Listing, RegistryEntry, registry_entry
from ..core._store import Store
from ..core._text import t
from ..server._approval import ApprovalPolicy
from ..server._pipeline import CallRecord
from ..server._protocol import ToolServer
from ..server._settings import is_loopback
from ..server.http._gate import MCP_PATH


class ServerHandle:
    """A running (or stopped) in-kernel MCP server.

    Attributes
    ----------
    url:
        The MCP endpoint, e.g. ``http://127.0.0.1:8765/mcp`` (no token in it).
    token:
        The server token: the owner's credential (identity ``"owner"``), sent as
        ``Authorization: Bearer <token>`` or ``?token=``. Give each AI client its own token instead
        (`add_client`, `client_config`): then the activity log, approvals and everything a client
        keeps (handles, idempotency keys, large results) are that client's.
    name:
        The server's name, which scopes stored results (idempotency keys) to this notebook.
    store:
        The `Store` the server keeps state in (``serve(store=...)``).
    calls:
        The most recent tool calls, newest last (`CallRecord`).
    """

    def __init__(
        self, tools: ToolServer, *, host: str, port: int, token: str, run_in: str, name: str = "mcp-notebook"
    ) -> None:
        self._tools = tools
        self.name = name
        self.host = host
        self.port = port
        self.token = token
        self.run_in = run_in
        url_host = f"[{host}]" if ":" in host else host
        self.url = f"http://{url_host}:{port}{MCP_PATH}"
        self._stop: Callable[[], None] | None = None
        self._panel: Any = None
        self._on_stop: list[Callable[[], None]] = []  # live views of this handle, told when it stops
        # The runtime folder of the Jupyter kernel this server was published from (`_jupyter_link`).
        self._jupyter_folder: Path | None = None
        self.running = False

    @property
    def catalogue(self) -> Catalogue:
        return self._tools.catalogue

    @property
    def calls(self) -> list[CallRecord]:
        return list(self._tools.calls)

    @property
    def tool_server(self) -> ToolServer:
        return self._tools

    @property
    def store(self) -> Store:
        """The server's `Store` (opened now if nothing was kept yet): give it to ``HandleStore(store=...)``
        to keep handles where the server keeps its state."""
        return self._tools.guards.store()

    @property
    def approval(self) -> ApprovalPolicy:
        """The approval policy: ``.mode``, ``.timeout``, ``.allowed`` (tools always allowed)."""
        return self._tools.approval

    # -- clients and their credentials ------------------------------------------------------------
    def add_client(self, name: str, *, token: str | None = None) -> str:
        """Let the client `name` in with a token of its own, and return that token.

        The token is the client's identity: `mcp_notebook.current_client` returns `name` for its
        calls, the activity log and approval prompts show it, and what it makes (handles,
        idempotency keys, large results, "always allow") is its own. What the client says about
        itself (``clientInfo.name``) is only shown, as a claim.

        Asking again for the same `name` returns the same token (re-running the cell does not
        break a client already set up); to replace a token, `revoke_client` first.

        Parameters
        ----------
        name:
            1-64 letters, digits, ``.``, ``_`` or ``-`` (``"claude-code"``, ``"alice"``).
            ``"notebook"`` and ``"owner"`` are reserved.
        token:
            Use this token (at least 16 characters) instead of a random one, e.g. to keep a client's
            configuration valid across kernel restarts. Read it from a file or the environment, never
            write it into a cell.

        Raises
        ------
        ValueError
            The name is malformed or reserved, or the token is too short or another identity's.
        """
        return self._tools.identities.add(name, token)

    def revoke_client(self, name: str) -> None:
        """Refuse the client `name` from its next request on (HTTP 401), open sessions included.

        Raises
        ------
        KeyError
            There is no client of that name (the message lists those there are).
        """
        self._tools.identities.revoke(name)

    @property
    def clients(self) -> list[str]:
        """The names of the clients that have a token of their own (`add_client`), sorted."""
        return self._tools.identities.clients()

    def client_config(
        self,
        name: str,
        *,
        server_name: str = "notebook",
        identity: str | None = None,
        via: str | None = None,
        jupyter_url: str | None = None,
    ) -> str:
        """Ready-to-paste configuration for an AI client, with this server's URL and the client's own token.

        `name`: ``"claude-code"``, ``"claude-desktop"`` (through the stdio bridge), ``"cursor"``,
        ``"vscode"`` or ``"inspector"``. The configuration carries the token of the client
        `identity` (default: `name` itself), made on first use and the same on every later call
        (`add_client`); ``identity="owner"`` writes the server token instead. `server_name`: the name
        the client shows for this server. On a Binder kernel it starts with a warning that a desktop
        client cannot reach it.

        `via` says which way the client comes in: ``"kernel"``, this server's own loopback URL
        (clients on this machine); ``"jupyter"``, through the Jupyter server that runs this kernel
        (``{Jupyter URL}mcp-notebook/SERVER/mcp``, served by the Jupyter server extension: clients
        on other machines); ``None`` picks Jupyter where the Jupyter server is reached from
        elsewhere (it listens on an address other than loopback, or ``MCP_NOTEBOOK_JUPYTER_URL``
        names its address) and the kernel otherwise. `jupyter_url`: the Jupyter server's address as
        the client reaches it (a container's mapped port, a proxy), in place of the one the server
        gives. Through Jupyter the configuration holds ``<YOUR-JUPYTER-TOKEN>`` where the person's
        Jupyter token goes, never a token, and above it how to get one; the calls are the Jupyter
        user's (``jupyter:USER``), so no client token is made.

        On JupyterHub the Jupyter way is the hub: this student's server path on the hub
        (``https://HUB/user/NAME/mcp-notebook/SERVER/mcp``), with ``<YOUR-HUB-TOKEN>`` where the
        token goes and, above it, how to make that token on the hub's token page (scope
        ``access:servers!user=NAME``); the hub knows its own address, so `jupyter_url` is not used.

        Raises
        ------
        ValueError
            An unknown client or `via`; ``via="jupyter"`` where no Jupyter server runs this kernel.
        """
        if name not in CLIENTS:
            return client_config(name, self.url, None)  # raises the error that lists the known clients
        through = self._through(via, jupyter_url)
        if through is not None:
            placeholder = TOKEN_PLACEHOLDER if isinstance(through, HubLocation) else JUPYTER_TOKEN_PLACEHOLDER
            text = client_config(
                name, through.mcp_url(self.name), placeholder, server_name=server_name, remote=False
            )
            return f"{through.note()}\n\n{text}"
        who = identity if identity is not None else name
        token = self.token if who == OWNER else self.add_client(who)
        return client_config(name, self.url, token, server_name=server_name)

    @property
    def routes(self) -> tuple[str, ...]:
        """The ways a client comes in (`client_config`'s `via`), the one it picks unasked first.

        ``("kernel",)`` outside Jupyter; ``("kernel", "jupyter")`` or ``("jupyter", "kernel")`` in a
        kernel that a Jupyter server runs; ``("jupyter",)`` on JupyterHub, whose kernels no client
        outside reaches on loopback.
        """
        if hub_location() is not None:
            return ("jupyter",)
        try:
            jupyter = self._jupyter()
        except ValueError:  # a malformed MCP_NOTEBOOK_JUPYTER_URL: client_config says what is wrong
            return ("kernel",)
        if jupyter is None:
            return ("kernel",)
        return ("jupyter", "kernel") if jupyter.preferred else ("kernel", "jupyter")

    def _jupyter(self, url: str | None = None) -> JupyterLocation | None:
        """The Jupyter server that runs this kernel, or None outside one (or once stopped)."""
        if self._jupyter_folder is None:
            return None
        from jupyter_core.paths import jupyter_runtime_dir

        return jupyter_location([self._jupyter_folder, jupyter_runtime_dir()], url=url)

    def _through(self, via: str | None, jupyter_url: str | None) -> HubLocation | JupyterLocation | None:
        """Where a client comes in for `via`: the hub, the Jupyter server, or None for the kernel itself."""
        if via not in (None, "kernel", "jupyter"):
            raise ValueError(t("config.bad_via", via=via))
        if via == "kernel":
            return None
        hub = hub_location()
        if hub is not None:
            return hub
        jupyter = self._jupyter(jupyter_url)
        if via == "jupyter":
            if jupyter is None:
                raise ValueError(t("config.no_jupyter", env=JUPYTER_URL_ENV))
            return jupyter
        return jupyter if jupyter is not None and jupyter.preferred else None

    @takes_options(Listing)
    def server_json(self, path: str | os.PathLike[str] | None = None, **listing: Any) -> RegistryEntry:
        """This server's entry for the MCP registry (``server.json``), written to `path` if given.

        The entry names the server (`name`, reverse-DNS), says what it is (`title`, `description`,
        `version`, the server's ``icons``) and where clients reach it (`url`) with the header they
        must send: ``Authorization: Bearer {token}``, required and secret, where each client puts
        its own token (the token itself is never written). Each field is checked as `Listing`
        says. A field left out is made up and said in ``.notes``: the name
        (``io.github.your-github-name/<notebook>``) and the URL (this server listens on loopback,
        where no one else reaches it) are placeholders (``.placeholders``) to change before
        publishing; deploy an exported app (``mcp-notebook export``) and give its URL.

        Publish with the registry's ``mcp-publisher``; an exported app serves the same data as a
        server card (``mcp-notebook card``, README "Registry and discovery").

        Raises
        ------
        OptionError
            A field that the registry would refuse, saying what to write.
        """
        chosen: Listing = build(Listing, listing, "srv.server_json()")
        if chosen.url is None and not is_loopback(self.host):
            chosen = dataclasses.replace(chosen, url=self.url)  # reachable beyond this machine already
        notebook = notebook_path()
        # The server's default name is the notebook's file name and a digest of its folder.
        slug = notebook.stem if notebook is not None else re.sub(r"-[0-9a-f]{8}$", "", self.name)
        entry = registry_entry(
            chosen,
            slug=slug,
            tools=[tool.name for tool in self.catalogue.tools() if tool.expose],
            icons=self._tools.icons,
        )
        if path is not None:
            entry.write(path)
        return entry

    def check(
        self,
        timeout: float = 10.0,
        *,
        identity: str | None = None,
        token: str | None = None,
        via: str | None = None,
        jupyter_url: str | None = None,
    ) -> Any:
        """Connect the way a client would and report success, or the precise failure and its fix.

        With the server token, or with the token of the client `identity` (`add_client`; KeyError
        if there is none).

        Where `client_config` goes through Jupyter (no `identity` given, or ``via="jupyter"``),
        it connects the same way: through the Jupyter server extension (from this machine, at
        the Jupyter server's own address) or, on JupyterHub, through the hub to this student's
        server path; with `token` (a Jupyter token, a token made on the hub's token page) or,
        without one, the token the Jupyter server (or the hub) gave itself, used for the check
        only. `via` and `jupyter_url` as in `client_config`.
        """
        through = self._through(via, jupyter_url) if identity is None or via == "jupyter" else None
        if isinstance(through, HubLocation):
            return check_connection(
                through.inside_url(self.name), token or hub_check_token(), timeout=timeout
            )
        if through is not None:
            sent = token or through.check_token
            return check_connection(through.inside_url(self.name), sent, timeout=timeout)
        if token is not None:
            return check_connection(self.url, token, timeout=timeout)
        token = self.token
        if identity is not None and identity != OWNER:
            token = self._tools.identities.token_of(identity)
            if token is None:
                raise self._tools.identities.unknown(identity)
        return check_connection(self.url, token, timeout=timeout)

    @property
    def activity(self) -> list[CallRecord]:
        """Every recent request (lists, reads, prompts ... and tool calls), newest last."""
        return list(self._tools.activity)

    @property
    def audit_error(self) -> str | None:
        """Why the audit log could not be written last time (None while writing works)."""
        return self._tools.audit.error

    def export_activity(self, path: str | os.PathLike[str]) -> int:
        """Write the recent requests (with their JSON-RPC request and response) as JSON lines; returns the count.

        Secrets are redacted as in the audit log (by argument name and by what a value looks like:
        tokens, keys, passwords in URLs ...), and the file is readable by its owner only.
        """
        calls = self.activity
        # O_CREAT with 0o600, and fchmod for a file that was already there with wider permissions.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "w", encoding="utf-8") as out:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)
            for record in calls:
                out.write(
                    escape_line_breaks(json.dumps(redact(record.to_json()), ensure_ascii=False, default=str))
                    + "\n"
                )
        return len(calls)

    def panel(self) -> Any:
        """A widget with the server's status, approval prompts and activity log (display it).

        One panel per server: showing it again (``%mcp_serve`` run twice) shows the same one, so
        the server never feeds two.
        """
        if self._panel is None:
            self._panel = _ui.make("server_panel", self)
        return self._panel

    @property
    def pending(self) -> list[ApprovalRequest]:
        """Calls waiting for a person: ``srv.pending[0].approve()`` / ``.deny()`` / ``.always_allow()``."""
        # A decided request leaves the gate's list a moment after its decision (when its waiting
        # call wakes): it is no longer waiting for anybody, so it is not listed.
        return [request for request in list(self._tools.approval.pending) if request.pending]

    def stop(self) -> None:
        """Stop serving and free the port. Does nothing if already stopped."""
        stop, self._stop = self._stop, None
        if stop is not None:
            stop()
            if self._panel is not None:
                self._panel.stopped()
            for listener in list(self._on_stop):
                listener()

    def status(self) -> str:
        if not self.running:
            return t("serve.status_stopped")
        status = t("serve.status_running", url=self.url, tools=len(self.catalogue), run_in=self.run_in)
        if self.approval.mode == "auto":
            status += "\n" + t("approval.auto_warning")
        return status

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        # Shown in a cell: a live status line that says "stopped" once the server stops, as the panel
        # above it does; a snapshot saying "running" under a panel saying "stopped" reads as a contradiction.
        return _ui.make("server_status", self)._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        approval = self.approval.mode
        return (
            f"<MCP server {self.url} ({state}, tools={len(self.catalogue)}, run_in={self.run_in!r}, "
            f"approval={approval!r})>"
        )
