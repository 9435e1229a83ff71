"""The categories lessons classify into, shared by every chapter.

Each category's ``meaning`` is what the learner's *choice* implies; wrong answers are explained
with it ("you chose Resource: a Resource is ... — is that what happens here?"), so feedback
never names the right answer.
"""

from __future__ import annotations

from ._answers import Category, Vocabulary

ROLES = Vocabulary(
    "roles",
    [
        Category(
            "host",
            ("호스트", "host"),
            (
                "호스트는 사용자가 직접 쓰는 AI 애플리케이션 자체로, 모델을 품고 클라이언트들을 거느립니다.",
                "The host is the AI application the user works in; it holds the model and runs the clients.",
            ),
            ("호스트 애플리케이션", "host application", "앱", "app"),
        ),
        Category(
            "client",
            ("클라이언트", "client"),
            (
                "클라이언트는 호스트 안에서 서버 하나와 1:1 연결을 맺고 요청을 보내는 부분입니다.",
                "A client lives inside the host, keeps one connection to one server and sends it requests.",
            ),
            ("mcp client", "mcp 클라이언트"),
        ),
        Category(
            "server",
            ("서버", "server"),
            (
                "서버는 도구·리소스·프롬프트를 내놓고 들어온 요청에 답하는 프로그램입니다.",
                "A server offers tools, resources and prompts and answers the requests it receives.",
            ),
            ("mcp server", "mcp 서버"),
        ),
    ],
)

CONTROLLERS = Vocabulary(
    "controllers",
    [
        Category(
            "model",
            ("모델", "the model"),
            (
                "모델이 정한다는 것은 사람이 고르지 않아도 LLM이 대화를 보고 알아서 부른다는 뜻입니다.",
                "The model deciding means the LLM calls it on its own, from the conversation, without anyone picking it.",
            ),
            ("model", "llm", "ai", "언어 모델", "언어모델", "model-controlled", "모델 제어", "ai 모델"),
        ),
        Category(
            "application",
            ("애플리케이션(호스트)", "the application (host)"),
            (
                "애플리케이션이 정한다는 것은 호스트 앱이 무엇을 보여 주고 맥락에 넣을지 고른다는 뜻입니다.",
                "The application deciding means the host app chooses what to show and what to put into the context.",
            ),
            (
                "application",
                "app",
                "앱",
                "애플리케이션",
                "어플리케이션",
                "host",
                "호스트",
                "application-controlled",
                "애플리케이션 제어",
            ),
        ),
        Category(
            "user",
            ("사용자", "the user"),
            (
                "사용자가 정한다는 것은 사람이 메뉴나 슬래시 명령으로 직접 골라야 쓰인다는 뜻입니다.",
                "The user deciding means a person picks it explicitly, from a menu or a slash command.",
            ),
            ("user", "유저", "사람", "human", "user-controlled", "사용자 제어"),
        ),
    ],
)

PRIMITIVES = Vocabulary(
    "primitives",
    [
        Category(
            "tool",
            ("Tool(도구)", "Tool"),
            (
                "Tool은 모델이 대화 흐름을 보고 부를지 말지를 스스로 정하는 기능입니다.",
                "A Tool is something the model decides to call by itself, from the flow of the conversation.",
            ),
            ("tool", "tools", "도구", "툴"),
        ),
        Category(
            "resource",
            ("Resource(리소스)", "Resource"),
            (
                "Resource는 애플리케이션(호스트)이 골라서 맥락으로 넣어 주는 읽기용 데이터입니다.",
                "A Resource is read-only data that the application (host) chooses to put into the context.",
            ),
            ("resource", "resources", "리소스", "자원"),
        ),
        Category(
            "prompt",
            ("Prompt(프롬프트)", "Prompt"),
            (
                "Prompt는 사용자가 슬래시 명령처럼 직접 골라서 실행하는 템플릿입니다.",
                "A Prompt is a template the user picks and runs explicitly, like a slash command.",
            ),
            ("prompt", "prompts", "프롬프트"),
        ),
    ],
)

ERROR_LAYERS = Vocabulary(
    "error_layers",
    [
        Category(
            "protocol",
            ("프로토콜 오류(JSON-RPC error)", "protocol error (JSON-RPC error)"),
            (
                "프로토콜 오류는 요청이 성립하지 않아 결과 대신 JSON-RPC error 객체로 답하는 경우이고, 모델이 스스로 고치기는 어렵습니다.",
                "A protocol error means the request itself does not stand, so a JSON-RPC error object comes back instead of a result; a model can rarely fix that.",
            ),
            (
                "protocol",
                "프로토콜",
                "프로토콜 오류",
                "프로토콜 에러",
                "protocol error",
                "json-rpc",
                "jsonrpc",
                "json-rpc error",
                "json-rpc 오류",
                "-32602",
            ),
        ),
        Category(
            "execution",
            ("도구 실행 오류(isError: true)", "tool execution error (isError: true)"),
            (
                "도구 실행 오류는 요청은 제대로 왔지만 일이 실패한 경우로, 정상 결과 안에 isError: true와 설명을 담아 모델이 읽고 고치게 합니다.",
                "A tool execution error means the request was fine but the work failed; the result carries isError: true and an explanation the model can act on.",
            ),
            (
                "execution",
                "tool execution error",
                "tool error",
                "execution error",
                "tool",
                "실행",
                "실행 오류",
                "실행 에러",
                "도구 오류",
                "도구 실행 오류",
                "도구 실행 에러",
                "iserror",
                "iserror: true",
                "iserror true",
            ),
        ),
    ],
)
