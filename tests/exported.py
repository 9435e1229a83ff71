"""An exported app as its operator runs it: the example notebook exported, the settings every replica
gets (store, clients, requestState key), and an SDK client with one of those clients' tokens."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcp_notebook.cli._export import export_notebook
from mcp_notebook.client._http import tls_context
from tests.services import ROOT

NOTEBOOK = ROOT / "notebooks" / "examples" / "orders_service.ipynb"


CLIENTS = [f"client{n:02d}" for n in range(20)]


def token_of(client: str) -> str:
    return f"{client}-{'t' * 24}"


def write_secret(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)  # the app refuses a secret other users can read
    return path


def service_environ(folder: Path, store: str, **extra: str) -> dict[str, str]:
    """What an operator gives every replica: the same store, clients and requestState key."""
    import json

    clients = write_secret(
        folder / "clients.json", json.dumps({"clients": {c: {"token": token_of(c)} for c in CLIENTS}})
    )
    key = folder / "state.key"
    if not key.exists():
        write_secret(key, secrets.token_hex(32))
    return {
        **os.environ,
        "MCP_NOTEBOOK_STORE": store,
        "MCP_NOTEBOOK_CLIENTS_FILE": str(clients),
        "MCP_NOTEBOOK_STATE_KEY_FILE": str(key),
        # No person watches: the tools that change something run because they are allowed by name.
        "MCP_NOTEBOOK_ALLOW_TOOLS": "open_cart,add_to_cart,place_order,confirm_order",
        "MCP_NOTEBOOK_RESULT_LIMIT": "2000",
        "MCP_NOTEBOOK_AUDIT_LOG": "",
        **extra,
    }


def export_example(folder: Path) -> Path:
    (folder / "app.py").write_text(export_notebook(NOTEBOOK), encoding="utf-8")
    return folder


@contextlib.asynccontextmanager
async def connect(
    url: str, client: str, mode: Any, transport: httpx2.AsyncBaseTransport | None = None, **kwargs: Any
) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token_of(client)}"}
    timeout = httpx2.Timeout(30, read=120)
    async with (
        httpx2.AsyncClient(
            verify=tls_context(), headers=headers, timeout=timeout, transport=transport
        ) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode, **kwargs) as session,
    ):
        yield session
