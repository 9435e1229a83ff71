"""The guardrails a server owes its clients, applied around every tool call.

Spec 2025-11-25 server/tools "Security Considerations": servers MUST validate inputs, implement
access controls, rate-limit invocations and sanitize outputs. Validation and approval live in the
server; this module adds per-tool rate limits and timeouts, idempotent replays and output
sanitizing, each a step of the call pipeline (`_pipeline`).
"""

from __future__ import annotations

import contextvars
import logging
import os
import threading
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread

from ..core._arguments import argument_problems, compile_validator
from ..core._guards import RateLimited, TokenBucket, sanitize_result
from ..core._idempotency import KEY_PARAMETER, IdempotencyStore, Scope, definition_fingerprint
from ..core._results import error_result
from ..core._text import add_messages, t

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
    """Who is calling the running tool, as its credential proves it.

    ``"notebook"`` for the notebook itself (``%mcp_call``, ``mcp_notebook.call``, or a tool called
    directly in a cell), ``"owner"`` for a client using the server token (``srv.token``), or the
    name given to ``srv.add_client(name)`` for a client with a token of its own. Never what the
    client says about itself (``clientInfo.name``): a client cannot claim another's identity.

    Use it to bind what a tool hands out (handles, carts, drafts) to the client that made it::

        carts.mint(current_client(), "cart", [])
        carts.resolve(handle, current_client(), "cart")
    """
    return _client.get()


class Guardrails:
    """Rate limits, timeouts, idempotency and sanitizing for one server.

    What outlives a call is scoped to the identity that made it: each identity has its own rate
    limit bucket per tool (one client cannot lock the notebook out of its own tool), and stored
    idempotent results are scoped by server name, identity, tool and the tool's definition.

    Parameters
    ----------
    server_name:
        This notebook's server name (`ServerHandle.name`): stored results of another notebook
        that defines a tool of the same name are never replayed here.
    """

    def __init__(
        self,
        *,
        max_output_chars: int = 1_000_000,
        idempotency_path: str | os.PathLike[str] | None = None,
        server_name: str = "mcp-notebook",
    ) -> None:
        self.max_output_chars = max_output_chars
        self.server_name = server_name
        self._idempotency_path = idempotency_path
        self._store: IdempotencyStore | None = None
        self._buckets: dict[tuple[str, str], TokenBucket] = {}  # (tool, identity): bounded by identities
        self._definitions: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def set_client(self, client: str) -> contextvars.Token[str]:
        """Make `client` (an identity, proven by its credential) the `current_client` of this call."""
        return _client.set(client)

    def reset_client(self, token: contextvars.Token[str]) -> None:
        _client.reset(token)

    def check_rate(self, entry: Any, client: str | None = None) -> None:
        """Raise `RateLimited` (a tool error saying when to retry) when `client` is over the tool's limit.

        Each identity has a bucket of its own: a client that floods a tool is limited, not the others.
        """
        if entry.rate_limit is None:
            return
        calls, seconds = entry.rate_limit
        slot = (entry.name, client if client is not None else current_client())
        with self._lock:
            bucket = self._buckets.get(slot)
            # A cell that redefines the tool with another limit gets a fresh bucket with that limit.
            if bucket is None or (bucket.burst, bucket.rate) != (int(calls), calls / seconds):
                bucket = self._buckets[slot] = TokenBucket(rate=calls / seconds, burst=int(calls))
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
        scope = Scope(self.server_name, current_client(), entry.name, self.definition(entry))

        def replay_or_run() -> dict[str, Any]:
            # The store blocks duplicates until the first finishes, so it runs on a worker thread and
            # hands the real work back to the server loop.
            result: dict[str, Any] = store.run(scope, key, arguments, lambda: anyio.from_thread.run(timed))
            return result

        return await anyio.to_thread.run_sync(replay_or_run)

    def definition(self, entry: Any) -> str:
        """The fingerprint of `entry`'s definition (its schemas), computed once per definition."""
        with self._lock:
            found = self._definitions.get(entry)
            if found is None:
                found = self._definitions[entry] = definition_fingerprint(
                    entry.input_schema, entry.output_schema
                )
            return found

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

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
