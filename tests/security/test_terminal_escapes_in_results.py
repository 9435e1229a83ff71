"""Terminal escape sequences in what a tool returns reach the client as plain text, removed whole.

A tool that relays a command's or another server's output passes its colours and OSC 8 hyperlinks
on. Stripping only the ESC byte left ``[32m`` noise and ``]8;;http://evil.example/...`` behind: a link
target the person never saw, now plain text in front of the model. The whole sequence must go, from
text blocks and structured content alike, over HTTP in both eras.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_notebook import Catalogue, tool
from tests.conftest import ERAS, connect, serve_unattended

pytestmark = pytest.mark.anyio

ESC = "\x1b"
ST = ESC + "\\"
LINK = f"{ESC}]8;;http://evil.example/steal?to=model{ST}the docs{ESC}]8;;{ST}"  # OSC 8, as `ls --hyperlink`
COLOURED = f"{ESC}[1;32mPASSED{ESC}[0m 3 tests, see {LINK}\x9b31m!\x9b0m"
PLAIN = "PASSED 3 tests, see the docs!"


@pytest.mark.parametrize("mode", ERAS)
async def test_colours_and_hyperlinks_reach_the_client_as_plain_text(catalogue: Catalogue, mode: Any) -> None:
    @tool(catalogue=catalogue, read_only=True)
    def run_tests() -> str:
        """Run the test suite and relay its coloured output."""
        return COLOURED

    @tool(catalogue=catalogue, read_only=True)
    def test_report() -> dict[str, Any]:
        """The test suite's report, as data."""
        return {"summary": COLOURED, "lines": [f"{ESC}[31mFAILED{ESC}[0m none", LINK]}

    srv = serve_unattended(catalogue)
    try:
        async with connect(srv, mode) as client:
            text = await client.call_tool("run_tests", {})
            data = await client.call_tool("test_report", {})
    finally:
        srv.stop()
    assert text.is_error is False and text.content[0].text == PLAIN
    assert data.structured_content == {"summary": PLAIN, "lines": ["FAILED none", "the docs"]}
    for result in (text, data):
        for shown in [block.text for block in result.content] + [str(result.structured_content)]:
            assert "evil.example" not in shown and "[1;32m" not in shown and "8;;" not in shown
