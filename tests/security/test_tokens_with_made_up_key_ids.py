"""Strangers' tokens cannot make an OAuth resource server fetch keys, nor hold up valid tokens.

Anyone can send a bearer token, with whatever key id (``kid``), issuer and audience it likes, and
without any login. Attacks, each against the real exported app (uvicorn) and a test authorization
server whose JWKS is served over HTTP and counts its requests:

- 60 tokens with made-up key ids, sent at once while the JWKS endpoint is slow (5 s an answer):
  before, they queued on pyjwt's refresh lock and filled the worker threads, and a valid token
  waited behind them (5.1 s). A valid token must be answered in under a second.
- Tokens for another issuer or audience, or with an algorithm the app does not take: before, each
  made the app fetch the key set (a stranger chose when the app calls out). None may.
- Tokens with made-up key ids while the JWKS endpoint fails: before, every one of them fetched
  again (a failed fetch counted for nothing). One fetch, then a pause.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from tests.oauth import RESOURCE, AuthorizationServer, served_with_oauth
from tests.security.conftest import MODERN, reply

pytestmark = pytest.mark.replicas

# pyjwt (2.11 and later) fetches again for an unknown key id only 30 s after its last fetch; past
# that, as in any service that has run for a while, strangers' key ids reached the endpoint.
PYJWT_REFRESH_COOLDOWN = 30.0


@pytest.fixture
def authority() -> Iterator[AuthorizationServer]:
    """An authorization server of this test alone: its request count starts at 0."""
    server = AuthorizationServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def app(tmp_path: Path, authority: AuthorizationServer) -> Iterator[Any]:
    """The exported example, fresh: it has fetched no keys yet."""
    replica = served_with_oauth(tmp_path, authority)
    try:
        yield replica
    finally:
        replica.stop()


def list_tools(http: httpx.Client, app: Any, token: str) -> httpx.Response:
    """A 2026-07-28 ``tools/list`` with `token`."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
    headers = {
        "Authorization": f"Bearer {token}",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/list",
        "Accept": "application/json, text/event-stream",
    }
    return http.post(app.url, json=body, headers=headers)


def refused(response: httpx.Response) -> bool:
    challenge = response.headers.get("www-authenticate", "")
    return (
        response.status_code == 401
        and challenge.startswith("Bearer ")
        and 'error="invalid_token"' in challenge
    )


def test_made_up_key_ids_do_not_hold_up_a_valid_token(app: Any, authority: AuthorizationServer) -> None:
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
    with httpx.Client(timeout=60, limits=limits) as http:
        first = list_tools(http, app, authority.token())
        assert first.status_code == 200 and "tools" in reply(first)["result"], first.text
        assert authority.fetched == 1  # the app holds the key now

        authority.delay = 5.0
        # Time passing, not synchronisation: the app's keys are older than pyjwt's own cooldown.
        threading.Event().wait(PYJWT_REFRESH_COOLDOWN + 1)
        authority.asked.clear()
        strangers = [authority.token(subject=f"stranger-{n}", kid=f"made-up-{n}") for n in range(60)]
        strangers += [authority.token(issuer="https://evil.example.test", kid=f"evil-{n}") for n in range(6)]
        with ThreadPoolExecutor(len(strangers)) as pool:
            flood = [pool.submit(list_tools, http, app, token) for token in strangers]
            # The flood has reached the slow endpoint (if the app still fetches for it at all).
            authority.asked.wait(10)
            valid = authority.token(subject="ana")
            started = time.perf_counter()
            answer = list_tools(http, app, valid)
            took = time.perf_counter() - started
            answers = [future.result() for future in flood]

    assert answer.status_code == 200 and "tools" in reply(answer)["result"], answer.text
    assert took < 1.0, f"a valid token waited {took:.1f} s behind strangers' tokens"
    assert all(refused(stranger) for stranger in answers), [r.status_code for r in answers]


def test_a_token_for_someone_else_makes_no_key_fetch(app: Any, authority: AuthorizationServer) -> None:
    claims = {"iss": authority.issuer, "aud": RESOURCE, "sub": "mallory", "exp": int(time.time()) + 300}
    elsewhere = [
        authority.token(issuer="https://evil.example.test", kid="made-up"),
        authority.token(issuer="https://evil.example.test"),
        authority.token(audience="https://billing.example.test/mcp", kid="made-up"),
        authority.token(audience="https://billing.example.test/mcp"),
        authority.token(expires_in=-120, kid="made-up"),
        # A shared-secret algorithm: the key set's public keys must never serve as an HMAC secret.
        jwt.encode(claims, "a shared secret of 32 bytes or more", headers={"kid": "made-up"}),
        "not-a-token",
    ]
    with httpx.Client(timeout=60) as http:
        answers = [list_tools(http, app, token) for token in elsewhere]
        assert all(refused(answer) for answer in answers), [(r.status_code, r.headers) for r in answers]
        assert authority.fetched == 0  # nobody who is not this app's client made it call out

        # The same app does fetch the keys for a token meant for it.
        good = list_tools(http, app, authority.token())
        assert good.status_code == 200, good.text
        assert authority.fetched == 1


def test_a_failing_key_endpoint_is_not_asked_again_for_every_stranger(
    app: Any, authority: AuthorizationServer
) -> None:
    authority.failing = True
    with httpx.Client(timeout=60) as http:
        answers = [list_tools(http, app, authority.token(kid=f"made-up-{n}")) for n in range(20)]
        answers.append(list_tools(http, app, authority.token()))
    assert all(refused(answer) for answer in answers), [r.status_code for r in answers]
    assert authority.fetched == 1  # the failure is remembered for a while: one fetch, not 21
    assert "could not be fetched" in answers[-1].headers["www-authenticate"]
