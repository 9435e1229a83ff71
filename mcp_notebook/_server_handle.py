"""`ServerHandle`: what `serve()` (and ``%mcp_serve``) hands the user for the server it started.

The handle is the user's view of one in-kernel server: its URL and token, the recent calls and
activity, the approval policy and its pending calls, ready-to-paste client configurations, a
connection check, the status panel, and `stop`. Starting and stopping the server itself, and the
loop it runs on, belong to `mcp_notebook._runtime`, which gives the handle its ``_stop``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ._activity import CallRecord
from ._approval import ApprovalPolicy, ApprovalRequest
from ._catalogue import Catalogue
from ._http import MCP_PATH
from ._server import ToolServer
from ._text import t


class ServerHandle:
    """A running (or stopped) in-kernel MCP server.

    Attributes
    ----------
    url:
        The MCP endpoint, e.g. ``http://127.0.0.1:8765/mcp`` (no token in it).
    token:
        The secret a client must send (``Authorization: Bearer <token>`` or ``?token=``).
    calls:
        The most recent tool calls, newest last (`CallRecord`).
    """

    def __init__(self, tools: ToolServer, *, host: str, port: int, token: str, run_in: str) -> None:
        self._tools = tools
        self.host = host
        self.port = port
        self.token = token
        self.run_in = run_in
        url_host = f"[{host}]" if ":" in host else host
        self.url = f"http://{url_host}:{port}{MCP_PATH}"
        self._stop: Callable[[], None] | None = None
        self._panel: Any = None
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
    def approval(self) -> ApprovalPolicy:
        """The approval policy: ``.mode``, ``.timeout``, ``.allowed`` (tools always allowed)."""
        return self._tools.approval

    def client_config(self, name: str, *, server_name: str = "notebook") -> str:
        """Ready-to-paste configuration for an AI client, with this server's URL and token.

        `name`: ``"claude-code"``, ``"claude-desktop"`` (through the stdio bridge), ``"cursor"``,
        ``"vscode"`` or ``"inspector"``. On a remote kernel (Binder, JupyterHub) it starts with a
        warning that a desktop client cannot reach it.
        """
        from ._configs import client_config

        return client_config(name, self.url, self.token, server_name=server_name)

    def check(self, timeout: float = 10.0) -> Any:
        """Connect the way a client would and report success, or the precise failure and its fix."""
        from ._configs import check_connection

        return check_connection(self.url, self.token, timeout=timeout)

    @property
    def activity(self) -> list[CallRecord]:
        """Every recent request (lists, reads, prompts ... and tool calls), newest last."""
        return list(self._tools.activity)

    @property
    def audit_error(self) -> str | None:
        """Why the audit log could not be written last time (None while writing works)."""
        return self._tools.guards.audit_error

    def export_activity(self, path: str | os.PathLike[str]) -> int:
        """Write the recent requests (with their JSON-RPC request and response) as JSON lines; returns the count.

        Secrets are redacted as in the audit log (by argument name and by what a value looks like:
        tokens, keys, passwords in URLs ...), and the file is readable by its owner only.
        """
        import json

        from ._guards import redact

        calls = self.activity
        # O_CREAT with 0o600, and fchmod for a file that was already there with wider permissions.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "w", encoding="utf-8") as out:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)
            for record in calls:
                out.write(json.dumps(redact(record.to_json()), ensure_ascii=False, default=str) + "\n")
        return len(calls)

    def panel(self) -> Any:
        """A widget with the server's status, approval prompts and activity log (display it).

        One panel per server: showing it again (``%mcp_serve`` run twice) shows the same one, so
        the server never feeds two.
        """
        from .widgets import ServerPanel

        if self._panel is None:
            self._panel = ServerPanel(self)
        return self._panel

    @property
    def pending(self) -> list[ApprovalRequest]:
        """Calls waiting for a person: ``srv.pending[0].approve()`` / ``.deny()`` / ``.always_allow()``."""
        return list(self._tools.approval.pending)

    def stop(self) -> None:
        """Stop serving and free the port. Does nothing if already stopped."""
        stop, self._stop = self._stop, None
        if stop is not None:
            stop()
            if self._panel is not None:
                self._panel.stopped()

    def status(self) -> str:
        if not self.running:
            return t("serve.status_stopped")
        status = t("serve.status_running", url=self.url, tools=len(self.catalogue), run_in=self.run_in)
        if self.approval.mode == "auto":
            status += "\n" + t("approval.auto_warning")
        return status

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        approval = self.approval.mode
        return (
            f"<MCP server {self.url} ({state}, tools={len(self.catalogue)}, run_in={self.run_in!r}, "
            f"approval={approval!r})>"
        )
