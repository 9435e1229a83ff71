"""Chapter 07 (실제 AI 클라이언트 연결): every checker accepts a right answer, rejects typical wrong ones
with the advice meant for them, knows when nothing was tried and ends its hint ladder. The VS Code
exercise is judged by connecting to a real server with the learner's own URL and headers, and the
classifications agree with what the real server and the real configurations do."""

from __future__ import annotations

import json
import socket
from typing import Any

import anyio
import httpx2
import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, set_language, tool
from mcp_notebook.client._configs import check_connection, classify_failure, client_config
from mcp_notebook.lessons import ch07
from mcp_notebook.lessons.ch07 import connect_with


def test_partial_classification_lists_what_is_missing() -> None:
    shown = repr(ch07.q1.check({"forgot_serve": "refused", "no_headers": ...}))
    assert "6개 중 1개를 맞혔습니다" in shown and "'no_headers'" in shown
    assert "알아볼 수 없습니다" in repr(ch07.q3.check({**dict(ch07.q3.expected), "cursor": "websocket"}))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def post(url: str, token: str, **extra: str) -> httpx2.Response:
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-11-25",
        **extra,
    }
    return httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=headers)


def test_the_failures_of_q1_are_what_the_real_server_and_check_report(server: Any) -> None:
    """Each situation of q1, reproduced against a real server, is classified as the answer says."""
    sse = server.url.removesuffix("/mcp") + "/sse"
    host = post(server.url, server.token, Host=f"notebook.local:{server.port}")
    origin = post(server.url, server.token, Origin="https://evil.example")
    observed = {
        "forgot_serve": check_connection(f"http://127.0.0.1:{free_port()}/mcp", server.token).kind,
        "no_headers": check_connection(server.url, None).kind,
        "old_token": check_connection(server.url, "yesterdays-token").kind,
        "sse_path": check_connection(sse, server.token).kind,
        "hosts_alias": classify_failure(host, server.url, token=server.token).kind,
        "web_page": classify_failure(origin, server.url, token=server.token).kind,
    }
    assert observed == ch07.q1.expected


def test_the_stretches_of_q3_match_the_configurations_the_package_writes() -> None:
    url, token = "http://127.0.0.1:8765/mcp", "tok-123_abc"
    desktop = json.loads(client_config("claude-desktop", url, token, remote=False))["mcpServers"]["notebook"]
    assert set(desktop) == {"command", "args", "env"} and desktop["args"][-2:] == ["bridge", url]
    assert desktop["env"] == {"MCP_NOTEBOOK_TOKEN": token}
    for name in ("claude-code", "cursor", "vscode", "inspector"):
        text = client_config(name, url, token, remote=False)
        assert url in text and f"Bearer {token}" in text and "bridge" not in text
    expected = ch07.q3.expected
    assert expected["claude_desktop"] == "stdio" and expected["bridge_upstream"] == "http"
    assert {expected[k] for k in ("claude_code", "cursor", "inspector")} == {"http"}


# -- q2: a VS Code configuration, used for real ---------------------------------------------------
def vscode(url: Any = ..., headers: Any = ..., kind: Any = "http", **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": kind, "url": url, "headers": headers, **extra}
    return {"servers": {"notebook": entry}}


def right_config(server: Any) -> dict[str, Any]:
    return vscode(server.url, {"Authorization": f"Bearer {server.token}"})


def with_tools(catalogue: Catalogue) -> None:
    @tool(read_only=True, catalogue=catalogue)
    def ping() -> str:
        """Answer pong when asked whether the server is alive."""
        return "pong"

    @tool(read_only=True, catalogue=catalogue)
    def echo(text: str) -> str:
        """Repeat the text back when asked to echo something."""
        return text


def test_a_right_configuration_connects_and_lists_the_tools(server: Any, catalogue: Catalogue) -> None:
    with_tools(catalogue)
    before = len(server.activity)
    feedback = ch07.q2.check(right_config(server))
    assert feedback.correct, repr(feedback)
    assert "도구 2개를 받았습니다" in repr(feedback)
    assert "tools/list" in [record.method for record in server.activity[before:]]


@pytest.mark.parametrize(
    "variant",
    ["json_text", "localhost", "lowercase_header", "other_name", "no_trailing_keys"],
)
def test_other_right_spellings_are_accepted(server: Any, variant: str) -> None:
    config = right_config(server)
    entry = config["servers"]["notebook"]
    if variant == "json_text":
        answer: Any = json.dumps(config)
    elif variant == "localhost":
        entry["url"] = server.url.replace("127.0.0.1", "localhost")
        answer = config
    elif variant == "lowercase_header":
        entry["headers"] = {"authorization": f"bearer {server.token}"}
        answer = config
    elif variant == "other_name":
        answer = {"servers": {"my notebook": entry}}
    else:
        answer = {"servers": {"notebook": {k: entry[k] for k in ("type", "url", "headers")}}}
    assert ch07.q2.check(answer).correct


@pytest.mark.parametrize(
    ("change", "advice"),
    [
        ({"headers": ...}, "토큰이 필요한데 보내지 않았습니다(HTTP 401)"),
        ({"headers": ...}, "그중에 Authorization이 없습니다"),
        ({"headers": {}}, "그중에 Authorization이 없습니다"),
        ({"headers": {"Authorization": "TOKEN"}}, "'Bearer '로 시작하지 않습니다"),
        ({"headers": {"Authorization": "Bearer yesterdays-token"}}, "토큰을 거부했습니다(HTTP 401)"),
        ({"headers": {"Authorization": "Bearer yesterdays-token"}}, "`srv.token`으로 만드세요"),
        ({"headers": {"Authorization": 42}}, "'headers'는 헤더 이름과 값이 모두 문자열인 dict"),
        ({"type": ...}, "'type'이 없습니다"),
        ({"type": "sse"}, "예전 HTTP+SSE 방식"),
        ({"type": "stdio"}, "URL로 기다리고"),
        ({"type": "streamable-http"}, "'type'이 'streamable-http'입니다"),
        ({"command": "mcp-notebook"}, "'command'는 클라이언트가 프로그램을 띄우는"),
        ({"url": ...}, "'url'이 없거나 문자열이 아닙니다"),
        ({"url": "ws://127.0.0.1:8765/mcp"}, "HTTP 주소가 아닙니다"),
    ],
)
def test_a_flawed_entry_is_rejected_with_the_right_advice(
    server: Any, change: dict[str, Any], advice: str
) -> None:
    config = right_config(server)
    config["servers"]["notebook"].update(change)
    feedback = ch07.q2.check(config)
    assert feedback.kind == "incorrect"
    assert advice in repr(feedback), repr(feedback)
    assert "q2.hint()" in repr(feedback)


def test_a_wrong_path_is_refused_by_the_server_with_the_url_to_use(server: Any) -> None:
    config = right_config(server)
    config["servers"]["notebook"]["url"] = server.url.removesuffix("/mcp") + "/sse"
    shown = repr(ch07.q2.check(config))
    assert "'/sse' 경로에는 아무것도 없습니다(HTTP 404)" in shown and server.url in shown


def test_a_wrong_port_is_refused_and_the_running_port_pointed_at(server: Any) -> None:
    port = free_port()
    config = right_config(server)
    config["servers"]["notebook"]["url"] = f"http://127.0.0.1:{port}/mcp"
    shown = repr(ch07.q2.check(config))
    assert f"127.0.0.1:{port}에서 기다리는 서버가 없습니다(연결 거부)" in shown
    assert f"'url'의 포트({port})가 지금 켜진 서버의 포트와 다릅니다" in shown


def test_with_no_server_running_the_learner_is_told_to_start_one() -> None:
    assert mcp_notebook.current_server() is None
    shown = repr(ch07.q2.check(vscode(f"http://127.0.0.1:{free_port()}/mcp", {"Authorization": "Bearer x"})))
    assert "연결 거부" in shown and "%mcp_serve" in shown and "지금 켜진 서버의 포트" not in shown


@pytest.mark.parametrize(
    ("answer", "advice"),
    [
        ({"mcpServers": {"notebook": {"url": "http://127.0.0.1:8765/mcp"}}}, "Cursor와 Claude Desktop의 키"),
        ({"type": "http", "url": "http://127.0.0.1:8765/mcp"}, "최상위에 바로 있습니다"),
        ({"servers": {}}, "이 문제에서는 서버 하나만"),
        ({"servers": {"notebook": {}}}, "'type'이 없습니다"),
        ({}, "최상위 키가 없습니다(지금 있는 키: )"),
        ({"servers": {"a": {"type": "http"}, "b": {"type": "http"}}}, "이 문제에서는 서버 하나만"),
        ({"servers": {"notebook": "http://127.0.0.1:8765/mcp"}}, "dict가 아닙니다(str)"),
        ({"server": {"notebook": {}}}, "최상위 키가 없습니다(지금 있는 키: 'server')"),
        ("{not json", "JSON으로 읽을 수 없습니다"),
        (["servers"], "dict여야 하는데 list"),
    ],
)
def test_a_misshapen_configuration_is_named_without_connecting(answer: Any, advice: str) -> None:
    feedback = ch07.q2.check(answer)
    assert feedback.kind == "incorrect"
    assert advice in repr(feedback), repr(feedback)


@pytest.mark.parametrize(
    ("url", "advice"),
    [
        ("https://127.0.0.1:8765/mcp", "https로 시작합니다"),
        ("http://example.com/mcp", "호스트가 'example.com'입니다"),
        ("http://192.168.0.10:8765/mcp", "호스트가 '192.168.0.10'입니다"),
        ("http://127.0.0.1:8765/mcp?token=abcdefgh", "?token=에 넣었습니다"),
    ],
)
def test_urls_the_checker_will_not_use_are_refused_before_any_connection(
    server: Any, url: str, advice: str
) -> None:
    before = len(server.activity)
    feedback = ch07.q2.check(vscode(url, {"Authorization": f"Bearer {server.token}"}))
    assert feedback.kind == "incorrect"
    assert advice in repr(feedback), repr(feedback)
    assert len(server.activity) == before


def test_the_blank_template_is_not_attempted() -> None:
    assert ch07.q2.check(vscode(kind=...)).kind == "not_attempted"
    assert ch07.q2.check({"servers": {"notebook": {"type": ..., "url": None}}}).kind == "not_attempted"
    assert ch07.q2.check(...).kind == "not_attempted"
    assert ch07.q2.attempts == 0


def test_check_reads_q2_answer_from_the_notebook(server: Any, shell: InteractiveShell) -> None:
    shell.user_ns["srv"] = server
    assert ch07.q2.check().kind == "not_attempted"
    shell.run_cell('q2_answer = {"servers": {"notebook": {"type": "http", "url": srv.url}}}')
    assert "Authorization이 없습니다" in repr(ch07.q2.check())
    exec(ch07.q2.solution_code(), shell.user_ns)
    assert ch07.q2.check().correct
    assert ch07.q2.attempts == 2 and ch07.q2.status == "correct"


def test_the_model_answer_is_right_for_a_running_server(server: Any) -> None:
    namespace: dict[str, Any] = {"srv": server}
    exec(ch07.q2.solution_code(), namespace)
    assert ch07.q2.check(namespace["q2_answer"]).correct


async def _connect_inside_a_running_loop(url: str, headers: dict[str, str]) -> Any:
    return connect_with(url, headers)  # a notebook cell: the kernel's loop is running


def test_the_connection_works_while_an_event_loop_runs(server: Any) -> None:
    headers = {"Authorization": f"Bearer {server.token}"}
    outcome = anyio.run(_connect_inside_a_running_loop, server.url, headers)
    assert outcome.ok and outcome.tools == 0


def test_a_server_that_never_answers_times_out() -> None:
    with socket.socket() as silent:  # accepts connections (the backlog does) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/mcp"
        outcome = connect_with(url, {"Authorization": "Bearer x"}, timeout=0.5)
    assert outcome.kind == "timeout" and "0.5초" in outcome.message


# -- texts ----------------------------------------------------------------------------------------
def test_english_is_there_too() -> None:
    set_language("en")
    assert "not attempted yet" in repr(ch07.q2)
    assert "When a connection fails, what stopped it?" in repr(ch07.q1)
    assert "Streamable HTTP (connect to a URL)" in repr(ch07.q3)
    assert "VS Code lists servers under the top-level" in repr(ch07.q2.solution())
    assert "the checker does not connect anywhere else" in repr(
        ch07.q2.check(vscode("http://example.com/mcp", {}))
    )
