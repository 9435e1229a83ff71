"""Spans of a process the tests start, one JSON line each, into the file ``MCP_NOTEBOOK_TEST_SPANS`` names.

On ``PYTHONPATH`` only for processes a test of traces starts (`tests.tracing.span_environment`).
"""

import os

_FILE = os.environ.get("MCP_NOTEBOOK_TEST_SPANS")

if _FILE:
    import json
    import threading

    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

    _lock = threading.Lock()

    class _Lines(SpanExporter):
        def export(self, spans):  # type: ignore[no-untyped-def]
            lines = []
            for span in spans:
                parent = span.parent
                lines.append(
                    json.dumps(
                        {
                            "name": span.name,
                            "trace_id": f"{span.context.trace_id:032x}",
                            "span_id": f"{span.context.span_id:016x}",
                            "parent_id": f"{parent.span_id:016x}" if parent is not None else None,
                            "attributes": dict(span.attributes or {}),
                            "status": span.status.status_code.name,
                            "pid": os.getpid(),
                        }
                    )
                )
            with _lock, open(_FILE, "a", encoding="utf-8") as out:  # one write per batch: lines stay whole
                out.write("".join(line + "\n" for line in lines))
            return SpanExportResult.SUCCESS

    _provider = TracerProvider()
    _provider.add_span_processor(SimpleSpanProcessor(_Lines()))
    trace.set_tracer_provider(_provider)
