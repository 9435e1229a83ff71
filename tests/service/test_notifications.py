"""An exported app tells subscribers of changes, whichever process made them (README "Serving an
exported app": what updates reach whom).

A notebook of our own is exported: a tool that calls ``publish()`` (the counter), one that
publishes a marker, one that publishes a new resource, and ``served_by``. Real SDK clients of both
eras subscribe on one process; the tool runs in another (a worker of ``uvicorn --workers 2``, or
the other of two replicas behind HAProxy, sharing Redis or one SQLite file). Each update reaches
each subscriber once: the subscriber waits for the marker it asked to hear after the counter, so
a second counter update, had one been sent, would have come before it.
"""

from __future__ import annotations

import contextlib
import json
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import nbformat
import pytest
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client

from mcp_notebook.cli._export import export_notebook
from mcp_notebook.client._http import tls_context
from tests.exported import service_environ, token_of
from tests.services import HAProxy, RedisServer, Replica

pytestmark = [pytest.mark.replicas, pytest.mark.anyio]

COUNTER, MARKER = "notes://counter", "notes://marker"
CELLS = [
    "import os\nfrom mcp_notebook import publish, tool",
    f'publish("0", "{COUNTER}", name="counter")\npublish("0", "{MARKER}", name="marker")',
    '''@tool(read_only=True)
def served_by() -> dict:
    """Which process answered."""
    return {"pid": os.getpid()}''',
    f'''@tool
def bump(n: int) -> str:
    """Publish n as the counter."""
    publish(str(n), "{COUNTER}", name="counter")
    return f"counter is {{n}}"''',
    f'''@tool
def mark(n: int) -> str:
    """Publish n as the marker."""
    publish(str(n), "{MARKER}", name="marker")
    return f"marker is {{n}}"''',
    '''@tool
def add_note(name: str) -> str:
    """Publish a new note."""
    return publish(name, f"notes://{name}", name=name)''',
]
WAIT = 10  # seconds any notification may take, at most, on a loaded machine


def export_counter_app(folder: Path) -> Path:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in CELLS])
    nbformat.write(notebook, folder / "counter.ipynb")
    (folder / "app.py").write_text(export_notebook(folder / "counter.ipynb"), encoding="utf-8")
    return folder


def environ_for(folder: Path, store: str) -> dict[str, str]:
    return service_environ(folder, store, MCP_NOTEBOOK_ALLOW_TOOLS="bump,mark,add_note")


class Heard:
    """The change notifications one client received, waited for by kind and URI."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        self._changed = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.seen.append(("updated", str(message.params.uri)))
        elif isinstance(message, types.ResourceListChangedNotification):
            self.seen.append(("list_changed", "resources"))
        else:
            return
        self._changed.set()
        self._changed = anyio.Event()

    async def wait_for(self, kind: str, what: str) -> None:
        with anyio.fail_after(WAIT):
            while (kind, what) not in self.seen:
                await self._changed.wait()

    def count(self, kind: str, what: str) -> int:
        return self.seen.count((kind, what))


@contextlib.asynccontextmanager
async def client_to(
    url: str, mode: Any, *, one_connection: bool = False, **kwargs: Any
) -> AsyncIterator[Client]:
    """An SDK client as `client01`; `one_connection`: every request on one kept-alive connection,
    so (under ``--workers``) one worker serves all of them."""
    limits = httpx2.Limits(max_connections=1) if one_connection else httpx2.Limits()
    async with (
        httpx2.AsyncClient(
            verify=tls_context(),
            headers={"Authorization": f"Bearer {token_of('client01')}"},
            timeout=httpx2.Timeout(30, read=120),
            transport=httpx2.AsyncHTTPTransport(limits=limits),
        ) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode, **kwargs) as session,
    ):
        yield session


async def pid_of(session: Client) -> int:
    result = await session.call_tool("served_by", {})
    assert result.is_error is False, result
    return int(result.structured_content["pid"])  # type: ignore[index]


async def call(session: Client, tool: str, **arguments: Any) -> None:
    result = await session.call_tool(tool, arguments)
    assert result.is_error is False, result


@contextlib.asynccontextmanager
async def subscribed(url: str, mode: str, heard: Heard) -> AsyncIterator[int]:
    """A client of `mode` subscribed to the counter, the marker and the resource list; yields the
    pid of the process that holds its subscription."""
    async with client_to(url, mode, one_connection=mode != "legacy", message_handler=heard) as session:
        pid = await pid_of(session)
        if mode == "legacy":  # a session: its GET stream and its requests stay on one replica here
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # deprecated for 2026 clients only
                await session.subscribe_resource(COUNTER)
                await session.subscribe_resource(MARKER)
            yield pid
            return
        # On the one connection that served_by used: the same process holds the listen stream.
        async with session.listen(resource_subscriptions=[COUNTER, MARKER], resources_list_changed=True):
            yield pid


async def changes_reach(heard: Heard, tools: Client, n: int) -> None:
    """The tool client bumps the counter, then the marker: the subscriber hears the counter once."""
    await call(tools, "bump", n=n)
    await call(tools, "mark", n=n)
    await heard.wait_for("updated", MARKER)
    assert heard.count("updated", COUNTER) == 1, heard.seen
    assert heard.count("updated", MARKER) == 1, heard.seen
    await call(tools, "add_note", name=f"note{n}")
    await heard.wait_for("list_changed", "resources")


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_single_worker_app_tells_subscribers_of_a_published_change(tmp_path: Path, mode: str) -> None:
    folder = export_counter_app(tmp_path)
    replica = Replica(folder, environ_for(folder, f"sqlite:///{folder / 'state.sqlite3'}"))
    try:
        heard = Heard()
        async with subscribed(replica.url, mode, heard), client_to(replica.url, mode) as tools:
            await changes_reach(heard, tools, 1)
            read = await tools.read_resource(COUNTER)
        assert read.contents[0].text == "1"  # type: ignore[union-attr]
    finally:
        replica.stop()


async def test_a_change_made_in_one_worker_reaches_a_listener_on_another(tmp_path: Path) -> None:
    """``uvicorn --workers 2`` on one SQLite file: the listener's worker is not the tool's."""
    folder = export_counter_app(tmp_path)
    replica = Replica(folder, environ_for(folder, f"sqlite:///{folder / 'state.sqlite3'}"), workers=2)
    try:
        starts = [json.loads(line) for line in replica.lines.seen if '"event": "start"' in line]
        assert len({start["pid"] for start in starts}) == 2
        heard = Heard()
        async with subscribed(replica.url, "2026-07-28", heard) as listener:
            # Which worker accepts a connection is the kernel's choice: new connections until the other.
            with anyio.fail_after(60):
                while True:
                    async with client_to(replica.url, "2026-07-28", one_connection=True) as tools:
                        if await pid_of(tools) != listener:
                            await changes_reach(heard, tools, 1)
                            assert await pid_of(tools) != listener  # the tool ran in the other worker
                            break
    finally:
        replica.stop()


@contextlib.contextmanager
def two_replicas(folder: Path, store: str) -> Iterator[tuple[list[Replica], HAProxy]]:
    environ = environ_for(folder, store)
    started: list[Any] = []
    try:
        replicas = [Replica(folder, environ) for _ in range(2)]
        started += replicas
        proxy = HAProxy([replica.port for replica in replicas])
        started.append(proxy)
        yield replicas, proxy
    finally:
        for part in reversed(started):
            part.stop()


@pytest.mark.parametrize("store", ["redis", "sqlite"])
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_change_made_on_one_replica_reaches_a_subscriber_of_the_other(
    tmp_path: Path, store: str, mode: str
) -> None:
    """Two replicas behind HAProxy sharing Redis (or, on one machine, one SQLite file): the
    subscriber comes through HAProxy (a 2025-11-25 session stays on its replica) or straight to
    one replica; the tool runs on the other replica."""
    folder = export_counter_app(tmp_path)
    with contextlib.ExitStack() as stack:
        if store == "redis":
            redis = RedisServer()
            stack.callback(redis.stop)
            url = redis.url
        else:
            url = f"sqlite:///{folder / 'state.sqlite3'}"
        replicas, proxy = stack.enter_context(two_replicas(folder, url))
        heard = Heard()
        where = proxy.url if mode == "legacy" else replicas[0].url
        async with subscribed(where, mode, heard) as home:
            (other,) = [replica for replica in replicas if replica.pid != home]
            async with client_to(other.url, mode) as tools:
                assert await pid_of(tools) == other.pid
                await changes_reach(heard, tools, 1)
