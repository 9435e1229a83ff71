"""An exercise's card shows its current state: a check in a later cell updates the card where it is."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.kernel import Kernel

RIGHT = {
    "desktop_app": "host",
    "ide": "host",
    "per_server_link": "client",
    "mcp_call": "client",
    "notebook_kernel": "server",
    "repo_process": "server",
}


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[Kernel]:
    # Progress goes to a folder of the test's own, never the user's.
    os.environ["MCP_NOTEBOOK_DATA_DIR"] = str(tmp_path)
    try:
        started = Kernel()
    finally:
        del os.environ["MCP_NOTEBOOK_DATA_DIR"]
    try:
        yield started
    finally:
        started.shutdown()


def cards(messages: list[dict[str, Any]], kind: str) -> list[tuple[str, str]]:
    """(display id, plain text) of each `kind` message (display_data, update_display_data)."""
    return [
        (m["content"].get("transient", {}).get("display_id", ""), m["content"]["data"]["text/plain"])
        for m in messages
        if m["msg_type"] == kind
    ]


@pytest.mark.kernel
@pytest.mark.timeout(120)
def test_a_right_answer_updates_the_card_shown_above(kernel: Kernel) -> None:
    shown = kernel.run(
        "import mcp_notebook\nmcp_notebook.set_language('en')\nfrom mcp_notebook.lessons.ch00 import q1\nq1"
    )
    shown.raise_for_error()
    ((card_id, text),) = cards(shown.messages, "display_data")
    assert card_id and "not attempted yet" in text

    wrong = kernel.run(f"q1.check({{**{RIGHT!r}, 'ide': 'server'}})")
    wrong.raise_for_error()
    assert [
        (i, "not solved yet (1 attempts)" in t) for i, t in cards(wrong.messages, "update_display_data")
    ] == [(card_id, True)]
    right = kernel.run(f"q1.check({RIGHT!r})")
    right.raise_for_error()
    ((updated_id, text),) = cards(right.messages, "update_display_data")
    assert updated_id == card_id
    assert "solved" in text and "not attempted yet" not in text and "not solved" not in text
    assert "solved" in kernel.run("q1").text  # shown again: the same state
