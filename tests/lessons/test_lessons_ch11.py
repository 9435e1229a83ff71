"""Chapter 11 (인가): the lessons' authorization server and the exported app it protects do what the
chapter says they do, a real SDK client gets a token through the metadata and calls with it, the
answers of the classification are what the real app answers, and the tool exercise is judged by
the app itself."""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import jwt
import pytest
from IPython.core.interactiveshell import InteractiveShell

from mcp_notebook import Catalogue, current_client, tool
from mcp_notebook.client._http import tls_context
from mcp_notebook.lessons import ch11
from mcp_notebook.lessons._content import chapter_data
from mcp_notebook.lessons._exercise import given_code
from mcp_notebook.lessons.servers.protected import ProtectedApp


@pytest.fixture(scope="module")
def servers() -> tuple[Any, Any]:
    authority, app = ch11.lesson_servers()

    @tool(read_only=True, catalogue=app.catalogue, lint=False)
    def whoami() -> str:
        """Who calls."""
        return current_client()

    return authority, app


def challenge_error(response: Any) -> str:
    for part in response.headers.get("www-authenticate", "").removeprefix("Bearer ").split(", "):
        key, _, value = part.partition("=")
        if key == "error":
            return value.strip('"')
    return ""


# -- the metadata the chapter follows -------------------------------------------------------------------
def test_a_request_without_a_token_points_to_the_metadata_and_on_to_the_authorization_server(
    servers: tuple[Any, Any],
) -> None:
    authority, app = servers
    answer = httpx2.post(app.url, json=ch11._REQUEST, headers={"Accept": "application/json"})
    assert answer.status_code == 401
    header = answer.headers["www-authenticate"]
    assert f'resource_metadata="{app.metadata_url}"' in header and 'scope="mcp:tools"' in header
    protected = httpx2.get(app.metadata_url).json()
    assert protected["resource"] == app.url
    assert protected["authorization_servers"] == [authority.issuer]
    metadata = httpx2.get(authority.issuer + ".well-known/oauth-authorization-server").json()
    assert metadata["issuer"] == authority.issuer  # RFC 8414 3.3: the same string
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["client_id_metadata_document_supported"] is False
    assert "registration_endpoint" not in metadata  # pre-registered clients only, as the chapter says


# -- a real client gets a token and calls --------------------------------------------------------------
class KeptInMemory:
    def __init__(self) -> None:
        from mcp.shared.auth import OAuthClientInformationFull

        self.tokens: Any = None
        self.client = OAuthClientInformationFull(
            client_id=ch11.CLIENT_ID, redirect_uris=[ch11.REDIRECT_URI], token_endpoint_auth_method="none"
        )

    async def get_tokens(self) -> Any:
        return self.tokens

    async def set_tokens(self, tokens: Any) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> Any:
        return self.client

    async def set_client_info(self, client: Any) -> None:
        self.client = client


async def sdk_call(app: Any, storage: KeptInMemory) -> str:
    """The chapter's client: the SDK's OAuth provider, a "browser" that reads the redirect."""
    from mcp import Client
    from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.auth import OAuthClientMetadata

    back: dict[str, str] = {}

    async def open_browser(url: str) -> None:
        async with httpx2.AsyncClient(verify=tls_context()) as http:
            page = await http.get(url)
        back.update((k, v[0]) for k, v in parse_qs(urlsplit(page.headers["location"]).query).items())

    async def take_code() -> Any:
        return AuthorizationCodeResult(code=back["code"], state=back["state"], iss=back["iss"])

    metadata = OAuthClientMetadata(redirect_uris=[ch11.REDIRECT_URI], token_endpoint_auth_method="none")
    oauth = OAuthClientProvider(
        app.url, metadata, storage, redirect_handler=open_browser, callback_handler=take_code
    )
    async with (
        httpx2.AsyncClient(verify=tls_context(), auth=oauth) as http,
        Client(streamable_http_client(app.url, http_client=http)) as client,
    ):
        result = await client.call_tool("whoami", {})
    return str(result.content[0].text)


@pytest.fixture
def other_app(servers: tuple[Any, Any]) -> Iterator[Any]:
    app = ProtectedApp(Catalogue(), servers[0])
    yield app
    app.stop()


@pytest.mark.anyio
async def test_a_client_gets_a_token_bound_to_the_app_and_another_app_refuses_it(
    servers: tuple[Any, Any], other_app: Any
) -> None:
    authority, app = servers
    storage = KeptInMemory()
    authority.seen.clear()
    assert await sdk_call(app, storage) == "oauth:ana"  # the token's subject, not what the client says
    asked = {request["path"]: request for request in authority.seen}
    assert asked["/authorize"]["resource"] == asked["/token"]["resource"] == app.url  # RFC 8707
    assert asked["/authorize"]["code_challenge_method"] == "S256"
    token = storage.tokens.access_token
    assert jwt.decode(token, options={"verify_signature": False})["aud"] == app.url
    assert all(token not in str(request.values()) for request in authority.seen), "a token was noted"
    # The same authorization server protects another app: the token is no good there.
    refused = httpx2.post(
        other_app.url,
        json=ch11._REQUEST,
        headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
    )
    assert (refused.status_code, challenge_error(refused)) == (401, "invalid_token")


def test_the_authorization_server_issues_only_for_its_resources_and_with_the_right_verifier(
    servers: tuple[Any, Any],
) -> None:
    authority, app = servers
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = {
        "response_type": "code",
        "client_id": ch11.CLIENT_ID,
        "redirect_uri": ch11.REDIRECT_URI,
        "state": "s",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "scope": "mcp:tools",
    }

    def authorize(resource: str) -> dict[str, str]:
        page = httpx2.get(f"{authority.issuer}authorize?{urlencode({**query, 'resource': resource})}")
        return {k: v[0] for k, v in parse_qs(urlsplit(page.headers["location"]).query).items()}

    assert authorize("https://calendar.example/mcp")["error"] == "invalid_target"
    code = authorize(app.url)["code"]
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "client_id": ch11.CLIENT_ID,
        "resource": app.url,
    }
    wrong = httpx2.post(f"{authority.issuer}token", data={**form, "code_verifier": "not-the-verifier"})
    assert wrong.json()["error"] == "invalid_grant"
    code = authorize(app.url)["code"]
    issued = httpx2.post(f"{authority.issuer}token", data={**form, "code": code, "code_verifier": verifier})
    assert jwt.decode(issued.json()["access_token"], options={"verify_signature": False})["aud"] == app.url


# -- the answers of the classification are the app's ------------------------------------------------------
ITEMS = {
    # q2's items as tokens: the keyword arguments of `mint` (None: no Authorization header)
    "right": {"expires_in": 3000},
    "calendar": {"audience": "https://calendar.example/mcp"},
    "expired": {"expires_in": -3600},
    "read_only_scope": {"scope": "mcp:admin"},
    "expired_no_scope": {"expires_in": -86_400, "scope": ""},
    "more_scopes": {"scope": "profile mcp:tools mcp:admin"},
    "no_header": None,
}
SAID = {
    "runs": (200, ""),
    "invalid_token": (401, "invalid_token"),
    "insufficient_scope": (403, "insufficient_scope"),
}


@pytest.mark.parametrize("item", sorted(ITEMS))
def test_each_answer_of_the_classification_is_what_the_app_answers(
    item: str, servers: tuple[Any, Any]
) -> None:
    authority, app = servers
    assert set(ITEMS) == set(ch11.q2.expected)
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28"}
    headers["Mcp-Method"] = "tools/list"
    if ITEMS[item] is not None:
        token = authority.mint(**{"audience": app.url, **ITEMS[item]})
        headers["Authorization"] = f"Bearer {token}"
    answer = httpx2.post(app.url, json=ch11._REQUEST, headers=headers)
    expected = SAID[ch11.q2.expected[item]]
    got = (answer.status_code, challenge_error(answer))
    # No token at all is a 401 with no error code (RFC 6750 3.1): the category is still 401.
    assert got == expected or (item == "no_header" and got == (401, ""))


# -- the tool exercise is judged by the app ------------------------------------------------------------
def given(notebook: InteractiveShell) -> None:
    """The chapter's set-up before q4, as the learner's notebook has run it."""
    prelude = "from mcp_notebook import tool\n" + given_code(chapter_data("11")["q4"]["given"], "ko")
    assert notebook.run_cell(prelude, silent=True).success


LENIENT = '''
class Verdict(TypedDict):
    status: int
    error: str


@tool(read_only=True)
def token_verdict(iss: str, aud: str, exp: int, scope: str) -> Verdict:
    """Says what this app answers to a token with these claims: status and error code."""
    if iss.rstrip("/") != ISSUER.rstrip("/") or aud != RESOURCE or exp <= time.time():
        return {"status": 401, "error": "invalid_token"}
    if "mcp:tools" not in scope.split():
        return {"status": 403, "error": "insufficient_scope"}
    return {"status": 200, "error": ""}
'''


def test_a_tool_more_lenient_than_the_app_is_refused_with_the_app_s_answer(
    servers: tuple[Any, Any], notebook: InteractiveShell
) -> None:
    given(notebook)
    assert notebook.run_cell(LENIENT).success
    found = [repr(ch11.q4.check(seed=seed)) for seed in range(4)]
    refused = [shown for shown in found if "✘" in shown]
    # An issuer without its slash is another issuer to the app; some draws send one with the rest right.
    assert refused, found[0]
    assert '앱 → {"status": 401, "error": "invalid_token"}' in refused[0]
    assert "check(seed=" in refused[0]


def test_the_model_answer_agrees_with_the_app_on_drawn_tokens(
    servers: tuple[Any, Any], notebook: InteractiveShell
) -> None:
    given(notebook)
    assert notebook.run_cell(ch11.q4.solution_code()).success
    feedback = ch11.q4.check(seed=7)
    assert feedback.correct, repr(feedback)
    assert ch11.q4.verdict is not None and ch11.q4.verdict.calls >= 30 + len(ch11.q4.judge.examples)


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_model_answer_is_described_and_bounded_and_every_token_the_checker_sends_fits(
    servers: tuple[Any, Any], notebook: InteractiveShell, language: str
) -> None:
    import random

    import jsonschema

    import mcp_notebook

    authority, app = servers
    given(notebook)
    assert notebook.run_cell(chapter_data("11")["q4"]["solution"][language]).success
    schema = next(t for t in mcp_notebook.list_tools() if t["name"] == "token_verdict")["inputSchema"]
    fields = schema["properties"]
    assert all(fields[name].get("description") for name in ("iss", "aud", "exp", "scope"))
    assert (fields["exp"]["minimum"], fields["exp"]["maximum"]) == (0, 4_102_444_800)
    assert fields["scope"]["maxLength"] == 1000
    # The bounds the question states hold every token the checker sends: a learner who writes them
    # is never refused for a value the app would have answered.
    places = {"$ISSUER": authority.issuer, "$RESOURCE": app.url}
    sent = [{k: places.get(v, v) for k, v in example.items()} for example in ch11.q4.judge.examples]
    rng = random.Random(0)
    sent += [ch11.draw_claims(rng, authority.issuer, app.url) for _ in range(2000)]
    for claims in sent:
        jsonschema.validate(claims, schema)
