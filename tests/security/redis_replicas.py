"""Two replicas of one exported app sharing a real ``redis-server``, for the attacks across replicas.

The app is exported with the real exporter from a small notebook: ``payroll`` runs as a task until
the file ``RELEASE`` exists, ``transfer`` asks the person at the client before it sends money (and
writes each sending to ``SENT_LOG``). Each replica is a real uvicorn process on 127.0.0.1; a test
talks to one or the other by URL, so it knows which replica answers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat

from mcp_notebook.cli._export import export_notebook
from tests.exported import service_environ
from tests.services import RedisServer, Replica

CELLS = [
    "import os\nfrom mcp_notebook import Context, tool",
    '''@tool(read_only=True, task="optional")
def payroll(ctx: Context) -> str:
    """Computes the payroll; done once the operator releases it."""
    while not os.path.exists(os.environ["RELEASE"]):
        ctx.sleep(0.05)
    return "salary: 123,456"''',
    '''@tool
def transfer(amount: int, ctx: Context) -> str:
    """Sends money once the person at the client confirms (changes things)."""
    if not ctx.elicit(f"Send {amount}?", {"sure": bool}).get("sure"):
        return "not sent"
    with open(os.environ["SENT_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{amount}\\n")
    return f"sent {amount}"''',
]


@dataclass
class Replicas:
    first: Replica
    second: Replica
    release: Path  # created by a test: every running payroll finishes
    sent: Path  # one line per transfer that ran

    def transfers(self) -> list[str]:
        return self.sent.read_text(encoding="utf-8").split()


@contextlib.contextmanager
def redis_replicas(folder: Path) -> Iterator[Replicas]:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in CELLS])
    nbformat.write(notebook, folder / "bank.ipynb")
    (folder / "app.py").write_text(export_notebook(folder / "bank.ipynb"), encoding="utf-8")
    sent = folder / "sent.log"
    sent.touch()
    release = folder / "release"
    started: list[RedisServer | Replica] = []
    try:
        redis = RedisServer()
        started.append(redis)
        environ = service_environ(folder, redis.url, RELEASE=str(release), SENT_LOG=str(sent))
        environ["MCP_NOTEBOOK_ALLOW_TOOLS"] = "transfer"  # no person watches: allowed by name
        first = Replica(folder, environ)
        started.append(first)
        second = Replica(folder, environ)
        started.append(second)
        yield Replicas(first, second, release, sent)
    finally:
        release.touch()
        for part in reversed(started):
            part.stop()
