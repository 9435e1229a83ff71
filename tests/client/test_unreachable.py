"""A server that is not there is said to be not there, in both eras, with what to check: never the
SDK's bare ``[-32000] Connection closed`` as if the server had answered it."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

import mcp_notebook
from mcp_notebook import Catalogue, ClientConnectionError, get_language, set_language
from tests.conftest import serve_unattended

MODES = ["legacy", "2026-07-28"]


@pytest.fixture
def bound_not_listening() -> Iterator[str]:
    """An address whose port is taken but not listening: every connection to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"


@pytest.mark.parametrize("mode", MODES)
def test_a_refused_connection_says_what_to_check(bound_not_listening: str, mode: str) -> None:
    with pytest.raises(ClientConnectionError) as raised:
        mcp_notebook.call("add", {"a": 1}, url=bound_not_listening, mode=mode, timeout=10)
    message = str(raised.value)
    assert bound_not_listening in message
    assert "Check that the server is running and the URL is right" in message
    assert "-32000" not in message


@pytest.mark.parametrize("mode", MODES)
def test_a_server_that_stopped_is_said_to_be_gone_in_either_language(mode: str) -> None:
    catalogue = Catalogue()

    @mcp_notebook.tool(catalogue=catalogue)
    def add(a: int, b: int) -> int:
        return a + b

    srv = serve_unattended(catalogue)
    url, token = srv.url, srv.token
    try:
        assert mcp_notebook.call("add", {"a": 1, "b": 2}, url=url, token=token, mode=mode).text == "3"
    finally:
        srv.stop()
    with pytest.raises(ClientConnectionError, match="Check that the server is running"):
        mcp_notebook.call("add", {"a": 1, "b": 2}, url=url, token=token, mode=mode, timeout=10)
    before = get_language()
    set_language("ko")
    try:
        with pytest.raises(ClientConnectionError, match="서버가 실행 중인지"):
            mcp_notebook.call("add", {"a": 1, "b": 2}, url=url, token=token, mode=mode, timeout=10)
    finally:
        set_language(before)
