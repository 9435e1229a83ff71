"""Chapter 09, the capstone: a server over the bike-station dataset shipped with the lessons. Each part
is checked through the real server; the whole-server check says which part is missing, in Korean and
English; every model answer passes the linter with no finding."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, lint, set_language
from mcp_notebook.lessons import _content, ch09

NUMBERS = ("racks", "bikes", "kids")
ROOT = Path(__file__).resolve().parents[2]


def stations() -> dict[str, dict[str, Any]]:
    with ch09.STATIONS_CSV.open(encoding="utf-8") as file:
        return {
            row["station_id"]: {**row, **{k: int(row[k]) for k in NUMBERS}} for row in csv.DictReader(file)
        }


def test_the_dataset_ships_with_the_package_and_is_what_the_exercises_expect() -> None:
    rows = stations()
    assert len(rows) == 14
    assert {r["district_ko"] for r in rows.values()} == {"영등포구", "광진구", "종로구", "마포구"}
    assert sum(r["district_en"] == "Mapo-gu" for r in rows.values()) == 4  # q1's probe
    assert rows["ST-1044"]["bikes"] == 0  # q2's "no bike left" probe
    assert sorted(k for k in rows if k.startswith("ST-10")) == ["ST-1043", "ST-1044", "ST-1051", "ST-1088"]
    assert rows["ST-1043"]["racks"] == 20 and rows["ST-3160"]["district_ko"] == "마포구"  # q3's reads


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


PRELUDE = (
    "from typing import Annotated, Literal\nfrom mcp_notebook import ToolError, prompt, resource, tool\n"
)


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_whole_server_check_names_each_missing_part_then_accepts_the_model_answers(
    notebook: InteractiveShell, language: str
) -> None:
    set_language(language)  # type: ignore[arg-type]
    given = _content.chapter_data("09")["q1"]["given"]
    run(notebook, PRELUDE + given)
    assert ch09.q5.check().kind == "not_attempted"
    run(notebook, ch09.q1.solution_code())
    shown = repr(ch09.q5.check())
    missing = {"ko": "아직 없습니다", "en": "not there yet"}[language]
    for part in ("q2", "q3", "q4"):
        assert f"{part}(" in shown.replace(" (", "(") and missing in shown, shown
    assert "q1(" not in shown.replace(" (", "(")
    for name in ("q2", "q3", "q4"):
        run(notebook, getattr(ch09, name).solution_code())
    feedback = ch09.q5.check()
    assert feedback.correct, repr(feedback)
    assert {"ko": "진짜 클라이언트를 연결할 차례", "en": "ready for a real client"}[language] in repr(
        feedback
    )


def test_a_reservation_tool_without_approval_is_refused_and_told_how_to_fix_it(
    notebook: InteractiveShell,
) -> None:
    run(notebook, PRELUDE + _content.chapter_data("09")["q2"]["given"])
    code = ch09.q2.solution_code().replace('approval="always", ', "")
    run(notebook, code)
    shown = repr(ch09.q2.check())
    assert "아무에게도 묻지 않고 실행됩니다" in shown and 'approval="always"' in shown


@pytest.mark.parametrize("language", ["ko", "en"])
@pytest.mark.parametrize("name", ["q1", "q2"])
def test_each_tool_model_answer_passes_the_linter_without_a_finding(
    name: str, language: str, catalogue: Catalogue
) -> None:
    set_language(language)  # type: ignore[arg-type]
    exercise = getattr(ch09, name)
    namespace: dict[str, Any] = {"STATIONS": stations(), "catalogue": catalogue}
    code = exercise.solution_code().replace("@tool(", "@tool(catalogue=catalogue, ")
    exec(f"from mcp_notebook import ToolError, tool\n{code}", namespace)
    entry = catalogue.get(exercise.tool)
    assert entry is not None
    assert list(lint(entry)) == []


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_model_answers_together_pass_the_linter_with_the_cross_tool_rules(
    language: str, catalogue: Catalogue
) -> None:
    set_language(language)  # type: ignore[arg-type]
    namespace: dict[str, Any] = {"STATIONS": stations(), "catalogue": catalogue}
    for exercise in (ch09.q1, ch09.q2):
        code = exercise.solution_code().replace("@tool(", "@tool(catalogue=catalogue, ")
        exec(f"from mcp_notebook import ToolError, tool\n{code}", namespace)
    assert sorted(e.name for e in catalogue.tools()) == ["find_stations", "reserve_bike"]
    assert lint(catalogue) == []


@pytest.mark.kernel
@pytest.mark.timeout(300)
def test_the_notebook_shows_its_panel_and_writes_the_inspector_configuration_for_the_owner_only(
    tmp_path: Path,
) -> None:
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(ROOT / "notebooks" / "en" / "09_capstone.ipynb", as_version=4)
    # Left from before with wider permissions and another token: narrowed and replaced.
    written = tmp_path / "notebook-mcp.json"
    written.write_text('{"old": true}')
    written.chmod(0o644)
    NotebookClient(notebook, timeout=120, resources={"metadata": {"path": str(tmp_path)}}).execute()

    shown = [
        output.get("data", {}).get("text/plain", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    ]
    assert any(text.startswith("<MCP server panel: http://127.0.0.1:") for text in shown)
    assert written.stat().st_mode & 0o777 == 0o600
    server = json.loads(written.read_text())["mcpServers"]["notebook"]
    assert server["url"].startswith("http://127.0.0.1:") and server["url"].endswith("/mcp")
    token = server["headers"]["Authorization"].removeprefix("Bearer ")
    assert len(token) >= 32 and token != "<token>"  # the real token of inspector, only in the file
    assert not any(token in text for text in shown)
