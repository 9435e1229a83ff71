"""The steps of a ``tools/call`` that shape the tool's result for the model: keep a large one behind
a link, and sanitize what is sent (spec 2025-11-25 server/tools: servers MUST sanitize outputs)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import anyio
import anyio.to_thread

from ..core._arguments import argument_problems, compile_validator
from ..core._guards import sanitize_result
from ..core._identity import NOTEBOOK
from ..core._results import error_result
from ..core._text import t
from ._call_state import CallState
from ._data import KeptResults

logger = logging.getLogger(__name__)


class KeepIfLarge:
    """Replace a result too large for a model's context by a summary and a link to all of it.

    The link is unguessable and only the identity that made the call can read it; a hidden tool's
    result is the notebook's, whoever asks: never readable from outside.
    """

    def __init__(self, kept: KeptResults, limit: int) -> None:
        self.kept = kept
        self.limit = limit  # characters of text

    async def __call__(self, state: CallState) -> None:
        result = state.result
        if result is None or result.get("isError"):
            return
        texts = [block["text"] for block in result.get("content", []) if block.get("type") == "text"]
        size = sum(len(text) for text in texts)
        if size <= self.limit:
            return
        entry = state.entry
        tool, full = entry.name, "\n".join(texts)
        owner = state.identity.name if entry.expose else NOTEBOOK
        mime = "application/json" if "structuredContent" in result else "text/plain"
        try:
            # The store may be a file (SQLite): write it off the loop, which serves every other client.
            uri = await anyio.to_thread.run_sync(
                self.kept.keep, tool, [{"mimeType": mime, "text": full}], owner
            )
        except Exception as exc:  # a store that cannot keep it: the model reads why, as for a tool's failure
            logger.warning("could not keep the large result of %r", tool, exc_info=True)
            state.fail(type(exc).__name__, f"{type(exc).__name__}: {exc}")
            return
        preview = full[: min(1000, self.limit // 2)]
        link = {
            "type": "resource_link",
            "uri": uri,
            "name": f"{tool} result",
            "mimeType": mime,
            "size": len(full),
        }
        others = [block for block in result["content"] if block.get("type") != "text"]
        summary = {"type": "text", "text": t("result.kept", tool=tool, size=size, uri=uri, preview=preview)}
        kept: dict[str, Any] = {"content": [summary, link, *others], "isError": False}
        if entry.output_schema is not None and "structuredContent" in result:
            # With an output schema, structured content is required: it stays, only the text shrinks.
            kept["structuredContent"] = result["structuredContent"]
        state.result = kept


class Sanitize:
    """The result made safe to send: control characters out, text capped (`max_chars` in all)."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars

    async def __call__(self, state: CallState) -> None:
        if state.result is not None:
            state.result = sanitized(state.result, self.max_chars, state.entry.output_schema)


def sanitized(
    result: dict[str, Any], max_chars: int, output_schema: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """`result` sanitized; with an `output_schema`, structured content that still conforms to it.

    Removing control characters from structured content can break a constraint the tool met
    (a ``pattern``, a ``const``, a ``minLength``): the client would then reject the result,
    so the model gets an error result saying why instead.
    """
    clean = sanitize_result(result, max_chars)
    structured = clean.get("structuredContent")
    if output_schema is None or structured is None or structured is result.get("structuredContent"):
        return clean
    problems = argument_problems(compile_validator(output_schema), structured, output=True)
    if not problems:
        return clean
    return error_result(t("guard.unclean_output", problems="; ".join(problems)))
