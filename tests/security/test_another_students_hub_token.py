"""Attack: a student uses their own hub token on a classmate's server, to call the classmate's tools.

On JupyterHub every student's notebook serves its tools under that student's server path. A
token the hub made for one student (``access:servers!user=bob``) must open that student's server
only: against a classmate's path the hub's single-user server refuses it (403) before the
extension forwards anything, so the classmate's kernel never sees the request. Tested on a real
hub (``classroom``), in both eras.
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest

from tests.conftest import ERAS, INITIALIZE, Mode
from tests.jupyter.servers import connect

pytestmark = [pytest.mark.hub, pytest.mark.kernel]


@pytest.mark.parametrize("mode", ERAS)
def test_a_classmates_token_gets_403_and_never_reaches_the_kernel(classroom: Any, mode: Mode) -> None:
    before = classroom.requests_seen("carol")

    async def attempt() -> None:
        async with connect(classroom.mcp_url("carol"), classroom.tokens["bob"], mode) as client:
            await client.list_tools()

    with pytest.raises(Exception):  # noqa: B017 - the SDK reports the HTTP failure its own way
        anyio.run(attempt)
    for scheme in ("Bearer", "token"):
        raw = httpx.post(
            classroom.mcp_url("carol"),
            json=INITIALIZE,
            headers={"Authorization": f"{scheme} {classroom.tokens['bob']}"},
            timeout=30,
        )
        assert raw.status_code == 403, raw.text
    assert classroom.requests_seen("carol") == before
