"""The panel as a person reads it: its header, code blocks, activity table, catalogue, forms and checks.

Without a browser: what each view says (in both languages) and what its buttons do. How it lays out
in a real browser is tests/browser/test_layout.py.
"""

from __future__ import annotations

import concurrent.futures
import html
import json
import re
import stat
import threading
import time
from pathlib import Path
from typing import Any, Literal

import anyio
import pytest

from mcp_notebook import Catalogue, serve, set_language, tool
from mcp_notebook.core._approval_request import ApprovalRequest
from mcp_notebook.core._text import t
from mcp_notebook.server._pipeline import CallRecord
from mcp_notebook.widgets import ApprovalPrompt, CatalogueView, ServerPanel
from mcp_notebook.widgets._activity import ActivityView
from mcp_notebook.widgets._style import code_block, human_duration
from mcp_notebook.widgets._tryit import LEAVE_OUT, TryIt
from tests.conftest import connect, serve_unattended
from tests.security.inert import walk


def text_of(markup: str) -> str:
    """What a person reads of `markup`: the tags gone, the entities decoded, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def shown(widget: Any) -> str:
    """Every HTML value in a widget tree, as one string of markup."""
    return "".join(str(item.value) for item in walk(widget) if type(item).__name__ == "HTML")


def define(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, destructive=True)
    def delete_row(row: int) -> str:
        """Delete one row of the table."""
        return f"deleted {row}"


def outside_call(srv: Any, name: str, arguments: dict[str, Any]) -> Any:
    async def main() -> Any:
        with anyio.fail_after(60):
            async with connect(srv, "auto") as client:
                return await client.call_tool(name, arguments)

    return anyio.run(main)


def test_the_header_says_state_url_name_mode_clients_and_calls_waiting(catalogue: Catalogue) -> None:
    define(catalogue)
    srv = serve(catalogue=catalogue, approval_timeout=30)
    try:
        panel = srv.panel()
        header = text_of(panel.header.value)
        assert "running" in header and srv.url in header and srv.name in header
        assert "asks before a tool that changes things runs" in header
        assert "clients (last 5 min) none yet" in header and "calls waiting 0" in header
        asked = threading.Event()
        srv.approval.listeners.append(lambda request: asked.set())
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pending = pool.submit(outside_call, srv, "delete_row", {"row": 1})
            assert asked.wait(10)
            assert "calls waiting 1" in text_of(panel.header.value)
            srv.pending[0].deny()
            pending.result(30)
        panel.activity.flush()  # the header counts the clients the log has seen
        header = text_of(panel.header.value)
        assert "calls waiting 0" in header and "clients (last 5 min) owner" in header
        # Nothing in the panel is set in italics (browsers slant Hangul synthetically).
        assert not re.search(r"<(i|em)\b|italic", shown(panel))
    finally:
        srv.stop()
    assert "stopped" in text_of(panel.header.value) and "running" not in text_of(panel.header.value)


def test_the_header_is_all_korean_in_korean(catalogue: Catalogue) -> None:
    set_language("ko")
    srv = serve(catalogue=catalogue)
    try:
        header = text_of(srv.panel().header.value)
        assert "승인 무언가를 바꾸는 도구는 실행 전에 묻습니다" in header and "실행 중" in header
        assert "ask" not in header.replace(srv.url, "")  # not "승인: ask"
    finally:
        srv.stop()


def test_a_code_block_is_read_only_and_its_button_copies_what_it_shows() -> None:
    block = code_block('{"a": "<b>&"}', "notebook-mcp.json")
    assert "<pre>{&quot;a&quot;: &quot;&lt;b&gt;&amp;&quot;}</pre>" in block  # shown as text, escaped
    assert "<textarea" not in block and "contenteditable" not in block
    # The button copies the text of its block's <pre>, read from the page: none of it is in the script.
    handler = re.search(r'onclick="([^"]*)"', block)
    assert handler is not None and "querySelector('pre')" in handler.group(1)
    assert "&lt;b&gt;" not in handler.group(1) and "textContent" in handler.group(1)


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [(0.0004, "0.4 ms"), (0.003, "3 ms"), (0.25, "250 ms"), (20.4, "20.4 s"), (125, "2 min 5 s")],
)
def test_durations_read_in_human_units(seconds: float, expected: str) -> None:
    assert human_duration(seconds) == expected


def test_save_as_writes_the_configuration_for_its_owner_only_and_asks_before_replacing(
    catalogue: Catalogue, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    srv = serve(catalogue=catalogue)
    try:
        connect_view = srv.panel().connect
        connect_view.client.value = "inspector"
        assert connect_view.file.value == "notebook-mcp.json"
        assert connect_view.command.value.startswith("npx @modelcontextprotocol/inspector --cli --config")
        assert "npx" not in connect_view.usage.value  # the command is in its own block, not in prose
        saved = connect_view.save()
        assert saved is not None and stat.S_IMODE((tmp_path / "notebook-mcp.json").stat().st_mode) == 0o600
        assert json.loads((tmp_path / "notebook-mcp.json").read_text()) == json.loads(
            connect_view.config.value
        )
        (tmp_path / "notebook-mcp.json").write_text("mine")
        (tmp_path / "notebook-mcp.json").chmod(0o644)
        assert connect_view.save() is None and "exists already" in connect_view.saved.value
        assert (tmp_path / "notebook-mcp.json").read_text() == "mine"  # not replaced on the first click
        assert connect_view.save() is not None  # the second click replaces it, owner-only again
        assert stat.S_IMODE((tmp_path / "notebook-mcp.json").stat().st_mode) == 0o600
        assert "mcpServers" in (tmp_path / "notebook-mcp.json").read_text()
        connect_view.client.value = "vscode"
        assert connect_view.file.value == ".vscode/mcp.json" and connect_view.command.value == ""
    finally:
        srv.stop()


def record(method: str, started: float, duration: float, **fields: Any) -> CallRecord:
    defaults: dict[str, Any] = {
        "tool": "",
        "arguments": {},
        "client": "claude-code",
        "protocol_version": "2025-11-25",
    }
    defaults.update(fields)
    return CallRecord(started=started, duration=duration, method=method, outcome="ok", **defaults)


def test_the_activity_log_is_a_table_in_arrival_order_with_a_filter() -> None:
    now = time.time()
    view = ActivityView()
    try:
        # A long call is recorded when it ends: after a short one that came a second later.
        view.add(
            record("resources/list", now + 1, 0.003, client="notebook", claimed="mcp-notebook", decision="-")
        )
        view.add(record("tools/call", now, 20.4, tool="train", arguments={"epochs": 3}, claimed="cursor"))
        declined = record("tools/call", now + 2, 0.5, tool="wipe", decision="withdrawn")
        declined.outcome, declined.is_error = "withdrawn", True
        view.add(declined)
        view.flush()
        rows = [
            text_of(row.split("<summary>")[1].split("</summary>")[0])
            for row in view.value.split("<details")[1:]
        ]
        assert (
            text_of(view.value.split("<details")[0]) == "time client method target decision duration outcome"
        )
        assert [row.split()[1] for row in rows] == ["claude-code", "notebook", "claude-code"]
        assert "train" in rows[0] and "20.4 s" in rows[0] and "not asked" in rows[0]
        assert "claims to be cursor" in rows[0]
        assert "3 ms" in rows[1] and "claims to be" not in rows[1]  # the notebook's own client: no claim
        assert rows[2].count("withdrawn") == 1 and "did not run" in rows[2]
        view.filter.value = "TRAIN"
        assert len(view.value.split("<details")[1:]) == 1 and "train" in view.value
        assert "1 of 3 requests match the filter." in text_of(view.count.value)
        view.filter.value = ""
        assert len(view.value.split("<details")[1:]) == 3 and view.count.value == ""
    finally:
        view.close()


@pytest.mark.parametrize("page_chars", [32_000, 1_500, 1])
def test_the_activity_log_holds_its_rows_once_in_order_through_drops_polls_and_late_calls(
    page_chars: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each page of the log is one string, each row a stretch of it: after rows come late (a long
    call), task polls fold into one row, and the oldest drop out, in batches of every size, with
    pages of every size (one page; a row or two each; a row each), it reads as the newest rows
    rendered anew, in the order their requests arrived."""
    import random

    from mcp_notebook.widgets import _activity
    from mcp_notebook.widgets._activity import poll_key, render_row

    monkeypatch.setattr(_activity, "PAGE_CHARS", page_chars)
    chance = random.Random(7)
    now = time.time()
    view = ActivityView(max_entries=7)

    def shown_as(rows: list[str]) -> str:
        return f"{_activity._opening()}{''.join(rows)}</div>"

    try:
        expected: list[tuple[float, int, str, str]] = []  # (started, seq, html, search text), as kept
        last_poll: tuple[Any, ...] | None = None  # what the newest row says, when it is a poll
        poll_row: int | None = None  # its seq
        repeats = 1
        for seq in range(120):
            started = now + seq - (chance.random() * 5 if chance.random() < 0.3 else 0)  # some come late
            if chance.random() < 0.25:  # a poll of a task (a run of them folds into one row)
                polled = record("tasks/get", started, 0.001, tool="t1", result={"status": "working"})
                key = poll_key(polled)
                kept_rows = [row[1] for row in expected]
                if key == last_poll and poll_row in kept_rows:
                    repeats += 1
                    index = kept_rows.index(poll_row)
                    kept = expected[index]
                    expected[index] = (kept[0], kept[1], render_row(polled, repeats), kept[3])
                    view.add(polled)
                    continue
                last_poll, poll_row, repeats = key, seq, 1
                kept_record = polled
            else:
                kept_record = record("tools/call", started, 0.2, tool="echo", arguments={"n": seq})
                last_poll, repeats = None, 1
            expected.append((started, seq, render_row(kept_record), ""))
            expected.sort(key=lambda row: (row[0], row[1]))
            del expected[: max(0, len(expected) - 7)]
            view.add(kept_record)
            if chance.random() < 0.4:  # renders come between batches of every size
                view.flush()
                assert view.value == shown_as([row[2] for row in expected])
        view.flush()
        assert view.value == shown_as([row[2] for row in expected])
        # Shown as held: no second copy of any page; the browser gets one widget per page.
        assert all(page.widget.value is page.html for page in view._pages)
        assert view.pages.children == tuple(page.widget for page in view._pages)
        if page_chars == 1:
            assert len(view._pages) == 7
        for needle in ("tasks/get", "echo"):
            view.filter.value = needle
            assert view.value == shown_as([row[2] for row in expected if needle in row[2]])
    finally:
        view.close()


def test_the_catalogue_says_what_is_empty_and_keeps_its_columns() -> None:
    catalogue = Catalogue()
    view = CatalogueView(catalogue)
    assert text_of(view.body.value) == (
        "Tools: the model decides No tools yet: put @tool on a function and run its cell. "
        "Resources: the application decides No resources yet. Prompts: the user decides No prompts yet."
    )

    @tool(catalogue=catalogue, read_only=True, lint=False)
    def lookup(city: str, unit: Literal["C", "F"] | None = None) -> str:
        """Look a city up."""
        return city

    @tool(catalogue=catalogue, read_only=True, lint=False)
    def ping() -> str:
        """Answer."""
        return "pong"

    body = view.body.value
    assert body.count("<colgroup>") == 1 and "No parameters." in text_of(body)
    assert "string | null" in text_of(body) and "C, F, " not in text_of(body)
    assert "No tools yet" not in text_of(body)
    view.close()


def test_a_prompt_without_annotations_says_its_definition_makes_no_claims() -> None:
    prompt = ApprovalPrompt(ApprovalRequest(1, "wipe", None, None, {}, {}, "claude-code"))
    said = text_of(shown(prompt))
    assert "makes no claims about what it does" in said and "(not verified): -" not in said


def test_try_it_leaves_out_an_optional_choice_instead_of_offering_none() -> None:
    catalogue = Catalogue()

    @tool(catalogue=catalogue, read_only=True, lint=False)
    def forecast(city: str, unit: Literal["C", "F"] | None = None, days: Literal[1, 3] = 1) -> str:
        """Weather for a city."""
        return city

    (entry,) = catalogue.tools()
    form = TryIt(entry)
    unit = form.fields["unit"]
    labels = [label for label, _ in unit.options]
    assert labels == [t("tryit.leave_out"), "C", "F"] and None not in [value for _, value in unit.options]
    assert unit.value is LEAVE_OUT and unit.description == "unit (optional)"
    days = form.fields["days"]
    assert [label for label, _ in days.options] == [t("tryit.leave_out"), "1", "3"]
    assert days.value == 1  # its default is chosen
    form.fields["city"].value = "Seoul"
    assert form.arguments() == ({"city": "Seoul", "days": 1}, [])
    form.fields["unit"].value = "F"
    assert form.arguments()[0]["unit"] == "F"
    set_language("ko")
    assert TryIt(entry).fields["unit"].description == "unit (선택)"


def test_a_connection_check_shows_as_a_widget(catalogue: Catalogue) -> None:
    srv = serve_unattended(catalogue)
    try:
        bundle = srv.check()._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in bundle
        assert bundle["text/plain"].startswith("✔ ok: Connected to")
        refused = srv.check(token="not-the-token-of-this-server")._repr_mimebundle_()
        assert refused["text/plain"].startswith("✘ token: The server refused the token")
    finally:
        srv.stop()


def test_the_panel_of_a_stopped_server_shows_its_last_state(catalogue: Catalogue) -> None:
    srv = serve(catalogue=catalogue)
    panel: ServerPanel = srv.panel()
    srv.stop()
    assert "■ stopped" in text_of(panel.header.value)


def test_a_cell_showing_the_handle_says_stopped_once_the_server_stops(catalogue: Catalogue) -> None:
    srv = serve(catalogue=catalogue)
    bundle = srv._repr_mimebundle_()
    assert bundle["text/plain"] == repr(srv)  # what nbval and text-only frontends see is unchanged
    line = next(item for item in _instances_of("ServerLine") if item.server is srv)
    assert "● running" in text_of(line.value)
    srv.stop()
    # The line shown earlier follows the server, as the panel above it does: no "running" left behind.
    assert "■ stopped" in text_of(line.value) and "running" not in text_of(line.value)


def _instances_of(name: str) -> list[Any]:
    from ipywidgets.widgets.widget import _instances

    return [widget for widget in list(_instances.values()) if type(widget).__name__ == name]


def test_a_log_that_runs_for_hours_keeps_the_same_few_widgets() -> None:
    """Pages fill and empty as rows come and go; their widgets are used again, so a busy log does
    not leave a widget (and its layout and style) behind for each page it has shown."""
    from ipywidgets.widgets.widget import _instances

    now = time.time()
    view = ActivityView(max_entries=50)
    try:
        for n in range(10_000):
            view.add(record("tools/call", now + n, 0.001, tool="echo", arguments={"tag": "x" * 400}))
            if n % 25 == 24:
                view.flush()
                if n == 999:
                    settled = len(_instances)
        assert len(_instances) <= settled + 6, "pages' widgets pile up"  # was +3 per page shown: +750
        pages = [page.widget for page in view._pages] + view._spare
        assert len(view._rows) == 50 and len(pages) <= 4
        parts = [part.model_id for page in pages for part in (page, page.layout, page.style)]
    finally:
        view.close()
    assert not [part for part in parts if part in _instances], "closing the log left its pages' widgets open"


def test_a_busy_server_sends_the_browser_its_new_rows_not_its_whole_log_each_time() -> None:
    """A render sends the pages that changed, not the whole log: with a full log (200 rows, about
    300 kB), one more call sends its page and the oldest (a row dropped from it). Under a steady
    stream of calls no widget message carries more than a page, and what goes out stays under
    `CHARS_PER_SECOND`; a short log still follows each call at once (up to `RENDERS_PER_SECOND`)."""
    from mcp_notebook.widgets._activity import (
        CHARS_PER_SECOND,
        MAX_WIRE_CHARS,
        PAGE_CHARS,
        RENDERS_PER_SECOND,
        render_pause,
    )

    assert render_pause(2_000) == 1 / RENDERS_PER_SECOND  # a learner's first calls: at once
    now = time.time()
    view = ActivityView()
    messages: list[int] = []  # the length of each page's value sent
    try:
        for n in range(view.max_entries):
            view.add(record("tools/call", now + n, 0.001, tool="echo", arguments={"tag": "x" * 400}))
        view.flush()
        full = len(view.value)
        assert full > 5 * PAGE_CHARS  # a full log: many pages
        before = view.sent
        view.add(record("tools/call", now + 1000, 0.001, tool="echo", arguments={"tag": "x" * 400}))
        view.flush()
        assert view.sent - before <= 2 * PAGE_CHARS + MAX_WIRE_CHARS, (view.sent - before, full)  # was `full`
        assert len(view._rows) == view.max_entries

        def watch(page: Any) -> None:
            page.observe(lambda change: messages.append(len(change["new"])), names="value")

        watched: set[int] = set()

        def watch_pages(change: Any = None) -> None:
            for page in view.pages.children:
                if id(page) not in watched:
                    watched.add(id(page))
                    watch(page)

        watch_pages()
        view.pages.observe(watch_pages, names="children")
        start = view.sent
        stop = threading.Event()

        def calls() -> None:  # a busy server: a call every millisecond
            n = 2000
            while not stop.wait(0.001):
                n += 1
                view.add(record("tools/call", now + n, 0.001, tool="echo", arguments={"tag": "x" * 400}))

        feeder = threading.Thread(target=calls, daemon=True)
        feeder.start()
        stop.wait(2.0)  # the stretch of time being measured, not a synchronisation
        stop.set()
        feeder.join(10)
        sent = view.sent - start
    finally:
        view.close()
    seconds = 2.0
    assert messages, "the log was not rendered at all under load"
    assert max(messages) <= PAGE_CHARS + MAX_WIRE_CHARS + 2_000  # a page at most, never the log
    assert sent <= CHARS_PER_SECOND * seconds + full, (len(messages), sent, full)
