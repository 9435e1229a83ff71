"""A tool's (or prompt's) `Context`, made from the SDK's request: what the server knows that the core does not.

The core's `Context` is the tool-facing API; the server gives it what only the server can read from
the request and the runtime: the log levels the client lets this call send (its session's
``logging/setLevel`` on 2025-11-25, the request's own ``logLevel`` opt-in on 2026-07-28, as the SDK
reads it), and whether this thread runs the tool for a cell that is waiting for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server.connection import allowed_log_levels
from mcp.server.context import ServerRequestContext
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from ..core._context import LOG_LEVELS, Context
from ..core._questions import ELICIT, ROOTS, SAMPLE, UNANSWERED, RoundLedger, answer_round, parse_answer
from ..runtime._execution import cell_is_waiting


class _RequestContext(Context):
    """`Context` on the SDK's request: sends a 2025-11-25 question on the call's own stream."""

    async def _push(self, request: Mapping[str, Any]) -> Any:
        method = request["method"]
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
    ctx: ServerRequestContext[Any], *, session_level: str | None = None, progress_after: float | None = None
) -> Context:
    """The `Context` of one tools/call or prompts/get.

    `session_level`: a handshake-era session's ``logging/setLevel`` (every level when it set none).
    `progress_after`: the last progress the server already sent on this request's token.
    """
    if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        levels = frozenset(LOG_LEVELS[LOG_LEVELS.index(session_level or LOG_LEVELS[0]) :])
    else:
        levels = frozenset(allowed_log_levels(ctx.protocol_version, ctx.meta))
    return _RequestContext.of_request(
        ctx, log_levels=levels, in_waiting_cell=cell_is_waiting, progress_after=progress_after
    )


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
