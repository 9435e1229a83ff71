"""Every launcher README recommends answers a lone client as fast as one uvicorn process does.

Before uvicorn 0.55, ``uvicorn app:app --workers N`` bound its socket without saying it was TCP, so
asyncio never set ``TCP_NODELAY`` on the connections it accepted: Nagle's algorithm held each
response's last segment until the client's delayed ACK, about 40 ms per request on a kept-alive
connection. Under load it hides behind queueing; an agent that makes one call at a time sees all
of it. Here one client calls the exported example's ``price`` tool, one call after another, on one
kept-alive connection, against a single uvicorn process and against each launcher, in interleaved
rounds of the same run; its median under the launcher may exceed the single process's by less than
half of that stall. The bound is additive, not a ratio: on a busy two-core machine two workers beside
the client add a millisecond or two of scheduling to a 3 ms call (4.8 ms against 2.9 ms was seen),
which says nothing about Nagle; a stall adds about 40 ms whatever the machine.
``bench/bench_launchers.py`` prints the ratio itself as a table.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import anyio
import pytest

from tests.exported import export_example, service_environ, token_of
from tests.services import Replica, lone_client_latencies

pytestmark = pytest.mark.replicas

# What README and deploy/Dockerfile tell people to run, as `Replica` starts it.
LAUNCHERS = {
    "uvicorn --workers 2": {"server": "uvicorn", "workers": 2},
    "gunicorn -k uvicorn.workers.UvicornWorker -w 2": {"server": "gunicorn", "workers": 2},
}
ROUNDS, CALLS = 4, 25
# Linux's shortest delayed ACK: what Nagle's algorithm adds to each kept-alive response.
DELAYED_ACK_MS = 40.0
TOKEN = token_of("client00")


@pytest.mark.parametrize("launcher", LAUNCHERS)
def test_a_lone_client_waits_no_longer_under_workers_than_with_one_process(
    tmp_path: Path, launcher: str
) -> None:
    folder = export_example(tmp_path)
    environ = service_environ(folder, f"sqlite:///{folder / 'state.sqlite3'}")
    single = Replica(folder, environ)
    several = Replica(folder, environ, **LAUNCHERS[launcher])  # type: ignore[arg-type]
    try:
        took: dict[str, list[float]] = {"single": [], "several": []}
        for _ in range(ROUNDS):  # interleaved: both meet the same machine
            took["single"] += anyio.run(lone_client_latencies, single.url, TOKEN, CALLS)
            took["several"] += anyio.run(lone_client_latencies, several.url, TOKEN, CALLS)
        single_p50 = statistics.median(took["single"]) * 1000
        several_p50 = statistics.median(took["several"]) * 1000
        assert several_p50 < single_p50 + DELAYED_ACK_MS / 2, (
            f"{launcher}: a lone client's median {several_p50:.1f} ms against {single_p50:.1f} ms "
            "from one uvicorn process: a delayed-ACK stall (is TCP_NODELAY set on accepted sockets?)"
        )
    finally:
        several.stop()
        single.stop()
