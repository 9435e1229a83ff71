"""An exported app that accepts OAuth access tokens accepts only tokens meant for it.

Attacks, each through the real app (uvicorn) with tokens from a test authorization server whose
JWKS is served over HTTP: a token that has expired, a token the same authorization server issued
for another service (RFC 8707: it must not be replayed here), a token signed by another key under
the key id of the real one, and a token naming another issuer. Each gets 401 with
``WWW-Authenticate: Bearer error="invalid_token" ... resource_metadata="..."`` (2025-11-25
basic/authorization), and the tool never runs; the same request with a good token is answered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.oauth import AuthorizationServer
from tests.security.conftest import post_modern, reply

pytestmark = pytest.mark.replicas

METADATA = 'resource_metadata="https://orders.example.test/.well-known/oauth-protected-resource/mcp"'


def place(oauth_app: Any, token: str) -> Any:
    """A call that would change something (opening a cart) if it ran."""
    arguments = {"idempotency_key": "forged-token-attack-0001"}
    return post_modern(oauth_app, "tools/call", {"name": "open_cart", "arguments": arguments}, token=token)


@pytest.mark.parametrize(
    ("forgery", "said"),
    [
        ({"expires_in": -120}, "expired"),
        ({"audience": "https://billing.example.test/mcp"}, "not issued for this resource"),
        ({"forged": True}, "signature does not verify"),
        ({"issuer": "https://evil.example.test"}, "not issued by the expected authorization server"),
    ],
    ids=["expired", "wrong-audience", "wrong-signature", "wrong-issuer"],
)
def test_a_token_not_meant_for_this_app_gets_401(
    oauth_app: Any, authority: AuthorizationServer, forgery: dict[str, Any], said: str, tmp_path: Path
) -> None:
    refused = place(oauth_app, authority.token(subject="mallory", **forgery))
    assert refused.status_code == 401
    challenge = refused.headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and 'error="invalid_token"' in challenge and METADATA in challenge
    assert said in challenge  # error_description: what is wrong with the token
    assert "mcp-notebook://" not in refused.text and "cart" not in refused.text  # nothing ran
    # The same request with a good token is answered (the attack is the token, nothing else).
    good = place(oauth_app, authority.token(subject="mallory"))
    assert good.status_code == 200 and "result" in reply(good), good.text
