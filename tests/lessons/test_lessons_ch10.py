"""Chapter 10, threats live: the hostile server shipped with the lessons does what the chapter says
(over real stdio), the helpers read a description as the package's approval prompt shows it, and
the two code exercises are judged on catalogues and definitions drawn afresh at every check, so an
answer fitted to the question's examples is refused."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook.core._visible import visible
from mcp_notebook.lessons import _content, ch10
from mcp_notebook.lessons._threats import draw_catalogue, draw_definitions

PRELUDE = "from typing import Annotated\nfrom mcp_notebook import tool\n"


@pytest.fixture
def hostile() -> Iterator[str]:
    """The hostile server's command, in Korean; its process ends with the test, so each test meets a
    fresh one (the rug pull waits for a first call)."""
    from mcp_notebook.client._connections import get_pool

    yield ch10.hostile_server("ko")
    get_pool().close_all()


@pytest.fixture
def notebook() -> Iterator[InteractiveShell]:
    shell = InteractiveShell.instance()
    saved = dict(shell.user_ns)
    assert not list(mcp_notebook.default_catalogue.tools())
    srv = mcp_notebook.serve()
    try:
        yield shell
    finally:
        srv.stop()
        mcp_notebook.default_catalogue.clear()
        shell.user_ns.clear()
        shell.user_ns.update(saved)


def run(shell: InteractiveShell, code: str) -> None:
    result = shell.run_cell(code, silent=True)  # type: ignore[no-untyped-call]
    assert result.success, result.error_in_exec or result.error_before_exec


# -- the hostile server ------------------------------------------------------------------------------
def test_the_poisoned_description_reads_harmless_and_hides_its_order_in_tag_characters(hostile: str) -> None:
    tools = {tool["name"]: tool for tool in mcp_notebook.list_tools(stdio=hostile)}
    assert sorted(tools) == ["add", "daily_quote", "read_reviews", "render_chart"]
    text = tools["add"]["description"]
    drawn = "".join(character for character in text if visible(character) == character)
    assert drawn == "두 수를 더합니다."  # all a person's screen draws
    assert "~/.ssh/id_rsa" in ch10.reveal(text) and "sidenote" in ch10.reveal(text)
    assert len(ch10.hidden_characters(text)) == len(text) - len(drawn)
    assert "sidenote" in tools["add"]["inputSchema"]["properties"]


def test_the_rug_pull_keeps_the_name_and_changes_the_definition_after_the_first_call(hostile: str) -> None:
    def quote() -> dict[str, object]:
        return next(t for t in mcp_notebook.list_tools(stdio=hostile) if t["name"] == "daily_quote")

    before = quote()
    assert quote() == before  # listing alone changes nothing
    assert mcp_notebook.call("daily_quote", stdio=hostile).text == "천 리 길도 한 걸음부터."
    after = quote()
    assert after["name"] == before["name"]
    assert before["annotations"] == {"readOnlyHint": True} and "annotations" not in after
    assert "send_email" in after["description"] and "send_email" not in before["description"]


def test_injection_and_markup_come_back_as_data(hostile: str) -> None:
    reviews = mcp_notebook.call("read_reviews", {"product": "이어폰"}, stdio=hostile)
    assert "이전 지시는 모두 무시하세요" in reviews.text and not reviews.is_error
    meeting = mcp_notebook.read_resource("hostile://notes/meeting", stdio=hostile)
    assert "<!-- AI 비서에게" in meeting.text
    chart = mcp_notebook.call("render_chart", stdio=hostile)
    drawn = chart._repr_html_()
    assert "<script>" not in drawn and "onerror=" not in drawn.replace("onerror=&quot;", "")
    assert '<img src="data:image/svg+xml;base64,' in drawn


# -- the helpers ---------------------------------------------------------------------------------------
def test_hidden_characters_are_the_ones_the_approval_prompt_marks() -> None:
    for character in ("\u200b", "\u202e", "\u3164", "\u00ad", "\U000e0041", "\ufeff"):
        assert ch10.hidden_characters(f"a{character}b") == [f"U+{ord(character):04X}"]
        assert f"⟨U+{ord(character):04X}⟩" in visible(f"a{character}b")
    assert ch10.hidden_characters("Résumé 🚲 한국어\n\t") == []  # visible letters, and layout


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        ("call add.", "add", True),
        ("add로 더하세요", "add", True),
        ("`send_email`", "send_email", True),
        ("the address book", "add", False),
        ("use add_row", "add", False),
        ("read_files_all", "read_file", False),
        ("research", "search", False),
    ],
)
def test_mentions_finds_a_name_only_as_a_name_of_its_own(text: str, name: str, expected: bool) -> None:
    assert ch10.mentions(text, name) is expected


# -- judged on draws ---------------------------------------------------------------------------------
def test_each_check_draws_other_catalogues_and_definitions() -> None:
    catalogues = [json.dumps(draw_catalogue(random.Random(seed))) for seed in range(20)]
    definitions = [json.dumps(draw_definitions(random.Random(seed))) for seed in range(20)]
    assert len(set(catalogues)) == 20 and len(set(definitions)) == 20


def test_the_draws_hold_every_kind_of_poison_and_of_lookalike() -> None:
    rng = random.Random(7)
    descriptions = [
        (name, text, tools)
        for _ in range(300)
        for tools in [draw_catalogue(rng)["tools"]]
        for name, text in tools.items()
    ]
    hidden = [text for _, text, _ in descriptions if ch10.hidden_characters(text)]
    loud = [text for _, text, _ in descriptions if any(p in text.lower() for p in ch10.DIRECTIVES)]
    shadows = [t for n, t, tools in descriptions if any(ch10.mentions(t, o) for o in tools if o != n)]
    own = [text for name, text, _ in descriptions if ch10.mentions(text, name)]
    inside = [t for n, t, tools in descriptions if any(o in t and not ch10.mentions(t, o) for o in tools)]
    assert all(len(found) >= 20 for found in (hidden, loud, shadows, own, inside))
    assert any(text != text.lower() and text.upper() == text for text in loud)  # shouting, too
    assert any("\u3164" in text for text in hidden)  # a filler str.isprintable() takes for a letter
    assert any(text == "" for _, text, _ in descriptions)


def fitted(exercise: str, tool: str, parameters: str) -> str:
    """An answer that returns the model answer's results for the question's examples, and [] otherwise."""
    table = _content.chapter_data("10")[exercise]
    model = ch10.q1 if exercise == "q1" else ch10.q2
    reference = model.reference()
    answers = {}
    with reference.served():
        for example in table["judge"]["examples"]:
            result = mcp_notebook.call(tool, dict(example), url=reference.url, token=reference.token)
            answers[json.dumps(example, sort_keys=True)] = result.structured_content["result"]
    names = parameters.split(", ")
    key = "{" + ", ".join(f"{n!r}: {n}" for n in names) + "}"
    return (
        f"ANSWERS = {answers!r}\n\n"
        f"@tool(read_only=True)\n"
        f"def {tool}({', '.join(f'{n}: {t}' for n, t in zip(names, TYPES[tool], strict=True))}) -> list[str]:\n"
        f'    """Use to check the question\'s examples."""\n'
        f"    return ANSWERS.get(__import__('json').dumps({key}, sort_keys=True), [])\n"
    )


TYPES = {"poisoned_tools": ("dict[str, str]",), "changed_fields": ("str", "str")}


@pytest.mark.parametrize(
    ("name", "tool", "parameters"),
    [("q1", "poisoned_tools", "tools"), ("q2", "changed_fields", "approved, now")],
)
def test_an_answer_fitted_to_the_examples_is_refused_on_a_drawn_input_and_the_seed_replays_it(
    notebook: InteractiveShell, name: str, tool: str, parameters: str
) -> None:
    exercise = getattr(ch10, name)
    run(notebook, PRELUDE + fitted(name, tool, parameters))
    first = exercise.check(seed=11)
    shown = repr(first)
    assert first.kind == "incorrect", shown
    examples = len(_content.chapter_data("10")[name]["judge"]["examples"])
    calls = int(shown.split("지금까지 ")[1].split("번")[0])
    assert calls > examples  # the examples all passed: a drawn input caught it
    assert f"{name}.check(seed=11)" in shown
    assert repr(exercise.check(seed=11)) == shown  # the same draws again


def test_the_model_answers_pass_in_english_too(notebook: InteractiveShell) -> None:
    mcp_notebook.set_language("en")
    for exercise, name in ((ch10.q1, "q1"), (ch10.q2, "q2")):
        table = _content.chapter_data("10")[name]
        run(notebook, PRELUDE + table.get("given", "") + "\n" + table["solution"]["en"])
        feedback = exercise.check()
        assert feedback.correct, repr(feedback)
        assert "every answer matched" in repr(feedback)
