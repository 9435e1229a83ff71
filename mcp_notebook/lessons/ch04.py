"""Exercises of chapter 04 (오류의 두 층위): sorting new failures into the two error layers, the
JSON-RPC code of an unknown tool, error results and the output schema, and a tool the learner
writes whose errors a model can act on, checked through the real server.

>>> from mcp_notebook.lessons.ch04 import q1, q2, q3, q4
"""

from __future__ import annotations

import re
from typing import Any

from ._answers import Classification, MultipleChoice, ShortAnswer
from ._toolcheck import Param, Probe, ToolExercise
from ._vocab import ERROR_LAYERS

__all__ = ["q1", "q2", "q3", "q4"]

q1 = Classification(
    "04",
    "q1",
    title=("새 상황, 어느 층위일까", "New situations: which layer?"),
    question=(
        "아래는 모두 `tools/call` 요청 하나를 주고받다가 생긴 일입니다. 2025-11-25 명세를 따르는 서버라면 상황마다 "
        "JSON-RPC `error`로 답할지(프로토콜 오류), `result` 안에 `isError: true`를 담아 답할지(도구 실행 오류) 고르세요.",
        "Each of these happened during one `tools/call` exchange. For a server following the 2025-11-25 "
        "specification, pick whether it answers with a JSON-RPC `error` (protocol error) or with a `result` "
        "carrying `isError: true` (tool execution error).",
    ),
    vocabulary=ERROR_LAYERS,
    items={
        "missing_argument": (
            (
                "모델이 `search_flights`를 부르면서 필수 인자 `departure_date`를 빠뜨렸다",
                "The model called `search_flights` without the required argument `departure_date`",
            ),
            "execution",
        ),
        "out_of_range": (
            (
                "스키마가 `limit`을 1~100으로 정해 두었는데 `limit: 5000`이 들어왔다",
                "The schema bounds `limit` to 1..100, and `limit: 5000` arrived",
            ),
            "execution",
        ),
        "truncated_body": (
            (
                "네트워크 문제로 요청 본문이 중간에 잘려 JSON으로 읽을 수 없다",
                "A network problem cut the request body short, so it cannot be read as JSON",
            ),
            "protocol",
        ),
        "removed_tool": (
            (
                "노트북에서 `old_report` 도구를 지웠는데, 목록을 다시 받지 않은 클라이언트가 그 이름으로 불렀다",
                "The notebook removed the tool `old_report`, and a client that did not re-list called it by that name",
            ),
            "protocol",
        ),
        "arguments_not_object": (
            (
                "요청의 `params.arguments`가 객체가 아니라 배열 `[1, 2]`로 왔다",
                "The request's `params.arguments` arrived as the array `[1, 2]` instead of an object",
            ),
            "protocol",
        ),
        "not_allowed": (
            (
                "`delete_file` 도구가 열어 보니 지우려는 파일이 다른 사람 소유라 업무 규칙상 지울 수 없다",
                "The `delete_file` tool finds that the file belongs to someone else, so business rules forbid "
                "deleting it",
            ),
            "execution",
        ),
    },
    feedback={
        ("missing_argument", "protocol"): (
            "'missing_argument': 예전 글과 2025-06-18 명세라면 그렇게 답했을 겁니다. 2025-11-25 명세(SEP-1303)는 입력 "
            "검증 실패를 어느 쪽으로 옮겼을까요? 모델이 빠진 인자를 채워 다시 부르려면 무엇을 읽어야 할지 생각해 보세요.",
            "'missing_argument': older texts and the 2025-06-18 specification would say so. Where did the "
            "2025-11-25 specification (SEP-1303) move input validation failures? Think about what the model must "
            "read to add the missing argument and call again.",
        ),
        ("out_of_range", "protocol"): (
            "'out_of_range': 요청의 모양은 멀쩡하고, 값 하나가 스키마가 정한 범위를 넘었을 뿐입니다. 이런 입력 검증 실패를 "
            "2025-11-25 명세는 어디에 두나요?",
            "'out_of_range': the request is well formed; one value is outside the range the schema sets. Where "
            "does the 2025-11-25 specification put such an input validation failure?",
        ),
        ("arguments_not_object", "execution"): (
            "'arguments_not_object': 값 하나가 틀린 것과 요청의 뼈대가 틀린 것은 다릅니다. `arguments`는 tools/call "
            "요청의 정의상 객체여야 합니다. 이 요청은 CallToolRequest의 모양을 갖추었나요?",
            "'arguments_not_object': a wrong value is not the same as a wrong skeleton. By the definition of a "
            "tools/call request, `arguments` is an object. Does this request have the shape of a CallToolRequest?",
        ),
        ("removed_tool", "execution"): (
            "'removed_tool': 도구는 실행되지도 않았습니다. 서버가 모르는 이름을 부른 요청은 어느 층위에서 거절될까요? "
            "(클라이언트가 할 일은 알림을 받고 목록을 다시 받는 것입니다.)",
            "'removed_tool': no tool even ran. At which layer is a request naming something the server does not "
            "know refused? (The client's fix is to re-list after the notification.)",
        ),
        ("not_allowed", "protocol"): (
            "'not_allowed': 요청은 제대로 왔고 도구도 일을 시작했습니다. 지울 수 없다는 사실과 그 이유는 모델이 읽고 "
            "사용자에게 전해야 하는 정보입니다. JSON-RPC 오류로 보내면 모델에게 닿을까요?",
            "'not_allowed': the request was fine and the tool started its work. That the file cannot be deleted, "
            "and why, is something the model should read and pass on to the user. Would it reach the model as a "
            "JSON-RPC error?",
        ),
    },
    hints=[
        (
            "먼저 요청이 서버에 '무엇을 하라는 요청'으로 읽혔는지 보세요. 읽히지도 않았거나 없는 것을 가리킨다면 한쪽, "
            "제대로 읽혔지만 값이나 상황이 문제라면 다른 쪽입니다.",
            "First ask whether the server could read the request as a request to do something. If it could not "
            "be read, or names something that does not exist, it is one layer; if it was read but a value or the "
            "situation is the problem, it is the other.",
        ),
        (
            "값이 틀린 것(빠진 인자, 범위 밖의 숫자)과 요청의 뼈대가 틀린 것(JSON이 아님, `arguments`가 객체가 아님)을 "
            "구분하세요.",
            "Tell wrong values (a missing argument, a number out of range) apart from a wrong skeleton (not JSON, "
            "`arguments` not an object).",
        ),
        (
            "이 장에서 전선 위에 직접 보낸 다섯 가지 요청의 응답을 다시 보세요. `error`가 온 것과 `result`가 온 것이 "
            "각각 어떤 경우였나요?",
            "Look again at the answers to the five requests sent over the wire in this chapter. Which ones came "
            "back as `error`, which as `result`?",
        ),
    ],
    explanation=(
        "빠진 인자, 범위를 벗어난 값, 업무 규칙 위반은 모델이 읽고 고칠 수 있는 도구 실행 오류라 `isError: true` 결과로 "
        "돌려줍니다. 2025-11-25 명세(SEP-1303)부터 입력 검증 실패도 여기에 속합니다. JSON으로 읽을 수 없는 본문(-32700), "
        "없는 도구 이름(-32602), `arguments`가 객체가 아닌 요청(-32602)은 요청 자체가 성립하지 않는 프로토콜 오류입니다.",
        "A missing argument, an out-of-range value and a business rule violation are tool execution errors "
        "a model can read and fix: results with `isError: true`. Since 2025-11-25 (SEP-1303), input validation "
        "failures belong here. A body that is not JSON (-32700), an unknown tool name (-32602) and `arguments` "
        "that is not an object (-32602) are protocol errors: the request itself does not stand.",
    ),
)


class _CodeAnswer(ShortAnswer):
    """A short answer that is a JSON-RPC error code: ``-32602`` may be written as a number too."""

    def evaluate(self, answer: Any) -> list[str]:
        if isinstance(answer, int) and not isinstance(answer, bool):
            answer = str(answer)
        return super().evaluate(answer)


q2 = _CodeAnswer(
    "04",
    "q2",
    title=("없는 도구의 오류 코드", "The error code of an unknown tool"),
    question=(
        "클라이언트가 서버에 없는 이름으로 `tools/call`을 보냈습니다. 서버가 돌려주는 JSON-RPC `error`의 `code`는 "
        "몇일까요? 숫자로 답하세요(문자열이든 정수든 됩니다).",
        "A client sent `tools/call` with a name the server does not have. What is the `code` of the JSON-RPC "
        "`error` the server returns? Answer with the number (a string or an int both work).",
    ),
    accepted=("-32602", "−32602"),
    wrong={
        "-32601": (
            "-32601(Method not found)은 `tools/run`처럼 메서드 자체가 없을 때입니다. `tools/call`이라는 메서드는 "
            "있습니다. 틀린 것은 메서드에 넘긴 값 쪽입니다.",
            "-32601 (Method not found) is for a method that does not exist, like `tools/run`. The method "
            "`tools/call` exists; what is wrong is a value handed to it.",
        ),
        "-32600": (
            "-32600(Invalid Request)은 JSON-RPC 요청의 꼴부터 틀렸을 때입니다. 이 요청은 JSON-RPC로서는 멀쩡합니다.",
            "-32600 (Invalid Request) is for a message that is not a proper JSON-RPC request. This one is fine as "
            "JSON-RPC.",
        ),
        "-32700": (
            "-32700(Parse error)은 본문을 JSON으로 읽지 못했을 때입니다. 이 요청의 JSON은 문제가 없습니다.",
            "-32700 (Parse error) is for a body that cannot be parsed as JSON. This request's JSON is fine.",
        ),
        "-32603": (
            "-32603(Internal error)은 서버 안에서 뜻밖의 고장이 났을 때입니다. 여기서는 서버가 멀쩡히 요청을 읽고 "
            "이름이 없다는 것을 알아냈습니다.",
            "-32603 (Internal error) is for an unexpected failure inside the server. Here the server read the "
            "request fine and found the name unknown.",
        ),
        "-32002": (
            "-32002는 2025-11-25에서 없는 리소스(resources/read)에 쓰는 코드입니다. 도구는 다른 코드를 씁니다.",
            "-32002 is the 2025-11-25 code for an unknown resource (resources/read). Tools use another one.",
        ),
        "404": (
            "404는 HTTP 상태 코드입니다. 묻는 것은 JSON-RPC 응답의 `error.code`입니다.",
            "404 is an HTTP status code. The question is about `error.code` of the JSON-RPC response.",
        ),
        "isError": (
            "`isError: true`는 도구 실행 오류의 표시이고 `result` 안에 들어갑니다. 없는 도구는 `result`가 아니라 "
            "`error`로 답합니다. 그 `error`의 `code`를 물었습니다.",
            "`isError: true` marks a tool execution error inside a `result`. An unknown tool is answered with an "
            "`error`, not a `result`; the question asks for that error's `code`.",
        ),
    },
    hints=[
        (
            "JSON-RPC 2.0이 미리 정해 둔 오류 코드는 -32700부터 -32600까지 몇 개 안 됩니다. 각각 무엇이 잘못됐을 때 "
            "쓰는지 떠올려 보세요.",
            "JSON-RPC 2.0 predefines only a few error codes, from -32700 to -32600. Recall what each one is for.",
        ),
        (
            "메서드 `tools/call`은 있습니다. 잘못된 것은 `params` 안의 `name` 값입니다. '매개변수가 잘못됐다'는 뜻의 "
            "코드를 찾으세요.",
            "The method `tools/call` exists; what is wrong is the value of `name` inside `params`. Look for the "
            "code that means 'invalid parameters'.",
        ),
    ],
    explanation=(
        "없는 도구는 `params.name`이 틀린 요청이라 JSON-RPC의 Invalid params, 곧 -32602로 답합니다(명세의 예도 "
        "`Unknown tool: invalid_tool_name`). 메서드가 없을 때의 -32601이나 JSON이 깨졌을 때의 -32700과 헷갈리지 "
        "마세요. mcp-notebook 서버는 `data.suggestions`에 비슷한 이름도 담아 줍니다.",
        "An unknown tool is a request whose `params.name` is wrong: JSON-RPC Invalid params, -32602 (the "
        "specification's example is `Unknown tool: invalid_tool_name`). Do not confuse it with -32601 (no such "
        "method) or -32700 (broken JSON). The mcp-notebook server also lists similar names in "
        "`data.suggestions`.",
    ),
)

q3 = MultipleChoice(
    "04",
    "q3",
    title=("오류 결과와 outputSchema", "Error results and the outputSchema"),
    question=(
        '`get_invoice`는 `outputSchema`(`{"type": "object", "required": ["total"]}`)를 선언한 도구입니다. 없는 '
        "송장 번호로 불리자 `ToolError`를 raise해서, 결과에는 `isError: true`와 텍스트 한 덩이만 있고 "
        "`structuredContent`는 없습니다. 이 결과는 어떻게 다뤄야 할까요?",
        '`get_invoice` declares an `outputSchema` (`{"type": "object", "required": ["total"]}`). Called with an '
        "unknown invoice number, it raises `ToolError`, so the result has `isError: true` and one text block, "
        "and no `structuredContent`. How should this result be handled?",
    ),
    options={
        "A": (
            "클라이언트는 `structuredContent`가 없으니 스키마 위반으로 보고 이 결과를 버려야 합니다.",
            "The client must discard it as a schema violation, since `structuredContent` is missing.",
        ),
        "B": (
            "정상적인 오류 결과입니다. 오류 결과는 outputSchema 검증을 받지 않으니, 클라이언트는 텍스트를 모델에게 "
            "그대로 전하면 됩니다.",
            "It is a proper error result. Error results are not validated against the outputSchema; the client "
            "hands the text to the model.",
        ),
        "C": (
            "서버는 이런 경우 결과 대신 JSON-RPC 오류 -32603을 보내야 합니다.",
            "In this case the server must send JSON-RPC error -32603 instead of a result.",
        ),
        "D": (
            '서버는 스키마를 맞추려고 `{"total": null}` 같은 `structuredContent`를 지어내 넣어야 합니다.',
            'The server must make up `structuredContent` such as `{"total": null}` to satisfy the schema.',
        ),
    },
    answer="B",
    wrong={
        "A": (
            "outputSchema는 '성공했을 때 이런 모양을 돌려주겠다'는 약속입니다. 실패를 알리는 결과에도 그 약속이 "
            "적용될까요? 버리면 모델은 왜 실패했는지 알 길이 없어집니다.",
            "An outputSchema promises the shape of a success. Does that promise cover a result that reports a "
            "failure? Discarded, the model would never learn why the call failed.",
        ),
        "C": (
            "도구는 제대로 불렸고, 송장이 없다는 것은 모델이 읽고 다른 번호로 다시 시도할 수 있는 정보입니다. 프로토콜 "
            "오류로 바꾸면 그 정보가 모델에게 닿기 어렵습니다.",
            "The tool was called properly, and a missing invoice is something the model can read and retry with "
            "another number. As a protocol error it would hardly reach the model.",
        ),
        "D": (
            "지어낸 값은 모델을 속입니다. `total`이 null인 송장이 정말 있다고 믿게 될 수도 있습니다. 실패는 실패로 "
            "알리는 편이 낫습니다.",
            "A made-up value misleads the model: it may believe an invoice with a null total exists. A failure "
            "is better reported as a failure.",
        ),
    },
    hints=[
        (
            "outputSchema가 약속하는 것은 어떤 결과의 모양일까요? 성공한 결과일까요, 모든 결과일까요?",
            "Which results does an outputSchema describe: successful ones, or all of them?",
        ),
        (
            "이 장에서 outputSchema가 있는 도구가 `ToolError`를 냈을 때 전선 위의 결과를 다시 보세요. 클라이언트가 "
            "불평했나요?",
            "Look again at the wire when a tool with an outputSchema raised `ToolError` in this chapter. Did the "
            "client complain?",
        ),
    ],
    explanation=(
        "outputSchema는 성공한 결과의 모양입니다. `isError: true`인 결과는 스키마 검증을 건너뛰므로 "
        "`structuredContent` 없이 설명 텍스트만 담아도 되고, 클라이언트는 그 텍스트를 모델에게 전해 스스로 고치게 "
        "합니다. 반대로 성공이라고 해 놓고 스키마를 어긴 결과는 클라이언트가 거부할 수 있어서, mcp-notebook 서버는 "
        "그런 반환값을 무엇이 틀렸는지 적은 오류 결과로 바꿔 보냅니다.",
        "An outputSchema describes successful results. A result with `isError: true` skips schema validation, "
        "so it may carry only an explanation without `structuredContent`, and the client passes that text to "
        "the model so it can correct itself. A result that claims success but breaks the schema may be rejected "
        "by clients, so the mcp-notebook server turns such a return value into an error result saying what is "
        "wrong.",
    ),
)


# An exception's type name in front of the message ("ValueError: ..."): what the server sends when
# a tool raises anything but ToolError. A message written for the model has no such prefix.
_EXCEPTION_PREFIX = re.compile(r"^\s*[A-Z][A-Za-z0-9_]*(Error|Exception): ")


class _ActionableToolExercise(ToolExercise):
    """A ToolExercise whose refusals must come from ``ToolError``, not from a stray exception."""

    def __init__(self, *args: Any, raw_exception: tuple[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._add_texts({"raw_exception": raw_exception})

    def _judge(self, probe: Probe, result: Any, shown: str) -> str | None:  # type: ignore[override]
        problem = ToolExercise._judge(probe, result, shown)
        if problem is None and probe.expect == "error" and _EXCEPTION_PREFIX.match(result.text):
            return self.text("raw_exception").replace("CALL", shown)
        return problem


def _booked(station: str, start_hour: int, end_hour: int) -> Any:
    def accept(result: Any) -> bool:
        data = result.structured_content or {}
        return (
            data.get("station") == station
            and data.get("start_hour") == start_hour
            and data.get("end_hour") == end_hour
        )

    return accept


q4 = _ActionableToolExercise(
    "04",
    "q4",
    tool="rent_bike",
    title=("모델이 고칠 수 있는 오류를 내는 도구", "A tool whose errors a model can fix"),
    question=(
        "자전거 대여 도구 `rent_bike`를 만드세요. 조건은 다음과 같습니다.\n"
        '- 인자는 `station`(대여소: `"north"`, `"south"`, `"river"`만 허용, 필수), `start_hour`(정수, 필수), `hours`(정수, 필수)입니다.\n'
        "- 대여소는 9시에 문을 열고, 자전거는 18시까지 돌려줘야 합니다. `start_hour`는 9 이상이어야 하고, `hours`는 1 이상이며, 끝나는 시각 "
        "`start_hour + hours`는 18을 넘으면 안 됩니다.\n"
        "- 조건을 어기면 `ToolError`로 거절합니다. 메시지에는 틀린 인자의 이름과 지켜야 할 범위를 적어서, 모델이 "
        "읽고 인자를 고쳐 다시 부를 수 있게 하세요.\n"
        '- 성공하면 `{"station": ..., "start_hour": ..., "end_hour": ...}` 모양의 구조화된 결과를 돌려줍니다.\n'
        "- 모델이 언제 쓸지 알 수 있도록 20자 이상의 설명을 씁니다.\n"
        "채점기는 커널 안의 MCP 서버를 거쳐 tools/list로 정의를 읽고, 바른 인자와 틀린 인자로 tools/call을 보냅니다.",
        "Write a bike rental tool `rent_bike`:\n"
        '- Its arguments are `station` (the rental station: only `"north"`, `"south"` or `"river"`, required), `start_hour` (an integer, '
        "required) and `hours` (an integer, required).\n"
        "- Stations open at 9 and bikes must be back by 18: `start_hour` is at least 9, `hours` at least 1, and the "
        "end `start_hour + hours` must not be later than 18.\n"
        "- A call breaking these rules is refused with `ToolError`, whose message names the wrong argument and "
        "the range to keep, so that a model can read it, fix the argument and call again.\n"
        '- On success it returns a structured result shaped `{"station": ..., "start_hour": ..., "end_hour": ...}`.\n'
        "- A description of at least 20 characters tells a model when to use it.\n"
        "The checker goes through the in-kernel MCP server: it reads the definition with tools/list and sends "
        "tools/call with right and wrong arguments.",
    ),
    params=[
        Param("station", "string", enum=("north", "south", "river")),
        Param("start_hour", "integer"),
        Param("hours", "integer"),
    ],
    output_schema=True,
    probes=[
        Probe(
            {"station": "north", "start_hour": 10, "hours": 2},
            "ok",
            accept=_booked("north", 10, 12),
            advice=(
                '10시부터 2시간이면 `{"station": "north", "start_hour": 10, "end_hour": 12}`가 돌아와야 합니다. 키 이름과 '
                "끝나는 시각 계산을 확인하세요.",
                'Two hours from 10 should give `{"station": "north", "start_hour": 10, "end_hour": 12}`. Check the key '
                "names and the end time.",
            ),
        ),
        Probe(
            {"station": "river", "start_hour": 16, "hours": 2},
            "ok",
            accept=_booked("river", 16, 18),
            advice=(
                "18시에 딱 반납하는 대여는 허용해야 합니다. 끝나는 시각의 비교가 너무 엄격하지 않은지 보세요.",
                "A rental that ends exactly at 18 must be allowed. Check that the end-time comparison is not too "
                "strict.",
            ),
        ),
        Probe(
            {"station": "north", "start_hour": 7, "hours": 1},
            "error",
            names="start_hour",
            advice=(
                "9시 전에 시작하는 대여는 거절해야 합니다. 어느 인자가 틀렸는지 메시지에 이름으로 적으세요.",
                "A rental that starts before 9 must be refused. Name the wrong argument in the message.",
            ),
        ),
        Probe(
            {"station": "south", "start_hour": 17, "hours": 3},
            "error",
            names="18",
            advice=(
                "17시부터 3시간이면 20시에 끝나서 반납 시각을 넘깁니다. 모델이 `hours`를 줄일 수 있게 언제까지 반납해야 "
                "하는지(18시) 메시지에 적으세요.",
                "Three hours from 17 ends at 20, after the return time. Say by when bikes must be back (18) so "
                "the model can shorten `hours`.",
            ),
        ),
        Probe(
            {"station": "north", "start_hour": 10, "hours": 0},
            "error",
            names="hours",
            advice=(
                "0시간짜리 대여는 말이 되지 않습니다. `hours`가 1보다 작으면 거절하고 그 이름을 메시지에 적으세요.",
                "A rental of zero hours makes no sense. Refuse `hours` below 1 and name it in the message.",
            ),
        ),
        Probe(
            {"station": "east", "start_hour": 10, "hours": 1},
            "error",
            names="station",
            advice=(
                "없는 대여소 'east'가 통과했습니다. 허용 값을 타입 힌트로 못박으면 서버가 함수를 부르기 전에 거절합니다.",
                "Station 'east', which does not exist, got through. Pin the allowed values in the type hint and the "
                "server refuses it before calling the function.",
            ),
        ),
    ],
    raw_exception=(
        "CALL 호출은 거절되었지만 메시지가 예외 이름(예: `ValueError:`)으로 시작합니다. `ToolError`가 아닌 예외는 "
        '코드의 버그처럼 보입니다. 모델에게 하는 말이라면 `raise ToolError("...")`로 보내세요.',
        "Calling CALL was refused, but the message starts with an exception name (e.g. `ValueError:`). An "
        "exception other than `ToolError` looks like a bug in the code; for a message to the model, use "
        '`raise ToolError("...")`.',
    ),
    hints=[
        (
            "조건을 둘로 나누세요. 스키마(타입 힌트)로 막을 수 있는 것과, 함수 안에서 직접 확인해야 하는 것입니다.",
            "Split the rules in two: what the schema (type hints) can enforce, and what the function must check "
            "itself.",
        ),
        (
            "허용 값이 정해진 `station`에는 `typing.Literal`을 쓰세요. 끝나는 시각처럼 인자 둘을 함께 봐야 하는 규칙은 "
            "스키마로 표현할 수 없으니 함수 안에서 확인합니다.",
            "Use `typing.Literal` for `station`. A rule that looks at two arguments together, like the end time, "
            "cannot be written in the schema: check it in the function.",
        ),
        (
            "좋은 오류 메시지는 무엇이 틀렸는지, 지금 값이 얼마인지, 어떻게 고치면 되는지를 말합니다. 예: '`hours`가 "
            "너무 깁니다: 17시에 시작하면 ...시간까지만 됩니다.'",
            "A good error message says what is wrong, what the value is now and how to fix it. E.g. '`hours` is "
            "too long: starting at 17 allows at most ... hours.'",
        ),
        (
            '`from mcp_notebook import ToolError`로 가져와 `raise ToolError("...")`로 거절합니다. `ValueError` 같은 '
            "다른 예외를 쓰면 메시지 앞에 예외 이름이 붙습니다.",
            'Import it with `from mcp_notebook import ToolError` and refuse with `raise ToolError("...")`. '
            "Another exception, like `ValueError`, puts its name in front of the message.",
        ),
    ],
    solution=(
        "from typing import Literal\n"
        "from mcp_notebook import ToolError, tool\n\n"
        "OPEN, CLOSE = 9, 18\n\n"
        "@tool\n"
        'def rent_bike(station: Literal["north", "south", "river"], start_hour: int, hours: int) -> dict:\n'
        '    """자전거를 빌립니다. 사용자가 자전거를 빌려 달라고 할 때 쓰세요. 9시부터 빌릴 수 있고 18시까지 반납합니다."""\n'
        "    if start_hour < OPEN:\n"
        '        raise ToolError(f"start_hour={start_hour}: 대여는 {OPEN}시부터 됩니다. start_hour를 {OPEN} 이상으로 '
        '다시 부르세요.")\n'
        "    if hours < 1:\n"
        '        raise ToolError(f"hours={hours}: 대여는 1시간 이상이어야 합니다. hours를 1 이상으로 주세요.")\n'
        "    if start_hour + hours > CLOSE:\n"
        "        raise ToolError(\n"
        '            f"hours={hours}: {start_hour}시에 시작하면 {start_hour + hours}시에 끝나 반납 시각({CLOSE}시)을 '
        '넘깁니다. "\n'
        '            f"hours를 {CLOSE - start_hour} 이하로 줄이거나 더 이른 start_hour를 쓰세요."\n'
        "        )\n"
        '    return {"station": station, "start_hour": start_hour, "end_hour": start_hour + hours}',
        "from typing import Literal\n"
        "from mcp_notebook import ToolError, tool\n\n"
        "OPEN, CLOSE = 9, 18\n\n"
        "@tool\n"
        'def rent_bike(station: Literal["north", "south", "river"], start_hour: int, hours: int) -> dict:\n'
        '    """Rent a bike. Use when the user asks to rent one; rentals start from 9 and bikes are back by 18."""\n'
        "    if start_hour < OPEN:\n"
        '        raise ToolError(f"start_hour={start_hour}: rentals start at {OPEN}. Call again with start_hour >= '
        '{OPEN}.")\n'
        "    if hours < 1:\n"
        '        raise ToolError(f"hours={hours}: a rental lasts at least 1 hour. Give hours >= 1.")\n'
        "    if start_hour + hours > CLOSE:\n"
        "        raise ToolError(\n"
        '            f"hours={hours}: starting at {start_hour} ends at {start_hour + hours}, after the return time '
        '({CLOSE}). "\n'
        '            f"Use hours <= {CLOSE - start_hour} or an earlier start_hour."\n'
        "        )\n"
        '    return {"station": station, "start_hour": start_hour, "end_hour": start_hour + hours}',
    ),
    explanation=(
        "`Literal`로 `station`의 허용 값을 스키마에 넣으면 'east' 같은 값은 함수에 닿기 전에 서버가 필드 이름을 적어 "
        "거절합니다. 인자 둘을 함께 봐야 하는 규칙(끝나는 시각)은 함수가 확인하고, `ToolError`에 틀린 인자, 지금 값, "
        "고치는 방법을 적습니다. 둘 다 `isError: true`인 도구 실행 오류라 모델이 읽고 인자를 고쳐 다시 부를 수 "
        "있습니다. `ValueError`를 쓰면 `ValueError: ...`처럼 예외 이름이 붙어 버그처럼 보입니다.",
        "With `Literal`, the allowed stations are in the schema, so a value like 'east' is refused by the server, "
        "naming the field, before the function runs. A rule over two arguments (the end time) is checked by the "
        "function, and the `ToolError` names the argument, its value and the fix. Both are tool execution errors "
        "(`isError: true`) that a model can read, fix and retry. A `ValueError` would arrive as "
        "`ValueError: ...`, which looks like a bug.",
    ),
)
