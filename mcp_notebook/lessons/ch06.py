"""Exercises of chapter 06 (사람이 고리 안에): which calls wait for a person, what a client does with
annotations it cannot verify, which gate stops a request, reading the audit log, and a tool the
learner marks so that it always asks, checked through the real server as an outside client.

>>> from mcp_notebook.lessons.ch06 import q1, q2, q3, q4, q5
"""

from __future__ import annotations

import json
from typing import Any

from ..core._text import t
from ._answers import Category, Classification, MultipleChoice, Vocabulary
from ._texts import Text
from ._toolcheck import CALL_TIMEOUT, Param, Probe, ToolExercise, served_catalogue

__all__ = ["q1", "q2", "q3", "q4", "q5"]

# -- q1: who is asked ------------------------------------------------------------------------------

ASKED = Vocabulary(
    "ch06_asked",
    [
        Category(
            "ask",
            ("승인을 기다린다", "waits for approval"),
            (
                "승인을 기다린다는 것은 사람이 승인이나 거절을 누르기 전에는(또는 시간이 다 될 때까지) 함수가 실행되지 "
                "않는다는 뜻입니다.",
                "Waiting for approval means the function does not run until a person approves or denies (or time "
                "runs out).",
            ),
            (
                "asks",
                "asked",
                "approval",
                "wait",
                "waits",
                "승인",
                "승인 필요",
                "묻는다",
                "물음",
                "기다림",
                "기다린다",
            ),
        ),
        Category(
            "run",
            ("바로 실행된다", "runs at once"),
            (
                "바로 실행된다는 것은 누구에게도 묻지 않고 함수가 곧장 실행된다는 뜻입니다.",
                "Running at once means the function runs straight away, without asking anyone.",
            ),
            ("runs", "run at once", "바로", "실행", "바로 실행", "실행된다", "묻지 않음", "not-needed"),
        ),
    ],
)

q1 = Classification(
    "06",
    "q1",
    title=("누구의 어떤 호출을 묻나", "Which calls wait for a person?"),
    question=(
        '메모 앱 서버가 켜져 있습니다. 상황마다 그 호출이 사람의 승인을 기다리는지(`"ask"`), 묻지 않고 바로 '
        '실행되는지(`"run"`) 고르세요. 따로 적지 않았다면 서버는 기본값 `serve(approval="ask")`로 켜져 있고, '
        "'바깥 앱'은 토큰을 가지고 HTTP로 붙은 AI 앱(예: Claude Code)입니다.",
        "A notes server is running. For each situation, pick whether the call waits for a person's approval "
        '(`"ask"`) or runs at once without asking (`"run"`). Unless stated otherwise the server runs with the '
        'default `serve(approval="ask")`, and "an outside app" is an AI app connected over HTTP with the token '
        "(e.g. Claude Code).",
    ),
    vocabulary=ASKED,
    items={
        "plain_tool": (
            (
                "바깥 앱이 옵션 없이 `@tool`만 붙인 `add_note`를 부른다",
                "An outside app calls `add_note`, defined with a bare `@tool`",
            ),
            "ask",
        ),
        "read_only": (
            (
                "바깥 앱이 `@tool(read_only=True)`인 `list_notes`를 부른다",
                "An outside app calls `list_notes`, defined with `@tool(read_only=True)`",
            ),
            "run",
        ),
        "notebook_call": (
            (
                "노트북에서 `%mcp_call delete_note title=회의`로 `@tool(destructive=True)`인 도구를 부른다",
                "The notebook runs `%mcp_call delete_note title=meeting` on a `@tool(destructive=True)` tool",
            ),
            "run",
        ),
        "read_only_always": (
            (
                '바깥 앱이 `@tool(read_only=True, approval="always")`인 `read_contacts`를 부른다',
                'An outside app calls `read_contacts`, defined with `@tool(read_only=True, approval="always")`',
            ),
            "ask",
        ),
        "never": (
            (
                '바깥 앱이 `@tool(approval="never")`인 `save_draft`를 부른다',
                'An outside app calls `save_draft`, defined with `@tool(approval="never")`',
            ),
            "run",
        ),
        "allowed_before": (
            (
                "조금 전 `add_note`의 승인 창에서 누군가 '이 도구는 항상 허용'을 눌렀다. 같은 서버에 바깥 앱이 "
                "`add_note`를 다시 부른다",
                "A moment ago someone clicked 'Always allow this tool' on an approval prompt for `add_note`. An "
                "outside app calls `add_note` again on the same server",
            ),
            "run",
        ),
        "always_mode": (
            (
                '서버를 `serve(approval="always")`로 켰고, 바깥 앱이 `@tool(read_only=True)`인 `list_notes`를 부른다',
                'The server runs with `serve(approval="always")`, and an outside app calls `list_notes`, defined '
                "with `@tool(read_only=True)`",
            ),
            "ask",
        ),
        "auto_mode_override": (
            (
                '서버를 `serve(approval="auto")`로 켰고, 바깥 앱이 `@tool(destructive=True, approval="always")`인 '
                "`delete_note`를 부른다",
                'The server runs with `serve(approval="auto")`, and an outside app calls `delete_note`, defined '
                'with `@tool(destructive=True, approval="always")`',
            ),
            "ask",
        ),
    },
    feedback={
        ("plain_tool", "run"): (
            "'plain_tool': 파괴적이라는 표시가 없으니 괜찮다고 보셨나요? 기본 정책이 묻지 않고 넘어가는 것은 어떤 "
            "표시를 단 도구뿐인지 떠올려 보세요. 아무 표시가 없을 때 명세의 기본값은 그 도구를 어떻게 보나요?",
            "'plain_tool': no destructive mark, so it is fine? Recall which mark the default policy needs before it "
            "lets a call through without asking. With no marks at all, how do the specification's defaults see "
            "the tool?",
        ),
        ("notebook_call", "ask"): (
            "'notebook_call': 이 호출을 정한 것은 누구인가요? 노트북에서 직접 부른 호출을 다시 그 사람에게 물을 "
            "필요가 있을지 생각해 보세요.",
            "'notebook_call': who decided on this call? Think about whether a call made from the notebook itself "
            "needs to be put to that same person again.",
        ),
        ("read_only_always", "run"): (
            "'read_only_always': 읽기 전용 표시만 보면 그렇습니다. 그런데 이 도구에는 도구 자신의 승인 설정이 "
            "있습니다. 그 설정은 서버 모드나 annotations보다 앞설까요, 뒤설까요?",
            "'read_only_always': judging by the read-only mark alone, yes. But this tool has its own approval "
            "setting. Does it come before or after the server mode and the annotations?",
        ),
        ("never", "ask"): (
            "'never': 읽기 전용 표시가 없으니 물을 것 같지만, 이 도구에는 도구 자신의 승인 설정이 있습니다. 그 "
            "값이 무엇을 뜻하는지 보세요.",
            "'never': with no read-only mark it looks like a call that asks, but this tool has its own approval "
            "setting. Look at what its value means.",
        ),
        ("allowed_before", "ask"): (
            "'allowed_before': '항상 허용' 버튼은 그 한 번의 호출만 허락하는 버튼이 아닙니다. 서버가 켜져 있는 "
            "동안 무엇을 기억할까요?",
            "'allowed_before': 'Always allow' does not approve just that one call. What does the server remember "
            "while it runs?",
        ),
        ("always_mode", "run"): (
            "'always_mode': 기본 정책에서라면 맞는 답입니다. 하지만 이 서버는 다른 모드로 켜졌습니다. 그 모드는 "
            "읽기 전용 도구를 어떻게 다루나요?",
            "'always_mode': under the default policy, yes. But this server runs in another mode. How does that "
            "mode treat read-only tools?",
        ),
        ("auto_mode_override", "run"): (
            "'auto_mode_override': auto는 서버 전체의 기본값일 뿐입니다. 도구 하나에 직접 적은 설정과 부딪치면 "
            "어느 쪽이 이길까요? 린터가 파괴적인 도구에 무엇을 권했는지도 떠올려 보세요.",
            "'auto_mode_override': auto is only the server-wide default. When it meets a setting written on one "
            "tool, which one wins? Also recall what the linter advises for destructive tools.",
        ),
    },
    hints=[
        (
            "세 가지를 차례로 보세요. 누가 불렀나(노트북인가 바깥 앱인가), 도구에 직접 적은 `approval`이 있나, 없다면 "
            "서버 모드와 annotations는 무엇인가.",
            "Look at three things in turn: who called (the notebook or an outside app), whether the tool has "
            "its own `approval`, and if not, what the server mode and the annotations are.",
        ),
        (
            "기본 모드는 '읽기 전용이라고 밝힌 도구'만 묻지 않고 넘깁니다. 밝히지 않은 도구는 명세의 기본값대로 "
            "무언가를 바꾸거나 지울 수 있는 도구로 봅니다.",
            "The default mode lets through without asking only tools that declare themselves read-only. A tool "
            "that declares nothing is, by the specification's defaults, one that may change or delete things.",
        ),
        (
            "이 장에서 모드를 바꿔 가며 같은 도구들을 바깥에서 불러 본 실험을 다시 보세요. 모드마다 무엇이 달라졌고, "
            "무엇은 그대로였나요?",
            "Look again at this chapter's experiment that called the same tools from outside under each mode. "
            "What changed from mode to mode, and what stayed the same?",
        ),
    ],
    explanation=(
        "노트북 자신의 호출은 사람이 직접 정한 일이라 묻지 않고, '항상 허용'을 누른 도구도 서버가 켜져 있는 동안은 "
        '다시 묻지 않습니다. 그다음으로 도구에 직접 적은 `approval="always"`나 `"never"`가 서버 모드보다 '
        "앞섭니다. 그것이 없을 때만 서버 모드를 따릅니다. `ask`는 `readOnlyHint: true`가 아닌 도구를 모두 묻고, "
        "`always`는 모든 도구를, `auto`는 아무것도 묻지 않습니다. 아무 표시 없는 `add_note`는 읽기 전용이라고 "
        "밝히지 않았으니 묻습니다.",
        "The notebook's own calls are decided by the person and are not asked about, and a tool someone chose "
        'to always allow is not asked about again while the server runs. Next, a tool\'s own `approval="always"` '
        'or `"never"` comes before the server mode. Only without it does the mode decide: `ask` asks for every '
        "tool that is not `readOnlyHint: true`, `always` for every tool, `auto` for none. `add_note` with no "
        "marks never declared itself read-only, so it is asked about.",
    ),
)

# -- q2: annotations are claims ----------------------------------------------------------------------

q2 = MultipleChoice(
    "06",
    "q2",
    title=("처음 보는 서버의 annotations", "Annotations from a server you do not know"),
    question=(
        "MCP 호스트 앱을 만들고 있습니다. 사용자가 처음 보는 서버를 붙였는데, 그 서버의 `cleanup_disk` 도구가 "
        "`readOnlyHint: true`, `destructiveHint: false`라고 밝힙니다. 호스트(클라이언트)는 이 annotations를 어떻게 "
        "다뤄야 할까요?",
        "You are building an MCP host. A user connects a server you have never seen, and its `cleanup_disk` "
        "tool says `readOnlyHint: true`, `destructiveHint: false`. How should the host (the client) treat these "
        "annotations?",
    ),
    options={
        "A": (
            "서버가 읽기 전용이라고 밝혔으니 확인 없이 실행해도 됩니다. 거짓말을 했다면 책임은 서버에 있습니다.",
            "The server says it is read-only, so run it without confirming. If it lied, that is the server's fault.",
        ),
        "B": (
            "검증되지 않은 힌트로 다룹니다. 아이콘이나 정렬처럼 안전과 상관없는 곳에는 써도 되지만, 확인을 건너뛰는 "
            "근거로 삼지 않고 사람에게 도구와 인자를 보여 준 뒤 승인을 받습니다. 사용자가 믿는 서버라고 정한 경우에만 "
            "힌트로 확인을 줄일 수 있습니다.",
            "As unverified hints. They may drive things that do not matter for safety, like icons or ordering, but "
            "they are no reason to skip confirmation: show the person the tool and its arguments and get their "
            "approval. Only for a server the user has chosen to trust may hints reduce confirmations.",
        ),
        "C": (
            "annotations를 붙인 도구는 수상하니 아예 부르지 않습니다.",
            "Tools that carry annotations are suspicious; never call them.",
        ),
        "D": (
            "`tools/list`를 한 번 더 불러 같은 값이 오면 믿습니다.",
            "Call `tools/list` once more and trust the values if they come back the same.",
        ),
    },
    answer="B",
    wrong={
        "A": (
            "책임을 따져도 지워진 파일은 돌아오지 않습니다. 명세는 믿을 수 있는 서버가 보낸 것이 아니라면 "
            "annotations를 어떻게 여기라고 하나요?",
            "Blame does not bring deleted files back. Unless they come from a trusted server, how does the "
            "specification say annotations must be regarded?",
        ),
        "C": (
            "annotations 자체는 잘못이 아니고, 대부분 정직하게 붙습니다. 문제는 그 말이 맞는지 확인할 길이 없다는 "
            "점입니다. 부르지 않는 대신 무엇을 하면 될까요?",
            "Annotations are not wrong in themselves, and most are honest. The trouble is that nothing can check "
            "them. Instead of never calling, what could the host do?",
        ),
        "D": (
            "같은 서버가 같은 말을 두 번 해도 증거가 되지 않습니다. 서버의 주장을 그 서버에게 다시 묻는 것은 검증이 "
            "아닙니다.",
            "The same server saying the same thing twice is no evidence. Asking a server again about its own "
            "claim is not verification.",
        ),
    },
    hints=[
        (
            "annotations를 적는 것은 누구이고, 그 값이 맞는지 확인해 주는 사람은 있나요?",
            "Who writes the annotations, and is there anyone who checks that they are true?",
        ),
        (
            "이 장에서 `read_only=True`라고 밝혀 놓고 메모를 비운 `tidy_notes`를 떠올려 보세요. 그 말을 믿은 쪽에 "
            "무슨 일이 있었나요?",
            "Remember `tidy_notes` in this chapter, which declared `read_only=True` and then emptied the notes. "
            "What happened to whoever believed it?",
        ),
    ],
    explanation=(
        "명세는 믿을 수 있는 서버가 보낸 것이 아니라면 클라이언트가 annotations를 신뢰할 수 없는 것으로 여기라고 "
        "합니다(MUST). annotations는 서버가 자기 도구에 대해 하는 주장일 뿐, 누구도 검증하지 않습니다. 그래서 "
        "처음 보는 서버라면 읽기 전용이라는 말도 확인을 건너뛸 이유가 되지 못하고, 사람에게 도구와 인자를 보여 준 "
        "뒤 승인을 받아야 합니다. mcp-notebook의 승인 창이 annotations를 '서버의 주장 (검증되지 않음)'이라고 적어 "
        "보여 주는 것도 그래서입니다.",
        "The specification says clients MUST consider annotations untrusted unless they come from a trusted "
        "server. Annotations are a server's claims about its own tools and nobody verifies them, so for an "
        "unknown server even 'read-only' is no reason to skip confirmation: show the person the tool and its "
        "arguments and get approval. That is why mcp-notebook's approval prompt labels annotations as the "
        "server's claims (not verified).",
    ),
)

# -- q3: which gate stops it ------------------------------------------------------------------------

GATES = Vocabulary(
    "ch06_gates",
    [
        Category(
            "token",
            ("토큰 검사 (401)", "the token check (401)"),
            (
                "토큰 검사에서 막힌다는 것은 요청에 올바른 토큰이 없어서 서버가 HTTP 401로 돌려보낸다는 뜻입니다.",
                "Stopped by the token check means the request carries no valid token, so the server sends it "
                "back with HTTP 401.",
            ),
            ("토큰", "401", "auth", "인증", "authorization", "bearer"),
        ),
        Category(
            "host",
            ("Host 검사 (421)", "the Host check (421)"),
            (
                "Host 검사에서 막힌다는 것은 요청의 Host 헤더가 이 서버의 이름(127.0.0.1, localhost)이 아니라서 HTTP "
                "421로 돌려보낸다는 뜻입니다.",
                "Stopped by the Host check means the request's Host header is not this server's name (127.0.0.1, "
                "localhost), so it is sent back with HTTP 421.",
            ),
            ("421", "호스트", "host header", "host 헤더"),
        ),
        Category(
            "origin",
            ("Origin 검사 (403)", "the Origin check (403)"),
            (
                "Origin 검사에서 막힌다는 것은 브라우저가 붙인 Origin 헤더가 낯선 사이트라서 HTTP 403으로 돌려보낸다는 "
                "뜻입니다.",
                "Stopped by the Origin check means the Origin header a browser added names a foreign site, so the "
                "request is sent back with HTTP 403.",
            ),
            ("403", "오리진", "origin header", "origin 헤더"),
        ),
        Category(
            "rate_limit",
            ("속도 제한", "the rate limit"),
            (
                "속도 제한에 걸린다는 것은 같은 도구가 너무 자주 불려서, 함수를 실행하지 않고 언제 다시 부르라는 실행 "
                "오류를 돌려준다는 뜻입니다.",
                "Stopped by the rate limit means the tool is called too often, so instead of running it the server "
                "returns an execution error saying when to call again.",
            ),
            ("rate limit", "rate", "rate limited", "속도", "속도 제한", "throttle", "throttled"),
        ),
        Category(
            "approval",
            ("사람의 승인", "a person's approval"),
            (
                "사람의 승인에서 멈춘다는 것은 요청이 다른 검사를 모두 통과했지만, 사람이 승인할 때까지 도구가 "
                "실행되지 않는다는 뜻입니다.",
                "Held for a person's approval means the request passed every other check, but the tool does not run "
                "until a person approves it.",
            ),
            ("승인", "사람", "사람의 승인", "human", "person", "ask"),
        ),
        Category(
            "none",
            ("막지 않음", "nothing stops it"),
            (
                "막지 않는다는 것은 모든 검사를 통과해 도구가 곧바로 실행된다는 뜻입니다.",
                "Nothing stopping it means the request passes every check and the tool runs at once.",
            ),
            ("nothing", "없음", "통과", "run", "runs", "실행", "바로 실행", "막지 않음"),
        ),
    ],
)

q3 = Classification(
    "06",
    "q3",
    title=("어느 문이 막을까", "Which gate stops it?"),
    question=(
        'mcp-notebook 서버가 기본값(`approval="ask"`)으로 켜져 있고, 이 장에서 만든 도구들이 있습니다. '
        '`list_notes`는 읽기 전용, `delete_note`는 `destructive=True, approval="always"`, `search_notes`는 읽기 '
        "전용에 `rate_limit=(3, 60)`입니다. 요청마다 그것을 **가장 먼저** 막아 세우는 것을 고르세요. 모든 검사를 "
        '통과해 실행된다면 `"none"`입니다.',
        'An mcp-notebook server runs with the default (`approval="ask"`) and serves this chapter\'s tools: '
        '`list_notes` is read-only, `delete_note` is `destructive=True, approval="always"`, `search_notes` is '
        "read-only with `rate_limit=(3, 60)`. For each request, pick what stops it **first**. If it passes every "
        'check and runs, answer `"none"`.',
    ),
    vocabulary=GATES,
    items={
        "curl_no_token": (
            (
                "같은 컴퓨터의 다른 프로그램이 토큰 없이 `http://127.0.0.1:PORT/mcp`에 `initialize`를 POST한다",
                "Another program on the same computer POSTs `initialize` to `http://127.0.0.1:PORT/mcp` without "
                "a token",
            ),
            "token",
        ),
        "leaked_link_page": (
            (
                "토큰이 붙은 주소(`...?token=...`)가 메신저로 새어 나갔다. 사용자가 연 낯선 웹 페이지 "
                "`https://prize.example`이 사용자의 브라우저에서 그 주소로 요청을 보낸다",
                "An address with the token in it (`...?token=...`) leaked through a messenger. A foreign web page, "
                "`https://prize.example`, opened by the user, sends a request to that address from the user's "
                "browser",
            ),
            "origin",
        ),
        "rebinding_with_token": (
            (
                "공격자가 `rebind.example`이 127.0.0.1을 가리키도록 DNS를 바꿔 두고, 새어 나간 토큰을 붙여 브라우저에서 "
                "`http://rebind.example:PORT/mcp?token=...`로 요청한다(Host도 Origin도 rebind.example)",
                "An attacker points `rebind.example` at 127.0.0.1 in DNS and, from a browser, requests "
                "`http://rebind.example:PORT/mcp?token=...` with the leaked token (Host and Origin are both "
                "rebind.example)",
            ),
            "host",
        ),
        "rebinding_without_token": (
            (
                "같은 DNS 재바인딩 공격인데, 이번에는 공격자가 토큰을 모른다",
                "The same DNS rebinding attack, but this time the attacker does not know the token",
            ),
            "token",
        ),
        "agent_loop": (
            (
                "Claude Code(토큰 정상)가 루프에 빠져 몇 초 사이에 `search_notes`를 열 번 부른다. 그중 네 번째 호출",
                "Claude Code (valid token) is stuck in a loop and calls `search_notes` ten times within a few "
                "seconds. The fourth of those calls",
            ),
            "rate_limit",
        ),
        "agent_delete": (
            (
                "Claude Code(토큰 정상)가 `delete_note`를 부른다",
                "Claude Code (valid token) calls `delete_note`",
            ),
            "approval",
        ),
        "agent_list": (
            (
                "Claude Code(토큰 정상)가 `list_notes`를 부른다",
                "Claude Code (valid token) calls `list_notes`",
            ),
            "none",
        ),
        "notebook_delete": (
            (
                "노트북에서 `%mcp_call delete_note title=회의`를 실행한다",
                "The notebook runs `%mcp_call delete_note title=meeting`",
            ),
            "none",
        ),
    },
    feedback={
        ("leaked_link_page", "token"): (
            "'leaked_link_page': 토큰은 주소에 붙어 있으니 첫 번째 문은 통과합니다. 이 요청이 낯선 웹 페이지에서 "
            "왔다는 흔적은 브라우저가 어느 헤더에 남기나요?",
            "'leaked_link_page': the token is in the address, so the first gate lets it through. In which header "
            "does the browser leave a trace that the request comes from a foreign page?",
        ),
        ("rebinding_with_token", "origin"): (
            "'rebinding_with_token': Origin도 낯선 것이 맞습니다. 그런데 서버는 두 헤더 중 무엇을 먼저 볼까요? 이 "
            "장에서 둘 다 낯선 요청을 보냈을 때 돌아온 상태 코드를 떠올려 보세요.",
            "'rebinding_with_token': the Origin is foreign too, true. But which of the two headers does the server "
            "look at first? Recall the status code that came back in this chapter when both were foreign.",
        ),
        ("rebinding_without_token", "host"): (
            "'rebinding_without_token': Host가 낯선 것도 맞지만, 그보다 앞에 있는 문이 있습니다. 서버가 맨 먼저 "
            "확인하는 것은 무엇이었나요?",
            "'rebinding_without_token': the Host is foreign, true, but there is a gate before that one. What does "
            "the server check first of all?",
        ),
        ("rebinding_without_token", "origin"): (
            "'rebinding_without_token': Origin이 낯선 것도 맞지만, 그보다 앞에 있는 문이 둘 있습니다. 서버가 맨 먼저 "
            "확인하는 것은 무엇이었나요?",
            "'rebinding_without_token': the Origin is foreign, true, but there are two gates before that one. What "
            "does the server check first of all?",
        ),
        ("agent_loop", "approval"): (
            "'agent_loop': `search_notes`는 읽기 전용이라 승인을 묻지 않습니다. 열 번이 한꺼번에 몰려올 때 네 번째를 "
            "막는 것은 무엇일까요?",
            "'agent_loop': `search_notes` is read-only, so nobody is asked. When ten calls arrive at once, what "
            "stops the fourth?",
        ),
        ("agent_delete", "none"): (
            "'agent_delete': 토큰이 맞으니 문 앞의 검사는 모두 통과합니다. 하지만 `delete_note`에는 도구 자신의 설정이 "
            "있습니다.",
            "'agent_delete': the token is valid, so the checks at the door all pass. But `delete_note` has a "
            "setting of its own.",
        ),
        ("notebook_delete", "approval"): (
            "'notebook_delete': 노트북에서 직접 부른 호출은 누가 정한 일인가요? 서버는 그 호출을 누구의 것으로 보나요?",
            "'notebook_delete': who decided on a call made from the notebook itself? Whose call does the server "
            "take it to be?",
        ),
    },
    hints=[
        (
            "서버가 요청을 받아 검사하는 순서대로 따라가 보세요. HTTP 문 앞의 검사(토큰, Host, Origin)가 먼저이고, 그 "
            "뒤에 도구 호출 안의 검사(입력 검증, 속도 제한, 승인)가 옵니다.",
            "Follow the order in which the server checks a request: the checks at the HTTP door (token, Host, "
            "Origin) come first, then the checks inside a tool call (input validation, rate limit, approval).",
        ),
        (
            "문 앞의 세 검사에도 순서가 있습니다. 이 장의 실험에서 여러 가지가 한꺼번에 틀린 요청에 어떤 상태 코드가 "
            "돌아왔는지 보세요.",
            "The three checks at the door have an order too. In this chapter's experiments, look at which status "
            "code came back for a request that was wrong in several ways at once.",
        ),
        (
            "Origin 헤더는 웹 페이지가 브라우저를 통해 보낸 요청에 붙습니다. DNS 재바인딩은 주소의 이름을 바꿔치는 "
            "공격이라 이름이 들어가는 헤더에 흔적이 남습니다.",
            "The Origin header is added to requests a web page sends through a browser. DNS rebinding swaps the "
            "name in the address, so it shows in the header that carries that name.",
        ),
    ],
    explanation=(
        "서버는 문 앞에서 토큰, Host, Origin 순서로 검사하고(401, 421, 403), 통과한 도구 호출은 입력 검증, 속도 "
        "제한, 승인 순서로 거칩니다. 토큰이 없는 요청은 어디서 왔든 401입니다. 새어 나간 토큰을 가진 웹 페이지는 "
        "Origin에서(403), 토큰을 가진 DNS 재바인딩은 Host에서(421) 막힙니다. 속도 제한이 승인보다 앞에 있어서, 폭주하는 "
        "에이전트가 사람에게 승인 창을 쏟아 내지 못합니다. 노트북 자신의 호출과 읽기 전용 도구 호출은 그대로 "
        "실행됩니다.",
        "At the door the server checks the token, then Host, then Origin (401, 421, 403); a tool call that gets "
        "in then meets input validation, the rate limit and approval, in that order. A request without the "
        "token gets 401 wherever it comes from. A web page holding a leaked token is stopped at Origin (403), DNS "
        "rebinding with the token at Host (421). The rate limit comes before approval, so a runaway agent cannot "
        "flood the person with prompts. The notebook's own calls and calls of read-only tools just run.",
    ),
)

# -- q4: reading the audit log ----------------------------------------------------------------------

AUDIT_READINGS = Vocabulary(
    "ch06_audit",
    [
        Category(
            "ran_approved",
            ("승인받고 실행됨", "approved, then ran"),
            (
                "승인받고 실행됐다는 것은 사람이 승인 창에서 허락한 뒤 도구가 끝까지 실행됐다는 뜻입니다.",
                "Approved, then ran means a person allowed it on the approval prompt and the tool ran to the end.",
            ),
            ("approved", "승인됨", "승인 후 실행", "승인받고 실행"),
        ),
        Category(
            "ran_unasked",
            ("묻지 않고 실행됨", "ran without asking"),
            (
                "묻지 않고 실행됐다는 것은 승인 창이 뜨지 않았고 도구가 곧장 실행됐다는 뜻입니다.",
                "Ran without asking means no approval prompt appeared and the tool ran at once.",
            ),
            ("unasked", "not asked", "not-needed", "바로 실행", "묻지 않음", "묻지 않고 실행"),
        ),
        Category(
            "declined",
            ("사람이 거절함", "declined by a person"),
            (
                "사람이 거절했다는 것은 누군가 거절을 눌러 도구가 실행되지 않았다는 뜻입니다.",
                "Declined by a person means someone clicked Deny, so the tool did not run.",
            ),
            ("denied", "deny", "거절", "거절됨"),
        ),
        Category(
            "unanswered",
            ("아무도 답하지 않음", "nobody answered"),
            (
                "아무도 답하지 않았다는 것은 승인 창이 떴지만 시간이 다 될 때까지 아무도 누르지 않아, 거절과 똑같이 "
                "도구가 실행되지 않았다는 뜻입니다.",
                "Nobody answered means an approval prompt appeared but nobody clicked before time ran out, so, "
                "exactly as with Deny, the tool did not run.",
            ),
            ("no answer", "무응답", "응답 없음", "approval timeout", "승인 시간 초과"),
        ),
        Category(
            "abandoned",
            ("실행했지만 중단됨", "ran, but was abandoned"),
            (
                "실행했지만 중단됐다는 것은 도구가 실행을 시작했지만 정해진 시간(`timeout`)을 넘겨 서버가 결과를 기다리지 "
                "않고 끊었다는 뜻입니다.",
                "Ran, but was abandoned means the tool started but went past its time limit (`timeout`), so the "
                "server stopped waiting for its result.",
            ),
            ("abandoned", "중단", "중단됨", "tool timeout", "도구 시간 초과"),
        ),
        Category(
            "throttled",
            ("속도 제한에 걸림", "rate limited"),
            (
                "속도 제한에 걸렸다는 것은 너무 자주 불려서, 승인을 묻기도 전에 실행하지 않고 돌려보냈다는 뜻입니다.",
                "Rate limited means the tool was called too often, so the call was sent back without running, "
                "before anyone was asked.",
            ),
            ("rate limited", "rate limit", "속도 제한", "throttle"),
        ),
    ],
)


def _line(when: tuple[str, str], client: str, tool: str, decision: str, outcome: str, is_error: bool) -> Text:
    """One audit-log line as an item: the time it was written, then its fields as JSON."""
    fields = {"client": client, "tool": tool, "decision": decision, "outcome": outcome, "is_error": is_error}
    shown = json.dumps(fields, ensure_ascii=False)
    return (f"{when[0]}: `{shown}`", f"{when[1]}: `{shown}`")


q4 = Classification(
    "06",
    "q4",
    title=("감사 로그 읽기", "Reading the audit log"),
    question=(
        "아침에 감사 로그를 열어 보니 밤새 이런 줄들이 쌓여 있습니다(`time`은 줄 앞에 시각만 적었고, `arguments`와 "
        "`duration_ms` 칸은 생략했습니다). 줄마다 그 호출에 무슨 일이 있었는지 고르세요.",
        "In the morning you open the audit log and find these lines from the night (`time` is shown as the "
        "clock time in front of each line; `arguments` and `duration_ms` are left out). For each line, pick what "
        "happened to that call.",
    ),
    vocabulary=AUDIT_READINGS,
    items={
        "approved_ok": (
            _line(("밤 11시 2분", "11:02 pm"), "claude-code", "delete_note", "approved", "ok", False),
            "ran_approved",
        ),
        "denied": (
            _line(("밤 11시 40분", "11:40 pm"), "claude-code", "delete_note", "denied", "denied", True),
            "declined",
        ),
        "nobody": (
            _line(("새벽 1시 15분", "1:15 am"), "claude-code", "add_note", "timeout", "timeout", True),
            "unanswered",
        ),
        "too_slow": (
            _line(("새벽 2시 3분", "2:03 am"), "claude-code", "export_notes", "approved", "timeout", True),
            "abandoned",
        ),
        "read_only": (
            _line(("새벽 3시 30분", "3:30 am"), "claude-code", "list_notes", "not-needed", "ok", False),
            "ran_unasked",
        ),
        "own_call": (
            _line(("새벽 4시 10분", "4:10 am"), "notebook", "delete_note", "not-needed", "ok", False),
            "ran_unasked",
        ),
        "flood": (
            _line(
                ("새벽 5시 1분", "5:01 am"),
                "claude-code",
                "search_notes",
                "rate limited",
                "rate limited",
                True,
            ),
            "throttled",
        ),
        "always": (
            _line(("아침 7시 45분", "7:45 am"), "claude-code", "add_note", "always-allowed", "ok", False),
            "ran_approved",
        ),
    },
    feedback={
        ("nobody", "abandoned"): (
            "'nobody': outcome만 보면 헷갈립니다. decision 칸에 timeout이 적혔다는 것은 어느 단계에서 시간이 다 "
            "됐다는 뜻일까요?",
            "'nobody': the outcome alone is confusing. What does timeout in the decision field say about the "
            "stage at which time ran out?",
        ),
        ("too_slow", "unanswered"): (
            "'too_slow': decision이 approved이니 사람은 제때 답했습니다. 시간이 다 된 것은 그다음 단계입니다.",
            "'too_slow': the decision is approved, so the person answered in time. Time ran out at a later stage.",
        ),
        ("too_slow", "ran_approved"): (
            "'too_slow': 승인은 받았지만 outcome이 ok가 아닙니다. 도구가 끝까지 실행됐을까요?",
            "'too_slow': it was approved, but the outcome is not ok. Did the tool run to the end?",
        ),
        ("own_call", "ran_approved"): (
            "'own_call': client가 notebook입니다. 노트북 자신의 호출에 승인 창이 떴을까요? decision 칸도 보세요.",
            "'own_call': the client is notebook. Would the notebook's own call get an approval prompt? Look at the "
            "decision field too.",
        ),
        ("always", "ran_unasked"): (
            "'always': decision이 always-allowed라는 것은 이번 호출에서 승인 창이 떴고 누군가 '항상 허용'을 눌렀다는 "
            "기록입니다. 묻지 않게 되는 것은 그다음 호출부터입니다.",
            "'always': a decision of always-allowed records that a prompt appeared for this very call and someone "
            "clicked 'Always allow'. Calls stop being asked about only from the next one on.",
        ),
        ("denied", "unanswered"): (
            "'denied': 시간이 다 된 것과 누군가 거절을 누른 것은 decision 칸에 다르게 적힙니다.",
            "'denied': running out of time and someone clicking Deny are written differently in the decision field.",
        ),
        ("flood", "declined"): (
            "'flood': 이 호출에는 승인 창이 뜨지도 않았습니다. decision 칸의 말을 그대로 읽어 보세요.",
            "'flood': no approval prompt ever appeared for this call. Read the decision field word for word.",
        ),
    },
    hints=[
        (
            "두 칸을 나눠 읽으세요. decision은 승인 단계에서 무슨 일이 있었는지, outcome은 그 뒤 호출이 어떻게 "
            "끝났는지를 적습니다.",
            "Read the two fields separately: decision is what happened at the approval stage, outcome is how the "
            "call ended after that.",
        ),
        (
            "decision이 not-needed면 승인 창이 뜨지 않은 것이고, approved나 always-allowed면 사람이 허락한 것입니다. "
            "timeout은 어느 칸에 적혔느냐에 따라 뜻이 다릅니다.",
            "A decision of not-needed means no prompt appeared; approved or always-allowed means a person allowed "
            "it. timeout means different things depending on the field it is in.",
        ),
        (
            "이 장의 감사 로그 표에서 같은 모양의 줄을 찾아, 그 줄을 남긴 실험이 무엇이었는지 떠올려 보세요.",
            "Find lines of the same shape in this chapter's audit log table and recall which experiment wrote them.",
        ),
    ],
    explanation=(
        "decision은 승인 단계, outcome은 실행 결과입니다. approved나 always-allowed 뒤에 ok면 승인받고 실행된 "
        "것이고(always-allowed는 '항상 허용'을 누른 바로 그 호출입니다), not-needed 뒤에 ok면 묻지 않고 실행된 "
        "것입니다(읽기 전용 도구, 노트북 자신의 호출). 두 칸이 모두 denied면 사람이 거절한 것이고, 모두 timeout이면 "
        "아무도 답하지 않아 거절로 처리된 것입니다. approved 뒤의 timeout은 승인은 받았지만 도구가 제한 시간을 넘겨 "
        "중단된 것이고, rate limited는 승인을 묻기도 전에 속도 제한이 막은 것입니다.",
        "decision is the approval stage, outcome is how the call ended. approved or always-allowed followed by ok "
        "means approved, then ran (always-allowed is the very call on which 'Always allow' was clicked); "
        "not-needed followed by ok means it ran without asking (a read-only tool, or the notebook's own call). "
        "denied in both fields means a person declined; timeout in both means nobody answered and it counted as "
        "Deny. timeout after approved means it was approved but the tool went past its time limit and was "
        "abandoned, and rate limited means the rate limit stopped it before anyone was asked.",
    ),
)

# -- q5: a private tool that always asks, checked through the real server as an outside client ------

DIARY_DATES = ("2026-03-01", "2026-03-02")
"""The dates of the notebook's `DIARY` (the question shows it; the checker relies on it)."""


class ApprovalToolExercise(ToolExercise):
    """A ToolExercise whose probes come from outside, the way an AI app would call the tool.

    Besides the kit's definition checks it wants the tool's own ``approval="always"`` (so that it
    asks whatever mode the server runs in) and honest annotations. Each probe is a ``tools/call``
    with the server's URL and token, so the server treats it as an outside client's call: the
    checker answers each approval prompt (Approve, as a person would) and notes whether one
    appeared. A call that ran without a prompt is a problem in itself.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._calls = 0
        self._asked = 0
        self._server: Any = None  # the server being probed, for `_call`

    def _definition_problems(self, definition: dict[str, Any]) -> list[str]:
        problems = super()._definition_problems(definition)
        if definition.get("annotations", {}).get("readOnlyHint") is not True:
            problems.append(t("lessons.ch06.not_read_only"))
        entry = served_catalogue().get(definition["name"])
        if entry is not None and entry.approval != "always":
            problems.append(t("lessons.ch06.not_always", tool=definition["name"]))
        return problems

    def _probe_problems(self, name: str) -> list[str]:
        from mcp_notebook import current_server

        server = current_server()
        if server is None:  # pragma: no cover - evaluate() starts one
            return [t("lessons.tool.not_listed", tool=name)]
        if ("owner", name) in server.approval.allowed:  # the probes call with the server token: "owner"
            return [t("lessons.ch06.always_allowed", tool=name)]
        self._calls = self._asked = 0
        self._server = server
        return super()._probe_problems(name)

    def _call_probe(self, name: str, probe: Probe, shown: str, problems: list[str]) -> Any:
        from mcp_notebook import call

        server = self._server
        asked: list[Any] = []

        def approve(request: Any) -> None:
            # Runs on the server's thread, where the prompt appears: answer it as a person would.
            if request.tool == name:
                asked.append(request)
                request.approve()

        server.approval.listeners.append(approve)
        self._calls += 1
        try:
            # With the URL and token the server sees an outside client, which must be asked.
            result = call(name, probe.arguments, url=server.url, token=server.token, timeout=CALL_TIMEOUT)
        finally:
            server.approval.listeners.remove(approve)
        if asked:
            self._asked += 1
        else:
            problems.append(t("lessons.ch06.not_asked", call=shown))
        return result

    def praise(self) -> list[str]:
        return [
            t("lessons.ch06.checked_via", calls=self._calls, asked=self._asked),
            f"{t('lessons.solution.why')}: {self.text('explanation')}",
        ]


def _diary_entry(result: Any) -> bool:
    return "벚꽃" in result.text


q5 = ApprovalToolExercise(
    "06",
    "q5",
    tool="read_diary",
    title=("사적인 글을 읽는 도구", "A tool that reads private writing"),
    question=(
        "일기장을 읽는 도구 `read_diary`를 만드세요. 일기는 위 셀의 `DIARY`에 날짜별로 들어 있습니다.\n"
        '- 인자는 `date`(문자열, 필수) 하나입니다. 예: `"2026-03-01"`\n'
        "- 이 도구는 아무것도 바꾸지 않습니다. annotations로 그 사실을 정직하게 밝히세요.\n"
        '- 그래도 일기는 사적인 글입니다. 바깥 AI 앱이 부를 때는 서버가 어떤 모드로 켜져 있든(`approval="auto"`여도) '
        "매번 사람의 승인을 받아야 합니다.\n"
        "- 승인되면 그날의 일기를 돌려주고, 일기가 없는 날짜는 `ToolError`로 거절하면서 일기가 있는 날짜들을 알려 "
        "줍니다.\n"
        "- 모델이 언제 쓸지 알 수 있도록 20자 이상의 설명을 씁니다.\n"
        "채점기는 tools/list로 정의를 읽은 뒤, 토큰을 가진 바깥 클라이언트로서 tools/call을 보냅니다. 승인 창이 뜨면 "
        "채점기가 사람 대신 승인을 누르고, 창이 떴는지도 확인합니다.",
        "Write a tool `read_diary` that reads the diary. The entries are in `DIARY` in the cell above, by date.\n"
        '- It takes one argument, `date` (a string, required), e.g. `"2026-03-01"`.\n'
        "- It changes nothing. Say so, honestly, in its annotations.\n"
        "- Still, a diary is private. When an outside AI app calls it, a person must approve every call, "
        'whatever mode the server runs in (even `approval="auto"`).\n'
        "- Once approved it returns that day's entry; a date without an entry is refused with `ToolError`, "
        "naming the dates that have one.\n"
        "- A description of at least 20 characters tells a model when to use it.\n"
        "The checker reads the definition with tools/list, then sends tools/call as an outside client holding "
        "the token. When an approval prompt appears, the checker clicks Approve on the person's behalf, and it "
        "checks that a prompt did appear.",
    ),
    params=[Param("date", "string")],
    probes=[
        Probe(
            {"date": DIARY_DATES[0]},
            "ok",
            accept=_diary_entry,
            advice=(
                f"승인된 호출이 {DIARY_DATES[0]}의 일기를 돌려주지 않았습니다. `DIARY[date]`를 그대로 돌려주세요.",
                f"The approved call did not return the entry of {DIARY_DATES[0]}. Return `DIARY[date]` as it is.",
            ),
        ),
        Probe(
            {"date": "2026-02-30"},
            "error",
            names=DIARY_DATES[0],
            advice=(
                "일기가 없는 날짜는 `ToolError`로 거절하고, 모델이 다시 고를 수 있게 일기가 있는 날짜들을 메시지에 "
                "적으세요.",
                "Refuse a date without an entry with `ToolError`, and list the dates that have one in the message, "
                "so the model can pick again.",
            ),
        ),
    ],
    hints=[
        (
            "요구 사항은 두 가지입니다. 도구가 무엇을 하는지에 대한 정직한 주장(annotations), 그리고 누구에게 물을지에 "
            "대한 설정. 둘은 서로 다른 옵션입니다.",
            "There are two requirements: an honest claim about what the tool does (annotations), and a setting "
            "about whom to ask. They are two different options.",
        ),
        (
            "읽기만 하는 도구라고 밝히면 기본 모드의 서버는 묻지 않고 실행합니다. 이 장의 '누구의 어떤 호출을 묻나' "
            "절에서 서버 모드보다 앞서는 설정이 무엇이었는지 보세요.",
            "Declaring the tool read-only makes a server in the default mode run it without asking. In this "
            "chapter's section on which calls are asked about, see which setting comes before the server mode.",
        ),
        (
            "`@tool`에는 옵션을 여러 개 함께 줄 수 있습니다. 일기가 없는 날짜의 메시지에는 "
            "`', '.join(sorted(DIARY))`처럼 있는 날짜들을 넣으세요.",
            "`@tool` takes several options at once. For a date without an entry, put the existing dates in the "
            "message, e.g. `', '.join(sorted(DIARY))`.",
        ),
    ],
    solution=(
        "from typing import Annotated\n"
        "from mcp_notebook import ToolError, tool\n\n"
        '@tool(read_only=True, approval="always")\n'
        'def read_diary(date: Annotated[str, "읽을 날짜. YYYY-MM-DD 꼴, 예: 2026-03-01"]) -> str:\n'
        '    """사용자가 어느 날의 일기를 보여 달라고 할 때 사용하세요. 그날의 일기를 돌려줍니다.\n'
        '    일기는 사적인 글이라 바깥에서 부를 때마다 노트북의 사람이 승인해야 합니다."""\n'
        "    if date not in DIARY:\n"
        '        days = ", ".join(sorted(DIARY))\n'
        '        raise ToolError(f"{date}의 일기는 없습니다. 일기가 있는 날짜: {days}. 이 중에서 골라 다시 부르세요.")\n'
        "    return DIARY[date]",
        "from typing import Annotated\n"
        "from mcp_notebook import ToolError, tool\n\n"
        '@tool(read_only=True, approval="always")\n'
        'def read_diary(date: Annotated[str, "The day to read, as YYYY-MM-DD, e.g. 2026-03-01"]) -> str:\n'
        '    """Use when the user asks to see the diary entry of a day. Returns that day\'s entry.\n'
        '    The diary is private: a person at the notebook approves every call from outside."""\n'
        "    if date not in DIARY:\n"
        '        days = ", ".join(sorted(DIARY))\n'
        '        raise ToolError(f"There is no entry for {date}. Days with an entry: {days}. Pick one and call again.")\n'
        "    return DIARY[date]",
    ),
    explanation=(
        "`read_only=True`는 '이 도구는 아무것도 바꾸지 않는다'는 정직한 주장이라 `readOnlyHint: true`가 되고, "
        "`destructiveHint`도 false로 따라붙습니다. 하지만 기본 모드의 서버는 읽기 전용 도구를 묻지 않으므로, 사적인 "
        '글을 지키려면 도구 자신의 `approval="always"`가 필요합니다. 이 설정은 서버 모드보다 앞서서 '
        '`approval="auto"` 서버에서도 승인 창을 띄웁니다. 무엇을 하는지(annotations)와 누구에게 물을지(approval)는 '
        "서로 다른 질문입니다.",
        "`read_only=True` is the honest claim that the tool changes nothing: it becomes `readOnlyHint: true`, "
        "with `destructiveHint` false alongside. But a server in the default mode does not ask about read-only "
        'tools, so protecting private writing takes the tool\'s own `approval="always"`, which comes before the '
        'server mode and brings up a prompt even on an `approval="auto"` server. What a tool does (annotations) '
        "and whom to ask (approval) are different questions.",
    ),
)
