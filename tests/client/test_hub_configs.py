"""On JupyterHub, client configurations point at the hub and say how to make a token; locally nothing changes."""

from __future__ import annotations

import json
from typing import Any

import pytest

import mcp_notebook
from mcp_notebook.client._hub import TOKEN_PLACEHOLDER, hub_location
from mcp_notebook.widgets._connect import ConnectView

HUB_ENV = {
    "JUPYTERHUB_USER": "alice",
    "JUPYTERHUB_SERVICE_PREFIX": "/user/alice/",
    "JUPYTERHUB_PUBLIC_URL": "https://hub.example.org/user/alice/",
    "JUPYTERHUB_PUBLIC_HUB_URL": "https://hub.example.org/hub/",
    "JUPYTERHUB_SERVICE_URL": "http://10.0.0.5:8888/user/alice/",
}


@pytest.fixture
def on_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in HUB_ENV.items():
        monkeypatch.setenv(name, value)


def test_a_hub_is_recognised_and_binder_is_not_taken_for_one() -> None:
    assert hub_location({}) is None
    where = hub_location(HUB_ENV)
    assert where is not None and where.user == "alice"
    assert (
        where.mcp_url("orders-3f9a2c1d")
        == "https://hub.example.org/user/alice/mcp-notebook/orders-3f9a2c1d/mcp"
    )
    assert where.token_page == "https://hub.example.org/hub/token"
    assert hub_location({**HUB_ENV, "BINDER_SERVICE_HOST": "10.0.0.1"}) is None


def test_a_server_name_is_escaped_in_the_url() -> None:
    where = hub_location(HUB_ENV)
    assert where is not None
    assert where.mcp_url("my shop/1").endswith("/mcp-notebook/my%20shop%2F1/mcp")


@pytest.mark.parametrize("client", ["claude-code", "cursor", "vscode", "inspector", "claude-desktop"])
def test_on_a_hub_the_configuration_points_at_the_hub_with_a_placeholder_token(
    on_hub: None, server: Any, client: str
) -> None:
    text = server.client_config(client)
    note, config = text.split("\n\n", 1)
    assert "https://hub.example.org/hub/token" in note and "access:servers!user=alice" in note
    url = f"https://hub.example.org/user/alice/mcp-notebook/{server.name}/mcp"
    assert url in config and TOKEN_PLACEHOLDER in config
    assert "127.0.0.1" not in config and server.token not in text
    assert server.clients == []  # no client token was made: the hub's login says who calls
    json.loads(config)


def test_locally_the_configuration_is_unchanged(server: Any) -> None:
    config = json.loads(server.client_config("cursor"))["mcpServers"]["notebook"]
    assert config["url"] == server.url
    assert config["headers"]["Authorization"] == f"Bearer {server.add_client('cursor')}"


def test_a_hub_without_a_public_address_says_where_to_find_it(
    on_hub: None, server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JUPYTERHUB_PUBLIC_URL")
    monkeypatch.delenv("JUPYTERHUB_PUBLIC_HUB_URL")
    text = server.client_config("vscode")
    assert "https://YOUR-HUB-ADDRESS/user/alice/mcp-notebook/" in text
    assert "address bar" in text


def test_the_note_reads_in_korean(on_hub: None, server: Any) -> None:
    mcp_notebook.set_language("ko")
    text = server.client_config("cursor")
    assert "허브에서 만든 내 토큰" in text and "https://hub.example.org/hub/token을 열고" in text


def test_the_panel_shows_the_hub_configuration(on_hub: None, server: Any) -> None:
    view = ConnectView(server)
    view.client.value = "cursor"
    assert f"/user/alice/mcp-notebook/{server.name}/mcp" in view.config.value
    assert server.token not in view.config.value
