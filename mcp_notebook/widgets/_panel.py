"""The panel the `%mcp_serve` cell shows: server status, approval prompts, and the activity log."""

from __future__ import annotations

import html
import math
import time
from typing import Any

import ipywidgets as widgets

from ..core._approval_request import ApprovalRequest
from ..core._identity import claims
from ..core._text import t
from ..core._visible import WRAPPED, json_html, visible, visible_html
from ._activity import MAX_ENTRIES, ActivityView
from ._badge import WAITING_CLASS
from ._catalogue import CatalogueView
from ._connect import ConnectView
from ._status import ServerStatus
from ._style import scoped, style_sheet
from ._tasks import RunningTasks


class ApprovalPrompt(widgets.VBox):
    """Approve / Deny / Always allow for one pending call, with everything shown before it runs.

    What the notebook knows comes first: the tool that would run, whether its definition says it
    changes things, and the buttons. What a client controls (its claimed name, the arguments)
    comes after, so no amount of it can push the rest out of sight, and it is bounded: the claimed
    name cut with its length said, long argument strings cut with theirs, and the box wraps and
    scrolls. Everything is shown as it is: invisible and text-rewriting characters (bidi controls,
    terminal escapes, zero-width, tag and filler characters) appear as highlighted ``⟨U+XXXX⟩``.
    """

    def __init__(self, request: ApprovalRequest) -> None:
        self.request = request
        tool = visible_html(request.tool + (f" ({request.title})" if request.title else ""), one_line=True)
        run = t("panel.run", tool=f"<code>{tool}</code>")
        self.head = widgets.HTML(f"<b>{run}</b> {html.escape(t(_effect(request.annotations)))}")
        # Who is asking is the identity its credential proved; what it says it is comes as a claim.
        claim = claims(request.client, request.claimed)
        client = visible_html(request.client or t("panel.unknown_client"), one_line=True)
        if claim:
            client += f" <span class='mcp-muted'>({visible_html(claim, one_line=True)})</span>"
        hints = ", ".join(f"{key}={value}" for key, value in request.annotations.items())
        said = (
            f"<span class='mcp-muted'>{html.escape(t('panel.claims'))}</span> <code>{visible_html(hints)}</code>"
            if hints
            else f"<span class='mcp-muted'>{html.escape(t('panel.no_claims'))}</span>"
        )
        self.details = widgets.HTML(
            f"<div style='{WRAPPED}'>{t('panel.asked_by', client=client)}</div>"
            f"<div style='{WRAPPED}'>{visible_html(request.description or '')}</div>"
            f"<div>{said}</div>"
            f"<div class='mcp-muted'>{html.escape(t('panel.arguments'))}</div>"
            f"<pre class='mcp-card' style='{WRAPPED}'>{json_html(request.arguments)}</pre>"
            + (f"<div><b>{html.escape(t('panel.task'))}</b></div>" if request.task_id is not None else "")
        )
        # The time left, one trait set a second while the call waits (the server's loop ticks it).
        self.countdown = widgets.HTML("")
        self._shown_seconds: int | None = None
        self._long_wait = False
        self.approve_button = widgets.Button(description=t("panel.approve"), button_style="success")
        self.deny_button = widgets.Button(description=t("panel.deny"), button_style="danger")
        self.always_button = widgets.Button(description=t("panel.always"))
        self.status = widgets.HTML("")
        # Click handlers run on the kernel's main thread or a subshell thread: resolving the request
        # is thread-safe, and the server's loop is woken from it.
        self.approve_button.on_click(lambda _: request.approve())
        self.deny_button.on_click(lambda _: request.deny())
        self.always_button.on_click(lambda _: request.always_allow())
        request._on_resolve.append(self._show_decision)
        request._on_tick.append(self._show_time_left)
        buttons = widgets.HBox(
            [self.approve_button, self.deny_button, self.always_button, self.countdown],
            layout=widgets.Layout(flex_flow="row wrap", align_items="center"),
        )
        # Styled by the sheet of the panel it sits in; it carries none itself, so that nothing but
        # inert markup is ever in a prompt.
        super().__init__([self.head, buttons, self.status, self.details])
        scoped(self).add_class("mcp-prompt")
        self.add_class(WAITING_CLASS)  # where the page's badge leads while it waits
        if request.decision is not None:
            self._show_decision(request)
        elif request.seconds_left is not None:
            self._show_time_left(request.seconds_left)

    def _show_time_left(self, seconds: float) -> None:
        whole = math.ceil(seconds)
        if whole != self._shown_seconds and self.request.decision is None:
            if self._shown_seconds is None:
                # Honest time: the server waits this long, but many clients stop waiting at 60 s.
                self._long_wait = whole > CLIENTS_GIVE_UP
            self._shown_seconds = whole
            note = (
                f" <span class='mcp-muted'>· {html.escape(t('panel.clients_give_up'))}</span>"
                if self._long_wait
                else ""
            )
            left = html.escape(t("panel.time_left", seconds=whole))
            self.countdown.value = f"<span class='mcp-warn'>{left}</span>{note}"

    @property
    def decision(self) -> str | None:
        return self.request.decision

    @property
    def shown_html(self) -> str:
        """What the prompt says, in the order a person reads it (the buttons between the two parts)."""
        return f"{self.head.value}{self.details.value}"

    def _show_decision(self, request: ApprovalRequest) -> None:
        self.remove_class(WAITING_CLASS)
        for button in (self.approve_button, self.deny_button, self.always_button):
            button.disabled = True
        self.countdown.value = ""
        self.status.value = f"<span class='mcp-muted'>{html.escape(outcome(request))}</span>"

    def __repr__(self) -> str:
        tool = visible(self.request.tool)
        return f"<approval request #{self.request.id}: {tool} ({self.request.decision or 'pending'})>"


CLIENTS_GIVE_UP = 60  # seconds: the request timeout of many clients (the SDKs', Inspector's)
MAX_OUTCOMES = 10  # lines left by decided prompts; older ones go


def outcome(request: ApprovalRequest) -> str:
    """One line: what happened to the request and when (``14:03:07 denied: wipe did not run ...``)."""
    when = time.strftime("%H:%M:%S", time.localtime(request.decided or time.time()))
    client = visible(request.client or t("panel.unknown_client"), one_line=True)
    return t(
        f"panel.outcome.{request.decision}",
        time=when,
        tool=visible(request.tool, one_line=True),
        client=client,
    )


def _effect(annotations: dict[str, Any]) -> str:
    """The message saying what the tool's definition says it does to the world (MCP's defaults)."""
    if annotations.get("readOnlyHint") is True:
        return "panel.read_only"
    # A tool that is not read-only may delete or overwrite unless it says it does not (destructiveHint).
    return "panel.additive" if annotations.get("destructiveHint") is False else "panel.destructive"


class ServerPanel(widgets.VBox):
    """Status, pending approvals and a live activity log of one server (bounded to recent calls)."""

    def __init__(self, server: Any, max_entries: int = MAX_ENTRIES) -> None:
        self.server = server
        self.header = ServerStatus(server)
        self.approvals = widgets.VBox([])
        # Calls running as tasks (a client polls them): tool, client, progress, time, and Cancel.
        self.tasks = RunningTasks(server.tool_server.tasks)
        self.activity = ActivityView(max_entries, on_render=self.refresh)
        self.catalogue = CatalogueView(server.catalogue)
        self.connect = ConnectView(server)
        # One collapsible each, not one accordion: a person may keep the log open beside the catalogue.
        sections = widgets.VBox(
            [
                widgets.Accordion([view], titles=(title,))
                for view, title in (
                    (self.catalogue, t("panel.catalogue")),
                    (self.activity, t("panel.activity")),
                    (self.connect, t("panel.connect")),
                )
            ]
        )
        super().__init__([style_sheet(), self.header, self.approvals, self.tasks, sections])
        scoped(self)
        # A person answers here now: what the model is told on a timeout points here.
        server.approval.answered_in = "notebook"
        server.approval.listeners.append(self.show_request)
        server.tool_server.call_listeners.append(self.show_call)
        server.tool_server.audit.listeners.append(self._audit_changed)
        for request in server.pending:
            self.show_request(request)

    def _audit_changed(self, error: str | None) -> None:
        self.refresh()  # on the server's thread: only a trait is set

    def show_request(self, request: ApprovalRequest) -> None:
        """Add an approval prompt (called from the server's thread: only traits are set)."""
        prompt = ApprovalPrompt(request)
        self.approvals.children = (*self.approvals.children, prompt)
        request._on_resolve.append(lambda _: self._leave_outcome(prompt))
        self.refresh()  # the count of calls waiting

    def _leave_outcome(self, prompt: ApprovalPrompt) -> None:
        """Put one line saying what happened, and when, where the decided prompt was."""
        line = widgets.HTML(
            f"<div class='mcp-outcome mcp-muted'>{html.escape(outcome(prompt.request))}</div>"
        )
        line.add_class("mcp-outcome")
        children = [line if child is prompt else child for child in self.approvals.children]
        lines = [child for child in children if not isinstance(child, ApprovalPrompt)]
        for old in lines[: max(0, len(lines) - MAX_OUTCOMES)]:
            children.remove(old)
        self.approvals.children = tuple(children)
        self.refresh()

    @property
    def outcomes(self) -> list[str]:
        """The lines decided prompts left, oldest first (plain text)."""
        return [
            html.unescape(child.value.split(">", 1)[1].rsplit("<", 1)[0])
            for child in self.approvals.children
            if not isinstance(child, ApprovalPrompt)
        ]

    def show_call(self, record: Any) -> None:
        """Queue one request for the activity log (on the server's thread; rendered off its path)."""
        self.activity.add(record)

    def refresh(self) -> None:
        self.header.refresh()

    def stopped(self) -> None:
        """The server stopped: say so, show the last requests, and let the log's thread end."""
        self.refresh()
        self.activity.stop()

    def close(self) -> None:
        """Stop following the server, and close the views."""
        for listeners, listener in (
            (self.server.approval.listeners, self.show_request),
            (self.server.tool_server.call_listeners, self.show_call),
            (self.server.tool_server.audit.listeners, self._audit_changed),
        ):
            if listener in listeners:
                listeners.remove(listener)
        if self.server.approval.answered_in == "notebook":
            self.server.approval.answered_in = "server"  # no panel left to answer in
        self.activity.close()
        self.tasks.close()
        super().close()

    def __repr__(self) -> str:
        # What nbval and text-only frontends see: stable (the port is sanitized), and useful.
        return f"<MCP server panel: {self.server.url}, approval={self.server.approval.mode!r}>"
