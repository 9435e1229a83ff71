"""Secrets stay secret: redacted by name and by value, exported owner-only, never on a command line.

Other users of the machine can read every process's command line (``ps``, ``/proc/PID/cmdline``)
and files with the default permissions; the audit log and an activity export are files that may
outlive the session. Tokens, keys and passwords must reach none of these.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import psutil
import pytest

from mcp_notebook import AuditLogWarning, Catalogue, tool
from mcp_notebook.client._configs import CLIENTS, client_config, config_usage
from mcp_notebook.core._guards import REDACTED, looks_secret, redact, redact_text
from mcp_notebook.server._audit import AuditLog
from tests.conftest import connect, serve_unattended, until
from tests.headless import Headless, write_notebook

pytestmark = pytest.mark.anyio

JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx4Ue0bD2\nq8Bc\n-----END RSA PRIVATE KEY-----"
RANDOM_KEY = "Zk3pQ9rT2vX8mB4nL6wY1sD7fH5jK0aE"  # a generated-looking key with no known prefix

SECRET_VALUES = [
    (f"token is {JWT}", "token is [redacted]"),
    (f"key:\n{PEM}\nend", "key:\n[redacted]\nend"),
    ("postgres://kim:hunter2@db.example:5432/sales", "postgres://kim:[redacted]@db.example:5432/sales"),
    ("https://user:p%40ss@example.com/x", "https://user:[redacted]@example.com/x"),
    ("Authorization: Bearer abcDEF123ghiJKL456", "Authorization: Bearer [redacted]"),
    ("use sk-proj-4f9Qw2Lx8Zr1Tb7Kc3Vn6Md0Ys5Hg in prod", "use [redacted] in prod"),
    ("sk_live_51HxYzAbCdEfGhIjKlMnOpQr", "[redacted]"),
    ("ghp_1234567890abcdefghijABCDEFGHIJ123456", "[redacted]"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[redacted]"),
    ("xoxb-123456789012-1234567890123-AbCdEfGhIjKl", "[redacted]"),
    ("AKIAIOSFODNN7EXAMPLE", "[redacted]"),
    ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "[redacted]"),
    ("hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345", "[redacted]"),
    (f"the api answered with {RANDOM_KEY} for this", "the api answered with [redacted] for this"),
]
ORDINARY_VALUES = [
    "Seoul",
    "a perfectly ordinary sentence that says nothing secret at all",
    "get_customer_orders_by_region_2024",
    "/usr/local/lib/python3.11/site-packages/mcp_notebook/_guards.py",
    "https://example.com/path/to/resource?id=1234&page=2",
    "2026-11-30T12:34:56.789012+00:00",
    "3f2504e0-4f89-41d3-9a0c-0305e82c3301",  # a UUID: an identifier as often as not
    "da39a3ee5e6b4b0d3255bfef95601890afd80709",  # a SHA-1: a commit, a checksum
    "ThisIsALongCamelCaseIdentifierName",
    "SELECT name FROM users WHERE id = 42",
]


@pytest.mark.parametrize(("value", "redacted"), SECRET_VALUES)
def test_secrets_are_redacted_by_what_they_look_like(value: str, redacted: str) -> None:
    assert redact_text(value) == redacted
    assert redact({"note": value}) == {"note": redacted}  # a harmless name does not save a secret
    assert redact({"items": [{"text": value}]}) == {"items": [{"text": redacted}]}


@pytest.mark.parametrize("value", ORDINARY_VALUES)
def test_ordinary_values_are_kept(value: str) -> None:
    assert redact_text(value) == value
    assert redact({"note": value}) == {"note": value}


@pytest.mark.parametrize(
    "name",
    ["pin", "user_pin", "otp", "totp_code", "jwt", "ssh_key", "sshKey", "private_key", "privkey",
     "session_id", "sessionToken", "connection_string", "dsn", "passcode", "cvv", "mfa_code",
     "signing_key", "encryption_key", "auth"],
)  # fmt: skip
def test_more_names_mark_a_secret(name: str) -> None:
    assert looks_secret(name)
    assert redact({name: "1234"}) == {name: REDACTED}


@pytest.mark.parametrize("name", ["pinned", "spin", "option", "author", "session_count", "pins_total"])
def test_names_that_only_contain_those_letters_are_not_secrets(name: str) -> None:
    assert not looks_secret(name)


def test_the_audit_log_redacts_secret_values(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    with AuditLog(path) as log:
        log.record(
            client="c", tool="connect", arguments={"url": "postgres://kim:hunter2@db/x", "note": JWT},
            decision="auto", outcome="ok", is_error=False, duration_ms=1.0,
        )  # fmt: skip
    written = path.read_text()
    assert "hunter2" not in written and JWT not in written
    assert AuditLog.read(path)[0]["arguments"] == {
        "url": "postgres://kim:[redacted]@db/x",
        "note": "[redacted]",
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def define_leaky_tool(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    def connect_db(dsn: str, note: str) -> str:
        """Connect to a database (a test tool that echoes a secret, as careless tools do)."""
        print(f"connecting with {dsn}")
        return f"connected; the session key is {RANDOM_KEY}; {note}"


async def test_export_activity_redacts_and_is_readable_by_its_owner_only(
    catalogue: Catalogue, tmp_path: Path
) -> None:
    define_leaky_tool(catalogue)
    srv = serve_unattended(catalogue)
    try:
        async with connect(srv, "auto") as client:
            await client.call_tool("connect_db", {"dsn": "postgres://kim:hunter2@db/x", "note": JWT})
    finally:
        srv.stop()
    path = tmp_path / "activity.jsonl"
    path.write_text("")
    path.chmod(0o644)  # already there, readable by everyone: the export must close it
    assert srv.export_activity(path) == len(srv.activity)
    written = path.read_text()
    for secret in ("hunter2", JWT, RANDOM_KEY):
        assert secret not in written
    assert "[redacted]" in written and "connect_db" in written
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    fresh = tmp_path / "new.jsonl"
    srv.export_activity(fresh)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (a disk that is always full)")
async def test_a_failed_audit_write_is_reported_once_and_shown_until_it_recovers(
    catalogue: Catalogue, tmp_path: Path
) -> None:
    define_leaky_tool(catalogue)
    srv = serve_unattended(catalogue, audit_log="/dev/full")  # every write fails with ENOSPC
    panel = srv.panel()
    try:
        with pytest.warns(AuditLogWarning) as warned:
            async with connect(srv, "auto") as client:
                for _ in range(3):
                    result = await client.call_tool("connect_db", {"dsn": "x", "note": "y"})
                    assert result.is_error is False  # the call itself is not failed by its audit
        assert len(warned) == 1  # once per failure streak, not once per call
        message = str(warned[0].message)
        assert "/dev/full" in message and "not on record" in message
        assert srv.audit_error is not None and "No space left" in srv.audit_error
        assert "Audit log not written" in panel.header.value
        # Space is freed (here: the log goes to a writable file): the warning ends, the panel clears.
        srv.tool_server.audit.log = AuditLog(tmp_path / "audit.jsonl")
        async with connect(srv, "auto") as client:
            await client.call_tool("connect_db", {"dsn": "x", "note": "y"})
        # The call's line is written once its answer has left (the audit says what the client got).
        assert until(lambda: srv.audit_error is None)
        assert until(lambda: "Audit log not written" not in panel.header.value)
    finally:
        srv.stop()
        panel.close()


def _commands_in(value: Any) -> list[str]:
    """Every string under a "command" or "args" key (what a client puts on a command line)."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("command", "args"):
                found.extend(item if isinstance(item, list) else [item])
            else:
                found.extend(_commands_in(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(_commands_in(item))
    return found


@pytest.mark.parametrize("client", CLIENTS)
def test_no_generated_configuration_puts_the_token_on_a_command_line(client: str) -> None:
    token = "tok-SECRET-9f8e7d"
    text = client_config(client, "http://127.0.0.1:8765/mcp", token, remote=False)
    try:
        config = json.loads(text)
    except ValueError:
        pytest.fail(f"{client}: a command line, not a configuration file:\n{text}")
    assert token in text  # the client still gets it: in headers or env
    assert not [word for word in _commands_in(config) if token in str(word)]
    assert token not in config_usage(client)


def command_lines(pid: int) -> list[list[str]]:
    """The command lines of a process and all its descendants: what `ps` shows any user."""
    process = psutil.Process(pid)
    lines = []
    for each in [process, *process.children(recursive=True)]:
        try:
            lines.append(each.cmdline())
        except psutil.NoSuchProcess:
            continue
    return lines


@pytest.mark.kernel
def test_serve_with_a_token_file_shows_the_token_in_no_command_line(tmp_path: Path) -> None:
    token = "serve-SECRET-4b5c6d"
    token_file = tmp_path / "token"
    token_file.write_text(token + "\n")
    token_file.chmod(0o600)
    notebook = write_notebook(tmp_path)
    env = {key: value for key, value in os.environ.items() if key != "MCP_NOTEBOOK_TOKEN"}
    served = Headless(notebook, "--token-file", str(token_file), "--approval", "auto", env=env)
    try:
        url = served.line().strip()
        assert url.startswith("http://127.0.0.1:"), served.stderr
        lines = command_lines(served.process.pid)
        assert len(lines) >= 2  # the command and its kernel
        assert not [line for line in lines if any(token in word for word in line)], lines
        assert token not in served.stderr and "--token puts" not in served.stderr
        with anyio.from_thread.start_blocking_portal() as portal:
            tools = portal.call(_list_tools, url, token)
        assert "describe" in tools
        assert served.stop() == 0
    finally:
        served.close()


async def _list_tools(url: str, token: str) -> list[str]:
    class Remote:
        pass

    remote = Remote()
    remote.url, remote.token = url, token  # type: ignore[attr-defined]
    async with connect(remote, "auto") as client:
        return [t.name for t in (await client.list_tools()).tools]


def test_the_bridge_started_as_claude_desktop_starts_it_shows_no_token(server: Any, tmp_path: Path) -> None:
    entry = json.loads(client_config("claude-desktop", server.url, server.token, remote=False))
    entry = entry["mcpServers"]["notebook"]
    env = {**os.environ, **entry.get("env", {})}
    env.pop("PYTHONPATH", None)
    bridge = subprocess.Popen(
        [entry["command"], *entry["args"]],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    try:
        lines = command_lines(bridge.pid)
        assert not [line for line in lines if any(server.token in word for word in line)], lines
        # ...and it works: the token reached it through env.
        assert bridge.stdin is not None and bridge.stdout is not None
        initialize = {
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        }  # fmt: skip
        bridge.stdin.write((json.dumps(initialize) + "\n").encode())
        bridge.stdin.flush()
        answer = json.loads(bridge.stdout.readline())
        assert answer["result"]["serverInfo"]["name"] == "mcp-notebook", answer
    finally:
        bridge.kill()
        bridge.communicate(timeout=30)


def test_the_notebook_hands_a_stdio_command_its_token_in_the_environment(
    server: Any, catalogue: Catalogue
) -> None:
    import mcp_notebook

    define_leaky_tool(catalogue)
    bridge = f'"{sys.executable}" -m mcp_notebook.cli bridge {server.url}'  # as Claude Desktop runs it
    listed = mcp_notebook.list_tools(stdio=bridge, token=server.token)
    assert [entry["name"] for entry in listed] == ["connect_db"]


def test_a_token_on_the_command_line_still_works_but_warns(server: Any) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcp_notebook.cli", "check", "--url", server.url, "--token", server.token],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "other users of this machine can read it" in done.stderr and "MCP_NOTEBOOK_TOKEN" in done.stderr
    assert "--token-file" in done.stderr


def test_a_token_file_others_can_read_is_warned_about_and_a_missing_one_is_an_error(
    server: Any, tmp_path: Path
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(server.token)
    token_file.chmod(0o644)
    cli = [sys.executable, "-m", "mcp_notebook.cli", "check", "--url", server.url, "--token-file"]
    done = subprocess.run([*cli, str(token_file)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "chmod 600" in done.stderr
    missing = subprocess.run([*cli, str(tmp_path / "nope")], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "Cannot read the token file" in missing.stderr
