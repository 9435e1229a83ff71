"""Attack: send one sealed requestState again and again, and run a call a person approved once.

In 2026-07-28 a tool that asks a question ends its round with a sealed ``requestState``; the
client answers with ``inputResponses`` and the state. The seal proves the server made the state,
but not that it is unused: after one Approve, the same state sent back with new answers ran the
mutating tool seven times in its ten-minute lifetime, once with another client's token, and the
person was never asked again. Now a state answers one round, once, for the identity it was issued
to (-32602 saying to start again), and a round's answers count only for that round's questions.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from mcp_notebook import Catalogue, Context, serve, tool
from tests.conftest import serve_unattended
from tests.security.conftest import post_modern, reply

ASKS = {"elicitation": {}}
YES = {"action": "accept", "content": {"sure": True}}


@pytest.fixture
def bank(catalogue: Catalogue) -> Any:
    sent: list[int] = []

    @tool(catalogue=catalogue)
    def transfer(amount: int, ctx: Context) -> str:
        """Send money after the person at the client confirms (changes things: needs approval)."""
        if not ctx.elicit(f"Send {amount}?", {"sure": bool}).get("sure"):
            return "not sent"
        sent.append(amount)
        return f"sent {amount}"

    srv = serve(catalogue=catalogue, approval_timeout=10)
    prompts: list[Any] = []
    lock = threading.Lock()

    def approve(request: Any) -> None:
        with lock:
            prompts.append(request)
        request.approve()

    srv.approval.listeners.append(approve)
    srv.sent, srv.prompts = sent, prompts
    try:
        yield srv
    finally:
        srv.stop()


def transfer(srv: Any, token: str, **params: Any) -> dict[str, Any]:
    body = {"name": "transfer", "arguments": {"amount": 100}, **params}
    return reply(post_modern(srv, "tools/call", body, token=token, capabilities=ASKS))


def test_a_state_answers_its_round_once(bank: Any) -> None:
    alice = bank.token
    first = transfer(bank, alice)["result"]
    assert first["resultType"] == "input_required" and len(bank.prompts) == 1
    state = first["requestState"]
    done = transfer(bank, alice, inputResponses={"elicit-1": YES}, requestState=state)
    assert done["result"]["content"][0]["text"] == "sent 100" and bank.sent == [100]
    for answers in (
        {"elicit-1": YES},
        {"elicit-1": {"action": "accept", "content": {"sure": True}}, "x": YES},
    ):
        replayed = transfer(bank, alice, inputResponses=answers, requestState=state)
        assert replayed["error"]["code"] == -32602
        assert (
            "already used" in replayed["error"]["message"]
            and "Start the call again" in replayed["error"]["message"]
        )
    assert bank.sent == [100] and len(bank.prompts) == 1  # no second run, no second prompt
    assert bank.calls[-1].outcome == "error -32602"  # refused, and on record


def test_a_state_is_bound_to_the_identity_it_was_issued_to(bank: Any) -> None:
    alice, mallory = bank.add_client("alice"), bank.add_client("mallory")
    state = transfer(bank, alice)["result"]["requestState"]
    stolen = transfer(bank, mallory, inputResponses={"elicit-1": YES}, requestState=state)
    assert stolen["error"]["code"] == -32602 and bank.sent == []
    # The attempt did not use up Alice's round: she can still answer it, once.
    mine = transfer(bank, alice, inputResponses={"elicit-1": YES}, requestState=state)
    assert mine["result"]["content"][0]["text"] == "sent 100" and bank.sent == [100]


@pytest.fixture
def survey(catalogue: Catalogue) -> Any:
    @tool(catalogue=catalogue, read_only=True)
    def two_steps(ctx: Context) -> str:
        """Ask a name, then a colour."""
        name = ctx.elicit("Name?", {"name": str}, key="name").get("name")
        color = ctx.elicit("Colour?", {"color": str}, key="color").get("color")
        return f"{name} likes {color}"

    srv = serve_unattended(catalogue)
    try:
        yield srv
    finally:
        srv.stop()


def step(srv: Any, **params: Any) -> dict[str, Any]:
    body = {"name": "two_steps", "arguments": {}, **params}
    result: dict[str, Any] = reply(post_modern(srv, "tools/call", body, token=srv.token, capabilities=ASKS))[
        "result"
    ]
    return result


def answer(field: str, value: str) -> dict[str, Any]:
    return {"action": "accept", "content": {field: value}}


def test_answers_count_only_for_the_questions_of_their_round(survey: Any) -> None:
    first = step(survey)
    assert first["resultType"] == "input_required" and set(first["inputRequests"]) == {"name"}
    # An answer to a later question, sent early, is not taken: that question is asked in its turn.
    second = step(
        survey,
        inputResponses={"name": answer("name", "Mina"), "color": answer("color", "red")},
        requestState=first["requestState"],
    )
    assert set(second["inputRequests"]) == {"color"}
    # And an answer already given cannot be rewritten in a later round.
    done = step(
        survey,
        inputResponses={"color": answer("color", "blue"), "name": answer("name", "Eve")},
        requestState=second["requestState"],
    )
    assert done["content"][0]["text"] == "Mina likes blue"


def test_a_first_call_may_bring_its_answers_up_front(survey: Any) -> None:
    # No state yet, no round to bind to: the tool reads the answers it asks for, and ignores the rest
    # (the official conformance suite's input-required-result-ignore-extra-params).
    extra = {"name": answer("name", "Eve"), "color": answer("color", "red"), "unknown": answer("x", "y")}
    assert step(survey, inputResponses=extra)["content"][0]["text"] == "Eve likes red"
