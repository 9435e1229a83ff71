"""Where a kernel's Jupyter server is reached from elsewhere, and how a client gets in through it.

A kernel that a Jupyter server started knows the server's process id (``JPY_PARENT_PID``, which
jupyter_client sets; else the kernel's parent), and the server describes itself in
``jpserver-<pid>.json`` in its runtime folder, beside the kernel's connection file: its address,
port and base URL. When that address is not loopback (``--ip=0.0.0.0``, one of the machine's own
addresses), or the person names the address clients use (``MCP_NOTEBOOK_JUPYTER_URL`` or
``jupyter_url=``: a container's port mapping, a proxy), a client on another machine reaches the
notebook's MCP server only through the Jupyter server extension (`mcp_notebook.jupyter`), at
``{Jupyter URL}mcp-notebook/<name>/mcp``, with a Jupyter token.

A configuration holds a placeholder where that token goes, never the token itself: the Jupyter
token opens the whole Jupyter server (terminals, files, every kernel), where a client token of
the in-kernel server opens this notebook's tools only and is revoked alone. The token the server
wrote for itself is read for connection checks only.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from ..core._text import t

JUPYTER_URL_ENV = "MCP_NOTEBOOK_JUPYTER_URL"
"""The Jupyter server's address as clients reach it, where the server cannot know it (a proxy, a container)."""
TOKEN_PLACEHOLDER = "<YOUR-JUPYTER-TOKEN>"
"""What a client configuration through Jupyter holds where the person's Jupyter token goes."""
_WILDCARD = ("", "0.0.0.0", "::")
# What JupyterLab, Notebook 7 and the classic tree add after the server's base URL in the address bar.
_FRONTEND_PATH = re.compile(r"/(?:lab|tree|notebooks|doc|edit|terminals)(?:/.*)?$")


@dataclass(frozen=True)
class JupyterLocation:
    """The Jupyter server that runs this kernel, as clients and this machine reach it.

    Attributes
    ----------
    public_url:
        The server's base URL as a client elsewhere uses it, ending in ``/``.
    local_url:
        The same server as reached from this machine (for checks), or None when unknown.
    loopback:
        Whether the server listens on loopback only (then only this machine reaches it).
    given:
        Whether `public_url` was given (``MCP_NOTEBOOK_JUPYTER_URL``, ``jupyter_url=``) rather
        than read from the server.
    """

    public_url: str
    local_url: str | None
    loopback: bool
    given: bool
    check_token: str | None = field(default=None, repr=False)

    @property
    def preferred(self) -> bool:
        """Whether a configuration should go through Jupyter unasked: the kernel's loopback URL
        serves this machine only, and this server is reached from elsewhere (or named for that)."""
        return self.given or not self.loopback

    def mcp_url(self, server_name: str) -> str:
        """The URL a client uses for the MCP server named `server_name` (``srv.name``)."""
        return f"{self.public_url}mcp-notebook/{quote(server_name, safe='')}/mcp"

    def inside_url(self, server_name: str) -> str:
        """The same endpoint as reached from this machine, for checks."""
        return f"{self.local_url or self.public_url}mcp-notebook/{quote(server_name, safe='')}/mcp"

    def note(self) -> str:
        """How to get the Jupyter token the configuration needs, in the current language."""
        text = t("jupyter_config.note", url=self.public_url, placeholder=TOKEN_PLACEHOLDER)
        if not self.given:
            text += "\n" + t("jupyter_config.address", env=JUPYTER_URL_ENV)
        return text


def base_url(url: str) -> str:
    """A Jupyter server's base URL from an address a person gives: what follows it in the address
    bar (``lab``, ``tree/...``), the query (``?token=...``: never copied into a configuration) and
    the fragment are dropped.

    Raises
    ------
    ValueError
        `url` is not an http(s) URL with a host.
    """
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(t("jupyter_config.bad_url", url=url, env=JUPYTER_URL_ENV))
    path = _FRONTEND_PATH.sub("", parts.path)
    return urlunsplit((parts.scheme, parts.netloc, path.rstrip("/") + "/", "", ""))


def jupyter_location(
    folders: Iterable[str | os.PathLike[str]],
    *,
    url: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> JupyterLocation | None:
    """The Jupyter server that started this kernel, from its ``jpserver-<pid>.json`` in `folders`.

    `url` (else ``MCP_NOTEBOOK_JUPYTER_URL``) is its address as clients reach it. None when no
    server is found and no address is given.

    Raises
    ------
    ValueError
        The address given is not an http(s) URL.
    """
    env = os.environ if environ is None else environ
    given = url or env.get(JUPYTER_URL_ENV, "").strip() or None
    info = _server_info(folders, env.get("JPY_PARENT_PID", "").strip() or str(os.getppid()))
    if info is None:
        if given is None:
            return None
        return JupyterLocation(base_url(given), None, loopback=False, given=True)
    host = str(info.get("hostname") or "")
    scheme = "https" if info.get("secure") else "http"
    path = "/" + str(info.get("base_url") or "/").strip("/")
    path = path.rstrip("/") + "/"
    local_host = ("[::1]" if ":" in host else "127.0.0.1") if host in _WILDCARD else _bracketed(host)
    local = f"{scheme}://{local_host}:{info['port']}{path}"
    public = base_url(given) if given is not None else _slash(str(info.get("url") or local))
    token = info.get("token")
    return JupyterLocation(
        public,
        local,
        loopback=_is_loopback(host),
        given=given is not None,
        check_token=token if isinstance(token, str) and token else None,
    )


def _server_info(folders: Iterable[str | os.PathLike[str]], pid: str) -> dict[str, Any] | None:
    if not pid.isdigit():
        return None
    for folder in folders:
        path = Path(folder) / f"jpserver-{pid}.json"
        with contextlib.suppress(OSError, ValueError):
            info = json.loads(path.read_text(encoding="utf-8"))
            # A server on a Unix socket has no address a client could use.
            if isinstance(info, dict) and info.get("port") and not info.get("sock"):
                return info
    return None


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _slash(url: str) -> str:
    return url if url.endswith("/") else url + "/"
