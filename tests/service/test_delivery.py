"""An exported app's audit log says what the client got, under stock uvicorn and gunicorn.

The app is the one ``mcp-notebook export`` writes, served by the server's own HTTP stack (no
connection class of ours). A raw socket client asks for a multi-megabyte result, reads the response's
head and hangs up: the call's audit line says it was not delivered. A client that reads the whole
answer is on record as delivered. Both eras, each answered as the app chooses (JSON or SSE).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import nbformat
import pytest

from mcp_notebook.cli._export import export_notebook
from mcp_notebook.server._audit import AuditLog
from tests.conftest import until
from tests.exported import CLIENTS, service_environ, token_of
from tests.services import Replica
from tests.wire import WIRE_ERAS, Wire, answer

SIZE = (
    8_000_000  # far more than the sockets of both ends buffer: the rest cannot leave once the client is gone
)

CELLS = [
    "from mcp_notebook import tool",
    f'''@tool(read_only=True)
def big(tag: str) -> str:
    """A large text."""
    return tag + "x" * {SIZE}''',
]


@pytest.fixture(
    params=[("uvicorn", 1), ("uvicorn", 2), ("gunicorn", 1)], ids=["uvicorn", "uvicorn-workers", "gunicorn"]
)
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    server, workers = request.param
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in CELLS])
    nbformat.write(notebook, tmp_path / "big.ipynb")
    (tmp_path / "app.py").write_text(export_notebook(tmp_path / "big.ipynb"), encoding="utf-8")
    audit = tmp_path / "audit.jsonl"
    environ = service_environ(
        tmp_path,
        f"sqlite:///{tmp_path / 'state.sqlite3'}",
        MCP_NOTEBOOK_AUDIT_LOG=str(audit),
        MCP_NOTEBOOK_RESULT_LIMIT=str(4 * SIZE),
        MCP_NOTEBOOK_MAX_OUTPUT_CHARS=str(4 * SIZE),
        MCP_NOTEBOOK_ALLOW_TOOLS="",
    )
    replica = Replica(tmp_path, environ, workers=workers, server=server)
    try:
        # What `tests.wire.Wire` needs of a server: where it is and a token it accepts.
        yield SimpleNamespace(url=replica.url, port=replica.port, token=token_of(CLIENTS[0]), audit=audit)
    finally:
        replica.stop()


def audited(srv: Any, tag: str) -> dict[str, Any] | None:
    if not srv.audit.exists():
        return None
    return next((line for line in AuditLog.read(srv.audit) if line["arguments"].get("tag") == tag), None)


def hang_up_after_the_head(srv: Any, wire: Wire, tag: str) -> bytes:
    """POST a call of `big`, read the response's head, and hang up with its body unread."""
    body = json.dumps(wire.message("tools/call", {"name": "big", "arguments": {"tag": tag}})).encode()
    headers = {
        **wire.http.headers,
        **wire.headers("tools/call", "big"),
        "Host": f"127.0.0.1:{srv.port}",
        "Content-Length": str(len(body)),
    }
    with socket.create_connection(("127.0.0.1", srv.port), timeout=60) as raw:
        head = "".join(f"{key}: {value}\r\n" for key, value in headers.items())
        raw.sendall(f"POST /mcp HTTP/1.1\r\n{head}\r\n".encode() + body)
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = raw.recv(4096)
            assert chunk, received
            received += chunk
    # Closed with most of the body unread: the operating system resets the connection.
    return received


@pytest.mark.replicas
def test_an_answer_cut_mid_body_is_audited_as_not_delivered(served: Any) -> None:
    for era in WIRE_ERAS:
        wire = Wire(served, era)
        try:
            cut, whole = f"cut-{era}", f"whole-{era}"
            assert hang_up_after_the_head(served, wire, cut).startswith(b"HTTP/1.1 200")
            assert until(lambda: audited(served, cut) is not None, timeout=60), era  # noqa: B023
            line = audited(served, cut)
            assert line is not None
            assert line["delivered"] is False, (era, line)
            assert line["outcome"] != "ok" and "not delivered" in line["outcome"]
            # The app goes on serving, and a client that reads the whole answer is on record as served.
            got = answer(wire.send("tools/call", {"name": "big", "arguments": {"tag": whole}}, "big"))
            assert got["result"]["content"][0]["text"].startswith(whole)
            assert until(lambda: audited(served, whole) is not None, timeout=60), era  # noqa: B023
            line = audited(served, whole)
            assert line is not None
            assert (line["outcome"], line["delivered"]) == ("ok", True), (era, line)
        finally:
            wire.close()
