"""Exercises of chapter 08 (두 프로토콜 시대): a 2026-07-28 request the learner writes by hand and the
checker sends to the real server, which era a wire fact belongs to, what a stateless server does
when a tool needs the user, why ``requestState`` is sealed, and a tool that asks with `Context`,
called by the checker in both eras.

>>> from mcp_notebook.lessons.ch08 import q1, q2, q3, q4, q5
"""

from __future__ import annotations

import json
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..core._text import clip, t
from ._answers import Category, Classification, MultipleChoice, Vocabulary
from ._exercise import Exercise, NotAttempted, is_blank, user_namespace
from ._texts import Text
from ._toolcheck import CALL_TIMEOUT, Param, ToolExercise, served_catalogue

__all__ = ["q1", "q2", "q3", "q4", "q5"]

STATELESS = "2026-07-28"

# -- shared by the checkers that talk to the real server ---------------------------------------------


def _blocking(work: Callable[[], Awaitable[Any]], timeout: float) -> Any:
    """Run ``await work()`` on the server's loop and wait for it, from a cell or any other thread.

    On the kernel's main thread the wait keeps running tools queued for it (``run_in="kernel"``), so
    a checker calling the in-kernel server cannot deadlock with it.
    """
    from ..runtime._loop import runtime

    future = runtime.portal().start_task_soon(work)
    if threading.current_thread() is threading.main_thread():
        return runtime.kernel_pump.wait(future, timeout)
    return future.result(timeout)


def _has_ellipsis(value: Any) -> bool:
    if value is ...:
        return True
    if isinstance(value, dict):
        return any(_has_ellipsis(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_ellipsis(v) for v in value)
    return False


# -- q1: a 2026-07-28 request written by hand, sent to the real server -------------------------------

MENU_URI = "menu://today"
CHECKER_HEADERS = ("authorization", "accept", "content-type")


@dataclass
class _Reply:
    """What the server answered a raw request: HTTP status and the JSON-RPC message (None if none)."""

    status: int
    message: dict[str, Any] | None


def _last_message(content_type: str, text: str) -> dict[str, Any] | None:
    if content_type.startswith("text/event-stream"):
        data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        return dict(json.loads(data[-1])) if data else None
    return dict(json.loads(text)) if text.strip() else None


class RawRequestExercise(Exercise):
    """The learner writes a 2026-07-28 ``resources/read`` request (headers and body) by hand.

    The checker POSTs it to the in-kernel server exactly as written (adding only the token and the
    content headers) and judges what the server answers, so every mismatch the server catches is
    explained in the learner's words; a session header, which the server ignores, is called out too.
    """

    def __init__(self, *args: Any, uri: str, template: Text, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.uri = uri
        self._add_texts({"template": template})
        self._sent: dict[str, Any] = {}

    def template(self) -> str:
        return self.text("template")

    def evaluate(self, answer: Any) -> list[str]:
        self._sent = {}
        if not isinstance(answer, dict):
            return [t("lessons.ch08.raw.shape", what=type(answer).__name__)]
        headers, body = answer.get("headers"), answer.get("body")
        if is_blank(headers) and is_blank(body):
            raise NotAttempted
        problems: list[str] = []
        if not isinstance(headers, dict):
            problems.append(t("lessons.ch08.raw.headers_not_dict", kind=type(headers).__name__))
        if not isinstance(body, dict):
            problems.append(t("lessons.ch08.raw.body_not_dict", kind=type(body).__name__))
        if problems:
            return problems
        assert isinstance(headers, dict) and isinstance(body, dict)
        if _has_ellipsis(headers) or _has_ellipsis(body):
            return [t("lessons.ch08.raw.ellipsis")]
        for name, value in headers.items():
            if not isinstance(value, str):
                problems.append(t("lessons.ch08.raw.header_value", name=name, value=value))
        try:
            payload = json.dumps(body, ensure_ascii=False).encode()
        except (TypeError, ValueError) as exc:
            problems.append(t("lessons.ch08.raw.not_json", error=exc))
        if problems:
            return problems
        if any(str(name).lower() == "mcp-session-id" for name in headers):
            problems.append(t("lessons.ch08.raw.session"))
        sent = {str(k): v for k, v in headers.items() if str(k).lower() not in CHECKER_HEADERS}
        import mcp_notebook

        started_here = mcp_notebook.current_server() is None
        server = mcp_notebook.serve()
        try:
            reply = _blocking(lambda: self._post(server.url, server.token, sent, payload), CALL_TIMEOUT + 5)
        except Exception as exc:
            return [*problems, t("lessons.ch08.raw.unreachable", error=f"{type(exc).__name__}: {exc}")]
        finally:
            if started_here:
                server.stop()
        return problems + self._judge(reply)

    @staticmethod
    async def _post(url: str, token: str, headers: dict[str, str], payload: bytes) -> _Reply:
        import anyio
        import httpx2

        headers = {
            **headers,
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        with anyio.fail_after(CALL_TIMEOUT):
            async with httpx2.AsyncClient(timeout=CALL_TIMEOUT) as http:
                response = await http.post(url, headers=headers, content=payload)
        return _Reply(
            response.status_code, _last_message(response.headers.get("content-type", ""), response.text)
        )

    def _judge(self, reply: _Reply) -> list[str]:
        message = reply.message
        if message is None:
            return [t("lessons.ch08.raw.notification", status=reply.status)]
        error = message.get("error")
        if isinstance(error, dict):
            code, text = error.get("code"), str(error.get("message", ""))
            lines = [t("lessons.ch08.raw.answered", status=reply.status, code=code, message=clip(text, 200))]
            return [*lines, self._advice(code, text.lower())]
        result = message.get("result")
        contents = result.get("contents") if isinstance(result, dict) else None
        if isinstance(contents, list) and any(
            isinstance(c, dict) and c.get("uri") == self.uri for c in contents
        ):
            assert isinstance(result, dict)
            self._sent = {
                "status": reply.status,
                "result_type": json.dumps(result.get("resultType")),
                "ttl": json.dumps(result.get("ttlMs")),
                "scope": json.dumps(result.get("cacheScope")),
            }
            return []
        got = clip(json.dumps(result, ensure_ascii=False), 200)
        return [t("lessons.ch08.raw.other_result", uri=self.uri, got=got)]

    def _advice(self, code: Any, text: str) -> str:
        if code == -32020:
            if "mcp-name" in text:
                return t("lessons.ch08.raw.mcp_name")
            if "mcp-method" in text:
                return t("lessons.ch08.raw.mcp_method")
            if "protocol-version" in text or "protocol version" in text:
                return t("lessons.ch08.raw.version_mismatch")
        if code == -32602:
            if "_meta" in text or "envelope" in text:
                return t("lessons.ch08.raw.meta")
            if "invalid request parameters" in text:
                return t("lessons.ch08.raw.meta_value")
            return t("lessons.ch08.raw.resource", uri=self.uri)
        if code == -32600 and "session" in text:
            return t("lessons.ch08.raw.handshake")
        if code == -32022:
            return t("lessons.ch08.raw.version")
        if code == -32601:
            return t("lessons.ch08.raw.method")
        return t("lessons.ch08.raw.other")

    def praise(self) -> list[str]:
        sent = [t("lessons.ch08.raw.sent", **self._sent)] if self._sent else []
        return [*sent, *super().praise()]


def _q1_solution(client_name: str) -> str:
    """The model answer of q1; the two languages differ only in the client's name."""
    client_info = json.dumps({"name": client_name, "version": "1.0"}, ensure_ascii=False)
    return (
        "q1_answer = {\n"
        '    "headers": {\n'
        '        "MCP-Protocol-Version": "2026-07-28",\n'
        '        "Mcp-Method": "resources/read",\n'
        f'        "Mcp-Name": "{MENU_URI}",\n'
        "    },\n"
        '    "body": {\n'
        '        "jsonrpc": "2.0",\n'
        '        "id": 1,\n'
        '        "method": "resources/read",\n'
        '        "params": {\n'
        f'            "uri": "{MENU_URI}",\n'
        '            "_meta": {\n'
        '                "io.modelcontextprotocol/protocolVersion": "2026-07-28",\n'
        '                "io.modelcontextprotocol/clientCapabilities": {},\n'
        f'                "io.modelcontextprotocol/clientInfo": {client_info},\n'
        "            },\n"
        "        },\n"
        "    },\n"
        "}"
    )


q1 = RawRequestExercise(
    "08",
    "q1",
    uri=MENU_URI,
    title=("2026-07-28 요청 손으로 쓰기", "A 2026-07-28 request by hand"),
    question=(
        f"노트북의 서버에는 오늘의 메뉴를 알려 주는 리소스 `{MENU_URI}`가 있습니다. 이 리소스를 **2026-07-28 방식으로** "
        "읽는 HTTP 요청을 손으로 쓰세요. `headers`에는 요청에 실을 MCP 헤더를, `body`에는 JSON-RPC 요청을 씁니다. "
        "토큰(`Authorization`)과 `Accept`, `Content-Type`은 채점기가 붙입니다.\n"
        "채점기는 이 요청을 커널 안의 진짜 서버에 그대로 POST하고, 서버의 답을 보고 채점합니다. 3절의 `tools/call`과 "
        "달리 이번에는 도구가 아니라 리소스를 읽는다는 것을 잊지 마세요.",
        f"The notebook's server has a resource `{MENU_URI}` with today's menu. Write by hand the HTTP request "
        "that reads it **the 2026-07-28 way**: MCP headers in `headers`, the JSON-RPC request in `body`. The "
        "checker adds the token (`Authorization`), `Accept` and `Content-Type`.\n"
        "The checker POSTs the request as is to the real in-kernel server and judges by the server's answer. "
        "Unlike the `tools/call` of section 3, this one reads a resource, not a tool.",
    ),
    template=(
        "q1_answer = {\n"
        '    "headers": ...,  # {"헤더 이름": "값", ...}\n'
        '    "body": ...,  # {"jsonrpc": "2.0", "id": 1, "method": ..., "params": {...}}\n'
        "}",
        "q1_answer = {\n"
        '    "headers": ...,  # {"Header-Name": "value", ...}\n'
        '    "body": ...,  # {"jsonrpc": "2.0", "id": 1, "method": ..., "params": {...}}\n'
        "}",
    ),
    hints=[
        (
            "3절에서 2026-07-28로 보낸 `tools/call`을 다시 보세요. 무엇이 헤더로 가고 무엇이 `_meta`로 갔나요? 메서드가 "
            "바뀌면 함께 바꿔야 할 곳이 여럿입니다.",
            "Look again at the 2026-07-28 `tools/call` of section 3. What went into headers, what into `_meta`? "
            "A different method changes several places at once.",
        ),
        (
            "헤더 셋은 본문과 짝을 이룹니다. 버전 헤더는 `_meta`의 버전과, 메서드 헤더는 본문의 `method`와, 이름 헤더는 "
            "본문이 대상을 가리키는 값과 같아야 합니다. 리소스는 이름이 아니라 무엇으로 가리키나요?",
            "The three headers pair with the body: the version header with the version in `_meta`, the method "
            "header with the body's `method`, the name header with the value the body uses to point at its "
            "target. What points at a resource, if not a name?",
        ),
        (
            "`_meta`의 키는 `io.modelcontextprotocol/`로 시작하는 긴 이름입니다. 꼭 있어야 하는 것은 두 개이고, 기능이 "
            "하나도 없으면 빈 객체 `{}`를 씁니다. `clientInfo`는 넣으면 좋지만 빠져도 거절되지는 않습니다.",
            "The keys of `_meta` are long names starting with `io.modelcontextprotocol/`. Two are required; with "
            "no capabilities, use the empty object `{}`. `clientInfo` is good to add but not required.",
        ),
    ],
    solution=(_q1_solution("손으로 쓴 클라이언트"), _q1_solution("hand-written client")),
    explanation=(
        "악수가 없으니 요청 하나가 모든 것을 스스로 말해야 합니다. 본문의 `params._meta`에는 프로토콜 버전과 클라이언트 "
        "기능이 꼭 들어가고(clientInfo는 권장), HTTP 헤더에는 버전, 메서드, 그리고 `tools/call`·`resources/read`·"
        "`prompts/get`이라면 대상의 이름이 들어갑니다. 리소스의 '이름'은 URI입니다. 서버는 헤더를 본문과 맞춰 보고, "
        "다르면 HTTP 400과 `-32020`으로 거절합니다. 헤더만 보고 요청을 나누는 프록시나 로드 밸런서가 본문과 다른 "
        "판단을 하지 않게 하려는 것입니다.",
        "With no handshake, one request must say everything itself. The body's `params._meta` carries the "
        "protocol version and the client capabilities (clientInfo is recommended); the HTTP headers carry the "
        "version, the method and, for `tools/call`, `resources/read` and `prompts/get`, the target's name. A "
        "resource's 'name' is its URI. The server checks headers against the body and refuses a mismatch with "
        "HTTP 400 and `-32020`, so that a proxy or load balancer that routes by headers alone can never "
        "disagree with the body.",
    ),
)


# -- q2: which era is this? -------------------------------------------------------------------------

ERAS = Vocabulary(
    "protocol_eras",
    [
        Category(
            "handshake",
            ("2025-11-25(악수 시대)", "2025-11-25 (handshake era)"),
            (
                "2025-11-25라는 것은 initialize로 연결을 맺고 세션과 GET 스트림을 쓰며, 서버가 클라이언트에게 먼저 "
                "요청을 보낼 수도 있는 쪽이라는 뜻입니다.",
                "2025-11-25 means the side that connects with initialize, keeps a session and a GET stream, and "
                "where a server may send requests to the client.",
            ),
            ("2025-11-25", "2025", "handshake", "악수", "악수 시대", "legacy", "레거시", "세션", "session"),
        ),
        Category(
            "stateless",
            ("2026-07-28(무상태 시대)", "2026-07-28 (stateless era)"),
            (
                "2026-07-28이라는 것은 악수 없이 요청 하나하나가 헤더와 `_meta`로 스스로를 설명하고, 서버는 받은 "
                "요청에 답하기만 하는 쪽이라는 뜻입니다.",
                "2026-07-28 means the side with no handshake, where every request describes itself in headers and "
                "`_meta`, and the server only answers the requests it gets.",
            ),
            ("2026-07-28", "2026", "stateless", "무상태", "무상태 시대", "modern", "새 시대"),
        ),
        Category(
            "both",
            ("둘 다", "both"),
            (
                "둘 다라는 것은 어느 시대의 서버와 클라이언트든 똑같이 한다는 뜻입니다.",
                "Both means servers and clients of either era do it alike.",
            ),
            ("둘다", "양쪽", "공통", "모두", "both eras", "common"),
        ),
    ],
)

q2 = Classification(
    "08",
    "q2",
    title=("어느 시대의 일일까", "Which era is it?"),
    question=(
        "아래는 모두 MCP 클라이언트와 서버가 HTTP 위에서 하는 일입니다. 각각이 2025-11-25(악수 시대)에만 있는 일인지, "
        "2026-07-28(무상태 시대)에만 있는 일인지, 두 시대 모두에 있는 일인지 고르세요.",
        "All of these are things an MCP client and server do over HTTP. For each, pick whether it happens only "
        "in 2025-11-25 (the handshake era), only in 2026-07-28 (the stateless era), or in both.",
    ),
    vocabulary=ERAS,
    items={
        "session_header": (
            (
                "서버가 응답 헤더 `Mcp-Session-Id`로 준 값을 클라이언트가 다음 요청마다 헤더에 실어 돌려보낸다",
                "The client sends back, on every later request, the value the server gave in the `Mcp-Session-Id` "
                "response header",
            ),
            "handshake",
        ),
        "initialized": (
            (
                "클라이언트가 `initialize`의 결과를 받은 뒤 `notifications/initialized`를 보낸다",
                "After the `initialize` result, the client sends `notifications/initialized`",
            ),
            "handshake",
        ),
        "get_stream": (
            (
                "클라이언트가 같은 주소에 GET을 보내 SSE 스트림을 열어 두고, 묻지 않은 서버 알림을 거기서 받는다",
                "The client sends a GET to the same URL, keeps the SSE stream open and receives unasked server "
                "notifications on it",
            ),
            "handshake",
        ),
        "server_asks": (
            (
                "도구가 실행되는 도중에 서버가 클라이언트에게 `elicitation/create` 요청을 보내고 답을 기다린다",
                "While a tool runs, the server sends the client an `elicitation/create` request and waits for the "
                "answer",
            ),
            "handshake",
        ),
        "discover": (
            (
                "클라이언트가 `server/discover`로 서버가 지원하는 버전과 기능을 묻는다",
                "The client asks, with `server/discover`, which versions and capabilities the server supports",
            ),
            "stateless",
        ),
        "meta": (
            (
                "요청마다 `params._meta`에 프로토콜 버전과 클라이언트의 기능(capabilities)을 싣는다",
                "Every request carries the protocol version and the client's capabilities in `params._meta`",
            ),
            "stateless",
        ),
        "listen": (
            (
                "도구 목록이 바뀌면 알림을 받으려고 `subscriptions/listen` 요청을 보내 그 응답 스트림을 열어 둔다",
                "To hear when the tool list changes, the client sends a `subscriptions/listen` request and keeps "
                "its response stream open",
            ),
            "stateless",
        ),
        "input_responses": (
            (
                "도구가 물은 것의 답을 `inputResponses`에 담아 같은 `tools/call`을 다시 보낸다",
                "The client sends the same `tools/call` again, with the answers to the tool's questions in "
                "`inputResponses`",
            ),
            "stateless",
        ),
        "version_header": (
            (
                "HTTP 요청의 `MCP-Protocol-Version` 헤더에 쓰기로 한 프로토콜 버전을 적는다",
                "The protocol version in use is written in the `MCP-Protocol-Version` header of HTTP requests",
            ),
            "both",
        ),
        "unknown_tool": (
            (
                "없는 도구 이름으로 `tools/call`을 받은 서버가 JSON-RPC 오류 `-32602`로 답한다",
                "A server that gets `tools/call` with an unknown tool name answers with JSON-RPC error `-32602`",
            ),
            "both",
        ),
    },
    feedback={
        ("version_header", "stateless"): (
            "'version_header': 2026-07-28 요청에는 이 헤더가 꼭 있어야 하는 것이 맞습니다. 그런데 이 장의 악수 시대 "
            "클라이언트는 initialize 다음의 요청들에 어떤 헤더를 붙였나요?",
            "'version_header': a 2026-07-28 request must have this header, true. But which headers did this "
            "chapter's handshake-era client put on its requests after initialize?",
        ),
        ("version_header", "handshake"): (
            "'version_header': 악수 시대에도 쓰는 것은 맞습니다. 그렇다면 2026-07-28 요청을 이 헤더 없이 보냈을 때 "
            "서버는 그 요청을 어느 시대의 것으로 읽었나요?",
            "'version_header': the handshake era uses it, true. Then how did the server read a 2026-07-28 "
            "request sent without this header?",
        ),
        ("server_asks", "stateless"): (
            "'server_asks': 2026-07-28에서는 서버가 클라이언트에게 요청을 보낼 수 없습니다. 이 장에서 2026-07-28로 "
            "부른 도구가 사용자에게 물어야 했을 때 서버는 무엇을 돌려주었나요?",
            "'server_asks': in 2026-07-28 a server may not send requests to the client. When a tool called in "
            "2026-07-28 had to ask the user in this chapter, what did the server return?",
        ),
        ("server_asks", "both"): (
            "'server_asks': 두 시대의 질문 방식은 다릅니다. 2026-07-28로 부른 도구가 물어야 했을 때 응답에 무엇이 "
            "들어 있었는지 다시 보세요.",
            "'server_asks': the eras ask differently. Look again at what the answer held when a tool called in "
            "2026-07-28 had to ask.",
        ),
        ("get_stream", "stateless"): (
            "'get_stream': 2026-07-28 헤더를 단 GET에 서버가 어떤 HTTP 상태로 답했는지 떠올려 보세요.",
            "'get_stream': remember which HTTP status the server gave a GET with the 2026-07-28 header.",
        ),
        ("get_stream", "both"): (
            "'get_stream': 2026-07-28 헤더를 단 GET에 서버가 어떤 HTTP 상태로 답했는지 떠올려 보세요.",
            "'get_stream': remember which HTTP status the server gave a GET with the 2026-07-28 header.",
        ),
        ("listen", "handshake"): (
            "'listen': 악수 시대의 알림은 세션에 딸린 스트림으로 왔습니다. 세션이 없는 쪽은 알림을 어떻게 받을까요?",
            "'listen': in the handshake era, notifications came on a stream tied to the session. How does the "
            "side without sessions receive them?",
        ),
        ("listen", "both"): (
            "'listen': 악수 시대의 알림은 세션에 딸린 스트림으로 왔습니다. `subscriptions/listen`이 필요한 쪽은 "
            "어디일까요?",
            "'listen': in the handshake era, notifications came on a stream tied to the session. Which side needs "
            "`subscriptions/listen`?",
        ),
        ("meta", "both"): (
            "'meta': 악수 시대에는 버전과 기능을 언제 밝혔나요? 연결을 맺을 때 한 번으로 충분했던 이유를 생각해 보세요.",
            "'meta': when did the handshake era state the version and capabilities? Think about why once, when "
            "connecting, was enough.",
        ),
        ("session_header", "both"): (
            "'session_header': 2026-07-28 요청들을 다시 보세요. 세션 ID를 받을 곳이 있었나요?",
            "'session_header': look at the 2026-07-28 requests again. Was there anywhere a session id came from?",
        ),
        ("initialized", "both"): (
            "'initialized': 2026-07-28 헤더를 단 `initialize`에 서버가 뭐라고 답했는지 떠올려 보세요.",
            "'initialized': remember what the server answered to `initialize` with the 2026-07-28 header.",
        ),
        ("unknown_tool", "handshake"): (
            "'unknown_tool': 이 장에서 2026-07-28로 없는 도구를 불렀을 때의 답을 다시 보세요. 4장에서 악수 시대로 "
            "보냈을 때와 무엇이 달랐나요?",
            "'unknown_tool': look again at the answer when this chapter called an unknown tool in 2026-07-28. "
            "What differed from chapter 04, where it went over the handshake era?",
        ),
        ("unknown_tool", "stateless"): (
            "'unknown_tool': 4장에서 악수 시대로 없는 도구를 불렀을 때의 답을 떠올려 보세요.",
            "'unknown_tool': remember the answer in chapter 04, where an unknown tool was called over the "
            "handshake era.",
        ),
        ("input_responses", "handshake"): (
            "'input_responses': 악수 시대에는 서버의 질문이 응답 스트림 위의 요청으로 왔고, 클라이언트는 그 요청에 "
            "답만 POST했습니다. 같은 `tools/call`을 다시 보냈나요?",
            "'input_responses': in the handshake era the server's question came as a request on the response "
            "stream, and the client only POSTed the answer to it. Did it send the same `tools/call` again?",
        ),
        ("discover", "handshake"): (
            "'discover': 악수 시대에는 버전과 기능을 어느 메서드로 주고받았나요? 그 메서드가 있는 쪽이라면 따로 물을 "
            "필요가 있을까요?",
            "'discover': which method exchanged versions and capabilities in the handshake era? Where that "
            "method exists, is there a need to ask separately?",
        ),
    },
    hints=[
        (
            "각 항목이 '연결을 맺고 그 연결을 기억하는' 방식인지, '요청마다 스스로를 설명하는' 방식인지 보세요. 어느 "
            "방식이든 똑같이 하는 일도 있습니다.",
            "Ask whether each item belongs to 'connect once and remember the connection' or to 'every request "
            "describes itself'. Some things are done the same way either way.",
        ),
        (
            "서버가 먼저 말을 거는 장면(묻지 않은 알림, 도구 도중의 질문)이 어느 길로 오는지 두 시대를 나란히 놓고 보세요.",
            "Put the eras side by side for the moments the server speaks first (unasked notifications, questions "
            "in the middle of a tool): which path does each take?",
        ),
        (
            "헷갈리면 직접 보내 보세요. 2026-07-28 헤더를 단 요청에 서버가 405, 404(-32601), 400(-32020)으로 답하는 "
            "것들이 단서입니다.",
            "If unsure, send it yourself. What the server answers with 405, 404 (-32601) or 400 (-32020) to a "
            "request with the 2026-07-28 header is a clue.",
        ),
    ],
    explanation=(
        "악수 시대는 initialize → 결과 → notifications/initialized로 연결을 맺고, `Mcp-Session-Id`로 그 연결을 "
        "기억하며, 서버의 알림과 질문은 GET 스트림이나 호출의 응답 스트림으로 옵니다. 2026-07-28은 악수가 없어서 "
        "요청마다 `_meta`로 버전과 기능을 밝히고, 궁금한 것은 `server/discover`로 묻고, 알림은 "
        "`subscriptions/listen`의 응답으로, 질문은 `input_required` 결과로 돌려받아 `inputResponses`와 함께 다시 "
        "보냅니다. `MCP-Protocol-Version` 헤더와 없는 도구의 `-32602`는 두 시대가 같습니다.",
        "The handshake era connects with initialize → result → notifications/initialized, remembers the "
        "connection with `Mcp-Session-Id`, and server notifications and questions arrive on the GET stream or "
        "the call's response stream. 2026-07-28 has no handshake: every request states version and "
        "capabilities in `_meta`, `server/discover` answers questions about the server, notifications come on "
        "a `subscriptions/listen` response, and questions come back as an `input_required` result that the "
        "client answers by calling again with `inputResponses`. The `MCP-Protocol-Version` header and `-32602` "
        "for an unknown tool are the same in both.",
    ),
)


# -- q3: a tool needs the user, on a stateless server -------------------------------------------------

q3 = MultipleChoice(
    "08",
    "q3",
    title=("무상태 서버의 도구가 사용자에게 물을 때", "When a tool on a stateless server must ask the user"),
    question=(
        "`reserve_table` 도구가 실행 도중에 인원을 사용자에게 물어야 합니다. 클라이언트는 2026-07-28로 이 도구를 "
        "불렀습니다. 서버는 어떻게 해야 할까요?",
        "The `reserve_table` tool must ask the user, in the middle of its work, how many people are coming. The "
        "client called it over 2026-07-28. What should the server do?",
    ),
    options={
        "A": (
            "도구가 실행되는 동안 클라이언트에게 `elicitation/create` 요청을 보내고, 답이 올 때까지 호출을 붙잡아 둡니다.",
            "While the tool runs, send the client an `elicitation/create` request and hold the call until the "
            "answer arrives.",
        ),
        "B": (
            '호출을 `resultType: "input_required"`로 끝내며 질문(`inputRequests`)과 봉인한 `requestState`를 '
            "돌려줍니다. 클라이언트는 사용자에게 물은 뒤 답(`inputResponses`)과 받은 `requestState`를 담아 같은 "
            "`tools/call`을 다시 보냅니다.",
            'End the call with `resultType: "input_required"`, returning the questions (`inputRequests`) and a '
            "sealed `requestState`. The client asks the user, then sends the same `tools/call` again with the "
            "answers (`inputResponses`) and the `requestState` it got.",
        ),
        "C": (
            '`isError: true`와 "인원을 알려 주세요"라는 글을 돌려주고, 모델이 사용자에게 물어 인자를 더해 다시 부르게 '
            "합니다.",
            'Return `isError: true` with the text "Tell me how many people", so the model asks the user and calls '
            "again with an extra argument.",
        ),
        "D": (
            "`Mcp-Session-Id`로 세션을 열어 두고, 클라이언트가 GET 스트림에서 질문을 받아 가게 합니다.",
            "Open a session with `Mcp-Session-Id` and let the client pick up the question on a GET stream.",
        ),
    },
    answer="B",
    wrong={
        "A": (
            "악수 시대라면 그렇게 합니다. 2026-07-28에서는 서버가 클라이언트에게 요청을 보낼 수 없습니다. 서버 여러 대가 "
            "요청을 나눠 받는 환경에서, 질문을 보낸 서버와 답을 받는 서버가 같다는 보장이 없기 때문입니다.",
            "That is the handshake era's way. In 2026-07-28 a server may not send requests to the client: when "
            "many servers share the requests, nothing guarantees that the one asking is the one receiving the "
            "answer.",
        ),
        "C": (
            "도구가 실패한 것이 아니라 아직 끝나지 않은 것입니다. 실행 오류로 돌려주면 모델이 인원을 지어내 다시 부를 수도 "
            "있고, 사용자는 양식 대신 대화로 답해야 합니다. 프로토콜에는 이럴 때 쓰는 결과 종류가 따로 있습니다.",
            "The tool has not failed, it is unfinished. As an execution error the model may make up a number and "
            "call again, and the user answers in chat instead of a form. The protocol has a result kind for "
            "exactly this.",
        ),
        "D": (
            "2026-07-28에는 세션이 없고, 그 헤더를 단 GET에 서버는 405로 답합니다. 무상태 서버가 쓸 수 있는 길은 지금 "
            "받은 요청의 응답뿐입니다.",
            "2026-07-28 has no sessions, and a GET with that header gets 405. All a stateless server can use is "
            "the response to the request it has now.",
        ),
    },
    hints=[
        (
            "2026-07-28 서버가 클라이언트에게 무언가를 전할 수 있는 길은 어디뿐인지 생각해 보세요.",
            "Think about the only path a 2026-07-28 server has for telling the client anything.",
        ),
        (
            "이 장에서 2026-07-28로 부른 `invite`의 첫 번째 응답을 다시 보세요. `resultType`이 무엇이었고, 두 번째 "
            "요청에는 무엇이 더 실렸나요?",
            "Look again at the first answer to `invite` called over 2026-07-28 in this chapter. What was its "
            "`resultType`, and what did the second request carry in addition?",
        ),
    ],
    explanation=(
        "무상태 서버는 받은 요청에 답할 수만 있습니다. 그래서 질문이 필요한 도구는 호출을 `input_required` 결과로 "
        "끝내고, 질문(`inputRequests`)과 지금까지의 상태(`requestState`)를 클라이언트에게 맡깁니다. 클라이언트는 "
        "사용자나 모델에게 물은 뒤 답을 `inputResponses`에 담고 `requestState`를 그대로 실어 같은 `tools/call`을 다시 "
        "보냅니다(multi round-trip). 다음 요청은 다른 서버가 받아도 됩니다. 필요한 것이 모두 요청 안에 있기 때문입니다.",
        "A stateless server can only answer the requests it gets. So a tool that must ask ends the call with an "
        "`input_required` result and hands the client its questions (`inputRequests`) and its state so far "
        "(`requestState`). The client asks the user or the model, then sends the same `tools/call` again with "
        "the answers in `inputResponses` and the `requestState` echoed back (multi round-trip). Another server "
        "may take the next request: all it needs is inside it.",
    ),
)


# -- q4: why the requestState is sealed ------------------------------------------------------------------

q4 = MultipleChoice(
    "08",
    "q4",
    title=("requestState는 왜 봉인할까", "Why is requestState sealed?"),
    question=(
        "2026-07-28에서 `input_required` 결과의 `requestState`는 클라이언트가 다음 요청에 그대로 돌려보내는 글자입니다. "
        "mcp-notebook 서버는 이것을 암호화하고 위조를 알아챌 수 있게 서명해서(봉인해서) 내보냅니다. 그 안에는 지난 "
        "라운드에서 받은 답과, 사람이 이 호출을 승인했는지가 들어 있습니다. 왜 봉인해야 할까요?",
        "In 2026-07-28, the `requestState` of an `input_required` result is text the client sends back "
        "unchanged with its next request. The mcp-notebook server encrypts it and signs it so forgery shows "
        "(seals it). Inside are the answers of earlier rounds and whether a person approved this call. Why "
        "must it be sealed?",
    ),
    options={
        "A": (
            "오가는 길에서 남이 엿보지 못하게 하려고. 로컬 서버는 HTTPS 없이 HTTP로 통신하기 때문입니다.",
            "So nobody can eavesdrop on the way: a local server talks plain HTTP, without HTTPS.",
        ),
        "B": (
            "서버가 기억해야 할 것이 클라이언트의 손을 거쳐 돌아오기 때문입니다. 봉인하지 않으면 클라이언트가 지난 답이나 "
            "'승인됨' 표시를 고쳐 보내도 서버가 그대로 믿게 됩니다. 봉인된 상태를 고치면 서버가 알아채고 거절합니다.",
            "Because what the server must remember comes back through the client's hands. Unsealed, a client "
            "could edit earlier answers or the 'approved' mark and the server would believe it. A sealed state "
            "that was edited is noticed and refused.",
        ),
        "C": (
            "상태를 짧게 줄이려고. 요청마다 실어 보내야 하니 작을수록 좋습니다.",
            "To make the state shorter: it travels with every request, so smaller is better.",
        ),
        "D": (
            "클라이언트가 상태를 열어 사용자에게 지난 답을 보여 줄 수 있게 하려고.",
            "So the client can open the state and show the user the earlier answers.",
        ),
    },
    answer="B",
    wrong={
        "A": (
            "엿보기를 막는 것은 전송 계층(HTTPS)의 일입니다. 여기서 걱정할 상대는 길 위의 제3자가 아니라 상태를 손에 "
            "쥐고 있는 클라이언트 자신입니다. 클라이언트가 그 글자를 고쳐 보내면 어떻게 될까요?",
            "Stopping eavesdroppers is the transport's job (HTTPS). The party to worry about here is not a third "
            "party on the wire but the client holding the state. What if it edits the text before sending it "
            "back?",
        ),
        "C": (
            "봉인은 상태를 줄이지 않습니다. 오히려 암호문과 서명만큼 길어집니다. 길이가 아니라 누가 그 글자를 바꿀 수 "
            "있는지를 생각해 보세요.",
            "Sealing does not shrink the state; the ciphertext and signature make it longer. Think not about "
            "length but about who could change the text.",
        ),
        "D": (
            "거꾸로입니다. `requestState`는 클라이언트에게 불투명한 글자라서 열어 볼 수 없습니다. 클라이언트가 지난 답을 "
            "보여 주고 싶다면 자기가 보낸 `inputResponses`를 기억하면 됩니다.",
            "The other way round: `requestState` is opaque to the client, which cannot open it. A client that "
            "wants to show earlier answers can remember the `inputResponses` it sent.",
        ),
    },
    hints=[
        (
            "세션이 없으니 서버는 라운드 사이에 아무것도 기억하지 않습니다. 그렇다면 지난 라운드의 사실은 누구를 거쳐 "
            "서버로 돌아오나요?",
            "Without sessions the server remembers nothing between rounds. Then through whom do the facts of "
            "the last round come back to it?",
        ),
        (
            "이 장에서 `requestState`의 끝 몇 글자를 바꿔 보낸 요청에 서버가 무엇으로 답했는지 보세요. 그리고 그 안에 "
            "'사람이 승인했다'는 표시가 있다는 점을 떠올려 보세요.",
            "See what the server answered in this chapter when the last characters of `requestState` were "
            "changed. And remember there is an 'a person approved' mark inside.",
        ),
    ],
    explanation=(
        "무상태 서버는 라운드 사이의 상태를 클라이언트에게 맡깁니다. 명세는 돌아온 `requestState`를 공격자가 만든 "
        "값처럼 다루라고 합니다. 봉인하지 않으면 클라이언트가 지난 답을 바꾸거나 '승인됨'을 끼워 넣어 사람의 확인을 "
        "건너뛸 수 있습니다. mcp-notebook은 SDK로 상태를 암호화하고 인증 태그를 붙이며, 상태를 이 도구와 이 인자에 "
        "묶어 둡니다. 고친 상태나 다른 호출에 옮겨 붙인 상태는 `-32602`로 거절됩니다.",
        "A stateless server leaves the state between rounds with the client. The specification says to treat "
        "the returned `requestState` as attacker-controlled. Unsealed, a client could change earlier answers or "
        "slip in 'approved' to skip a person's confirmation. mcp-notebook has the SDK encrypt the state, add an "
        "authentication tag and bind it to this tool and these arguments; an edited state, or one moved to "
        "another call, is refused with `-32602`.",
    ),
)


# -- q5: a tool that asks, checked in both eras ---------------------------------------------------------

RESTAURANT = "한강식당"
PEOPLE = 4
LEDGER = "reservations"
ERA_MODES = (("legacy", "2025-11-25"), (STATELESS, STATELESS))


@dataclass
class _Round:
    """One checked call: what the user was asked, the result (or the failure), in one era."""

    asked: list[Any] = field(default_factory=list)
    result: Any = None
    failure: str | None = None


class AskingToolExercise(ToolExercise):
    """The learner writes a tool that asks the user with `Context`; the checker calls it in both eras.

    Each era gets two calls from the official SDK client through the in-kernel server, one where the
    user accepts and one where they decline; the notebook's `LEDGER` list shows what the tool changed.
    The checker connects as the notebook itself, so no approval is asked.
    """

    def _definition_problems(self, definition: dict[str, Any]) -> list[str]:
        problems = super()._definition_problems(definition)
        entry = served_catalogue().get(definition["name"])
        self._asks = entry is not None and entry.context is not None
        if not self._asks:
            problems.append(t("lessons.ch08.ask.no_context"))
        return problems

    def _probe_problems(self, name: str) -> list[str]:
        if not getattr(self, "_asks", False):
            return []
        ledger = user_namespace().get(LEDGER)
        if not isinstance(ledger, list):
            return [t("lessons.ch08.ask.no_ledger", ledger=LEDGER)]
        problems: list[str] = []
        self._form_wrong = False
        for mode, era in ERA_MODES:
            found = self._era_problems(name, mode, ledger)
            problems += [t("lessons.ch08.ask.era", era=era, problem=p) for p in found]
            if self._form_wrong:
                break  # the form itself is wrong: the other era would only say so again
        return problems

    def _era_problems(self, name: str, mode: str, ledger: list[Any]) -> list[str]:
        before = len(ledger)
        accepted = self._call(name, mode, "accept")
        if accepted.failure is not None:
            return [accepted.failure]
        problems: list[str] = []
        if not accepted.asked:
            problems.append(t("lessons.ch08.ask.not_asked"))
        elif len(accepted.asked) > 1:
            problems.append(t("lessons.ch08.ask.asked_more", count=len(accepted.asked)))
        else:
            schema = accepted.asked[0] if isinstance(accepted.asked[0], dict) else {}
            field_schema = schema.get("properties", {}).get("people", {})
            if field_schema.get("type") != "integer":
                self._form_wrong = True
                shown = clip(json.dumps(schema, ensure_ascii=False), 200)
                return [t("lessons.ch08.ask.schema", schema=shown)]
        shown_call = f"{name} {json.dumps({'restaurant': RESTAURANT}, ensure_ascii=False)}"
        if accepted.result.is_error:
            text = " ".join(getattr(block, "text", "") for block in accepted.result.content)
            problems.append(t("lessons.tool.call_error", call=shown_call, text=clip(text, 200)))
        made = ledger[before:]
        expected = {"restaurant": RESTAURANT, "people": PEOPLE}
        if not made:
            text = " ".join(getattr(block, "text", "") for block in accepted.result.content)
            problems.append(
                t("lessons.ch08.ask.none_made", people=PEOPLE, ledger=LEDGER, got=clip(text, 200))
            )
        elif len(made) > 1:
            key = "made_twice" if mode == STATELESS else "made_many"
            problems.append(t(f"lessons.ch08.ask.{key}", ledger=LEDGER, count=len(made), made=_shown(made)))
        elif made[0] != expected:
            problems.append(
                t(
                    "lessons.ch08.ask.wrong_entry",
                    ledger=LEDGER,
                    got=_shown(made[0]),
                    expected=_shown(expected),
                )
            )
        before = len(ledger)
        declined = self._call(name, mode, "decline")
        if declined.failure is not None:
            return [*problems, declined.failure]
        if len(ledger) > before:
            problems.append(t("lessons.ch08.ask.declined_made", ledger=LEDGER, made=_shown(ledger[before:])))
        return problems

    def _call(self, name: str, mode: str, action: str) -> _Round:
        import mcp_notebook

        server = mcp_notebook.current_server()
        assert server is not None  # ToolExercise.evaluate started one if none was running
        shown = f"{name} {json.dumps({'restaurant': RESTAURANT}, ensure_ascii=False)}"
        done = _Round()
        try:
            done.result = _blocking(
                lambda: _ask_through_sdk(server.url, name, mode, action, done.asked),
                CALL_TIMEOUT + 5,
            )
        except Exception as exc:
            error = getattr(exc, "error", None)
            if error is not None and hasattr(error, "code"):
                done.failure = t(
                    "lessons.tool.protocol_error", call=shown, error=f"[{error.code}] {error.message}"
                )
            else:
                described = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                done.failure = t("lessons.tool.unreachable", call=shown, error=described)
        return done

    def praise(self) -> list[str]:
        return [t("lessons.ch08.ask.checked"), f"{t('lessons.solution.why')}: {self.text('explanation')}"]


async def _ask_through_sdk(url: str, name: str, mode: str, action: str, asked: list[Any]) -> Any:
    """Call `name` with the official SDK client in `mode`; the user (this function) accepts or declines."""
    import anyio
    import httpx2
    import mcp_types as types
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from ..runtime._loop import runtime

    async def answer(context: Any, params: Any) -> Any:
        asked.append(getattr(params, "requested_schema", None))
        if action == "accept":
            return types.ElicitResult(action="accept", content={"people": PEOPLE})
        return types.ElicitResult(action="decline")

    # The notebook's own credential: the checker is the notebook, so no approval is asked.
    headers = {"Authorization": f"Bearer {runtime.local_secret}"}
    with anyio.fail_after(CALL_TIMEOUT):
        async with (
            httpx2.AsyncClient(headers=headers, timeout=CALL_TIMEOUT) as http,
            Client(
                streamable_http_client(url, http_client=http),
                mode=mode,
                elicitation_callback=answer,
                client_info=types.Implementation(name="lesson-checker", version="1.0"),
            ) as client,
        ):
            return await client.call_tool(name, {"restaurant": RESTAURANT})


def _shown(value: Any) -> str:
    return clip(json.dumps(value, ensure_ascii=False), 200)


q5 = AskingToolExercise(
    "08",
    "q5",
    tool="reserve_table",
    title=("묻고 나서 바꾸는 도구", "A tool that asks, then changes things"),
    question=(
        "식당 자리를 예약하는 도구 `reserve_table`을 만드세요. 인원은 인자로 받지 않고 사용자에게 직접 묻습니다.\n"
        "- 인자는 `restaurant`(식당 이름, 문자열, 필수) 하나입니다. 그리고 `Context` 매개변수를 받습니다.\n"
        '- `ctx.elicit(...)`으로 인원을 묻습니다. 양식에는 정수 필드 `people`이 있어야 합니다(`{"people": int}`).\n'
        f'- 사용자가 수락하면 노트북의 `{LEDGER}` 리스트에 `{{"restaurant": 식당, "people": 인원}}`을 **하나** 더하고, '
        "예약했다는 글을 돌려줍니다.\n"
        f"- 사용자가 거절하거나 취소하면 `{LEDGER}`를 건드리지 않고, 예약하지 않았다는 글을 돌려줍니다.\n"
        "- 모델이 언제 쓸지 알 수 있도록 20자 이상의 설명을 씁니다.\n"
        "채점기는 공식 SDK 클라이언트로 커널 안의 서버를 거쳐 이 도구를 2025-11-25와 2026-07-28에서 각각 부르고, "
        f"한 번은 {PEOPLE}명이라고 답하고 한 번은 거절합니다. 두 시대 모두에서 예약이 정확히 한 번만 생겨야 합니다.",
        "Write a tool `reserve_table` that books a table at a restaurant. It does not take the number of "
        "people as an argument: it asks the user.\n"
        "- Its one argument is `restaurant` (the restaurant's name, a string, required), and it takes a "
        "`Context` parameter.\n"
        '- It asks with `ctx.elicit(...)`, in a form with an integer field `people` (`{"people": int}`).\n'
        f'- If the user accepts, it adds **one** `{{"restaurant": name, "people": count}}` to the notebook\'s '
        f"`{LEDGER}` list and returns text saying it booked.\n"
        f"- If the user declines or cancels, it leaves `{LEDGER}` alone and returns text saying it did not book.\n"
        "- A description of at least 20 characters tells a model when to use it.\n"
        "The checker calls it through the in-kernel server with the official SDK client, over 2025-11-25 and "
        f"over 2026-07-28, once answering {PEOPLE} people and once declining. In both eras exactly one "
        "reservation must appear.",
    ),
    params=[Param("restaurant", "string")],
    probes=[],
    hints=[
        (
            "이 장의 `invite`를 다시 보세요. Context를 받는 매개변수는 입력 스키마에 나타나지 않고, 서버가 호출마다 "
            "채워 넣습니다.",
            "Look at this chapter's `invite` again. The Context parameter does not show in the input schema; "
            "the server fills it in for each call.",
        ),
        (
            '`ctx.elicit(메시지, {"people": int})`가 돌려주는 답은 `.accepted`와 `.get("people")`로 읽습니다. 거절과 '
            "취소도 답입니다.",
            'Read the answer of `ctx.elicit(message, {"people": int})` with `.accepted` and `.get("people")`. '
            "Declining and cancelling are answers too.",
        ),
        (
            f"2026-07-28에서 도구는 답을 받을 때마다 처음부터 다시 실행됩니다. 질문보다 앞에 둔 코드는 몇 번 실행될까요? "
            f"`{LEDGER}.append(...)`는 어디에 있어야 할까요?",
            f"In 2026-07-28 the tool runs again from the top each time answers arrive. How many times does code "
            f"above the question run? Where must `{LEDGER}.append(...)` go?",
        ),
    ],
    solution=(
        "from typing import Annotated\n"
        "from mcp_notebook import Context, tool\n\n"
        "@tool\n"
        'def reserve_table(restaurant: Annotated[str, "예약할 식당 이름"], ctx: Context) -> str:\n'
        '    """사용자가 식당 자리를 예약해 달라고 할 때 사용하세요. 인원은 사용자에게 직접 묻습니다."""\n'
        '    answer = ctx.elicit(f"{restaurant}에 몇 명이 가나요?", {"people": int})\n'
        "    if not answer.accepted:  # 거절이나 취소: 아무것도 바꾸지 않습니다\n"
        '        return f"{restaurant}에 예약하지 않았습니다({answer.action})."\n'
        '    people = answer.get("people")\n'
        f'    {LEDGER}.append({{"restaurant": restaurant, "people": people}})  # 바꾸는 일은 질문 뒤에\n'
        '    return f"{restaurant}에 {people}명 자리를 예약했습니다."',
        "from typing import Annotated\n"
        "from mcp_notebook import Context, tool\n\n"
        "@tool\n"
        'def reserve_table(restaurant: Annotated[str, "The restaurant to book"], ctx: Context) -> str:\n'
        '    """Use when the user asks to book a table at a restaurant. Asks the user how many people."""\n'
        '    answer = ctx.elicit(f"How many people for {restaurant}?", {"people": int})\n'
        "    if not answer.accepted:  # declined or cancelled: change nothing\n"
        '        return f"Did not book {restaurant} ({answer.action})."\n'
        '    people = answer.get("people")\n'
        f'    {LEDGER}.append({{"restaurant": restaurant, "people": people}})  # changes come after the question\n'
        '    return f"Booked a table for {people} at {restaurant}."',
    ),
    explanation=(
        "`Context`를 받는 도구는 두 시대에서 같은 코드로 묻습니다. 2025-11-25에서는 서버가 호출 도중에 "
        "`elicitation/create`를 보내고 도구가 답을 기다리며, 2026-07-28에서는 호출이 `input_required`로 끝났다가 "
        "답을 실은 다음 요청에서 도구가 처음부터 다시 실행되고 `ctx.elicit`이 이번에는 답을 돌려줍니다. 그래서 "
        "예약처럼 무언가를 바꾸는 일은 모든 질문 뒤에 두어야 한 번만 일어납니다. 거절과 취소도 정상적인 답이니 "
        "`.accepted`를 확인하고 아무것도 바꾸지 않습니다.",
        "A tool taking `Context` asks with the same code in both eras. Over 2025-11-25 the server sends "
        "`elicitation/create` during the call and the tool waits; over 2026-07-28 the call ends with "
        "`input_required`, and on the next request, which carries the answer, the tool runs again from the top "
        "and `ctx.elicit` returns the answer this time. So whatever changes things, like a booking, goes after "
        "every question, and happens once. Declining and cancelling are proper answers: check `.accepted` and "
        "change nothing.",
    ),
)
