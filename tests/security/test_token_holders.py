"""A client with the token is authenticated, not trusted: it cannot grow the kernel's memory without
bound, stall the other clients, or starve the other tools of worker threads.

Measured where a user would notice: what the activity log holds (its records as JSON, counted by the
test itself), the size of the error a model gets back, whether other clients are answered while a
large request is checked, and whether an unrelated tool still runs after one tool's calls hang.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import anyio
import pytest

from mcp_notebook import Catalogue, tool
from tests.conftest import connect, serve_unattended

pytestmark = pytest.mark.anyio


def held_bytes(srv: Any) -> int:
    """What the server's logs hold: the JSON of every value each kept record refers to, each record once."""
    records = {id(record): record for record in [*srv.tool_server.activity, *srv.tool_server.calls]}
    values = ("arguments", "result", "error", "rounds", "stdout")
    return sum(
        len(json.dumps({name: getattr(record, name) for name in values}, default=str))
        for record in records.values()
    )


def define_echo(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    def store(blob: str) -> int:
        """Store a blob; returns its length."""
        return len(blob)


async def test_huge_arguments_do_not_pile_up_in_the_activity_log(catalogue: Catalogue) -> None:
    define_echo(catalogue)
    srv = serve_unattended(catalogue)  # the shipped defaults
    blob = "x" * (3 * 1024 * 1024)
    try:
        async with connect(srv, "auto") as client:
            for _ in range(30):
                result = await client.call_tool("store", {"blob": blob})
                assert result.structured_content == {"result": len(blob)}  # the tool got all of it
    finally:
        srv.stop()
    assert len(srv.calls) == 30  # every call is on record...
    assert held_bytes(srv) < 1024 * 1024  # ...in well under the 90 MB they carried
    kept = srv.calls[-1].arguments["blob"]
    assert kept.startswith("xxx") and "more characters not kept in the activity log" in kept


async def test_the_activity_log_drops_its_oldest_records_past_its_byte_limit(catalogue: Catalogue) -> None:
    define_echo(catalogue)
    limit = 512 * 1024
    srv = serve_unattended(catalogue, history_bytes=limit)
    blob = "y" * (20 * 1024)  # under one record's share: kept whole
    try:
        async with connect(srv, "auto") as client:
            for i in range(60):
                await client.call_tool("store", {"blob": f"{i:03d}" + blob})
    finally:
        srv.stop()
    assert held_bytes(srv) <= limit * 1.1
    assert srv.tool_server.log.retained_bytes <= limit
    kept = [record.arguments["blob"][:3] for record in srv.calls]
    assert kept[-1] == "059" and "000" not in kept  # the newest stay, the oldest went
    assert all(len(record.arguments["blob"]) == len(blob) + 3 for record in srv.calls)


def define_typed(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    def count(n: int, xs: list[int] | None = None) -> int:
        """Count."""
        return n


async def test_an_invalid_huge_argument_gets_a_short_error_that_still_says_what_is_wrong(
    catalogue: Catalogue,
) -> None:
    define_typed(catalogue)
    srv = serve_unattended(catalogue)
    try:
        async with connect(srv, "auto") as client:
            huge = await client.call_tool("count", {"n": "7" * (3 * 1024 * 1024)})
            many = await client.call_tool("count", {"n": 1, "xs": ["a"] * 100_000})
    finally:
        srv.stop()
    assert huge.is_error
    text = huge.content[0].text
    assert len(text) < 2000, len(text)  # was 3 MB and more: the value quoted back whole
    assert "n: '7777" in text and "is not of type 'integer'" in text  # still says which and why
    assert many.is_error
    text = many.content[0].text
    assert len(text) < 10_000, len(text)  # was one line per item: 100,000 lines
    assert "xs[0]: 'a' is not of type 'integer'" in text and "more problems" in text
    assert held_bytes(srv) < 1024 * 1024


async def test_other_clients_are_answered_while_a_large_request_is_checked(catalogue: Catalogue) -> None:
    # uniqueItems compares every row with every other: a few thousand rows keep a validator busy for
    # seconds. On the server loop that would stall every client; on a worker thread nobody waits.
    @tool(
        catalogue=catalogue,
        input_schema={
            "type": "object",
            "properties": {"rows": {"type": "array", "uniqueItems": True, "items": {"type": "object"}}},
            "required": ["rows"],
            "additionalProperties": False,
        },
    )
    def load(rows: list[dict[str, Any]]) -> int:
        """Load rows."""
        return len(rows)

    @tool(catalogue=catalogue)
    def ping() -> str:
        """Answer pong."""
        return "pong"

    srv = serve_unattended(catalogue)
    rows = [{"id": i, "name": f"row {i}"} for i in range(1800)]
    answered_meanwhile = 0
    try:
        async with connect(srv, "auto") as big, connect(srv, "auto") as small:
            await small.call_tool("ping", {})  # warm: both connections ready before the race
            await big.call_tool("ping", {})
            done = anyio.Event()
            outcome: list[Any] = []

            async def send_big() -> None:
                outcome.append(await big.call_tool("load", {"rows": rows}))
                done.set()

            async with anyio.create_task_group() as group:
                group.start_soon(send_big)
                with anyio.fail_after(120):
                    while not done.is_set():
                        assert (await small.call_tool("ping", {})).content[0].text == "pong"
                        if not done.is_set():
                            answered_meanwhile += 1
    finally:
        srv.stop()
    assert outcome[0].structured_content == {"result": 1800}
    assert answered_meanwhile >= 20, answered_meanwhile  # was 0 or 1: the loop sat in the validator


async def test_a_tool_whose_abandoned_calls_fill_its_share_is_refused_and_others_keep_running(
    catalogue: Catalogue,
) -> None:
    release = threading.Event()
    hanging = [f"hang{i}" for i in range(5)]
    for name in hanging:

        @tool(catalogue=catalogue, name=name, timeout=0.2)
        def hang() -> str:
            """Wait for the test to let go (a tool that hangs)."""
            release.wait(120)
            return "finished late"

    @tool(catalogue=catalogue)
    def ping() -> str:
        """Answer pong."""
        return "pong"

    srv = serve_unattended(catalogue)
    runner = srv.tool_server.runner
    share = runner.workers.share
    try:
        async with connect(srv, "auto") as client:
            # Five tools, each with its share of abandoned calls: more threads than the pool has.
            for name in hanging:
                for _ in range(3 * share):  # a call that timed out before it started is not abandoned
                    if runner.abandoned(name) >= share:
                        break
                    timed_out = await client.call_tool(name, {})
                    assert timed_out.is_error and "took longer than 0.2 s" in timed_out.content[0].text
                assert runner.abandoned(name) == share
            assert len(hanging) * share > runner.workers.max_workers
            refused = await client.call_tool("hang0", {})
            assert refused.is_error
            text = refused.content[0].text
            assert f"{share} earlier calls of tool 'hang0' are still running" in text
            assert "refused until some of them finish" in text and "timeout" in text
            with anyio.fail_after(30):  # was: waiting for a worker until a hanging call ended
                assert (await client.call_tool("ping", {})).content[0].text == "pong"
            release.set()
            deadline = time.monotonic() + 60
            while any(runner.abandoned(name) for name in hanging):
                assert time.monotonic() < deadline, "abandoned calls did not finish after release"
                await anyio.sleep(0.01)  # polling a condition with a deadline, not synchronising by time
            again = await client.call_tool("hang0", {})
            assert again.content[0].text == "finished late"
    finally:
        release.set()
        srv.stop()
