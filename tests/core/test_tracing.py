"""Without the ``[otel]`` extra nothing of OpenTelemetry's SDK is imported, and this package's spans are a no-op.

A fresh interpreter in which ``opentelemetry.sdk`` cannot be imported (a blocker on the import path,
as if the extra were not installed) serves a tool and calls it; the MCP SDK imports only the
OpenTelemetry API, which records nothing without a provider.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    '''
    import sys, warnings

    class NoSdk:
        """As if the [otel] extra were not installed."""
        def find_spec(self, name, path=None, target=None):
            if name == "opentelemetry.sdk" or name.startswith("opentelemetry.sdk."):
                raise ModuleNotFoundError(name)
            return None

    sys.meta_path.insert(0, NoSdk())

    import mcp_notebook
    assert not [m for m in sys.modules if m.startswith("opentelemetry")], "import mcp_notebook imports it"

    from mcp_notebook import Catalogue, call, serve, tool
    from mcp_notebook.core import _tracing

    catalogue = Catalogue()

    @tool(catalogue=catalogue, read_only=True, idempotency_key=True)
    def echo(text: str) -> str:
        """Echo `text`."""
        return text

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # approval="auto" says loudly that it is on
        srv = serve(catalogue=catalogue, approval="auto")
    try:
        result = call("echo", {"text": "hi", "idempotency_key": "order-0123456789abcdef"})
        assert result.text == "hi", result
    finally:
        srv.stop()
    assert not [m for m in sys.modules if m.startswith("opentelemetry.sdk")]
    assert _tracing._tracer is None and not _tracing.tracing()
    assert _tracing.span("run") is _tracing.span("approval")  # one shared no-op, nothing made per call
    print("ok")
    '''
)


def test_without_the_extra_nothing_of_its_sdk_is_imported_and_spans_cost_nothing(tmp_path: Path) -> None:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "MCP_NOTEBOOK_CACHE_DIR": str(tmp_path)}
    environment.pop("MCP_NOTEBOOK_TEST_SPANS", None)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=environment, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@pytest.mark.parametrize("configured", [False, True])
def test_spans_are_recorded_only_once_a_provider_is_set(tmp_path: Path, configured: bool) -> None:
    script = textwrap.dedent(
        f"""
        from opentelemetry import trace
        from mcp_notebook.core import _tracing
        assert _tracing.span("run") is _tracing.span("approval")  # the API alone: a no-op
        if {configured}:
            from opentelemetry.sdk.trace import TracerProvider
            trace.set_tracer_provider(TracerProvider())
        with _tracing.span("run", lambda: {{"gen_ai.tool.name": "echo"}}) as current:
            print(type(current).__name__, current is not None and current.attributes["gen_ai.tool.name"])
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == (["_Span", "echo"] if configured else ["NoneType", "False"])
