"""A tool call waiting for a person's decision, and the decisions it can get.

The server's approval policy (`mcp_notebook.server._approval`) makes and awaits these; the
panel, the terminal of ``mcp-notebook serve`` and code holding the server handle show and answer
them. It lives in the core so that the widgets show it without importing the server. Resolved
from any thread (a button click runs on the kernel's main thread or a subshell thread): the
first answer counts.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

Decision = Literal["approved", "denied", "timeout", "always-allowed", "not-needed", "withdrawn", "unattended"]


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
    decided: float | None = field(default=None, repr=False)  # time.time() when it was decided
    # The definition the person is shown (`ToolEntry.fingerprint`): "always allow" allows that one.
    definition: str | None = field(default=None, repr=False)
    deadline: float | None = field(default=None, repr=False)  # time.monotonic() when it times out
    # The task this call runs as (a client that polls for the result): the decision covers it alone.
    task_id: str | None = field(default=None, repr=False)
    _on_resolve: list[Callable[[ApprovalRequest], None]] = field(default_factory=list, repr=False)
    _on_tick: list[Callable[[float], None]] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def approve(self) -> None:
        """Run the call."""
        self._resolve("approved")

    def deny(self) -> None:
        """Do not run it; the client is told the person declined."""
        self._resolve("denied")

    def always_allow(self) -> None:
        """Run it, and every later call of this tool by the same client, as it is defined now, while the server runs."""
        self._resolve("always-allowed")

    @property
    def pending(self) -> bool:
        return self.decision is None

    @property
    def seconds_left(self) -> float | None:
        """Seconds until the request times out (None before it is waited on)."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def _resolve(self, decision: Decision) -> None:
        with self._lock:
            if self.decision is not None:
                return  # the first answer counts (a late click after a timeout changes nothing)
            self.decision = decision
            self.decided = time.time()
            callbacks = list(self._on_resolve)
        for callback in callbacks:
            callback(self)
