"""Chapter 03 (Prompts): every checker accepts a right answer, rejects typical wrong ones with the
advice meant for them, knows when nothing was tried, and ends its hint ladder. The "write a
prompt" exercise is checked through the real in-kernel server (prompts/list, completion/complete,
prompts/get)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import nbformat
import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, prompt, set_language, tool
from mcp_notebook.lessons import ch03


def test_the_classification_covers_all_three_primitives() -> None:
    assert set(ch03.q4.expected.values()) == {"tool", "resource", "prompt"}


def test_check_reads_the_answer_from_the_notebook(shell: InteractiveShell) -> None:
    shell.run_cell('q2_answer = "prompts/get"')
    assert "완성된 메시지를 받아 오는 요청" in repr(ch03.q2.check())
    shell.run_cell('q2_answer = "completion/complete"')
    assert ch03.q2.check().correct


def test_english_is_there_too() -> None:
    set_language("en")
    assert "not attempted yet" in repr(ch03.q5)
    assert "Run a cell that defines the function explain_sql with @prompt" in repr(ch03.q5.check())
    assert "That is how a tool's inputSchema works" in repr(ch03.q1.check(ch03.q1.letter_of("A")))
    assert "Hint 1/" in repr(ch03.q5.hint())
    assert '"""Ask for an explanation' in repr(ch03.q5.solution())


# -- "write a prompt", through the real server ----------------------------------------------------
SAMPLE = ch03.q5.sample


def define_explain_sql(catalogue: Catalogue, flaw: str | None = None) -> None:
    """An explain_sql prompt: right, or with one typical flaw."""
    doc = "Ask for an explanation of what an SQL query does."
    if flaw == "str_level":

        def explain_sql(query: str, level: str = "beginner") -> str:
            return f"Explain for a {level}:\n{query}"

    elif flaw == "wrong_values":

        def explain_sql(query: str, level: Literal["easy", "hard"] = "easy") -> str:
            return f"Explain for a {level} reader:\n{query}"

    elif flaw == "required_level":

        def explain_sql(query: str, level: Literal["beginner", "expert"]) -> str:
            return f"Explain for a {level}:\n{query}"

    elif flaw == "optional_query":

        def explain_sql(query: str = "SELECT 1", level: Literal["beginner", "expert"] = "beginner") -> str:
            return f"Explain for a {level}:\n{query}"

    elif flaw == "same_text":

        def explain_sql(query: str, level: Literal["beginner", "expert"] = "beginner") -> str:
            return f"Explain this query:\n{query}"

    elif flaw == "no_query":

        def explain_sql(query: str, level: Literal["beginner", "expert"] = "beginner") -> str:
            return f"Explain the query for a {level}."

    elif flaw == "fails":

        def explain_sql(query: str, level: Literal["beginner", "expert"] = "beginner") -> str:
            raise RuntimeError("template file not found")

    elif flaw == "assistant_only":

        def explain_sql(query: str, level: Literal["beginner", "expert"] = "beginner") -> Any:
            return [("assistant", f"{level}: {query}")]

    else:

        def explain_sql(query: str, level: Literal["beginner", "expert"] = "beginner") -> str:
            return f"Explain for a {level}:\n{query}"

    if flaw != "no_description":
        explain_sql.__doc__ = doc
    prompt(catalogue=catalogue)(explain_sql)


CHECKER_METHODS = ("prompts/list", "completion/complete", "prompts/get")


def test_a_good_prompt_is_accepted_through_the_server(server: Any, catalogue: Catalogue) -> None:
    """The probes of the question come first (list, complete, get each level and the default, two
    refusals); then the same gets as the model answer's, on the sample and drawn queries, and the
    completions after every prefix."""
    define_explain_sql(catalogue)
    before = len(server.activity)
    feedback = ch03.q5.check()
    assert feedback.correct, repr(feedback)
    assert "prompts/list, completion/complete, prompts/get" in repr(feedback)
    checked = [r for r in server.activity[before:] if r.method in CHECKER_METHODS]
    seen = [(r.method, r.error is not None) for r in checked]
    assert seen[:8] == [
        ("prompts/list", False),
        ("completion/complete", False),
        ("completion/complete", False),
        ("prompts/get", False),
        ("prompts/get", False),
        ("prompts/get", False),
        ("prompts/get", True),  # no query
        ("prompts/get", True),  # level outside the Literal
    ]
    judged = checked[8:]
    gets = [r.arguments["arguments"] for r in judged if r.method == "prompts/get"]
    assert len(gets) >= 30
    for level in ("beginner", "expert", "guru", ""):  # each allowed value, and values it refuses
        assert {"query": SAMPLE, "level": level} in gets
    assert {"query": SAMPLE} in gets and {"query": "", "level": "beginner"} in gets
    assert any(r.error is None for r in judged) and any(r.error is not None for r in judged)
    assert judged[-1].method == "completion/complete"  # the completions come last


def test_the_model_answer_passes_through_the_server(shell: InteractiveShell) -> None:
    srv = mcp_notebook.serve()  # the notebook's server, on the catalogue @prompt fills
    try:
        shell.run_cell(ch03.q5.solution_code())
        assert ch03.q5.check().correct
    finally:
        srv.stop()
        mcp_notebook.default_catalogue.remove_prompt("explain_sql")


@pytest.mark.parametrize(
    ("flaw", "advices"),
    [
        (
            "str_level",
            [
                "'level'의 후보를 물었더니(입력한 글자: '') []가 왔습니다",
                '"level": "guru"} 요청이 성공했습니다',
                "typing.Literal",
            ],
        ),
        (
            "wrong_values",
            ['["easy", "hard"]가 왔습니다', "'beginner'는 ['easy', 'hard'] 중 하나가 아닙니다"],
        ),
        ("required_level", ["인자 'level'이 필수로 되어 있습니다", "기본값 'beginner'"]),
        (
            "optional_query",
            [
                "인자 'query'가 필수(required: true)가 아닙니다",
                '{"level": "beginner"} 요청이 성공했습니다',
            ],
        ),
        ("same_text", ["level이 'beginner'일 때와 'expert'일 때 메시지가 똑같습니다"]),
        ("no_query", [f"보낸 값 {SAMPLE!r}이 없습니다"]),  # "... > 30": 삼십이
        ("no_description", ["프롬프트에 설명(description)이 없습니다"]),
        ("fails", ["프로토콜 오류가 되었습니다: [-32603]", "RuntimeError: template file not found"]),
        ("assistant_only", ["user 메시지가 없습니다"]),
    ],
)
def test_a_flawed_prompt_is_rejected_with_the_right_advice(
    server: Any, catalogue: Catalogue, flaw: str, advices: list[str]
) -> None:
    define_explain_sql(catalogue, flaw)
    feedback = ch03.q5.check()
    assert feedback.kind == "incorrect"
    for advice in advices:
        assert advice in repr(feedback), repr(feedback)
    if flaw not in ("str_level", "wrong_values"):
        assert "typing.Literal" not in repr(
            feedback
        )  # the Literal advice only when completion or refusal failed


def test_a_function_without_prompt_is_named_as_such(server: Any, shell: InteractiveShell) -> None:
    shell.run_cell("def explain_sql(query: str) -> str:\n    return query")
    shown = repr(ch03.q5.check())
    assert "프롬프트로 등록되지 않았습니다" in shown and "@prompt" in shown
    assert "프롬프트로 등록되지 않았습니다" in repr(ch03.q5.check(shell.user_ns["explain_sql"]))


def test_a_tool_instead_of_a_prompt_is_pointed_at(
    server: Any, catalogue: Catalogue, shell: InteractiveShell
) -> None:
    @tool(catalogue=catalogue, lint=False)
    def explain_sql(query: str) -> str:
        """Explain an SQL query."""
        return query

    shell.user_ns["explain_sql"] = explain_sql
    shown = repr(ch03.q5.check())
    assert "@tool을 붙였다면 @prompt로 바꾸세요" in shown


def test_a_prompt_under_another_name_is_pointed_at(server: Any, catalogue: Catalogue) -> None:
    @prompt(catalogue=catalogue)
    def sql_help(query: str, level: Literal["beginner", "expert"] = "beginner") -> str:
        """Ask for an explanation of an SQL query."""
        return f"{level}: {query}"

    assert ch03.q5.check().kind == "not_attempted"
    shown = repr(ch03.q5.check(sql_help))
    assert "채점기는 'explain_sql'을 찾습니다" in shown and "@prompt(name='explain_sql')" in shown


def test_the_checker_starts_and_stops_a_server_when_none_runs() -> None:
    assert mcp_notebook.current_server() is None
    define_explain_sql(mcp_notebook.default_catalogue)
    try:
        assert ch03.q5.check().correct
    finally:
        mcp_notebook.default_catalogue.remove_prompt("explain_sql")
    assert mcp_notebook.current_server() is None


# -- the notebook ---------------------------------------------------------------------------------
NOTEBOOK = Path(__file__).parents[2] / "notebooks" / "ko" / "03_prompts.ipynb"


def test_the_notebook_shows_each_exercise_unanswered_then_one_hint() -> None:
    cells = [c for c in nbformat.read(NOTEBOOK, as_version=4).cells if c.cell_type == "code"]
    sources = [c.source for c in cells]
    assert 'mcp_notebook.set_language("ko")' in sources[0]
    for name in ch03.__all__:
        shown = sources.index(name)
        answer = sources[shown + 1]
        assert answer.startswith("# 여기에 답을 쓰세요") and re.search(rf"^{name}\.check\(\)$", answer, re.M)
        assert sources[shown + 2] == f"{name}.hint()"
        assert sum(s.strip() == f"{name}.hint()" for s in sources) == 1
        outputs = "".join(o.get("data", {}).get("text/plain", "") for o in cells[shown + 1].outputs)
        assert "아직 시도하지 않았습니다" in outputs


def test_the_notebook_commits_no_secret_and_marks_its_intentional_error() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert "widgets" not in notebook.metadata
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        text = nbformat.writes(nbformat.v4.new_notebook(cells=[cell]))
        assert "srv.token" not in cell.source and "Bearer" not in text
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert bool(errors) == ("raises-exception" in cell.metadata.get("tags", [])), cell.source


def test_the_prompt_exercise_hints_leave_the_type_to_find() -> None:
    hints = [repr(ch03.q5.hint()) for _ in range(ch03.q5.hint_count)]
    assert not any("Literal" in hint for hint in hints)  # the type to use is the learner's find
