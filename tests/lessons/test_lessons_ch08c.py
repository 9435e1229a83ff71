"""Chapter 08, part 3 (08c, 긴 작업: 태스크): the tool that must stop when cancelled is called as a task
through the real in-kernel server and really cancelled; its model answer passes the linter in both
languages; a tool that cannot run as a task is told so before any call."""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, Context, lint, set_language, tool
from mcp_notebook.lessons import _content, ch08

GIVEN = _content.chapter_data("08")["q8"]["given"]


@pytest.fixture
def processed(shell: InteractiveShell) -> list[int]:
    """The notebook's `process` and `processed`, as the cell above exercise 8 defines them."""
    shell.run_cell(GIVEN)  # type: ignore[no-untyped-call]
    ledger: list[int] = shell.user_ns["processed"]
    return ledger


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_model_answer_lints_clean_and_stops_when_really_cancelled(
    shell: InteractiveShell, processed: list[int], language: str
) -> None:
    set_language(language)
    assert mcp_notebook.current_server() is None
    shell.run_cell(ch08.q8.solution_code())  # type: ignore[no-untyped-call]
    try:
        entry = mcp_notebook.default_catalogue.get("crunch")
        assert entry is not None and entry.task == "optional"
        assert list(lint(entry)) == []
        feedback = ch08.q8.check()
        assert feedback.correct, repr(feedback)
        assert "cancelled" in repr(feedback)
        assert 3 <= len(processed) < ch08.CHUNKS  # it started, and it stopped long before the end
    finally:
        mcp_notebook.remove_tool("crunch")
    assert mcp_notebook.current_server() is None


def test_a_loop_that_never_looks_is_refused_though_its_task_says_cancelled(
    server: Any, catalogue: Catalogue, shell: InteractiveShell, processed: list[int]
) -> None:
    process = shell.user_ns["process"]

    @tool(catalogue=catalogue, read_only=True, task="optional")
    def crunch(chunks: int, ctx: Context) -> str:
        """Process big data in chunks when the user asks; takes long for many chunks."""
        for chunk in range(chunks):
            process(chunk)
        return "done"

    feedback = ch08.q8.check()
    assert feedback.kind == "incorrect"
    assert "반복문이 취소를 보지 않았습니다" in repr(feedback)
    calls = [c for c in server.calls if c.method == "tools/call" and c.tool == "crunch"]
    # First the short calls beside the model answer (the question's examples first, all within the
    # judge's domain), which this loop answers as the model answer does; then the one it cancels.
    *judged, record = calls
    assert [c.arguments for c in judged[:2]] == [{"chunks": 3}, {"chunks": 1}]
    assert all(1 <= c.arguments.get("chunks", 1) <= 6 and c.outcome == "ok" for c in judged if not c.is_error)
    assert record.arguments == {"chunks": ch08.CHUNKS}
    assert record.outcome.startswith("cancelled"), record.outcome
    assert server.tool_server.tasks.runs == {}  # nothing is left running in the server


def test_a_tool_that_is_never_a_task_is_told_so_before_any_call(
    server: Any, catalogue: Catalogue, shell: InteractiveShell, processed: list[int]
) -> None:
    process = shell.user_ns["process"]

    @tool(catalogue=catalogue, read_only=True)
    def crunch(chunks: int, ctx: Context) -> str:
        """Process big data in chunks when the user asks; takes long for many chunks."""
        for chunk in range(chunks):
            if ctx.cancelled:
                break
            process(chunk)
        return "done"

    shown = repr(ch08.q8.check())
    assert "task='never'" in shown and '@tool(task="optional")' in shown
    assert processed == [] and not [c for c in server.calls if c.method == "tools/call"]


def test_the_checker_needs_the_notebooks_process_and_ledger(
    server: Any, catalogue: Catalogue, shell: InteractiveShell
) -> None:
    @tool(catalogue=catalogue, read_only=True, task="optional")
    def crunch(chunks: int, ctx: Context) -> str:
        """Process big data in chunks when the user asks; takes long for many chunks."""
        return "done"

    assert "노트북에 processed 리스트나 process 함수가 없습니다" in repr(ch08.q8.check())


def test_english_is_there_too() -> None:
    set_language("en")
    assert "Which tools should be tasks?" in repr(ch08.q6)
    assert "`working` → `input_required` → `working` → `cancelled`" in repr(ch08.q7)
    assert "Stopped after" in repr(ch08.q8.solution())
