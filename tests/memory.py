"""The in-memory lane: the SDK's client and this package's protocol server over memory streams.

No socket, no HTTP gate, no kernel: what a protocol test needs when the transport is not what it
tests. The server is the same `ToolServer` the HTTP app serves (`server._assembly.tool_server`,
every request through the call pipeline); the client is the SDK's `Client`, in either era:
``"legacy"`` speaks 2025-11-25 JSON-RPC over the SDK's in-memory transport, ``"2026-07-28"`` drives
the SDK's per-request path. A caller with no HTTP request behind it is the notebook itself
(`core._identity.identity_of`), so approval never waits here: tests of identity, tokens and
approval belong to the HTTP lane (tests/conftest.py `connect`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any, Literal

from mcp import Client

from mcp_notebook import Catalogue
from mcp_notebook.core._identity import Identities
from mcp_notebook.core._secrets import new_token
from mcp_notebook.runtime._execution import KernelPump, ToolRunner
from mcp_notebook.server._approval import ApprovalPolicy
from mcp_notebook.server._assembly import tool_server
from mcp_notebook.server._protocol import ToolServer
from mcp_notebook.server._settings import ServerSettings

Era = Literal["legacy", "2026-07-28"]
ERAS: list[Era] = ["legacy", "2026-07-28"]


@contextlib.contextmanager
def memory_server(catalogue: Catalogue, **settings: Any) -> Any:
    """A protocol server over `catalogue` with its own in-memory store, closed on exit."""
    runner = ToolRunner("thread", KernelPump(None), kernel=False)
    approval = ApprovalPolicy()
    approval.answered_in = None  # nobody to ask: a call that needs a person is declined at once
    options: dict[str, Any] = {"audit_log": False, "store": "memory://"} | settings
    server: ToolServer = tool_server(
        catalogue,
        runner,
        ServerSettings(**options),
        identities=Identities(new_token()),
        approval=approval,
    )
    try:
        yield server
    finally:
        server.close()
        runner.workers.close()


@contextlib.asynccontextmanager
async def memory_client(catalogue: Catalogue, era: Era, **settings: Any) -> AsyncIterator[Any]:
    """The SDK's client connected in memory to a fresh server over `catalogue`, in `era`."""
    with memory_server(catalogue, **settings) as server:
        async with Client(server.sdk, mode=era) as client:
            yield client
