"""The live activity log of the server panel: one line per request, with its JSON-RPC wire.

Rendering is kept off the server's path: a request only queues its record (the server answers at
once), and a thread of the view's own turns queued records into HTML, in batches when they come
fast, at most `RENDERS_PER_SECOND` times a second: each render sends the whole log to the browser,
and a person reads no faster. The log is one HTML widget whose rows are ``<details>`` elements, so a
busy server adds text, not widgets (a widget per row would pile up in the kernel and the browser).
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import queue
import threading
from collections import deque
from typing import Any

import ipywidgets as widgets

from ..core._text import t
from ..core._visible import visible_html

MAX_ENTRIES = 200
MAX_WIRE_CHARS = 20_000  # one row's wire view; the whole exchange stays in srv.activity / export
RENDERS_PER_SECOND = 10


class ActivityView(widgets.HTML):
    """The most recent `max_entries` requests, newest last; `flush()` renders what is queued now."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        super().__init__(f"<i>{html.escape(t('panel.no_activity'))}</i>")
        self._rows: deque[str] = deque(maxlen=max_entries)
        self._last: tuple[Any, ...] | None = None  # what the newest row says, when it is a task's poll
        self._repeats = 1
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopped = threading.Event()  # ends the pause between renders at once
        self._closed = False
        threading.Thread(target=self._run, name="mcp-notebook-activity", daemon=True).start()

    def add(self, record: Any) -> None:
        """Queue one record (called on the server's thread: cheap, never renders)."""
        self._queue.put(record)
        self._wake.set()

    def flush(self) -> None:
        """Render every queued record now."""
        with self._lock:
            added = False
            while True:
                try:
                    record = self._queue.get_nowait()
                except queue.Empty:
                    break
                key = poll_key(record)
                if key is not None and key == self._last and self._rows:
                    # Another poll of a task that says nothing new: the newest row counts it and
                    # shows the latest one (its wire), so polls never push real calls out of the log.
                    self._repeats += 1
                    self._rows[-1] = render_row(record, self._repeats)
                else:
                    self._last, self._repeats = key, 1
                    self._rows.append(render_row(record))
                added = True
            if added:
                self.value = "".join(self._rows)

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._closed:
                return
            try:
                self.flush()
            except Exception:  # a record that cannot be shown must not end the view
                continue
            # Records that arrive meanwhile wait in the queue and go out together in the next render.
            self._stopped.wait(1 / RENDERS_PER_SECOND)

    def stop(self) -> None:
        """Render what is queued and end the thread (the rows stay on show)."""
        self._closed = True
        self._stopped.set()
        self._wake.set()
        self.flush()

    def close(self) -> None:
        self.stop()
        super().close()


def poll_key(record: Any) -> tuple[Any, ...] | None:
    """What a ``tasks/get`` answer says, to tell a poll with news (a new status) from one without.

    A client polls a running task about once a second (`pollInterval`); a long task would fill the
    log with identical lines. None for any other request: every other request keeps a row of its own.
    """
    if record.method != "tasks/get" or record.is_error or not isinstance(record.result, dict):
        return None
    return (record.client, record.protocol_version, record.tool, record.result.get("status"))


def render_row(record: Any, repeats: int = 1) -> str:
    """One request as a collapsible HTML row: the summary line, then the wire both ways.

    `repeats`: how many polls of a task this row stands for (the newest shown).
    """
    when = _dt.datetime.fromtimestamp(record.started).strftime("%H:%M:%S")
    arguments = json.dumps(record.arguments, ensure_ascii=False, default=str)
    if len(arguments) > 80:
        arguments = arguments[:77] + "..."
    colour = "#b3261e" if record.is_error else "#1b6e3a"
    line = (
        f"<code>{when}</code> {visible_html(record.who, one_line=True)} · {html.escape(record.method)} "
        f"<b>{visible_html(record.tool, one_line=True)}</b> <code>{visible_html(arguments)}</code>"
        f" · {html.escape(record.decision)}"
        f" · {record.duration * 1000:.1f} ms · <span style='color:{colour}'>{html.escape(record.outcome)}</span>"
    )
    if getattr(record, "task", None):
        line += f" · {html.escape(lifecycle(record.task))}"
    if repeats > 1:
        line += f" · <i>{html.escape(t('activity.polled', count=repeats))}</i>"
    # The wire view learners need: what went over the connection, both ways.
    details = json.dumps(record.wire(), ensure_ascii=False, indent=2, default=str)
    if len(details) > MAX_WIRE_CHARS:
        details = details[:MAX_WIRE_CHARS] + "\n..."
    stdout = f"<pre>{html.escape(record.stdout)}</pre>" if record.stdout else ""
    return (
        f"<details class='mcp-activity-row'><summary>{line}</summary>"
        f"<pre>{html.escape(details)}</pre>{stdout}</details>"
    )


def lifecycle(task: dict[str, Any]) -> str:
    """A task's lifecycle in one line: ``task 3f9a2c1d: created +0.5 s → input_required +1.1 s → completed +2.0 s``."""
    events = [event for event in task.get("events") or [] if isinstance(event, list) and len(event) == 2]
    start = events[0][0] if events else 0
    steps = " → ".join(f"{what} +{max(0.0, when - start):.1f} s" for when, what in events)
    return t("activity.task", task=str(task.get("id", ""))[:8], steps=steps or task.get("status", ""))
