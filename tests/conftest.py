"""Shared fixtures: a real in-kernel-style server on 127.0.0.1 (port 0) and real SDK clients."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

import anyio
import pytest

from mcp_notebook import Catalogue, serve
from mcp_notebook.client._http import tls_context


@pytest.fixture(scope="module")
def authority() -> Iterator[Any]:
    """A test OAuth authorization server: signs access tokens, serves its JWKS (`tests.oauth`)."""
    from tests.oauth import AuthorizationServer  # PyJWT and cryptography: only for the OAuth tests

    server = AuthorizationServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def oauth_app(tmp_path_factory: pytest.TempPathFactory, authority: Any) -> Iterator[Any]:
    """The example notebook exported and served by uvicorn as an OAuth resource server of `authority`."""
    from tests.oauth import served_with_oauth

    replica = served_with_oauth(tmp_path_factory.mktemp("oauth"), authority)
    try:
        yield replica
    finally:
        replica.stop()


@pytest.fixture(autouse=True, scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Audit logs, idempotency stores and lesson progress of tests go to a scratch folder, not the home folder."""
    folder = tmp_path_factory.mktemp("cache")
    saved = {name: os.environ.get(name) for name in ("MCP_NOTEBOOK_CACHE_DIR", "MCP_NOTEBOOK_DATA_DIR")}
    os.environ["MCP_NOTEBOOK_CACHE_DIR"] = str(folder)
    os.environ["MCP_NOTEBOOK_DATA_DIR"] = str(folder / "data")
    yield folder
    for name, before in saved.items():
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    """Messages in English whatever the machine's locale; a test that wants Korean switches itself."""
    from mcp_notebook import get_language, set_language

    before = get_language()
    set_language("en")
    try:
        yield
    finally:
        set_language(before)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def catalogue() -> Catalogue:
    return Catalogue()


def serve_unattended(catalogue: Catalogue, **options: Any) -> Any:
    """A server that runs every call without asking a person (most tests are not about approval)."""
    with pytest.warns(UserWarning, match="approval='auto'"):
        return serve(catalogue=catalogue, approval="auto", **options)


@pytest.fixture(scope="module")
def kernel() -> Iterator[Any]:
    """One real Jupyter kernel for a test module (a module may override it to prepare the kernel)."""
    from tests.kernel import Kernel  # jupyter_client: only for the modules that start a kernel

    k = Kernel()
    try:
        yield k
    finally:
        k.shutdown()


@pytest.fixture(scope="session")
def jupyter_shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A real Jupyter server (the extension enabled by the install) with one kernel serving ``shop``."""
    import secrets

    from tests.jupyter.servers import SERVE, ServedKernel, jupyter_server

    with jupyter_server(tmp_path_factory.mktemp("jupyter"), secrets.token_urlsafe(24)) as jupyter:
        kernel_id, kernel = jupyter.start_kernel()
        try:
            kernel.run(SERVE, timeout=120).raise_for_error()
            yield ServedKernel(jupyter, kernel_id, kernel)
        finally:
            kernel.shutdown()


@pytest.fixture(scope="session")
def classroom(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One real JupyterHub for the run (tests/hub/hub.py): three students serving ``shop``, a teacher.

    tests/hub/test_hub.py stops alice's server last in its module; later users of the fixture use
    bob's and carol's.
    """
    from tests.hub.hub import running_classroom

    with running_classroom(tmp_path_factory.mktemp("hub")) as room:
        yield room


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
        httpx2.AsyncClient(
            verify=tls_context(), headers=headers, timeout=httpx2.Timeout(30, read=300)
        ) as http,
        Client(streamable_http_client(srv.url, http_client=http), mode=mode, **kwargs) as client,
    ):
        yield client


def until(condition: Any, timeout: float = 15) -> bool:
    """Poll `condition` until it holds or `timeout` passes (a deadline, not a sleep to synchronise)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        threading.Event().wait(0.02)
    return True


def outside_call(srv: Any, name: str, arguments: dict[str, Any]) -> Any:
    async def main() -> Any:
        with anyio.fail_after(60):
            async with connect(srv, "auto") as client:
                return await client.call_tool(name, arguments)

    return anyio.run(main)


# How scripts/check spreads the suite over processes: hooks of pytest and pytest-xdist (tests/spread.py).
from tests.spread import (  # noqa: E402
    pytest_collection_modifyitems,
    pytest_configure_node,
    pytest_unconfigure,
    pytest_xdist_make_scheduler,
)

__all__ = [
    "pytest_collection_modifyitems",
    "pytest_configure_node",
    "pytest_unconfigure",
    "pytest_xdist_make_scheduler",
]
