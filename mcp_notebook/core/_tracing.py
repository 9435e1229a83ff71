"""Spans of this package's own work inside a call, when OpenTelemetry traces are collected.

The SDK makes each request a span, and joins the caller's trace from the ``traceparent`` in the
request's ``_meta`` (SEP-414). What this package does inside that span (a wait for a person, the
run on a worker thread or the kernel, the store's run-once, a task's life) becomes child spans
here, named ``mcp_notebook <step>``, with the attributes of the MCP semantic conventions
(``mcp.method.name``, ``gen_ai.tool.name``, ``mcp.session.id``, ``jsonrpc.request.id``) and a few
of this package's own (``mcp_notebook.*``).

Nothing is imported for it: the OpenTelemetry API is used only when a process has imported it
already (the SDK does) and a tracer provider is set (the ``[otel]`` extra's SDK, configured by the
person). Otherwise every helper here is a shared no-op, so a call that is not traced pays one
dictionary look-up per step.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

_NOTHING: contextlib.nullcontext[None] = contextlib.nullcontext()
_tracer: Any = None  # the package's tracer, once a real provider is seen (a provider is set only once)
_UNKNOWN = object()
# OpenTelemetry's API sets up the provider this variable names on first use (as `opentelemetry-instrument` may).
_NAMED_IN_ENVIRONMENT = "OTEL_PYTHON_TRACER_PROVIDER" in os.environ


def _active_tracer() -> Any:
    """The package's tracer while traces are collected, else None (without importing anything)."""
    global _tracer
    if _tracer is not None:
        return _tracer
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:  # nobody imported the API: no provider can be set, nothing is collected
        return None
    # The API's own `get_tracer_provider()` reads the environment on every call while no provider
    # is set (microseconds, per step of every call): the global it keeps is read instead, and the
    # API asked only when a provider is named in the environment or the global is not there.
    if getattr(trace, "_TRACER_PROVIDER", _UNKNOWN) is None and not _NAMED_IN_ENVIRONMENT:
        return None
    provider = trace.get_tracer_provider()
    if isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
        return None  # the API alone: its spans record nothing
    from .._version import __version__

    _tracer = provider.get_tracer("mcp_notebook", __version__)
    return _tracer


def tracing() -> bool:
    """Whether this process collects traces now."""
    return _active_tracer() is not None


def span(
    name: str, attributes: Callable[[], dict[str, Any]] | None = None, *, parent: Any = None
) -> contextlib.AbstractContextManager[Any]:
    """A child span of the current one (or of `parent`, a context from `carried`), current inside the block.

    Named ``mcp_notebook <name>``; `attributes` is called only when the span is recorded. Yields the
    span, or None when nothing is traced (`annotate` and `failed` take either).
    """
    tracer = _active_tracer()
    if tracer is None:
        return _NOTHING
    started: contextlib.AbstractContextManager[Any] = tracer.start_as_current_span(
        f"mcp_notebook {name}",
        context=parent,
        attributes=attributes() if attributes is not None else None,
        record_exception=False,  # a tool's exception is its result's text, never a traceback elsewhere
    )
    return started


def annotate(current: Any, **attributes: Any) -> None:
    """Set `attributes` (their names as keywords: ``**{"a.b": 1}``) on `current`, a span from `span` or None."""
    if current is not None:
        current.set_attributes({key: value for key, value in attributes.items() if value is not None})


def failed(current: Any, error_type: str, message: str | None = None) -> None:
    """Mark `current` failed (``error.type``, status ERROR), as the conventions record errors."""
    if current is None:
        return
    from opentelemetry.trace import StatusCode  # imported already: a span exists

    current.set_attribute("error.type", error_type)
    current.set_status(StatusCode.ERROR, message)


def carried() -> Any:
    """The current trace context, to carry to another task or thread (None when not traced)."""
    if _active_tracer() is None:
        return None
    from opentelemetry import context

    return context.get_current()


@contextlib.contextmanager
def attached(carried_context: Any) -> Iterator[None]:
    """Make `carried_context` (from `carried`) current inside the block; None: nothing."""
    if carried_context is None:
        yield
        return
    from opentelemetry import context

    token = context.attach(carried_context)
    try:
        yield
    finally:
        context.detach(token)


def call_attributes(
    *,
    tool: str,
    request_id: Any = None,
    session_id: str | None = None,
    protocol_version: str | None = None,
) -> dict[str, Any]:
    """The MCP semantic-convention attributes of a step of a ``tools/call`` (Nones left out)."""
    values = {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": tool,
        "jsonrpc.request.id": None if request_id is None else str(request_id),
        "mcp.session.id": session_id,
        "mcp.protocol.version": protocol_version,
    }
    return {key: value for key, value in values.items() if value is not None}
