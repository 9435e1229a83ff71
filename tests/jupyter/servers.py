"""A real Jupyter server in a subprocess (the extension enabled by the package's install), and its kernels.

The token reaches the server through ``JUPYTER_TOKEN`` (never its command line); the server's
port and the kernels' connection files are found in the runtime folder the test gives it.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx

from mcp_notebook.client._http import tls_context
from tests.kernel import Kernel, attach_started

# The cell every notebook of these tests runs: tools that say who calls, and a server named "shop".
SERVE = """
%load_ext mcp_notebook
import threading
from mcp_notebook import Context, current_client, tool

gate = threading.Event()

@tool(read_only=True)
def whoami() -> str:
    \"\"\"The identity of the caller. Use to see who calls; not for anything else.\"\"\"
    return current_client()

@tool
def add_row(item: str) -> str:
    \"\"\"Add a row to the table. Use to add one item; not for changing rows.

    Parameters
    ----------
    item:
        The item's name.
    \"\"\"
    return f"added {item} for {current_client()}"

@tool(read_only=True)
def slow(ctx: Context) -> str:
    \"\"\"Report progress, then wait for the notebook. Use to test streaming; not for work.\"\"\"
    ctx.progress(1, total=2, message="half way")
    if not gate.wait(60):
        return "the gate stayed shut"
    return "done"

srv = %mcp_serve --name shop
"""


@contextlib.asynccontextmanager
async def connect(url: str, token: str, mode: Any, **kwargs: Any) -> AsyncIterator[Any]:
    """A real SDK client that knows only a Jupyter (or JupyterHub) URL and a token for it."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(
            verify=tls_context(), headers=headers, timeout=httpx2.Timeout(30, read=120)
        ) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode, **kwargs) as client,
    ):
        yield client


def wait_until(condition: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} within {timeout} s")
        threading.Event().wait(0.05)


class JupyterServer:
    """``python -m jupyter_server`` on `ip` (127.0.0.1 unless told), a port it picks, a token from the
    environment (with `env` added to it, which its kernels inherit)."""

    def __init__(
        self,
        root: Path,
        runtime_dir: Path,
        token: str,
        log: Path,
        *,
        ip: str = "127.0.0.1",
        env: dict[str, str] | None = None,
    ) -> None:
        self.root = root
        self.runtime_dir = runtime_dir
        self.token = token
        env = {**os.environ, **(env or {}), "JUPYTER_TOKEN": token, "JUPYTER_RUNTIME_DIR": str(runtime_dir)}
        command = [sys.executable, "-m", "jupyter_server", "--no-browser", f"--ip={ip}", "--port=0",
                   f"--ServerApp.root_dir={root}"]  # fmt: skip
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--allow-root")
        self._log = open(log, "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(command, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        info = wait_until(self._info, 60, "the Jupyter server did not start")
        self.url = info["url"].rstrip("/")

    def _info(self) -> dict[str, Any] | None:
        if self.process.poll() is not None:
            raise RuntimeError(f"the Jupyter server exited ({self.process.returncode})")
        path = self.runtime_dir / f"jpserver-{self.process.pid}.json"
        with contextlib.suppress(OSError, ValueError):
            info: dict[str, Any] = json.loads(path.read_text())
            return info if info.get("port") else None
        return None

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"token {self.token}", **kwargs.pop("headers", {})}
        return httpx.request(method, f"{self.url}{path}", headers=headers, timeout=30, **kwargs)

    def start_kernel(self) -> tuple[str, Kernel]:
        """A new kernel of this server (its REST API, as JupyterLab starts one), attached to."""

        def start() -> tuple[str, Path]:
            answer = self.api("POST", "/api/kernels", json={"name": "python3"})
            answer.raise_for_status()
            kernel_id = answer.json()["id"]
            connection_file = self.runtime_dir / f"kernel-{kernel_id}.json"
            wait_until(connection_file.is_file, 30, "the kernel wrote no connection file")
            return kernel_id, connection_file

        return attach_started(start, lambda kernel_id: self.api("DELETE", f"/api/kernels/{kernel_id}"))

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self._log.close()


@contextlib.contextmanager
def jupyter_server(tmp: Path, token: str, **options: Any) -> Iterator[JupyterServer]:
    """A Jupyter server laid out as a user's is: it serves the home folder, whose hidden
    ``.local/share/jupyter/runtime`` holds the connection files (as on JupyterHub). `options` as
    `JupyterServer` takes them (`ip`, `env`)."""
    home = tmp / "home"
    runtime = home / ".local" / "share" / "jupyter" / "runtime"
    runtime.mkdir(parents=True, mode=0o700)
    server = JupyterServer(home, runtime, token, tmp / "jupyter.log", **options)
    try:
        yield server
    finally:
        server.stop()


class ServedKernel:
    """A Jupyter server with one kernel that ran `SERVE`: its MCP server is ``shop``."""

    def __init__(self, server: JupyterServer, kernel_id: str, kernel: Kernel) -> None:
        self.server = server
        self.kernel_id = kernel_id
        self.kernel = kernel
        self.mcp_url = f"{server.url}/mcp-notebook/shop/mcp"

    def requests_seen(self) -> int:
        """How many requests the kernel's MCP server has seen (its activity log)."""
        return int(self.kernel.json("len(srv.activity)"))
