"""mcp-notebook: build, serve, inspect and learn MCP servers from a Jupyter notebook.

>>> %load_ext mcp_notebook
>>> from mcp_notebook import tool
>>> @tool(read_only=True)
... def add(a: int, b: int) -> int:
...     "Add two integers."
...     return a + b
>>> srv = %mcp_serve
>>> %mcp_call add a=2 b=3

Importing this package is cheap: the MCP SDK and the HTTP server load on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .core import _ui
from .core._batch import BatchResult
from .core._catalogue import Catalogue, ToolEntry, default_catalogue, tool
from .core._context import CallCancelled, Context
from .core._errors import (
    AuditLogWarning,
    ClientConnectionError,
    InvalidAnswerError,
    InvalidResultError,
    MCPNotebookError,
    ProtocolDeprecationWarning,
    ProtocolError,
    ServerError,
    ToolDefinitionError,
    ToolError,
)
from .core._handles import HandleError, HandleStore
from .core._primitives import app_resource, prompt, publish, resource
from .core._prompts import embed_resource
from .core._questions import Elicitation
from .core._store import Store
from .core._store_memory import MemoryStore
from .core._store_sqlite import SQLiteStore
from .core._table_app import app_from
from .core._text import get_language, set_language

if TYPE_CHECKING:
    from .api._handle import ServerHandle
    from .api._serving import current_server, serve, stop
    from .client._calls import (
        call,
        complete,
        get_prompt,
        list_prompts,
        list_resources,
        list_tools,
        read_resource,
    )
    from .client._results import CallResult, PromptResult, ReadResult
    from .core._store_redis import RedisStore
    from .linter._lint import lint
    from .server._guardrails import current_client
    from .server._service import asgi_app

from ._version import __version__

__all__ = [
    "AuditLogWarning",
    "BatchResult",
    "CallCancelled",
    "CallResult",
    "Catalogue",
    "ClientConnectionError",
    "Context",
    "Elicitation",
    "HandleError",
    "HandleStore",
    "InvalidAnswerError",
    "InvalidResultError",
    "MCPNotebookError",
    "MemoryStore",
    "PromptResult",
    "ProtocolDeprecationWarning",
    "ProtocolError",
    "ReadResult",
    "RedisStore",
    "SQLiteStore",
    "ServerError",
    "ServerHandle",
    "Store",
    "ToolDefinitionError",
    "ToolEntry",
    "ToolError",
    "__version__",
    "app_from",
    "app_resource",
    "asgi_app",
    "call",
    "complete",
    "current_client",
    "current_server",
    "default_catalogue",
    "embed_resource",
    "get_language",
    "get_prompt",
    "lint",
    "list_prompts",
    "list_resources",
    "list_tools",
    "load_ipython_extension",
    "prompt",
    "publish",
    "read_resource",
    "remove_tool",
    "resource",
    "serve",
    "set_language",
    "stop",
    "tool",
    "unload_ipython_extension",
]

# Loaded on first use: these import the MCP SDK and uvicorn, which take over a second.
_LAZY = {
    "CallResult": ".client._results",
    "PromptResult": ".client._results",
    "ReadResult": ".client._results",
    "call": ".client._calls",
    "current_client": ".server._guardrails",
    "lint": ".linter._lint",
    "complete": ".client._calls",
    "get_prompt": ".client._calls",
    "list_prompts": ".client._calls",
    "list_resources": ".client._calls",
    "list_tools": ".client._calls",
    "read_resource": ".client._calls",
    "ServerHandle": ".api._handle",
    "RedisStore": ".core._store_redis",  # needs the `redis` package (the `service` extra)
    "asgi_app": ".server._service",
    "current_server": ".api._serving",
    "serve": ".api._serving",
    "stop": ".api._serving",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcp_notebook' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _load_widgets() -> object:
    # The package root wires the layers together: results, the server handle and the client ask
    # `core._ui` for their displays, and the widgets register them when imported. Imported on first
    # need rather than here, for start-up speed (ipywidgets takes a while, and a kernel that never
    # shows a widget never pays for it).
    return importlib.import_module(".widgets", __name__)


_ui.loader = _load_widgets


def remove_tool(name: str, catalogue: Catalogue | None = None) -> None:
    """Remove the tool `name`; connected clients are told the tool list changed.

    Raises
    ------
    KeyError
        No tool has that name (the message lists the tools that do exist).
    """
    (catalogue if catalogue is not None else default_catalogue).remove(name)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext mcp_notebook``: register the magics (and nothing heavier)."""
    # Imported here, not at the top: `import mcp_notebook` outside IPython must not import IPython.
    from .ipython._extension import load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext mcp_notebook``: stop the server, free its port, remove the magics."""
    from .ipython._extension import unload

    unload(ipython)
