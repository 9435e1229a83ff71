"""The `mcp-notebook` command line: its subcommands and their help."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

import mcp_notebook.linter._notebook
from mcp_notebook.cli import main


def test_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("serve", "bridge", "config", "check", "lint", "version"):
        assert command in out


def test_serve_help_documents_skipping_cells_and_the_token(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    assert "mcp-skip" in out and "# mcp: skip" in out and "raises-exception" in out
    assert "MCP_NOTEBOOK_TOKEN" in out and "stderr" in out


def test_serve_help_documents_client_tokens_and_the_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--client NAME" in out and "--clients-file" in out and "only you can read" in out
    assert "claim" in out and "--name" in out and "idempotency keys" in out


def test_lint_hands_its_arguments_to_the_linter(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []

    def fake_main_lint(argv: list[str]) -> int:
        seen.append(argv)
        return 3

    monkeypatch.setattr(mcp_notebook.linter._notebook, "main_lint", fake_main_lint)
    assert main(["lint", "a.ipynb", "--fail-on", "warning"]) == 3
    assert seen == [["a.ipynb", "--fail-on", "warning"]]


def test_console_entry_runs_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcp_notebook.cli", "version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.startswith("mcp-notebook ")
