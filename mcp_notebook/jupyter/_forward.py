"""Forward MCP requests from the Jupyter server to a kernel's in-kernel server, streaming.

One handler per route (see `handlers`). Each request goes through Jupyter's own authentication
and authorization first (`APIHandler.prepare`, then ``@authorized("execute", "kernels")``: a
tool call runs code in the kernel, so it needs what running a cell needs). Then:

- the kernel is one this Jupyter server runs (its kernel manager knows the id, or the server name
  in its link names it), and its link file is found next to its connection file: nothing the
  client says picks a port or a credential;
- the request goes to the kernel's loopback server with the forwarder credential and the
  authenticated user's name in ``X-MCP-Notebook-User`` (whatever the client sent in that header,
  or as ``Authorization``, cookies or ``?token=``, stays here: Jupyter's credentials never reach
  the kernel's server);
- the answer streams back as it comes, one ``flush`` per chunk, for both eras (a JSON body or an
  SSE stream, the handshake era's GET stream too); a client that hangs up ends the upstream request.

A request with no credential at all gets 401 (what an MCP client expects before it asks its user
for a token), where Jupyter would say 403; a credential that Jupyter refuses, or a user without
access to this server, keeps Jupyter's answer.
"""

from __future__ import annotations

import asyncio
import getpass
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx2
from jupyter_server.auth import IdentityProvider
from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web
from tornado.iostream import StreamClosedError

from ..core._identity import FORWARDED_USER_HEADER
from ..core._kernel_link import KernelLink, link_path, read_link
from ..core._text import t

# What an MCP request or answer needs on its way through; everything else stays behind (Jupyter's
# cookies and Authorization above all).
_REQUEST_HEADERS = frozenset(
    {
        "accept",
        "content-type",
        "mcp-protocol-version",
        "mcp-session-id",
        "mcp-method",
        "mcp-name",
        "last-event-id",
    }
)
_RESPONSE_HEADERS = frozenset({"content-type", "mcp-session-id", "mcp-protocol-version", "cache-control"})
_CONNECT_TIMEOUT = 10.0


_client: httpx2.AsyncClient | None = None


def _upstream() -> httpx2.AsyncClient:
    """One HTTP client for every forwarded request, made on first use on the Jupyter server's loop.

    One, not one per request: making a client costs more than forwarding a call (it builds a TLS
    context), and a kept-alive connection to the kernel's server saves a TCP handshake per call.
    """
    global _client
    if _client is None:
        _client = httpx2.AsyncClient(
            timeout=httpx2.Timeout(_CONNECT_TIMEOUT, read=None),  # an SSE stream may be quiet for long
            trust_env=False,  # loopback only: no proxy from the environment
        )
    return _client


def handlers(base_url: str) -> list[tuple[str, type[web.RequestHandler]]]:
    """The extension's routes under the Jupyter server's `base_url`."""
    return [
        (url_path_join(base_url, "mcp-notebook"), ServersHandler),
        (url_path_join(base_url, r"mcp-notebook/([^/]+)/mcp"), ForwardHandler),
    ]


class _KernelServers(APIHandler):
    """What both handlers share: authentication that says 401 to a client without a credential,
    and the links of this server's kernels."""

    auth_resource = "kernels"

    async def prepare(self) -> None:  # type: ignore[override]
        try:
            await super().prepare()
        except web.HTTPError as refused:
            if refused.status_code == 403 and not self.current_user and not self._sent_credential():
                raise web.HTTPError(401, t("jupyter.unauthorized")) from None
            raise

    def get_login_url(self) -> str:
        # A GET without a login is sent to the login page by Jupyter (403 for its APIs): an MCP
        # client without a credential learns it needs one instead.
        if not self.current_user and not self._sent_credential():
            raise web.HTTPError(401, t("jupyter.unauthorized"))
        return str(super().get_login_url())

    def _sent_credential(self) -> bool:
        return bool(
            self.request.headers.get("Authorization")
            or self.get_query_argument("token", None)
            or self.request.headers.get("Cookie")
        )

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        if status_code == 401:
            self.set_header("WWW-Authenticate", 'Bearer realm="jupyter"')
        super().write_error(status_code, **kwargs)

    def links(self) -> list[KernelLink]:
        """The links of the kernels this Jupyter server runs (kernels without a running server have none)."""
        found = []
        for kernel_id in self.kernel_manager.list_kernel_ids():
            link = self._link_of(kernel_id)
            if link is not None:
                found.append(link)
        return found

    def _link_of(self, kernel_id: str) -> KernelLink | None:
        try:
            kernel = self.kernel_manager.get_kernel(kernel_id)
        except KeyError:
            return None
        connection_file = getattr(kernel, "connection_file", None)
        if not connection_file:
            return None
        try:
            folder = link_path(Path(connection_file).parent, kernel_id).parent
        except ValueError:
            return None
        return read_link(folder, kernel_id)

    def find(self, key: str) -> KernelLink:
        """The link of the kernel `key` names (a kernel id, else a server name), or an HTTP error saying why."""
        if key in self.kernel_manager.list_kernel_ids():
            link = self._link_of(key)
            if link is not None:
                return link
        links = self.links()
        named = [link for link in links if link.name == key]
        if len(named) == 1:
            return named[0]
        if named:
            kernels = ", ".join(link.kernel_id for link in named)
            raise web.HTTPError(409, t("jupyter.ambiguous", key=key, kernels=kernels))
        known = ", ".join(sorted(repr(link.name) for link in links)) or t("none")
        raise web.HTTPError(404, t("jupyter.no_server", key=key, known=known))

    def identity(self) -> str:
        """The authenticated Jupyter user's name, as the kernel's server will know them (``jupyter:<name>``).

        A plain Jupyter server (the identity providers of jupyter_server itself: a token or a
        password) has one person behind it, whoever holds the token, and makes up a new anonymous
        user for each request that brings the token: the name would change with every request.
        That person runs the server, so the server's system user names them. Other providers
        (JupyterHub's) name real users.
        """
        if type(self.identity_provider).__module__ == IdentityProvider.__module__:
            return getpass.getuser()
        user = self.current_user
        return str(user.username)


class ServersHandler(_KernelServers):
    """``GET {base_url}mcp-notebook``: the MCP servers of this Jupyter server's kernels."""

    @web.authenticated
    @authorized("read", "kernels")
    async def get(self) -> None:
        base = url_path_join(self.base_url, "mcp-notebook")
        servers = [
            {
                "kernel_id": link.kernel_id,
                "name": link.name,
                "path": url_path_join(base, quote(link.name, safe=""), "mcp"),
            }
            for link in self.links()
        ]
        self.finish(json.dumps({"servers": servers}))


class ForwardHandler(_KernelServers):
    """``{base_url}mcp-notebook/<server name or kernel id>/mcp``: the kernel's MCP endpoint, forwarded."""

    _task: asyncio.Task[None] | None = None
    _hung_up = False

    @web.authenticated
    @authorized("execute", "kernels")
    async def post(self, key: str) -> None:
        await self._forward(key)

    @web.authenticated
    @authorized("execute", "kernels")
    async def get(self, key: str) -> None:
        await self._forward(key)

    @web.authenticated
    @authorized("execute", "kernels")
    async def delete(self, key: str) -> None:
        await self._forward(key)

    def on_connection_close(self) -> None:
        # The client hung up: end the upstream request too (the in-kernel server then withdraws a
        # call waiting for approval, and closes a GET stream).
        self._hung_up = True
        if self._task is not None:
            self._task.cancel()

    async def _forward(self, key: str) -> None:
        link = self.find(key)  # tornado has unquoted the path segment
        self._task = asyncio.ensure_future(self._relay(link))
        try:
            await self._task
        except asyncio.CancelledError:
            if self._hung_up:
                return  # the client went away; nothing left to answer
            raise

    async def _relay(self, link: KernelLink) -> None:
        headers = {
            name: value for name, value in self.request.headers.get_all() if name.lower() in _REQUEST_HEADERS
        }
        headers["Authorization"] = f"Bearer {link.credential}"
        headers[FORWARDED_USER_HEADER] = quote(self.identity(), safe="")
        method = self.request.method or "GET"
        body = self.request.body if method == "POST" else None
        try:
            async with _upstream().stream(method, link.url, headers=headers, content=body) as answer:
                if answer.status_code == 401:
                    raise web.HTTPError(502, t("jupyter.stale_link", kernel=link.kernel_id))
                self.set_status(answer.status_code)
                for name, value in answer.headers.items():
                    if name.lower() in _RESPONSE_HEADERS:
                        self.set_header(name, value)
                if answer.headers.get("content-type", "").startswith("text/event-stream"):
                    self.set_header("X-Accel-Buffering", "no")  # nginx and the like: do not buffer
                async for chunk in answer.aiter_raw():
                    self.write(chunk)
                    try:
                        await self.flush()
                    except StreamClosedError:
                        return
        except httpx2.TransportError as exc:
            if self._headers_written:
                return  # the stream broke midway: the client sees it end
            raise web.HTTPError(
                502, t("jupyter.unreachable", kernel=link.kernel_id, error=type(exc).__name__)
            ) from None
        if not self._finished:
            self.finish()
