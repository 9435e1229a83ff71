"""Attack: send the class's progress service huge request bodies, with no token at all.

The progress service is reachable by anyone through the hub's public proxy. Tornado reads a whole
request body (up to its 100 MB default) into memory before the handler runs, and the handler asked
for a token only then: a few anonymous connections, each announcing 50 MB and sending it slowly,
held the service's memory and kept it waiting, without any credential. Now the records endpoint
looks at the announced size and the token as soon as the headers arrive: too large or unannounced
is a 413, no token a 401, both before a byte of the body is read; a student's records still land.

The service (its own `make_app`) runs on 127.0.0.1; the hub it asks whose token came is a small
stand-in answering ``GET /hub/api/user`` as JupyterHub does (the real hub's path is tested in
``test_progress_in_a_classmates_name.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

STUDENT = "mallory-api-token-" + "m" * 16


@contextlib.contextmanager
def progress_service(folder: Path) -> Iterator[int]:
    """The progress service on a port of its own, and a stand-in hub API; yields the service's port."""
    from jupyterhub.services.auth import HubOAuth
    from tornado import httpserver, netutil, web

    from mcp_notebook.jupyter.progress_service import Records, make_app

    class HubUser(web.RequestHandler):
        def get(self) -> None:
            if self.request.headers.get("Authorization") != f"token {STUDENT}":
                raise web.HTTPError(403)
            self.finish({"kind": "user", "name": "mallory", "admin": False, "groups": [], "scopes": []})

    ready = threading.Event()
    state: dict[str, Any] = {}

    async def serve() -> None:
        from tornado.httpclient import AsyncHTTPClient

        stop = asyncio.Event()
        [hub_socket] = netutil.bind_sockets(0, "127.0.0.1")
        hub = httpserver.HTTPServer(web.Application([(r"/hub/api/user", HubUser)]))
        hub.add_sockets([hub_socket])
        hub_auth = HubOAuth(
            api_token="service-token-" + "s" * 24,
            api_url=f"http://127.0.0.1:{hub_socket.getsockname()[1]}/hub/api",
            cache_max_age=0,
        )
        [service_socket] = netutil.bind_sockets(0, "127.0.0.1")
        records = Records(str(folder / "progress.sqlite3"))
        server = httpserver.HTTPServer(make_app(hub_auth, records))
        server.add_sockets([service_socket])
        state.update(port=service_socket.getsockname()[1], loop=asyncio.get_running_loop(), stop=stop)
        ready.set()
        await stop.wait()
        for each in (server, hub):
            each.stop()
            await each.close_all_connections()
        AsyncHTTPClient().close()
        records._db.close()

    thread = threading.Thread(target=asyncio.run, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(30)
    try:
        yield int(state["port"])
    finally:
        state["loop"].call_soon_threadsafe(state["stop"].set)
        thread.join(30)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[int]:
    with progress_service(tmp_path) as port:
        yield port


def head_only(port: int, headers: str) -> tuple[int, dict[str, Any]]:
    """Send a POST's head (and one byte of its body), never the rest: the answer, read within 10 s."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"POST /api/records HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}\r\n{{".encode())
        received = b""
        while b"\r\n\r\n" not in received or not received.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)  # socket.timeout here: the service waits for the body
            if not chunk:
                break
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body.decode())


def test_a_huge_body_is_refused_from_its_head_with_or_without_a_token(service: int) -> None:
    for token in ("", f"Authorization: token {STUDENT}\r\n"):
        status, answer = head_only(
            service, f"{token}Content-Type: application/json\r\nContent-Length: 52428800\r\n"
        )
        assert status == 413
        assert "Content-Length" in answer["message"] and "500 records" in answer["message"]
    status, answer = head_only(service, "Transfer-Encoding: chunked\r\n")  # a size it will not say
    assert status == 413


def test_without_a_token_nothing_of_the_body_is_read(service: int) -> None:
    status, answer = head_only(service, "Content-Type: application/json\r\nContent-Length: 200000\r\n")
    assert status == 401 and "token" in answer["message"]


def test_a_students_records_still_land(service: int) -> None:
    record = {
        "chapter": "01",
        "exercise": "q1",
        "outcome": "correct",
        "attempts": 1,
        "time": "2026-01-01T00:00:00Z",
    }
    sent = httpx.post(
        f"http://127.0.0.1:{service}/api/records",
        json={"records": [record]},
        headers={"Authorization": f"token {STUDENT}"},
        timeout=30,
    )
    assert sent.status_code == 200 and sent.json() == {"added": 1}, sent.text
    refused = httpx.post(
        f"http://127.0.0.1:{service}/api/records",
        json={"records": [{**record, "outcome": "maybe"}]},
        headers={"Authorization": f"token {STUDENT}"},
        timeout=30,
    )
    assert refused.status_code == 400 and "outcome" in refused.json()["message"]
