"""An exported app as replicas behind a real load balancer, sharing a real Redis.

The example notebook ``notebooks/examples/orders_service.ipynb`` is exported (as
``mcp-notebook export`` does), served by two uvicorn processes that share a ``redis-server``,
behind Debian's ``haproxy`` running the repo's own ``deploy/haproxy.cfg``. Real SDK clients of
both protocol eras call through HAProxy, or straight to one replica when a test must be sure
which replica answers. Marked ``replicas`` (``pytest -m replicas`` selects them; ``scripts/check``
runs them with the rest).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from mcp_notebook.client._http import tls_context
from tests.exported import CLIENTS, connect, export_example, service_environ, token_of
from tests.services import HAProxy, RedisServer, Replica

pytestmark = [pytest.mark.replicas, pytest.mark.anyio]


@dataclass
class Cluster:
    redis: RedisServer
    replicas: list[Replica]
    proxy: HAProxy

    @property
    def url(self) -> str:
        return self.proxy.url

    def stop(self) -> None:
        self.proxy.stop()
        for replica in self.replicas:
            replica.stop()
        self.redis.stop()


@contextlib.contextmanager
def cluster_in(folder: Path, count: int = 2) -> Iterator[Cluster]:
    redis = RedisServer()
    started: list[Any] = [redis]
    try:
        environ = service_environ(export_example(folder), redis.url)
        replicas = []
        for _ in range(count):
            replicas.append(Replica(folder, environ))
            started.append(replicas[-1])
        proxy = HAProxy([replica.port for replica in replicas])
        started.append(proxy)
    except BaseException:
        for part in reversed(started):
            part.stop()
        raise
    cluster = Cluster(redis, replicas, proxy)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with cluster_in(tmp_path_factory.mktemp("service")) as running:
        yield running


class Alternating(httpx2.AsyncHTTPTransport):
    """Sends each request to the next of `ports` in turn: a load balancer that never picks the same twice."""

    def __init__(self, ports: list[int]) -> None:
        super().__init__()
        self.ports = ports
        self.sent: list[tuple[int, str]] = []  # (port, JSON-RPC method) of each POST

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        port = self.ports[len(self.sent) % len(self.ports)]
        method = ""
        if request.method == "POST":
            import json

            method = json.loads(request.content or b"{}").get("method", "")
        self.sent.append((port, method))
        request.url = request.url.copy_with(port=port)
        request.headers["host"] = f"127.0.0.1:{port}"
        return await super().handle_async_request(request)


async def served_by(session: Client) -> int:
    result = await session.call_tool("served_by", {})
    assert result.is_error is False, result
    return int(result.structured_content["pid"])  # type: ignore[index]


def key() -> str:
    return f"key-{secrets.token_hex(12)}"


async def test_2026_requests_go_round_robin_and_legacy_sessions_stay_on_their_replica(
    cluster: Cluster,
) -> None:
    pids = {replica.pid for replica in cluster.replicas}
    async with connect(cluster.url, "client00", "2026-07-28") as modern:
        assert modern.protocol_version == "2026-07-28"
        answered = [await served_by(modern) for _ in range(8)]
    assert set(answered) == pids  # no session: every replica answers some of them

    homes = []
    for n in range(4):
        async with connect(cluster.url, f"client0{n + 1}", "legacy") as legacy:
            assert legacy.protocol_version == "2025-11-25"
            seen = {await served_by(legacy) for _ in range(5)}
        assert len(seen) == 1  # the session lives in one replica: HAProxy sends every request there
        homes.append(seen.pop())
    assert set(homes) == pids  # new sessions are spread over the replicas


async def test_sixteen_mixed_era_clients_get_every_answer_once(cluster: Cluster) -> None:
    calls = 6
    answers: dict[str, list[str]] = {}
    replicas: set[int] = set()

    async def one(n: int) -> None:
        mode = "legacy" if n % 2 else "2026-07-28"
        got = answers.setdefault(CLIENTS[n], [])
        async with connect(cluster.url, CLIENTS[n], mode) as session:
            for c in range(calls):
                rows = n * calls + c + 1  # a different answer for each call of each client
                result = await session.call_tool("sales_report", {"rows": rows})
                assert result.is_error is False, result
                got.append(result.content[0].text)  # type: ignore[union-attr]
            replicas.add(await served_by(session))

    async with anyio.create_task_group() as group:
        for n in range(16):
            group.start_soon(one, n)
    for n in range(16):
        expected = [
            "\n".join(f"sale {r:06d}: tea x{r % 7 + 1}" for r in range(n * calls + c + 1))
            for c in range(calls)
        ]
        assert answers[CLIENTS[n]] == expected  # each call answered once, with its own answer, in order
    assert replicas == {replica.pid for replica in cluster.replicas}


async def test_a_handle_minted_on_one_replica_resolves_on_another(cluster: Cluster) -> None:
    first, second = cluster.replicas
    async with (
        connect(first.url, "client05", "2026-07-28") as one,
        connect(second.url, "client05", "2026-07-28") as other,
    ):
        cart = (await one.call_tool("open_cart", {"idempotency_key": key()})).structured_content["result"]  # type: ignore[index]
        added = await other.call_tool("add_to_cart", {"cart": cart, "item": "tea", "idempotency_key": key()})
        assert added.is_error is False, added
        total = await one.call_tool("cart_total", {"cart": cart})
    assert total.structured_content == {"lines": 1, "total": 3}
    # Still the minting client's only: another client's call on either replica is refused.
    async with connect(second.url, "client06", "2026-07-28") as stranger:
        refused = await stranger.call_tool("cart_total", {"cart": cart})
    assert refused.is_error is True and "tea" not in refused.content[0].text  # type: ignore[union-attr]


async def test_the_same_idempotency_key_sent_at_once_to_two_replicas_runs_once(cluster: Cluster) -> None:
    first, second = cluster.replicas
    async with (
        connect(first.url, "client07", "2026-07-28") as one,
        connect(second.url, "client07", "2026-07-28") as other,
    ):
        cart = (await one.call_tool("open_cart", {"idempotency_key": key()})).structured_content["result"]  # type: ignore[index]
        await other.call_tool("add_to_cart", {"cart": cart, "item": "cake", "idempotency_key": key()})
        for _ in range(5):
            same = key()
            orders: list[Any] = []

            async def place(session: Client, same: str = same, orders: list[Any] = orders) -> None:
                result = await session.call_tool("place_order", {"cart": cart, "idempotency_key": same})
                assert result.is_error is False, result
                orders.append(result.structured_content)

            async with anyio.create_task_group() as group:
                group.start_soon(place, one)
                group.start_soon(place, other)
            # place_order makes a new random order number each time it runs: one number, one run.
            assert orders[0] == orders[1] and orders[0]["order"].startswith("order-")


async def test_a_kept_large_result_written_by_one_replica_is_read_through_another(cluster: Cluster) -> None:
    first, second = cluster.replicas
    async with connect(first.url, "client08", "2026-07-28") as one:
        result = await one.call_tool("sales_report", {"rows": 5000})
    link = next(block for block in result.content if block.type == "resource_link")
    expected = "\n".join(f"sale {n:06d}: tea x{n % 7 + 1}" for n in range(5000))
    for url, mode in ((second.url, "2026-07-28"), (second.url, "legacy"), (cluster.url, "legacy")):
        async with connect(url, "client08", mode) as other:
            kept = await other.read_resource(str(link.uri))
        assert kept.contents[0].text == expected  # type: ignore[union-attr]


async def test_a_multi_round_call_completes_with_its_rounds_on_different_replicas(cluster: Cluster) -> None:
    asked: list[str] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        content = {"confirm": True} if "Confirm" in params.message else {"time": "noon"}
        return types.ElicitResult(action="accept", content=content)

    ports = [replica.port for replica in cluster.replicas]
    async with connect(cluster.url, "client09", "2026-07-28") as setup:
        cart = (await setup.call_tool("open_cart", {"idempotency_key": key()})).structured_content["result"]  # type: ignore[index]
        await setup.call_tool("add_to_cart", {"cart": cart, "item": "coffee", "quantity": 2, "idempotency_key": key()})  # fmt: skip
    transport = Alternating(ports)
    async with connect(
        cluster.url, "client09", "2026-07-28", transport=transport, elicitation_callback=answer
    ) as session:
        result = await session.call_tool("confirm_order", {"cart": cart, "idempotency_key": key()})
    assert result.is_error is False, result
    assert result.content[0].text == "Confirmed: 8 euros, pickup at noon."  # type: ignore[union-attr]
    assert asked == ["Confirm the order of 8 euros?", "Pickup time?"]  # each question once
    rounds = [port for port, method in transport.sent if method == "tools/call"]
    assert len(rounds) == 3 and set(rounds) == set(ports)  # the rounds went to both replicas


async def test_killing_a_replica_mid_load(tmp_path: Path) -> None:
    """2026-07-28 clients go on being served by the other replica, and so do the dead one's legacy
    sessions: the survivor takes them over from the handshakes recorded in the shared Redis."""
    with cluster_in(tmp_path) as cluster:
        victim, survivor = cluster.replicas
        killed = anyio.Event()
        # legacy sessions: one per client, with its replica
        homes: dict[str, int] = {}
        outcomes: dict[str, str] = {}
        modern_log: list[tuple[bool, bool, str]] = []  # (started after the kill, answered, detail)
        started = anyio.Event()
        answered_before = [0]

        async def modern(client: str) -> None:
            served_after = 0
            while served_after < 15:
                after = killed.is_set()
                try:
                    async with connect(cluster.url, client, "2026-07-28") as session:
                        while served_after < 15:
                            after = killed.is_set()
                            await served_by(session)
                            modern_log.append((after, True, ""))
                            served_after += after
                            answered_before[0] += not after
                            if answered_before[0] >= 20:
                                started.set()
                except Exception as exc:  # the call the dying replica was answering: the SDK client ends
                    modern_log.append((after, False, repr(exc)))

        async def legacy(client: str, opened: anyio.Event) -> None:
            async with connect(cluster.url, client, "legacy") as session:
                homes[client] = await served_by(session)
                opened.set()
                await killed.wait()
                try:
                    pid = await served_by(session)
                    outcomes[client] = f"served by {pid}"
                except MCPError as exc:
                    outcomes[client] = f"error: {exc.error.message}"
            if outcomes[client].startswith("error"):
                async with connect(cluster.url, client, "legacy") as again:  # reconnect: a new session
                    outcomes[client] += f" | again served by {await served_by(again)}"

        async with anyio.create_task_group() as group:
            for n in range(6):
                opened = anyio.Event()
                group.start_soon(legacy, CLIENTS[n], opened)
                await opened.wait()
            for n in range(6, 10):
                group.start_soon(modern, CLIENTS[n])
            await started.wait()
            victim.kill()  # returns once the process is gone
            killed.set()

        assert victim.pid in homes.values() and survivor.pid in homes.values()
        for client in homes:
            assert outcomes[client] == f"served by {survivor.pid}"  # the same session, on the survivor
        after = [(ok, detail) for was_after, ok, detail in modern_log if was_after]
        assert len(after) >= 60 and all(ok for ok, _ in after), after  # every call begun after the kill
        # A call in flight on the replica at the moment it died may be lost with it (at most one per client).
        assert sum(1 for was_after, ok, _ in modern_log if not was_after and not ok) <= 4


def test_the_next_request_on_a_kept_alive_connection_after_its_replica_died_is_answered(
    tmp_path: Path,
) -> None:
    """A client's next request on the same connection to HAProxy, after the replica behind it died,
    gets an answer (never a connection closed without one): the connect to the dead replica is
    refused, the request goes to a live one, which takes the session over from the shared store;
    stateless requests on that connection go on being answered."""
    from tests.conftest import INITIALIZE

    with cluster_in(tmp_path) as cluster:
        headers = {
            "Authorization": f"Bearer {token_of('client00')}",
            "Accept": "application/json, text/event-stream",
        }
        with httpx2.Client(
            verify=tls_context(), headers=headers, timeout=30
        ) as http:  # one kept-alive connection to HAProxy
            opened = http.post(cluster.url, json=INITIALIZE)
            session = {
                "Mcp-Session-Id": opened.headers["mcp-session-id"],
                "MCP-Protocol-Version": "2025-11-25",
            }
            http.post(
                cluster.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session
            )
            call = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "served_by", "arguments": {}},
            }
            home = http.post(cluster.url, json=call, headers=session).json()["result"]["structuredContent"][
                "pid"
            ]
            (victim,) = [replica for replica in cluster.replicas if replica.pid == home]
            victim.kill()
            after = http.post(cluster.url, json={**call, "id": 3}, headers=session)
            assert after.status_code == 200, after.text
            assert after.json()["result"]["structuredContent"]["pid"] != home  # the same session, elsewhere
            modern = {
                "MCP-Protocol-Version": "2026-07-28",
                "Mcp-Method": "tools/call",
                "Mcp-Name": "served_by",
            }
            meta = {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            }
            stateless = {**call, "id": 4, "params": {**call["params"], "_meta": meta}}
            for n in range(4):  # and the requests after it, round-robin, all answered by the survivor
                answer = http.post(cluster.url, json={**stateless, "id": 5 + n}, headers=modern)
                assert answer.status_code == 200, answer.text
                assert answer.json()["result"]["structuredContent"]["pid"] != home
