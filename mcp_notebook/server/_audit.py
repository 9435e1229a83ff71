"""The audit log: one JSON line per tool call, on disk as the call ends.

Spec 2025-11-25 server/tools "Security Considerations" asks clients to log tool usage for audit
purposes; the notebook is where the tools run, so its server keeps its own record of who called
what, what a person decided and how it ended. Arguments are written redacted (`_guards.redact`);
the file is readable by its owner only. `AuditTrail` is the call pipeline's sink (`_pipeline`) that
writes each finished tool call to the `AuditLog` file, and says so when it cannot.

The file is bounded: one that would grow past ``max_bytes`` is renamed ``audit.jsonl.1`` (the
older ones shift to ``.2`` ... ``.keep``, the oldest dropped) and a new one begun. Every kernel of a
user (and every worker of an exported app) appends to the same file, so each line is written and
each rotation made under an advisory lock on ``audit.jsonl.lock``: no line is torn, none lands in a
file being renamed, and two processes never rotate the same file twice.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
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

DEFAULT_MAX_BYTES = 50 * 1024 * 1024
"""How large the audit file grows before it is rotated: about 200,000 calls."""
DEFAULT_KEEP = 5
"""How many rotated audit files are kept beside the current one."""


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
    can be private. Several processes may write the same file: each line is appended, and the
    file rotated, under a lock on a file beside it (``audit.jsonl.lock``).

    Parameters
    ----------
    path:
        The log file; its folder is created if needed. ``"-"``: standard output (never rotated).
    clock:
        The current time, timezone-aware (injected in tests); default: now, in UTC.
    max_bytes:
        A line that would take the file past this size first rotates it: ``path`` becomes
        ``path.1``, ``path.1`` becomes ``path.2`` ... up to ``path.<keep>``; the oldest goes. A
        single line larger than this still goes whole into a file of its own.
    keep:
        How many rotated files to keep.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        clock: Callable[[], dt.datetime] | None = None,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        keep: int = DEFAULT_KEEP,
    ) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.keep = keep
        self._lock_fd: int | None = None
        if os.fspath(path) == "-":
            # stdout, with the service's other log lines (an exported app logs there: twelve-factor).
            # A copy of the descriptor: closing the log never closes the process's stdout.
            self._fd: int | None = os.dup(1)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = self._open()
            self._lock_fd = os.open(lock_path(self.path), os.O_RDWR | os.O_CREAT, 0o600)
        self._clock = clock
        self._second_stamp = (-1, "")  # one tuple, swapped whole: threads never see half of it
        self._lock = threading.Lock()

    def _open(self) -> int:
        return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

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
            if self._lock_fd is None:
                self._write(data)
            else:
                # Threads of this process take `_lock`, other processes this file lock: one writer at a time.
                fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
                try:
                    self._follow()
                    size = os.fstat(self._fd).st_size
                    if size and size + len(data) > self.max_bytes:
                        self._rotate()
                    self._write(data)
                finally:
                    fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
        return entry

    def _write(self, data: memoryview) -> None:
        assert self._fd is not None
        while data:  # O_APPEND: each write lands at the end, even with other writers
            data = data[os.write(self._fd, data) :]

    def _follow(self) -> None:
        """Reopen `path` if another process rotated it (or it was removed) since this one last wrote."""
        assert self._fd is not None
        try:
            named = os.stat(self.path)
        except FileNotFoundError:
            named = None
        held = os.fstat(self._fd)
        if named is None or (named.st_dev, named.st_ino) != (held.st_dev, held.st_ino):
            self._reopen()

    def _rotate(self) -> None:
        """``path`` -> ``path.1`` -> ... -> ``path.<keep>`` (the oldest replaced), and a new ``path``."""
        assert self._fd is not None
        for number in range(self.keep - 1, 0, -1):
            with contextlib.suppress(FileNotFoundError):
                os.replace(f"{self.path}.{number}", f"{self.path}.{number + 1}")
        os.replace(self.path, f"{self.path}.1")
        self._reopen()

    def _reopen(self) -> None:
        assert self._fd is not None
        fresh = self._open()  # opened before the old one closes: a failure leaves the log writable
        os.close(self._fd)
        self._fd = fresh

    def close(self) -> None:
        """Close the file; safe to call twice."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
            if self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None

    def __enter__(self) -> AuditLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def read(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
        """Every entry of the log at `path`, oldest first."""
        with open(path, encoding="utf-8") as file:
            return [json.loads(line) for line in file if line.strip()]

    @staticmethod
    def read_all(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
        """Every entry of the log at `path` and of its rotated files (``path.N`` ... ``path.1``), oldest first."""
        rotated = sorted(
            (int(suffix), found)
            for found in Path(path).parent.glob(Path(path).name + ".*")
            if (suffix := found.name.rpartition(".")[2]).isdigit()
        )
        files = [found for _, found in reversed(rotated)]
        if Path(path).exists():
            files.append(Path(path))
        return [entry for found in files for entry in AuditLog.read(found)]


def lock_path(path: Path) -> Path:
    """The file whose lock the writers of the audit log at `path` take (its name, ``.lock`` added)."""
    return path.with_name(path.name + ".lock")


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
    max_bytes, keep:
        When the file is rotated, and how many rotated files stay (`AuditLog`).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        keep: int = DEFAULT_KEEP,
    ) -> None:
        self.log = AuditLog(path, max_bytes=max_bytes, keep=keep) if path is not None else None
        # Calls whose response is still on its way (by id: a record is not hashable), written when it lands.
        self._pending: dict[int, CallRecord] = {}
        self._pending_lock = threading.Lock()
        self.error: str | None = None  # why the last write failed; None while writing works
        self.listeners: list[Callable[[str | None], None]] = []  # told when `error` changes

    def __call__(self, record: CallRecord) -> None:
        """Write `record` if it is a tool call (also of a tool the caller may not see: a probe leaves a
        trace), or an act on a task: a cancel, answers to its questions.

        A call answered over HTTP whose connection tracks its response (`Delivery`) is written once
        the response has left whole or was cut: its line says ``"delivered"``, and a response the
        client did not receive whole is on record as such (its outcome says ``not delivered``).
        """
        if self.log is None or record.method not in AUDITED:
            return
        delivery = record.delivery
        if delivery is not None and delivery.delivered is None:
            with self._pending_lock:
                self._pending[id(record)] = record
            delivery.then(lambda delivered: self._settled(record, delivered))
            return
        self._write(record, None if delivery is None else delivery.delivered)

    def _settled(self, record: CallRecord, delivered: bool) -> None:
        with self._pending_lock:
            waiting = self._pending.pop(id(record), None) is not None
        if waiting:  # not yet written by `close`
            self._write(record, delivered)

    def _write(self, record: CallRecord, delivered: bool | None) -> None:
        assert self.log is not None
        extra: dict[str, Any] = {"task": record.task} if record.task is not None else {}
        outcome = record.outcome
        if delivered is not None:
            extra["delivered"] = delivered
            if not delivered and "client disconnected" not in outcome:
                outcome = f"{outcome} (not delivered)" if outcome else "not delivered"
        try:
            self.log.record(
                client=record.client,
                claimed=record.claimed,
                tool=record.tool,
                arguments=record.arguments,
                decision=record.decision,
                outcome=outcome,
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
        """Write the calls whose delivery is still unknown (without ``"delivered"``), close the file;
        safe to call twice."""
        with self._pending_lock:
            pending, self._pending = list(self._pending.values()), {}
        if self.log is not None:
            for record in pending:
                self._write(record, None)
            self.log.close()
