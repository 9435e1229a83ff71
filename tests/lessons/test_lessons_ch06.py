"""Chapter 06 (사람이 고리 안에): every checker accepts a right answer, rejects typical wrong ones with
the advice meant for them, knows when nothing was tried and ends its hint ladder. The answers of
the classifications are what the real server does (who is asked, what the audit log says), and
the "write a tool" exercise is checked through the real server as an outside client."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, ToolError, serve, set_language, tool
from mcp_notebook.lessons import _content, ch06
from mcp_notebook.lessons._exercise import given_code
from mcp_notebook.server._audit import AuditLog
from tests.conftest import until


def test_partial_and_unreadable_classifications_say_what_is_wrong() -> None:
    shown = repr(ch06.q3.check({"curl_no_token": "token", "agent_list": ...}))
    assert "8개 중 1개를 맞혔습니다" in shown and "'leaked_link_page'" in shown
    assert "알아볼 수 없습니다" in repr(ch06.q1.check({**dict(ch06.q1.expected), "never": "maybe"}))
    assert "보기에 없습니다" in repr(ch06.q2.check("E"))


# -- the answers are what the real server does -----------------------------------------------------
def asked(srv: Any, call: Callable[[], Any], answer: str | None = "deny") -> bool:
    """Make `call`; answer an approval prompt with ``request.<answer>()`` (None: nobody answers).

    Returns whether a prompt appeared. The listener runs on the server's thread, where the prompt
    is shown, and answers at once, as a person's click would.
    """
    shown: list[Any] = []

    def decide(request: Any) -> None:
        shown.append(request)
        if answer is not None:
            getattr(request, answer)()

    srv.approval.listeners.append(decide)
    try:
        call()
    finally:
        srv.approval.listeners.remove(decide)
    return bool(shown)


def outside(srv: Any, name: str, arguments: dict[str, Any] | None = None) -> Callable[[], Any]:
    """A tools/call as an outside client makes it: the server's URL and token, no local proof."""
    return lambda: mcp_notebook.call(name, arguments or {}, url=srv.url, token=srv.token, timeout=20)


def inside(name: str, arguments: dict[str, Any] | None = None) -> Callable[[], Any]:
    """A tools/call from the notebook itself (what %mcp_call does)."""
    return lambda: mcp_notebook.call(name, arguments or {}, timeout=20)


def notes_tools(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, lint=False)
    def add_note(title: str, body: str) -> str:
        """Save a note."""
        return title

    @tool(catalogue=catalogue, read_only=True, lint=False)
    def list_notes() -> list[str]:
        """List the notes."""
        return []

    @tool(catalogue=catalogue, destructive=True, lint=False)
    def delete_note(title: str) -> str:
        """Delete a note."""
        return title

    @tool(catalogue=catalogue, destructive=True, approval="always", lint=False)
    def delete_note_guarded(title: str) -> str:
        """Delete a note (always asks)."""
        return title

    @tool(catalogue=catalogue, read_only=True, approval="always", lint=False)
    def read_contacts() -> list[str]:
        """Read the contacts."""
        return []

    @tool(catalogue=catalogue, approval="never", lint=False)
    def save_draft(text: str) -> str:
        """Save a scratch draft."""
        return text


def test_who_is_asked_in_q1_is_what_the_server_does(catalogue: Catalogue) -> None:
    notes_tools(catalogue)
    seen: dict[str, bool] = {}
    srv = serve(catalogue=catalogue, approval_timeout=20)
    try:
        seen["plain_tool"] = asked(srv, outside(srv, "add_note", {"title": "a", "body": "b"}))
        seen["read_only"] = asked(srv, outside(srv, "list_notes"))
        seen["notebook_call"] = asked(srv, inside("delete_note", {"title": "회의"}))
        seen["read_only_always"] = asked(srv, outside(srv, "read_contacts"))
        seen["never"] = asked(srv, outside(srv, "save_draft", {"text": "x"}))
        assert asked(srv, outside(srv, "add_note", {"title": "a", "body": "b"}), "always_allow")
        seen["allowed_before"] = asked(srv, outside(srv, "add_note", {"title": "a", "body": "c"}))
    finally:
        srv.stop()
    srv = serve(catalogue=catalogue, approval="always", approval_timeout=20)
    try:
        seen["always_mode"] = asked(srv, outside(srv, "list_notes"))
    finally:
        srv.stop()
    with pytest.warns(UserWarning, match="approval='auto'"):
        srv = serve(catalogue=catalogue, approval="auto", approval_timeout=20)
    try:
        seen["auto_mode_override"] = asked(srv, outside(srv, "delete_note_guarded", {"title": "x"}))
        assert not asked(srv, outside(srv, "delete_note", {"title": "x"}))  # what the override changes
    finally:
        srv.stop()
    assert {item: "ask" if was else "run" for item, was in seen.items()} == ch06.q1.expected


def test_the_lines_of_q4_are_what_the_audit_log_says(catalogue: Catalogue, tmp_path: Any) -> None:
    release = threading.Event()

    @tool(catalogue=catalogue, destructive=True, lint=False)
    def delete_note(title: str) -> str:
        """Delete a note."""
        return title

    @tool(catalogue=catalogue, lint=False)
    def add_note(title: str) -> str:
        """Save a note."""
        return title

    @tool(catalogue=catalogue, timeout=0.2, lint=False)
    def export_notes() -> str:
        """Export every note (slow)."""
        release.wait(30)
        return "late"

    @tool(catalogue=catalogue, read_only=True, lint=False)
    def list_notes() -> list[str]:
        """List the notes."""
        return []

    @tool(catalogue=catalogue, read_only=True, rate_limit=(1, 3600), lint=False)
    def search_notes(query: str) -> list[str]:
        """Search the notes."""
        return []

    log = tmp_path / "audit.jsonl"
    srv = serve(catalogue=catalogue, audit_log=log, approval_timeout=20)
    written: dict[str, dict[str, Any]] = {}

    lines = 0

    def last(calls: int = 1) -> dict[str, Any]:
        # A call answered over HTTP is written once its answer has left: wait for its line.
        nonlocal lines
        lines += calls
        assert until(lambda: log.exists() and len(AuditLog.read(log)) >= lines)
        return AuditLog.read(log)[lines - 1]

    try:
        asked(srv, outside(srv, "delete_note", {"title": "a"}), "approve")
        written["approved_ok"] = last()
        asked(srv, outside(srv, "delete_note", {"title": "b"}), "deny")
        written["denied"] = last()
        srv.approval.timeout = 0.2
        assert asked(srv, outside(srv, "add_note", {"title": "c"}), None)
        srv.approval.timeout = 20
        written["nobody"] = last()
        try:
            asked(srv, outside(srv, "export_notes"), "approve")
        finally:
            release.set()
        written["too_slow"] = last()
        asked(srv, outside(srv, "list_notes"))
        written["read_only"] = last()
        asked(srv, inside("delete_note", {"title": "d"}))
        written["own_call"] = last()
        asked(srv, outside(srv, "search_notes", {"query": "x"}))
        asked(srv, outside(srv, "search_notes", {"query": "x"}))
        written["flood"] = last(2)
        asked(srv, outside(srv, "add_note", {"title": "e"}), "always_allow")
        written["always"] = last()
    finally:
        srv.stop()
    fields = ("decision", "outcome", "is_error")
    for item in ch06.q4.expected:
        shown = json.loads(ch06.q4.text(f"item.{item}").split(": ", 1)[1].strip("`"))
        line = written[item]
        assert {f: line[f] for f in fields} == {f: shown[f] for f in fields}, item
        assert line["tool"] == shown["tool"], item
        assert (line["client"] == "notebook") is (shown["client"] == "notebook"), item


# -- q5: read_diary, checked through the real server as an outside client --------------------------
def _set_up() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(given_code(_content.chapter_data("06")["q5"]["given"], "ko"), namespace)  # the tests speak Korean
    return namespace


DIARY: dict[str, str] = _set_up()["DIARY"]
"""The notebook's diary, from the chapter's set-up cell: the model answer, judged beside, reads the same."""


def define_diary(catalogue: Catalogue, flaw: str | None = None) -> None:
    """`read_diary`: right, or with one typical flaw."""

    def read_diary(date: Annotated[str, "읽을 날짜. 예: 2026-03-01"]) -> str:
        """사용자가 어느 날의 일기를 보여 달라고 할 때 사용하세요. 그날의 일기를 돌려줍니다."""
        if date not in DIARY:
            if flaw == "vague_error":
                raise ToolError("그런 날짜는 없습니다.")
            raise ToolError(f"{date}의 일기는 없습니다. 일기가 있는 날짜: {', '.join(sorted(DIARY))}")
        return "오늘은 맑음." if flaw == "wrong_entry" else DIARY[date]

    options: dict[str, Any] = {
        "no_read_only": {"approval": "always"},
        "no_approval": {"read_only": True},
        "never": {"read_only": True, "approval": "never"},
    }.get(flaw or "", {"read_only": True, "approval": "always"})
    tool(catalogue=catalogue, lint=False, **options)(read_diary)


def test_a_diary_that_always_asks_is_accepted_through_the_server(server: Any, catalogue: Catalogue) -> None:
    """Every call the checker makes comes as an outside client's; each one that reaches the function
    brings up a prompt, which the checker approves. The question's examples come first."""
    define_diary(catalogue)
    before = len(server.calls)
    feedback = ch06.q5.check()
    assert feedback.correct, repr(feedback)
    calls = server.calls[before:]
    # The checker calls with the server token (identity "owner"); its client's name is only a claim.
    outside = [c for c in calls if c.client == "owner"]
    assert [(c.arguments, c.claimed, c.decision, c.is_error) for c in outside[:2]] == [
        ({"date": "2026-03-01"}, "mcp-notebook", "approved", False),
        ({"date": "2026-02-30"}, "mcp-notebook", "approved", True),
    ]
    assert len(outside) >= 2 + 30 and {c.claimed for c in outside} == {"mcp-notebook"}
    # A call the schema refuses never reaches the tool, and so asks nobody; every other call asked.
    approved = [c for c in outside if c.decision == "approved"]
    assert all(c.decision == "not-needed" and c.is_error for c in outside if c not in approved)
    assert {"date": "2026-03-02"} in [c.arguments for c in approved]
    assert f"tools/call을 {len(outside)}번 보냈고, 승인 창이 {len(approved)}번" in repr(feedback)
    assert server.pending == [] and server.approval.listeners == []


@pytest.mark.parametrize(
    ("flaw", "advice"),
    [
        ("no_read_only", "명세의 기본값대로 무언가를 바꾸거나 지울 수 있는 도구로"),
        ("no_read_only", "아무것도 바꾸지 않는데 그렇다고 밝히지 않았습니다"),
        ("no_approval", '바깥 클라이언트의 read_diary {"date": "2026-03-01"} 호출이 사람에게 묻지 않고'),
        ("no_approval", "서버 모드와 상관없이 묻게 하는 설정은 도구 쪽에"),
        ("never", "사람에게 묻지 않고 실행되었습니다"),
        # "그런 날짜는 없습니다." names no date that has an entry: the scripted model cannot fix 2026/03/01.
        ("vague_error", "read_diary의 오류 메시지로는 고치지 못했습니다"),
        ("wrong_entry", 'read_diary {"date": "2026-03-01"} 호출에서'),
        ("wrong_entry", "모범 답안이 돌려주는 내용이 없습니다"),
    ],
)
def test_a_flawed_diary_is_rejected_with_the_right_advice(
    server: Any, catalogue: Catalogue, flaw: str, advice: str
) -> None:
    define_diary(catalogue, flaw)
    feedback = ch06.q5.check()
    assert feedback.kind == "incorrect"
    assert advice in repr(feedback), repr(feedback)


def test_a_tool_someone_always_allowed_cannot_be_judged(server: Any, catalogue: Catalogue) -> None:
    define_diary(catalogue)
    server.approval.allowed.add(("owner", "read_diary"))  # allowed for the token the checker calls with
    before = len(server.calls)
    shown = repr(ch06.q5.check())
    assert "'이 도구는 항상 허용'을 눌러" in shown and "mcp_notebook.stop()" in shown
    assert len(server.calls) == before  # it did not call: the answer would say nothing


def test_the_tools_own_setting_is_what_counts_whatever_the_server_mode(catalogue: Catalogue) -> None:
    define_diary(catalogue)
    with pytest.warns(UserWarning, match="approval='auto'"):
        srv = serve(catalogue=catalogue, approval="auto")
    try:
        assert ch06.q5.check().correct  # approval="always" asks even on an auto server
    finally:
        srv.stop()
    ch06.q5.reset()
    mcp_notebook.remove_tool("read_diary", catalogue)
    define_diary(catalogue, "no_approval")
    srv = serve(catalogue=catalogue, approval="always")
    try:
        shown = repr(ch06.q5.check())  # asked, but only because of the server's mode
    finally:
        srv.stop()
    assert "서버 모드와 상관없이" in shown and "묻지 않고 실행되었습니다" not in shown


def test_a_function_without_tool_is_named_as_such(server: Any, shell: InteractiveShell) -> None:
    assert ch06.q5.check().kind == "not_attempted"
    shell.run_cell("def read_diary(date: str) -> str:\n    return date")
    assert "도구로 등록되지 않았습니다" in repr(ch06.q5.check())


def test_the_model_answer_passes_in_the_default_catalogue() -> None:
    """The solution as shown to the learner, against the notebook's catalogue and a server the checker starts."""
    namespace: dict[str, Any] = {"DIARY": DIARY}
    exec(ch06.q5.solution_code(), namespace)
    try:
        findings = mcp_notebook.lint(mcp_notebook.default_catalogue.get("read_diary"))  # type: ignore[arg-type]
        assert [f.rule for f in findings if f.severity != "info"] == []
        assert ch06.q5.check().correct
    finally:
        mcp_notebook.remove_tool("read_diary")
    assert mcp_notebook.current_server() is None


# -- texts ----------------------------------------------------------------------------------------
def test_english_is_there_too() -> None:
    set_language("en")
    assert "not attempted yet" in repr(ch06.q5)
    assert "Which gate stops it?" in repr(ch06.q3)
    assert '"ask" (waits for approval)' in repr(ch06.q1)
    assert "Use when the user asks to see the diary entry" in repr(ch06.q5.solution())
