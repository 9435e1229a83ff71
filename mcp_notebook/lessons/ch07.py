"""Exercises of chapter 07 (실제 AI 클라이언트 연결): reading a failed connection, a VS Code
configuration the checker connects with for real, which stretch of each connection is HTTP and
which is stdio, what works from a Binder kernel, and a configuration that survives a restart.

>>> from mcp_notebook.lessons.ch07 import q1, q2, q3, q4, q5
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..core._text import clip, t
from ._answers import Category, Classification, MultipleChoice, Vocabulary
from ._exercise import Exercise, NotAttempted, is_blank

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6"]

# -- q1: what a failed connection says ---------------------------------------------------------------

FAILURES = Vocabulary(
    "ch07_connection_failures",
    [
        Category(
            "refused",
            ("연결 거부(기다리는 서버 없음)", "connection refused (nothing listening)"),
            (
                "연결 거부는 그 주소와 포트에서 기다리는 프로그램이 아예 없어서, HTTP 요청을 보내 보기도 전에 연결이 "
                "끊긴다는 뜻입니다.",
                "Connection refused means no program listens at that address and port, so the connection fails "
                "before any HTTP request is sent.",
            ),
            ("connection refused", "연결 거부", "거부", "econnrefused", "연결 안 됨"),
        ),
        Category(
            "token",
            ("HTTP 401(토큰)", "HTTP 401 (token)"),
            (
                "HTTP 401은 서버에 닿기는 했지만 토큰이 없거나 이 서버의 토큰이 아니라서 거절당했다는 뜻입니다.",
                "HTTP 401 means the request reached the server but was refused: no token, or not this server's "
                "token.",
            ),
            ("401", "http 401", "unauthorized", "토큰", "인증"),
        ),
        Category(
            "path",
            ("HTTP 404(경로)", "HTTP 404 (path)"),
            (
                "HTTP 404는 서버에는 닿았지만 요청한 경로에 MCP 엔드포인트가 없다는 뜻입니다.",
                "HTTP 404 means the request reached the server, but there is no MCP endpoint at that path.",
            ),
            ("404", "http 404", "not found", "경로", "url path"),
        ),
        Category(
            "host",
            ("HTTP 421(Host 헤더)", "HTTP 421 (Host header)"),
            (
                "HTTP 421은 요청이 이 컴퓨터의 서버에 닿았지만, 요청에 실린 주소 이름(Host 헤더)이 127.0.0.1, "
                "localhost, [::1]이 아니어서 거절당했다는 뜻입니다.",
                "HTTP 421 means the request reached this computer's server, but the name it was addressed to (the "
                "Host header) is not 127.0.0.1, localhost or [::1], so it was refused.",
            ),
            ("421", "http 421", "host 헤더", "host header", "misdirected request"),
        ),
        Category(
            "origin",
            ("HTTP 403(Origin 헤더)", "HTTP 403 (Origin header)"),
            (
                "HTTP 403은 요청에 다른 웹사이트에서 왔다는 Origin 헤더가 붙어 있어서 서버가 거절했다는 뜻입니다.",
                "HTTP 403 means the request carried an Origin header of another website, so the server refused it.",
            ),
            ("403", "http 403", "forbidden", "origin 헤더", "origin header"),
        ),
    ],
)

q1 = Classification(
    "07",
    "q1",
    title=("연결이 안 될 때, 무엇이 막았을까", "When a connection fails, what stopped it?"),
    question=(
        "노트북 서버에 AI 클라이언트를 붙이다가 아래 상황을 만났습니다. `srv.check()`나 `mcp-notebook check`를 "
        "돌렸다면 각 상황에서 무엇을 보게 될지 고르세요.",
        "Connecting AI clients to the notebook server, you run into the situations below. Had you run "
        "`srv.check()` or `mcp-notebook check`, what would each one show?",
    ),
    vocabulary=FAILURES,
    items={
        "forgot_serve": (
            (
                "노트북을 새로 열었는데 서버를 켜는 셀(`srv = %mcp_serve`)을 아직 실행하지 않았다. Cursor에는 어제 적어 "
                "둔 URL이 그대로 있다.",
                "You opened the notebook again but have not run the cell that starts the server "
                "(`srv = %mcp_serve`) yet. Cursor still has yesterday's URL.",
            ),
            "refused",
        ),
        "no_headers": (
            (
                "VS Code의 `.vscode/mcp.json`에 `type`과 `url`만 적고 `headers`는 빼먹었다.",
                "The VS Code `.vscode/mcp.json` has `type` and `url` but no `headers`.",
            ),
            "token",
        ),
        "old_token": (
            (
                "`%mcp_serve --port 8765`로 포트는 고정해 두었다. 커널을 다시 시작한 뒤에도 설정에는 어제의 토큰이 "
                "그대로 있다(토큰은 고정하지 않았다).",
                "The port is fixed with `%mcp_serve --port 8765`. After a kernel restart the configuration still "
                "has yesterday's token (the token was not fixed).",
            ),
            "token",
        ),
        "sse_path": (
            (
                "예전 글을 따라 URL 끝을 `/mcp` 대신 `/sse`로 적었다. 호스트와 포트는 `srv.url`과 같다.",
                "Following an old article, the URL ends in `/sse` instead of `/mcp`. Host and port are those of "
                "`srv.url`.",
            ),
            "path",
        ),
        "hosts_alias": (
            (
                "`/etc/hosts`에 `127.0.0.1 notebook.local`을 적어 두고 URL을 `http://notebook.local:8765/mcp`로 "
                "적었다. 포트와 토큰은 맞다.",
                "`/etc/hosts` has `127.0.0.1 notebook.local`, and the URL is `http://notebook.local:8765/mcp`. Port "
                "and token are right.",
            ),
            "host",
        ),
        "web_page": (
            (
                "다른 사이트에서 연 웹 페이지의 자바스크립트가 브라우저 안에서 `fetch()`로 노트북 서버를 부른다. "
                "토큰까지 어떻게든 알아냈다고 하자.",
                "JavaScript on a web page from another site calls the notebook server with `fetch()` in the "
                "browser. Suppose it even got hold of the token.",
            ),
            "origin",
        ),
    },
    feedback={
        ("forgot_serve", "token"): (
            "'forgot_serve': 토큰을 따지려면 먼저 누군가 요청을 받아야 합니다. 지금 그 주소에서 요청을 받을 프로그램이 "
            "있나요?",
            "'forgot_serve': before a token can be judged, something must receive the request. Is anything "
            "listening at that address now?",
        ),
        ("old_token", "refused"): (
            "'old_token': 포트를 고정했으니 같은 주소에서 새 서버가 기다리고 있고, 연결은 됩니다. 새 서버에서 새로 "
            "정해진 값이 무엇이었는지 떠올려 보세요.",
            "'old_token': the port is fixed, so a new server listens at the same address and the connection "
            "works. Which value did the new server pick afresh?",
        ),
        ("sse_path", "refused"): (
            "'sse_path': 호스트와 포트가 맞으니 서버는 요청을 받습니다. 서버가 찾지 못한 것은 URL의 어느 부분일까요?",
            "'sse_path': host and port are right, so the server receives the request. Which part of the URL "
            "could it not find?",
        ),
        ("hosts_alias", "refused"): (
            "'hosts_alias': notebook.local은 127.0.0.1로 풀리니 연결은 이 컴퓨터의 서버에 닿습니다. 그런데 요청에 "
            "실려 가는 주소 이름은 무엇일까요?",
            "'hosts_alias': notebook.local resolves to 127.0.0.1, so the connection reaches this computer's "
            "server. But what name does the request carry?",
        ),
        ("hosts_alias", "path"): (
            "'hosts_alias': 경로는 `/mcp`로 맞습니다. 바뀐 것은 URL의 이름 부분이고, 서버는 그 이름을 헤더로 받아 "
            "확인합니다.",
            "'hosts_alias': the path is `/mcp`, which is right. What changed is the name part of the URL, and "
            "the server checks that name in a header.",
        ),
        ("web_page", "token"): (
            "'web_page': 토큰은 알아냈다고 가정했습니다. 그래도 서버가 막는 이유는 요청이 어디에서 시작됐느냐에 "
            "있습니다. 브라우저는 그것을 알리는 헤더를 요청에 스스로 붙입니다.",
            "'web_page': we assumed the token is known. The server still refuses because of where the request "
            "started, and the browser adds a header saying so on its own.",
        ),
    },
    hints=[
        (
            "상황마다 요청이 어디까지 갔는지 따라가 보세요. 연결 자체가 안 됐는지, 서버에 닿았지만 무언가 때문에 "
            "거절됐는지부터 가립니다.",
            "Follow each request as far as it got: did the connection fail, or did it reach the server and get "
            "refused for some reason?",
        ),
        (
            "서버에 닿은 요청이라면 서버가 무엇을 확인하는지 떠올리세요. 요청이 향한 주소 이름, 요청을 보낸 페이지의 "
            "출신, 토큰, 그리고 경로입니다. 상황마다 이 가운데 무엇이 틀렸나요?",
            "For a request that reached the server, recall what the server checks: the name the request was "
            "addressed to, where the sending page came from, the token, and the path. Which is wrong in each "
            "situation?",
        ),
        (
            "이 장 3절에서 `mcp-notebook check`와 손으로 보낸 요청이 각각 어떤 상태 코드와 메시지를 돌려주었는지 "
            "다시 보세요.",
            "Look again at the status codes and messages `mcp-notebook check` and the hand-made requests "
            "returned in section 3 of this chapter.",
        ),
    ],
    explanation=(
        "서버가 켜져 있지 않으면 HTTP까지 가지도 못한 연결 거부입니다. 헤더가 없거나 토큰이 옛것이면 401, 경로가 "
        "`/mcp`가 아니면 404입니다. `notebook.local`처럼 127.0.0.1로 풀리는 다른 이름은 연결은 되지만 Host 헤더 "
        "검사에서 421로, 다른 사이트의 웹 페이지는 토큰을 알아도 Origin 검사에서 403으로 막힙니다. 두 검사는 브라우저를 "
        "이용해 로컬 서버를 부르는 공격(DNS 리바인딩 등)을 막으려는 것입니다.",
        "With no server running, the connection is refused before any HTTP. A missing header or an old token "
        "is 401, a path other than `/mcp` is 404. Another name that resolves to 127.0.0.1, like "
        "`notebook.local`, connects but fails the Host check with 421, and a web page from another site fails "
        "the Origin check with 403 even if it knows the token. Both checks stop attacks that use a browser to "
        "call a local server (DNS rebinding and the like).",
    ),
)


# -- q2: a VS Code configuration, used for real -------------------------------------------------------

CHECK_TIMEOUT = 10.0
_LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1"}


def _all_blank(value: Any) -> bool:
    """True when a template was left as it is: only ``...`` (or empty values) in its leaves.

    An empty dict is not blank: someone emptied it on purpose, and is told what belongs there.
    """
    if isinstance(value, dict):
        return bool(value) and all(_all_blank(v) for v in value.values())
    return is_blank(value)


class ClientConfigExercise(Exercise):
    """The learner writes a VS Code ``.vscode/mcp.json`` as a dict; the checker uses it for real.

    Shape problems a client would trip over (the top-level key, ``type``, a URL that is not a
    local HTTP address, a token in the query) are named without connecting. Otherwise the checker
    does what VS Code does: it connects to the URL with exactly the headers written and lists
    the tools, and a failure is explained by the HTTP status a plain request gets (the
    connection check of ``srv.check()``), with advice about the learner's own headers.
    """

    def __init__(self, chapter: str, name: str, *, timeout: float = CHECK_TIMEOUT, **texts: Any) -> None:
        super().__init__(chapter, name, **texts)
        self.timeout = timeout
        self._tools = 0

    def template(self) -> str:
        return (
            f"{self.variable} = {{\n"
            '    "servers": {\n'
            '        "notebook": {\n'
            '            "type": ...,\n'
            '            "url": ...,\n'
            '            "headers": ...,\n'
            "        }\n"
            "    }\n"
            "}"
        )

    def evaluate(self, answer: Any) -> list[str]:
        config = answer
        if isinstance(config, str):
            try:
                config = json.loads(config)
            except ValueError as exc:
                return [t("lessons.ch07.q2.bad_json", error=exc)]
        if not isinstance(config, dict):
            return [t("lessons.ch07.q2.not_a_dict", kind=type(config).__name__)]
        if _all_blank(config):
            raise NotAttempted
        servers = config.get("servers")
        if servers is None:
            keys = ", ".join(repr(k) for k in config)
            if "mcpServers" in config:
                return [t("lessons.ch07.q2.mcp_servers")]
            if {"type", "url", "headers", "command"} & set(config):
                return [t("lessons.ch07.q2.not_wrapped", keys=keys)]
            return [t("lessons.ch07.q2.no_servers", keys=keys)]
        if not isinstance(servers, dict) or len(servers) != 1:
            return [t("lessons.ch07.q2.servers_shape")]
        (name, entry), *_ = servers.items()
        if not isinstance(entry, dict):
            return [t("lessons.ch07.q2.entry_not_dict", name=name, kind=type(entry).__name__)]
        if _all_blank(entry):
            raise NotAttempted
        problems = self._shape_problems(entry)
        if problems:
            return problems
        headers = {} if is_blank(entry.get("headers")) else dict(entry["headers"])
        return self._connect_problems(entry["url"], headers)

    @staticmethod
    def _shape_problems(entry: dict[str, Any]) -> list[str]:
        problems = []
        if "command" in entry:
            problems.append(t("lessons.ch07.q2.command"))
        kind = entry.get("type")
        if is_blank(kind):
            problems.append(t("lessons.ch07.q2.no_type"))
        elif kind == "sse":
            problems.append(t("lessons.ch07.q2.sse"))
        elif kind == "stdio":
            problems.append(t("lessons.ch07.q2.stdio"))
        elif kind != "http":
            problems.append(t("lessons.ch07.q2.bad_type", given=kind))
        url = entry.get("url")
        if is_blank(url) or not isinstance(url, str):
            problems.append(t("lessons.ch07.q2.no_url"))
        else:
            parts = urlsplit(url.strip())
            if parts.scheme == "https":
                problems.append(t("lessons.ch07.q2.https"))
            elif parts.scheme != "http":
                problems.append(t("lessons.ch07.q2.not_http", url=url))
            elif (parts.hostname or "") not in _LOOPBACK_NAMES:
                problems.append(t("lessons.ch07.q2.not_local", host=parts.hostname or ""))
            elif "token" in parse_qs(parts.query):
                problems.append(t("lessons.ch07.q2.token_in_url"))
        headers = entry.get("headers")
        if not is_blank(headers) and not (
            isinstance(headers, dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())
        ):
            problems.append(t("lessons.ch07.q2.headers_shape", given=clip(repr(headers), 120)))
        return problems

    def _connect_problems(self, url: str, headers: dict[str, str]) -> list[str]:
        outcome = connect_with(url.strip(), headers, timeout=self.timeout)
        if outcome.ok:
            self._tools = outcome.tools or 0
            return []
        problems = [outcome.message]
        if outcome.kind == "token":
            authorization = next((v for k, v in headers.items() if k.lower() == "authorization"), None)
            if authorization is None:
                problems.append(t("lessons.ch07.q2.no_auth_header"))
            elif not authorization.lower().startswith("bearer "):
                problems.append(t("lessons.ch07.q2.no_bearer"))
            else:
                problems.append(t("lessons.ch07.q2.wrong_token"))
        elif outcome.kind == "refused":
            port = urlsplit(url.strip()).port
            running = _running_port()
            if running is not None and port != running:
                problems.append(t("lessons.ch07.q2.port", port=port))
        return problems

    def praise(self) -> list[str]:
        return [t("lessons.ch07.q2.connected", tools=self._tools), *super().praise()]


def _running_port() -> int | None:
    import sys

    runtime = sys.modules.get("mcp_notebook.api._serving")
    server = runtime.current_server() if runtime is not None else None
    return server.port if server is not None else None


def connect_with(url: str, headers: dict[str, str], *, timeout: float = CHECK_TIMEOUT) -> Any:
    """Connect to `url` sending exactly `headers`, as a configured client would; a `CheckResult`.

    Like ``srv.check()``, but with the learner's headers instead of a token (a client sends what its
    configuration says, right or wrong).
    """
    from ..client._configs import check_connection

    return check_connection(url, None, headers=headers, timeout=timeout)


q2 = ClientConfigExercise(
    "07",
    "q2",
    title=("VS Code 설정을 직접 쓰기", "Write the VS Code configuration yourself"),
    question=(
        "지금 켜 둔 노트북 서버에 VS Code가 붙을 수 있도록 `.vscode/mcp.json`의 내용을 파이썬 dict로 쓰세요. 서버 "
        "이름은 아무것이나 괜찮습니다. URL과 토큰은 값을 옮겨 적지 말고 `srv.url`, `srv.token`으로 만드세요.\n"
        "채점기는 여러분이 쓴 `url`과 `headers`를 그대로 써서 서버에 연결하고 `tools/list`를 받아 봅니다. VS Code가 "
        "하는 일과 같으니, 빠진 토큰이나 틀린 경로는 진짜 서버가 거절합니다.",
        "Write the contents of `.vscode/mcp.json` as a Python dict, so that VS Code can connect to the notebook "
        "server running now. Any server name will do. Build the URL and the token from `srv.url` and "
        "`srv.token` instead of copying their values.\n"
        "The checker connects with exactly the `url` and `headers` you wrote and asks for `tools/list`, as VS "
        "Code would; a missing token or a wrong path is refused by the real server.",
    ),
    hints=[
        (
            "서버 항목 하나에 필요한 것은 셋입니다. 어떤 방식으로 연결할지, 어디로 연결할지, 요청마다 무엇을 함께 "
            "보낼지.",
            "One server entry needs three things: how to connect, where to connect, and what to send along with "
            "every request.",
        ),
        (
            "주소와 토큰은 노트북에 이미 있습니다. 서버 핸들 `srv`의 속성을 떠올려 보세요. 토큰은 맨 값이 아니라 "
            "HTTP 인증 헤더의 모양으로 보내야 합니다.",
            "The address and the token are already in the notebook: think of the attributes of the server "
            "handle `srv`. The token is not sent bare but in the shape of an HTTP authentication header.",
        ),
        (
            "VS Code의 최상위 키는 Cursor나 Claude Desktop의 것과 다릅니다. 1절의 표에서 VS Code 줄을 보고, "
            "`type`에는 1절의 두 방식 가운데 이 서버에 맞는 쪽의 짧은 이름을 쓰세요.",
            "VS Code's top-level key differs from Cursor's and Claude Desktop's. See the VS Code row of the table "
            "in section 1, and put in `type` the short name of whichever of the two transports of section 1 fits "
            "this server.",
        ),
    ],
    solution=(
        "q2_answer = {\n"
        '    "servers": {\n'
        '        "notebook": {\n'
        '            "type": "http",  # URL로 닿는 서버\n'
        '            "url": srv.url,  # http://127.0.0.1:포트/mcp\n'
        '            "headers": {"Authorization": f"Bearer {srv.token}"},  # 요청마다 보낼 토큰\n'
        "        }\n"
        "    }\n"
        "}",
        "q2_answer = {\n"
        '    "servers": {\n'
        '        "notebook": {\n'
        '            "type": "http",  # a server reached by URL\n'
        '            "url": srv.url,  # http://127.0.0.1:PORT/mcp\n'
        '            "headers": {"Authorization": f"Bearer {srv.token}"},  # the token, on every request\n'
        "        }\n"
        "    }\n"
        "}",
    ),
    explanation=(
        'VS Code는 최상위 `servers` 아래에 서버마다 항목을 두고, URL로 닿는 서버는 `"type": "http"`로 적습니다. '
        "`url`은 `/mcp`로 끝나는 `srv.url` 그대로이고, 토큰은 `Authorization: Bearer <토큰>` 헤더로 보냅니다. "
        "`srv.url`과 `srv.token`으로 만들면 옮겨 적다 틀릴 일이 없습니다. 다만 커널을 다시 시작하면 둘 다 바뀌므로 "
        "오래 쓸 설정이라면 포트와 토큰을 고정합니다(7절).",
        'VS Code lists servers under the top-level `servers`, and a server reached by URL has `"type": "http"`. '
        "`url` is `srv.url` as it is, ending in `/mcp`, and the token goes in the header `Authorization: Bearer "
        "<token>`. Built from `srv.url` and `srv.token`, nothing can be mistyped; but both change when the "
        "kernel restarts, so a configuration meant to last fixes the port and the token (section 7).",
    ),
)


# -- q3: which stretch is HTTP, which is stdio ----------------------------------------------------------

TRANSPORTS = Vocabulary(
    "ch07_transports",
    [
        Category(
            "http",
            ("Streamable HTTP(URL로 접속)", "Streamable HTTP (connect to a URL)"),
            (
                "HTTP를 고른다는 것은 클라이언트가 이미 떠 있는 서버의 URL로 직접 요청을 보내고, 토큰은 헤더에 "
                "싣는다는 뜻입니다.",
                "HTTP means the client sends requests straight to the URL of a server that is already running, "
                "with the token in a header.",
            ),
            ("streamable http", "url", "http 직접"),
        ),
        Category(
            "stdio",
            ("stdio(명령을 띄움)", "stdio (launch a command)"),
            (
                "stdio를 고른다는 것은 클라이언트가 설정에 적힌 명령을 자식 프로세스로 띄우고, 그 프로세스의 "
                "표준 입력과 출력으로 메시지를 주고받는다는 뜻입니다.",
                "stdio means the client launches the command in its configuration as a child process and "
                "exchanges messages over that process's standard input and output.",
            ),
            ("표준 입출력", "standard io", "standard input output", "command", "명령", "subprocess"),
        ),
    ],
)

q3 = Classification(
    "07",
    "q3",
    title=("HTTP 구간과 stdio 구간", "HTTP stretches and stdio stretches"),
    question=(
        "이 장에서 본 설정대로 연결했을 때, 아래 각 구간에서 메시지는 어떤 방식으로 오갈까요? 구간의 앞쪽이 "
        "뒤쪽을 URL로 찾아가는지(HTTP), 명령으로 띄우는지(stdio) 고르세요.",
        "Connected as this chapter configures them, how do messages travel on each stretch below? Pick "
        "whether the first party reaches the second at a URL (HTTP) or launches it as a command (stdio).",
    ),
    vocabulary=TRANSPORTS,
    items={
        "claude_code": (
            (
                "프로젝트 폴더의 `.mcp.json`에 노트북 서버를 적은 Claude Code → 노트북 서버",
                "Claude Code, with the notebook server in `.mcp.json` of the project folder → the notebook server",
            ),
            "http",
        ),
        "claude_desktop": (
            (
                "`claude_desktop_config.json`의 `mcpServers`에 노트북을 등록한 Claude Desktop → 그 설정이 가리키는 "
                "프로그램",
                "Claude Desktop, with the notebook in `mcpServers` of `claude_desktop_config.json` → the program "
                "that entry names",
            ),
            "stdio",
        ),
        "cursor": (
            (
                "`mcp.json`에 노트북 서버를 적은 Cursor → 노트북 서버",
                "Cursor, with the notebook server in its `mcp.json` → the notebook server",
            ),
            "http",
        ),
        "inspector": (
            (
                "노트북 서버의 도구 목록을 찍어 보는 MCP Inspector의 CLI → 노트북 서버",
                "The MCP Inspector CLI printing the notebook server's tools → the notebook server",
            ),
            "http",
        ),
        "bridge_upstream": (
            (
                "Claude Desktop이 띄운 `mcp-notebook bridge` → 노트북 서버",
                "The `mcp-notebook bridge` Claude Desktop launched → the notebook server",
            ),
            "http",
        ),
        "notebook_bridge": (
            (
                '이 노트북의 `mcp_notebook.call(..., stdio="... bridge ...")` → 다리 프로세스',
                'This notebook\'s `mcp_notebook.call(..., stdio="... bridge ...")` → the bridge process',
            ),
            "stdio",
        ),
        "headless_stdio": (
            (
                "내려받은 노트북을 `mcp-notebook serve 노트북.ipynb --stdio`로 등록한 Claude Desktop → 그 명령",
                "Claude Desktop, with a downloaded notebook registered as `mcp-notebook serve NOTEBOOK.ipynb "
                "--stdio` → that command",
            ),
            "stdio",
        ),
    },
    feedback={
        ("claude_desktop", "http"): (
            "'claude_desktop': 노트북 서버가 HTTP로 말하는 것은 맞습니다. 하지만 Claude Desktop의 설정 파일에는 URL과 "
            "헤더를 적을 자리가 없습니다. 설정의 `command`와 `args`는 Claude Desktop에게 무엇을 하라는 것일까요?",
            "'claude_desktop': the notebook server does speak HTTP. But Claude Desktop's configuration file has "
            "no place for a URL and headers. What do `command` and `args` tell Claude Desktop to do?",
        ),
        ("bridge_upstream", "stdio"): (
            "'bridge_upstream': 다리의 한쪽 끝은 stdio가 맞습니다. 반대쪽, 다리가 노트북 서버를 찾아가는 구간에서 "
            "다리가 손에 든 것은 무엇인가요? `bridge` 뒤에 적은 인자를 보세요.",
            "'bridge_upstream': one end of the bridge is stdio indeed. On the other stretch, where the bridge "
            "reaches the notebook server, what does the bridge hold? Look at the arguments after `bridge`.",
        ),
        ("notebook_bridge", "http"): (
            "'notebook_bridge': 노트북이 자기 서버를 바로 부를 때는 HTTP입니다. 그런데 여기서는 `stdio=`에 명령을 "
            "주었습니다. 그 명령을 띄우는 쪽은 누구일까요?",
            "'notebook_bridge': when the notebook calls its server directly it is HTTP. Here, though, `stdio=` "
            "was given a command. Who launches that command?",
        ),
        ("headless_stdio", "http"): (
            "'headless_stdio': `mcp-notebook serve`는 보통 URL을 내놓지만 `--stdio`를 붙이면 달라집니다. Claude "
            "Desktop 설정에 적을 수 있는 것이 무엇이었는지도 떠올려 보세요.",
            "'headless_stdio': `mcp-notebook serve` usually prints a URL, but `--stdio` changes that. Recall "
            "also what Claude Desktop's configuration can hold.",
        ),
        ("claude_code", "stdio"): (
            "'claude_code': `.mcp.json`에 무엇을 적었는지 보세요. 실행할 명령이었나요, 주소였나요?",
            "'claude_code': look at what `.mcp.json` holds. A command to run, or an address?",
        ),
    },
    hints=[
        (
            "구간마다 앞쪽이 뒤쪽을 어떻게 아는지 보세요. 이미 떠 있는 서버의 주소를 아는 것인지, 자기가 프로그램을 "
            "띄우는 것인지.",
            "For each stretch, see how the first party knows the second: does it know the address of a server "
            "already running, or does it start a program itself?",
        ),
        (
            "설정에 무엇을 적었는지가 실마리입니다. URL과 헤더를 적는 설정이 있고, 실행할 명령과 인자를 적는 설정이 "
            "있습니다.",
            "What the configuration holds is the clue: some hold a URL and headers, others a command and its "
            "arguments.",
        ),
        (
            "다리(`mcp-notebook bridge`)는 양쪽 구간의 방식이 서로 다릅니다. 5절의 Claude Desktop 설정과 다리의 "
            "인자를 다시 보세요.",
            "The bridge (`mcp-notebook bridge`) works differently on its two sides. Look again at the Claude "
            "Desktop configuration and the bridge's arguments in section 5.",
        ),
    ],
    explanation=(
        "Claude Code, Cursor, VS Code, MCP Inspector는 URL과 Authorization 헤더로 노트북 서버에 바로 닿습니다"
        "(Streamable HTTP). Claude Desktop의 설정은 실행할 명령만 받으니 Claude Desktop은 `mcp-notebook bridge`를 "
        "자식 프로세스로 띄워 stdio로 말하고, 다리가 그 말을 URL과 토큰으로 노트북 서버에 HTTP로 전합니다. 노트북에서 "
        "`stdio=`로 부를 때와 `mcp-notebook serve --stdio`를 등록할 때도 앞쪽이 명령을 띄우니 stdio입니다.",
        "Claude Code, Cursor, VS Code and MCP Inspector reach the notebook server directly with a URL and an "
        "Authorization header (Streamable HTTP). Claude Desktop's configuration takes only a command, so Claude "
        "Desktop launches `mcp-notebook bridge` as a child and talks stdio to it, and the bridge passes "
        "everything on to the notebook server over HTTP with the URL and token. Calling with `stdio=` from the "
        "notebook, or registering `mcp-notebook serve --stdio`, also launches a command: stdio.",
    ),
)


# -- q4: a Binder kernel and a desktop client -----------------------------------------------------------

q4 = MultipleChoice(
    "07",
    "q4",
    title=("Binder 커널과 내 컴퓨터의 Claude Desktop", "A Binder kernel and Claude Desktop on my laptop"),
    question=(
        "Binder에서 이 노트북을 열고 `srv = %mcp_serve`까지 실행했습니다. 이제 내 노트북 컴퓨터에 설치한 Claude "
        "Desktop에서 이 노트북의 도구를 쓰고 싶습니다. 무엇이 실제로 동작할까요?",
        "You opened this notebook on Binder and ran `srv = %mcp_serve`. Now you want to use its tools from "
        "Claude Desktop installed on your laptop. What actually works?",
    ),
    options={
        "A": (
            'Binder 노트북에서 `srv.client_config("claude-desktop")`를 출력해 내 컴퓨터의 '
            "`claude_desktop_config.json`에 그대로 붙여 넣는다.",
            'Print `srv.client_config("claude-desktop")` in the Binder notebook and paste it as it is into '
            "`claude_desktop_config.json` on the laptop.",
        ),
        "B": (
            "설정 속 `127.0.0.1`을 Binder가 브라우저 주소창에 보여 주는 주소(`hub.mybinder.org/user/...`)로 바꿔 넣는다.",
            "Replace `127.0.0.1` in the configuration with the address Binder shows in the browser "
            "(`hub.mybinder.org/user/...`).",
        ),
        "C": (
            'Binder에서 `mcp_notebook.serve(host="0.0.0.0", allow_remote=True)`로 서버를 다시 켜서 밖에서도 닿게 한다.',
            'Restart the server on Binder with `mcp_notebook.serve(host="0.0.0.0", allow_remote=True)` so that '
            "it can be reached from outside.",
        ),
        "D": (
            "노트북 파일을 내려받아 내 컴퓨터에 mcp-notebook을 설치하고, `mcp-notebook serve 노트북.ipynb`로(또는 "
            "Claude Desktop 설정에 `--stdio`를 붙여) 내 컴퓨터에서 서빙한다.",
            "Download the notebook, install mcp-notebook on the laptop and serve it there with `mcp-notebook "
            "serve NOTEBOOK.ipynb` (or with `--stdio` in Claude Desktop's configuration).",
        ),
    },
    answer="D",
    wrong={
        "A": (
            "붙여 넣은 설정의 다리는 내 컴퓨터에서 실행됩니다. 그 다리가 찾아가는 `127.0.0.1`은 누구의 컴퓨터일까요? "
            "Binder의 서버는 Binder 컨테이너 안의 127.0.0.1에서 기다리고 있습니다.",
            "The bridge in the pasted configuration runs on your laptop. Whose computer is the `127.0.0.1` it "
            "goes to? The Binder server waits on 127.0.0.1 inside the Binder container.",
        ),
        "B": (
            "Binder가 밖으로 내놓는 것은 Jupyter 웹 화면 하나뿐이고, 그마저 Binder의 프록시와 로그인 정보를 거칩니다. "
            "MCP 서버의 포트는 그 길 위에 없습니다. 게다가 서버는 Host 헤더가 127.0.0.1이나 localhost가 아닌 요청을 "
            "421로 거절합니다.",
            "Binder exposes only the Jupyter web page, and only through its proxy and login. The MCP server's "
            "port is not on that road. Besides, the server refuses a Host header other than 127.0.0.1 or "
            "localhost with 421.",
        ),
        "C": (
            "0.0.0.0으로 열어도 Binder는 그 포트를 인터넷에 내놓지 않습니다. 닿지 않는 것은 그대로이고, 컨테이너 "
            "주변의 다른 프로그램에 서버를 여는 위험만 늘어납니다.",
            "Even bound to 0.0.0.0, the port is not exposed to the internet by Binder. It stays out of reach, "
            "and the server is merely opened to other programs around the container.",
        ),
    },
    hints=[
        (
            "설정 속 `127.0.0.1`은 '이 설정을 읽고 연결하는 프로그램이 도는 바로 그 컴퓨터'를 뜻합니다. 다리는 "
            "어디에서 돌까요?",
            "`127.0.0.1` in a configuration means 'the very computer the program reading it runs on'. Where "
            "does the bridge run?",
        ),
        (
            "Binder가 바깥에 열어 주는 문이 몇 개이고 어디로 이어지는지 생각해 보세요. 그 문으로 못 닿는다면, 서버를 "
            "어디로 옮겨야 할까요?",
            "Think about how many doors Binder opens to the outside and where they lead. If the server cannot be "
            "reached through them, where must it move?",
        ),
    ],
    explanation=(
        "Binder 커널의 서버는 원격 컨테이너의 루프백(127.0.0.1)에서 기다리고, Binder는 Jupyter 웹 화면 말고는 "
        "포트를 내놓지 않습니다. 내 컴퓨터의 클라이언트나 다리가 찾아가는 127.0.0.1은 내 컴퓨터 자신입니다. 그러니 "
        "서버가 클라이언트 곁으로 와야 합니다. 노트북을 내려받아 내 컴퓨터에서 `mcp-notebook serve`로 서빙하거나, "
        "Binder에 머문다면 도구는 노트북 안에서 `%mcp_call`로 부릅니다. Binder에서 `srv.client_config()`를 부르면 "
        "설정 위에 이 경고가 함께 나옵니다.",
        "A Binder kernel's server waits on the remote container's loopback (127.0.0.1), and Binder exposes no "
        "port besides the Jupyter page. The 127.0.0.1 your laptop's client or bridge goes to is the laptop "
        "itself. So the server must come to the client: download the notebook and serve it on your computer "
        "with `mcp-notebook serve`, or, staying on Binder, call the tools from the notebook with `%mcp_call`. "
        "On Binder, `srv.client_config()` puts this warning above the configuration.",
    ),
)


# -- q5: a configuration that survives a restart ---------------------------------------------------------

q5 = MultipleChoice(
    "07",
    "q5",
    title=("커널을 다시 켜도 그대로 쓰는 설정", "A configuration that survives a kernel restart"),
    question=(
        "VS Code에 노트북 서버를 설정해 두었는데, 커널을 다시 시작할 때마다 연결이 끊겨 설정을 새로 붙여 넣고 "
        "있습니다. 설정을 한 번만 쓰고 계속 쓰려면 어떻게 하는 것이 가장 좋을까요?",
        "VS Code is configured for the notebook server, but every kernel restart breaks the connection and "
        "you paste a new configuration. What is the best way to write the configuration once and keep it?",
    ),
    options={
        "A": (
            '`serve(approval="auto")`로 켜서 승인을 묻지 않게 한다.',
            'Start it with `serve(approval="auto")` so that no approval is asked.',
        ),
        "B": (
            "포트는 `%mcp_serve --port 8765`로 고정하고, 토큰은 Jupyter를 켜기 전에 환경 변수 `MCP_NOTEBOOK_TOKEN`"
            "으로 정해 둔다.",
            "Fix the port with `%mcp_serve --port 8765`, and set the token in the environment variable "
            "`MCP_NOTEBOOK_TOKEN` before starting Jupyter.",
        ),
        "C": (
            "`%mcp_serve --port 8765 --token 내가-정한-토큰`처럼 포트와 토큰을 노트북 셀에 적어 둔다.",
            "Write both into a notebook cell: `%mcp_serve --port 8765 --token my-own-token`.",
        ),
        "D": (
            '`host="0.0.0.0"`으로 서버를 열어 어느 주소로든 닿게 한다.',
            'Open the server with `host="0.0.0.0"` so that any address reaches it.',
        ),
    },
    answer="B",
    wrong={
        "A": (
            "승인은 연결이 된 다음의 이야기입니다. 연결이 끊기는 이유는 커널을 다시 켤 때마다 새로 정해지는 두 값에 "
            "있습니다.",
            "Approval only matters once connected. The connection breaks because of two values picked afresh at "
            "every kernel start.",
        ),
        "C": (
            "연결은 유지됩니다. 하지만 토큰이 노트북 파일에 남아, 노트북을 공유하거나 저장소에 올리는 순간 함께 "
            "퍼집니다. 비밀은 파일 밖에 두어야 합니다.",
            "The connection would survive. But the token stays in the notebook file and spreads with it the "
            "moment the notebook is shared or committed. Secrets belong outside the file.",
        ),
        "D": (
            "바뀌는 것은 주소의 이름이 아니라 포트와 토큰입니다. 게다가 0.0.0.0은 같은 네트워크의 다른 컴퓨터에도 "
            "서버를 여는 위험한 설정입니다.",
            "What changes is not the address name but the port and the token. And 0.0.0.0 opens the server to "
            "other computers on the network, which is dangerous.",
        ),
    },
    hints=[
        (
            "커널을 다시 켜면 서버도 새로 켜집니다. 새 서버에서 새로 정해지는 값이 무엇인지 `srv.url`과 `srv.token`을 "
            "떠올려 보세요.",
            "A kernel restart starts a new server. Recall `srv.url` and `srv.token`: what does a new server pick "
            "afresh?",
        ),
        (
            "두 값을 고정하는 방법은 여러 가지지만 그중 하나는 비밀입니다. 비밀은 노트북 파일에 남지 않는 곳에 "
            "두어야 합니다.",
            "There are several ways to fix both values, but one of them is a secret, and a secret must live "
            "somewhere that does not end up in the notebook file.",
        ),
    ],
    explanation=(
        "서버는 켤 때마다 빈 포트 하나를 고르고(포트 0) 무작위 토큰을 새로 만듭니다. `--port`(또는 "
        "`serve(port=...)`)로 포트를, 환경 변수 `MCP_NOTEBOOK_TOKEN`으로 토큰을 고정하면 설정이 계속 맞습니다. 토큰을 "
        "셀에 적으면 노트북 파일과 함께 퍼지고, 0.0.0.0은 문제와 상관없이 서버를 바깥에 엽니다. 헤드리스로 쓸 때도 "
        "같습니다: `mcp-notebook serve 노트북.ipynb --port 8765`에 `MCP_NOTEBOOK_TOKEN`.",
        "Each start, the server picks a free port (port 0) and makes a new random token. Fix the port with "
        "`--port` (or `serve(port=...)`) and the token with the environment variable `MCP_NOTEBOOK_TOKEN`, and "
        "the configuration stays right. A token written in a cell spreads with the notebook file, and 0.0.0.0 "
        "opens the server to the outside without fixing anything. Headless it is the same: `mcp-notebook serve "
        "NOTEBOOK.ipynb --port 8765` with `MCP_NOTEBOOK_TOKEN`.",
    ),
)


# -- q6: a kernel on the class's JupyterHub -------------------------------------------------------------

q6 = MultipleChoice(
    "07",
    "q6",
    title=("수업 허브의 커널에 Claude Code 붙이기", "Claude Code and a kernel on the class's JupyterHub"),
    question=(
        "수업용 JupyterHub(mcp-notebook 확장이 설치된 허브)에서 이 노트북을 열고 `srv = %mcp_serve`까지 실행했습니다. "
        "내 노트북 컴퓨터의 Claude Code에서 이 노트북의 도구를 쓰려면 `.mcp.json`에 무엇을 적어야 할까요?",
        "On the class's JupyterHub (with the mcp-notebook extension installed) you opened this notebook and ran "
        "`srv = %mcp_serve`. What goes into `.mcp.json` so that Claude Code on your laptop can use its tools?",
    ),
    options={
        "A": (
            "`srv.url`(`http://127.0.0.1:포트/mcp`)과 `srv.token`.",
            "`srv.url` (`http://127.0.0.1:PORT/mcp`) and `srv.token`.",
        ),
        "B": (
            "허브에 있는 내 서버의 주소(`https://허브/user/내이름/mcp-notebook/서버이름/mcp`)와 `srv.token`.",
            "My server's address on the hub (`https://HUB/user/MY-NAME/mcp-notebook/SERVER/mcp`) and `srv.token`.",
        ),
        "C": (
            "허브에 있는 내 서버의 주소(`https://허브/user/내이름/mcp-notebook/서버이름/mcp`)와, 허브의 토큰 "
            "페이지(`/hub/token`)에서 `access:servers!user=내이름` 권한으로 만든 내 토큰.",
            "My server's address on the hub (`https://HUB/user/MY-NAME/mcp-notebook/SERVER/mcp`) and a token of "
            "mine made on the hub's token page (`/hub/token`) with the permission `access:servers!user=MY-NAME`.",
        ),
        "D": (
            "옆자리 친구가 만든 허브 토큰과 친구 서버의 주소. 같은 수업이니 도구도 같다.",
            "The hub token a classmate made and the classmate's server address: same class, same tools.",
        ),
    },
    answer="C",
    wrong={
        "A": (
            "`127.0.0.1`은 설정을 읽는 프로그램이 도는 컴퓨터, 곧 내 노트북 컴퓨터입니다. 커널은 허브의 컴퓨터에서 "
            "돕니다. 허브 밖에서 닿는 문은 허브의 주소 하나입니다.",
            "`127.0.0.1` is the computer the program reading the configuration runs on: your laptop. The kernel "
            "runs on the hub's machine, and the only door from outside is the hub's address.",
        ),
        "B": (
            "주소는 맞습니다. 하지만 그 문을 지키는 것은 허브의 로그인입니다. `srv.token`은 커널 안 서버의 토큰이라 "
            "허브는 모르는 값이고, 허브는 401이나 403으로 돌려보냅니다.",
            "The address is right. But the hub's login guards that door: `srv.token` belongs to the server in "
            "the kernel, the hub does not know it and answers 401 or 403.",
        ),
        "D": (
            "토큰은 그 토큰을 만든 사람입니다. 친구의 토큰으로 부르는 호출은 친구의 이름으로 남고, 친구의 노트북에서 "
            "승인을 기다립니다. 내 서버에는 친구의 토큰이 통하지 않습니다(403).",
            "A token is the person who made it. Calls made with a classmate's token are the classmate's, wait "
            "for approval in the classmate's notebook, and the token does not open your server (403).",
        ),
    },
    hints=[
        (
            "클라이언트는 내 컴퓨터에서, 커널은 허브의 컴퓨터에서 돕니다. 둘 사이에 열린 문은 무엇이고, 그 문은 "
            "무엇으로 나를 알아볼까요?",
            "The client runs on your laptop, the kernel on the hub's machine. Which door is open between them, "
            "and how does that door recognise you?",
        ),
        (
            '`print(srv.client_config("claude-code"))`를 허브에서 실행하면 어떤 주소와 어떤 자리 표시가 나오는지 '
            "8절에서 확인해 보세요.",
            'See in section 8 which address and which placeholder `print(srv.client_config("claude-code"))` '
            "shows on a hub.",
        ),
    ],
    explanation=(
        "허브에서는 mcp-notebook의 Jupyter 서버 확장이 각 커널의 MCP 서버를 내 서버의 주소 아래 "
        "(`/user/내이름/mcp-notebook/서버이름/mcp`)에 내놓고, 허브의 로그인으로 지킵니다. 그래서 클라이언트에는 그 "
        "주소와, 허브의 토큰 페이지에서 만든 내 토큰을 적습니다. 커널 안 서버는 여전히 허브 컴퓨터의 127.0.0.1에서만 "
        "기다리고, 그 토큰은 밖으로 나가지 않습니다. 호출은 `jupyter:내이름`으로 들어와 이 노트북에서 내 승인을 "
        "기다립니다. `srv.client_config()`가 이 설정과 토큰 만드는 법을 함께 보여 줍니다.",
        "On a hub, mcp-notebook's Jupyter server extension serves each kernel's MCP server under your server's "
        "address (`/user/MY-NAME/mcp-notebook/SERVER/mcp`), guarded by the hub's login. So the client gets that "
        "address and a token of yours from the hub's token page. The server in the kernel still listens only on "
        "the hub machine's 127.0.0.1, and its token never leaves. Calls arrive as `jupyter:MY-NAME` and wait for "
        "your approval in this notebook. `srv.client_config()` shows this configuration and how to make the token.",
    ),
)
