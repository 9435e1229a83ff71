"""The audit log stays bounded: rotated by size, the oldest files dropped, safe with several writers.

Every kernel of a user (and every worker of an exported app) appends to one file; these tests write
it from two real processes at once, with a limit small enough to rotate many times, and read every
file back: each record is there exactly once, and every line parses.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from mcp_notebook import Catalogue, tool
from mcp_notebook.cli._headless import _serve_options
from mcp_notebook.cli._main import build_parser
from mcp_notebook.core._errors import OptionError
from mcp_notebook.ipython._magics import MCPMagics
from mcp_notebook.server._audit import AuditLog
from mcp_notebook.server._settings import ServerSettings
from tests.conftest import connect, serve_unattended

pytestmark = pytest.mark.anyio

# One process's writes: `count` records, each naming its writer and number.
WRITER = """
import sys
from mcp_notebook.server._audit import AuditLog

path, writer, count, max_bytes, keep = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
with AuditLog(path, max_bytes=max_bytes, keep=keep) as log:
    for n in range(count):
        log.record(
            client=writer, tool="echo", arguments={"n": n, "pad": "x" * (n % 50)},
            decision="auto", outcome="ok", is_error=False, duration_ms=0.1,
        )
"""


def audit_files(path: Path) -> list[Path]:
    """The log and its rotated files (not the lock file)."""
    return sorted(found for found in path.parent.iterdir() if found.name != path.name + ".lock")


def every_line(path: Path) -> list[dict[str, object]]:
    """Every line of every file, each parsed on its own (a torn line fails here)."""
    entries = []
    for found in audit_files(path):
        for line in found.read_text(encoding="utf-8").split("\n"):
            if line:
                entries.append(json.loads(line))
    return entries


def record(log: AuditLog, n: int) -> None:
    log.record(
        client="c", tool="t", arguments={"n": n}, decision="auto", outcome="ok", is_error=False, duration_ms=1
    )


def test_a_full_file_is_rotated_and_only_the_newest_files_stay_readable_by_their_owner(
    tmp_path: Path,
) -> None:
    path = tmp_path / "audit.jsonl"
    with AuditLog(path, max_bytes=2_000, keep=3) as log:
        for n in range(200):
            record(log, n)
    files = audit_files(path)
    assert [found.name for found in files] == [
        "audit.jsonl",
        "audit.jsonl.1",
        "audit.jsonl.2",
        "audit.jsonl.3",
    ]
    for found in files:
        assert found.stat().st_size <= 2_000
        assert stat.S_IMODE(found.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "audit.jsonl.lock").stat().st_mode) == 0o600
    numbers = [entry["arguments"]["n"] for entry in AuditLog.read_all(path)]  # type: ignore[index]
    # The newest calls, oldest first, none missing between the first kept and the last.
    assert numbers == list(range(numbers[0], 200))
    assert numbers[0] > 0


def test_a_line_larger_than_the_limit_is_written_whole_in_a_file_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    with AuditLog(path, max_bytes=500, keep=2) as log:
        record(log, 1)
        log.record(
            client="c", tool="t", arguments={"big": "y" * 2_000}, decision="auto", outcome="ok", is_error=False,
            duration_ms=1,
        )  # fmt: skip
        record(log, 2)
    assert [entry["arguments"].get("n") for entry in AuditLog.read_all(path)] == [1, None, 2]  # type: ignore[attr-defined]


def test_two_processes_rotating_one_file_lose_no_record_and_tear_no_line(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    count = 3_000
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), name, str(count), "20000", "10000"],
            env=environ,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("first", "second")
    ]
    for writer in writers:
        _, errors = writer.communicate(timeout=240)
        assert writer.returncode == 0, errors
    entries = every_line(path)
    seen = Counter((entry["client"], entry["arguments"]["n"]) for entry in entries)  # type: ignore[index]
    expected = {(name, n) for name in ("first", "second") for n in range(count)}
    assert set(seen) == expected
    assert max(seen.values()) == 1  # none written twice
    files = audit_files(path)
    assert len(files) > 20  # it did rotate, many times ...
    # ... while both wrote: their lines interleave within files.
    assert any(len({entry["client"] for entry in AuditLog.read(found)}) == 2 for found in files)
    assert all(found.stat().st_size <= 20_000 for found in files)


async def test_serve_rotates_its_audit_log_with_every_call_on_record(
    catalogue: Catalogue, tmp_path: Path
) -> None:
    @tool(catalogue=catalogue)
    def echo(n: int) -> str:
        """Say n back."""
        return str(n)

    path = tmp_path / "audit.jsonl"
    srv = serve_unattended(catalogue, audit_log=path, audit_max_bytes=3_000, audit_keep=100)
    try:
        for mode in ("legacy", "2026-07-28"):
            async with connect(srv, mode) as client:
                for n in range(40):
                    result = await client.call_tool("echo", {"n": n})
                    assert result.is_error is False
    finally:
        srv.stop()
    calls = [entry for entry in AuditLog.read_all(path) if entry["tool"] == "echo"]
    assert sorted(entry["arguments"]["n"] for entry in calls) == sorted(list(range(40)) * 2)
    assert all(entry["outcome"] == "ok" for entry in calls)
    assert len(audit_files(path)) > 3


@pytest.mark.parametrize("setting", ["audit_max_bytes", "audit_keep"])
@pytest.mark.parametrize("value", [0, -1, "50MB", True])
def test_a_size_or_count_that_cannot_work_is_refused_naming_the_setting(setting: str, value: object) -> None:
    with pytest.raises(OptionError) as refused:
        ServerSettings(**{setting: value})  # type: ignore[arg-type]
    assert refused.value.option == setting
    assert setting in str(refused.value)


def test_the_defaults_are_fifty_mebibytes_and_five_files() -> None:
    settings = ServerSettings()
    assert (settings.audit_max_bytes, settings.audit_keep) == (50 * 1024 * 1024, 5)


def test_the_magic_passes_the_audit_limits_on_and_leaves_them_out_when_not_given() -> None:
    from IPython.core.magic_arguments import parse_argstring

    given = vars(parse_argstring(MCPMagics.mcp_serve, "--audit-max-bytes 1000000 --audit-keep 3"))
    assert (given["audit_max_bytes"], given["audit_keep"]) == (1_000_000, 3)
    ServerSettings.of(given, "%mcp_serve")  # every option of the line is a setting
    plain = vars(parse_argstring(MCPMagics.mcp_serve, ""))
    assert "audit_max_bytes" not in plain and "audit_keep" not in plain  # serve()'s defaults


def test_the_command_passes_the_audit_limits_on() -> None:
    args = build_parser().parse_args(["serve", "nb.ipynb", "--audit-max-bytes", "4096", "--audit-keep", "2"])
    options = _serve_options(args, "nb")
    assert (options["audit_max_bytes"], options["audit_keep"]) == (4096, 2)
    plain = _serve_options(build_parser().parse_args(["serve", "nb.ipynb"]), "nb")
    assert "audit_max_bytes" not in plain


def test_the_command_refuses_a_keep_of_zero_before_a_kernel_starts() -> None:
    args = build_parser().parse_args(["serve", "nb.ipynb", "--audit-keep", "0"])
    with pytest.raises(OptionError, match="audit_keep"):
        _serve_options(args, "nb")
