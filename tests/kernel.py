"""A real Jupyter kernel driven the way a frontend drives it (jupyter_client, blocking)."""

from __future__ import annotations

import json
import queue
import socket
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from jupyter_client.blocking import BlockingKernelClient
from jupyter_client.manager import start_new_kernel


class Kernel:
    """Start a kernel; run cells now or in the background; read each cell's outputs."""

    def __init__(
        self, cwd: str | None = None, env: dict[str, str] | None = None, *, connection_file: str | None = None
    ) -> None:
        """Start a kernel, or attach to one a Jupyter server runs (`connection_file`; then `shutdown`
        only lets go of it: its server stops it)."""
        self.manager: Any = None
        if connection_file is not None:
            self.client = BlockingKernelClient(connection_file=connection_file)
            self.client.load_connection_file()
            self.client.start_channels()
            self.client.wait_for_ready(timeout=60)
        else:
            options: dict[str, Any] = {"cwd": cwd} if env is None else {"cwd": cwd, "env": env}
            self.manager, self.client = start_new_kernel(kernel_name="python3", **options)
        self._pending: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._done: set[str] = set()
        self._states: dict[str, dict[str, Any]] = {}  # widgets' states, as comm_open and updates give them

    def start(self, code: str) -> str:
        """Send a cell for execution and return at once (its msg_id)."""
        return str(self.client.execute(code, allow_stdin=False))

    def wait(self, msg_id: str, timeout: float = 60) -> Outputs:
        """Collect the cell's IOPub messages until the kernel reports it idle."""
        while msg_id not in self._done:
            try:
                message = self.client.get_iopub_msg(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(f"cell {msg_id} did not finish within {timeout} s") from None
            parent = message["parent_header"].get("msg_id")
            if parent is None:
                continue
            if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
                self._done.add(parent)
            else:
                self._pending[parent].append(message)
        return Outputs(self._pending.pop(msg_id, []))

    def wait_for_comm(self, predicate: Any, timeout: float = 30) -> dict[str, Any]:
        """Read IOPub until a widget (comm_open) whose state satisfies `predicate` appears.

        Widgets made on the server's thread are announced like any other; this finds them the way a
        browser does. Other messages are kept for `wait`.
        """
        while True:
            try:
                message = self.client.get_iopub_msg(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(f"no matching widget appeared within {timeout} s") from None
            if message["msg_type"] == "comm_open":
                state = message["content"].get("data", {}).get("state", {})
                self._states[message["content"]["comm_id"]] = dict(state)
                if predicate(state):
                    return dict(message["content"])
            parent = message["parent_header"].get("msg_id")
            if parent is None:
                continue
            if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
                self._done.add(parent)
            else:
                self._pending[parent].append(message)

    def wait_for_update(self, comm_id: str, predicate: Any, timeout: float = 30) -> dict[str, Any]:
        """Read IOPub until the state of widget `comm_id`, with its updates merged in as a browser
        merges them, satisfies `predicate`; that state. Other messages are kept for `wait`."""
        state = self._states.setdefault(comm_id, {})
        while not predicate(state):
            try:
                message = self.client.get_iopub_msg(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(f"widget {comm_id} did not reach the state within {timeout} s") from None
            data = message["content"].get("data", {})
            if message["msg_type"] == "comm_msg" and message["content"].get("comm_id") == comm_id:
                if data.get("method") in ("update", "echo_update"):
                    state.update(data.get("state", {}))
                continue
            parent = message["parent_header"].get("msg_id")
            if parent is None:
                continue
            if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
                self._done.add(parent)
            else:
                self._pending[parent].append(message)
        return dict(state)

    def send_custom(self, comm_id: str, content: dict[str, Any]) -> None:
        """Send a widget a custom message, as its front-end code does with ``model.send(content)``."""
        data = {"comm_id": comm_id, "data": {"method": "custom", "content": content}}
        self.client.shell_channel.send(self.client.session.msg("comm_msg", data))

    def drain(self, seconds: float) -> int:
        """Read IOPub for `seconds` the way an open browser tab does, dropping widget updates; return
        how many were dropped.

        A frontend that stops reading makes the kernel queue every panel update for it (up to
        zmq's high-water mark), which no real session does; a long benchmark waits here instead.
        Messages of cells still running are kept for `wait`.
        """
        deadline = time.monotonic() + seconds
        dropped = 0
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = self.client.get_iopub_msg(timeout=left)
            except queue.Empty:
                break
            parent = message["parent_header"].get("msg_id")
            if message["msg_type"] in ("comm_msg", "comm_open", "comm_close"):
                dropped += 1
            elif parent is not None and message["msg_type"] == "status":
                if message["content"]["execution_state"] == "idle":
                    self._done.add(parent)
            elif parent is not None:
                self._pending[parent].append(message)
        return dropped

    def click(self, comm_id: str) -> None:
        """Click a button exactly as the browser does: a custom comm message on the shell channel."""
        self.send_custom(comm_id, {"event": "click"})

    def run(self, code: str, timeout: float = 60) -> Outputs:
        return self.wait(self.start(code), timeout)

    def json(self, expression: str) -> Any:
        """Evaluate `expression` in the kernel and bring its JSON value back."""
        out = self.run(f"import json as _j; print(_j.dumps({expression}))")
        out.raise_for_error()
        return json.loads(out.stdout.strip().splitlines()[-1])

    def shutdown(self) -> None:
        self.client.stop_channels()
        if self.manager is not None:
            self.manager.shutdown_kernel(now=False)


def attach_started(
    start: Callable[[], tuple[str, Path]], delete: Callable[[str], Any], attempts: int = 3
) -> tuple[str, Kernel]:
    """Attach to a kernel a Jupyter server starts (`start`: its id and connection file).

    jupyter_client chooses a kernel's TCP ports by binding and releasing them; with tests in several
    processes another one can take a port in between, and the kernel dies binding it ("Address
    already in use"). Such a kernel is deleted (`delete`) and another one started, new ports and
    all, up to `attempts` times.
    """
    for attempt in range(attempts):
        kernel_id, connection_file = start()
        try:
            return kernel_id, Kernel(connection_file=str(connection_file))
        except RuntimeError as exc:
            if "died" not in str(exc) or attempt == attempts - 1:
                raise
            delete(kernel_id)
    raise AssertionError("unreachable")


class Outputs:
    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages

    @property
    def stdout(self) -> str:
        return "".join(m["content"]["text"] for m in self.messages if m["msg_type"] == "stream")

    @property
    def text(self) -> str:
        """Everything a person would read in the cell's output area, as plain text."""
        parts: list[str] = []
        for m in self.messages:
            kind = m["msg_type"]
            if kind == "stream":
                parts.append(m["content"]["text"])
            elif kind in ("execute_result", "display_data"):
                parts.append(m["content"]["data"].get("text/plain", ""))
            elif kind == "error":
                parts.append(f"{m['content']['ename']}: {m['content']['evalue']}")
                parts.extend(m["content"].get("traceback", []))
        return "\n".join(parts)

    def comm(self, predicate: Any) -> dict[str, Any]:
        """The first widget this cell opened whose state satisfies `predicate`."""
        for message in self.messages:
            if message["msg_type"] == "comm_open" and predicate(
                message["content"].get("data", {}).get("state", {})
            ):
                return dict(message["content"])
        raise LookupError("no such widget in this cell's output")

    @property
    def error(self) -> dict[str, Any] | None:
        return next((m["content"] for m in self.messages if m["msg_type"] == "error"), None)

    def raise_for_error(self) -> None:
        if self.error is not None:
            raise AssertionError(f"cell failed: {self.error['ename']}: {self.error['evalue']}\n{self.text}")


class Remote:
    """What an outside client needs to reach the kernel's server."""

    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token


def serve_in(kernel: Kernel, magic: str = "%mcp_serve --approval auto") -> Remote:
    kernel.run(f"srv = {magic}").raise_for_error()
    info = kernel.json('{"url": srv.url, "token": srv.token}')
    return Remote(info["url"], info["token"])


def call_from_outside(remote: Remote, name: str, arguments: dict[str, Any], mode: Any = "auto") -> Any:
    from tests.conftest import connect  # conftest starts kernels with this module: imported when used

    async def main() -> Any:
        with anyio.fail_after(60):
            async with connect(remote, mode) as client:
                return await client.call_tool(name, arguments)

    return anyio.run(main)


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True
