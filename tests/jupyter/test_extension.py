"""The Jupyter Server face: a kernel's MCP server under the Jupyter server's URL and login.

A real Jupyter server (``python -m jupyter_server``, the extension enabled by the package's own
install), a real kernel that ran ``%mcp_serve``, and real SDK clients in both eras that know only
the Jupyter server's URL and its token.
"""

from __future__ import annotations

import getpass
import json
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest

from tests.conftest import ERAS, INITIALIZE, Mode
from tests.jupyter.servers import connect

pytestmark = pytest.mark.kernel


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.anyio
async def test_a_client_with_the_jupyter_token_lists_and_calls_as_the_jupyter_user(
    jupyter_shop: Any, mode: Mode
) -> None:
    async with connect(jupyter_shop.mcp_url, jupyter_shop.server.token, mode) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert names == ["whoami", "add_row", "slow"]
        result = await client.call_tool("whoami", {})
    # The user Jupyter authenticated, not the kernel server's owner or a made-up name per request.
    assert result.content[0].text == f"jupyter:{getpass.getuser()}"


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.anyio
async def test_progress_streams_through_before_the_call_ends(jupyter_shop: Any, mode: Mode) -> None:
    """The tool waits until the test has seen its progress: a proxy that buffered would never show it."""
    seen = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        if message == "half way":
            seen.set()

    async with (
        connect(jupyter_shop.mcp_url, jupyter_shop.server.token, mode) as client,
        anyio.create_task_group() as tg,
    ):
        box: list[Any] = []

        async def call() -> None:
            box.append(await client.call_tool("slow", {}, progress_callback=on_progress))

        tg.start_soon(call)
        with anyio.fail_after(30):
            await seen.wait()
        await anyio.to_thread.run_sync(lambda: jupyter_shop.kernel.run("gate.set()").raise_for_error())
    jupyter_shop.kernel.run("gate.clear()").raise_for_error()
    assert box[0].content[0].text == "done"


@pytest.mark.anyio
async def test_a_new_tool_reaches_a_client_listening_on_the_get_stream(jupyter_shop: Any) -> None:
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with connect(
        jupyter_shop.mcp_url, jupyter_shop.server.token, "legacy", message_handler=on_message
    ) as client:
        await client.list_tools()
        define = "@tool(read_only=True)\ndef extra() -> str:\n    '''A tool defined later. Use to test; not for work.'''\n    return 'x'"
        await anyio.to_thread.run_sync(lambda: jupyter_shop.kernel.run(define).raise_for_error())
        with anyio.fail_after(30):
            await changed.wait()
        assert "extra" in [tool.name for tool in (await client.list_tools()).tools]
    jupyter_shop.kernel.run("from mcp_notebook import remove_tool; remove_tool('extra')").raise_for_error()


def test_the_server_is_listed_and_reachable_by_kernel_id(jupyter_shop: Any) -> None:
    listed = jupyter_shop.server.api("GET", "/mcp-notebook").json()
    assert listed == {
        "servers": [{"kernel_id": jupyter_shop.kernel_id, "name": "shop", "path": "/mcp-notebook/shop/mcp"}]
    }
    assert "credential" not in json.dumps(listed)
    by_id = jupyter_shop.server.api(
        "POST",
        f"/mcp-notebook/{jupyter_shop.kernel_id}/mcp",
        json=INITIALIZE,
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert by_id.status_code == 200, by_id.text
    assert by_id.headers["mcp-session-id"]  # the session header comes back through the extension


def test_an_unknown_server_name_says_which_servers_run(jupyter_shop: Any) -> None:
    answer = jupyter_shop.server.api("POST", "/mcp-notebook/orders/mcp", json={})
    assert answer.status_code == 404
    message = answer.json()["message"]
    assert "'orders'" in message and "'shop'" in message and "%mcp_serve" in message


def test_a_client_without_a_credential_is_told_where_to_get_one(jupyter_shop: Any) -> None:
    answer = httpx.post(jupyter_shop.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"].startswith("Bearer")
    assert "/hub/token" in answer.json()["message"]


def test_a_client_that_hangs_up_withdraws_its_waiting_call(jupyter_shop: Any) -> None:
    """The hang-up travels through the extension: the approval prompt it left in the notebook goes away."""
    import socket
    from urllib.parse import urlsplit

    from tests.jupyter.servers import wait_until

    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "add_row", "arguments": {"item": "pen"}, "_meta": meta},
        }
    ).encode()
    parts = urlsplit(jupyter_shop.mcp_url)
    head = (
        f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        f"Authorization: Bearer {jupyter_shop.server.token}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
        f"Mcp-Method: tools/call\r\nMcp-Name: add_row\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    assert jupyter_shop.kernel.json("len(srv.pending)") == 0
    with socket.create_connection((parts.hostname, parts.port)) as sock:
        sock.sendall(head + body)
        wait_until(
            lambda: jupyter_shop.kernel.json("len(srv.pending)") == 1, 30, "no approval prompt appeared"
        )
    # At once: not only at the stream's next keep-alive (15 s on), which would find the client gone.
    wait_until(
        lambda: jupyter_shop.kernel.json("len(srv.pending)") == 0, 10, "the prompt stayed after the hang-up"
    )


def test_a_stopped_server_leaves_no_link_and_a_restarted_one_is_back_at_the_same_url(
    jupyter_shop: Any,
) -> None:
    from mcp_notebook.core._kernel_link import link_path

    link = link_path(jupyter_shop.server.runtime_dir, jupyter_shop.kernel_id)
    assert link.is_file()
    jupyter_shop.kernel.run("srv.stop()").raise_for_error()
    assert not link.exists()  # the credential is gone with the server
    stopped = jupyter_shop.server.api("POST", "/mcp-notebook/shop/mcp", json=INITIALIZE)
    assert stopped.status_code == 404 and "%mcp_serve" in stopped.json()["message"]
    jupyter_shop.kernel.run("srv = %mcp_serve --name shop").raise_for_error()
    assert link.is_file()
    again = jupyter_shop.server.api(
        "POST",
        "/mcp-notebook/shop/mcp",
        json=INITIALIZE,
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert again.status_code == 200, again.text
