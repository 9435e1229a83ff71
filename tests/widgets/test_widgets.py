"""The server panel: approval prompts and the activity log, without a kernel and in a real one."""

from __future__ import annotations

import concurrent.futures
import html
import re
import textwrap
import threading
import time
from typing import Annotated, Any, Literal

import anyio
import pytest
from annotated_types import Ge, Le

import mcp_notebook
from mcp_notebook import Catalogue, get_language, serve, set_language, tool
from mcp_notebook.core._approval_request import ApprovalRequest
from mcp_notebook.widgets import ApprovalPrompt, ServerPanel
from mcp_notebook.widgets._panel import MAX_OUTCOMES, outcome
from tests.conftest import connect, outside_call
from tests.kernel import Kernel


def define(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, destructive=True, title="Delete a row")
    def delete_row(row: int) -> str:
        """Delete one row of the table."""
        return f"deleted {row}"


def wait_for_prompt(panel: ServerPanel) -> ApprovalPrompt:
    """The panel's prompt of a call waiting now (decided ones have left a line in their place)."""
    shown = threading.Event()
    panel.server.approval.listeners.append(lambda request: shown.set())

    def waiting() -> list[Any]:
        return [c for c in panel.approvals.children if isinstance(c, ApprovalPrompt) and c.decision is None]

    if not waiting():
        assert shown.wait(10), "no approval prompt appeared"
    (prompt,) = waiting()
    return prompt


def activity_rows(panel: Any) -> list[str]:
    """The rows of the panel's activity log (each a ``<details>`` element: summary line, then the wire)."""
    return panel.activity.value.split("<details")[1:]


@pytest.mark.parametrize(
    ("button", "expected"), [("approve_button", "deleted 4"), ("deny_button", "declined")]
)
def test_clicking_a_prompt_decides_the_waiting_call(catalogue: Catalogue, button: str, expected: str) -> None:
    define(catalogue)
    srv = serve(catalogue=catalogue, approval_timeout=30)
    try:
        panel = srv.panel()
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pending = pool.submit(outside_call, srv, "delete_row", {"row": 4})
            prompt = wait_for_prompt(panel)
            shown = html.unescape(prompt.shown_html)
            assert "delete_row (Delete a row)" in shown and "Delete one row of the table." in shown
            assert "not verified" in shown and "destructiveHint=True" in shown and '"row": 4' in shown
            getattr(prompt, button).click()
            result = pending.result(30)
        assert expected in result.content[0].text
        assert prompt.decision in ("approved", "denied") and prompt.approve_button.disabled
        # The prompt leaves one line in its place: what happened, to which tool, for whom, and when.
        (line,) = panel.outcomes
        assert re.fullmatch(r"\d\d:\d\d:\d\d (approved|denied): delete_row .*owner.*", line), line
        assert not any(isinstance(child, ApprovalPrompt) for child in panel.approvals.children)
        panel.activity.flush()
        rows = activity_rows(panel)
        assert any("tools/call" in row and "delete_row" in row for row in rows)
        assert repr(panel) == f"<MCP server panel: {srv.url}, approval='ask'>"
    finally:
        srv.stop()


def test_decided_prompts_leave_a_bounded_list_of_lines(catalogue: Catalogue) -> None:
    define(catalogue)
    srv = serve(catalogue=catalogue, approval_timeout=30)
    try:
        panel = srv.panel()
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            for row in range(MAX_OUTCOMES + 2):
                pending = pool.submit(outside_call, srv, "delete_row", {"row": row})
                wait_for_prompt(panel).deny_button.click()
                assert "declined" in pending.result(30).content[0].text
        assert len(panel.outcomes) == MAX_OUTCOMES
        assert all(" denied: delete_row did not run; owner was told" in line for line in panel.outcomes)
    finally:
        srv.stop()


@pytest.mark.parametrize(
    ("decide", "english", "korean"),
    [
        (
            "approve",
            "approved: wipe ran for claude-code.",
            "승인: claude-code의 요청으로 wipe가 실행되었습니다.",
        ),
        (
            "deny",
            "denied: wipe did not run; claude-code was told",
            "거부: wipe는 실행되지 않았고, claude-code에게",
        ),
        ("_resolve:timeout", "expired: nobody answered in time", "시간 초과: 아무도 제때 답하지 않아"),
        (
            "_resolve:withdrawn",
            "withdrawn: claude-code went away",
            "취소: 답하기 전에 claude-code의 연결이 끊겨",
        ),
    ],
)
def test_each_outcome_says_what_happened_in_both_languages(decide: str, english: str, korean: str) -> None:
    request = ApprovalRequest(1, "wipe", None, None, {}, {}, "claude-code")
    method, _, argument = decide.partition(":")
    getattr(request, method)(*([argument] if argument else []))
    before = get_language()
    try:
        set_language("en")
        assert english in outcome(request)
        set_language("ko")
        assert korean in outcome(request)
    finally:
        set_language(before)


def test_panel_shows_calls_waiting_before_it_was_made(catalogue: Catalogue) -> None:
    define(catalogue)
    srv = serve(catalogue=catalogue, approval_timeout=30)
    try:
        asked = threading.Event()
        srv.approval.listeners.append(lambda request: asked.set())
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pending = pool.submit(outside_call, srv, "delete_row", {"row": 1})
            assert asked.wait(10)
            panel = srv.panel()  # displayed late: the waiting request is still there to answer
            panel.approvals.children[0].always_button.click()
            assert pending.result(30).content[0].text == "deleted 1"
        assert srv.approval.allowed == {("owner", "delete_row")}  # the owner's token was the caller
    finally:
        srv.stop()


@pytest.mark.kernel
@pytest.mark.parametrize(
    ("button", "expected", "decision"),
    [
        ("Approve", "wiped sales", "approved"),
        ("Deny", "declined", "denied"),
        (None, "within 2 s", "timeout"),  # nobody clicks
    ],
)
def test_decide_in_a_real_kernel_with_the_message_a_browser_sends(
    button: str | None, expected: str, decision: str
) -> None:
    # Nobody clicking is proven by a short wait; a click must not race it on a busy machine.
    timeout = 2 if button is None else 60
    kernel = Kernel()
    try:
        kernel.run(
            textwrap.dedent(
                f'''
                %load_ext mcp_notebook
                import mcp_notebook
                from mcp_notebook import tool

                @tool(destructive=True)
                def wipe(table: str) -> str:
                    """Delete every row of a table."""
                    return f"wiped {{table}}"

                srv = mcp_notebook.serve(approval_timeout={timeout})
                display(srv.panel())
                '''
            )
        ).raise_for_error()
        remote = kernel.json('{"url": srv.url, "token": srv.token}')

        class Remote:
            url, token = remote["url"], remote["token"]

        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pending = pool.submit(outside_call, Remote, "wipe", {"table": "sales"})
            if button is not None:
                found = kernel.wait_for_comm(
                    lambda state: (
                        state.get("_model_name") == "ButtonModel" and state.get("description") == button
                    )
                )["comm_id"]
                # A person sees the buttons once their row exists (its handlers are set by then): wait for it.
                kernel.wait_for_comm(lambda state: f"IPY_MODEL_{found}" in state.get("children", []))
                kernel.click(found)
            result = pending.result(30)
        assert expected in result.content[0].text
        assert result.is_error is (decision != "approved")
        assert kernel.json("srv.calls[-1].decision") == decision
    finally:
        kernel.shutdown()


def test_catalogue_view_groups_by_controller_and_follows_changes() -> None:
    from mcp_notebook import prompt, publish
    from mcp_notebook.widgets import CatalogueView

    catalogue = Catalogue()

    @tool(catalogue=catalogue, read_only=True, lint=False)
    def lookup(status: str) -> str:
        """Look something up."""
        return status

    view = CatalogueView(catalogue)
    shown = html.unescape(view.body.value)
    assert "Tools: the model decides" in shown and "Resources: the application decides" in shown
    assert "Prompts: the user decides" in shown and "claims (not verified)" in shown
    assert "MCP022" in shown  # the linter's finding about the free-form 'status'
    publish("text", "notes://x", name="x", catalogue=catalogue)

    @prompt(catalogue=catalogue)
    def ask(topic: str) -> str:
        """Ask about a topic."""
        return topic

    shown = html.unescape(view.body.value)
    assert "notes://x" in shown and "<code>ask</code>" in shown
    assert repr(view) == "<MCP catalogue: 1 tools, 1 resources, 1 prompts>"
    view.close()


def test_catalogue_view_says_whether_each_tool_runs_as_a_task() -> None:
    from mcp_notebook import Context
    from mcp_notebook.widgets import CatalogueView

    catalogue = Catalogue()

    @tool(catalogue=catalogue, read_only=True, lint=False, task="optional")
    def train(ctx: Context) -> str:
        """Train."""
        return "trained"

    @tool(catalogue=catalogue, read_only=True, lint=False)
    def quick() -> str:
        """Answer."""
        return "quick"

    view = CatalogueView(catalogue)
    shown = html.unescape(view.body.value)
    by_tool = {item.split("</b>")[0]: item for item in shown.split("<li class='mcp-card'><b>")[1:]}
    assert "As a task:</span> optional: a client that supports tasks gets a task" in by_tool["train"]
    assert "As a task:</span> never: every call is answered in its own request" in by_tool["quick"]
    view.close()


def test_panel_gives_ready_to_paste_configs_and_checks_the_connection(catalogue: Catalogue) -> None:
    import json

    srv = serve(catalogue=catalogue)
    try:
        connect = srv.panel().connect
        assert connect.config.value == "" and srv.clients == []  # showing the panel hands out nothing
        connect.client.value = "claude-code"
        assert json.loads(connect.config.value)["mcpServers"]["notebook"]["type"] == "http"  # Claude Code
        own = srv.add_client("claude-code")  # the token the pick made, handed back
        assert srv.url in connect.config.value and own in connect.config.value
        assert srv.token not in connect.config.value  # the owner's token stays the owner's
        assert ".mcp.json" in connect.usage.value  # where the text goes
        connect.client.value = "cursor"
        pasted = json.loads(connect.config.value)
        assert (
            pasted["mcpServers"]["notebook"]["headers"]["Authorization"]
            == f"Bearer {srv.add_client('cursor')}"
        )
        assert "cursor/mcp.json" in connect.usage.value
        assert srv.client_config("vscode") == srv.client_config("vscode")
        assert srv.clients == ["claude-code", "cursor", "vscode"]
        outcome = connect.run_check()
        assert outcome.ok is True and "mcp-notebook" in connect.result.value
    finally:
        srv.stop()


def test_activity_shows_the_wire_and_exports_jsonl(catalogue: Catalogue, tmp_path: Any) -> None:
    import json

    from tests.conftest import serve_unattended

    @tool(catalogue=catalogue, read_only=True)
    def echo(text: str) -> str:
        """Echo the text."""
        print("printed by the tool")
        return text

    srv = serve_unattended(catalogue, history=2)
    try:
        panel = srv.panel()
        for word in ("a", "b", "c"):
            outside_call(srv, "echo", {"text": word})
        assert [record.arguments["text"] for record in srv.calls] == ["b", "c"]  # a bounded ring
        panel.activity.flush()
        call_rows = [row for row in activity_rows(panel) if "tools/call" in row.split("</summary>")[0]]
        details = html.unescape(call_rows[-1].split("</summary>")[1])
        assert '"method": "tools/call"' in details and '"jsonrpc": "2.0"' in details
        assert '"result": {' in details and "printed by the tool" in details
        path = tmp_path / "activity.jsonl"
        assert srv.export_activity(path) == 2
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        last_call = [line for line in lines if line["method"] == "tools/call"][-1]
        assert last_call["request"]["params"] == {"name": "echo", "arguments": {"text": "c"}}
        assert last_call["response"]["result"]["content"][0]["text"] == "c"
    finally:
        srv.stop()


def test_try_it_form_is_generated_from_the_schema_and_calls_the_tool(catalogue: Catalogue) -> None:
    from mcp_notebook.widgets import CatalogueView
    from tests.conftest import serve_unattended

    @tool(catalogue=catalogue, read_only=True, lint=False)
    def forecast(
        city: str,
        unit: Literal["C", "F"] = "C",
        days: Annotated[int, Ge(1), Le(14)] = 3,
        hourly: bool = False,
        tags: list[str] | None = None,
    ) -> dict[str, Any]:
        """Weather for a city."""
        return {"city": city, "unit": unit, "days": days, "hourly": hourly, "tags": tags}

    srv = serve_unattended(catalogue)
    try:
        view = CatalogueView(catalogue)
        table = html.unescape(view.body.value)
        assert "<code>days</code>" in table and "minimum=1, maximum=14" in table and "C, F" in table
        form = view.tryit["forecast"]
        kinds = {name: type(field).__name__ for name, field in form.fields.items()}
        assert kinds == {
            "city": "Text",
            "unit": "Dropdown",
            "days": "BoundedIntText",
            "hourly": "Checkbox",
            "tags": "Textarea",
        }
        form.fields["tags"].value = "[not json"
        assert form.submit() is None and "not valid JSON" in form.problems.value
        form.fields["tags"].value = '["rain"]'
        form.fields["city"].value = "Seoul"
        form.fields["unit"].value = "F"
        result = form.submit().result(30)
        assert result.structured_content == {
            "city": "Seoul",
            "unit": "F",
            "days": 3,
            "hourly": False,
            "tags": ["rain"],
        }
        view.close()
    finally:
        srv.stop()


def test_every_request_is_in_the_activity_log_with_its_wire(catalogue: Catalogue) -> None:
    from mcp_notebook import publish
    from tests.conftest import serve_unattended

    publish("hello", "notes://hi", name="hi", catalogue=catalogue)
    srv = serve_unattended(catalogue)
    try:
        panel = srv.panel()

        async def main() -> None:
            async with connect(srv, "legacy") as client:
                await client.list_resources()
                await client.read_resource("notes://hi")
                with pytest.raises(Exception, match="notes://nope"):
                    await client.read_resource("notes://nope")

        anyio.run(main)
        methods = [(r.method, r.outcome) for r in srv.activity]
        assert ("resources/list", "ok") in methods and ("resources/read", "ok") in methods
        assert ("resources/read", "error -32002") in methods and srv.calls == []
        failed = next(r for r in srv.activity if r.is_error).wire()
        assert (
            failed["request"]["params"] == {"uri": "notes://nope"}
            and failed["response"]["error"]["code"] == -32002
        )
        panel.activity.flush()
        lines = [html.unescape(row.split("</summary>")[0]) for row in activity_rows(panel)]
        assert any("resources/read" in line and "notes://hi" in line for line in lines)
    finally:
        srv.stop()


def test_an_unknown_tool_is_in_the_activity_log_as_a_protocol_error(catalogue: Catalogue) -> None:
    from tests.conftest import serve_unattended

    srv = serve_unattended(catalogue)
    try:
        with pytest.raises(mcp_notebook.ProtocolError):
            mcp_notebook.call("no_such_tool")
        refused = srv.activity[-1]
        assert refused.tool == "no_such_tool" and refused.wire()["response"]["error"]["code"] == -32602
        assert srv.calls == []  # not a tool call that ran
    finally:
        srv.stop()


def test_a_busy_server_adds_rows_not_widgets_and_keeps_one_panel(catalogue: Catalogue) -> None:
    from ipywidgets.widgets.widget import _instances

    from tests.conftest import serve_unattended

    @tool(catalogue=catalogue, read_only=True)
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    srv = serve_unattended(catalogue)
    try:
        panel = srv.panel()
        assert srv.panel() is panel  # %mcp_serve run again shows the same panel: the server feeds one
        panel.activity.max_entries = 5  # a short log, to see it stay bounded
        outside_call(srv, "echo", {"text": "warm-up"})
        panel.activity.flush()
        before = len(_instances)
        for index in range(20):
            outside_call(srv, "echo", {"text": f"call {index}"})
        panel.activity.flush()
        assert len(_instances) == before  # a widget per request would pile up in kernel and browser
        rows = activity_rows(panel)
        assert len(rows) == 5 and any("call 19" in row for row in rows)  # the newest, and only 5
    finally:
        srv.stop()
    assert "stopped" in panel.header.value


@pytest.mark.parametrize(("timeout", "noted"), [(120, True), (45, False)])
def test_a_long_countdown_says_that_many_clients_stop_waiting_sooner(timeout: int, noted: bool) -> None:
    request = ApprovalRequest(1, "wipe", None, None, {}, {}, "claude-code")
    request.deadline = time.monotonic() + timeout
    shown = html.unescape(ApprovalPrompt(request).countdown.value)
    assert re.match(r"<span class='mcp-warn'>\d+ s left</span>", shown)
    assert ("many clients give up after 60 s" in shown) is noted
