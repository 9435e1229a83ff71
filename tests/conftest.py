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
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
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


SPREAD = "spread"
"""Marks a parametrized test whose cases may each run in a process of their own under pytest-xdist,
though they share a module's fixture (each case minutes long, each worth its own start): see
`pytest_collection_modifyitems`."""

CHEAP_SESSION_FIXTURES = frozenset({"cache_dir"})
"""Session fixtures of ours that every test uses and that cost nothing to make again per process."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Say which tests must share a process when `scripts/check` spreads the suite (``--dist loadgroup``).

    A test that uses only function-scoped fixtures goes to whichever process is free. Tests that
    share something started once for them stay in one process, so that it starts once: a session
    fixture of ours (a JupyterHub, a Jupyter server, Redis, Node peers) groups every test that uses
    it; a module's or a class's fixture (a kernel, an exported app) groups its file. A notebook's
    cells under nbval run in order in one kernel: a notebook is one group. A parametrized test
    marked ``spread`` is the exception: each case is a group of its own.
    """
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        group = _group_of(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(name=group))


def _group_of(item: pytest.Item) -> str | None:
    file = item.nodeid.split("::", 1)[0]
    if item.get_closest_marker(SPREAD) is not None:
        return item.nodeid
    info = getattr(item, "_fixtureinfo", None)  # pytest's own record of the fixtures a test uses
    if info is None:  # not a Python test function: a notebook cell under nbval
        return file
    shared_in_session: list[str] = []
    shared_in_file = False
    for name, definitions in info.name2fixturedefs.items():
        definition = definitions[-1]
        if definition.scope == "session":
            if _ours(definition) and name not in CHEAP_SESSION_FIXTURES:
                shared_in_session.append(name)
        elif definition.scope in ("module", "class", "package"):
            shared_in_file = True
    if shared_in_session:
        return "session:" + min(shared_in_session)
    return file if shared_in_file else None


def _ours(definition: Any) -> bool:
    """Whether a fixture is defined by these tests (not by pytest or a plugin: ``tmp_path_factory``)."""
    module = getattr(definition.func, "__module__", "") or ""
    return module.startswith("tests") or str(definition.baseid).startswith("tests")
