"""The audit log: one JSON line per tool call, on disk as the call ends.

Spec 2025-11-25 server/tools "Security Considerations" asks clients to log tool usage for audit
purposes; the notebook is where the tools run, so its server keeps its own record of who called
what, what a person decided and how it ended. Arguments are written redacted (`_guards.redact`);
the file is readable by its owner only. `AuditTrail` is the call pipeline's sink (`_pipeline`) that
writes each finished tool call to the `AuditLog` file, and says so when it cannot.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..core._errors import AuditLogWarning
from ..core._guards import redact_if_needed
from ..core._jsonlines import escape_line_breaks
from ..core._text import t
from ._pipeline import CallRecord

logger = logging.getLogger(__name__)

# Built once: json.dumps with options builds a new encoder on every call, and this runs on every tool call.
_LINE_ENCODER = json.JSONEncoder(ensure_ascii=False, default=repr)


def default_audit_path() -> Path:
    """``audit.jsonl`` in the user's cache folder (``MCP_NOTEBOOK_CACHE_DIR``, else the XDG cache)."""
    folder = os.environ.get("MCP_NOTEBOOK_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "mcp-notebook"
    )
    return Path(folder) / "audit.jsonl"


class AuditLog:
    """An append-only audit log: one JSON object per line, one line per tool call.

    Each line goes to the file in one unbuffered append as it is written, so a crash loses at most
    the call in progress. The file is created readable by its owner only: even redacted arguments
    can be private.

    Parameters
    ----------
    path:
        The log file; its folder is created if needed. ``"-"``: standard output.
    clock:
        The current time, timezone-aware (injected in tests); default: now, in UTC.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        clock: Callable[[], dt.datetime] | None = None,
    ) -> None:
        self.path = Path(path)
        if os.fspath(path) == "-":
            # stdout, with the service's other log lines (an exported app logs there: twelve-factor).
            # A copy of the descriptor: closing the log never closes the process's stdout.
            self._fd: int | None = os.dup(1)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._clock = clock
        self._second_stamp = (-1, "")  # one tuple, swapped whole: threads never see half of it
        self._lock = threading.Lock()

    def _now(self) -> str:
        if self._clock is not None:
            return self._clock().isoformat(timespec="milliseconds")
        # One line per tool call, on the server loop: format the date once a second, not per line.
        now = time.time()
        second = int(now)
        cached, stamp = self._second_stamp
        if second != cached:
            stamp = dt.datetime.fromtimestamp(second, dt.UTC).isoformat().removesuffix("+00:00")
            self._second_stamp = (second, stamp)
        return f"{stamp}.{int((now - second) * 1000):03d}+00:00"

    def record(
        self,
        *,
        client: str | None,
        tool: str,
        arguments: Mapping[str, Any] | None,
        decision: str,
        outcome: str,
        is_error: bool,
        duration_ms: float,
        **extra: Any,
    ) -> dict[str, Any]:
        """Append one call and return the line's object.

        Parameters
        ----------
        client:
            Who called (the client identity), or ``None`` when unknown.
        tool:
            The tool's name.
        arguments:
            The call's arguments; secret-looking values are redacted before writing.
        decision:
            What the approval step decided, e.g. ``"auto"``, ``"approved"``, ``"denied"``, ``"rate_limited"``.
        outcome:
            How the call ended, e.g. ``"ok"``, ``"error"``, ``"timeout"``, ``"cancelled"``.
        is_error:
            Whether the result sent back had ``isError: true``.
        duration_ms:
            Wall time of the call in milliseconds.
        **extra:
            More JSON-serializable fields (a request id, the protocol era ...).
        """
        entry: dict[str, Any] = {
            "time": self._now(),
            "client": client,
            "tool": tool,
            "arguments": dict(redact_if_needed(arguments or {})),
            "decision": decision,
            "outcome": outcome,
            "is_error": is_error,
            "duration_ms": round(duration_ms, 3),
            **extra,
        }
        data = memoryview((escape_line_breaks(_LINE_ENCODER.encode(entry)) + "\n").encode())
        with self._lock:
            if self._fd is None:
                raise ValueError(f"the audit log {self.path} is closed")
            while data:  # O_APPEND: each write lands at the end, even with other writers
                data = data[os.write(self._fd, data) :]
        return entry

    def close(self) -> None:
        """Close the file; safe to call twice."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> AuditLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def read(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
        """Every entry of the log at `path`, oldest first."""
        with open(path, encoding="utf-8") as file:
            return [json.loads(line) for line in file if line.strip()]


AUDITED = ("tools/call", "tasks/cancel", "tasks/update")
"""The requests the audit log keeps: calls of tools, and what changes a running task."""


class AuditTrail:
    """The audit sink of the call pipeline: each finished tool call, one line in the `AuditLog`.

    A write that fails (a full disk, a file made read-only) never fails the call it records: it is
    reported instead, once per failure streak (a warning, and `error` for the notebook's views,
    whose `listeners` are told when it changes), until a write works again.

    Parameters
    ----------
    path:
        The audit log file; None: no audit log.
    """

    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        self.log = AuditLog(path) if path is not None else None
        self.error: str | None = None  # why the last write failed; None while writing works
        self.listeners: list[Callable[[str | None], None]] = []  # told when `error` changes

    def __call__(self, record: CallRecord) -> None:
        """Write `record` if it is a tool call (also of a tool the caller may not see: a probe leaves a
        trace), or an act on a task: a cancel, answers to its questions."""
        if self.log is None or record.method not in AUDITED:
            return
        extra = {"task": record.task} if record.task is not None else {}
        try:
            self.log.record(
                client=record.client,
                claimed=record.claimed,
                tool=record.tool,
                arguments=record.arguments,
                decision=record.decision,
                outcome=record.outcome,
                is_error=record.is_error,
                duration_ms=round(record.duration * 1000, 3),
                protocol_version=record.protocol_version,
                method=record.method,
                **extra,
            )
        except Exception as exc:  # a full disk must not fail the call it records: it is reported instead
            self._failed(f"{type(exc).__name__}: {exc}")
        else:
            if self.error is not None:
                self._changed(None)

    def _failed(self, error: str) -> None:
        first = self.error is None
        self._changed(error)
        if not first:
            return  # once per failure streak: a failing disk must not flood the notebook
        assert self.log is not None
        message = t("audit.write_failed", path=self.log.path, error=error)
        logger.warning("%s", message)
        # Warnings turned into errors (-W error) must still never fail the call being recorded.
        with contextlib.suppress(AuditLogWarning):
            warnings.warn(message, AuditLogWarning, stacklevel=2)

    def _changed(self, error: str | None) -> None:
        self.error = error
        for listener in list(self.listeners):
            try:
                listener(error)
            except Exception:  # a display callback must never fail a call
                logger.exception("audit listener failed")

    def close(self) -> None:
        """Close the file; safe to call twice."""
        if self.log is not None:
            self.log.close()
