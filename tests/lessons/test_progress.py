"""Exercise checks are recorded for the learner (and, on a hub, the instructor): what, never the answer."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_notebook.lessons import progress_path, read_progress, record_progress
from mcp_notebook.lessons.ch00 import q4


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("MCP_NOTEBOOK_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("MCP_NOTEBOOK_PROGRESS", raising=False)
    monkeypatch.delenv("MCP_NOTEBOOK_PROGRESS_URL", raising=False)
    record_progress(None)  # as the environment says
    yield tmp_path
    record_progress(None)


def test_each_judged_check_is_recorded_without_the_answer(own_data_dir: Path) -> None:
    q4.check("tools/call")
    q4.check("tools/list")
    q4.check("")  # nothing to judge: not an attempt, not recorded
    records = read_progress()
    assert [(r["chapter"], r["exercise"], r["outcome"], r["attempts"]) for r in records] == [
        ("00", "q4", "incorrect", 1),
        ("00", "q4", "correct", 2),
    ]
    assert all(r["time"].endswith("Z") for r in records)
    text = progress_path().read_text()
    assert "tools/list" not in text and "tools/call" not in text
    assert progress_path() == own_data_dir / "progress.jsonl"
    assert stat.S_IMODE(progress_path().stat().st_mode) == 0o600


def test_the_environment_variable_opts_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_NOTEBOOK_PROGRESS", "off")
    assert record_progress() is False
    q4.check("tools/list")
    assert read_progress() == [] and not progress_path().exists()


def test_record_progress_false_opts_out_for_this_kernel() -> None:
    assert record_progress() is True
    assert record_progress(False) is False
    q4.check("tools/list")
    assert read_progress() == []
    record_progress(True)
    q4.check("tools/list")
    assert len(read_progress()) == 1


def test_a_progress_file_that_cannot_be_written_does_not_break_the_exercise(
    own_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = own_data_dir / "blocked"
    blocked.write_text("a file where the folder would go")
    monkeypatch.setenv("MCP_NOTEBOOK_DATA_DIR", str(blocked))
    assert q4.check("tools/list").correct


def test_a_class_service_that_is_down_keeps_the_records_for_later(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing listens at the service's address: the check still answers at once, the record is kept."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("MCP_NOTEBOOK_PROGRESS_URL", f"http://127.0.0.1:{port}/services/mcp-progress/")
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "x" * 32)
    from mcp_notebook.lessons import _progress

    monkeypatch.setattr(_progress, "_outbox", [])
    assert q4.check("tools/list").correct
    assert len(_progress._outbox) == 1 and json.dumps(_progress._outbox[0]).count("tools/list") == 0
    assert len(read_progress()) == 1
