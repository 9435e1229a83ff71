"""Ready-to-paste client configurations, and a connection check that says what to fix.

`client_config` writes the text each client wants, with the real URL and token: the JSON of the
file each client reads (Claude Code's ``.mcp.json``, Claude Desktop's ``claude_desktop_config.json``,
Cursor's and VS Code's ``mcp.json``, an MCP Inspector ``--config`` file); `config_usage` says where
it goes. The token is never put on a command line, where other users of the machine can read it:
Claude Desktop launches only stdio servers, so its entry runs ``mcp-notebook bridge`` and hands it
the token in ``env``.

`check_connection` connects the way a client would (the SDK client, the token as a bearer
header). The SDK reports HTTP failures as bare JSON-RPC errors, so on failure one plain HTTP
request finds the status, and `classify_failure` turns it into the precise cause and its fix.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..core import _ui
from ..core._text import t

CLIENTS = ("claude-code", "claude-desktop", "cursor", "vscode", "inspector")
REMOTE_ENV = ("BINDER_SERVICE_HOST", "BINDER_REQUEST", "JUPYTERHUB_API_URL", "JUPYTERHUB_SERVICE_PREFIX")


def is_remote_kernel(environ: Mapping[str, str] | None = None) -> bool:
    """True when this process looks like a Binder or JupyterHub kernel (out of a desktop client's reach)."""
    env = os.environ if environ is None else environ
    return any(env.get(name) for name in REMOTE_ENV)


def remote_warning() -> str:
    """What to tell someone whose kernel a desktop client cannot reach."""
    return t("config.remote_warning")


def client_config(
    name: str,
    url: str,
    token: str | None,
    *,
    server_name: str = "notebook",
    remote: bool | None = None,
) -> str:
    """Configuration text for the client `name`, ready to paste.

    Parameters
    ----------
    name:
        One of ``"claude-code"``, ``"claude-desktop"``, ``"cursor"``, ``"vscode"``, ``"inspector"``.
    url, token:
        The server's endpoint and token (``srv.url``, ``srv.token``).
    server_name:
        The name the client shows for this server.
    remote:
        Whether the kernel is remote (Binder, JupyterHub); ``None`` detects it from the environment.
        On a remote kernel the text starts with a warning that a desktop client cannot reach it.

    Raises
    ------
    ValueError
        `name` is not a known client (the message lists the known ones).
    """
    makers = {
        "claude-code": _claude_code,
        "claude-desktop": _claude_desktop,
        "cursor": _cursor,
        "vscode": _vscode,
        "inspector": _inspector,
    }
    maker = makers.get(name)
    if maker is None:
        raise ValueError(t("config.unknown_client", name=name, known=", ".join(CLIENTS)))
    text = maker(url, token, server_name)
    if remote if remote is not None else is_remote_kernel():
        return f"{remote_warning()}\n\n{text}"
    return text


INSPECTOR_FILE = "notebook-mcp.json"


def inspector_command(path: str = INSPECTOR_FILE, *, server_name: str = "notebook") -> list[str]:
    """The MCP Inspector CLI command that lists the tools of the server in the config file at `path`."""
    return ["npx", "@modelcontextprotocol/inspector", "--cli", "--config", path, "--server", server_name]


def config_usage(name: str, *, server_name: str = "notebook") -> str:
    """Where the text of `client_config(name)` goes, and how the client then starts using it."""
    if name not in CLIENTS:
        raise ValueError(t("config.unknown_client", name=name, known=", ".join(CLIENTS)))
    command = " ".join(
        _sh(word) for word in [*inspector_command(server_name=server_name), "--method", "tools/list"]
    )
    return t(f"config.usage.{name}", file=INSPECTOR_FILE, command=command)


def _headers(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


_BARE = re.compile(r"[\w@%+=:,./-]+")
_DOUBLE_QUOTABLE = re.compile(r"[\w@%+=:,./?&\[\] -]*")


def _sh(value: str) -> str:
    """Quote for a command line: bare when safe, "double quotes" (which every shell reads) when enough."""
    if _BARE.fullmatch(value):
        return value
    if _DOUBLE_QUOTABLE.fullmatch(value):
        return f'"{value}"'
    return shlex.quote(value)


def _http_entry(url: str, token: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "http", "url": url}
    if token:
        entry["headers"] = _headers(token)
    return entry


def _claude_code(url: str, token: str | None, server_name: str) -> str:
    # .mcp.json, not `claude mcp add ... --header "Authorization: Bearer T"`: that puts the token on
    # a command line (ps) and into the shell's history.
    return _json({"mcpServers": {server_name: _http_entry(url, token)}})


def bridge_command() -> list[str]:
    """How a stdio client launches the bridge: the ``mcp-notebook`` script of this Python, else ``-m``.

    Absolute paths, because desktop apps launch commands without the user's shell PATH.
    """
    here = Path(sys.executable).parent
    for script in (here / "mcp-notebook", here / "mcp-notebook.exe", here / "Scripts" / "mcp-notebook.exe"):
        if script.is_file():
            return [str(script)]
    found = shutil.which("mcp-notebook")
    if found:
        return [found]
    return [sys.executable, "-m", "mcp_notebook.cli"]


def _claude_desktop(url: str, token: str | None, server_name: str) -> str:
    command, *prefix = bridge_command()
    entry: dict[str, Any] = {"command": command, "args": [*prefix, "bridge", url]}
    if token:
        # In the child's environment, not its arguments: any user of the machine can list arguments.
        entry["env"] = {"MCP_NOTEBOOK_TOKEN": token}
    return _json({"mcpServers": {server_name: entry}})


def _cursor(url: str, token: str | None, server_name: str) -> str:
    entry: dict[str, Any] = {"url": url}
    if token:
        entry["headers"] = _headers(token)
    return _json({"mcpServers": {server_name: entry}})


def _vscode(url: str, token: str | None, server_name: str) -> str:
    return _json({"servers": {server_name: _http_entry(url, token)}})


def _inspector(url: str, token: str | None, server_name: str) -> str:
    # A --config file, not `--header "Authorization: Bearer T"` on the command line (see _claude_code).
    return _json({"mcpServers": {server_name: _http_entry(url, token)}})


# -- the connection check -------------------------------------------------------------------


@dataclass(frozen=True)
class CheckResult:
    """The outcome of `check_connection`.

    Attributes
    ----------
    ok:
        Whether a client with this URL and token can use the server.
    kind:
        ``"ok"``, ``"refused"`` (nothing listening), ``"token"`` (401), ``"origin"`` (403),
        ``"host"`` (421), ``"path"`` (404), ``"timeout"``, ``"bad_url"`` or ``"error"``.
    message:
        What happened and what to do, in the current language.
    """

    ok: bool
    kind: str
    message: str
    server_name: str | None = None
    server_version: str | None = None
    tools: int | None = None

    def __str__(self) -> str:
        return self.message

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        # Shown in a cell: connected or not, and the message, as a widget rather than the dataclass.
        return _ui.make("check_result", self)._repr_mimebundle_(**kwargs)


_DIAGNOSED = (401, 403, 404, 421)


def _suggested_url(url: str) -> str:
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme or 'http'}://127.0.0.1{port}/mcp"


def classify_failure(outcome: Any, url: str, *, token: str | None, timeout: float = 10.0) -> CheckResult:
    """Turn what a plain HTTP request to `url` got (an ``httpx2.Response`` or an exception) into a cause and fix."""
    import httpx2

    parts = urlsplit(url)
    address = parts.netloc or url
    if isinstance(outcome, httpx2.TimeoutException | TimeoutError):
        return CheckResult(False, "timeout", t("check.timeout", url=url, seconds=timeout))
    if isinstance(outcome, httpx2.ConnectError | ConnectionRefusedError):
        return CheckResult(False, "refused", t("check.refused", address=address))
    if isinstance(outcome, BaseException):
        return CheckResult(False, "error", t("check.error", url=url, error=_describe(outcome)))
    status = outcome.status_code
    suggested = _suggested_url(url)
    if status == 401:
        key = "check.token" if token else "check.no_token"
        return CheckResult(False, "token", t(key, url=url))
    if status == 403:
        return CheckResult(False, "origin", t("check.origin", url=url))
    if status == 421:
        try:
            sent = outcome.request.headers.get("host")
        except RuntimeError:  # a response built by hand has no request
            sent = None
        return CheckResult(False, "host", t("check.host", host=sent or address, suggested=suggested))
    if status == 404:
        return CheckResult(False, "path", t("check.path", path=parts.path or "/", suggested=suggested))
    detail = " ".join(outcome.text.split())[:200]
    return CheckResult(False, "error", t("check.unexpected", url=url, status=status, detail=detail))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


async def _probe(url: str, sent: Mapping[str, str], timeout: float) -> Any:
    """One plain POST (a ping, which opens no session) with the `sent` headers, for its HTTP status."""
    from ._http import http_client

    headers = {
        **sent,
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-11-25",
    }
    try:
        async with http_client(timeout=timeout) as http:
            return await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=headers)
    except Exception as exc:
        return exc


async def acheck_connection(
    url: str, token: str | None, *, timeout: float = 10.0, headers: Mapping[str, str] | None = None
) -> CheckResult:
    """`check_connection`, for async code."""
    import anyio
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from ._http import http_client

    if urlsplit(url).scheme not in ("http", "https"):
        return CheckResult(False, "bad_url", t("check.bad_url", url=url))
    sent = dict(headers) if headers is not None else _headers(token)
    if token is None and any(key.lower() == "authorization" for key in sent):
        token = "sent"  # decides between "wrong token" and "no token" when a check fails
    try:
        with anyio.fail_after(timeout):
            async with (
                http_client(headers=sent, timeout=timeout) as http,
                Client(streamable_http_client(url, http_client=http), cache=None) as client,
            ):
                count, cursor = 0, None
                while True:
                    page = await client.list_tools(cursor=cursor)
                    count += len(page.tools)
                    cursor = page.next_cursor
                    if not cursor:
                        break
                info = client.server_info
    except TimeoutError:
        return classify_failure(TimeoutError(), url, token=token, timeout=timeout)
    except Exception as exc:
        outcome = await _probe(url, sent, timeout)
        if not isinstance(outcome, BaseException) and outcome.status_code not in _DIAGNOSED:
            outcome = exc  # HTTP itself looks fine: the SDK's error says more
        return classify_failure(outcome, url, token=token, timeout=timeout)
    name = info.name if info is not None else "?"
    version = info.version if info is not None and info.version else "?"
    message = t("check.ok", url=url, name=name, version=version, tools=count)
    return CheckResult(True, "ok", message, server_name=name, server_version=version, tools=count)


def check_connection(
    url: str, token: str | None, *, timeout: float = 10.0, headers: Mapping[str, str] | None = None
) -> CheckResult:
    """Connect to `url` as an MCP client would, and report success or the precise failure with its fix.

    `headers` replaces the ``Authorization: Bearer <token>`` header (to check exactly what a client's
    configuration sends). Safe to call from a notebook cell (the check runs on a thread of its own,
    so it works while the kernel's event loop is running).
    """
    import anyio

    box: list[CheckResult] = []
    check = functools.partial(acheck_connection, url, token, timeout=timeout, headers=headers)
    worker = threading.Thread(
        target=lambda: box.append(anyio.run(check)),
        name="mcp-notebook-check",
        daemon=True,
    )
    worker.start()
    worker.join(timeout * 3 + 5)
    if not box:
        return classify_failure(TimeoutError(), url, token=token, timeout=timeout)
    return box[0]
