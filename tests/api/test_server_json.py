"""Registry and discovery: ``server.json`` from a live server and from a notebook, and the server card.

Every document is validated against the registry's schema, shipped in ``tests/schemas`` (2025-12-11,
draft-07; its source is named there). The served card comes from the example notebook exported with
the real CLI and served by a real uvicorn process; SDK clients of both eras connect to the same app.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
import jsonschema
import pytest

from mcp_notebook import Catalogue, tool
from mcp_notebook.client._http import tls_context
from mcp_notebook.core._errors import OptionError
from tests.conftest import ERAS, Mode, serve_unattended
from tests.exported import NOTEBOOK, service_environ, token_of
from tests.services import Replica

pytestmark = pytest.mark.anyio

SCHEMA = json.loads(
    (Path(__file__).parents[1] / "schemas" / "server.schema.json").read_text(encoding="utf-8")
)
# The first publication of the 2025-12-11 schema held each remote's URL to this pattern (tests/schemas).
REMOTE_URL = re.compile(r"^https?://[^\s]+$")
ICON = "https://example.com/orders.png"
DATA_ICON = "data:image/png;base64,iVBORw0KGgo="


def valid(document: dict[str, Any]) -> dict[str, Any]:
    """`document`, once the registry's schema (with its formats) has found nothing wrong in it."""
    assert SCHEMA["$id"] == "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
    jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER).validate(
        document
    )
    for remote in document.get("remotes", []):
        assert REMOTE_URL.match(remote["url"]), remote["url"]
    return document


def the_header(document: dict[str, Any]) -> dict[str, Any]:
    (remote,) = document["remotes"]
    assert remote["type"] == "streamable-http"
    (header,) = remote["headers"]
    return header


def _catalogue() -> Catalogue:
    catalogue = Catalogue()

    @tool(catalogue=catalogue, read_only=True)
    def forecast(city: str) -> str:
        """The weather in one city now. Use for questions about today's weather."""
        return city

    @tool(catalogue=catalogue, read_only=True, expose=False)
    def secret_helper(city: str) -> str:
        """Only for the notebook."""
        return city

    return catalogue


def test_a_live_server_writes_a_valid_server_json_with_placeholders_said_and_no_token(tmp_path: Path) -> None:
    srv = serve_unattended(_catalogue(), icons=[ICON, DATA_ICON])
    try:
        entry = srv.server_json(tmp_path / "server.json")
        token = srv.token
    finally:
        srv.stop()
    written = (tmp_path / "server.json").read_text(encoding="utf-8")
    data = valid(json.loads(written))
    assert data == entry.data and token not in written  # nothing secret in it
    assert data["name"].startswith("io.github.your-github-name/") and data["version"] == "0.1.0"
    assert data["remotes"][0]["url"] == "https://mcp.example.com/mcp"
    assert entry.placeholders == ("name", "url")
    said = "\n".join(entry.notes)
    assert (
        "is a placeholder: change it before publishing" in said
        and "url 'https://mcp.example.com/mcp' is a placeholder" in said
    )
    assert (
        "forecast" in data["description"] and "secret_helper" not in data["description"]
    )  # hidden stays hidden
    assert (
        data["icons"] == [{"src": ICON}] and "icon 'data:image/png" in said
    )  # the registry takes https only
    header = the_header(data)
    assert (header["name"], header["isRequired"], header["isSecret"]) == ("Authorization", True, True)
    assert header["value"] == "Bearer {token}" and header["variables"]["token"]["isSecret"] is True
    assert "! name 'io.github.your-github-name/" in repr(entry)  # what a notebook shows


def test_fields_given_leave_no_placeholder_and_a_field_the_registry_refuses_is_refused_with_its_rule() -> (
    None
):
    srv = serve_unattended(_catalogue())
    try:
        entry = srv.server_json(
            name="io.github.alice/weather",
            title="Weather",
            description="Today's weather in any city.",
            version="1.2.0",
            url="https://mcp.alice.example/mcp",
            website_url="https://alice.example/weather",
        )
        assert entry.placeholders == () and entry.notes == ()
        data = valid(entry.data)
        assert (data["name"], data["title"], data["version"], data["websiteUrl"]) == (
            "io.github.alice/weather",
            "Weather",
            "1.2.0",
            "https://alice.example/weather",
        )
        assert data["remotes"][0]["url"] == "https://mcp.alice.example/mcp"
        refusals = {
            "name": ("alice/weather/v2", "reverse-DNS form with one '/'"),
            "description": ("x" * 101, "1-100 characters"),
            "version": ("^1.2.0", "not a range"),
            "url": ("mcp.alice.example/mcp", "https://HOST/PATH"),
        }
        for option, (value, rule) in refusals.items():
            with pytest.raises(OptionError) as refused:
                srv.server_json(**{option: value})
            assert refused.value.option == option and rule in str(refused.value)
        with pytest.raises(OptionError) as unknown:
            srv.server_json(nmae="io.github.alice/weather")
        assert unknown.value.option == "nmae" and "'name'" in str(
            unknown.value
        )  # the option it may have meant
    finally:
        srv.stop()


def test_the_notes_and_refusals_are_said_in_korean_too() -> None:
    from mcp_notebook import set_language

    srv = serve_unattended(_catalogue())
    try:
        set_language("ko")
        entry = srv.server_json()
        with pytest.raises(OptionError) as refused:
            srv.server_json(version="1.x")
    finally:
        srv.stop()
    assert "자리표시자입니다" in entry.notes[0] and "범위" in str(refused.value)
    valid(entry.data)


def card_command(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Any:
    """``mcp-notebook card ...``, the real command in a new process."""
    command = [sys.executable, "-m", "mcp_notebook.cli", "card", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd, env=env)


def test_mcp_notebook_card_writes_the_server_json_of_a_notebook_without_running_it(tmp_path: Path) -> None:
    done = card_command(str(NOTEBOOK), "--version", "2.0.0", "--icon", ICON)
    assert done.returncode == 0, done.stderr
    data = valid(json.loads(done.stdout))
    assert data["version"] == "2.0.0" and data["icons"] == [{"src": ICON}]
    assert data["title"] and "place_order" in data["description"]  # its first heading; its tools
    assert "mcp-notebook: name 'io.github.your-github-name/orders_service' is a placeholder" in done.stderr
    assert the_header(data)["isSecret"] is True
    config = tmp_path / "app.toml"
    config.write_text(
        'icons = ["https://example.com/orders.png"]\n[card]\nname = "io.github.alice/orders"\n'
        'url = "https://mcp.alice.example/mcp"\nversion = "1.0.0"\ndescription = "Orders of the shop."\n'
        '[oauth]\nissuer = "https://login.example.com"\njwks_url = "https://login.example.com/jwks.json"\n'
        'resource = "https://mcp.alice.example/mcp"\n',
        encoding="utf-8",
    )
    out = tmp_path / "server.json"
    done = card_command(str(NOTEBOOK), "--config", str(config), "-o", str(out))
    assert done.returncode == 0 and done.stdout == "" and done.stderr == "", (
        done.stderr
    )  # nothing left to say
    data = valid(json.loads(out.read_text(encoding="utf-8")))
    assert (data["name"], data["description"]) == ("io.github.alice/orders", "Orders of the shop.")
    assert "headers" not in data["remotes"][0]  # OAuth only: the client signs in, no header to configure
    done = card_command(str(NOTEBOOK), "--name", "orders")
    assert (
        done.returncode == 2 and "name 'orders' is not a registry name" in done.stderr and done.stdout == ""
    )


@pytest.fixture(scope="module")
def served_card(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The example notebook exported with the real CLI and served by uvicorn with a [card] table."""
    folder = tmp_path_factory.mktemp("card")
    command = [
        sys.executable,
        "-m",
        "mcp_notebook.cli",
        "export",
        str(NOTEBOOK),
        "-o",
        str(folder / "app.py"),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (folder / "app.toml").write_text(
        f'icons = ["{ICON}"]\n[card]\nname = "io.github.alice/orders"\nversion = "1.0.0"\ntitle = "Orders"\n',
        encoding="utf-8",
    )
    environ = service_environ(
        folder, f"sqlite:///{folder / 'state.sqlite3'}", MCP_NOTEBOOK_CONFIG=str(folder / "app.toml")
    )
    replica = Replica(folder, environ)
    try:
        yield replica
    finally:
        replica.stop()


@pytest.mark.replicas
@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/mcp/server-card", "application/mcp-server-card+json"),
        ("/.well-known/mcp/server-card.json", "application/json"),
    ],
)
def test_an_exported_app_serves_its_card_publicly_at_both_draft_locations(
    served_card: Any, path: str, kind: str
) -> None:
    base = f"http://127.0.0.1:{served_card.port}"
    answer = httpx2.get(base + path, timeout=30)  # no token: a card is public
    assert answer.status_code == 200 and answer.headers["content-type"] == kind
    assert answer.headers["access-control-allow-origin"] == "*"
    card = answer.json()
    assert card["$schema"] == "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
    assert card["_meta"]["io.github.mcp-notebook/server-card"]["draft"] == "SEP-2127"  # marked as a draft
    (remote,) = card["remotes"]
    assert remote["url"] == base + "/mcp"  # as the request reached it: card.url is not set
    assert (
        "2025-11-25" in remote["supportedProtocolVersions"]
        and "2026-07-28" in remote["supportedProtocolVersions"]
    )
    assert (card["name"], card["title"], card["icons"]) == (
        "io.github.alice/orders",
        "Orders",
        [{"src": ICON}],
    )
    assert not any(token_of("client00") in line for line in [answer.text])
    assert the_header(card)["isRequired"] is True  # clients file, no OAuth: a token is needed
    server_json = {key: value for key, value in card.items() if key not in ("$schema", "_meta")}
    valid({**server_json, "$schema": SCHEMA["$id"]})  # the same data the registry takes
    refused = httpx2.get(base + path, headers={"Host": "evil.example:80"}, timeout=30)
    assert refused.status_code == 421
    assert httpx2.post(base + path, timeout=30).status_code == 405


@pytest.mark.replicas
@pytest.mark.parametrize("mode", ERAS)
async def test_clients_of_both_eras_see_the_icons_the_card_shows(served_card: Any, mode: Mode) -> None:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token_of('client00')}"}
    async with (
        httpx2.AsyncClient(verify=tls_context(), headers=headers, timeout=httpx2.Timeout(60)) as http,
        Client(streamable_http_client(served_card.url, http_client=http), mode=mode) as client,
    ):
        info = client.server_info
    assert info is not None and [icon.src for icon in info.icons or []] == [ICON]
