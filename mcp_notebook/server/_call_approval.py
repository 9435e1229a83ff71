"""The approval step of a ``tools/call``: ask a person when the policy says so, and wait on the loop.

Per identity and per definition (`_approval.ApprovalPolicy`). While the call waits, clients that
reset their timeout on progress are kept waiting (keep-alive progress); a handshake-era client that
hangs up, or a cancelled task, withdraws the request.
"""

from __future__ import annotations

import math

import anyio
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from ..core._approval_request import ApprovalRequest, Decision
from ..core._context import next_progress
from ..core._text import t
from ..core._tracing import annotate, span
from ._approval import ApprovalPolicy
from ._call_state import CallState
from ._session_state import Sessions, SessionState, session_id_of


class Approve:
    """Ask a person when the policy says so; a refusal ends the call with what the model is told.

    A later round of a call a person approved already is not asked again (the SDK verified the
    sealed state: this very tool, these very arguments, this identity; the ledger: its first
    answer). A task's prompt says it is one, and covers that task only; while it waits, the task's
    status says so (nothing is sent once the client holds a task id); cancelling the task withdraws it.
    """

    def __init__(self, policy: ApprovalPolicy, sessions: Sessions) -> None:
        self.policy = policy
        self.sessions = sessions

    async def __call__(self, state: CallState) -> None:
        entry, identity, record = state.entry, state.identity, state.record
        if state.round.get("approved") is True:
            record.decision = "approved"
            return
        if not self.policy.needs_approval(
            entry.name, entry.read_only, entry.approval, identity.is_notebook, client=identity.name
        ):
            return
        request = self.policy.new_request(
            tool=entry.name,
            title=entry.title,
            description=entry.description,
            annotations=dict(entry.annotations),
            arguments=state.arguments,
            client=identity.name,
            claimed=record.claimed,
            definition=entry.fingerprint,
            task_id=state.task.record.task_id if state.task is not None else None,
        )
        with span("approval", state.span_attributes) as current:
            try:
                decision = await self._wait(state, request)
            except anyio.get_cancelled_exc_class():
                annotate(current, **{"mcp_notebook.approval.decision": record.decision})  # withdrawn
                raise
            annotate(current, **{"mcp_notebook.approval.decision": decision})
        record.decision = decision
        refusal = self.policy.message(decision, entry.name)
        if refusal is not None:
            state.end(decision, refusal)

    async def _wait(self, state: CallState, request: ApprovalRequest) -> Decision:
        """The person's decision, with the request shown as waiting where the client or task can see it."""
        task = state.task
        # A handshake-era client that hangs up leaves its call running in the session (the SDK
        # does not cancel it): the Gate tells the session's state (`Sessions.client_gone`), which
        # withdraws the request, as does the end of the session.
        # A task outlives its request: its client may hang up and come back for the result.
        handshake = state.ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS
        session: SessionState | None = None
        if handshake and task is None:
            session = self.sessions.get(session_id_of(state.ctx))
        request_id = str(state.ctx.request_id)
        if session is not None:
            session.waiting[request_id] = request
        if task is not None:
            task.approval = request
            task.waiting(t("task.waiting_approval"))  # the task's status says what it waits for
            if task.cancel.is_set():
                request._resolve("withdrawn")
        try:
            return await self.policy.decide(request, lambda elapsed, left: self._keep_alive(state, left))
        except anyio.get_cancelled_exc_class():
            state.record.decision = "withdrawn"  # 2026-07-28: the SDK cancels a call whose client left
            raise
        finally:
            if session is not None:
                session.waiting.pop(request_id, None)
            if task is not None:
                task.approval = None
                task.waiting(t("task.working"))

    @staticmethod
    async def _keep_alive(state: CallState, left: float) -> None:
        # Clients give up on a request after a while (60 s in the TypeScript SDK, and in the
        # clients built on it) unless progress resets their clock; a person may need longer.
        # A no-op for a call without a progressToken. Progress must grow on the token, through
        # the tool's own reports once it runs (its Context starts above `waited`): so a tiny,
        # growing value and no total, not the seconds waited out of the timeout, which a tool's
        # `ctx.progress(0, total=3)` would then have to be pushed far past. The message says
        # what the wait is; the tool's first report shows as its own 0 %.
        message = t("approval.waiting", tool=state.entry.name, seconds=math.ceil(left))
        task = state.task
        if task is not None and task.promoted:
            task.waiting(message)
            return
        state.waited = next_progress(0.0, state.waited)
        await state.ctx.session.report_progress(state.waited, None, message)
