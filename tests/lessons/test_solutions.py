"""Model answers follow the course's own rules: every ``solution()`` that defines a tool, a resource or a
prompt passes the linter (`mcp_notebook.lint`) with no finding at all, in both languages, so a learner
who copies one never meets the warnings chapter 05 teaches to avoid."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook.lessons import _content
from mcp_notebook.lessons._exercise import given_code

PRELUDE = (
    "from typing import Annotated, Literal\n"
    "from pydantic import Field\n"
    "from mcp_notebook import Context, ToolError, prompt, resource, tool\n"
)
SOLUTIONS = [
    pytest.param(chapter, name, language, id=f"ch{chapter}.{name}-{language}")
    for chapter in _content.chapters()
    for name in _content.exercise_names(_content.chapter_data(chapter))
    if "@" in _content.chapter_data(chapter)[name].get("solution", {}).get("ko", "")
    for language in ("ko", "en")
]


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    saved = dict(ip.user_ns)
    catalogue = mcp_notebook.default_catalogue
    assert not list(catalogue.tools()), "the default catalogue is shared: start from an empty one"
    try:
        yield ip
    finally:
        catalogue.clear()
        ip.user_ns.clear()
        ip.user_ns.update(saved)


def test_the_course_has_model_answers_that_define_things() -> None:
    assert len(SOLUTIONS) >= 16


@pytest.mark.parametrize(("chapter", "name", "language"), SOLUTIONS)
def test_each_model_answer_passes_the_linter_with_no_finding(
    shell: InteractiveShell, chapter: str, name: str, language: str
) -> None:
    table = _content.chapter_data(chapter)[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the linter's warnings at definition time: counted below instead
        assert shell.run_cell(PRELUDE + given_code(table.get("given", ""), language), silent=True).success
        mcp_notebook.default_catalogue.clear()  # only what the model answer defines
        ran = shell.run_cell(table["solution"][language], silent=True)
    assert ran.success, ran.error_in_exec
    findings = mcp_notebook.lint(mcp_notebook.default_catalogue)
    assert not findings, f"ch{chapter}.{name} ({language}): " + "; ".join(
        f"{f.rule} {f.message}" for f in findings
    )
