"""The Jupyter Server face: each kernel's MCP server under the Jupyter server's own URL and login.

Enabled on install (``jupyter-config/jupyter_server_config.d/mcp_notebook.json``; check with
``jupyter server extension list``). For every kernel whose notebook ran ``%mcp_serve``::

    {base_url}mcp-notebook/<server name or kernel id>/mcp     the MCP endpoint (POST, GET, DELETE)
    {base_url}mcp-notebook                                    this server's MCP servers (JSON)

On JupyterHub, ``{base_url}`` is ``/user/<name>/`` on the hub's public address. Jupyter
authenticates every request (the Jupyter token locally; the hub's login cookie or an API token
with the ``access:servers`` scope on a hub) and the extension forwards it to the in-kernel server
on loopback with that server's forwarder credential, naming the authenticated user, who becomes
the call's identity (``jupyter:<user>``). See `mcp_notebook.jupyter._forward`.
"""

from __future__ import annotations

from typing import Any


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "mcp_notebook.jupyter"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    # Imported here, when a Jupyter server loads the extension: `import mcp_notebook` stays cheap.
    from ._forward import handlers

    serverapp.web_app.add_handlers(".*$", handlers(serverapp.web_app.settings["base_url"]))
    serverapp.log.info(
        "mcp-notebook: kernels' MCP servers are served under %smcp-notebook/", serverapp.base_url
    )
