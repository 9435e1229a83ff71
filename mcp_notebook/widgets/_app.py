"""An MCP App shown in the notebook: the notebook as an Apps host (``io.modelcontextprotocol/ui``).

    AppFrame  the anywidget that draws the app in a sandboxed frame and speaks the host side of the
              Apps protocol with it (``_app.js``): the handshake, the tool's input and result, sizes
    AppView   the frame with what the person must see and decide: where the app comes from, what
              it may reach, the permissions it asks for (granted only by a click), its links and
              messages, and each tool call it asks for, as a pending call with Approve / Deny

What the app may reach is decided in `core._app_frame` (its policy, document and permissions); its
requests that reach past the frame come here and are answered here: a ``tools/call`` goes to the
server the app came from, only for a tool whose visibility names ``"app"``, and only once the person
approves it (the approval a model's call gets: `PendingCall`), or has allowed that tool from this
app for good with a click; its result says it came from the app.
A link is offered, never followed; a message is shown, never sent.
"""

from __future__ import annotations

import concurrent.futures
import json
import threading
from pathlib import Path
from typing import Any

import anyio.to_thread
import anywidget
import ipywidgets as widgets
import traitlets

from .._version import __version__
from ..client._apps import App, app_may_call
from ..client._calls import call
from ..client._results import CallResult
from ..core import _ui
from ..core._app_frame import (
    SANDBOX,
    allow_attribute,
    link_ok,
    policy,
    requested_permissions,
    srcdoc,
)
from ..core._errors import ProtocolError
from ..core._text import t
from ..core._visible import clip, visible
from ..runtime._loop import runtime
from ._content import esc

MAX_NOTES = 20  # links and messages kept on screen: an app that posts in a loop fills no page
MAX_WAITING = 5  # tool calls of one app waiting for the person: more are refused, not stacked up
MAX_KEPT = 200  # calls, answers and requests remembered per app (the record, not the screen)
MAX_NOTE_CHARS = 2000
# JSON-RPC codes of the answers (the Apps spec leaves refusals to the host: -32000).
INVALID_PARAMS, METHOD_NOT_FOUND, INTERNAL_ERROR, REFUSED = -32602, -32601, -32603, -32000


class AppFrame(anywidget.AnyWidget):
    """The app's frame and the host side of its protocol (``_app.js``); its state is what it draws."""

    _esm = Path(__file__).with_name("_app.js")
    srcdoc = traitlets.Unicode("").tag(sync=True)
    sandbox = traitlets.Unicode(SANDBOX, read_only=True).tag(sync=True)
    allow = traitlets.Unicode("").tag(sync=True)
    # What the host tells the app at its handshake: the permissions granted, the domains accepted,
    # the tool's definition, and the call's input and result.
    granted = traitlets.Dict().tag(sync=True)
    csp = traitlets.Dict().tag(sync=True)
    tool = traitlets.Dict().tag(sync=True)
    tool_input = traitlets.Dict().tag(sync=True)
    tool_result = traitlets.Dict().tag(sync=True)
    # Links and messages of the app: {"kind": "link", "url"} | {"kind": "message"|"context"|"log", "text"}.
    notes = traitlets.List(traitlets.Dict()).tag(sync=True)
    texts = traitlets.Dict().tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    host_version = traitlets.Unicode(__version__).tag(sync=True)
    border = traitlets.Bool(True).tag(sync=True)
    initial_height = traitlets.Int(320).tag(sync=True)
    max_height = traitlets.Int(1600).tag(sync=True)


def _texts() -> dict[str, str]:
    return {
        "link": t("app.note_link"),
        "message": t("app.note_message"),
        "context": t("app.note_context"),
        "log": t("app.note_log"),
    }


def _accepted(csp: dict[str, Any], text: str) -> dict[str, list[str]]:
    """The domains of `csp` that made it into the policy `text` (told to the app at its handshake)."""
    accepted: dict[str, list[str]] = {}
    sources = set(text.replace(";", " ").split())
    for key, listed in csp.items():
        if isinstance(listed, list):
            kept = [value for value in listed if isinstance(value, str) and value in sources]
            if kept:
                accepted[key] = kept
    return accepted


class AppView(widgets.VBox):
    """A tool result's app, with what the person sees of it and decides for it.

    Attributes
    ----------
    frame:
        The `AppFrame` (its ``srcdoc``, ``sandbox`` and ``allow`` are what the browser is given).
    policy:
        The Content-Security-Policy at the head of the app's document, and the domains refused.
    requested:
        The browser permissions the app asks for; `grant` gives them.
    calls:
        Every tool call the app asked for: ``{"tool", "arguments", "outcome"}`` (``"refused"``,
        ``"denied"``, ``"approved"``, ``"error"``), in order.
    answers:
        Every answer sent to the app: ``{"id", "result"}`` or ``{"id", "error"}``.
    pending:
        The pending calls the app asked for, each with Approve / Deny, and under it a button that
        approves it and every later call of that tool from this app.
    always:
        The tools this app may call without asking again (the person clicked that button).
    initialized:
        Whether the app has finished its handshake in a browser.
    """

    def __init__(self, result: CallResult) -> None:
        app = result.app
        if app is None:
            raise ValueError("AppView needs a result with an app")
        self.app: App = app
        self.result = result
        self.origin = result.origin
        self.calls: list[dict[str, Any]] = []
        self.answers: list[dict[str, Any]] = []
        self.pending: list[Any] = []
        self._prompts: list[widgets.Widget] = []
        self.always: set[str] = set()
        self.handled: list[concurrent.futures.Future[Any]] = []
        self.initialized = False
        self._lock = threading.Lock()
        self.requested = requested_permissions(app.permissions)
        self.policy = policy(app.csp)
        server = self.origin.describe() if self.origin is not None else "?"
        lines = [t("app.header", uri=app.uri, server=server)]
        accepted = _accepted(dict(app.csp), self.policy.text)
        connect = accepted.get("connectDomains", []) + accepted.get("resourceDomains", [])
        lines.append(t("app.network", domains=", ".join(connect)) if connect else t("app.network_none"))
        if self.policy.refused:
            lines.append(t("app.refused", domains="; ".join(self.policy.refused)))
        self.header = widgets.HTML(
            "<div style='color:var(--jp-ui-font-color2)'>"
            + "".join(f"<div>{esc(visible(line, one_line=True))}</div>" for line in lines)
            + "</div>"
        )
        self.frame = AppFrame(
            srcdoc=srcdoc(app.html, self.policy),
            csp=accepted,
            tool=dict(app.tool),
            tool_input=dict(result.arguments),
            tool_result=dict(result.raw),
            texts=_texts(),
            title=t("app.frame_title", uri=app.uri),
            border=app.prefers_border is not False,
        )
        self.frame.on_msg(self._message)
        self.allow_button = widgets.Button(description=t("app.allow"), icon="unlock")
        self.allow_button.on_click(lambda _: self.grant())
        self.permission_line = widgets.HTML(
            esc(t("app.permissions", features=", ".join(self.requested))) if self.requested else ""
        )
        asks: list[widgets.Widget] = (
            [widgets.HBox([self.permission_line, self.allow_button])] if self.requested else []
        )
        self.calls_box = widgets.VBox([])
        super().__init__([self.header, *asks, self.frame, self.calls_box])

    @classmethod
    def of(cls, result: CallResult) -> AppView:
        """The view of `result`'s app (a result with ``.app``)."""
        return cls(result)

    def grant(self) -> None:
        """Give the app the browser permissions it asked for (the person clicked Allow); reloads it."""
        self.allow_button.disabled = True
        self.frame.granted = {key: {} for key in dict(self.app.permissions) if key}
        self.frame.allow = allow_attribute(self.requested)
        self.permission_line.value = esc(t("app.granted", features=", ".join(self.requested)))

    # -- what the app asks (from the frame's front end) ----------------------------------------------
    def _message(self, _: Any, content: Any, buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        if content.get("kind") == "initialized":
            self.initialized = True
        elif content.get("kind") == "request" and isinstance(content.get("method"), str):
            params = content.get("params")
            request = (content.get("generation"), content.get("id"), content["method"])
            # Off the comm's thread: a tool call asks the server first (a request may take a while).
            future = runtime.portal().start_task_soon(
                anyio.to_thread.run_sync, self._handle, request, params if isinstance(params, dict) else {}
            )
            self.handled.append(future)
            del self.handled[:-MAX_KEPT]

    def _handle(self, request: tuple[Any, Any, str], params: dict[str, Any]) -> None:
        method = request[2]
        if method == "tools/call":
            self._tool_call(request, params)
        elif method == "ui/open-link":
            url = link_ok(params.get("url"))
            if url is None:
                self._answer(request, error=(INVALID_PARAMS, t("app.bad_link")))
            else:
                self._note({"kind": "link", "url": url})
                self._answer(request, result={})
        elif method in ("ui/message", "ui/update-model-context", "notifications/message"):
            kind = {"ui/message": "message", "ui/update-model-context": "context"}.get(method, "log")
            self._note({"kind": kind, "text": _shown(params)})
            self._answer(request, result={})
        else:  # resources/read: this host does not offer the server's resources to apps
            self._answer(request, error=(METHOD_NOT_FOUND, f"Method not found: {method}"))

    def _tool_call(self, request: tuple[Any, Any, str], params: dict[str, Any]) -> None:
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            self._answer(request, error=(INVALID_PARAMS, "tools/call needs a name and an arguments object"))
            return
        record: dict[str, Any] = {"tool": name, "arguments": arguments, "outcome": "asked"}
        with self._lock:
            self.calls.append(record)
            del self.calls[:-MAX_KEPT]
            waiting = sum(1 for pending in self.pending if pending.decision is None)
        if waiting >= MAX_WAITING:  # an app that asks in a loop buries no prompt under its own
            record["outcome"] = "refused"
            self._answer(request, error=(REFUSED, t("app.too_many", n=MAX_WAITING)))
            return
        options = self.origin.options() if self.origin is not None else {}
        try:
            allowed = self.origin is not None and app_may_call(name, **options)
        except Exception as exc:  # the server could not say: no call
            record["outcome"] = "error"
            self._answer(request, error=(INTERNAL_ERROR, str(exc)))
            return
        if not allowed:
            record["outcome"] = "refused"
            self._answer(request, error=(REFUSED, t("app.not_for_apps", tool=name)))
            return

        def done(decision: str, result: Any, error: BaseException | None) -> None:
            record["outcome"] = decision if error is None else "error"
            if decision == "denied":
                self._answer(request, error=(REFUSED, t("app.denied", tool=name)))
            elif isinstance(error, ProtocolError):
                self._answer(request, error=(error.code, error.message))
            elif error is not None:
                self._answer(request, error=(INTERNAL_ERROR, str(error)))
            elif isinstance(result, CallResult):
                record["result"] = result
                self._answer(request, result=dict(result.raw))
            else:  # the server asked the person something first: answered in the notebook
                self._answer(request, error=(REFUSED, t("app.asked_question")))

        if name in self.always:  # the person allowed this tool from this app for good, with a click
            record["outcome"] = "approved"
            try:
                called = call(name, arguments, from_app=self.app.uri, **options)
            except Exception as exc:
                done("approved", None, exc)
                return
            done("approved", called, None)
            return
        pending = _ui.make("pending_call", name, arguments, options, from_app=self.app.uri, on_done=done)
        always = widgets.Button(description=t("app.always", tool=name), icon="check")
        always.on_click(lambda _: self._allow_always(name, pending, always))
        with self._lock:
            # Decided calls leave the record first, so the screen holds at most MAX_KEPT of them.
            self.pending = [*self.pending, pending][-MAX_KEPT:]
            self._prompts = [*self._prompts, widgets.VBox([pending, always])][-MAX_KEPT:]
            self.calls_box.children = tuple(self._prompts)

    def _allow_always(self, name: str, pending: Any, button: widgets.Button) -> None:
        """Approve `pending` and every later call of the tool `name` from this app (this view only)."""
        button.disabled = True
        self.always.add(name)
        pending.approve()

    # -- what goes back -----------------------------------------------------------------------------
    def _note(self, note: dict[str, str]) -> None:
        with self._lock:
            self.frame.notes = [*self.frame.notes, note][-MAX_NOTES:]

    def _answer(
        self,
        request: tuple[Any, Any, str],
        *,
        result: dict[str, Any] | None = None,
        error: tuple[int, str] | None = None,
    ) -> None:
        generation, request_id, _ = request
        if request_id is None:  # a notification: nothing to answer
            return
        answer: dict[str, Any] = {"id": request_id}
        if error is not None:
            answer["error"] = {"code": error[0], "message": error[1]}
        else:
            answer["result"] = result if result is not None else {}
        with self._lock:
            self.answers.append(answer)
            del self.answers[:-MAX_KEPT]
        self.frame.send({"kind": "answer", "generation": generation, **answer})

    def __repr__(self) -> str:
        return repr(self.result)


def _shown(params: dict[str, Any]) -> str:
    """The text of a message the app sent (its text blocks, else its JSON), with hidden characters shown."""
    content = params.get("content", params.get("data", params))
    blocks = content if isinstance(content, list) else [content]
    texts = [b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)]
    text = "\n".join(texts) if texts else json.dumps(content, ensure_ascii=False, default=str)
    return clip(visible(text), MAX_NOTE_CHARS)
