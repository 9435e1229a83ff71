"""Where a kernel on JupyterHub is reached from outside, and how a client gets in.

A JupyterHub single-user server hands its kernels the hub's environment (``JUPYTERHUB_USER``,
``JUPYTERHUB_SERVICE_PREFIX``, ``JUPYTERHUB_PUBLIC_URL`` ...). There, a desktop client reaches
the notebook's MCP server through the hub, at this student's server path served by the Jupyter
server extension (`mcp_notebook.jupyter`), with a token the student makes on the hub's token
page: never the in-kernel server's own token, which works on loopback only and names the notebook's
owner rather than the person the hub logged in.

Binder runs on JupyterHub too, but its users have no hub login to make a token with: a Binder
kernel stays out of reach (`mcp_notebook.client._configs.remote_warning`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

from ..core._text import t

TOKEN_PLACEHOLDER = "<YOUR-HUB-TOKEN>"
"""What a client configuration on a hub holds where the student's hub token goes."""
ADDRESS_PLACEHOLDER = "https://YOUR-HUB-ADDRESS"
"""The hub's public address when the hub does not tell its servers (no ``JupyterHub.public_url``)."""
_BINDER_ENV = ("BINDER_SERVICE_HOST", "BINDER_REQUEST", "BINDER_LAUNCH_HOST")


@dataclass(frozen=True)
class HubLocation:
    """This kernel's single-user server on a JupyterHub, as its environment describes it.

    Attributes
    ----------
    user:
        The hub user whose server this is (``JUPYTERHUB_USER``).
    public_url:
        The server's public URL (``JUPYTERHUB_PUBLIC_URL``, e.g. ``https://hub.example.org/user/alice/``),
        or None when the hub does not know its own public address.
    prefix:
        The server's path on the hub (``JUPYTERHUB_SERVICE_PREFIX``, ``/user/alice/``).
    service_url:
        Where the server itself listens, from inside the hub's network (``JUPYTERHUB_SERVICE_URL``).
    hub_url:
        The hub's public URL (``JUPYTERHUB_PUBLIC_HUB_URL``, ``https://hub.example.org/hub/``), or None.
    """

    user: str
    public_url: str | None
    prefix: str
    service_url: str | None
    hub_url: str | None

    @property
    def known_address(self) -> bool:
        return self.public_url is not None

    def mcp_url(self, server_name: str) -> str:
        """The URL a client outside uses for the MCP server named `server_name` (``srv.name``)."""
        base = self.public_url or f"{ADDRESS_PLACEHOLDER}{self.prefix}"
        return f"{_slash(base)}mcp-notebook/{quote(server_name, safe='')}/mcp"

    def inside_url(self, server_name: str) -> str:
        """The same endpoint as reached from inside the hub (the server's own address), for checks."""
        base = self.public_url or self.service_url or f"{ADDRESS_PLACEHOLDER}{self.prefix}"
        return f"{_slash(base)}mcp-notebook/{quote(server_name, safe='')}/mcp"

    @property
    def token_page(self) -> str:
        return f"{_slash(self.hub_url)}token" if self.hub_url else f"{ADDRESS_PLACEHOLDER}/hub/token"

    @property
    def scope(self) -> str:
        return f"access:servers!user={self.user}"

    def note(self) -> str:
        """What a student must do before the configuration works (the token), in the current language."""
        text = t(
            "hub.config_note",
            user=self.user,
            token_page=self.token_page,
            scope=self.scope,
            placeholder=TOKEN_PLACEHOLDER,
        )
        if not self.known_address:
            text += "\n" + t("hub.address_unknown", placeholder=ADDRESS_PLACEHOLDER)
        return text


def hub_location(environ: Mapping[str, str] | None = None) -> HubLocation | None:
    """Where this kernel's server is on a JupyterHub, or None when it is not on one (or on Binder)."""
    env = os.environ if environ is None else environ
    user = env.get("JUPYTERHUB_USER", "").strip()
    prefix = env.get("JUPYTERHUB_SERVICE_PREFIX", "").strip()
    if not user or not prefix or any(env.get(name) for name in _BINDER_ENV):
        return None
    return HubLocation(
        user=user,
        public_url=env.get("JUPYTERHUB_PUBLIC_URL", "").strip() or None,
        prefix=_slash(prefix),
        service_url=env.get("JUPYTERHUB_SERVICE_URL", "").strip() or None,
        hub_url=env.get("JUPYTERHUB_PUBLIC_HUB_URL", "").strip() or None,
    )


def hub_check_token(environ: Mapping[str, str] | None = None) -> str | None:
    """The token a connection check inside the kernel may use on a hub: the server's own API token.

    The hub gives every single-user server a token that may access that server
    (``access:servers!server=<user>/``), and the kernel inherits it. It proves the server's user,
    as a student's own token would; it is used for checks only and never written into a configuration.
    """
    env = os.environ if environ is None else environ
    return env.get("JUPYTERHUB_API_TOKEN") or None


def _slash(url: str | None) -> str:
    text = url or ""
    return text if text.endswith("/") else text + "/"
