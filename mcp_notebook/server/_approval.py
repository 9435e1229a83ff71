"""Human approval of tool calls: the policy, and the decisions waiting for a person.

UI-agnostic and thread-safe: a request is resolved from any thread (a button click runs on the
kernel's main thread or a subshell thread) and awaited on the server's loop. Nothing here blocks
a cell: a person answers through widgets, at the terminal of ``mcp-notebook serve``, or with
``request.approve()`` / ``.deny()``.

While a call waits, the waiting loop ticks once a second (countdowns) and calls a keep-alive
every `ApprovalPolicy.progress_every` seconds: the server sends ``notifications/progress`` with
it, which keeps clients that reset their request timeout on progress waiting for the person.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, MutableSet
from typing import Any, Literal

# The request a person decides on lives in the core, where the widgets that show it may import it.
from ..core._approval_request import ApprovalRequest, Decision
from ..core._text import t

logger = logging.getLogger(__name__)

Mode = Literal["ask", "always", "auto"]
# Where a person answers: the notebook's panel, the terminal of `mcp-notebook serve`, code that holds
# the server handle (srv.pending), or nowhere (None: such calls are declined at once).
AnsweredIn = Literal["notebook", "terminal", "server"] | None
# The Jupyter comm that carries approval prompts from a headless kernel to the terminal of
# `mcp-notebook serve` (`mcp_notebook.ipython._approval_channel` and `mcp_notebook.cli._terminal_approval`).
TERMINAL_CHANNEL = "mcp_notebook.approvals"
MODES = ("ask", "always", "auto")
TICK = 1.0  # seconds between countdown updates


def check_timeout(value: Any) -> float:
    """`value` as seconds to wait for a person, or `ValueError` saying what to pass."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not value > 0
        or value == float("inf")
    ):
        raise ValueError(t("approval.bad_timeout", value=value))
    return float(value)


def seconds_argument(text: str) -> float:
    """``--approval-timeout SECONDS`` read from a command line (the CLI's and the magic's)."""
    try:
        return check_timeout(float(text))
    except ValueError:
        # argparse shows the message of this error type as it is (of a ValueError, only "invalid").
        raise argparse.ArgumentTypeError(t("approval.bad_timeout", value=text)) from None


class AllowedTools(MutableSet[Any]):
    """The tools a person chose to "always allow": each for one client, and for the definition it had then.

    "Always allow" on a prompt holds for the identity that asked (`ApprovalRequest.client`), never
    for another client, and only for the tool as it was defined then: a tool redefined since (a
    new description, schema, annotation or code, such as the same name now marked destructive)
    is no longer allowed, so its next call asks again. Reads like a set: ``("claude-code",
    "delete_row") in srv.approval.allowed`` for one client, ``"delete_row" in srv.approval.allowed``
    for any; ``.add((identity, name))`` allows the definition the tool has now for that client and
    ``.add(name)`` for every client; ``.discard(...)``, ``.clear()``.
    """

    def __init__(self) -> None:
        # (identity, or None for every client; tool) -> the definition allowed
        self._allowed: dict[tuple[str | None, str], str | None] = {}
        self._lock = threading.Lock()
        # The current definition of a tool by name; the server sets it (standalone: names only).
        self.definition: Callable[[str], str | None] = lambda name: None

    def allow(self, name: str, definition: str | None, identity: str | None = None) -> None:
        """Allow `name` as defined by `definition`, for `identity` (None: for every client)."""
        with self._lock:
            self._allowed[(identity, name)] = definition

    def permits(self, identity: str | None, name: str) -> bool:
        """Whether `identity` may call `name` without being asked (allowed for it, or for everyone)."""
        if not self._allowed:  # the common case: nothing allowed, no lookup
            return False
        return (identity is not None and self._holds((identity, name))) or self._holds((None, name))

    def _holds(self, key: tuple[str | None, str]) -> bool:
        if key not in self._allowed:
            return False
        current = self.definition(key[1])
        with self._lock:
            if key not in self._allowed:
                return False
            if self._allowed[key] == current:
                return True
            del self._allowed[key]  # redefined since: the person allowed something else
            return False

    def add(self, value: Any) -> None:
        identity, name = _allowed_key(value)
        self.allow(name, self.definition(name), identity)

    def discard(self, value: Any) -> None:
        with self._lock:
            if isinstance(value, str):  # a name: for every client, and for each one
                for key in [key for key in self._allowed if key[1] == value]:
                    del self._allowed[key]
            else:
                self._allowed.pop(_allowed_key(value), None)

    def __contains__(self, value: object) -> bool:
        if isinstance(value, str):
            return any(self._holds(key) for key in list(self._allowed) if key[1] == value)
        if isinstance(value, tuple) and len(value) == 2 and all(isinstance(part, str) for part in value):
            return self._holds((value[0], value[1]))
        return False

    def __iter__(self) -> Iterator[Any]:
        held = [key for key in list(self._allowed) if self._holds(key)]
        return iter([name if identity is None else (identity, name) for identity, name in held])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return repr(set(self))


def _allowed_key(value: Any) -> tuple[str | None, str]:
    if isinstance(value, str):
        return (None, value)
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(part, str) for part in value):
        return (value[0], value[1])
    raise TypeError(f"allow a tool name or an (identity, tool name) pair, got {value!r}")


class ApprovalPolicy:
    """Decides which calls need a person, and holds the requests waiting for one.

    Modes: ``"ask"`` (default) asks for every tool not annotated read-only; ``"always"`` asks for
    every tool; ``"auto"`` asks for none (tests, CI, demos). A tool's own ``@tool(approval=...)``
    (``"always"`` or ``"never"``) wins. Calls made from the notebook itself (``%mcp_call``) are the
    person's own and are not asked about.

    "Always allow" holds for the identity that was allowed, never for others (`AllowedTools`).

    Attributes
    ----------
    timeout:
        Seconds a call waits for a decision; no answer counts as Deny.
    progress_every:
        Seconds between keep-alive progress notifications while a call waits.
    answered_in:
        Where a person answers: ``"notebook"`` (the panel shows prompts), ``"terminal"`` (the
        terminal of ``mcp-notebook serve``), ``"server"`` (whoever holds the handle:
        ``srv.pending``), or ``None``: nobody, and calls that need approval are declined at once.
        What the model is told when a call does not run depends on it.
    unattended_message:
        The message key for a call declined because nobody can approve it (``answered_in`` None):
        headless ``mcp-notebook serve`` and an exported app give different ways out.
    tool_exemptions:
        Whether a tool's own ``approval="never"`` exempts it (True). An exported app sets False:
        its operator, not the notebook's author, decides what runs unattended beyond read-only tools.
    """

    def __init__(self, mode: str = "ask", timeout: float = 120.0, progress_every: float = 10.0) -> None:
        if mode not in MODES:
            raise ValueError(t("approval.bad_mode", value=mode))
        self.mode = mode
        self.timeout = check_timeout(timeout)
        self.progress_every = progress_every
        self.answered_in: AnsweredIn = "server"
        self.unattended_message = "approval.unattended"
        self.tool_exemptions = True
        self.allowed = AllowedTools()
        self.pending: list[ApprovalRequest] = []
        self.listeners: list[Callable[[ApprovalRequest], None]] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def needs_approval(
        self, tool: str, read_only: bool, override: str | None, local: bool, *, client: str | None = None
    ) -> bool:
        """Whether a call of `tool` by `client` (an identity) waits for a person."""
        if local or self.allowed.permits(client, tool):
            return False
        if override == "always":
            return True
        if override == "never" and (self.tool_exemptions or read_only):
            return False
        if self.mode == "auto":
            return False
        return self.mode == "always" or not read_only

    async def decide(
        self,
        request: ApprovalRequest,
        keep_alive: Callable[[float, float], Awaitable[None]] | None = None,
    ) -> Decision:
        """Show `request` to whoever listens and wait (on the server loop) for the decision.

        `keep_alive(elapsed, left)` is awaited at once and then every `progress_every` seconds
        while the call waits. If the waiting task is cancelled (the client went away), the
        request is withdrawn: its prompt closes and a late Approve runs nothing.
        """
        if self.answered_in is None:
            request._resolve("unattended")  # nobody would ever see it: say so now, not in 120 s
            return "unattended"
        loop = asyncio.get_running_loop()
        answered = asyncio.Event()

        def wake(_: ApprovalRequest) -> None:
            loop.call_soon_threadsafe(answered.set)

        timeout = self.timeout
        started = loop.time()
        request.deadline = time.monotonic() + timeout
        request._on_resolve.append(wake)
        with self._lock:
            self.pending.append(request)
        for listener in list(self.listeners):
            listener(request)
        next_alive = started
        try:
            while not answered.is_set():
                now = loop.time()
                left = started + timeout - now
                if left <= 0:
                    request._resolve("timeout")
                    break
                for tick in list(request._on_tick):
                    tick(left)
                if keep_alive is not None and now >= next_alive:
                    try:
                        await keep_alive(now - started, left)
                    except Exception:  # a client that cannot take it must not end the wait
                        logger.debug("approval keep-alive failed", exc_info=True)
                    next_alive = now + self.progress_every
                step = min(left, TICK, next_alive - now if keep_alive is not None else TICK)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(answered.wait(), max(step, 0.0))
        except asyncio.CancelledError:
            request._resolve("withdrawn")
            raise
        finally:
            with self._lock:
                if request in self.pending:
                    self.pending.remove(request)
        decision = request.decision or "timeout"
        if decision == "always-allowed" and request.client is not None:
            self.allowed.allow(request.tool, request.definition, request.client)
        return decision

    def new_request(self, **fields: Any) -> ApprovalRequest:
        return ApprovalRequest(id=next(self._ids), **fields)

    def message(self, decision: Decision, tool: str) -> str | None:
        """What the client is told when the call does not run (None when it runs)."""
        if decision == "denied":
            key = "approval.declined" if self.answered_in == "notebook" else "approval.declined_elsewhere"
            return t(key, tool=tool)
        if decision == "timeout":
            where = t(f"approval.where.{self.answered_in or 'server'}")
            return t("approval.timeout", tool=tool, seconds=self.timeout, where=where)
        if decision == "unattended":
            return t(self.unattended_message, tool=tool)
        if decision == "withdrawn":
            return t("approval.withdrawn", tool=tool)
        return None
