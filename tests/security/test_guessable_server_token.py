"""Attack: guess the server token that an environment variable (or an argument) set to something short.

``MCP_NOTEBOOK_TOKEN`` sets the server token, the owner's credential, which opens every tool. A
class's shared set-up, a Binder image or a ``.env`` file may set it to ``class``, ``1234`` or a blank;
the server served with it, and anyone who could reach the port (every user of the machine) got in
with a few guesses. A token that could be guessed is refused now, saying where it came from and how
to make a good one, before the port is taken; a good one still works, and none at all makes one.
"""

from __future__ import annotations

import httpx
import pytest

from mcp_notebook import Catalogue, serve
from tests.conftest import INITIALIZE

GUESSABLE = ["x", "1234", "class", "   ", "class-token-12", "a long token with spaces in it"]


def knock(url: str, token: str) -> int:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    return httpx.post(url, json=INITIALIZE, headers=headers, timeout=30).status_code


@pytest.mark.parametrize("token", GUESSABLE)
def test_a_guessable_token_from_the_environment_is_refused(
    monkeypatch: pytest.MonkeyPatch, catalogue: Catalogue, token: str
) -> None:
    monkeypatch.setenv("MCP_NOTEBOOK_TOKEN", token)
    with pytest.raises(ValueError) as refused:
        srv = serve(catalogue=catalogue)
        srv.stop()  # served with it: the attack works (the test fails below)
    message = str(refused.value)
    assert "MCP_NOTEBOOK_TOKEN" in message and "at least 16" in message and "token_urlsafe" in message
    assert token.strip() == "" or token not in message  # says where, not what


def test_a_guessable_token_argument_is_refused_and_a_good_one_serves(
    monkeypatch: pytest.MonkeyPatch, catalogue: Catalogue
) -> None:
    monkeypatch.delenv("MCP_NOTEBOOK_TOKEN", raising=False)
    with pytest.raises(ValueError, match=r"serve\(token=\.\.\.\)"):
        serve(catalogue=catalogue, token="pass").stop()
    monkeypatch.setenv("MCP_NOTEBOOK_TOKEN", "class-token-1234")
    srv = serve(catalogue=catalogue)
    try:
        assert srv.token == "class-token-1234"
        assert knock(srv.url, "class-token-1234") == 200 and knock(srv.url, "class") == 401
    finally:
        srv.stop()


def test_korean_says_the_same(monkeypatch: pytest.MonkeyPatch, catalogue: Catalogue) -> None:
    from mcp_notebook import set_language

    monkeypatch.setenv("MCP_NOTEBOOK_TOKEN", "1234")
    set_language("ko")
    with pytest.raises(ValueError) as refused:
        serve(catalogue=catalogue).stop()
    assert "MCP_NOTEBOOK_TOKEN" in str(refused.value) and "16자 이상" in str(refused.value)
