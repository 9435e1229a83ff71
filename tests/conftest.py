"""Shared fixtures: a real in-kernel-style server on 127.0.0.1 (port 0) and real SDK clients."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

import pytest

from mcp_notebook import Catalogue, serve


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def catalogue() -> Catalogue:
    return Catalogue()


def serve_unattended(catalogue: Catalogue, **options: Any) -> Any:
    """A server that runs every call without asking a person (most tests are not about approval)."""
    with pytest.warns(UserWarning, match="Approval is OFF"):
        return serve(catalogue=catalogue, approval="auto", **options)


@pytest.fixture
def server(catalogue: Catalogue) -> Iterator[Any]:
    srv = serve_unattended(catalogue)
    try:
        yield srv
    finally:
        srv.stop()


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
"""A raw handshake-era initialize request, for tests that speak HTTP without the SDK."""

Mode = Literal["legacy", "auto", "2026-07-28"]
ERAS: list[Mode] = ["legacy", "auto"]  # "auto" discovers the 2026-07-28 era on our server


@contextlib.asynccontextmanager
async def connect(srv: Any, mode: Mode, **kwargs: Any) -> AsyncIterator[Any]:
    """A real SDK client over Streamable HTTP, with the server's token as a bearer header."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {srv.token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
        Client(streamable_http_client(srv.url, http_client=http), mode=mode, **kwargs) as client,
    ):
        yield client
