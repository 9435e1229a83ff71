"""Client configurations and the connection check, against a real server."""

from __future__ import annotations

import json
import shlex
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

import mcp_notebook
from mcp_notebook import Catalogue, tool
from mcp_notebook.cli import main
from mcp_notebook.client._configs import (
    CLIENTS,
    INSPECTOR_FILE,
    REMOTE_ENV,
    CheckResult,
    bridge_command,
    check_connection,
    classify_failure,
    client_config,
    config_usage,
    inspector_command,
    is_remote_kernel,
)

URL = "http://127.0.0.1:8765/mcp"
TOKEN = "tok-123_abc"


@pytest.fixture(autouse=True)
def local_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in REMOTE_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def english() -> Iterator[None]:
    before = mcp_notebook.get_language()
    mcp_notebook.set_language("en")
    try:
        yield
    finally:
        mcp_notebook.set_language(before)


def test_claude_code_project_file() -> None:
    config = json.loads(client_config("claude-code", URL, TOKEN))
    assert config == {
        "mcpServers": {
            "notebook": {"type": "http", "url": URL, "headers": {"Authorization": f"Bearer {TOKEN}"}}
        }
    }
    assert ".mcp.json" in config_usage("claude-code")


def test_claude_desktop_launches_the_bridge_with_the_token_in_its_environment() -> None:
    config = json.loads(client_config("claude-desktop", URL, TOKEN, server_name="my notebook"))
    entry = config["mcpServers"]["my notebook"]
    command = [entry["command"], *entry["args"]]
    assert command == [*bridge_command(), "bridge", URL]
    assert entry["env"] == {"MCP_NOTEBOOK_TOKEN": TOKEN}
    assert Path(entry["command"]).is_absolute() and Path(entry["command"]).exists()
    assert "env" not in json.loads(client_config("claude-desktop", URL, None))["mcpServers"]["notebook"]


def test_cursor_json() -> None:
    config = json.loads(client_config("cursor", URL, TOKEN))
    assert config == {
        "mcpServers": {"notebook": {"url": URL, "headers": {"Authorization": f"Bearer {TOKEN}"}}}
    }


def test_vscode_json() -> None:
    config = json.loads(client_config("vscode", URL, TOKEN))
    assert config == {
        "servers": {"notebook": {"type": "http", "url": URL, "headers": {"Authorization": f"Bearer {TOKEN}"}}}
    }


def test_inspector_config_file_and_the_command_that_reads_it() -> None:
    config = json.loads(client_config("inspector", URL, TOKEN))
    assert config["mcpServers"]["notebook"]["headers"] == {"Authorization": f"Bearer {TOKEN}"}
    usage = config_usage("inspector")
    command = shlex.join([*inspector_command(), "--method", "tools/list"])
    assert INSPECTOR_FILE in usage and command in usage and TOKEN not in usage


def test_a_token_that_needs_quoting_survives_the_file() -> None:
    token = 'it\'s $HOME "quoted"'
    for name in ("claude-code", "inspector"):
        entry = json.loads(client_config(name, URL, token))["mcpServers"]["notebook"]
        assert entry["headers"]["Authorization"] == f"Bearer {token}"


def test_unknown_client_lists_the_known_ones(english: None) -> None:
    with pytest.raises(ValueError) as error:
        client_config("claude-web", URL, TOKEN)
    assert "claude-web" in str(error.value)
    assert all(name in str(error.value) for name in CLIENTS)


@pytest.mark.parametrize("variable", REMOTE_ENV)
def test_remote_kernels_are_detected_and_warned_about(
    monkeypatch: pytest.MonkeyPatch, variable: str, english: None
) -> None:
    assert not is_remote_kernel()
    monkeypatch.setenv(variable, "1")
    assert is_remote_kernel()
    text = client_config("cursor", URL, TOKEN)
    assert text.startswith("Warning: this kernel runs on a remote machine")
    assert "mcp-notebook serve NOTEBOOK.ipynb" in text and "%mcp_call" in text
    assert json.loads(text.split("\n\n", 1)[1])["mcpServers"]["notebook"]["url"] == URL


def test_remote_warning_in_korean(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BINDER_SERVICE_HOST", "10.0.0.1")
    before = mcp_notebook.get_language()
    mcp_notebook.set_language("ko")
    try:
        text = client_config("vscode", URL, TOKEN)
    finally:
        mcp_notebook.set_language(before)
    assert text.startswith("주의: 이 커널은 원격 컴퓨터")


# -- the connection check, against a real server ------------------------------------------------


def with_tool(catalogue: Catalogue) -> None:
    @tool(read_only=True, catalogue=catalogue)
    def ping() -> str:
        """Answer pong."""
        return "pong"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_check_succeeds_with_name_version_and_tools(server: Any, catalogue: Catalogue, english: None) -> None:
    with_tool(catalogue)
    result = check_connection(server.url, server.token)
    assert result.ok and result.kind == "ok"
    assert (result.server_name, result.server_version, result.tools) == (
        "mcp-notebook",
        mcp_notebook.__version__,
        1,
    )
    assert "1 tool(s)" in result.message and str(result) == result.message


def test_check_wrong_token_is_401_with_the_fix(server: Any, english: None) -> None:
    result = check_connection(server.url, "not-the-token")
    assert (result.ok, result.kind) == (False, "token")
    assert "HTTP 401" in result.message and "srv.token" in result.message


def test_check_without_token_says_one_is_needed(server: Any, english: None) -> None:
    result = check_connection(server.url, None)
    assert result.kind == "token" and "none was sent" in result.message


def test_check_wrong_path_says_it_must_be_mcp(server: Any, english: None) -> None:
    result = check_connection(server.url.removesuffix("/mcp") + "/sse", server.token)
    assert result.kind == "path"
    assert "must be /mcp" in result.message and server.url in result.message


def test_check_nothing_listening(english: None) -> None:
    port = free_port()
    result = check_connection(f"http://127.0.0.1:{port}/mcp", TOKEN)
    assert result.kind == "refused"
    assert f"127.0.0.1:{port}" in result.message and "%mcp_serve" in result.message


def test_check_a_server_that_never_answers_times_out(english: None) -> None:
    with socket.socket() as silent:  # accepts connections (the backlog does) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/mcp"
        result = check_connection(url, TOKEN, timeout=0.5)
    assert result.kind == "timeout" and "0.5 s" in result.message


def test_foreign_origin_is_classified_as_403(server: Any, english: None) -> None:
    headers = {"Authorization": f"Bearer {server.token}", "Origin": "http://evil.example"}
    response = httpx2.post(server.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=headers)
    assert response.status_code == 403
    result = classify_failure(response, server.url, token=server.token)
    assert result.kind == "origin" and "Origin" in result.message and "HTTP 403" in result.message


def test_foreign_host_is_classified_as_421_with_the_url_to_use(server: Any, english: None) -> None:
    headers = {"Authorization": f"Bearer {server.token}", "Host": "notebook.example"}
    response = httpx2.post(server.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=headers)
    assert response.status_code == 421
    result = classify_failure(response, server.url, token=server.token)
    assert result.kind == "host" and "'notebook.example'" in result.message
    assert f"http://127.0.0.1:{server.port}/mcp" in result.message


def test_not_an_http_url(english: None) -> None:
    assert check_connection("127.0.0.1:8765/mcp", TOKEN).kind == "bad_url"


async def _check_inside_a_running_loop(url: str, token: str) -> CheckResult:
    return check_connection(url, token)  # a notebook cell: the kernel's loop is running


def test_check_works_while_an_event_loop_runs(server: Any) -> None:
    assert anyio.run(_check_inside_a_running_loop, server.url, server.token).ok


# -- the command line -------------------------------------------------------------------------------


def test_cli_config_prints_the_configuration(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, english: None
) -> None:
    monkeypatch.setenv("MCP_NOTEBOOK_TOKEN", TOKEN)
    assert main(["config", "vscode", "--url", URL, "--name", "nb"]) == 0
    captured = capsys.readouterr()
    entry = json.loads(captured.out)["servers"]["nb"]
    assert entry["url"] == URL and entry["headers"]["Authorization"] == f"Bearer {TOKEN}"
    assert ".vscode/mcp.json" in captured.err  # where it goes, on stderr: stdout is the configuration


def test_cli_reads_the_token_from_a_file(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("MCP_NOTEBOOK_TOKEN", raising=False)
    token_file = tmp_path / "token"
    token_file.write_text(f"{TOKEN}\n")
    token_file.chmod(0o600)
    assert main(["config", "cursor", "--url", URL, "--token-file", str(token_file)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["mcpServers"]["notebook"]["headers"]["Authorization"] == f"Bearer {TOKEN}"
    assert "chmod" not in captured.err


def test_cli_config_unknown_client_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], english: None
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["config", "claude-web", "--url", URL, "--token", TOKEN])
    assert exit_info.value.code == 2
    assert "Known clients" in capsys.readouterr().err


def test_cli_check_with_a_clients_own_token(
    server: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, english: None
) -> None:
    monkeypatch.setenv("MCP_NOTEBOOK_TOKEN", server.add_client("cursor"))
    assert main(["check", "--url", server.url]) == 0
    server.revoke_client("cursor")
    assert main(["check", "--url", server.url]) == 1
    assert "HTTP 401" in capsys.readouterr().out


def test_cli_check_exit_status(
    server: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, english: None
) -> None:
    monkeypatch.setenv("MCP_NOTEBOOK_TOKEN", server.token)
    assert main(["check", "--url", server.url]) == 0
    assert "Connected to" in capsys.readouterr().out
    monkeypatch.setenv("MCP_NOTEBOOK_TOKEN", "wrong")
    assert main(["check", "--url", server.url]) == 1
    assert "HTTP 401" in capsys.readouterr().out
