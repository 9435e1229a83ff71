"""A tool's (or prompt's) `Context`, made from the SDK's request: what the server knows that the core does not.

The core's `Context` is the tool-facing API; the server gives it what only the server can read from
the request and the runtime: the log levels the client lets this call send (its session's
``logging/setLevel`` on 2025-11-25, the request's own ``logLevel`` opt-in on 2026-07-28, as the SDK
reads it), and whether this thread runs the tool for a cell that is waiting for it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server.connection import allowed_log_levels
from mcp.server.context import ServerRequestContext
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from ..core._context import LOG_LEVELS, Context
from ..core._errors import ServerError
from ..core._questions import ELICIT, ROOTS, SAMPLE, UNANSWERED, RoundLedger, answer_round, parse_answer
from ..core._text import t
from ..runtime._execution import cell_is_waiting


class _RequestContext(Context):
    """`Context` on the SDK's request: sends a 2025-11-25 question on the call's own stream."""

    # Whether the client's answer may reach another process (its session is served by several):
    # that process could not hand it to this call, which would wait for it in vain.
    answer_may_go_astray: Callable[[], bool] = staticmethod(lambda: False)

    async def _push(self, request: Mapping[str, Any]) -> Any:
        method = request["method"]
        if self.answer_may_go_astray():
            raise ServerError(t("sessions.question_astray", method=method))
        shapes: dict[str, tuple[Any, Any]] = {
            ELICIT: (types.ElicitRequest, types.ElicitResult),
            SAMPLE: (types.CreateMessageRequest, types.CreateMessageResult),
            ROOTS: (types.ListRootsRequest, types.ListRootsResult),
        }
        request_type, result_type = shapes[method]
        typed = request_type.model_validate({"method": method, "params": request.get("params")})
        # related_request_id: on the call's own stream, where the client is listening right now.
        result = await self._request.session.send_request(
            typed, result_type, metadata=ServerMessageMetadata(related_request_id=self._request.request_id)
        )
        value = parse_answer(method, result.model_dump(by_alias=True, mode="json", exclude_none=True))
        return None if value is UNANSWERED else value


def context_for(
    ctx: ServerRequestContext[Any],
    *,
    session_level: str | None = None,
    progress_after: float | None = None,
    cancel: threading.Event | None = None,
    answer_may_go_astray: Callable[[], bool] | None = None,
) -> Context:
    """The `Context` of one tools/call or prompts/get.

    `session_level`: a handshake-era session's ``logging/setLevel`` (every level when it set none).
    `progress_after`: the last progress the server already sent on this request's token.
    `cancel`: the event that cancels the call (a task's), shared with whoever cancels it.
    `answer_may_go_astray`: asked before a 2025-11-25 question is sent; True refuses it at once.
    """
    if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        levels = frozenset(LOG_LEVELS[LOG_LEVELS.index(session_level or LOG_LEVELS[0]) :])
    else:
        levels = frozenset(allowed_log_levels(ctx.protocol_version, ctx.meta))
    context = _RequestContext.of_request(
        ctx, log_levels=levels, in_waiting_cell=cell_is_waiting, progress_after=progress_after, cancel=cancel
    )
    if answer_may_go_astray is not None:
        context.answer_may_go_astray = answer_may_go_astray  # type: ignore[attr-defined]
    return context


async def open_round(rounds: RoundLedger, identity: str) -> str:
    """A new 2026-07-28 round for `identity`; a ledger in a shared store is asked off the loop."""
    if rounds.shared:
        return await anyio.to_thread.run_sync(rounds.open, identity)
    return rounds.open(identity)


async def answered_round(rounds: RoundLedger, request_state: Any, identity: str) -> dict[str, Any]:
    """`answer_round`, off the loop for a ledger in a shared store (it may be across the network)."""
    if rounds.shared:
        return await anyio.to_thread.run_sync(answer_round, rounds, request_state, identity)
    return answer_round(rounds, request_state, identity)
