"""A learner's progress: every exercise check, recorded for the learner and, on a class hub, the instructor.

Each ``qN.check()`` that judges an answer appends one JSON line to ``progress.jsonl`` in the user
data folder (``$MCP_NOTEBOOK_DATA_DIR``, else ``$XDG_DATA_HOME/mcp-notebook``, else
``~/.local/share/mcp-notebook``; readable by the user only)::

    {"chapter": "01", "exercise": "q2", "outcome": "incorrect", "attempts": 1, "time": "2026-...Z"}

The answer itself is never recorded: only which exercise, right or not, how many tries, and when.

On a class JupyterHub whose instructor runs the progress service (``classroom/``), the same record
also goes to that service (``MCP_NOTEBOOK_PROGRESS_URL``, set by the hub's configuration), sent
with the hub token of the learner's own server, so the service knows whose it is from the hub,
not from the record. A record the service did not take is kept and sent with the next one.

Opting out: ``MCP_NOTEBOOK_PROGRESS=off`` in the environment (for good), or
``mcp_notebook.lessons.record_progress(False)`` (for this kernel). Nothing is recorded then,
locally or on the hub.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

PROGRESS_VARIABLE = "MCP_NOTEBOOK_PROGRESS"
PROGRESS_URL_VARIABLE = "MCP_NOTEBOOK_PROGRESS_URL"
_OFF = {"off", "0", "false", "no"}
_SEND_TIMEOUT = 3.0
_OUTBOX_LIMIT = 500  # records kept for a service that is down; the local file keeps them all

log = logging.getLogger("mcp_notebook")
_lock = threading.Lock()
_enabled: bool | None = None  # None: as the environment says
_outbox: list[dict[str, Any]] = []


def record_progress(enabled: bool | None = None) -> bool:
    """Turn recording of exercise checks on or off for this kernel; returns whether it is on.

    ``record_progress()`` only tells. Off also stops sending to a class hub's progress service.
    ``MCP_NOTEBOOK_PROGRESS=off`` turns it off for every kernel.
    """
    global _enabled
    if enabled is not None:
        _enabled = bool(enabled)
    return _is_on()


def _is_on() -> bool:
    if _enabled is not None:
        return _enabled
    return os.environ.get(PROGRESS_VARIABLE, "").strip().lower() not in _OFF


def progress_path() -> Path:
    """The learner's progress file (``progress.jsonl`` in the user data folder)."""
    folder = os.environ.get("MCP_NOTEBOOK_DATA_DIR") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share"),
        "mcp-notebook",
    )
    return Path(folder) / "progress.jsonl"


def read_progress(path: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    """Every record in the progress file, oldest first (empty when there is none)."""
    source = Path(path) if path is not None else progress_path()
    records = []
    with contextlib.suppress(FileNotFoundError):
        for line in source.read_text(encoding="utf-8").splitlines():
            with contextlib.suppress(ValueError):
                records.append(json.loads(line))
    return records


def record_check(chapter: str, exercise: str, outcome: str, attempts: int) -> dict[str, Any] | None:
    """Record one judged check (the record, or None when recording is off). Never raises."""
    if not _is_on():
        return None
    record = {
        "chapter": chapter,
        "exercise": exercise,
        "outcome": outcome,
        "attempts": attempts,
        "time": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
    }
    try:
        _append(progress_path(), record)
    except OSError as exc:  # a full disk or a read-only home must not break the exercise
        log.warning("mcp-notebook: could not record progress: %s", exc)
    _send(record)
    return record


def _append(path: Path, record: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with open(fd, "a", encoding="utf-8") as out:
        out.write(json.dumps(record, ensure_ascii=False) + "\n")


def _send(record: dict[str, Any]) -> None:
    url = os.environ.get(PROGRESS_URL_VARIABLE, "").strip()
    token = os.environ.get("JUPYTERHUB_API_TOKEN", "").strip()
    if not url or not token:
        return
    with _lock:
        _outbox.append(record)
        del _outbox[:-_OUTBOX_LIMIT]
        batch = list(_outbox)
    request = urllib.request.Request(
        url.rstrip("/") + "/api/records",
        data=json.dumps({"records": batch}).encode(),
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=_SEND_TIMEOUT) as answer:
            answer.read()
    except (urllib.error.URLError, OSError, ValueError) as exc:
        log.info("mcp-notebook: progress kept for later, the class service did not take it: %s", exc)
        return
    with _lock:
        del _outbox[: len(batch)]
