"""An exported app as an OAuth resource server, on 127.0.0.1, for chapter 11.

`ProtectedApp` serves a catalogue's tools the way ``mcp-notebook export`` serves a notebook's
(`mcp_notebook.asgi_app`: unattended approval, the service's gate), with its ``[oauth]`` settings
pointing at the lessons' `AuthorizationServer`: tokens are checked against its keys, and the app
publishes its protected-resource metadata (RFC 9728). Its resource is its own URL,
``http://127.0.0.1:PORT/mcp``: the socket is bound first (port 0), so the URL is known before the
app is built. uvicorn runs it in a thread of its own, as a separate machine would.

An exported app sends its logs to stdout, as services do; in a kernel that would print into
whichever cell runs, so the kernel's loggers are put back once the app has started.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from collections.abc import Iterable, Iterator
from typing import Any

import uvicorn

from .authorization import AuthorizationServer

_LOGGERS = ("mcp_notebook", "uvicorn.error")
START_TIMEOUT = 30.0


class ProtectedApp:
    """`catalogue`'s tools as an exported app that accepts `authority`'s access tokens.

    Parameters
    ----------
    catalogue:
        What the app serves (a `mcp_notebook.Catalogue`).
    authority:
        The authorization server whose tokens it accepts; the app's resource is registered with it.
    scopes:
        The scopes every request's token must hold.
    """

    def __init__(
        self, catalogue: Any, authority: AuthorizationServer, *, scopes: Iterable[str] = ("mcp:tools",)
    ) -> None:
        from mcp_notebook import asgi_app

        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}/mcp"
        self.scopes = tuple(scopes)
        self.catalogue = catalogue
        with _loggers_kept():
            self.app = asgi_app(
                catalogue,
                environ={},  # the notebook's environment configures nothing here
                name="lesson-notes",
                store="memory://",
                audit_log="off",
                log_format="text",
                log_level="error",
                oauth_issuer=authority.issuer,
                oauth_jwks_url=authority.jwks_url,
                oauth_resource=self.url,
                oauth_scopes=list(self.scopes),
            )
        authority.resources.append(self.url)
        config = uvicorn.Config(self.app, log_config=None, access_log=False, lifespan="on")
        self._server = _Uvicorn(config)
        with _loggers_kept():
            self._thread = threading.Thread(target=self._run, name="lesson-protected-app", daemon=True)
            self._thread.start()
            if not self._server.ready.wait(START_TIMEOUT) or not self._server.started:
                self.stop()
                raise RuntimeError("the lesson's protected app did not start")

    @property
    def metadata_url(self) -> str:
        """Where its protected-resource metadata is (RFC 9728: the well-known path, then the resource's path)."""
        origin = self.url.removesuffix("/mcp")
        return f"{origin}/.well-known/oauth-protected-resource/mcp"

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        await self._server.serve(sockets=[self._socket])
        # The app's lifespan ends on its own just after uvicorn's: let it, rather than have
        # asyncio.run cancel it (which uvicorn reports as an exception of the lifespan).
        others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        if others:
            await asyncio.wait(others, timeout=START_TIMEOUT)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join()
        self._socket.close()


class _Uvicorn(uvicorn.Server):
    """uvicorn that says when it is listening (or gave up), so starting never polls."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets=sockets)
        finally:
            self.ready.set()


@contextlib.contextmanager
def _loggers_kept() -> Iterator[None]:
    """The kernel's loggers as they were, whatever the app sets up meanwhile."""
    saved = []
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        saved.append((logger, list(logger.handlers), logger.level, logger.propagate))
    try:
        yield
    finally:
        for logger, handlers, level, propagate in saved:
            logger.handlers, logger.propagate = handlers, propagate
            logger.setLevel(level)
