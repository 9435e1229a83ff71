"""An exported app's audit log, bounded by its environment and shared by its worker processes.

``MCP_NOTEBOOK_AUDIT_MAX_BYTES`` and ``MCP_NOTEBOOK_AUDIT_KEEP`` bound the file; two uvicorn workers
append to it and rotate it while clients of both eras call: every call is on record exactly once.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import anyio
import nbformat
import pytest

from mcp_notebook.cli._export import export_notebook
from mcp_notebook.server._service_config import ServiceConfigError, load_config
from tests.exported import CLIENTS, connect, service_environ
from tests.services import Replica

CELLS = [
    "import os\nfrom mcp_notebook import tool",
    '''@tool(read_only=True)
def echo(n: int, caller: str) -> dict:
    """Say n back, with the worker that answered."""
    return {"n": n, "caller": caller, "pid": os.getpid()}''',
]

TOKEN = {"MCP_NOTEBOOK_TOKEN": "o" * 32}


def test_the_environment_sets_the_audit_limits() -> None:
    config = load_config(
        {}, environ={**TOKEN, "MCP_NOTEBOOK_AUDIT_MAX_BYTES": "1048576", "MCP_NOTEBOOK_AUDIT_KEEP": "12"}
    )
    assert (config.server.audit_max_bytes, config.server.audit_keep) == (1_048_576, 12)
    assert load_config({}, environ=TOKEN).server.audit_max_bytes == 50 * 1024 * 1024


def test_the_config_file_sets_the_audit_limits(tmp_path: Path) -> None:
    config = tmp_path / "app.toml"
    config.write_text("[log]\naudit_max_bytes = 2048\naudit_keep = 3\n", encoding="utf-8")
    server = load_config({}, config=config, environ=TOKEN).server
    assert (server.audit_max_bytes, server.audit_keep) == (2048, 3)


@pytest.mark.parametrize("variable", ["MCP_NOTEBOOK_AUDIT_MAX_BYTES", "MCP_NOTEBOOK_AUDIT_KEEP"])
def test_a_limit_that_is_not_a_count_is_refused_naming_the_variable(variable: str) -> None:
    with pytest.raises(ServiceConfigError) as refused:
        load_config({}, environ={**TOKEN, variable: "50MB"})
    assert variable in str(refused.value)
    assert f"{variable}=" in str(refused.value)  # the example, written as the variable takes it


@pytest.mark.replicas
@pytest.mark.anyio
async def test_two_workers_share_a_rotating_audit_log_with_every_call_on_record_once(tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in CELLS])
    nbformat.write(notebook, tmp_path / "echo.ipynb")
    (tmp_path / "app.py").write_text(export_notebook(tmp_path / "echo.ipynb"), encoding="utf-8")
    audit = tmp_path / "logs" / "audit.jsonl"
    environ = service_environ(
        tmp_path,
        f"sqlite:///{tmp_path / 'state.sqlite3'}",
        MCP_NOTEBOOK_AUDIT_LOG=str(audit),
        MCP_NOTEBOOK_AUDIT_MAX_BYTES="8000",
        MCP_NOTEBOOK_AUDIT_KEEP="10000",
        MCP_NOTEBOOK_ALLOW_TOOLS="",
    )
    callers = CLIENTS[:6]
    calls = 120
    pids: set[int] = set()
    replica = Replica(tmp_path, environ, workers=2)
    try:

        async def calling(caller: str, mode: str) -> None:
            # A fresh connection every 20 calls: the port's workers take turns answering.
            for first in range(0, calls, 20):
                async with connect(replica.url, caller, mode) as client:
                    for n in range(first, first + 20):
                        result = await client.call_tool("echo", {"n": n, "caller": caller})
                        assert result.is_error is False, result
                        pids.add(int(result.structured_content["pid"]))  # type: ignore[index]

        async with anyio.create_task_group() as group:
            for index, caller in enumerate(callers):
                group.start_soon(calling, caller, "legacy" if index % 2 else "2026-07-28")
    finally:
        replica.stop()
    assert len(pids) == 2  # both workers answered, so both wrote the file
    files = sorted(found for found in audit.parent.iterdir() if not found.name.endswith(".lock"))
    assert len(files) > 10  # rotated, many times
    seen: Counter[tuple[str, int]] = Counter()
    for found in files:
        assert found.stat().st_mode & 0o077 == 0  # owner-only, rotated files too
        for line in found.read_text(encoding="utf-8").split("\n"):
            if line:
                entry = json.loads(line)  # a torn line fails here
                if entry["tool"] == "echo":
                    assert entry["outcome"] == "ok"
                    seen[(entry["arguments"]["caller"], entry["arguments"]["n"])] += 1
    assert set(seen) == {(caller, n) for caller in callers for n in range(calls)}
    assert max(seen.values()) == 1
