"""Real servers the service tests run against: Debian's ``redis-server`` and ``haproxy``.

Each starts on 127.0.0.1 with a port the OS picked, is waited for on a condition (a line it
prints, a port that answers), never a sleep, and is stopped by its own pid. ``scripts/check``
installs both when they are missing (``scripts/_services.sh``).
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from mcp_notebook.client._http import tls_context

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A port the OS gives out now (free until someone else takes it: callers retry on a clash)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float = 30.0, process: subprocess.Popen[str] | None = None) -> None:
    """Until something accepts connections on 127.0.0.1:`port` (polling with a deadline)."""
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the process on port {port} ended with {process.returncode}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")
        threading.Event().wait(delay)  # a poll interval with a deadline, not a synchronisation sleep
        delay = min(delay * 2, 0.1)


class Lines:
    """The lines a process prints, read on a thread, waited for by content."""

    def __init__(self, stream: object) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            line = self._queue.get(timeout=max(0.01, deadline - time.monotonic()))
            if line is None:
                raise RuntimeError(f"the process ended before printing {text!r}: {self.seen[-20:]}")
            self.seen.append(line)
            if text in line:
                return line

    def rest(self, timeout: float = 30.0) -> list[str]:
        """Every line, once the process has ended (call after stopping it)."""
        deadline = time.monotonic() + timeout
        while (line := self._queue.get(timeout=max(0.01, deadline - time.monotonic()))) is not None:
            self.seen.append(line)
        return self.seen


class RedisServer:
    """``redis-server`` on 127.0.0.1, nothing saved to disk, stopped by its pid."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError(
                "redis-server is missing: scripts/check installs it (apt-get install redis-server)"
            )
        for _ in range(5):
            self.port = free_port()
            self.process = subprocess.Popen(
                [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            lines = Lines(self.process.stdout)
            try:
                lines.wait_for("Ready to accept connections")
                return
            except RuntimeError:  # the port was taken meanwhile: another one
                self.process.wait(10)
        raise RuntimeError(f"redis-server did not start: {lines.seen[-10:]}")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        if self.process.stdout is not None:
            self.process.stdout.close()


@contextlib.contextmanager
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    try:
        yield server
    finally:
        server.stop()


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
    if process.stdout is not None:
        process.stdout.close()


class Replica:
    """An exported app (``app.py`` in `folder`) served by uvicorn or gunicorn on 127.0.0.1.

    `workers` > 1 runs that many worker processes behind one port (``--workers``); the process
    this object holds is then their parent. Ready once every worker has said it started (its
    JSON ``"event": "start"`` line, or `ready` for an app that is not ours) and the port answers.
    """

    def __init__(
        self,
        folder: Path,
        environ: dict[str, str],
        *,
        workers: int = 1,
        server: str = "uvicorn",
        module: str = "app:app",
        ready: str = '"event": "start"',
    ) -> None:
        for _ in range(5):
            self.port = free_port()
            if server == "uvicorn":
                command = [sys.executable, "-m", "uvicorn", module, "--app-dir", str(folder)]
                command += ["--host", "127.0.0.1", "--port", str(self.port), "--no-access-log"]
                if workers > 1:
                    command += ["--workers", str(workers)]
            else:  # gunicorn's process manager, uvicorn's worker class
                command = [sys.executable, "-m", "gunicorn", "-k", "uvicorn.workers.UvicornWorker"]
                command += [
                    "-w",
                    str(workers),
                    "-b",
                    f"127.0.0.1:{self.port}",
                    "--chdir",
                    str(folder),
                    module,
                ]
            self.process = subprocess.Popen(
                command, cwd=folder, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            )
            self.lines = Lines(self.process.stdout)
            try:
                for _ in range(workers):
                    self.lines.wait_for(ready, timeout=60)
                wait_for_port(self.port, process=self.process)
                return
            except BaseException:
                _stop(self.process)
                if any("address already in use" in line.lower() for line in self.lines.seen):
                    continue  # the port was taken meanwhile: another one
                raise RuntimeError(f"{server} did not start: {self.lines.seen[-10:]}") from None
        raise RuntimeError(f"{server} did not start: {self.lines.seen[-10:]}")

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def kill(self) -> None:
        """SIGKILL, as a machine that dies: no goodbye; returns once the process and its sockets are gone."""
        self.process.kill()
        self.process.wait(10)

    def stop(self) -> None:
        _stop(self.process)


async def lone_client_latencies(url: str, token: str, calls: int, warmup: int = 5) -> list[float]:
    """Seconds each of `calls` calls of the example's ``price`` tool took for one 2026-07-28 SDK
    client on one kept-alive connection, one call after another (after `warmup` untimed ones)."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    items = ["tea", "coffee", "cake"]
    took = []
    async with (
        httpx2.AsyncClient(
            verify=tls_context(), headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(60)
        ) as http,
        Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client,
    ):
        for n in range(warmup + calls):
            start = time.perf_counter()
            result = await client.call_tool("price", {"item": items[n % 3]})
            if n >= warmup:
                took.append(time.perf_counter() - start)
            assert result.is_error is False and result.structured_content["item"] == items[n % 3], result  # type: ignore[index]
    return took


class HAProxy:
    """Debian's ``haproxy`` running `config` (the repo's deploy/haproxy.cfg) in front of `backends`.

    The config reads its addresses from the environment: ``MCP_LISTEN`` and ``MCP_REPLICA_1``,
    ``MCP_REPLICA_2`` ...
    """

    def __init__(self, backends: list[int], config: Path = ROOT / "deploy" / "haproxy.cfg") -> None:
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        if not Path(binary).exists():
            raise RuntimeError("haproxy is missing: scripts/check installs it (apt-get install haproxy)")
        replicas = {f"MCP_REPLICA_{n}": f"127.0.0.1:{port}" for n, port in enumerate(backends, 1)}
        for _ in range(5):
            self.port = free_port()
            environ = {**os.environ, "MCP_LISTEN": f"127.0.0.1:{self.port}", **replicas}
            self.process = subprocess.Popen(
                [binary, "-f", str(config), "-db"],
                env=environ,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            self.lines = Lines(self.process.stdout)
            try:
                wait_for_port(self.port, process=self.process)
                return
            except RuntimeError:
                _stop(self.process)  # the port was taken meanwhile (or the config is wrong: below)
        raise RuntimeError(f"haproxy did not start: {self.lines.seen[-10:]}")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def stop(self) -> None:
        _stop(self.process)
