"""Attack: a student sends exercise records in a classmate's name, to change what the instructor sees.

The class's progress service takes records from students' kernels. Whose records they are comes
from the hub, which says whose token came with them; anything the body says about a user is
dropped. So a record sent with mallory's token, however it names alice, lands in mallory's row,
and alice's row stays as it was. Tested on a real hub (``classroom``) with its progress service.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytestmark = [pytest.mark.hub, pytest.mark.kernel]


def test_records_are_the_token_owners_whatever_the_body_says(classroom: Any) -> None:
    hub = classroom.hub
    hub.add_users("mallory")
    mallory = hub.token_for("mallory")
    service = f"{hub.url}/services/mcp-progress"

    def table() -> dict[str, Any]:
        answer = httpx.get(
            f"{service}/api/table",
            headers={"Authorization": f"token {classroom.tokens['teacher']}"},
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        return dict(answer.json()["students"])

    alice_before = table().get("alice")
    forged = {
        "user": "alice",
        "name": "alice",
        "student": "alice",
        "chapter": "00",
        "exercise": "q4",
        "outcome": "correct",
        "attempts": 77,
        "time": "2026-01-01T00:00:00Z",
    }
    answer = httpx.post(
        f"{service}/api/records",
        json={"records": [forged], "user": "alice"},
        headers={"Authorization": f"token {mallory}", "X-Forwarded-User": "alice"},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    students = table()
    assert students["mallory"] == {"00/q4": {"outcome": "correct", "attempts": 77}}
    assert students.get("alice") == alice_before
