"""Host and Origin are compared exactly (scheme, host, port), never by prefix.

The DNS-rebinding defence (spec 2025-11-25 basic/transports "Security Warning") fails open when
``localhost:evil.com`` passes as "starts with ``localhost:``": a page on ``evil.com`` that rebinds
its name to 127.0.0.1 can then talk to the kernel. A bad Host is 421, a bad Origin 403.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.wire import INIT, post

FOREIGN_HOSTS = [
    "localhost:evil.com",
    "localhost:80.evil.com",
    "127.0.0.1:1@evil.com",
    "127.0.0.1:1234.evil.com",
    "127.0.0.1.evil.com:{port}",
    "localhost.evil.com:{port}",
    "localhost@evil.com:{port}",
    "user@localhost:{port}",
    "user:pass@127.0.0.1:{port}",
    "localhost:{port}/path",
    "localhost:{port}?x",
    "localhost:{port}#x",
    "localhost:{port} evil.com",
    "localhost:{port}:{port}",
    "localhost:",
    "localhost:99999",
    "localhost:+{port}",
    "localhost:-1",
    "127.0.0.1:0x50",
    "[::1]evil.com:{port}",
    "[::1]:{port}.evil.com",
    "[::1.evil.com]:{port}",
    "localhost.:{port}",
    "127.1:{port}",
    "evil.com",
    "evil.com:{port}",
]
OWN_HOSTS = ["127.0.0.1:{port}", "localhost:{port}", "[::1]:{port}", "LocalHost:{port}", "localhost:8888"]
FOREIGN_ORIGINS = [
    "http://localhost:evil.com",
    "http://localhost:80@evil.com",
    "http://127.0.0.1:1.evil.com",
    "http://127.0.0.1:{port}.evil.com",
    "http://127.0.0.1.evil.com",
    "http://127.0.0.1.evil.com:{port}",
    "http://user@localhost:{port}",
    "http://localhost:{port}/path",
    "http://localhost:{port}:{port}",
    "http://localhost:99999",
    "http://[::1]:{port}@evil.com",
    "http://[::1]evil.com",
    "ftp://localhost:{port}",
    "javascript://localhost:{port}",
    "http//localhost:{port}",
    "localhost:{port}",
    "null",
    "http://evil.example",
]
OWN_ORIGINS = [
    "http://localhost:{port}",
    "http://127.0.0.1:1234",
    "https://localhost:8888",
    "http://[::1]:{port}",
    "http://localhost",
    "HTTP://LOCALHOST:{port}",
]


@pytest.mark.parametrize("host", FOREIGN_HOSTS)
def test_a_foreign_host_is_421_however_it_is_dressed(server: Any, host: str) -> None:
    response = post(server, INIT, Host=host.format(port=server.port))
    assert response.status_code == 421, response.text
    assert "Host" in response.json()["error"]["message"]


@pytest.mark.parametrize("host", OWN_HOSTS)
def test_the_loopback_names_are_accepted_as_hosts(server: Any, host: str) -> None:
    assert post(server, INIT, Host=host.format(port=server.port)).status_code == 200


@pytest.mark.parametrize("origin", FOREIGN_ORIGINS)
def test_a_foreign_origin_is_403_however_it_is_dressed(server: Any, origin: str) -> None:
    response = post(server, INIT, Origin=origin.format(port=server.port))
    assert response.status_code == 403, response.text
    assert "Origin" in response.json()["error"]["message"]


@pytest.mark.parametrize("origin", OWN_ORIGINS)
def test_pages_on_this_machine_are_accepted_as_origins(server: Any, origin: str) -> None:
    assert post(server, INIT, Origin=origin.format(port=server.port)).status_code == 200


def test_the_checks_hold_in_the_stateless_era_too(server: Any) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/list",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }
    modern = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
    assert post(server, body, **modern, Host="localhost:evil.com").status_code == 421
    assert post(server, body, **modern, Origin="http://localhost:evil.com").status_code == 403
    assert post(server, body, **modern, Origin=f"http://localhost:{server.port}").status_code == 200
