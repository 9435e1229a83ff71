"""Traces in the tests: spans of this process in memory, spans of the processes it starts in a file.

OpenTelemetry allows one tracer provider per process, set once: `recording` sets this process's on
first use, with a sampler that records only while a test listens (`Recorder.listening`), so the other
tests of the run pay for spans that record nothing. A process a test starts (``serve --stdio``, the
bridge, a kernel, uvicorn's workers) gets ``tests/tracing_site`` on its ``PYTHONPATH`` and a file in
``MCP_NOTEBOOK_TEST_SPANS``: its ``sitecustomize`` sets a provider there that appends each ended span to
that file as one JSON line (`span_environment`).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

SITE = Path(__file__).parent / "tracing_site"
SPANS_FILE = "MCP_NOTEBOOK_TEST_SPANS"


class Recorder:
    """This process's spans, recorded while `listening`."""

    def __init__(self) -> None:
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult

        recorder = self
        self.on = False

        class Switch(Sampler):
            def should_sample(
                self,
                parent_context: Any,
                trace_id: int,
                name: str,
                kind: Any = None,
                attributes: Any = None,
                *rest: Any,
            ) -> SamplingResult:
                # The span keeps the attributes the sampler hands back: hand them all back.
                decision = Decision.RECORD_AND_SAMPLE if recorder.on else Decision.DROP
                return SamplingResult(decision, attributes if recorder.on else None)

            def get_description(self) -> str:
                return "on while a test listens"

        class Switching(trace.Tracer):
            """While no test listens, a span is what it is with no provider at all: the caller's
            context passes through and no trace starts, so no other test's requests carry one."""

            def __init__(self, real: trace.Tracer) -> None:
                self.real, self.off = real, trace.NoOpTracer()

            def start_span(self, *args: Any, **kwargs: Any) -> Any:
                return (self.real if recorder.on else self.off).start_span(*args, **kwargs)

            def start_as_current_span(self, *args: Any, **kwargs: Any) -> Any:
                return (self.real if recorder.on else self.off).start_as_current_span(*args, **kwargs)

        class Provider(TracerProvider):
            def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
                return Switching(super().get_tracer(*args, **kwargs))

        self.exporter = InMemorySpanExporter()
        provider = Provider(sampler=Switch())
        provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        trace.set_tracer_provider(provider)
        self.tracer = trace.get_tracer("tests")

    @contextlib.contextmanager
    def listening(self) -> Iterator[Recorder]:
        self.exporter.clear()
        self.on = True
        try:
            yield self
        finally:
            self.on = False

    def spans(self) -> list[dict[str, Any]]:
        return [as_dict(span) for span in self.exporter.get_finished_spans()]


_recorder: Recorder | None = None
_lock = threading.Lock()


def recording() -> Recorder:
    """This process's `Recorder` (set up once for the whole run)."""
    global _recorder
    with _lock:
        if _recorder is None:
            _recorder = Recorder()
        return _recorder


def as_dict(span: Any) -> dict[str, Any]:
    """A finished span as the file exporter writes it: the same shape from every process."""
    parent = span.parent
    return {
        "name": span.name,
        "trace_id": f"{span.context.trace_id:032x}",
        "span_id": f"{span.context.span_id:016x}",
        "parent_id": f"{parent.span_id:016x}" if parent is not None else None,
        "attributes": dict(span.attributes or {}),
        "status": span.status.status_code.name,
        "pid": os.getpid(),
    }


def span_environment(spans_file: Path, environment: Mapping[str, str] | None = None) -> dict[str, str]:
    """An environment for a process whose spans go to `spans_file` (its kernels inherit it)."""
    env = dict(os.environ if environment is None else environment)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SITE), env.get("PYTHONPATH", "")) if p)
    env[SPANS_FILE] = str(spans_file)
    return env


def read_spans(spans_file: Path) -> list[dict[str, Any]]:
    if not spans_file.exists():
        return []
    return [json.loads(line) for line in spans_file.read_text().splitlines() if line.strip()]


def lineage(spans: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The span called `name` and its ancestors, nearest first, across every process's spans."""
    by_id = {span["span_id"]: span for span in spans}
    found = [span for span in spans if span["name"] == name]
    assert len(found) == 1, f"one span {name!r} expected, got {[s['name'] for s in spans]}"
    chain = [found[0]]
    while chain[-1]["parent_id"] is not None and chain[-1]["parent_id"] in by_id:
        chain.append(by_id[chain[-1]["parent_id"]])
    return chain


BODY = "tool body"
"""The span the served tools open around their own work (`TOOL_SOURCE`)."""

TOOL_SOURCE = '''
from opentelemetry import trace as _trace

@tool(read_only=True)
def traced_echo(text: str) -> str:
    """Echo `text`, inside a span of the tool's own."""
    with _trace.get_tracer("tool").start_as_current_span("tool body"):
        return text

@tool(read_only=True, run_in="kernel")
def traced_echo_in_kernel(text: str) -> str:
    """Echo `text` on the kernel's main thread, inside a span of the tool's own."""
    with _trace.get_tracer("tool").start_as_current_span("tool body"):
        return text
'''
"""A tool whose body opens a span, as code in a notebook cell (``tool`` imported)."""
