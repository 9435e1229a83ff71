"""An exported app's logs: one JSON object per line on stdout (or plain text), as services log.

Each line has ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``, plus what the
record carries in ``extra={"fields": {...}}``. Only the package's loggers (and uvicorn's error
log) are set up: an app that imports the exported module keeps its own logging.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import sys
from typing import Any

from ..core._jsonlines import escape_line_breaks

_LOGGERS = ("mcp_notebook", "uvicorn.error")


class JSONLines(logging.Formatter):
    """A log record as one line of JSON."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return escape_line_breaks(json.dumps(line, ensure_ascii=False, default=str))


class TextLines(logging.Formatter):
    """A log record as text; the Unicode line breaks in it written as ``\\u2028`` and the like.

    A message can carry a client's values; raw, those characters would split one line in two for
    every reader that honours them (an ASCII newline in a traceback stays: that is text's own way).
    """

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        return escape_line_breaks(super().format(record))


_handler: logging.Handler | None = None


def setup_logging(log_format: str, level: str) -> None:
    """Send the package's logs (and uvicorn's errors) to stdout, as JSON lines or text; idempotent."""
    global _handler
    if _handler is None:
        _handler = logging.StreamHandler(sys.stdout)
    _handler.setFormatter(JSONLines() if log_format == "json" else TextLines())
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers = [
            h for h in logger.handlers if not isinstance(h, logging.NullHandler) and h is not _handler
        ]
        if name == "uvicorn.error":
            logger.handlers = []  # uvicorn's own text handler: one format per stream
        logger.addHandler(_handler)
        logger.setLevel(level.upper())
        logger.propagate = False
