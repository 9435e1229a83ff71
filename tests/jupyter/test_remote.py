"""A kernel under a Jupyter server that other machines reach: its configuration goes through Jupyter.

A real Jupyter server bound to one of this machine's own (non-loopback) addresses, or, on a
machine with none, on loopback with ``MCP_NOTEBOOK_JUPYTER_URL`` naming its address as a
container's port mapping would; a real kernel that ran ``%mcp_serve``; real SDK clients that know
only what ``srv.client_config(...)`` printed, with the Jupyter token put where it says.
"""

from __future__ import annotations

import getpass
import json
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_notebook.widgets._connect import split_note
from tests.conftest import ERAS, Mode
from tests.jupyter.servers import SERVE, ServedKernel, connect, jupyter_server

pytestmark = pytest.mark.kernel

PLACEHOLDER = "<YOUR-JUPYTER-TOKEN>"


def _outside_address() -> str | None:
    """One IPv4 address of this machine that is not loopback, or None."""
    import ipaddress
    import socket

    import psutil

    for addresses in psutil.net_if_addrs().values():
        for address in addresses:
            if address.family == socket.AF_INET and not ipaddress.ip_address(address.address).is_loopback:
                return str(address.address)
    return None


@pytest.fixture(scope="module")
def remote_shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedKernel]:
    address = _outside_address()
    options: dict[str, Any] = {"ip": address} if address else {}
    token = secrets.token_urlsafe(24)
    with jupyter_server(tmp_path_factory.mktemp("remote-jupyter"), token, **options) as jupyter:
        kernel_id, kernel = jupyter.start_kernel()
        try:
            if address is None:
                # No address but loopback: name it, as for a Jupyter in a container behind a port mapping.
                port = jupyter.url.rsplit(":", 1)[1]
                kernel.run(f"import os; os.environ['MCP_NOTEBOOK_JUPYTER_URL'] = 'http://127.0.0.1:{port}/'")
            kernel.run(SERVE, timeout=120).raise_for_error()
            yield ServedKernel(jupyter, kernel_id, kernel)
        finally:
            kernel.shutdown()


def _config(shop: ServedKernel, client: str, **options: Any) -> tuple[str, str]:
    """The note and the JSON of ``srv.client_config(client, **options)`` in the kernel."""
    arguments = "".join(f", {key}={value!r}" for key, value in options.items())
    return split_note(shop.kernel.json(f"srv.client_config({client!r}{arguments})"))


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.anyio
async def test_a_client_elsewhere_lists_and_calls_with_the_configuration_as_printed(
    remote_shop: ServedKernel, mode: Mode
) -> None:
    note, config = _config(remote_shop, "claude-code")
    entry = json.loads(config)["mcpServers"]["notebook"]
    assert entry["url"] == remote_shop.mcp_url  # the Jupyter server's address, not the kernel's loopback
    assert entry["headers"] == {"Authorization": f"Bearer {PLACEHOLDER}"}
    assert "jupyter server list" in note and PLACEHOLDER in note
    assert remote_shop.server.token not in note + config
    assert remote_shop.kernel.json("srv.clients") == []  # the Jupyter login says who calls

    # The person's one step: the Jupyter token where the note says.
    sent = entry["headers"]["Authorization"].replace(PLACEHOLDER, remote_shop.server.token)
    async with connect(entry["url"], sent.removeprefix("Bearer "), mode) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == ["whoami", "add_row", "slow"]
        result = await client.call_tool("whoami", {})
    assert result.content[0].text == f"jupyter:{getpass.getuser()}"


def test_both_ways_are_offered_jupyter_first(remote_shop: ServedKernel) -> None:
    assert remote_shop.kernel.json("srv.routes") == ["jupyter", "kernel"]


def test_via_kernel_gives_the_loopback_url_with_a_client_token(remote_shop: ServedKernel) -> None:
    note, config = _config(remote_shop, "cursor", via="kernel")
    entry = json.loads(config)["mcpServers"]["notebook"]
    assert note == ""
    assert entry["url"] == remote_shop.kernel.json("srv.url")
    assert entry["url"].startswith("http://127.0.0.1:")
    assert entry["headers"]["Authorization"] == "Bearer " + remote_shop.kernel.json(
        "srv.add_client('cursor')"
    )
    remote_shop.kernel.run("srv.revoke_client('cursor')").raise_for_error()


def test_the_check_goes_through_jupyter(remote_shop: ServedKernel) -> None:
    outcome = remote_shop.kernel.json("(lambda r: [r.ok, r.message])(srv.check())")
    assert outcome[0] is True, outcome[1]
    assert "/mcp-notebook/shop/mcp" in outcome[1]


def test_the_panel_switches_between_jupyter_and_the_kernel(remote_shop: ServedKernel) -> None:
    shown = remote_shop.kernel.json(
        "(lambda v: (setattr(v.client, 'value', 'vscode'), "
        "[v.through.layout.display, v.through.value, v.config.value, v.usage.value, "
        "setattr(v.through, 'value', 'kernel'), v.config.value, v.usage.value])[1])"
        "(__import__('mcp_notebook.widgets._connect', fromlist=['ConnectView']).ConnectView(srv))"
    )
    display, chosen, through_jupyter, usage_jupyter, _, through_kernel, usage_kernel = shown
    assert display != "none" and chosen == "jupyter"
    assert remote_shop.mcp_url in through_jupyter and PLACEHOLDER in through_jupyter
    assert "jupyter server list" in usage_jupyter
    assert "http://127.0.0.1:" in through_kernel and PLACEHOLDER not in through_kernel
    assert "jupyter server list" not in usage_kernel
    remote_shop.kernel.run("srv.revoke_client('vscode')").raise_for_error()


def test_a_loopback_jupyter_server_keeps_the_kernel_url_unless_asked(jupyter_shop: Any) -> None:
    assert jupyter_shop.kernel.json("srv.routes") == ["kernel", "jupyter"]
    entry = json.loads(jupyter_shop.kernel.json("srv.client_config('cursor')"))["mcpServers"]["notebook"]
    assert entry["url"] == jupyter_shop.kernel.json("srv.url")
    note, config = _config(jupyter_shop, "cursor", via="jupyter")
    assert json.loads(config)["mcpServers"]["notebook"]["url"] == jupyter_shop.mcp_url
    assert PLACEHOLDER in config and jupyter_shop.server.token not in note + config
    jupyter_shop.kernel.run("srv.revoke_client('cursor')").raise_for_error()
