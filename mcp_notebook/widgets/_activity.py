"""The live activity log of the server panel: a table of requests (time, client, method, target,
decision, duration, outcome), newest last, with a filter and each request's JSON-RPC wire on demand.

Rendering is kept off the server's path: a request only queues its record (the server answers at
once), and a thread of the view's own turns queued records into HTML, in batches when they come
fast, at most `RENDERS_PER_SECOND` times a second and at most `CHARS_PER_SECOND` of HTML a second.

The rows are HTML, not widgets (a widget per row would pile up in the kernel and the browser): each
row a ``<details>`` element (the summary a row of the table, the wire under it when opened), held in
pages of about `PAGE_CHARS` characters, each page one HTML widget. A render sends only the pages
that changed: under load, the newest page and the oldest (a row dropped from it), tens of kB, not
the whole log (200 rows of a busy server, about 300 kB). The whole log sent ten times a second was
3 MB a second of widget messages through the kernel's IOPub and the Jupyter server, and each send
held several copies of it in the kernel (the message, its JSON, its bytes) while it went out.
Rows are kept in the order requests arrived, though a long call is recorded only when it ends.

Each page's rows are held once: the HTML a page shows (while no filter is set) is the very string
it keeps, each row a known stretch of it, so a full log costs its text once (a kernel serving for
hours holds its 200 rows the whole time).
"""

from __future__ import annotations

import bisect
import datetime as _dt
import html
import itertools
import json
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets

from ..core._identity import NOTEBOOK, claims
from ..core._text import t
from ..core._visible import MAX_CLAIM_CHARS, visible, visible_html
from ._style import human_duration

MAX_ENTRIES = 200
MAX_WIRE_CHARS = 20_000  # one row's wire view; the whole exchange stays in srv.activity / export
PAGE_CHARS = 32_000  # a page takes rows until its HTML is this long (a row is about 1.5 kB)
RENDERS_PER_SECOND = 10
CHARS_PER_SECOND = 1_000_000  # of the log's HTML sent to the browser, over all renders
NUMBER = " class='mcp-num'"  # the duration's cell: numbers line up on the right


@dataclass(order=True, slots=True)
class _Row:
    started: float
    seq: int
    length: int = field(compare=False)  # of its HTML, a stretch of its page's (`_Page.html`)
    text: str = field(compare=False)  # what the filter searches, lower-cased


class _Page:
    """A run of consecutive rows, shown by one widget: its HTML (`html`) is what the widget shows."""

    __slots__ = ("changed", "html", "rows", "widget")

    def __init__(self, widget: widgets.HTML) -> None:
        self.rows: list[_Row] = []
        self.html = _PAGE_OPENING + _CLOSING  # the rows' HTML in their order, inside the page's tags
        self.changed = True
        self.widget = widget

    def append(self, row: _Row, markup: str) -> None:
        self.rows.append(row)
        self.html = f"{self.html[: -len(_CLOSING)]}{markup}{_CLOSING}"
        self.changed = True

    def splice(self, index: int, markup: str, *, replace: bool = False) -> None:
        """Put `markup` in as row `index` (already in `rows`), or in place of its HTML (`replace`)."""
        row = self.rows[index]
        start = len(_PAGE_OPENING) + sum(earlier.length for earlier in self.rows[:index])
        end = start + row.length if replace else start
        self.html = self.html[:start] + markup + self.html[end:]
        row.length = len(markup)
        self.changed = True

    def drop_first(self) -> None:
        start = len(_PAGE_OPENING)
        self.html = self.html[:start] + self.html[start + self.rows.pop(0).length :]
        self.changed = True

    def shown(self, needle: str) -> str:
        """The page's HTML with the rows the filter lets through (without one: `html` itself, held once)."""
        if not needle:
            return self.html
        kept, start = [], len(_PAGE_OPENING)
        for row in self.rows:
            if needle in row.text:
                kept.append(self.html[start : start + row.length])
            start += row.length
        return f"{_PAGE_OPENING}{''.join(kept)}{_CLOSING}"


class ActivityView(widgets.VBox):
    """The most recent `max_entries` requests, in the order they came; `flush()` renders what is queued now.

    `on_render` is called (on the view's thread) after each render that added rows.
    """

    def __init__(self, max_entries: int = MAX_ENTRIES, on_render: Callable[[], None] | None = None) -> None:
        self.max_entries = max_entries
        self._on_render = on_render
        self.filter = widgets.Text(
            description=t("activity.filter"),
            placeholder=t("activity.filter_hint"),
            style={"description_width": "initial"},
            layout=widgets.Layout(width="auto", max_width="36em"),
        )
        self.count = widgets.HTML("")
        self.head = widgets.HTML(_empty())  # the header row (in the language in force), or "no requests yet"
        self.pages = widgets.VBox([])
        self.pages.add_class("mcp-log-pages")
        self._pages: list[_Page] = []
        # The widgets of pages emptied, for the next pages: a page a second would otherwise leave a
        # widget a second behind (closing an HTML widget leaves its layout and style widgets open).
        self._spare: list[widgets.HTML] = []
        self._seq = itertools.count()
        self._last: tuple[Any, ...] | None = None  # what the newest row says, when it is a task's poll
        self._last_row: _Row | None = None
        self._repeats = 1
        self._needle = ""  # the filter the pages show
        self.sent = 0  # characters of HTML sent to the browser by renders so far
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopped = threading.Event()  # ends the pause between renders at once
        self._closed = False
        super().__init__([self.filter, self.count, self.head, self.pages])
        self.add_class("mcp-activity")
        self.filter.observe(lambda change: self._render(), names=["value"])
        threading.Thread(target=self._run, name="mcp-notebook-activity", daemon=True).start()

    @property
    def value(self) -> str:
        """The log's HTML as shown now (the rows the filter lets through), as one table."""
        if not any(page.rows for page in self._pages):
            return _empty()
        shown = (str(page.widget.value)[len(_PAGE_OPENING) : -len(_CLOSING)] for page in self._pages)
        return f"{_opening()}{''.join(shown)}{_CLOSING}"

    @property
    def _rows(self) -> list[_Row]:
        return [row for page in self._pages for row in page.rows]

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
                self._take(record)
                added = True
            if added:
                self._render_locked()
        if added and self._on_render is not None:
            self._on_render()

    def _find(self, row: _Row) -> tuple[_Page, int] | None:
        for page in self._pages:
            if page.rows and page.rows[0] <= row <= page.rows[-1]:
                index = bisect.bisect_left(page.rows, row)
                if index < len(page.rows) and page.rows[index] is row:
                    return page, index
        return None

    def _take(self, record: Any) -> None:
        key = poll_key(record)
        found = (
            self._find(self._last_row) if key is not None and key == self._last and self._last_row else None
        )
        if found is not None:
            # Another poll of a task that says nothing new: its row counts it and shows the latest
            # one (its wire), so polls never push real calls out of the log.
            self._repeats += 1
            page, index = found
            page.splice(index, render_row(record, self._repeats), replace=True)
            page.rows[index].text = search_text(record)
            return
        self._last, self._repeats = key, 1
        markup = render_row(record)
        row = _Row(record.started, next(self._seq), len(markup), search_text(record))
        last = self._pages[-1] if self._pages else None
        if last is None or not last.rows or last.rows[-1] < row:  # the usual case: the newest row
            if last is None or (last.rows and len(last.html) >= PAGE_CHARS):
                last = _Page(self._spare.pop() if self._spare else _page_widget())
                self._pages.append(last)
            last.append(row, markup)
        else:  # a long call, recorded when it ended: in the page of the rows around its start
            page = next(page for page in self._pages if row < page.rows[-1])
            index = bisect.bisect(page.rows, row)
            page.rows.insert(index, row)
            page.splice(index, markup)
        self._last_row = row
        total = sum(len(page.rows) for page in self._pages)
        while total > self.max_entries:
            first = self._pages[0]
            first.drop_first()
            total -= 1
            if not first.rows:
                self._spare.append(self._pages.pop(0).widget)

    def _render(self) -> None:
        with self._lock:
            self._render_locked(refilter=True)

    def _render_locked(self, refilter: bool = False) -> None:
        needle = str(self.filter.value).strip().lower()
        if needle != self._needle:
            self._needle, refilter = needle, True
        rows = self._rows
        shown = sum(1 for row in rows if needle in row.text) if needle else len(rows)
        self.count.value = (
            f"<span class='mcp-muted'>{html.escape(t('activity.shown', shown=shown, total=len(rows)))}</span>"
            if needle
            else ""
        )
        self.head.value = _head() if rows else _empty()  # the header row follows the language in force
        for page in self._pages:
            if page.changed or refilter:
                value = page.shown(needle)
                self.sent += len(value)
                page.widget.value = value
                page.changed = False
        children = tuple(page.widget for page in self._pages)
        if self.pages.children != children:
            self.pages.children = children

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._closed:
                return
            sent = self.sent
            try:
                self.flush()
            except Exception:  # a record that cannot be shown must not end the view
                continue
            # Records that arrive meanwhile wait in the queue and go out together in the next render.
            self._stopped.wait(render_pause(self.sent - sent))

    def stop(self) -> None:
        """Render what is queued and end the thread (the rows stay on show)."""
        self._closed = True
        self._stopped.set()
        self._wake.set()
        self.flush()

    def close(self) -> None:
        self.stop()
        for widget in [page.widget for page in self._pages] + self._spare:
            for part in (widget.layout, widget.style, widget):
                part.close()
        super().close()


def render_pause(chars: int) -> float:
    """Seconds to wait after a render that sent `chars` characters, before the next one."""
    return max(1 / RENDERS_PER_SECOND, chars / CHARS_PER_SECOND)


def _empty() -> str:
    return f"<div class='mcp-empty'>{html.escape(t('panel.no_activity'))}</div>"


def _opening() -> str:
    """The log's opening tag and its header row (in the language in force now)."""
    cells = "".join(f"<span>{html.escape(name)}</span>" for name in t("activity.columns").split("|"))
    return f"<div class='mcp-log'><div class='mcp-log-head'>{cells}</div>"


def _head() -> str:
    return _opening() + _CLOSING


_CLOSING = "</div>"
_PAGE_OPENING = "<div class='mcp-log'>"


def _page_widget() -> widgets.HTML:
    widget = widgets.HTML("")
    widget.add_class("mcp-log-page")
    return widget


def _page_html(body: str) -> str:
    return f"{_PAGE_OPENING}{body}{_CLOSING}"


def poll_key(record: Any) -> tuple[Any, ...] | None:
    """What a ``tasks/get`` answer says, to tell a poll with news (a new status) from one without.

    A client polls a running task about once a second (`pollInterval`); a long task would fill the
    log with identical lines. None for any other request: every other request keeps a row of its own.
    """
    if record.method != "tasks/get" or record.is_error or not isinstance(record.result, dict):
        return None
    return (record.client, record.protocol_version, record.tool, record.result.get("status"))


def render_row(record: Any, repeats: int = 1) -> str:
    """One request as a row of the log: a ``<details>`` whose summary is the table's row, the wire under it.

    `repeats`: how many polls of a task this row stands for (the newest shown). Everything a client
    sent (its name, the target, the arguments, the wire) is escaped, hidden characters marked.
    """
    when = _dt.datetime.fromtimestamp(record.started).strftime("%H:%M:%S")
    arguments = json.dumps(record.arguments, ensure_ascii=False, default=str)
    if len(arguments) > 80:
        arguments = arguments[:77] + "..."
    target = visible_html(record.tool, one_line=True) if record.tool else "—"
    if record.arguments:
        target = f"<b>{target}</b><br><code class='mcp-muted'>{visible_html(arguments)}</code>"
    cells = [
        f"<code>{when}</code>",
        _client(record),
        html.escape(record.method),
        target,
        html.escape(decision_text(record.decision)),
        html.escape(human_duration(record.duration)),
        _outcome(record, repeats),
    ]
    # Each cell names its column too: in a narrow output the header goes, and the cells say what they are.
    names = t("activity.columns").split("|")
    line = "".join(
        f"<span data-label='{html.escape(name)}'{NUMBER if index == 5 else ''}>{cell}</span>"
        for index, (name, cell) in enumerate(zip(names, cells, strict=False))
    )
    # The wire view learners need: what went over the connection, both ways. Quotes are escaped
    # only in attributes: in text they are safe, and a wire is mostly quotes.
    details = json.dumps(record.wire(), ensure_ascii=False, indent=2, default=str)
    if len(details) > MAX_WIRE_CHARS:
        details = details[:MAX_WIRE_CHARS] + "\n..."
    stdout = (
        f"<div class='mcp-muted'>{html.escape(t('activity.printed'))}</div><pre>{html.escape(record.stdout)}</pre>"
        if record.stdout
        else ""
    )
    return (
        f"<details class='mcp-log-row mcp-activity-row'><summary>{line}</summary><div class='mcp-wire'>"
        f"<div class='mcp-muted'>{html.escape(t('activity.wire'))}</div><pre>{html.escape(details, quote=False)}</pre>"
        f"{stdout}</div></details>"
    )


def _client(record: Any) -> str:
    """The identity its credential proved, and under it what the client claims to be when that differs."""
    shown = visible_html(record.client or "?", one_line=True)
    # The notebook's own client is this very process: its name is no claim worth a second look.
    claim = None if record.client == NOTEBOOK else claims(record.client, record.claimed)
    if claim:
        shown += f"<br><span class='mcp-muted'>{visible_html(claim, one_line=True)}</span>"
    app = getattr(record, "app", None)
    if app:  # a call an MCP App asked its host for, not one a model chose (the host's word for it)
        cut = app if len(app) <= MAX_CLAIM_CHARS else app[:MAX_CLAIM_CHARS] + "…"
        shown += f"<br><span class='mcp-muted'>{visible_html(t('identity.from_app', uri=cut), one_line=True)}</span>"
    return shown


def decision_text(decision: str) -> str:
    """What the approval step decided, in the person's words (``—`` where nothing is decided)."""
    if decision in ("-", ""):
        return "—"
    try:
        return t(f"activity.decision.{decision}")
    except KeyError:
        return decision


def _outcome(record: Any, repeats: int) -> str:
    outcome = record.outcome
    if outcome == "ok":
        shown = t("activity.outcome.ok")
    elif outcome == "error result":
        shown = t("activity.outcome.error_result")
    elif outcome and outcome == record.decision:
        shown = t("activity.outcome.not_run")  # declined: the decision column says why
    else:
        shown = outcome
    css = "mcp-error" if record.is_error else "mcp-ok"
    cell = f"<span class='{css}'>{html.escape(shown)}</span>"
    if getattr(record, "task", None):
        cell += f"<br><span class='mcp-muted'>{html.escape(lifecycle(record.task))}</span>"
    if repeats > 1:
        cell += f"<br><span class='mcp-muted'>{html.escape(t('activity.polled', count=repeats))}</span>"
    return cell


def search_text(record: Any) -> str:
    """What the filter looks for in a row: client, claim, method, target, decision and outcome."""
    parts = (
        record.client or "",
        record.claimed or "",
        record.method,
        visible(record.tool or ""),
        record.decision,
        decision_text(record.decision),
        record.outcome,
    )
    return " ".join(parts).lower()


def lifecycle(task: dict[str, Any]) -> str:
    """A task's lifecycle in one line: ``task 3f9a2c1d: created +0.5 s → input_required +1.1 s → completed +2.0 s``."""
    events = [event for event in task.get("events") or [] if isinstance(event, list) and len(event) == 2]
    start = events[0][0] if events else 0
    steps = " → ".join(f"{what} +{max(0.0, when - start):.1f} s" for when, what in events)
    return t("activity.task", task=str(task.get("id", ""))[:8], steps=steps or task.get("status", ""))
