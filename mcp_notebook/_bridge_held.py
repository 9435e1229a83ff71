"""Questions from a 2025-11-25 server to a 2026-07-28 stdio client, across the bridge.

The server asks (``elicitation/create``, ``sampling/createMessage``, ``roots/list``) in the middle of
its request and waits for the answer; a 2026-07-28 client cannot be asked in the middle of one. So the
upstream request goes on in a task of its own (`HeldCall`), the question ends the stdio request with
``input_required`` and a ``requestState`` that names the held call, and the stdio client's next
request with that state hands its answer over and waits for what comes next: another question, or
the result. A call whose question is not answered within `HOLD_FOR` seconds is given up (the server
gets an error for its question), so nothing is held forever.
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

from ._text import add_messages, t

add_messages(
    {
        "bridge.unanswered": {
            "en": "The stdio client did not answer the question ({method}) within {seconds} s; the bridge gave "
            "up waiting.",
            "ko": "stdio 클라이언트가 {seconds}초 안에 질문({method})에 답하지 않아 브리지가 기다리기를 멈췄습니다.",
        },
        "bridge.no_answer": {
            "en": "The stdio client asked again without an answer to the question {key!r}: send it in "
            "inputResponses.",
            "ko": "stdio 클라이언트가 질문 {key!r}에 대한 답 없이 다시 요청했습니다. 답을 inputResponses에 담아 "
            "보내세요.",
        },
    }
)

HOLD_FOR = 600.0  # seconds a held call waits for the answer to its question
_KEY = "question"  # the one question a held call has out at a time


class HeldCall:
    """One upstream request that waits, in a task of its own, while the stdio client answers."""

    def __init__(self, ctx: ServerRequestContext[Any]) -> None:
        self.ctx = ctx  # the stdio request of the current round (progress and logs go there)
        self.scope = anyio.CancelScope()  # cancelled with the stdio request that waits for it
        # What the waiting stdio request gets next (a question, the result or an error): one at a time,
        # since the call waits for the answer to its question before it goes on.
        self._outcome: tuple[str, Any] = ("", None)
        self._ready = anyio.Event()
        self._answer: Any = None
        self._answered = anyio.Event()

    def _put(self, kind: str, value: Any) -> None:
        self._outcome = (kind, value)
        self._ready.set()

    async def run(self, send: Callable[[], Awaitable[Any]]) -> None:
        with self.scope:
            try:
                self._put("result", await send())
            except Exception as exc:  # the stdio request that waits now gets it
                self._put("error", exc)

    async def ask(self, request: Any) -> Any:
        """A question from the server (on the upstream request's task): put it out, wait for the answer."""
        self._answered = anyio.Event()
        self._put("question", request)
        with anyio.move_on_after(HOLD_FOR):
            await self._answered.wait()
            return self._answer
        message = t("bridge.unanswered", method=request.method, seconds=int(HOLD_FOR))
        return types.ErrorData(code=types.INTERNAL_ERROR, message=message)

    def answer(self, responses: types.InputResponses | None) -> None:
        answer: Any = (responses or {}).get(_KEY)
        if answer is None:
            answer = types.ErrorData(code=types.INVALID_PARAMS, message=t("bridge.no_answer", key=_KEY))
        self._answer = answer
        self._answered.set()

    async def next(self) -> tuple[str, Any]:
        await self._ready.wait()
        self._ready = anyio.Event()
        return self._outcome

    def report(self) -> ProgressFnT:
        async def report(progress: float, total: float | None, message: str | None) -> None:
            await self.ctx.session.report_progress(progress, total, message)

        return report


class HeldCalls:
    """The held calls of one bridge, by the ``requestState`` their stdio client hands back."""

    def __init__(self) -> None:
        self._group: anyio.abc.TaskGroup | None = None
        self._held: dict[str, HeldCall] = {}

    def attach(self, group: anyio.abc.TaskGroup) -> None:
        self._group = group

    async def round(
        self,
        ctx: ServerRequestContext[Any],
        params: Any,
        start: Callable[[HeldCall], Callable[[], Awaitable[Any]]],
    ) -> Any:
        """One request of a 2026-07-28 stdio client: start the upstream request, or answer its question."""
        assert self._group is not None, "attach() a task group first"
        call = self._held.pop(params.request_state, None) if params.request_state is not None else None
        if call is None:
            call = HeldCall(ctx)
            self._group.start_soon(call.run, start(call))
        else:
            call.ctx = ctx
            call.answer(params.input_responses)
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
        self._held[state] = call
        self._group.start_soon(self._forget_later, state)
        return types.InputRequiredResult(input_requests={_KEY: value}, request_state=state)

    async def _forget_later(self, state: str) -> None:
        # A question left unanswered: the call answers the server itself after HOLD_FOR; forget its state.
        await anyio.sleep(HOLD_FOR)
        self._held.pop(state, None)
