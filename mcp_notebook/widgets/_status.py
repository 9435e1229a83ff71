"""The panel's status header: state, URL, name, approval mode, clients seen and calls waiting.

One HTML widget, rendered again whenever something it shows may have changed (a request logged, a
prompt shown or decided, the audit log failing, the server stopping); each render is one trait set,
safe from the server's thread.
"""

from __future__ import annotations

import time
from typing import Any

import ipywidgets as widgets

from ..core._identity import NOTEBOOK
from ..core._text import t
from ._style import code_block, esc

RECENT_SECONDS = 300  # a client that made a request within this long counts as connected


def recent_clients(records: Any, now: float | None = None) -> list[str]:
    """The identities (not the notebook's own) that made a request in the last `RECENT_SECONDS`, sorted."""
    since = (time.time() if now is None else now) - RECENT_SECONDS
    return sorted(
        {
            record.client
            for record in records
            if record.started >= since and record.client not in (None, NOTEBOOK)
        }
    )


class ServerStatus(widgets.HTML):
    """The header of one server's panel; `refresh()` renders it again."""

    def __init__(self, server: Any) -> None:
        self.server = server
        super().__init__("")
        self.add_class("mcp-status-header")
        self.refresh()

    def refresh(self) -> None:
        self.value = self.render()

    def render(self) -> str:
        server = self.server
        running = bool(server.running)
        state = (
            f"<span class='mcp-pill mcp-ok'>● {esc(t('panel.running'))}</span>"
            if running
            else f"<span class='mcp-pill mcp-muted'>■ {esc(t('panel.stopped'))}</span>"
        )
        mode = server.approval.mode
        clients = recent_clients(server.activity)
        waiting = len(server.pending)
        facts = [
            (t("panel.name"), f"<code>{esc(server.name)}</code>"),
            (t("panel.approval"), esc(t(f"panel.mode.{mode}"))),
            (t("panel.clients"), esc(", ".join(clients)) if clients else esc(t("panel.no_clients"))),
            (t("panel.waiting"), f"<b class='mcp-warn'>{waiting}</b>" if waiting else "0"),
        ]
        shown = "".join(
            f"<span class='mcp-fact'><span>{esc(label)}</span><span>{value}</span></span>"
            for label, value in facts
        )
        banners = ""
        if mode == "auto":
            banners += f"<div class='mcp-banner mcp-error'>{esc(t('approval.auto_warning'))}</div>"
        error = server.tool_server.audit.error
        if error is not None:
            banners += f"<div class='mcp-banner mcp-error'>{esc(t('panel.audit_failing', error=error))}</div>"
        return (
            f"<div class='mcp-status'><span class='mcp-title'>{esc(t('panel.title'))}</span>{state}{shown}"
            f"<div class='mcp-banner'>{code_block(server.url, t('panel.url'))}</div>{banners}</div>"
        )


class ServerLine(widgets.HTML):
    """What a cell showing the server handle (``srv``) shows: one live line, "stopped" once it stops.

    Its text (for nbval and text-only frontends) is the handle's own repr, as before.
    """

    def __init__(self, server: Any) -> None:
        self.server = server
        super().__init__("")
        self.refresh()
        server._on_stop.append(self.refresh)

    def refresh(self) -> None:
        server = self.server
        state = (
            f"<span style='color:var(--jp-success-color1)'>● {esc(t('panel.running'))}</span>"
            if server.running
            else f"<span style='color:var(--jp-ui-font-color2)'>■ {esc(t('panel.stopped'))}</span>"
        )
        # Styled inline: this line is often shown far from the panel and its style sheet.
        self.value = (
            f"<div>{state} <b>{esc(t('panel.title'))}</b> <code>{esc(server.url)}</code>"
            f" <span style='color:var(--jp-ui-font-color2)'>· {esc(t('panel.name'))}</span>"
            f" <code>{esc(server.name)}</code></div>"
        )

    def __repr__(self) -> str:
        return repr(self.server)
