"""Through the Jupyter extension, the caller's trace reaches the tool: one trace from the caller's span.

A real Jupyter server of its own (its kernels write their spans to a file: `tests.tracing`), a kernel
that serves a tool whose body opens a span, and a real SDK client that knows only the Jupyter URL and
token, its caller's span recorded in memory.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.jupyter.servers import connect, jupyter_server
from tests.tracing import BODY, TOOL_SOURCE, lineage, read_spans, recording, span_environment

pytestmark = [pytest.mark.kernel, pytest.mark.anyio]


@pytest.fixture
def traced_jupyter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Path]]:
    spans_file = tmp_path / "spans.jsonl"
    # The Jupyter server, and so its kernels, start with the environment that sends spans to the file.
    for name, value in span_environment(spans_file).items():
        if os.environ.get(name) != value:
            monkeypatch.setenv(name, value)
    with jupyter_server(tmp_path, secrets.token_urlsafe(24)) as jupyter:
        monkeypatch.undo()
        _, kernel = jupyter.start_kernel()
        try:
            cell = "%load_ext mcp_notebook\nfrom mcp_notebook import tool\n" + TOOL_SOURCE
            kernel.run(cell + "\nsrv = %mcp_serve --name traced", timeout=120).raise_for_error()
            yield jupyter, spans_file
        finally:
            kernel.shutdown()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_jupyter_extension_keeps_the_callers_trace(
    traced_jupyter: tuple[Any, Path], mode: Any
) -> None:
    jupyter, spans_file = traced_jupyter
    with recording().listening() as recorder:
        async with connect(f"{jupyter.url}/mcp-notebook/traced/mcp", jupyter.token, mode) as client:
            with recorder.tracer.start_as_current_span("caller"):
                result = await client.call_tool("traced_echo", {"text": "hi"})
        spans = recorder.spans() + read_spans(spans_file)
    assert result.content[0].text == "hi"
    chain = lineage(spans, BODY)
    names = [span["name"] for span in chain]
    assert names[:2] == [BODY, "mcp_notebook run"], names
    assert "tools/call traced_echo" in names and names[-1] == "caller", names
    assert len({span["trace_id"] for span in chain}) == 1
