"""Human approval of tool calls: the policy, and the decisions waiting for a person.

UI-agnostic and thread-safe: a request is resolved from any thread (a button click runs on the
kernel's main thread or a subshell thread) and awaited on the server's loop. Nothing here blocks
a cell: a person answers through widgets, or with ``request.approve()`` / ``.deny()``.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ._text import add_messages, t

Mode = Literal["ask", "always", "auto"]
Decision = Literal["approved", "denied", "timeout", "always-allowed", "not-needed"]
MODES = ("ask", "always", "auto")

add_messages(
    {
        "approval.declined": {
            "en": (
                "The person running the notebook declined this call to {tool!r}. Do not call it again unless "
                "they ask you to; tell them what you wanted to do instead."
            ),
            "ko": (
                "노트북을 실행 중인 사람이 {tool!r} 호출을 거절했습니다. 요청받기 전에는 다시 호출하지 말고, "
                "무엇을 하려 했는지 사람에게 설명하세요."
            ),
        },
        "approval.timeout": {
            "en": (
                "Nobody approved this call to {tool!r} within {seconds:g} s, so it did not run. Do not retry on "
                "your own; ask the person to approve it in the notebook first."
            ),
            "ko": (
                "{seconds:g}초 안에 아무도 {tool!r} 호출을 승인하지 않아 실행하지 않았습니다. 스스로 다시 시도하지 말고, "
                "먼저 노트북에서 승인해 달라고 사람에게 요청하세요."
            ),
        },
        "approval.bad_mode": {
            "en": "approval must be one of 'ask', 'always' or 'auto', got {value!r}.",
            "ko": "approval은 'ask', 'always', 'auto' 중 하나여야 하는데 {value!r}을(를) 받았습니다.",
        },
        "approval.auto_warning": {
            "en": (
                "Approval is OFF (approval='auto'): every tool call from an outside client runs without asking. "
                "Use this only for tests, CI and demos."
            ),
            "ko": (
                "승인이 꺼져 있습니다(approval='auto'): 외부 클라이언트의 모든 도구 호출이 묻지 않고 실행됩니다. "
                "테스트, CI, 시연에만 쓰세요."
            ),
        },
    }
)


@dataclass(eq=False)
class ApprovalRequest:
    """A tool call waiting for a person's decision. Resolve it from any thread."""

    id: int
    tool: str
    title: str | None
    description: str | None
    annotations: dict[str, Any]
    arguments: dict[str, Any]
    client: str | None  # the identity its credential proved ("owner", or a client's name)
    claimed: str | None = field(default=None, repr=False)  # what the client says it is: shown, not trusted
    created: float = field(default_factory=time.time, repr=False)  # a repr that prints the same in every run
    decision: Decision | None = None
    _on_resolve: list[Callable[[ApprovalRequest], None]] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def approve(self) -> None:
        """Run the call."""
        self._resolve("approved")

    def deny(self) -> None:
        """Do not run it; the client is told the person declined."""
        self._resolve("denied")

    def always_allow(self) -> None:
        """Run it, and every later call of this tool by the same client while the server runs."""
        self._resolve("always-allowed")

    @property
    def pending(self) -> bool:
        return self.decision is None

    def _resolve(self, decision: Decision) -> None:
        with self._lock:
            if self.decision is not None:
                return  # the first answer counts (a late click after a timeout changes nothing)
            self.decision = decision
            callbacks = list(self._on_resolve)
        for callback in callbacks:
            callback(self)


class ApprovalPolicy:
    """Decides which calls need a person, and holds the requests waiting for one.

    Modes: ``"ask"`` (default) asks for every tool not annotated read-only; ``"always"`` asks for
    every tool; ``"auto"`` asks for none (tests, CI, demos). A tool's own ``@tool(approval=...)``
    (``"always"`` or ``"never"``) wins. Calls made from the notebook itself (``%mcp_call``) are the
    person's own and are not asked about.

    "Always allow" holds for the identity that was allowed, never for others: ``allowed`` holds
    ``(identity, tool)`` pairs.
    """

    def __init__(self, mode: str = "ask", timeout: float = 120.0) -> None:
        if mode not in MODES:
            raise ValueError(t("approval.bad_mode", value=mode))
        self.mode = mode
        self.timeout = timeout
        self.allowed: set[tuple[str, str]] = set()  # (identity, tool)
        self.pending: list[ApprovalRequest] = []
        self.listeners: list[Callable[[ApprovalRequest], None]] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def needs_approval(
        self, tool: str, read_only: bool, override: str | None, local: bool, *, client: str | None = None
    ) -> bool:
        """Whether a call of `tool` by `client` (an identity) waits for a person."""
        if local or (client is not None and (client, tool) in self.allowed):
            return False
        if override is not None:
            return override == "always"
        if self.mode == "auto":
            return False
        return self.mode == "always" or not read_only

    async def decide(self, request: ApprovalRequest) -> Decision:
        """Show `request` to whoever listens and wait (on the server loop) for the decision."""
        loop = asyncio.get_running_loop()
        answered = asyncio.Event()

        def wake(_: ApprovalRequest) -> None:
            loop.call_soon_threadsafe(answered.set)

        request._on_resolve.append(wake)
        with self._lock:
            self.pending.append(request)
        for listener in list(self.listeners):
            listener(request)
        try:
            await asyncio.wait_for(answered.wait(), self.timeout)
        except TimeoutError:
            request._resolve("timeout")
        finally:
            with self._lock:
                if request in self.pending:
                    self.pending.remove(request)
        decision = request.decision or "timeout"
        if decision == "always-allowed" and request.client is not None:
            self.allowed.add((request.client, request.tool))
        return decision

    def new_request(self, **fields: Any) -> ApprovalRequest:
        return ApprovalRequest(id=next(self._ids), **fields)

    def message(self, decision: Decision, tool: str) -> str | None:
        """What the client is told when the call does not run (None when it runs)."""
        if decision == "denied":
            return t("approval.declined", tool=tool)
        if decision == "timeout":
            return t("approval.timeout", tool=tool, seconds=self.timeout)
        return None
