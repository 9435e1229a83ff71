"""The tool linter: each rule fires on a bad tool and stays quiet on a good one; messages; notebooks."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import string
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from time import sleep as nap
from typing import Annotated, Any, Literal, TypedDict

import annotated_types
import nbformat
import pytest

from mcp_notebook import Catalogue, Context, set_language, tool
from mcp_notebook.core._catalogue import ToolEntry, make_entry
from mcp_notebook.core._text import catalogue
from mcp_notebook.linter import RULES, Finding, format_findings, lint, lint_notebook, main_lint
from mcp_notebook.linter import _notebook as lint_notebook_module


class Placed(TypedDict):
    card_id: str
    col: int


def place_card(
    board_id: Annotated[str, annotated_types.MaxLen(40), "The id board_create returned."],
    kind: Annotated[Literal["link", "image", "text"], "What the card shows."],
    col: Annotated[int, annotated_types.Interval(ge=0, le=11), "Grid column; 0 is the leftmost."],
    row: Annotated[int, annotated_types.Interval(ge=0, le=99), "Grid row; 0 is the top."],
) -> Placed:
    """Put one card on a board at a grid cell.

    Use when the user wants a single card placed. Not for many cards at once: use cards_append instead.
    """
    return {"card_id": "c1", "col": col}


def good_entry(**options: Any) -> ToolEntry:
    return make_entry(place_card, idempotent=True, **options)


def rules_of(target: Any, **kwargs: Any) -> list[str]:
    return [finding.rule for finding in lint(target, **kwargs)]


def entry_for(fn: Callable[..., Any], **options: Any) -> ToolEntry:
    options.setdefault("idempotent", True)  # keep MCP030 out of the tests of other rules
    return make_entry(fn, **options)


def fields_of(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# -- the good tool, and the shape of findings -------------------------------------------------------------


def test_a_well_designed_tool_has_no_findings() -> None:
    assert lint(good_entry()) == []


def test_lint_accepts_an_entry_a_catalogue_or_an_iterable() -> None:
    catalogue = Catalogue()

    @tool(catalogue=catalogue)
    def ping() -> str:
        return "pong"

    entry = catalogue.get("ping")
    assert entry is not None
    assert lint(catalogue) == lint(entry) == lint([entry]) == lint(iter([entry]))
    assert {f.tool for f in lint(catalogue)} == {"ping"}


def test_finding_has_a_compact_one_line_form_and_round_trips_through_json() -> None:
    finding = lint(entry_for(place_card, name="place.card"))[0]
    line = str(finding)
    assert "\n" not in line
    assert line.startswith("MCP002 warning place.card: ")
    assert " → " in line and finding.fix in line
    assert Finding.from_json(json.loads(json.dumps(finding.to_json()))) == finding
    nested = Finding("MCP020", "warning", "t", "m", "f", field="cards[].x")
    assert str(nested) == "MCP020 warning t [cards[].x]: m → f"
    assert format_findings([finding, nested]).splitlines() == [line, str(nested)]
    assert format_findings([]) == ""


def test_rules_can_be_ignored_by_id_or_name() -> None:
    def tiny() -> None:
        """Short."""

    entry = entry_for(tiny)
    assert "MCP011" in rules_of(entry)
    assert "MCP011" not in rules_of(entry, ignore=["MCP011"])
    assert "MCP011" not in rules_of(entry, ignore=["description-short"])


def test_every_rule_has_a_stable_id_a_severity_and_messages_in_both_languages() -> None:
    for rule_id, rule in RULES.items():
        assert rule.id == rule_id and rule.severity in ("error", "warning", "info")
        for key in (f"lint.{rule_id}", f"lint.{rule_id}.fix"):
            english, korean = catalogue("en")[key], catalogue("ko")[key]
            assert fields_of(english) == fields_of(korean), key
            assert any("\uac00" <= ch <= "\ud7a3" for ch in korean), key
    assert len({rule.name for rule in RULES.values()}) == len(RULES)


def test_messages_follow_the_language() -> None:
    def tiny() -> None:
        """Short."""

    set_language("ko")
    finding = next(f for f in lint(entry_for(tiny)) if f.rule == "MCP011")
    assert "설명이 6자뿐입니다" in finding.message
    assert "한두 문장으로" in finding.fix


# -- names -------------------------------------------------------------------------------------------------


def test_mcp001_a_name_outside_the_spec_is_an_error() -> None:
    entry = dataclasses.replace(good_entry(), name="place card!")  # make_entry itself refuses such names
    [finding] = [f for f in lint(entry) if f.rule == "MCP001"]
    assert finding.severity == "error"
    assert "place_card" in finding.fix
    assert "MCP001" not in rules_of(good_entry())


def test_mcp002_dots_are_valid_but_some_clients_refuse_them() -> None:
    [finding] = [f for f in lint(good_entry(name="cards.place")) if f.rule == "MCP002"]
    assert finding.severity == "warning" and "'.'" in finding.message
    assert "cards_place" in finding.fix
    assert "MCP002" not in rules_of(good_entry(name="cards_place-1"))


def test_mcp003_names_over_64_characters() -> None:
    assert "MCP003" in rules_of(good_entry(name="p" * 65))
    assert "MCP004" not in rules_of(good_entry(name="p" * 65))  # one finding per problem


def test_mcp004_no_room_for_a_client_prefix() -> None:
    # 64 - len("mcp__") - 16 (assumed server name) - len("__") = 41
    [finding] = [f for f in lint(good_entry(name="p" * 42)) if f.rule == "MCP004"]
    assert "16" in finding.message and "41" in finding.fix
    assert "MCP004" not in rules_of(good_entry(name="p" * 41))


# -- descriptions ------------------------------------------------------------------------------------------


def test_mcp010_missing_description() -> None:
    def bare() -> None:
        pass

    assert rules_of(entry_for(bare)) == ["MCP010"]  # the when-rules stay quiet: one fix covers them


def test_mcp011_very_short_description() -> None:
    assert "MCP011" in rules_of(good_entry(description="Place a card."))
    assert "MCP011" not in rules_of(good_entry())


@pytest.mark.parametrize(
    "description",
    [
        "Use when the user wants one card placed on the board.",
        "Places a card. Call this after board_create has made the board.",
        "사용자가 카드 한 장을 놓아 달라고 할 때 사용하세요.",
    ],
)
def test_mcp012_quiet_when_the_description_says_when(description: str) -> None:
    assert "MCP012" not in rules_of(good_entry(description=description))


def test_mcp012_description_without_when_to_use() -> None:
    assert "MCP012" in rules_of(good_entry(description="Places one card on a board at a grid cell."))
    assert "MCP012" in rules_of(good_entry(description="보드의 격자 칸에 카드 한 장을 놓습니다."))


def similar_pair(first: str, second: str) -> list[ToolEntry]:
    def create() -> None:
        pass

    def append() -> None:
        pass

    return [
        entry_for(create, name="card_create", description=first),
        entry_for(append, name="card_append", description=second),
    ]


def test_mcp013_similar_tools_need_when_not_to_use() -> None:
    pair = similar_pair(
        "Add a card to the board. Use when the user asks for a card.",
        "Add several cards to the board in one call. Use when the user asks for many cards.",
    )
    findings = [f for f in lint(pair) if f.rule == "MCP013"]
    assert [f.tool for f in findings] == ["card_create", "card_append"]
    assert "card_append" in findings[0].message and "card_append" in findings[0].fix


@pytest.mark.parametrize(
    "boundary",
    [
        "Not for many cards: use the batch tool.",
        "For many cards use card_append.",
        "여러 장은 대신 다른 도구를 쓰세요.",
    ],
)
def test_mcp013_quiet_with_a_boundary_or_the_other_tools_name(boundary: str) -> None:
    pair = similar_pair(
        f"Add a card to the board. Use when the user asks for a card. {boundary}",
        "Add several cards to the board in one call. Use when the user asks for many cards.",
    )
    assert [f.tool for f in lint(pair) if f.rule == "MCP013"] == ["card_append"]


def test_mcp013_unrelated_tools_are_not_similar() -> None:
    def search() -> None:
        pass

    def cancel() -> None:
        pass

    tools = [
        entry_for(search, name="orders_search", description="Search orders by customer. Use when asked."),
        entry_for(cancel, name="orders_cancel", description="Cancel an unpaid order. Use when asked."),
        entry_for(search, name="get_user", description="Get a user by id. Use when asked about a user."),
    ]
    assert "MCP013" not in rules_of(tools)


def test_mcp013_among_compares_without_linting_the_others() -> None:
    create, append = similar_pair(
        "Add a card to the board. Use when the user asks for a card.",
        "Add several cards to the board in one call. Use when the user asks for many cards.",
    )
    findings = lint(create, among=[append, create])
    assert {f.tool for f in findings} == {"card_create"}
    assert "MCP013" in [f.rule for f in findings]
    assert "MCP013" not in rules_of(create)


# -- parameters --------------------------------------------------------------------------------------------


def test_mcp020_parameter_without_description() -> None:
    def place(
        board_id: Annotated[str, annotated_types.MaxLen(9)], col: Annotated[int, "Column."] = 0
    ) -> None:
        """Place a card. Use when asked."""

    findings = [f for f in lint(entry_for(place)) if f.rule == "MCP020"]
    assert [f.field for f in findings] == ["board_id"]
    assert "'board_id'" in findings[0].message


def test_mcp021_more_than_six_parameters() -> None:
    def wide(a: bool, b: bool, c: bool, d: bool, e: bool, f: bool, g: bool) -> None:
        """Too wide. Use when asked."""

    def six(a: bool, b: bool, c: bool, d: bool, e: bool, f: bool, idempotency_key: str) -> None:
        """Six and a key. Use when asked."""

    [finding] = [f for f in lint(entry_for(wide)) if f.rule == "MCP021"]
    assert "7" in finding.message
    assert "MCP021" not in rules_of(entry_for(six))  # the idempotency key is not the model's burden


def test_mcp022_free_strings_whose_names_suggest_a_closed_set() -> None:
    def filters(
        status: str,
        sortOrder: str,  # camelCase on purpose
        statuses: list[str],
        order_id: str,
        unit: Annotated[str, annotated_types.MaxLen(3)],
        mode: Literal["fast", "slow"],
    ) -> None:
        """Filter things. Use when asked."""

    flagged = [f.field for f in lint(entry_for(filters)) if f.rule == "MCP022"]
    assert flagged == ["status", "sortOrder", "statuses[]"]


def test_mcp023_numbers_without_bounds() -> None:
    def sized(
        count: int,
        ratio: Annotated[float, annotated_types.Ge(0)],
        col: Annotated[int, annotated_types.Interval(ge=0, lt=12)],
        level: Literal[1, 2, 3],
    ) -> None:
        """Sized things. Use when asked."""

    findings = {f.field: f for f in lint(entry_for(sized)) if f.rule == "MCP023"}
    assert set(findings) == {"count", "ratio"}
    assert findings["count"].severity == "info"
    assert "minimum/maximum" in findings["count"].message
    assert "no maximum" in findings["ratio"].message


class Meta(TypedDict):
    tags: dict[str, Any]
    weights: dict[str, float]


def test_mcp024_open_objects_at_any_depth() -> None:
    def store(
        payload: dict[str, Any], items: list[dict[str, Any]], meta: Meta, counts: dict[str, int]
    ) -> None:
        """Store things. Use when asked."""

    flagged = [f.field for f in lint(entry_for(store)) if f.rule == "MCP024"]
    assert flagged == ["payload", "items[]", "meta.tags"]


def test_mcp024_an_open_arguments_object() -> None:
    entry = good_entry()
    opened = dataclasses.replace(entry, input_schema={**entry.input_schema, "additionalProperties": True})
    [finding] = [f for f in lint(opened) if f.rule == "MCP024"]
    assert finding.field is None and "inputSchema" in finding.message


class Box(TypedDict):
    left: int
    top: int
    width: int
    height: int


def test_mcp025_pixel_coordinates() -> None:
    def card_create(x: int, y: int, w: int, h: int) -> None:
        """Place a card. Use when asked."""

    def add(x: int, y: int) -> int:
        """Add two numbers. Use when asked."""
        return x + y

    def boxes(items: list[Box], offset_px: int) -> None:
        """Draw boxes. Use when asked."""

    [finding] = [f for f in lint(entry_for(card_create)) if f.rule == "MCP025"]
    assert finding.field is None and "x, y, w, h" in finding.message and "col" in finding.fix
    assert "MCP025" not in rules_of(entry_for(add))  # a position alone is not a layout
    assert [f.field for f in lint(entry_for(boxes)) if f.rule == "MCP025"] == [None, "items[]"]


def test_mcp050_secret_looking_parameters() -> None:
    def login(user: str, password: str, apiKey: str, page_token: str, max_tokens: int) -> None:
        """Log in. Use when asked."""

    flagged = [f.field for f in lint(entry_for(login)) if f.rule == "MCP050"]
    assert flagged == ["password", "apiKey"]


# -- behaviour ---------------------------------------------------------------------------------------------


def test_mcp030_mutating_tool_without_idempotency() -> None:
    def change() -> None:
        """Change a thing. Use when asked."""

    def change_once(idempotency_key: Annotated[str, "Retry key."]) -> None:
        """Change a thing once. Use when asked."""

    assert "MCP030" in rules_of(make_entry(change))
    assert "MCP030" not in rules_of(make_entry(change, read_only=True))
    assert "MCP030" not in rules_of(make_entry(change, idempotent=True))
    assert "MCP030" not in rules_of(make_entry(change_once))


def test_mcp031_destructive_tool_not_behind_approval() -> None:
    entry = good_entry(destructive=True)
    [finding] = [f for f in lint(entry) if f.rule == "MCP031"]
    assert 'approval="always"' in finding.fix
    assert "MCP031" not in rules_of(good_entry(destructive=True, approval="always"))
    assert "MCP031" in rules_of(good_entry(destructive=True, approval="never"))


def test_mcp032_read_only_and_destructive_is_an_error() -> None:
    entry = dataclasses.replace(good_entry(), annotations={"readOnlyHint": True, "destructiveHint": True})
    [finding] = [f for f in lint(entry) if f.rule == "MCP032"]
    assert finding.severity == "error"
    assert "MCP031" not in rules_of(entry)  # the contradiction comes first


def test_mcp040_structured_return_without_output_schema() -> None:
    def totals() -> dict[str, int]:
        """Totals per shop. Use when asked."""
        return {}

    [finding] = [f for f in lint(entry_for(totals, output_schema=False)) if f.rule == "MCP040"]
    assert "dict[str, int]" in finding.message
    assert "MCP040" not in rules_of(entry_for(totals))


def test_mcp040_ignores_text_returns() -> None:
    def hello() -> str:
        """Greets. Use when asked."""
        return "hi"

    assert "MCP040" not in rules_of(entry_for(hello, output_schema=False))


def test_mcp041_a_bare_dict_output_schema() -> None:
    def anything() -> dict:  # type: ignore[type-arg]  # the bare dict is the point
        """Anything. Use when asked."""
        return {}

    assert "MCP041" in rules_of(entry_for(anything))
    assert "MCP041" not in rules_of(good_entry())


async def _slow_async(seconds: float) -> str:
    """Wait, blocking the loop. Use when asked to wait."""
    time.sleep(seconds)
    subprocess.run(["true"], check=False)
    return "done"


async def _napping(seconds: float) -> str:
    """Wait, blocking the loop through an alias. Use when asked to wait."""
    nap(seconds)
    return "done"


async def _polite(seconds: float) -> str:
    """Wait without blocking. Use when asked to wait."""
    await asyncio.sleep(seconds)
    await asyncio.to_thread(time.sleep, seconds)  # handed to a thread on purpose

    def helper() -> None:
        time.sleep(seconds)  # runs wherever the helper is sent, not here

    await asyncio.to_thread(helper)
    return "done"


def _sync_sleeper(seconds: float) -> str:
    """Wait on a worker thread. Use when asked to wait."""
    time.sleep(seconds)
    return "done"


def test_mcp060_an_async_tool_that_blocks_the_loop() -> None:
    blocking = [f for f in lint(entry_for(_slow_async)) if f.rule == "MCP060"]
    assert len(blocking) == 1 and blocking[0].severity == "warning"
    assert "time.sleep, subprocess.run" in blocking[0].message
    assert "asyncio.to_thread(time.sleep" in blocking[0].fix and "plain def" in blocking[0].fix
    assert "MCP060" in rules_of(entry_for(_napping))  # found through `from time import sleep as nap`
    assert "MCP060" not in rules_of(entry_for(_polite))
    assert "MCP060" not in rules_of(entry_for(_sync_sleeper))  # a plain def runs on a worker thread


def _train(epochs: int, ctx: Context) -> str:
    """Train for `epochs` epochs. Use when asked to train."""
    for epoch in range(epochs):
        ctx.progress(epoch, total=epochs)
    return "trained"


def _one_report(ctx: Context) -> str:
    """Report once and answer. Use when asked to."""
    ctx.progress(0, total=1)
    return "done"


def test_mcp061_a_tool_that_reports_progress_in_a_loop_without_task_support() -> None:
    advice = [f for f in lint(entry_for(_train)) if f.rule == "MCP061"]
    assert len(advice) == 1 and advice[0].severity == "info"
    assert "ctx.progress" in advice[0].message and "60 s" in advice[0].message
    assert 'task="optional"' in advice[0].fix
    assert "MCP061" not in rules_of(entry_for(_train, task="optional"))  # it can run as a task
    assert "MCP061" not in rules_of(entry_for(_one_report))  # one report: not a long loop


# -- notebooks ---------------------------------------------------------------------------------------------


def write_notebook(path: Path, *cells: str | tuple[str, list[str]]) -> Path:
    notebook = nbformat.v4.new_notebook()  # type: ignore[no-untyped-call]
    for cell in cells:
        source, tags = (cell, []) if isinstance(cell, str) else cell
        notebook.cells.append(nbformat.v4.new_code_cell(source, metadata={"tags": tags}))  # type: ignore[no-untyped-call]
    nbformat.write(notebook, path)  # type: ignore[no-untyped-call]
    return path


BAD_TOOL = '''
from mcp_notebook import tool

@tool(idempotent=True)
def card_create(x: int, y: int, w: int, h: int) -> None:
    """Add a card to the board. Use when the user asks for one."""
'''


@pytest.mark.kernel
def test_lint_notebook_runs_the_notebook_and_returns_the_findings(tmp_path: Path) -> None:
    path = write_notebook(
        tmp_path / "tools.ipynb",
        BAD_TOOL,
        ("raise RuntimeError('tagged skip-lint: must not run')", ["skip-lint"]),
        "# mcp: skip\nraise RuntimeError('marked # mcp: skip: must not run')",
    )
    set_language("ko")
    findings = lint_notebook(path)
    pixel = [f for f in findings if f.rule == "MCP025"]
    assert [f.tool for f in pixel] == ["card_create"]
    assert "픽셀" in pixel[0].message  # linted in the caller's language


@pytest.mark.kernel
def test_main_lint_reports_a_failing_cell_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_notebook(tmp_path / "broken.ipynb", "x = 1", "raise ValueError('boom')")
    assert main_lint([str(path)]) == 2
    err = capsys.readouterr().err
    assert "cell 2" in err and "ValueError: boom" in err and "skip-lint" in err


def test_main_lint_exit_status_and_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    warning = Finding("MCP025", "warning", "card_create", "pixels", "use a grid")
    error = Finding("MCP001", "error", "bad name", "invalid", "rename")
    results: dict[str, list[Finding]] = {"warn.ipynb": [warning], "err.ipynb": [error, warning]}

    def fake_run_lint(path: str, **_: Any) -> tuple[list[Finding], int]:
        return results[path], 1

    monkeypatch.setattr(lint_notebook_module, "run_lint", fake_run_lint)
    assert main_lint(["warn.ipynb"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"warn.ipynb: {warning}", "warn.ipynb: 1 tools checked: 0 errors, 1 warnings, 0 notes."]
    assert main_lint(["warn.ipynb", "--fail-on", "warning"]) == 1
    assert main_lint(["warn.ipynb", "err.ipynb"]) == 1


def test_cells_tagged_or_marked_skip_are_not_run() -> None:
    def cell(source: str, tags: list[str] | None = None, kind: str = "code") -> dict[str, Any]:
        return {"cell_type": kind, "source": source, "metadata": {"tags": tags or []}}

    runs = lint_notebook_module._runs
    assert runs(cell("x = 1"))
    assert not runs(cell("x = 1", ["skip-lint"]))
    assert not runs(cell("\n# mcp: skip\nx = 1"))
    assert not runs(cell("#MCP:skip because it serves\nx = 1"))
    assert runs(cell("x = 1\n# mcp: skip"))  # only the first line counts
    assert not runs(cell("# Title", kind="markdown"))


def test_a_kernel_without_a_report_is_a_clear_error() -> None:
    cell: dict[str, Any] = {"outputs": [{"output_type": "stream", "text": "no marker here\n"}]}
    assert lint_notebook_module._report(cell) is None
