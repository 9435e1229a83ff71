"""Attack: read the Jupyter token out of a client configuration that goes through Jupyter.

The Jupyter token opens the whole Jupyter server (files, terminals, every kernel), far more than a
client token of the notebook's MCP server, which opens its tools only and is revoked alone. The
kernel can read it (the server's ``jpserver-<pid>.json`` beside its connection file), and a
person may paste the URL they opened JupyterLab with, ``?token=`` and all, as ``jupyter_url``. A
configuration is pasted into files, chats and screenshots: through Jupyter it holds a placeholder,
for every client (Claude Desktop's bridge ``env`` included), whatever address was given; and the
kernel's own check sends the token to the Jupyter server's own address only, never to one named.
"""

from __future__ import annotations

import http.server
import threading
from typing import Any

import pytest

from mcp_notebook.client._configs import CLIENTS

pytestmark = pytest.mark.kernel

PLACEHOLDER = "<YOUR-JUPYTER-TOKEN>"


@pytest.mark.parametrize("client", CLIENTS)
def test_no_configuration_through_jupyter_holds_the_jupyter_token(jupyter_shop: Any, client: str) -> None:
    token = jupyter_shop.server.token
    pasted = f"{jupyter_shop.server.url}/lab/tree/shop.ipynb?token={token}"
    for options in ("via='jupyter'", f"jupyter_url={pasted!r}"):
        text = jupyter_shop.kernel.json(f"srv.client_config({client!r}, {options})")
        assert token not in text
        assert PLACEHOLDER in text.rpartition("\n\n{")[2]  # in the configuration, where the token goes
        assert "/mcp-notebook/shop/mcp" in text
    assert jupyter_shop.kernel.json("srv.clients") == []  # nor a client token made for it


def test_the_check_never_sends_the_jupyter_token_to_an_address_given(jupyter_shop: Any) -> None:
    """A named address is where clients go; the kernel's check goes to the server's own address."""
    seen: list[str] = []

    class Collector(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(self.headers.get("Authorization", ""))
            self.send_error(404)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    collector = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    try:
        named = f"http://127.0.0.1:{collector.server_address[1]}/"
        outcome = jupyter_shop.kernel.json(f"(lambda r: [r.ok, r.message])(srv.check(jupyter_url={named!r}))")
    finally:
        collector.shutdown()
        collector.server_close()
    assert outcome[0] is True, outcome[1]  # checked through the Jupyter server itself
    assert seen == []
