"""Messages of client configurations and the connection check, in English and Korean."""

from __future__ import annotations

from ..core._text import Language

MESSAGES: dict[str, dict[Language, str]] = {
    "config.unknown_client": {
        "en": "Unknown client {name!r}. Known clients: {known}.",
        "ko": "알 수 없는 클라이언트 {name!r}입니다. 사용할 수 있는 클라이언트: {known}.",
    },
    "config.remote_warning": {
        "en": (
            "Warning: this kernel runs on a remote machine (Binder or JupyterHub). A desktop client "
            "(Claude Desktop, Claude Code, Cursor, VS Code, MCP Inspector) cannot reach it: 127.0.0.1 in "
            "the configuration below means the client's own computer, not this server. Instead, download "
            "the notebook and serve it on your computer with `mcp-notebook serve NOTEBOOK.ipynb`, or call "
            "the tools from this notebook with `%mcp_call`. On a JupyterHub with mcp-notebook installed, "
            "`srv.client_config(...)` in the notebook gives this kernel's address on the hub instead."
        ),
        "ko": (
            "주의: 이 커널은 원격 컴퓨터(Binder 또는 JupyterHub)에서 실행 중입니다. 데스크톱 클라이언트"
            "(Claude Desktop, Claude Code, Cursor, VS Code, MCP Inspector)는 이 커널에 닿을 수 없습니다. "
            "아래 설정의 127.0.0.1은 이 서버가 아니라 클라이언트 자신의 컴퓨터를 뜻합니다. 대신 노트북을 "
            "내려받아 내 컴퓨터에서 `mcp-notebook serve NOTEBOOK.ipynb`로 서빙하거나, 이 노트북 안에서 "
            "`%mcp_call`로 도구를 호출하세요. mcp-notebook이 설치된 JupyterHub라면 노트북에서 "
            "`srv.client_config(...)`가 이 커널의 허브 주소를 대신 알려 줍니다."
        ),
    },
    "config.usage.claude-code": {
        "en": (
            "Save this as .mcp.json in your project's folder (Claude Code reads it when started there; "
            "check with `claude mcp list`). It holds the token: keep the file to yourself (chmod 600) and "
            "out of version control."
        ),
        "ko": (
            "이 글을 프로젝트 폴더의 .mcp.json으로 저장하세요(Claude Code를 그 폴더에서 켜면 읽습니다. "
            "`claude mcp list`로 확인). 토큰이 들어 있으니 나만 읽도록 하고(chmod 600) 버전 관리에는 넣지 마세요."
        ),
    },
    "config.usage.claude-desktop": {
        "en": (
            "Add the entry under mcpServers in claude_desktop_config.json (Settings → Developer), then quit "
            "and reopen Claude Desktop. The token goes to the bridge in env, never on its command line."
        ),
        "ko": (
            "claude_desktop_config.json(설정 → 개발자)의 mcpServers 아래에 이 항목을 더한 뒤, Claude Desktop을 "
            "완전히 껐다가 다시 켜세요. 토큰은 명령줄이 아니라 env로 다리에 전해집니다."
        ),
    },
    "config.usage.cursor": {
        "en": "Add the entry to ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (this project).",
        "ko": "~/.cursor/mcp.json(모든 프로젝트) 또는 .cursor/mcp.json(이 프로젝트)에 이 항목을 더하세요.",
    },
    "config.usage.vscode": {
        "en": "Add the entry to .vscode/mcp.json (this workspace) or to the mcp.json of your user profile.",
        "ko": ".vscode/mcp.json(이 작업 공간) 또는 사용자 프로필의 mcp.json에 이 항목을 더하세요.",
    },
    "config.usage.inspector": {
        "en": (
            "Save this as {file} (chmod 600: it holds the token), then run: {command}. The token stays in "
            "the file, never on the command line."
        ),
        "ko": (
            "이 글을 {file}로 저장하고(토큰이 들어 있으니 chmod 600) 다음을 실행하세요: {command}. 토큰은 "
            "명령줄이 아니라 파일에만 있습니다."
        ),
    },
    "check.ok": {
        "en": (
            "Connected to {url}: server {name} {version}, {tools} tool(s). A client configured with this "
            "URL and token will work."
        ),
        "ko": (
            "{url}에 연결했습니다: 서버 {name} {version}, 도구 {tools}개. 이 URL과 토큰으로 설정한 "
            "클라이언트는 동작합니다."
        ),
    },
    "check.refused": {
        "en": (
            "Nothing is listening at {address} (connection refused). Start the server: run "
            "`srv = %mcp_serve` in the notebook (or `mcp-notebook serve NOTEBOOK.ipynb`) and use the URL "
            "it shows. A restarted kernel gets a new port unless you fix one with --port."
        ),
        "ko": (
            "{address}에서 기다리는 서버가 없습니다(연결 거부). 노트북에서 `srv = %mcp_serve`를 실행하거나 "
            "`mcp-notebook serve NOTEBOOK.ipynb`로 서버를 시작하고, 그때 보이는 URL을 쓰세요. 커널을 다시 "
            "시작하면 --port로 고정하지 않는 한 포트가 바뀝니다."
        ),
    },
    "check.token": {
        "en": (
            "The server refused the token (HTTP 401). Use this server's own token: `srv.token` in the "
            "notebook, or the one given by MCP_NOTEBOOK_TOKEN / --token-file, sent as "
            "'Authorization: Bearer <token>'. A new server has a new token unless you set one."
        ),
        "ko": (
            "서버가 토큰을 거부했습니다(HTTP 401). 이 서버의 토큰을 쓰세요: 노트북의 `srv.token`, 또는 "
            "MCP_NOTEBOOK_TOKEN / --token-file로 준 값을 'Authorization: Bearer <token>' 헤더로 보냅니다. "
            "토큰을 정해 두지 않으면 서버를 새로 시작할 때마다 토큰이 바뀝니다."
        ),
    },
    "check.no_token": {
        "en": (
            "The server wants a token and none was sent (HTTP 401). Pass the server's token (`srv.token` "
            "in the notebook) as 'Authorization: Bearer <token>', e.g. from MCP_NOTEBOOK_TOKEN or --token-file."
        ),
        "ko": (
            "서버는 토큰이 필요한데 보내지 않았습니다(HTTP 401). 서버의 토큰(노트북의 `srv.token`)을 "
            "'Authorization: Bearer <token>' 헤더로 보내세요(예: MCP_NOTEBOOK_TOKEN이나 --token-file로)."
        ),
    },
    "check.origin": {
        "en": (
            "The server refused the request's Origin header (HTTP 403). It answers only requests from "
            "127.0.0.1 or localhost, so that web pages from other sites cannot call your notebook. Connect "
            "from a local MCP client, not from a web page served by another host."
        ),
        "ko": (
            "서버가 요청의 Origin 헤더를 거부했습니다(HTTP 403). 다른 웹사이트가 노트북을 호출하지 못하도록 "
            "127.0.0.1이나 localhost에서 온 요청에만 답합니다. 다른 호스트의 웹 페이지가 아니라 로컬 MCP "
            "클라이언트에서 연결하세요."
        ),
    },
    "check.host": {
        "en": (
            "The server refused the Host header {host!r} (HTTP 421): it answers only to 127.0.0.1, "
            "localhost and [::1]. Use {suggested} instead of a host name or a proxy address."
        ),
        "ko": (
            "서버가 Host 헤더 {host!r}을(를) 거부했습니다(HTTP 421). 127.0.0.1, localhost, [::1]에만 "
            "답합니다. 호스트 이름이나 프록시 주소 대신 {suggested}을(를) 쓰세요."
        ),
    },
    "check.path": {
        "en": "Nothing is served at the path {path!r} (HTTP 404): the MCP endpoint path must be /mcp. Use {suggested}.",
        "ko": "{path!r} 경로에는 아무것도 없습니다(HTTP 404). MCP 엔드포인트 경로는 /mcp여야 합니다. {suggested}을(를) 쓰세요.",
    },
    "check.timeout": {
        "en": (
            "No answer from {url} within {seconds} s. The kernel may be busy or stuck: look at the "
            "notebook (a cell still running, a dead kernel), then try again."
        ),
        "ko": (
            "{url}이(가) {seconds}초 안에 답하지 않았습니다. 커널이 바쁘거나 멈췄을 수 있습니다. 노트북을 "
            "확인한 뒤(실행 중인 셀, 죽은 커널) 다시 시도하세요."
        ),
    },
    "check.unexpected": {
        "en": (
            "The server at {url} answered HTTP {status}, not as an MCP server would: {detail}. Check that "
            "the URL is the one `srv.url` shows."
        ),
        "ko": (
            "{url}의 서버가 HTTP {status}로 답했는데, MCP 서버의 답이 아닙니다: {detail}. URL이 "
            "`srv.url`에 보이는 값과 같은지 확인하세요."
        ),
    },
    "check.error": {
        "en": "Could not use the MCP server at {url}: {error}. Check the URL (`srv.url`) and the token (`srv.token`).",
        "ko": "{url}의 MCP 서버를 쓸 수 없습니다: {error}. URL(`srv.url`)과 토큰(`srv.token`)을 확인하세요.",
    },
    "check.bad_url": {
        "en": "{url!r} is not an HTTP URL. Use the URL `srv.url` shows, e.g. http://127.0.0.1:8765/mcp.",
        "ko": "{url!r}은(는) HTTP URL이 아닙니다. `srv.url`에 보이는 URL을 쓰세요(예: http://127.0.0.1:8765/mcp).",
    },
}
