"""Chapter 02 (Resources): every checker accepts a right answer, rejects typical wrong ones with the
advice meant for them, knows when nothing was tried, and ends its hint ladder. The "write a resource
template" exercise is checked through the real in-kernel server (templates list, reads, completion)."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, resource, set_language
from mcp_notebook.lessons import ch02
from mcp_notebook.lessons.ch02 import REGION_SALES

TEMPLATE = "data://sales/{region}"


def test_check_reads_the_answer_from_the_notebook() -> None:
    shell = InteractiveShell.instance()
    saved = dict(shell.user_ns)
    try:
        shell.user_ns["q2_answer"] = "resources/list"
        assert "고정 URI만" in repr(ch02.q2.check())
        shell.user_ns["q2_answer"] = "resources/templates/list"
        assert ch02.q2.check().correct
    finally:
        shell.user_ns.clear()
        shell.user_ns.update(saved)


def test_english_is_there_too() -> None:
    set_language("en")
    assert "not attempted yet" in repr(ch02.q5)
    assert "`resources/list` shows only fixed URIs" in repr(ch02.q2.check("resources/list"))
    assert "Hint 1/3" in repr(ch02.q5.hint())


# -- "write a resource template", through the real server ----------------------------------------
def define_sales(catalogue: Catalogue, flaw: str | None = None) -> None:
    """A data://sales/{region} resource: right, or with one typical flaw."""
    uri = {"static": "data://sales/north", "variable_name": "data://sales/{name}"}.get(flaw or "", TEMPLATE)
    completers = None if flaw == "no_completion" else {"region": list(REGION_SALES)}
    doc = None if flaw == "no_description" else "Total sales of one region, in millions of won."

    if flaw == "static":

        def sales_by_region() -> dict[str, Any]:
            return {"region": "north", "total": 120}

    elif flaw == "variable_name":

        def sales_by_region(name: str) -> dict[str, Any]:  # type: ignore[misc]
            return {"region": name, "total": REGION_SALES[name]}

    elif flaw == "text":

        def sales_by_region(region: str) -> Any:  # type: ignore[misc]
            return f"{region}: {REGION_SALES[region]}"

    elif flaw == "zero_for_unknown":

        def sales_by_region(region: str) -> dict[str, Any]:  # type: ignore[misc]
            return {"region": region, "total": REGION_SALES.get(region, 0)}

    else:

        def sales_by_region(region: str) -> dict[str, Any]:  # type: ignore[misc]
            if region not in REGION_SALES:
                raise KeyError(f"No region {region}")
            return {"region": region, "total": REGION_SALES[region]}

    sales_by_region.__doc__ = doc
    resource(uri, completers=None if flaw == "static" else completers, catalogue=catalogue)(sales_by_region)


def test_a_good_template_is_accepted_through_the_server(server: Any, catalogue: Catalogue) -> None:
    define_sales(catalogue)
    before = len(server.activity)
    feedback = ch02.q5.check()
    assert feedback.correct, repr(feedback)
    assert "resources/read(3번)" in repr(feedback) and "completion/complete(2번)" in repr(feedback)
    seen = [(r.method, r.tool, r.is_error) for r in server.activity[before:] if r.method != "initialize"]
    assert ("resources/templates/list", "", False) in seen
    reads = [(uri, failed) for method, uri, failed in seen if method == "resources/read"]
    assert reads[:3] == [  # the question's reads first, then the same ones the model answer gets
        ("data://sales/north", False),
        ("data://sales/west", False),
        ("data://sales/atlantis", True),
    ]
    assert {("data://sales/south", False), ("data://sales/east", False)} <= set(reads)
    assert len(reads) >= 15
    assert [m for m, _, _ in seen].count("completion/complete") >= 8  # every prefix of every region


def test_a_template_written_with_literal_is_accepted_too(server: Any, catalogue: Catalogue) -> None:
    @resource(TEMPLATE, catalogue=catalogue)
    def sales_by_region(region: Literal["north", "south", "east", "west"]) -> dict[str, Any]:
        """Total sales of one region, in millions of won."""
        return {"region": region, "total": REGION_SALES[region]}

    assert ch02.q5.check().correct
    assert ch02.q5.check(sales_by_region).correct
    assert ch02.q5.check(TEMPLATE).correct


@pytest.mark.parametrize(
    ("flaw", "advice"),
    [
        ("static", "'data://sales/north'는 변수가 없는 고정 URI"),
        ("variable_name", "템플릿이 'data://sales/{name}'입니다"),
        ("no_description", "리소스에 설명(description)이 없습니다"),
        ("text", "dict는 JSON으로 직렬화되어"),
        ("zero_for_unknown", "data://sales/atlantis를 읽었더니 내용이 돌아왔습니다"),
        ("zero_for_unknown", "raise KeyError"),
        ("no_completion", "region에 ''까지 입력했을 때의 자동 완성 후보가 []입니다"),
        ("no_completion", "completers="),
    ],
)
def test_a_flawed_template_is_rejected_with_the_right_advice(
    server: Any, catalogue: Catalogue, flaw: str, advice: str
) -> None:
    define_sales(catalogue, flaw)
    feedback = ch02.q5.check()
    assert feedback.kind == "incorrect", repr(feedback)
    assert advice in repr(feedback), repr(feedback)
    assert ch02.q5.status == "incorrect"


def test_a_function_without_resource_is_named_as_such(server: Any) -> None:
    def sales_by_region(region: str) -> dict[str, Any]:
        return {"region": region}

    assert ch02.q5.check().kind == "not_attempted"
    assert "리소스로 등록되지 않았습니다" in repr(ch02.q5.check(sales_by_region))
    assert "resources/templates/list에 'data://sales/{x}'가 없습니다" in repr(
        ch02.q5.check("data://sales/{x}")
    )


def test_the_model_answer_works_and_the_checker_starts_and_stops_a_server_when_none_runs() -> None:
    assert mcp_notebook.current_server() is None
    exec(ch02.q5.solution_code(), {})
    try:
        feedback = ch02.q5.check()
        assert feedback.correct, repr(feedback)
    finally:
        mcp_notebook.default_catalogue.remove_resource(TEMPLATE)
    assert mcp_notebook.current_server() is None
    assert ch02.q5.check().kind == "not_attempted"
