"""The caller's trace survives every path: one trace from a caller's span to the tool's own span.

Each path runs for real: ``mcp-notebook serve NB --stdio`` (a kernel of its own), ``mcp-notebook
bridge URL`` in front of a headless server, an exported app under ``uvicorn --workers 2``, and
``%mcp_call`` / ``mcp_notebook.call()`` in a kernel. The caller's span is this process's (recorded in
memory) or a cell's; every process a test starts writes its spans to a file (`tests.tracing`). The in-
process HTTP server, both eras, and this package's own spans are tests/server/test_tracing.py; the
Jupyter extension's path is tests/jupyter/test_tracing.py.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import nbformat
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from mcp_notebook.client._http import tls_context
from tests.headless import headless
from tests.tracing import BODY, TOOL_SOURCE, Recorder, lineage, read_spans, recording, span_environment

pytestmark = [pytest.mark.anyio]

TOKEN = "tracing-paths-token"
CELL = "from mcp_notebook import tool\n" + TOOL_SOURCE


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    with recording().listening() as listening:
        yield listening


def write_notebook(folder: Path) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(CELL)]
    path = folder / "traced.ipynb"
    nbformat.write(notebook, path)
    return path


def environment(spans_file: Path) -> dict[str, str]:
    """The token travels in the environment, never on a command line; spans go to `spans_file`."""
    return {**span_environment(spans_file), "MCP_NOTEBOOK_TOKEN": TOKEN}


def cli(spans_file: Path, *arguments: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "mcp_notebook.cli", *arguments], env=environment(spans_file)
    )


async def call_in_span(recorder: Recorder, transport: Any) -> str:
    async with Client(transport, mode="auto") as client:
        with recorder.tracer.start_as_current_span("caller"):
            result = await client.call_tool("traced_echo", {"text": "hi"})
    return str(result.content[0].text)


def one_trace(spans: list[dict[str, Any]], *through: str) -> list[dict[str, Any]]:
    """The tool body's lineage: from the caller's span, in one trace, through the spans named `through`."""
    chain = lineage(spans, BODY)
    names = [span["name"] for span in chain]
    assert names[1] == "mcp_notebook run", names
    assert names[-1] == "caller", names
    assert len({span["trace_id"] for span in chain}) == 1
    for name in through:
        assert name in names, names
    return chain


@contextlib.contextmanager
def served_at(notebook: Path, spans_file: Path) -> Iterator[str]:
    """``mcp-notebook serve NB --port 0`` writing its spans to `spans_file`; yields its URL."""
    with headless(notebook, "--port", "0", "--approval", "auto", env=environment(spans_file)) as served:
        url = served.line(timeout=180).strip()
        assert url.startswith("http://"), served.stderr
        try:
            yield url
        finally:
            served.stop()  # SIGTERM: the process ends what it has open, its spans written


@pytest.mark.kernel
async def test_serve_stdio_keeps_the_callers_trace(recorder: Recorder, tmp_path: Path) -> None:
    spans_file = tmp_path / "spans.jsonl"
    notebook = write_notebook(tmp_path)
    with (tmp_path / "stdio.stderr").open("w") as errlog:
        transport = stdio_client(
            cli(spans_file, "serve", str(notebook), "--stdio", "--approval", "auto"), errlog=errlog
        )
        assert await call_in_span(recorder, transport) == "hi"
    one_trace(recorder.spans() + read_spans(spans_file), "tools/call traced_echo")


@pytest.mark.kernel
async def test_the_bridge_keeps_the_callers_trace(recorder: Recorder, tmp_path: Path) -> None:
    spans_file = tmp_path / "spans.jsonl"
    notebook = write_notebook(tmp_path)
    with served_at(notebook, spans_file) as url, (tmp_path / "bridge.stderr").open("w") as errlog:
        assert (
            await call_in_span(recorder, stdio_client(cli(spans_file, "bridge", url), errlog=errlog)) == "hi"
        )
    spans = recorder.spans() + read_spans(spans_file)
    chain = one_trace(spans, "tools/call traced_echo")
    # The bridge's own server span and the headless server's both lie on the way: two processes, one trace.
    assert len({span["pid"] for span in chain if span["name"] == "tools/call traced_echo"}) == 2


@pytest.mark.replicas
async def test_an_exported_app_under_two_workers_keeps_each_callers_trace(
    recorder: Recorder, tmp_path: Path
) -> None:
    from mcp_notebook.cli._export import export_notebook
    from tests.services import Replica

    spans_file = tmp_path / "spans.jsonl"
    (tmp_path / "app.py").write_text(export_notebook(write_notebook(tmp_path)), encoding="utf-8")
    environ = {
        **span_environment(spans_file),
        "MCP_NOTEBOOK_TOKEN": TOKEN,
        "MCP_NOTEBOOK_STORE": f"sqlite:///{tmp_path / 'state.sqlite3'}",
        "MCP_NOTEBOOK_AUDIT_LOG": "",
    }
    replica = Replica(tmp_path, environ, workers=2)
    try:
        callers = []
        for _ in range(6):  # a new connection each: the workers share them out
            headers = {"Authorization": f"Bearer {TOKEN}"}
            async with httpx2.AsyncClient(
                verify=tls_context(), headers=headers, timeout=httpx2.Timeout(30, read=300)
            ) as http:
                transport = streamable_http_client(replica.url, http_client=http)
                async with Client(transport, mode="auto") as client:
                    with recorder.tracer.start_as_current_span("caller") as caller:
                        await client.call_tool("traced_echo", {"text": "hi"})
                    callers.append(f"{caller.get_span_context().trace_id:032x}")
    finally:
        replica.stop()
    spans = recorder.spans() + read_spans(spans_file)
    bodies = [span for span in spans if span["name"] == BODY]
    assert sorted(span["trace_id"] for span in bodies) == sorted(callers)  # each call in its caller's trace
    by_id = {span["span_id"]: span for span in spans}
    for body in bodies:
        assert by_id[body["parent_id"]]["name"] == "mcp_notebook run"
        assert by_id[by_id[body["parent_id"]]["parent_id"]]["name"] == "tools/call traced_echo"


@pytest.fixture(scope="module")
def traced_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Path]]:
    from tests.kernel import Kernel

    tmp_path = tmp_path_factory.mktemp("kernel")
    spans_file = tmp_path / "spans.jsonl"
    kernel = Kernel(cwd=str(tmp_path), env=span_environment(spans_file))
    try:
        kernel.run("%load_ext mcp_notebook\n" + CELL + "\nsrv = %mcp_serve", timeout=120).raise_for_error()
        yield kernel, spans_file
    finally:
        kernel.shutdown()


CALLS = {
    "%mcp_call": "    answer = %mcp_call {tool} text=hi",
    "call()": "    answer = mcp_notebook.call('{tool}', {{'text': 'hi'}})",
}
WHERE = {"thread": "traced_echo", "kernel": "traced_echo_in_kernel"}


@pytest.mark.kernel
@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("how", CALLS)
def test_a_call_from_a_cell_sends_the_cells_trace(
    traced_kernel: tuple[Any, Path], how: str, where: str
) -> None:
    kernel, spans_file = traced_kernel
    spans_file.unlink(missing_ok=True)  # one kernel for the module: each test reads its own call's spans
    tool = WHERE[where]
    cell = (
        "import mcp_notebook\nfrom opentelemetry import trace\n"
        "with trace.get_tracer('cell').start_as_current_span('caller'):\n"
        f"{CALLS[how].format(tool=tool)}\nprint(answer.text)"
    )
    outputs = kernel.run(cell, timeout=120)
    outputs.raise_for_error()
    assert outputs.stdout.strip() == "hi"
    chain = one_trace(read_spans(spans_file), f"tools/call {tool}", f"MCP send tools/call {tool}")
    assert chain[1]["attributes"]["mcp_notebook.run.where"] == where  # a worker thread, or the kernel's own
    assert len({span["pid"] for span in chain}) == 1  # the kernel called its own server
