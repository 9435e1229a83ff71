"""The class's progress service, run as the hub runs it: it stops when the hub stops it.

JupyterHub stops a service with SIGINT and, 10 s later, SIGTERM. A hub started where SIGINT is
ignored (a background job of a shell without job control) passes that on to the service it starts:
the service sets its own handlers, so either signal ends it at once, its records closed, with no
traceback in the hub's log.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.services import ROOT, free_port


def start_service(folder: Path, port: int) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{port}",
        "JUPYTERHUB_SERVICE_PREFIX": "/services/mcp-progress/",
        "JUPYTERHUB_API_TOKEN": "service-token-" + "s" * 24,
        "MCP_NOTEBOOK_PROGRESS_DB": str(folder / "progress.sqlite3"),
        "MCP_NOTEBOOK_LANG": "en",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "mcp_notebook.jupyter.progress_service"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # As under a hub started as a background job: SIGINT ignored from the start.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_progress_service_stops_at_once_on_the_hubs_signal(tmp_path: Path, signum: int) -> None:
    port = free_port()
    service = start_service(tmp_path, port)
    try:
        assert service.stderr is not None
        serving = f"serving on http://127.0.0.1:{port}/services/mcp-progress/"
        lines = [service.stderr.readline()]  # logged once it listens: the hub's log says where
        while lines[-1] and serving not in lines[-1]:
            lines.append(service.stderr.readline())
        assert serving in lines[-1], lines
        service.send_signal(signum)
        _, rest = service.communicate(timeout=10)  # the hub would wait 10 s before its next signal
    finally:
        if service.poll() is None:
            service.kill()
            service.wait(10)
    assert service.returncode == 0, rest
    assert "Traceback" not in rest, rest
    assert "stopped; the records are kept in" in rest
    with sqlite3.connect(tmp_path / "progress.sqlite3") as db:  # whole, and readable by the next start
        assert db.execute("SELECT count(*) FROM records").fetchone() == (0,)
