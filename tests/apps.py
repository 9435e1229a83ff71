"""The MCP Apps server nobody here wrote (``tests/servers/apps.py``, the SDK's own Apps extension),
started over stdio or Streamable HTTP for the tests of the notebook as an Apps host."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

SERVER = Path(__file__).parent / "servers" / "apps.py"
STDIO = f'"{sys.executable}" "{SERVER}"'
"""The stdio command line of the server (``call(..., stdio=STDIO)``)."""


@contextlib.contextmanager
def apps_over_http() -> Iterator[str]:
    """The server over Streamable HTTP on a port the OS picks: its MCP endpoint's URL."""
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "--http"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # the server prints its port before it serves
        assert line.startswith("PORT "), line
        yield f"http://127.0.0.1:{line.split()[1]}/mcp"
    finally:
        process.terminate()
        process.wait(10)
        if process.stdout is not None:
            process.stdout.close()
