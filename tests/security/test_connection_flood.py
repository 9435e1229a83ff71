"""Nobody exhausts the kernel: idle, slow and numerous connections, and floods of sessions.

Anyone on the machine can open sockets to the port; before these limits 1,100 idle ones made the
kernel's own cells fail with "Too many open files" and real clients time out. A token holder could
open sessions until the SDK's 10,000 were taken and everyone else got a bare 503.
"""

from __future__ import annotations

import contextlib
import inspect
import resource
import socket
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import psutil
import pytest

from mcp_notebook import Catalogue, serve, tool
from mcp_notebook.client._http import tls_context
from tests.conftest import INITIALIZE, connect, serve_unattended
from tests.kernel import Kernel

pytestmark = pytest.mark.anyio

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def define_ping(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, read_only=True)
    def ping() -> str:
        """Answer pong."""
        return "pong"


async def call_ping(remote: Any, mode: str = "auto") -> str:
    with anyio.fail_after(30):  # was: no answer at all while the flood lasted
        async with connect(remote, mode) as client:  # type: ignore[arg-type]
            result = await client.call_tool("ping", {})
            return str(result.content[0].text)


def open_socket(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=30)


def closed_by_server(sock: socket.socket) -> bool:
    """Block (up to the socket's timeout) until the server closes the connection."""
    try:
        while sock.recv(4096):
            pass  # an error response before the close is fine
    except ConnectionResetError:
        pass
    return True


# -- connections: deadlines and a cap ---------------------------------------------------------------------


def test_idle_and_slow_connections_are_closed_after_their_deadlines(
    catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_NOTEBOOK_HEADER_TIMEOUT", "1")
    monkeypatch.setenv("MCP_NOTEBOOK_BODY_TIMEOUT", "1")
    srv = serve_unattended(catalogue)
    try:
        idle = open_socket(srv.port)  # never sends a byte
        slow_head = open_socket(srv.port)  # a request line and half its headers, then nothing
        slow_head.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-")
        slow_body = open_socket(srv.port)  # a full head with the token, a tenth of the body, then nothing
        slow_body.sendall(
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nAuthorization: Bearer {srv.token}\r\n"
            'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"'.encode()
        )
        for sock in (idle, slow_head, slow_body):
            with sock:
                assert closed_by_server(sock)  # within the socket's 30 s: before, never
    finally:
        srv.stop()


def test_an_oversized_request_head_is_refused(catalogue: Catalogue) -> None:
    srv = serve_unattended(catalogue)
    try:
        with open_socket(srv.port) as sock:
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * (64 * 1024))
            answer = sock.recv(4096)
            assert answer.startswith(b"HTTP/1.1 400"), answer[:100]
            assert closed_by_server(sock)
    finally:
        srv.stop()


async def test_connections_over_the_cap_make_room_for_a_real_client(
    catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_NOTEBOOK_MAX_CONNECTIONS", "50")
    define_ping(catalogue)
    srv = serve_unattended(catalogue)
    with contextlib.ExitStack() as stack:
        try:
            for _ in range(300):
                stack.enter_context(open_socket(srv.port))
            assert await call_ping(srv) == "pong"
            assert await call_ping(srv, "legacy") == "pong"
            held = [
                c
                for c in psutil.Process().net_connections(kind="tcp")
                if c.laddr and c.laddr.port == srv.port and c.status == psutil.CONN_ESTABLISHED
            ]
            assert len(held) <= 50 + 5, len(held)  # the cap, give or take the client's own connections
        finally:
            srv.stop()


@contextlib.contextmanager
def file_limit(soft: int) -> Iterator[None]:
    """Run with a lower soft limit on open files (restored after); what is started meanwhile inherits it."""
    before = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, before[1]), before[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, before)


class _Remote:
    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token


@pytest.mark.kernel
@pytest.mark.timeout(300)
def test_2000_idle_and_slow_sockets_leave_the_kernel_and_its_clients_working() -> None:
    # The kernel gets the open-file limit of a usual desktop session (1024), as in the attack.
    with file_limit(1024):
        kernel = Kernel()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2600:
        kernel.shutdown()
        pytest.skip(f"this test opens 2,000 sockets; the hard limit on open files is {hard}")
    try:
        cell = kernel.run(
            "%load_ext mcp_notebook\n"
            "from mcp_notebook import tool\n"
            "@tool(read_only=True)\n"
            "def ping() -> str:\n"
            "    '''Answer pong.'''\n"
            "    return 'pong'\n"
            "srv = %mcp_serve --approval auto"
        )
        cell.raise_for_error()
        served = kernel.json("{'url': srv.url, 'token': srv.token, 'port': srv.port}")
        remote = _Remote(served["url"], served["token"])
        # This side needs 2,000 sockets of its own.
        wanted = max(soft, 4096)
        resource.setrlimit(
            resource.RLIMIT_NOFILE, (wanted if hard == resource.RLIM_INFINITY else min(hard, wanted), hard)
        )
        with contextlib.ExitStack() as stack:
            for i in range(2000):
                sock = stack.enter_context(open_socket(served["port"]))
                if i % 3 == 1:  # slowloris: half a head
                    sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                elif i % 3 == 2:  # a token holder's slow body
                    sock.sendall(
                        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{served['port']}\r\n"
                        f"Authorization: Bearer {served['token']}\r\nContent-Type: application/json\r\n"
                        "Content-Length: 100000\r\n\r\n{".encode()
                    )
            # While all 2,000 are still open on this side: a new client is served...
            assert anyio.run(call_ping, remote) == "pong"
            # ...and the kernel's own cells can open files and call their server.
            cell = kernel.run(
                "import os\n"
                "files = [open(os.devnull) for _ in range(64)]\n"
                "for f in files: f.close()\n"
                "result = %mcp_call ping\n"
                "print(result.text)",
                timeout=60,
            )
            cell.raise_for_error()
            assert "pong" in cell.stdout
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        kernel.shutdown()


# -- sessions: a cap per credential, idle expiry ------------------------------------------------------------


def open_session(srv: Any) -> str:
    answer = httpx2.post(
        srv.url, json=INITIALIZE, headers={**HEADERS, "Authorization": f"Bearer {srv.token}"}, timeout=30
    )
    assert answer.status_code == 200, answer.text
    return str(answer.headers["mcp-session-id"])


def session_alive(srv: Any, session: str) -> bool:
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    headers = {
        **HEADERS,
        "Authorization": f"Bearer {srv.token}",
        "Mcp-Session-Id": session,
        "MCP-Protocol-Version": "2025-11-25",
    }
    return httpx2.post(srv.url, json=ping, headers=headers, timeout=30).status_code != 404


async def test_a_flood_of_idle_sessions_is_trimmed_and_new_clients_get_in(catalogue: Catalogue) -> None:
    define_ping(catalogue)
    srv = serve_unattended(catalogue)
    try:
        flood = [open_session(srv) for _ in range(3 * 32)]
        assert await call_ping(srv, "legacy") == "pong"  # a new handshake-era client gets a session
        alive = [session for session in flood if session_alive(srv, session)]
        assert len(alive) <= 32, len(alive)  # the oldest idle ones were closed to make room
        assert alive == flood[-len(alive) :]  # ...the oldest first
    finally:
        srv.stop()


async def test_when_every_session_is_busy_a_new_one_is_refused_with_a_reason(catalogue: Catalogue) -> None:
    srv = serve_unattended(catalogue, max_sessions=3)
    try:
        sessions = [open_session(srv) for _ in range(3)]
        async with contextlib.AsyncExitStack() as stack:
            http = await stack.enter_async_context(
                httpx2.AsyncClient(verify=tls_context(), timeout=httpx2.Timeout(30, read=None))
            )
            for session in sessions:  # a GET stream keeps each session busy
                headers = {
                    "Accept": "text/event-stream",
                    "Authorization": f"Bearer {srv.token}",
                    "Mcp-Session-Id": session,
                    "MCP-Protocol-Version": "2025-11-25",
                }
                stream = await stack.enter_async_context(http.stream("GET", srv.url, headers=headers))
                assert stream.status_code == 200
            refused = httpx2.post(
                srv.url,
                json=INITIALIZE,
                headers={**HEADERS, "Authorization": f"Bearer {srv.token}"},
                timeout=30,
            )
        assert refused.status_code == 429, refused.text  # not the SDK's bare 503
        message = refused.json()["error"]["message"]
        assert "3 sessions open" in message and "DELETE" in message and "Mcp-Session-Id" in message
        assert all(session_alive(srv, session) for session in sessions)  # busy sessions are never closed
        assert open_session(srv)  # once the streams ended, the sessions are idle: room is made
    finally:
        srv.stop()


async def test_idle_sessions_expire_well_before_half_an_hour(catalogue: Catalogue) -> None:
    assert inspect.signature(serve).parameters["session_idle_timeout"].default <= 600
    srv = serve_unattended(catalogue, session_idle_timeout=3)
    sessions = srv.tool_server.sdk.session_manager
    try:
        session = open_session(srv)
        assert sessions.open_sessions() == 1
        # Watched from the server's side: a request in the session would make it busy again.
        with anyio.fail_after(30):
            while sessions.open_sessions():
                await anyio.sleep(0.05)  # polling a condition with a deadline, not synchronising by time
        assert not session_alive(srv, session)  # its id now answers 404: the client starts a new one
    finally:
        srv.stop()
