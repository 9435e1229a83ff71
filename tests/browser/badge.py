"""A notebook that serves a destructive tool with many screens of output below it: the page a person
is on when an outside call waits (tests/browser/test_waiting_badge.py and the badge's attack tests)."""

from __future__ import annotations

from typing import Any

from tests.browser.lab import SECONDS, Browsed

READY = "server.json written"
VIEWPORT = {"width": 1280, "height": 800}
"""The page's size: the notebook runs on for screens below the server's cell."""


TOOL = '''
from mcp_notebook import tool

@tool(destructive=True)
def wipe(table: str) -> str:
    """Delete every row of a table."""
    return f"wiped {table}"
'''


WRITE_SERVER_JSON = f"""
import json, os, time

def note_the_time(request):
    with open("asked.tmp", "w") as f:
        f.write(repr(time.time()))
    os.replace("asked.tmp", "asked")

srv.approval.listeners.append(note_the_time)
with open("server.json.tmp", "w") as f:
    json.dump({{"url": srv.url, "token": srv.token}}, f)
os.replace("server.json.tmp", "server.json")
print({READY!r})
"""


BELOW = [f'print("\\n".join(["part {n}: more of the notebook"] * 8))' for n in range(20)]


WITH_PANEL = ["%load_ext mcp_notebook", TOOL, "srv = %mcp_serve", WRITE_SERVER_JSON, *BELOW]


NO_PANEL = [TOOL, "import mcp_notebook\nsrv = mcp_notebook.serve()", WRITE_SERVER_JSON, *BELOW]


def open_at_the_bottom(lab: Browsed, name: str) -> Any:
    """Run the notebook and read its last screen, as a person would; the output areas' locator."""
    outputs = lab.run_all(name)
    outputs.filter(has_text=READY).wait_for(timeout=90 * SECONDS)
    last = outputs.filter(has_text="part 19")
    last.wait_for(timeout=90 * SECONDS)
    last.scroll_into_view_if_needed()
    return outputs
