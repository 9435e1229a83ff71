"""The guardrails a server owes its clients, applied around every tool call.

Spec 2025-11-25 server/tools "Security Considerations": servers MUST validate inputs, implement
access controls, rate-limit invocations and sanitize outputs. Validation and approval live in the
server; this module adds per-tool rate limits and timeouts, idempotent replays, output sanitizing
and the audit log (`_audit`: one JSON line per call, on disk as the call ends).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import threading
import warnings
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread

from ._arguments import argument_problems, compile_validator
from ._audit import AuditLog
from ._errors import AuditLogWarning
from ._guards import RateLimited, TokenBucket, sanitize_result
from ._idempotency import KEY_PARAMETER, IdempotencyStore
from ._results import error_result
from ._text import add_messages, t

logger = logging.getLogger(__name__)

add_messages(
    {
        "guard.unclean_output": {
            "en": (
                "The tool's structured result held control characters (terminal escapes, bidi overrides or "
                "invisible tag characters), which are removed before anything is sent; without them it no "
                "longer matches the tool's output schema: {problems}. The tool must return plain text in "
                "its structured result: tell the person who wrote it."
            ),
            "ko": (
                "도구의 구조화된 결과에 제어 문자(터미널 이스케이프, 양방향 재정렬 문자, 보이지 않는 태그 문자)가 "
                "들어 있었습니다. 이런 문자는 보내기 전에 지우는데, 지우고 나니 출력 스키마에 맞지 않습니다: "
                "{problems}. 도구가 구조화된 결과에 평범한 텍스트만 돌려주어야 합니다. 도구를 만든 사람에게 "
                "알리세요."
            ),
        },
        "audit.write_failed": {
            "en": (
                "The audit log {path} could not be written ({error}): tool calls are not on record there "
                "until it can be written again. Free disk space or fix the file's permissions; the calls "
                "themselves still run."
            ),
            "ko": (
                "감사 로그 {path}에 쓰지 못했습니다({error}). 다시 쓸 수 있을 때까지 도구 호출이 기록되지 않습니다. "
                "디스크 공간을 비우거나 파일 권한을 고치세요. 호출 자체는 그대로 실행됩니다."
            ),
        },
    }
)

_client: contextvars.ContextVar[str] = contextvars.ContextVar("mcp_notebook_client", default="notebook")


def current_client() -> str:
    """Who is calling the running tool: the client's name (``"notebook"`` for the notebook itself).

    Use it to bind what a tool hands out (handles, idempotency) to one client.
    """
    return _client.get()


def default_audit_path() -> Path:
    folder = os.environ.get("MCP_NOTEBOOK_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "mcp-notebook"
    )
    return Path(folder) / "audit.jsonl"


class Guardrails:
    """Rate limits, timeouts, idempotency, sanitizing and auditing for one server."""

    def __init__(
        self,
        *,
        max_output_chars: int = 1_000_000,
        audit_log: str | os.PathLike[str] | None = None,
        idempotency_path: str | os.PathLike[str] | None = None,
    ) -> None:
        self.max_output_chars = max_output_chars
        self.audit = AuditLog(audit_log) if audit_log is not None else None
        self._idempotency_path = idempotency_path
        self._store: IdempotencyStore | None = None
        self._buckets: dict[str, TokenBucket] = {}
        self._lock = threading.Lock()
        self.audit_error: str | None = None  # why the last audit write failed; None while writing works
        self.audit_listeners: list[Callable[[str | None], None]] = []  # told when that changes

    def set_client(self, client: str | None) -> contextvars.Token[str]:
        return _client.set(client or "anonymous")

    def reset_client(self, token: contextvars.Token[str]) -> None:
        _client.reset(token)

    def check_rate(self, entry: Any) -> None:
        """Raise `RateLimited` (a tool error saying when to retry) when the tool is over its limit."""
        if entry.rate_limit is None:
            return
        calls, seconds = entry.rate_limit
        with self._lock:
            bucket = self._buckets.get(entry.name)
            # A cell that redefines the tool with another limit gets a fresh bucket with that limit.
            if bucket is None or (bucket.burst, bucket.rate) != (int(calls), calls / seconds):
                bucket = self._buckets[entry.name] = TokenBucket(rate=calls / seconds, burst=int(calls))
        wait = bucket.try_acquire()
        if wait is not None:
            raise RateLimited(entry.name, wait, bucket)

    async def run(
        self, entry: Any, arguments: dict[str, Any], execute: Callable[[], Awaitable[dict[str, Any]]]
    ) -> dict[str, Any]:
        """Run `execute` under the tool's timeout, replaying a stored result for a repeated key."""
        if entry.timeout is None and not entry.idempotency_key:
            return await execute()  # the common case: nothing to wrap it in

        async def timed() -> dict[str, Any]:
            if entry.timeout is None:
                return await execute()
            with anyio.fail_after(entry.timeout):
                return await execute()

        if not entry.idempotency_key:
            return await timed()
        store = self.store()
        key = str(arguments.get(KEY_PARAMETER, ""))  # validated by the input schema already
        client = current_client()

        def replay_or_run() -> dict[str, Any]:
            # The store blocks duplicates until the first finishes, so it runs on a worker thread and
            # hands the real work back to the server loop.
            result: dict[str, Any] = store.run(
                client, entry.name, key, arguments, lambda: anyio.from_thread.run(timed)
            )
            return result

        return await anyio.to_thread.run_sync(replay_or_run)

    def store(self) -> IdempotencyStore:
        with self._lock:
            if self._store is None:
                self._store = IdempotencyStore(self._idempotency_path)
            return self._store

    def finish(
        self, result: dict[str, Any], output_schema: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """`result` sanitized; with an `output_schema`, structured content that still conforms to it.

        Removing control characters from structured content can break a constraint the tool met
        (a ``pattern``, a ``const``, a ``minLength``): the client would then reject the result,
        so the model gets an error result saying why instead.
        """
        clean = sanitize_result(result, self.max_output_chars)
        structured = clean.get("structuredContent")
        if output_schema is None or structured is None or structured is result.get("structuredContent"):
            return clean
        problems = argument_problems(compile_validator(output_schema), structured)
        if not problems:
            return clean
        return error_result(t("guard.unclean_output", problems="; ".join(problems)))

    def record(self, record: Any) -> None:
        """Write one call to the audit log; a failure is reported (`audit_error`, a warning), never raised."""
        if self.audit is None:
            return
        try:
            self.audit.record(
                client=record.client,
                tool=record.tool,
                arguments=record.arguments,
                decision=record.decision,
                outcome=record.outcome,
                is_error=record.is_error,
                duration_ms=round(record.duration * 1000, 3),
                protocol_version=record.protocol_version,
            )
        except Exception as exc:  # a full disk must not fail the call it records: it is reported instead
            self._audit_failed(f"{type(exc).__name__}: {exc}")
        else:
            if self.audit_error is not None:
                self._audit_changed(None)

    def _audit_failed(self, error: str) -> None:
        first = self.audit_error is None
        self._audit_changed(error)
        if not first:
            return  # once per failure streak: a failing disk must not flood the notebook
        assert self.audit is not None
        message = t("audit.write_failed", path=self.audit.path, error=error)
        logger.warning("%s", message)
        # Warnings turned into errors (-W error) must still never fail the call being recorded.
        with contextlib.suppress(AuditLogWarning):
            warnings.warn(message, AuditLogWarning, stacklevel=2)

    def _audit_changed(self, error: str | None) -> None:
        self.audit_error = error
        for listener in list(self.audit_listeners):
            try:
                listener(error)
            except Exception:  # a display callback must never fail a call
                logger.exception("audit listener failed")

    def close(self) -> None:
        if self.audit is not None:
            self.audit.close()
        if self._store is not None:
            self._store.close()
