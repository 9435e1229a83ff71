"""Exercises of chapter 00 (시작하기): roles, who controls what, which primitive, a first tool.

>>> from mcp_notebook.lessons.ch00 import q1, q2, q3, q4, q5
"""

from __future__ import annotations

from ._answers import Classification, ShortAnswer
from ._toolcheck import Param, Probe, ToolExercise
from ._vocab import CONTROLLERS, PRIMITIVES, ROLES

__all__ = ["q1", "q2", "q3", "q4", "q5"]

q1 = Classification(
    "00",
    "q1",
    title=("호스트, 클라이언트, 서버", "Host, client and server"),
    question=(
        "아래 항목이 MCP 구조에서 호스트, 클라이언트, 서버 중 어느 역할을 맡는지 고르세요.",
        "For each item below, pick the role it plays in MCP: host, client or server.",
    ),
    vocabulary=ROLES,
    items={
        "desktop_app": (
            (
                "사용자가 대화를 나누는 Claude Desktop 같은 AI 앱 전체",
                "A whole AI app the user chats in, such as Claude Desktop",
            ),
            "host",
        ),
        "ide": (
            (
                "MCP 서버 여러 개를 한꺼번에 붙여 쓰는 코드 편집기의 AI 기능",
                "The AI features of a code editor that uses several MCP servers at once",
            ),
            "host",
        ),
        "per_server_link": (
            (
                "앱 안에서 GitHub 서버 하나만 맡아 연결을 유지하고 요청을 보내는 구성 요소",
                "The component inside an app that keeps the connection to one GitHub server and sends it requests",
            ),
            "client",
        ),
        "mcp_call": (
            (
                "이 노트북에서 `%mcp_call`이 도구를 부를 때 요청을 보내고 답을 받아 오는 부분",
                "What `%mcp_call` uses in this notebook to send a request and bring back the answer",
            ),
            "client",
        ),
        "notebook_kernel": (
            (
                "`%mcp_serve`로 켜져 노트북 함수를 도구로 내놓고 요청을 기다리는 쪽",
                "What `%mcp_serve` starts: it offers the notebook's functions as tools and waits for requests",
            ),
            "server",
        ),
        "repo_process": (
            (
                "저장소 검색과 이슈 만들기 기능을 내놓고 호출을 기다리는 별도 프로세스",
                "A separate process that offers repository search and issue creation and waits to be called",
            ),
            "server",
        ),
    },
    hints=[
        (
            "역할은 셋입니다. 사용자가 직접 여는 프로그램, 그 안에서 연결을 하나씩 맡는 부분, 그리고 기능을 내놓는 쪽. "
            "항목마다 이 셋 중 무엇에 가까운지 떠올려 보세요.",
            "There are three roles: the program the user opens, the part inside it that handles one connection, "
            "and the side that offers capabilities. Match each item to one of them.",
        ),
        (
            "클라이언트와 서버는 늘 1:1로 짝을 짓습니다. 호스트는 붙일 서버 수만큼 클라이언트를 만듭니다.",
            "Clients and servers always pair one-to-one. A host creates one client per server it uses.",
        ),
        (
            "요청을 '보내는' 쪽과 요청을 '받아 답하는' 쪽을 나눠 보세요. 이 노트북에서는 두 쪽이 같은 커널 안에 함께 있습니다.",
            "Separate the side that sends requests from the side that answers them. In this notebook both live "
            "in the same kernel.",
        ),
    ],
    explanation=(
        "호스트는 사용자가 쓰는 AI 앱 자체이고, 붙일 서버마다 클라이언트를 하나씩 만들어 1:1 연결을 맡깁니다. "
        "서버는 기능을 내놓고 요청에 답합니다. 이 노트북은 한 커널 안에 서버(`%mcp_serve`)와 클라이언트(`%mcp_call`)가 "
        "함께 있는 특이한 경우입니다.",
        "The host is the AI app itself; it creates one client per server, each holding a one-to-one connection. "
        "Servers offer capabilities and answer requests. This notebook is unusual: one kernel holds both a server "
        "(`%mcp_serve`) and a client (`%mcp_call`).",
    ),
)

q2 = Classification(
    "00",
    "q2",
    title=("누가 쓰기로 정할까", "Who decides to use it?"),
    question=(
        "서버가 내놓는 세 가지 기능(primitive)마다, 그것을 언제 쓸지 정하는 주체를 고르세요.",
        "For each of the three things a server offers (its primitives), pick who decides when it is used.",
    ),
    vocabulary=CONTROLLERS,
    items={
        "tool": (
            ("서버가 내놓는, 실행할 수 있는 동작", "An action the server offers"),
            "model",
        ),
        "resource": (
            ("URI로 가리키는 읽을거리", "Something to read, named by a URI"),
            "application",
        ),
        "prompt": (
            ("인자를 채워 쓰는 메시지 틀", "A message template with arguments to fill in"),
            "user",
        ),
    },
    feedback={
        ("tool", "user"): (
            "사람이 도구를 하나하나 골라 부른다면 모델이 할 일이 없겠지요. 사람은 도구 호출을 승인하거나 거부할 수는 "
            "있지만, 부를지 말지를 먼저 정하는 쪽은 따로 있습니다.",
            "If people picked every tool call by hand, the model would have nothing to do. People may approve or "
            "refuse a call, but someone else proposes it first.",
        ),
    },
    hints=[
        (
            "'누가 버튼을 누르는가'를 생각해 보세요. 모델, 앱, 사람이 하나씩 맡습니다.",
            "Ask who presses the button. The model, the app and the person each take one.",
        ),
        (
            "슬래시 명령(/)처럼 사람이 메뉴에서 직접 골라야 시작되는 기능이 하나 있습니다.",
            "One of them only starts when a person picks it from a menu, like a slash command.",
        ),
        (
            "나머지 둘 중 하나는 대화 도중 모델이 스스로 고르고, 다른 하나는 앱이 화면이나 맥락에 미리 끼워 넣습니다.",
            "Of the other two, one is chosen by the model mid-conversation, the other is placed into the context "
            "by the app.",
        ),
    ],
    explanation=(
        "Tool은 모델이 대화를 보고 알아서 부르고(모델 제어), Resource는 앱이 골라서 맥락에 넣어 주며(애플리케이션 제어), "
        "Prompt는 사용자가 직접 골라 실행합니다(사용자 제어). 한 서버 안에서도 손잡이를 쥔 쪽이 서로 다릅니다.",
        "Tools are called by the model on its own (model-controlled), Resources are chosen by the app and put "
        "into the context (application-controlled), Prompts are picked by the user (user-controlled). Even "
        "within one server, a different hand holds each handle.",
    ),
)

q3 = Classification(
    "00",
    "q3",
    title=("어느 primitive가 어울릴까", "Which primitive fits?"),
    question=(
        "데이터베이스용 MCP 서버를 설계한다고 합시다(마지막 두 항목은 다른 서버의 예입니다). "
        "각 기능을 Tool, Resource, Prompt 중 어디에 두는 것이 자연스러운지 고르세요. 기준은 '누가 쓰기로 정하는가'입니다.",
        "Say you are designing an MCP server for a database (the last two items come from other servers). "
        "Pick where each capability naturally belongs: Tool, Resource or Prompt. The test is who decides to use it.",
    ),
    vocabulary=PRIMITIVES,
    items={
        "run_sql": (
            (
                "사용자의 질문에 답하려고 모델이 SQL 문을 직접 만들어 실행한다",
                "To answer the user's question, the model writes a SQL query and runs it",
            ),
            "tool",
        ),
        "table_schema": (
            (
                "사용자가 작업 중인 테이블의 스키마를 앱이 대화 맥락에 미리 넣어 둔다",
                "The app puts the schema of the table the user is working on into the conversation beforehand",
            ),
            "resource",
        ),
        "monthly_revenue": (
            (
                "사용자가 `/월간-매출`을 골라 늘 같은 틀의 매출 분석을 받는다",
                "The user picks `/monthly-revenue` and gets the usual revenue analysis",
            ),
            "prompt",
        ),
        "explain_plan": (
            (
                "느린 쿼리를 알아챈 모델이 스스로 그 쿼리의 실행 계획을 뽑아 본다",
                "Having noticed a slow query, the model fetches its execution plan by itself",
            ),
            "tool",
        ),
        "query_log": (
            (
                "앱이 오늘 쌓인 쿼리 로그를 읽어 대화 옆 패널에 맥락으로 붙여 둔다",
                "The app reads today's query log and attaches it as context in a side panel",
            ),
            "resource",
        ),
        "create_issue": (
            (
                "대화 중에 버그라고 판단한 모델이 이슈 트래커에 새 이슈를 등록한다",
                "Deciding mid-conversation that it found a bug, the model files a new issue in the tracker",
            ),
            "tool",
        ),
        "code_review": (
            (
                "사용자가 `/코드리뷰`를 입력하고 파일 이름을 인자로 넘겨 검토를 요청한다",
                "The user types `/code-review` with a file name as its argument to ask for a review",
            ),
            "prompt",
        ),
    },
    feedback={
        ("table_schema", "tool"): (
            "'table_schema': 스키마를 모델이 필요할 때 조회하는 Tool로 만들 수도 있습니다. 하지만 이 문장에서 "
            "스키마를 대화에 넣기로 정하는 주체는 누구인가요?",
            "'table_schema': a schema could also be a Tool the model queries when it needs to. But in this "
            "sentence, who decides to put the schema into the conversation?",
        ),
        ("create_issue", "prompt"): (
            "'create_issue': 이슈를 등록하라고 사용자가 명령을 고른 것이 아닙니다. 문장에서 '판단한' 주체를 다시 보세요.",
            "'create_issue': the user did not pick a command to file the issue. Look again at who made the call.",
        ),
    },
    hints=[
        (
            "문장마다 주어를 찾아보세요. 모델, 앱, 사용자 중 누가 그 기능을 쓰기로 정하나요?",
            "Find the subject of each sentence. Who decides to use the capability: the model, the app or the user?",
        ),
        (
            "`/`로 시작하는 명령이나 메뉴에서 고르는 동작은 사람이 직접 시작하는 것입니다.",
            "A command starting with `/`, or a pick from a menu, is started by a person.",
        ),
        (
            "읽기만 하는 데이터라도 모델이 필요할 때 스스로 찾아 쓰면 Tool이 될 수 있습니다. "
            "데이터의 종류가 아니라 '누가 정하나'로 판단하세요.",
            "Even read-only data can be a Tool when the model fetches it on its own. Judge by who decides, not by "
            "what kind of data it is.",
        ),
    ],
    explanation=(
        "모델이 판단해 실행하는 run_sql, explain_plan, create_issue는 Tool, 앱이 맥락으로 넣어 주는 table_schema와 "
        "query_log는 Resource, 사용자가 골라서 시작하는 monthly_revenue와 code_review는 Prompt입니다. "
        "같은 데이터베이스를 향한 기능이라도 누가 손잡이를 쥐느냐에 따라 갈립니다.",
        "run_sql, explain_plan and create_issue are started by the model's judgement: Tools. table_schema and "
        "query_log are put into the context by the app: Resources. monthly_revenue and code_review are picked "
        "by the user: Prompts. Capabilities over the same database split by who holds the handle.",
    ),
)

q4 = ShortAnswer(
    "00",
    "q4",
    title=("도구 목록을 묻는 메서드", "The method that lists tools"),
    question=(
        "클라이언트가 서버에 연결한 뒤 '어떤 도구가 있나요?'라고 물을 때 보내는 JSON-RPC 메서드의 이름은 무엇일까요?",
        "After connecting, which JSON-RPC method does a client send to ask a server which tools it has?",
    ),
    accepted=("tools/list",),
    wrong={
        "list_tools": (
            "그건 파이썬 함수(mcp_notebook, SDK)의 이름입니다. 메시지에 실려 오가는 메서드 이름은 '대상/동작' 모양입니다.",
            "That is the name of a Python function (mcp_notebook, the SDK). Method names on the wire look like "
            "'target/action'.",
        ),
        "tools/call": (
            "그건 도구를 실제로 실행할 때 쓰는 메서드입니다. 실행하기 전에 목록부터 받아야겠지요?",
            "That one runs a tool. Before running anything, the client needs the list.",
        ),
        "list": (
            "대상이 빠졌습니다. 리소스와 프롬프트에도 저마다 목록을 받는 메서드가 있습니다.",
            "The target is missing: resources and prompts each have a listing method too.",
        ),
        "tools.list": (
            "거의 맞았습니다. 두 부분을 잇는 구분자를 다시 확인하세요.",
            "Almost. Check the separator between the two parts.",
        ),
    },
    hints=[
        (
            "MCP의 메서드 이름은 대상과 동작을 슬래시로 이은 모양입니다. 예를 들어 리소스를 읽을 때는 `resources/read`를 씁니다.",
            "MCP method names join a target and an action with a slash; reading a resource, for example, is "
            "`resources/read`.",
        ),
        (
            "도구를 실행하는 메서드는 `tools/call`입니다. 목록을 받는 메서드도 같은 대상 아래에 있습니다.",
            "The method that runs a tool is `tools/call`. The listing method sits under the same target.",
        ),
    ],
    explanation=(
        "클라이언트는 연결하자마자 `tools/list`로 도구 정의(이름, 설명, 입력 스키마 등)를 받아 모델에게 보여 주고, "
        "모델이 하나를 고르면 `tools/call`로 실행합니다. 목록이 길면 커서로 나눠 받습니다(01장).",
        "Right after connecting, the client fetches the tool definitions (name, description, input schema ...) "
        "with `tools/list` and shows them to the model; when the model picks one, `tools/call` runs it. Long "
        "lists come in pages, with a cursor (chapter 01).",
    ),
)

q5 = ToolExercise(
    "00",
    "q5",
    tool="greet",
    title=("나의 첫 도구", "Your first tool"),
    question=(
        "`greet`라는 도구를 만드세요. 사람 이름 `name`(문자열)을 받아, 그 이름이 들어간 인사말을 돌려주면 됩니다. "
        "모델이 언제 이 도구를 쓸지 알 수 있도록 docstring에 설명도 한 문장 쓰세요.\n"
        "채점기는 커널 안의 MCP 서버를 거쳐 도구 목록을 확인하고, 도구를 실제로 불러 봅니다.",
        "Write a tool called `greet`. It takes a person's name, `name` (a string), and returns a greeting that "
        "contains the name. Add a one-sentence docstring, so a model knows when to use it.\n"
        "The checker goes through the in-kernel MCP server: it reads the tool list and really calls the tool.",
    ),
    params=[Param("name", "string")],
    description_min=10,
    probes=[
        Probe(
            {"name": "민지"},
            "ok",
            accept=lambda result: "민지" in result.text,
            advice=(
                "돌려준 인사말에 받은 이름이 들어 있어야 합니다. f-문자열로 name을 넣어 보세요.",
                "The greeting must contain the name it was given. Put name into an f-string.",
            ),
        ),
        Probe({}, "error", names="name"),
        Probe({"name": 42}, "error", names="name"),
    ],
    hints=[
        (
            "`from mcp_notebook import tool`을 한 다음 def 바로 위에 `@tool`을 붙이면 함수가 도구가 됩니다.",
            "After `from mcp_notebook import tool`, put `@tool` right above the def: the function becomes a tool.",
        ),
        (
            "매개변수에 `name: str`처럼 타입 힌트를 붙여야 입력 스키마에 문자열 타입이 들어갑니다.",
            "Give the parameter a type hint, `name: str`, so the input schema says it is a string.",
        ),
        (
            "함수 첫 줄에 쓴 문자열(docstring)이 도구의 설명(description)이 됩니다.",
            "The string on the first line of the function (its docstring) becomes the tool's description.",
        ),
    ],
    solution=(
        "from mcp_notebook import tool\n\n"
        "@tool\n"
        "def greet(name: str) -> str:\n"
        '    """사람 이름을 받아 그 사람에게 건넬 인사말을 만듭니다."""\n'
        '    return f"안녕하세요, {name}님! MCP에 오신 것을 환영합니다."',
        "from mcp_notebook import tool\n\n"
        "@tool\n"
        "def greet(name: str) -> str:\n"
        '    """Make a greeting for the person with this name."""\n'
        '    return f"Hello, {name}! Welcome to MCP."',
    ),
    explanation=(
        "`@tool`은 시그니처로 inputSchema를 만들고(`name: str` → 필수 문자열), docstring을 description으로 씁니다. "
        "인자가 빠졌거나 타입이 틀린 호출은 함수에 닿기도 전에 서버가 `isError: true`로 돌려보냅니다.",
        "`@tool` builds the inputSchema from the signature (`name: str` → a required string) and uses the "
        "docstring as the description. Calls with a missing or mistyped argument are sent back with "
        "`isError: true` by the server before they reach the function.",
    ),
)
