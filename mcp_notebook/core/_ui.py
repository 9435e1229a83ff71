"""Displays the UI layer registers, so the layers below can show things without importing it.

Results, the server handle and the client know nothing of widgets: when they need something shown
(a result's widget view, the server's panel, a pending call's buttons, a form that asks a person),
they ask here by kind, and `mcp_notebook.widgets` registers one factory per kind when it is
imported. The package root sets `loader` to import it on first need, so ``import mcp_notebook``
stays cheap and ``result.view()`` works without ``%load_ext``.

Kinds: ``"result_view"`` (a CallResult, ReadResult or PromptResult), ``"server_panel"`` (a
ServerHandle), ``"pending_call"`` (tool, arguments, call options), ``"elicitation_form"`` and
``"sampling_form"`` (the request's params; the form has an ``answer`` future), ``"call_in_progress"``
(tool, questions, future, finish), ``"task_call"`` (a `TaskCall`: its progress and a Cancel button),
``"check_result"`` (a connection check's `CheckResult`), ``"server_status"`` (a ServerHandle shown in a
cell: its live state), ``"waiting_badge"`` (a ServerHandle whose waiting calls the page's badge counts, in a kernel),
``"app_view"`` (a CallResult with an ``app``: the MCP App its tool is bound to, in a sandboxed frame).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._text import t

_factories: dict[str, Callable[..., Any]] = {}

loader: Callable[[], object] | None = None
"""Imports the UI layer (which registers its factories); set by the package root."""


def register(kind: str, factory: Callable[..., Any]) -> None:
    """Make `factory(*args)` what shows `kind` from now on (the last registration wins)."""
    _factories[kind] = factory


def make(kind: str, *args: Any, **kwargs: Any) -> Any:
    """The display of `kind` for these arguments, loading the UI layer on first need."""
    factory = _factories.get(kind)
    if factory is None and loader is not None:
        loader()
        factory = _factories.get(kind)
    if factory is None:
        raise RuntimeError(t("ui.missing", kind=kind))
    return factory(*args, **kwargs)
