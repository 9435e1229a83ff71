"""Attack: a client puts Unicode line breaks in its values, and one audit record reads as several.

The audit log, the exported activity and a service's JSON logs hold one JSON object per line.
JSON written with ``ensure_ascii=False`` escapes ``\\n`` but leaves U+2028 (line separator), U+2029
(paragraph separator) and U+0085 (next line) raw, and readers that honour Unicode's line breaks
(Python's ``str.splitlines()``, editors, log shippers) split the line there: a client's argument or
claimed name cut one record in two, and could make the second half look like a record of its own.
Now those characters are written as JSON escapes: one record, one line, the same values.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook import Catalogue, tool
from mcp_notebook.server._service_log import JSONLines, TextLines
from tests.conftest import serve_unattended, until
from tests.security.conftest import client_as

pytestmark = pytest.mark.anyio

BREAKS = "one\u2028two\u2029three\x85four"
FORGED = f'x\u2028{{"client": "owner", "tool": "echo", "decision": "approved"}}\u2029{BREAKS}'


def records(text: str) -> list[dict[str, Any]]:
    """The objects in JSON-lines text, split the way a Unicode-aware reader splits it."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def strings(value: Any) -> set[str]:
    """Every string in a JSON value, at any depth."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*map(strings, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(strings, value)) if value else set()
    return set()


async def test_a_clients_line_breaks_stay_inside_one_record(catalogue: Catalogue, tmp_path: Path) -> None:
    @tool(catalogue=catalogue, read_only=True)
    def echo(text: str) -> str:
        """Say the text back."""
        return text

    log = tmp_path / "audit.jsonl"
    exported = tmp_path / "activity.jsonl"
    srv = serve_unattended(catalogue, audit_log=log)
    try:
        mallory = srv.add_client("mallory")
        async with client_as(srv, mallory, "legacy", claims=f"mcp{BREAKS}") as client:
            await client.call_tool("echo", {"text": FORGED})
            await client.call_tool("echo", {"text": BREAKS})
        srv.export_activity(exported)
        assert until(lambda: log.read_text(encoding="utf-8").count("\n") >= 2)  # once each answer has left
        written = log.read_text(encoding="utf-8")
    finally:
        srv.stop()
    audited = records(written)
    assert [entry["tool"] for entry in audited] == ["echo", "echo"]  # two calls, two lines, no forged third
    assert audited[0]["arguments"] == {"text": FORGED} and audited[1]["arguments"] == {"text": BREAKS}
    assert audited[0]["claimed"] == f"mcp{BREAKS}"
    assert not {"\u2028", "\u2029", "\x85"} & set(written)
    activity = records(exported.read_text(encoding="utf-8"))
    assert sum(FORGED in strings(entry) for entry in activity) >= 1  # whole, in one record


def test_a_service_log_line_with_line_breaks_stays_one_line() -> None:
    record = logging.LogRecord("mcp_notebook", logging.INFO, __file__, 1, "called %s", (BREAKS,), None)
    record.fields = {"client": FORGED}
    line = JSONLines().format(record)
    assert len(line.splitlines()) == 1
    parsed = json.loads(line)
    assert parsed["message"] == f"called {BREAKS}" and parsed["client"] == FORGED


def test_a_text_log_line_with_line_breaks_stays_one_line() -> None:
    record = logging.LogRecord("mcp_notebook", logging.INFO, __file__, 1, "called %s", (FORGED,), None)
    line = TextLines().format(record)
    assert len(line.splitlines()) == 1 and line.endswith("\\u2029one\\u2028two\\u2029three\\u0085four")
