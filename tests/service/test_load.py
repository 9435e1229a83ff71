"""Concurrent clients of both eras against the server in a real kernel, and a cell run meanwhile."""

from __future__ import annotations

from functools import partial

import anyio
import pytest

from bench.kernel_load import (
    HITS,
    Answer,
    check,
    executed_in_kernel,
    plan,
    run_clients,
    serve_in_kernel,
)
from tests.kernel import Kernel

pytestmark = pytest.mark.kernel

CLIENTS = 8  # half handshake era, half 2026-07-28
CALLS = 25  # per client, at least


def test_every_answer_matches_its_request_and_a_cell_runs_while_calls_are_in_flight(kernel: Kernel) -> None:
    url, token = serve_in_kernel(kernel)
    answers: list[Answer] = []
    seen: dict[str, int] = {}

    async def main() -> None:
        everyone_answered = anyio.Event()  # every client has had an answer: the load is flowing
        cell_done = False
        answered_clients: set[int] = set()

        def on_answer(answer: Answer) -> None:
            answered_clients.add(answer.client)
            if len(answered_clients) == CLIENTS:
                everyone_answered.set()

        async def probe() -> None:
            nonlocal cell_done
            await everyone_answered.wait()
            cell = kernel.start(f"print(len({HITS}))")
            # The clients keep calling until this cell completes, so the load cannot end first:
            # a kernel starved by the load would hang here (and fail below), not pass late.
            out = await anyio.to_thread.run_sync(kernel.wait, cell, 60, abandon_on_cancel=True)
            out.raise_for_error()
            seen["executed_when_the_cell_ran"] = int(out.stdout.strip().splitlines()[-1])
            seen["answered_when_the_cell_completed"] = len(answers)
            cell_done = True

        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                group.start_soon(probe)
                load = partial(run_clients, keep_going=lambda: not cell_done, on_answer=on_answer)
                group.start_soon(load, url, token, plan(CLIENTS), CALLS, answers)

    anyio.run(main)

    executed = executed_in_kernel(kernel)
    result = check(answers, executed)
    assert result.ok, result.summary()
    assert result.calls >= CLIENTS * CALLS
    assert {answer.mode for answer in answers} == {"legacy", "2026-07-28"}
    # Ordering, not timing: the cell ran in the middle of the load. It was sent after every client
    # had an answer, so the kernel had run at least one call per client before it; and when it
    # completed, every client still had a call in flight (answered only afterwards).
    assert seen["executed_when_the_cell_ran"] >= CLIENTS
    assert len(answers) - seen["answered_when_the_cell_completed"] >= CLIENTS
