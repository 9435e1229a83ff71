"""Questions from a 2025-11-25 server to a 2026-07-28 stdio client, across the bridge.

The server asks (``elicitation/create``, ``sampling/createMessage``, ``roots/list``) in the middle of
its request and waits for the answer; a 2026-07-28 client cannot be asked in the middle of one. So the
upstream request goes on in a task of its own (`HeldCall`), the question ends the stdio request with
``input_required`` and a ``requestState`` that names the held call, and the stdio client's next
request with that state hands its answer over and waits for what comes next: another question, or
the result.

Nothing is held forever, since a 2026-07-28 client that gives up on a question says nothing: a
question not answered within `hold_for` seconds (`HOLD_FOR` by default) gives the call up. The
server gets an error for its question and the upstream request is cancelled; the state is
forgotten, and a late answer gets an error that says to call again. A stdio request cancelled while
it waits for a held call cancels the upstream request too.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError

from ..core._text import t

HOLD_FOR = 600.0  # seconds a held call waits for the answer to its question
_KEY = "question"  # the one question a held call has out at a time


class HeldCall:
    """One upstream request that waits, in a task of its own, while the stdio client answers."""

    def __init__(
        self, ctx: ServerRequestContext[Any], hold_for: float, gave_up: Callable[[], MCPError]
    ) -> None:
        self.ctx = ctx  # the stdio request of the current round (progress and logs go there)
        self.hold_for = hold_for
        self.state: str | None = None  # the requestState its question is out under, until a round takes it
        self.scope = anyio.CancelScope()  # the upstream request: cancelled when the call is given up
        self._gave_up = gave_up
        # What the waiting stdio request gets next (a question, the result or an error): one at a time,
        # since the call waits for the answer to its question before it goes on.
        self._outcome: tuple[str, Any] = ("", None)
        self._ready = anyio.Event()
        self._answer: Any = None
        self._answered = anyio.Event()
        self._taken = anyio.Event()
        self._ended = anyio.Event()

    def _put(self, kind: str, value: Any) -> None:
        self._outcome = (kind, value)
        self._ready.set()

    async def run(self, send: Callable[[], Awaitable[Any]]) -> None:
        ended = False
        with self.scope:
            try:
                self._put("result", await send())
            except Exception as exc:  # the stdio request that waits now gets it
                self._put("error", exc)
            ended = True
            if self.state is not None:
                # It ended while its question was out (the upstream failed): the round that brings the
                # answer gets what ended it, if it comes within the limit.
                with anyio.move_on_after(self.hold_for):
                    await self._taken.wait()
        if not ended:  # given up: a round that took it at that very moment must not wait for nothing
            self._put("error", self._gave_up())
        self._ended.set()

    def hold(self, state: str) -> None:
        """Its question went out to the stdio client under `state`."""
        self.state = state
        self._taken = anyio.Event()

    def take(self, ctx: ServerRequestContext[Any], responses: types.InputResponses | None) -> None:
        """The stdio client's next round: its answer, and the request that now waits for the call."""
        self.ctx, self.state = ctx, None
        self._taken.set()
        answer: Any = (responses or {}).get(_KEY)
        if answer is None:
            answer = types.ErrorData(code=types.INVALID_PARAMS, message=t("bridge.no_answer", key=_KEY))
        self._answer = answer
        self._answered.set()

    async def ask(self, request: Any) -> Any:
        """A question from the server (on the upstream request's task): put it out, wait for the answer."""
        self._answered = anyio.Event()
        self._put("question", request)
        with anyio.move_on_after(self.hold_for):
            await self._answered.wait()
            return self._answer
        # Give the call up: cancel it upstream first, so that the server's tool ends there as cancelled
        # rather than going on with a refused question and nobody to take its result.
        self.scope.cancel()
        await self._ended.wait()
        message = t("bridge.unanswered", method=request.method, seconds=f"{self.hold_for:g}")
        return types.ErrorData(code=types.INTERNAL_ERROR, message=message)

    async def next(self) -> tuple[str, Any]:
        await self._ready.wait()
        self._ready = anyio.Event()
        return self._outcome

    def report(self) -> ProgressFnT:
        async def report(progress: float, total: float | None, message: str | None) -> None:
            await self.ctx.session.report_progress(progress, total, message)

        return report


class HeldCalls:
    """The held calls of one bridge, by the ``requestState`` their stdio client hands back.

    `hold_for`: seconds a question waits for its answer before its call is given up.
    """

    def __init__(self, hold_for: float = HOLD_FOR) -> None:
        self.hold_for = hold_for
        self._group: anyio.abc.TaskGroup | None = None
        self._held: dict[str, HeldCall] = {}  # by the state of the question each has out
        self._running: set[HeldCall] = set()

    def attach(self, group: anyio.abc.TaskGroup) -> None:
        self._group = group

    def __len__(self) -> int:
        """The held calls whose upstream request is still open (each has a task of its own)."""
        return len(self._running)

    async def round(
        self,
        ctx: ServerRequestContext[Any],
        params: Any,
        start: Callable[[HeldCall], Callable[[], Awaitable[Any]]],
    ) -> Any:
        """One request of a 2026-07-28 stdio client: start the upstream request, or answer its question."""
        assert self._group is not None, "attach() a task group first"
        if params.request_state is None:
            call = HeldCall(ctx, self.hold_for, lambda: self._not_held(ctx))
            self._running.add(call)
            self._group.start_soon(self._run, call, start(call))
        else:
            found = self._held.pop(params.request_state, None)
            if found is None:  # answered already, given up, or never ours: starting over would run it twice
                raise self._not_held(ctx)
            call = found
            call.take(ctx, params.input_responses)
        try:
            kind, value = await call.next()
        except anyio.get_cancelled_exc_class():
            call.scope.cancel()  # the stdio client cancelled its request: so does the bridge, upstream
            raise
        if kind == "error":
            raise value
        if kind == "result":
            return value
        state = secrets.token_urlsafe(16)
        call.hold(state)
        self._held[state] = call
        return types.InputRequiredResult(input_requests={_KEY: value}, request_state=state)

    async def _run(self, call: HeldCall, send: Callable[[], Awaitable[Any]]) -> None:
        try:
            await call.run(send)
        finally:  # ended, failed or given up: nothing of it stays behind
            self._running.discard(call)
            if call.state is not None:
                self._held.pop(call.state, None)

    def _not_held(self, ctx: ServerRequestContext[Any]) -> MCPError:
        message = t("bridge.not_held", seconds=f"{self.hold_for:g}", method=ctx.method)
        return MCPError(types.INVALID_PARAMS, message)
