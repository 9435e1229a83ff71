"""Attack: answer a 2026-07-28 ``requestState`` on one replica, then send it again to another one.

Replicas share the key that seals ``requestState`` (any replica opens a state another made), so a
state's single use cannot be a note in one process's memory: replayed to the replica that did not
take its answer, or handed to another client there, it would send the money again. The open rounds
live in the shared Redis: a round is answered once, by whichever replica its answer reaches, and
only by the identity it was issued to; a stolen state used elsewhere does not use the round up.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.exported import token_of
from tests.security.conftest import post_modern, reply
from tests.security.redis_replicas import Replicas, redis_replicas

pytestmark = pytest.mark.replicas

ASKS = {"elicitation": {}}
YES = {"action": "accept", "content": {"sure": True}}


@pytest.fixture(scope="module")
def replicas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicas]:
    with redis_replicas(tmp_path_factory.mktemp("redis-replicas")) as running:
        yield running


def transfer(replica: Any, client: str, **params: Any) -> dict[str, Any]:
    body = {"name": "transfer", "arguments": {"amount": 100}, **params}
    return reply(post_modern(replica, "tools/call", body, token=token_of(client), capabilities=ASKS))


def test_a_state_answered_on_one_replica_is_refused_on_the_other(replicas: Replicas) -> None:
    first, second = replicas.first, replicas.second
    state = transfer(first, "client10")["result"]["requestState"]
    done = transfer(second, "client10", inputResponses={"elicit-1": YES}, requestState=state)
    assert done["result"]["content"][0]["text"] == "sent 100" and replicas.transfers() == ["100"]
    for replica in (first, second):
        for client in ("client10", "client11"):
            replayed = transfer(replica, client, inputResponses={"elicit-1": YES}, requestState=state)
            assert replayed["error"]["code"] == -32602, replayed
            if client == "client10":
                assert "already used" in replayed["error"]["message"]
                assert "Start the call again" in replayed["error"]["message"]
    assert replicas.transfers() == ["100"]  # once, whoever replayed it, wherever


def test_a_stolen_state_on_another_replica_runs_nothing_and_leaves_the_round_to_its_owner(
    replicas: Replicas,
) -> None:
    first, second = replicas.first, replicas.second
    before = replicas.transfers()
    state = transfer(first, "client12")["result"]["requestState"]
    stolen = transfer(second, "client13", inputResponses={"elicit-1": YES}, requestState=state)
    assert stolen["error"]["code"] == -32602 and replicas.transfers() == before
    mine = transfer(first, "client12", inputResponses={"elicit-1": YES}, requestState=state)
    assert mine["result"]["content"][0]["text"] == "sent 100"
    assert replicas.transfers() == [*before, "100"]
