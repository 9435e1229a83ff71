"""The page's badge for calls that wait for a person, seen wherever the person is in the notebook.

A prompt lives in one cell's output; scrolled elsewhere, or with no panel shown at all (``serve()``),
nobody sees it. So the kernel keeps one `WaitingBadge` (an anywidget, never displayed): its front
end code runs when the model reaches the page and puts one floating badge on the page's body, out
of every output area and of JupyterLab's windowing of off-screen cells. It shows how many calls
wait, prefixes the browser tab's title with that count, and its button scrolls to the first
waiting prompt (every prompt carries `WAITING_CLASS`), or, when no prompt is on the page, opens
the waiting calls in the badge itself with Approve and Deny.

Everything a client or a server wrote reaches the badge with its hidden characters shown
(`visible`) and is set as text, never as HTML. Traits are set from any thread: the server's
loop tells of a request, a click resolves it.
"""

from __future__ import annotations

import itertools
import json
import secrets
import threading
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from ..core._approval_request import ApprovalRequest
from ..core._identity import claims
from ..core._text import t
from ..core._visible import clip, visible
from ..runtime._loop import runtime

WAITING_CLASS = "mcp-waiting-" + secrets.token_hex(8)
"""The class of a prompt that waits for a person. Random per kernel, so that a server's or a
client's HTML in some output cannot pose as a prompt the badge leads to."""
MAX_ARGUMENTS_CHARS = 2000  # the badge shows a call's arguments; the panel has room for more
MAX_TEXT_CHARS = 200


class WaitingBadge(anywidget.AnyWidget):
    """How many calls wait for a person, and what they are; a click in the badge answers one (`_message`)."""

    _esm = Path(__file__).with_name("_badge.js")
    marker = traitlets.Unicode(WAITING_CLASS).tag(sync=True)
    count = traitlets.Int(0).tag(sync=True)
    # One entry a waiting call: {"id", "kind" ("approval" | "question"), "text", "arguments"}.
    waiting = traitlets.List(traitlets.Dict()).tag(sync=True)
    texts = traitlets.Dict().tag(sync=True)

    def __init__(self) -> None:
        super().__init__(texts=self._texts())
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._entries: dict[str, dict[str, Any]] = {}
        self._requests: dict[str, ApprovalRequest] = {}
        self.on_msg(self._message)

    def add_request(self, request: ApprovalRequest) -> None:
        """Count an approval request until it is decided (called on the server's thread)."""
        tool = visible(request.tool, one_line=True)
        client = visible(request.client or t("panel.unknown_client"), one_line=True)
        claim = claims(request.client, request.claimed)
        if claim:
            client += f" ({visible(claim, one_line=True)})"
        shown = json.dumps(request.arguments, ensure_ascii=False, indent=2, default=str)
        entry = {
            "kind": "approval",
            "text": t("badge.approval", tool=tool, client=client),
            "arguments": clip(visible(shown), MAX_ARGUMENTS_CHARS),
        }
        key = self._add(entry, request)
        request._on_resolve.append(lambda _: self.remove(key))
        if request.decision is not None:  # decided before it was counted
            self.remove(key)

    def add_question(self, text: str) -> str:
        """Count a question a form asks (elicitation, sampling); returns the key to `remove` it with."""
        shown = clip(visible(text, one_line=True), MAX_TEXT_CHARS)
        return self._add({"kind": "question", "text": t("badge.question", text=shown), "arguments": ""})

    def _add(self, entry: dict[str, Any], request: ApprovalRequest | None = None) -> str:
        with self._lock:
            key = str(next(self._ids))
            self._entries[key] = {"id": key, **entry}
            if request is not None:
                self._requests[key] = request
            self._publish()
        return key

    def remove(self, key: str) -> None:
        """Stop counting one waiting call (decided, answered, withdrawn, or its server stopped)."""
        with self._lock:
            if self._entries.pop(key, None) is not None:
                self._requests.pop(key, None)
                self._publish()

    def forget(self, requests: list[ApprovalRequest]) -> None:
        """Stop counting these requests (their server stopped: nobody will decide them)."""
        with self._lock:
            for key, request in list(self._requests.items()):
                if request in requests:
                    del self._requests[key]
                    del self._entries[key]
            self._publish()

    def _publish(self) -> None:
        # Under the lock: the list and the count change together, in the order calls came.
        self.waiting = list(self._entries.values())
        self.count = len(self._entries)

    @property
    def label(self) -> str:
        """What the badge says (``2 calls are waiting for you``)."""
        return t("badge.one") if self.count == 1 else t("badge.many", n=self.count)

    def _message(self, _: Any, content: Any, buffers: Any) -> None:
        """A click in the badge: ``{"action": "approve" | "deny", "id": key}``."""
        if not isinstance(content, dict):
            return
        with self._lock:
            request = self._requests.get(str(content.get("id")))
        action = content.get("action")
        if request is not None and action == "approve":
            request.approve()
        elif request is not None and action == "deny":
            request.deny()

    def _texts(self) -> dict[str, str]:
        """The badge's words, in the notebook's language as it is now (a lesson may have set it since)."""
        return {
            "label": self.label,
            "show": t("badge.show"),
            "hide": t("badge.hide"),
            "approve": t("panel.approve"),
            "deny": t("panel.deny"),
            "no_prompt": t("badge.no_prompt"),
        }

    @traitlets.observe("count")
    def _relabel(self, _: Any) -> None:
        self.texts = self._texts()

    def __repr__(self) -> str:
        return f"<calls waiting for a person: {self.count}>"


_badge: WaitingBadge | None = None
_creating = threading.Lock()


def waiting_badge() -> WaitingBadge:
    """The kernel's one badge, made on first need (from any thread)."""
    global _badge
    with _creating:
        if _badge is None:
            _badge = WaitingBadge()
        return _badge


def in_kernel() -> bool:
    """Whether this runs in a Jupyter kernel, where a page may show the badge."""
    from IPython import get_ipython

    return getattr(get_ipython(), "kernel", None) is not None


def follow_server(server: Any) -> WaitingBadge | None:
    """Count the approval requests of `server` (a server handle) on the page's badge, in a kernel."""
    if not in_kernel():
        return None
    badge = waiting_badge()
    policy = server.approval
    policy.listeners.append(badge.add_request)
    for request in server.pending:
        badge.add_request(request)

    def stopped(url: str) -> None:
        if url != server.url:
            return
        if badge.add_request in policy.listeners:
            policy.listeners.remove(badge.add_request)
        badge.forget(list(policy.pending))
        hooks.remove(stopped)

    hooks = runtime.before_server_stop
    hooks.append(stopped)
    return badge
