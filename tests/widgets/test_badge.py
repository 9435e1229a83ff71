"""The page's badge for waiting calls: what it counts and says, in a real kernel and without one.

The browser side (the badge on the page, the title, the button) is in
tests/browser/test_waiting_badge.py; markup in it in tests/security/test_markup_in_the_waiting_badge.py.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import textwrap
from types import SimpleNamespace
from typing import Any

import pytest

from mcp_notebook import get_language, set_language
from mcp_notebook.core._approval_request import ApprovalRequest
from mcp_notebook.widgets import ApprovalPrompt
from mcp_notebook.widgets._badge import MAX_ARGUMENTS_CHARS, WAITING_CLASS, WaitingBadge
from mcp_notebook.widgets._questions import ElicitationForm
from tests.conftest import outside_call
from tests.kernel import Kernel


def request(id: int, tool: str = "wipe", **fields: Any) -> ApprovalRequest:
    values: dict[str, Any] = {"arguments": {"table": "sales"}, "client": "claude-code", **fields}
    return ApprovalRequest(id, tool, None, None, {"destructiveHint": True}, **values)


def test_counts_each_request_until_it_is_decided_in_the_order_they_came() -> None:
    badge = WaitingBadge()
    first, second = request(1), request(2, "drop")
    badge.add_request(first)
    badge.add_request(second)
    assert badge.count == 2
    assert badge.texts["label"] == "2 calls are waiting for you"
    assert [entry["text"] for entry in badge.waiting] == [
        "Run wipe for claude-code?",
        "Run drop for claude-code?",
    ]
    first.deny()
    assert badge.count == 1 and badge.texts["label"] == "1 call is waiting for you"
    second._resolve("withdrawn")  # the client went away: nobody waits for an answer now
    assert badge.count == 0 and badge.waiting == []


def test_a_click_in_the_badge_decides_that_request_only() -> None:
    badge = WaitingBadge()
    first, second = request(1), request(2)
    badge.add_request(first)
    badge.add_request(second)
    key = badge.waiting[1]["id"]
    badge._message(badge, {"action": "approve", "id": key}, [])
    assert (first.decision, second.decision) == (None, "approved")
    for junk in ({"action": "approve", "id": "999"}, {"action": "run", "id": key}, ["approve"], None):
        badge._message(badge, junk, [])  # what a page sends is checked, never trusted
    assert first.decision is None and badge.count == 1


def test_what_a_client_wrote_is_shown_with_its_hidden_characters_and_cut() -> None:
    badge = WaitingBadge()
    badge.add_request(
        request(1, claimed="<b>bot</b>\u202e", client="memo-bot", arguments={"text": "x\u200b" * 3000})
    )
    (entry,) = badge.waiting
    assert entry["text"] == "Run wipe for memo-bot (claims to be <b>bot</b>⟨U+202E⟩)?"
    assert "x⟨U+200B⟩x" in entry["arguments"]
    assert len(entry["arguments"]) < MAX_ARGUMENTS_CHARS + 40  # cut, saying how long it was
    assert entry["arguments"].endswith(" characters)")


def test_the_badge_speaks_the_notebooks_language() -> None:
    before = get_language()
    set_language("ko")
    try:
        badge = WaitingBadge()
        badge.add_request(request(1, "삭제", client="메모봇"))
        assert badge.texts["label"] == "호출 1개가 답을 기다립니다"
        assert badge.texts["show"] == "보기" and badge.texts["approve"] == "승인"
        assert badge.waiting[0]["text"] == "메모봇의 요청으로 삭제를 실행할까요?"
    finally:
        set_language(before)


def test_the_panels_prompt_is_marked_as_waiting_until_decided() -> None:
    pending = request(1)
    prompt = ApprovalPrompt(pending)
    assert WAITING_CLASS in prompt._dom_classes
    pending.approve()
    assert WAITING_CLASS not in prompt._dom_classes


def test_a_question_is_counted_until_answered_or_given_up() -> None:
    from mcp_notebook.widgets._badge import waiting_badge

    params = SimpleNamespace(message="Which day?", requested_schema={"type": "object", "properties": {}})

    async def main() -> None:
        badge = waiting_badge()
        before = badge.count
        answered, given_up = ElicitationForm(params), ElicitationForm(params)
        assert badge.count == before + 2
        assert "A question waits for your answer: Which day?" in [e["text"] for e in badge.waiting]
        assert WAITING_CLASS in answered._dom_classes
        answered.send()
        assert badge.count == before + 1 and WAITING_CLASS not in answered._dom_classes
        # Done-callbacks run in the order they were added: once this one has run, the form's has.
        settled = asyncio.Event()
        given_up.answer.add_done_callback(lambda _: settled.set())
        given_up.answer.cancel()  # the call that asked stopped waiting
        await asyncio.wait_for(settled.wait(), 5)
        assert badge.count == before and WAITING_CLASS not in given_up._dom_classes

    asyncio.run(main())


@pytest.mark.kernel
@pytest.mark.timeout(120)
def test_in_a_kernel_serve_alone_counts_an_outside_call_and_the_badge_answers_it() -> None:
    kernel = Kernel()
    try:
        served = kernel.run(
            textwrap.dedent(
                '''
                import mcp_notebook
                from mcp_notebook import tool

                @tool(destructive=True)
                def wipe(table: str) -> str:
                    """Delete every row of a table."""
                    return f"wiped {table}"

                srv = mcp_notebook.serve()
                '''
            )
        )
        served.raise_for_error()
        # serve() made the badge's model, which reaches the page as any widget does; nothing is displayed.
        opened = served.comm(lambda state: state.get("marker", "").startswith("mcp-waiting-"))
        assert "display_data" not in [m["msg_type"] for m in served.messages]
        remote = SimpleNamespace(**kernel.json('{"url": srv.url, "token": srv.token}'))
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pending = pool.submit(outside_call, remote, "wipe", {"table": "sales"})
            waiting = kernel.wait_for_update(opened["comm_id"], lambda state: state.get("count") == 1)
            (entry,) = [e for e in waiting["waiting"] if e["kind"] == "approval"] or [None]
            assert entry is not None and entry["text"].startswith("Run wipe for owner")
            # Approve as the badge's button does: a custom message on the badge's comm.
            kernel.send_custom(opened["comm_id"], {"action": "approve", "id": entry["id"]})
            result = pending.result(30)
        assert result.is_error is False and result.content[0].text == "wiped sales"
        kernel.wait_for_update(opened["comm_id"], lambda state: state.get("count") == 0)
    finally:
        kernel.shutdown()
