"""What the store tests share: one real redis-server for the session (Debian's, on a free port)."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from tests.services import ROOT, RedisServer


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    try:
        yield server
    finally:
        server.stop()


class Child:
    """A process on the same store (`tests.core.store_process`), read line by line."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.core.store_process", *args],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def line(self) -> str:
        line = self.lines.get(timeout=60)
        if line is None:
            assert self.process.stderr is not None
            raise AssertionError(f"the process ended: {self.process.stderr.read()}")
        return line

    def send(self, text: str = "") -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def finish(self) -> int:
        if self.process.stdin is not None:
            self.process.stdin.close()
        code = self.process.wait(timeout=60)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        return code
