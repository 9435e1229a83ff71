"""The audit log says what the client got: a response cut mid-body is not on record as ``ok``.

A raw socket client asks for a large result, reads the response's head (and a few bytes) and hangs
up; the call's audit line then says it was not delivered. A client that reads it all is on record as
delivered. Both eras, each answered as the server chooses (one JSON body or an SSE stream).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook import Catalogue, tool
from mcp_notebook.server._audit import AuditLog
from tests.conftest import serve_unattended, until
from tests.wire import WIRE_ERAS, Wire, answer

SIZE = (
    8_000_000  # far more than the sockets of both ends buffer: the rest cannot leave once the client is gone
)


@pytest.fixture
def big_server(catalogue: Catalogue, tmp_path: Path) -> Any:
    @tool(catalogue=catalogue, read_only=True)
    def big(tag: str) -> str:
        """A large text."""
        return tag + "x" * SIZE

    srv = serve_unattended(
        catalogue, audit_log=tmp_path / "audit.jsonl", result_limit=4 * SIZE, max_output_chars=4 * SIZE
    )
    srv.audit_file = tmp_path / "audit.jsonl"
    try:
        yield srv
    finally:
        srv.stop()


def audited(srv: Any, tag: str) -> dict[str, Any] | None:
    if not srv.audit_file.exists():
        return None
    return next((line for line in AuditLog.read(srv.audit_file) if line["arguments"].get("tag") == tag), None)


def hang_up_after_the_head(srv: Any, wire: Wire, tag: str) -> bytes:
    """POST a call of `big`, read the response's head and a few bytes of its body, and hang up."""
    body = json.dumps(wire.message("tools/call", {"name": "big", "arguments": {"tag": tag}})).encode()
    headers = {
        **wire.http.headers,
        **wire.headers("tools/call", "big"),
        "Host": f"127.0.0.1:{srv.port}",
        "Content-Length": str(len(body)),
    }
    with socket.create_connection(("127.0.0.1", srv.port), timeout=30) as raw:
        head = "".join(f"{key}: {value}\r\n" for key, value in headers.items())
        raw.sendall(f"POST /mcp HTTP/1.1\r\n{head}\r\n".encode() + body)
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = raw.recv(4096)
            assert chunk, received
            received += chunk
    # Closed with most of the body unread: the operating system resets the connection.
    return received


@pytest.mark.parametrize("era", WIRE_ERAS)
def test_a_result_cut_mid_body_is_audited_as_not_delivered(big_server: Any, era: str) -> None:
    wire = Wire(big_server, era)
    try:
        head = hang_up_after_the_head(big_server, wire, "cut")
        assert head.startswith(b"HTTP/1.1 200")
        assert until(lambda: audited(big_server, "cut") is not None, timeout=60)
        cut = audited(big_server, "cut")
        assert cut is not None
        assert cut["delivered"] is False
        assert cut["outcome"] != "ok" and "not delivered" in cut["outcome"]
        # The server goes on serving, and a client that reads the whole answer is on record as served.
        whole = answer(wire.send("tools/call", {"name": "big", "arguments": {"tag": "whole"}}, "big"))
        assert whole["result"]["content"][0]["text"].startswith("whole")
        assert until(lambda: audited(big_server, "whole") is not None, timeout=60)
        served = audited(big_server, "whole")
        assert served is not None
        assert (served["outcome"], served["delivered"]) == ("ok", True)
    finally:
        wire.close()
