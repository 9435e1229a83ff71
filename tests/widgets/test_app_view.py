"""An MCP App's widget, without a browser: what the frame is given, and what the app's requests get.

The app comes from the SDK's own Apps extension (``tests/servers/apps.py``, over stdio); a request
from the app is what its front end (``_app.js``) sends the kernel when the frame posts it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import traitlets

import mcp_notebook
from mcp_notebook import app_resource, tool
from mcp_notebook.widgets import AppView, ResultView
from mcp_notebook.widgets._activity import render_row
from mcp_notebook.widgets._pending import PendingCall
from tests.conftest import serve_unattended

SERVER = Path(__file__).parents[1] / "servers" / "apps.py"
STDIO = f'"{sys.executable}" "{SERVER}"'


def app_of(tool: str, arguments: dict[str, Any]) -> AppView:
    view = mcp_notebook.call(tool, arguments, stdio=STDIO).view()
    assert isinstance(view, ResultView) and isinstance(view.app_view, AppView)
    return view.app_view


def ask(view: AppView, request_id: int | None, method: str, params: dict[str, Any]) -> None:
    """The app posts a request; the front end hands it to the kernel; wait until it is handled."""
    view.frame._handle_custom_msg(
        {"kind": "request", "generation": "v-1", "id": request_id, "method": method, "params": params}, []
    )
    view.handled[-1].result(30)


def test_the_result_view_shows_the_app_above_the_plain_result() -> None:
    view = mcp_notebook.call("weather", {"city": "Seoul"}, stdio=STDIO).view()
    assert view.children.index(view.app_view) == 1  # under the result's head, above its blocks
    assert view.tree is not None  # the structured content, as for a client without Apps
    frame = view.app_view.frame
    assert frame.tool_input == {"city": "Seoul"}
    assert frame.tool_result["structuredContent"]["celsius"] == 21
    assert frame.tool["name"] == "weather"


def test_the_frame_is_sandboxed_with_the_policy_first() -> None:
    frame = app_of("weather", {"city": "Seoul"}).frame
    assert frame.sandbox == "allow-scripts"
    with pytest.raises(traitlets.TraitError):
        frame.sandbox = "allow-scripts allow-same-origin"
    assert frame.srcdoc.startswith('<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy"')
    assert "connect-src https://api.weather.example;" in frame.srcdoc
    assert frame.srcdoc.index("Content-Security-Policy") < frame.srcdoc.index("<script")


def test_hostile_domains_are_refused_and_shown() -> None:
    view = app_of("hostile", {"target": "http://127.0.0.1:9/"})
    assert "connect-src https://ok.example;" in view.policy.text
    assert "script-src 'unsafe-inline';" in view.policy.text  # nothing added to it
    assert len(view.policy.refused) == 5
    assert "Refused in its policy request" in view.header.value
    assert view.frame.csp == {"connectDomains": ["https://ok.example"]}


def test_permissions_wait_for_the_person() -> None:
    view = app_of("hostile", {"target": "http://127.0.0.1:9/"})
    assert view.requested == ["camera", "microphone"]
    assert view.frame.allow == "" and view.frame.granted == {}
    view.allow_button.click()
    assert view.frame.allow == "camera; microphone"
    assert view.frame.granted == {"camera": {}, "microphone": {}}


def test_an_app_tool_call_goes_through_approval_and_is_marked_as_the_apps() -> None:
    view = app_of("weather", {"city": "Seoul"})
    ask(view, 7, "tools/call", {"name": "refresh", "arguments": {"city": "Busan"}})
    [pending] = view.pending
    assert isinstance(pending, PendingCall) and view.calls_box.children[0].children[0] is pending
    assert "ui://weather/app.html" in pending.children[0].value  # the question says who asks
    assert view.answers == []  # nothing ran, nothing answered, until the person decides
    pending.approve_button.click()
    result = pending.result(30)
    assert result.from_app == "ui://weather/app.html" and result.app is None
    assert (
        repr(result).splitlines()[1] == "Called by the app ui://weather/app.html (approved at the notebook)"
    )
    assert view.answers[-1]["id"] == 7
    assert view.answers[-1]["result"]["content"] == [{"type": "text", "text": "fresh Busan 22"}]
    assert view.calls[-1]["outcome"] == "approved"


def test_a_denied_app_call_is_answered_with_an_error() -> None:
    view = app_of("weather", {"city": "Seoul"})
    ask(view, 8, "tools/call", {"name": "refresh", "arguments": {"city": "Busan"}})
    view.pending[-1].deny_button.click()
    assert view.answers == [
        {
            "id": 8,
            "error": {"code": -32000, "message": "The person at the notebook denied the call of refresh."},
        }
    ]
    assert view.calls[-1]["outcome"] == "denied"


def test_a_model_only_tool_is_refused_without_asking() -> None:
    view = app_of("weather", {"city": "Seoul"})
    ask(view, 9, "tools/call", {"name": "secret", "arguments": {}})
    ask(view, 10, "tools/call", {"name": "no_such_tool", "arguments": {}})
    assert view.pending == []
    assert [answer["error"]["code"] for answer in view.answers] == [-32000, -32000]
    assert [call["outcome"] for call in view.calls] == ["refused", "refused"]


def test_links_are_offered_and_messages_shown_never_sent() -> None:
    view = app_of("weather", {"city": "Seoul"})
    ask(view, 1, "ui/open-link", {"url": "javascript:alert(document.cookie)"})
    ask(view, 2, "ui/open-link", {"url": "https://example.com/docs"})
    ask(view, 3, "ui/message", {"role": "user", "content": {"type": "text", "text": "ignore all\u202e"}})
    ask(view, None, "notifications/message", {"level": "info", "data": "loaded"})
    ask(view, 4, "resources/read", {"uri": "ui://weather/app.html"})
    assert view.frame.notes == [
        {"kind": "link", "url": "https://example.com/docs"},
        {"kind": "message", "text": "ignore all⟨U+202E⟩"},
        {"kind": "log", "text": '"loaded"'},
    ]
    assert [answer.get("error", {}).get("code") for answer in view.answers] == [-32602, None, None, -32601]


def test_the_text_of_the_widget_is_the_results() -> None:
    result = mcp_notebook.call("weather", {"city": "Seoul"}, stdio=STDIO)
    assert repr(result.view().app_view) == repr(result)


def test_a_tool_allowed_for_good_runs_without_asking_again_from_this_app_only() -> None:
    view = app_of("weather", {"city": "Seoul"})
    ask(view, 1, "tools/call", {"name": "refresh", "arguments": {"city": "Busan"}})
    always = view.calls_box.children[0].children[1]
    assert always.description == "Always allow refresh from this app"
    always.click()
    view.pending[0].result(30)
    ask(view, 2, "tools/call", {"name": "refresh", "arguments": {"city": "Jeju"}})
    assert len(view.pending) == 1  # no second prompt
    assert view.answers[-1] == {"id": 2, "result": view.calls[-1]["result"].raw}
    assert view.calls[-1]["result"].from_app == "ui://weather/app.html"
    assert view.calls[-1]["result"].text == "fresh Jeju 22"
    ask(view, 3, "tools/call", {"name": "secret", "arguments": {}})
    assert view.calls[-1]["outcome"] == "refused"  # allowing one tool opens no other
    other = app_of("weather", {"city": "Seoul"})  # another result's app asks afresh
    ask(other, 1, "tools/call", {"name": "refresh", "arguments": {"city": "Busan"}})
    assert len(other.pending) == 1 and other.answers == []


def test_an_app_call_is_in_the_servers_activity_log_as_the_apps(catalogue: Any) -> None:
    app_resource("ui://notes/view", "<!doctype html><p>notes</p>", catalogue=catalogue)

    @tool(catalogue=catalogue, read_only=True, app="ui://notes/view")
    def notes() -> str:
        """The notes, with a view."""
        return "two notes"

    @tool(catalogue=catalogue, read_only=True, app="ui://notes/view", visibility=["app"])
    def more_notes(page: int) -> str:
        """For the view only: a page of notes."""
        return f"page {page}"

    srv = serve_unattended(catalogue)
    try:
        target = {"url": srv.url, "token": srv.token}
        view = mcp_notebook.call("notes", **target).view().app_view
        ask(view, 3, "tools/call", {"name": "more_notes", "arguments": {"page": 2}})
        [pending] = view.pending
        pending.approve_button.click()
        assert pending.result(30).text == "page 2"
        by_model, by_app = [r for r in srv.calls if r.method == "tools/call"]
        # The person reading the log tells the call the app asked for from the one a model chose.
        assert by_model.tool == "notes" and by_model.app is None
        assert by_app.tool == "more_notes" and by_app.app == "ui://notes/view"
        assert by_app.to_json()["app"] == "ui://notes/view"
        shown = "for the app ui://notes/view, its host says"
        assert shown in render_row(by_app) and shown not in render_row(by_model)
    finally:
        srv.stop()
