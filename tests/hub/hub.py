"""A real JupyterHub on this machine for the tests: PyPI's ``jupyterhub``, npm's configurable-http-proxy.

One hub on 127.0.0.1 (ports the OS picks), the dummy authenticator, the simple local process
spawner (each user's server is a local process with a home folder of its own under the test's
scratch folder), and a test service holding an admin token, through which the tests make users,
start and stop their servers, and mint each user's API token, as an instructor's scripts would.
Every secret lives in the hub's config file (0600) or its environment, never on a command line.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from tests.kernel import Kernel, attach_started
from tests.npm import PROXY, PROXY_VERSION, node_command


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(condition: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} within {timeout} s")
        threading.Event().wait(0.1)


CONFIG = """
import json
settings = json.loads({settings!r})
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = settings["port"]
c.JupyterHub.public_url = f"http://127.0.0.1:{{settings['port']}}/"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = settings["hub_port"]
c.JupyterHub.db_url = "sqlite:///" + settings["folder"] + "/hub.sqlite"
c.JupyterHub.cookie_secret_file = settings["folder"] + "/cookie_secret"
c.JupyterHub.pid_file = settings["folder"] + "/hub.pid"
c.ConfigurableHTTPProxy.command = settings["proxy"]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{{settings['proxy_api_port']}}"
c.ConfigurableHTTPProxy.pid_file = settings["folder"] + "/proxy.pid"
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = settings["password"]
c.Authenticator.allow_all = True
c.Authenticator.admin_users = set(settings["admins"])
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = settings["folder"] + "/home/{{username}}"
c.Spawner.cmd = [settings["singleuser"]]
c.Spawner.args = settings["args"]
c.Spawner.environment = settings["environment"]
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.JupyterHub.services = [{{"name": "test-admin", "api_token": settings["admin_token"]}}] + settings["services"]
c.JupyterHub.load_roles = [
    {{
        "name": "test-admin",
        "scopes": ["admin:users", "admin:servers", "tokens", "access:servers", "read:users"],
        "services": ["test-admin"],
    }},
] + settings["roles"]
exec(settings["extra"])
"""


class Hub:
    """A running JupyterHub; `api` speaks to its REST API as the admin test service."""

    def __init__(
        self,
        folder: Path,
        *,
        admins: list[str],
        services: list[dict[str, Any]] | None = None,
        roles: list[dict[str, Any]] | None = None,
        environment: dict[str, str] | None = None,
        extra: str = "",
    ) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.admin_token = secrets.token_hex(32)
        self.password = secrets.token_urlsafe(12)
        bin_dir = Path(sys.executable).parent
        settings = {
            "port": self.port,
            "hub_port": free_port(),
            "proxy_api_port": free_port(),
            "folder": str(folder),
            "proxy": node_command(PROXY, PROXY_VERSION, "configurable-http-proxy"),
            "password": self.password,
            "admins": admins,
            "singleuser": str(bin_dir / "jupyterhub-singleuser"),
            # The simple spawner runs every user's server as this process's user: root on a CI machine.
            "args": ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else [],
            "environment": {"PATH": f"{bin_dir}:{os.environ.get('PATH', '')}", **(environment or {})},
            "admin_token": self.admin_token,
            "services": services or [],
            "roles": roles or [],
            "extra": extra,
        }
        config = folder / "jupyterhub_config.py"
        config.touch(mode=0o600)
        config.write_text(CONFIG.format(settings=json.dumps(settings)))
        env = {
            **os.environ,
            "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}",
            "CONFIGPROXY_AUTH_TOKEN": secrets.token_hex(32),
        }
        self._log = open(folder / "hub.log", "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [str(bin_dir / "jupyterhub"), "-f", str(config)],
            cwd=folder,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_until(self._up, 120, "JupyterHub did not answer")
        except BaseException:
            self.stop()
            raise

    def _up(self) -> bool:
        if self.process.poll() is not None:
            raise RuntimeError(
                f"JupyterHub exited ({self.process.returncode}); see {self.folder / 'hub.log'}"
            )
        with contextlib.suppress(httpx.HTTPError):
            return httpx.get(f"{self.url}/hub/api/", timeout=5).status_code == 200
        return False

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"token {self.admin_token}", **kwargs.pop("headers", {})}
        return httpx.request(method, f"{self.url}/hub/api{path}", headers=headers, timeout=60, **kwargs)

    def add_users(self, *names: str) -> None:
        answer = self.api("POST", "/users", json={"usernames": list(names)})
        assert answer.status_code in (201, 409), answer.text

    def start_servers(self, *names: str) -> None:
        """Start the users' servers (all asked for at once, as a class logging in does), and wait for them."""
        for name in names:
            answer = self.api("POST", f"/users/{name}/server")
            assert answer.status_code in (201, 202), answer.text
        for name in names:
            wait_until(
                lambda name=name: self.server_state(name) == "ready", 180, f"{name}'s server did not start"
            )

    def stop_server(self, name: str) -> None:
        answer = self.api("DELETE", f"/users/{name}/server")
        assert answer.status_code in (202, 204), answer.text
        wait_until(lambda: self.server_state(name) == "stopped", 120, f"{name}'s server did not stop")

    def server_state(self, name: str) -> str:
        server = self.api("GET", f"/users/{name}").json().get("servers", {}).get("")
        if not server:
            return "stopped"
        return "ready" if server.get("ready") else "pending"

    def token_for(self, name: str, scopes: list[str] | None = None) -> str:
        """A new API token of user `name`, as the hub's token page makes one."""
        body: dict[str, Any] = {"note": "mcp-notebook test"}
        if scopes is not None:
            body["scopes"] = scopes
        answer = self.api("POST", f"/users/{name}/tokens", json=body)
        assert answer.status_code == 201, answer.text
        return str(answer.json()["token"])

    def home(self, name: str) -> Path:
        return self.folder / "home" / name

    def start_kernel(self, name: str) -> tuple[str, Kernel]:
        """A kernel in user `name`'s server (its REST API, as JupyterLab starts one), attached to."""

        def start() -> tuple[str, Path]:
            answer = httpx.post(
                f"{self.url}/user/{name}/api/kernels",
                json={"name": "python3"},
                headers={"Authorization": f"token {self.admin_token}"},
                timeout=60,
            )
            assert answer.status_code == 201, answer.text
            kernel_id = answer.json()["id"]
            found = wait_until(
                lambda: next(iter(self.home(name).rglob(f"kernel-{kernel_id}.json")), None),
                60,
                "the kernel wrote no connection file",
            )
            return kernel_id, found

        return attach_started(start, lambda kernel_id: self.stop_kernel(name, kernel_id))

    def stop_kernel(self, name: str, kernel_id: str) -> None:
        """Shut down a kernel of user `name`'s server (its REST API, as JupyterLab does)."""
        answer = httpx.delete(
            f"{self.url}/user/{name}/api/kernels/{kernel_id}",
            headers={"Authorization": f"token {self.admin_token}"},
            timeout=60,
        )
        assert answer.status_code == 204, answer.text

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        # The hub stops the proxy it started; should it not have, stop that very process (its pid
        # file, checked against the process's command line), nothing else.
        with contextlib.suppress(OSError, ValueError):
            pid = int((self.folder / "proxy.pid").read_text())
            if b"configurable-http-proxy" in Path(f"/proc/{pid}/cmdline").read_bytes():
                os.kill(pid, 15)
        self._log.close()


@contextlib.contextmanager
def running_hub(folder: Path, **options: Any) -> Iterator[Hub]:
    hub = Hub(folder, **options)
    try:
        yield hub
    finally:
        hub.stop()


STUDENTS = ("alice", "bob", "carol")


class Classroom:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.kernels: dict[str, Kernel] = {}
        self.tokens: dict[str, str] = {}

    def mcp_url(self, student: str) -> str:
        return f"{self.hub.url}/user/{student}/mcp-notebook/shop/mcp"

    def requests_seen(self, student: str) -> int:
        return int(self.kernels[student].json("len(srv.activity)"))


@contextlib.contextmanager
def running_classroom(folder: Path) -> Iterator[Classroom]:
    """A hub with three students whose notebooks each ran `SERVE`, a teacher in the group
    ``instructors``, a hub admin outside that group, and the class's progress service; each student
    holds a hub token for their own server (``access:servers!user=NAME``), the teacher and the admin
    one with their full permissions."""
    from tests.jupyter.servers import SERVE

    service_port = free_port()
    service = {
        "name": "mcp-progress",
        "url": f"http://127.0.0.1:{service_port}",
        "command": [sys.executable, "-m", "mcp_notebook.jupyter.progress_service"],
        "oauth_no_confirm": True,
        "environment": {
            "MCP_NOTEBOOK_PROGRESS_GROUP": "instructors",
            "MCP_NOTEBOOK_PROGRESS_DB": str(folder / "progress.sqlite3"),
        },
    }
    with running_hub(
        folder,
        admins=["dean"],
        services=[service],
        roles=[{"name": "mcp-progress", "scopes": ["read:users"], "services": ["mcp-progress"]}],
        environment={"MCP_NOTEBOOK_PROGRESS_URL": f"http://127.0.0.1:{service_port}/services/mcp-progress/"},
        extra='c.JupyterHub.load_groups = {"instructors": {"users": ["teacher"]}}',
    ) as hub:
        room = Classroom(hub)
        hub.add_users(*STUDENTS, "teacher", "dean")
        hub.start_servers(*STUDENTS)
        try:
            for student in STUDENTS:
                _, room.kernels[student] = hub.start_kernel(student)
            for student in STUDENTS:  # a notebook's first cells, in each student's own kernel
                room.kernels[student].run(SERVE, timeout=120).raise_for_error()
                room.tokens[student] = hub.token_for(student, [f"access:servers!user={student}"])
            room.tokens["teacher"] = hub.token_for("teacher")
            room.tokens["dean"] = hub.token_for("dean")
            yield room
        finally:
            for kernel in room.kernels.values():
                kernel.shutdown()
