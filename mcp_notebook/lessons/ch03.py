"""Exercises of chapter 03 (Prompts): arguments on the wire, completion, why prompt errors are
protocol errors, Prompt vs Tool vs Resource, and a prompt the learner writes, checked through the
real server (``prompts/list``, ``completion/complete``, ``prompts/get``).

>>> from mcp_notebook.lessons.ch03 import q1, q2, q3, q4, q5
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..core._text import t
from ._answers import Classification, MultipleChoice, ShortAnswer
from ._exercise import Exercise, NotAttempted, user_namespace
from ._texts import Text
from ._toolcheck import CALL_TIMEOUT, served_catalogue
from ._vocab import PRIMITIVES

__all__ = ["q1", "q2", "q3", "q4", "q5"]

# -- "write a prompt": a checker that goes through the real server --------------------------------
_P = "lessons.ch03.prompt_check"


@dataclass(frozen=True)
class Choice:
    """An optional prompt argument with a fixed set of values (a ``Literal``) and a default."""

    name: str
    values: tuple[str, ...]
    default: str


class PromptExercise(Exercise):
    """The learner defines a prompt with ``@prompt``; the checker lists, completes and gets it over MCP.

    The prompt takes `required` (whose value must appear in a user message) and the optional `choice`
    (a ``Literal``: completed by the server from its values, other values refused, and the messages
    must differ between its values).
    """

    def __init__(
        self,
        chapter: str,
        name: str,
        *,
        prompt: str,
        required: str,
        sample: str,
        choice: Choice,
        description_min: int = 10,
        literal_advice: Text,
        **texts: Any,
    ) -> None:
        super().__init__(chapter, name, variable=None, **texts)
        self.prompt = prompt
        self.required = required
        self.sample = sample
        self.choice = choice
        self.description_min = description_min
        self.requests = 0
        self._add_texts({"literal_advice": literal_advice})

    # -- finding the learner's prompt ---------------------------------------------------------------
    def how_to_answer(self) -> str:
        return t(f"{_P}.how", prompt=self.prompt, name=self.name)

    def find_answer(self) -> Any:
        if served_catalogue().get_prompt(self.prompt) is not None:
            return self.prompt
        function = user_namespace().get(self.prompt)
        if callable(function):
            return function  # defined, but perhaps without @prompt: evaluate says so
        raise NotAttempted

    def evaluate(self, answer: Any) -> list[str]:
        catalogue = served_catalogue()
        if isinstance(answer, str):
            name = answer
            if catalogue.get_prompt(name) is None:
                if callable(user_namespace().get(name)):
                    return [t(f"{_P}.not_a_prompt", prompt=name)]
                return [t(f"{_P}.not_listed", prompt=name)]
        elif callable(answer):
            entry = next((e for e in catalogue.prompts() if e.fn is answer), None)
            if entry is None:
                return [t(f"{_P}.not_a_prompt", prompt=getattr(answer, "__name__", self.prompt))]
            name = entry.name
        else:
            return [t(f"{_P}.not_a_prompt", prompt=self.prompt)]
        problems = [] if name == self.prompt else [t(f"{_P}.wrong_name", given=name, prompt=self.prompt)]
        import mcp_notebook

        started_here = mcp_notebook.current_server() is None
        server = mcp_notebook.serve() if started_here else None
        self.requests = 0
        try:
            self.requests += 1
            definition = next((d for d in mcp_notebook.list_prompts() if d["name"] == name), None)
            if definition is None:
                return [*problems, t(f"{_P}.not_listed", prompt=name)]
            problems += self._definition_problems(definition)
            problems += self._probe_problems(name)
        finally:
            if server is not None:
                server.stop()
        return problems

    def praise(self) -> list[str]:
        return [t(f"{_P}.checked_via", requests=self.requests), *super().praise()]

    # -- what prompts/list shows --------------------------------------------------------------------
    def _definition_problems(self, definition: dict[str, Any]) -> list[str]:
        problems = []
        description = (definition.get("description") or "").strip()
        if len(description) < self.description_min:
            problems.append(t(f"{_P}.no_description", length=len(description), minimum=self.description_min))
        arguments = {a["name"]: a for a in definition.get("arguments") or []}
        for argument, required in ((self.required, True), (self.choice.name, False)):
            found = arguments.get(argument)
            if found is None:
                problems.append(t(f"{_P}.no_argument", argument=argument))
            elif required and not found.get("required"):
                problems.append(t(f"{_P}.should_be_required", argument=argument))
            elif not required and found.get("required"):
                problems.append(t(f"{_P}.should_be_optional", argument=argument, default=self.choice.default))
        return problems

    # -- what completion/complete and prompts/get answer --------------------------------------------
    def _probe_problems(self, name: str) -> list[str]:
        from mcp_notebook import ClientConnectionError, ProtocolError, complete, get_prompt

        choice = self.choice
        problems: list[str] = []
        literal_missed = False

        # completion/complete: every value for an empty field, only the matching ones for a prefix
        prefix = choice.values[-1][:2]
        for partial in ("", prefix):
            expected = [v for v in choice.values if v.startswith(partial)]
            shown = f"completion/complete {name}.{choice.name}={partial!r}"
            self.requests += 1
            try:
                got = complete(name, choice.name, partial, timeout=CALL_TIMEOUT)
            except ProtocolError as exc:
                problems.append(t(f"{_P}.request_error", request=shown, error=f"[{exc.code}] {exc.message}"))
                continue
            except ClientConnectionError as exc:
                return [*problems, t(f"{_P}.unreachable", request=shown, error=str(exc))]
            if sorted(got) != sorted(expected):
                problems.append(
                    t(
                        f"{_P}.completion",
                        argument=choice.name,
                        partial=partial,
                        got=_json(got),
                        expected=_json(expected),
                    )
                )
                literal_missed = True

        # prompts/get: each allowed value, the default, and two requests that must be refused
        texts: dict[str, str] = {}
        outside = {self.required: self.sample, choice.name: "guru"}  # a value the Literal does not allow
        gets: list[tuple[dict[str, str], bool]] = [
            *(({self.required: self.sample, choice.name: value}, True) for value in choice.values),
            ({self.required: self.sample}, True),
            ({choice.name: choice.values[0]}, False),
            (outside, False),
        ]
        value_missing = False
        for arguments, should_work in gets:
            shown = f"prompts/get {name} {json.dumps(arguments, ensure_ascii=False)}"
            self.requests += 1
            try:
                result = get_prompt(name, arguments, timeout=CALL_TIMEOUT)
            except ProtocolError as exc:
                error = f"[{exc.code}] {exc.message}"
                if should_work:
                    problems.append(t(f"{_P}.request_error", request=shown, error=error))
                elif exc.code != -32602:
                    problems.append(t(f"{_P}.wrong_code", request=shown, code=exc.code, error=exc.message))
                continue
            except ClientConnectionError as exc:
                return [*problems, t(f"{_P}.unreachable", request=shown, error=str(exc))]
            if not should_work:
                problems.append(t(f"{_P}.should_fail", request=shown))
                literal_missed = literal_missed or arguments is outside
                continue
            text = _user_text(result.messages)
            if text is None:
                problems.append(t(f"{_P}.no_user_message", request=shown))
            elif self.sample not in text:
                if not value_missing:  # once is enough: the same text comes back for every request
                    problems.append(
                        t(f"{_P}.value_missing", request=shown, value=self.sample, argument=self.required)
                    )
                value_missing = True
            elif choice.name in arguments:
                texts[arguments[choice.name]] = text
        if len(texts) == len(choice.values) and len(set(texts.values())) == 1:
            first, second = choice.values[:2]
            problems.append(t(f"{_P}.same_text", argument=choice.name, first=first, second=second))
        if literal_missed:
            problems.append(self.text("literal_advice"))
        return problems


def _user_text(messages: list[dict[str, Any]]) -> str | None:
    """The text of the user messages (None when there is no user message)."""
    parts = []
    for message in messages:
        if message.get("role") != "user":
            continue
        content = message.get("content") or {}
        resource = content.get("resource") if content.get("type") == "resource" else None
        parts.append(str(content.get("text") or (resource or {}).get("text") or ""))
    return "\n".join(parts) if parts else None


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# -- the exercises --------------------------------------------------------------------------------
q1 = MultipleChoice(
    "03",
    "q1",
    title=("prompts/list에 실리는 인자", "Prompt arguments in prompts/list"),
    question=(
        '`@prompt`로 만든 `code_review(code: str, language: Literal["python", "sql"] = "python")`를 '
        "클라이언트가 `prompts/list`로 받았습니다. 클라이언트는 `language` 인자에 대해 무엇을 알게 될까요?",
        'A client receives `code_review(code: str, language: Literal["python", "sql"] = "python")`, made '
        "with `@prompt`, through `prompts/list`. What does it learn about the argument `language`?",
    ),
    options={
        "A": (
            '`"enum": ["python", "sql"]`이 든 JSON Schema를 받으므로 허용 값을 곧바로 압니다.',
            'It receives a JSON Schema with `"enum": ["python", "sql"]`, so it knows the allowed values at once.',
        ),
        "B": (
            "이름, 설명, 필수 여부만 압니다. 넣을 수 있는 값은 `completion/complete`로 따로 물어봅니다.",
            "Only its name, description and whether it is required. The values it can take are asked for "
            "separately with `completion/complete`.",
        ),
        "C": (
            "아무것도 모릅니다. 인자가 무엇인지는 `prompts/get`을 보내서 오류가 나 봐야 압니다.",
            "Nothing: it learns the arguments only by sending `prompts/get` and reading the error.",
        ),
        "D": (
            '허용 값 두 개와 기본값 `"python"`까지 모두 압니다.',
            'The two allowed values and the default `"python"` as well.',
        ),
    },
    answer="B",
    wrong={
        "A": (
            "그것은 도구의 inputSchema 이야기입니다. 위에서 출력한 프롬프트 정의를 다시 보세요. 인자마다 어떤 필드가 "
            "있었나요? 타입이나 enum이 보였나요?",
            "That is how a tool's inputSchema works. Look again at the prompt definition printed above: which "
            "fields does each argument have? Was there a type or an enum?",
        ),
        "C": (
            "`prompts/list`의 각 프롬프트에는 `arguments` 목록이 함께 옵니다. 그래서 클라이언트는 슬래시 명령을 부르기 "
            "전에 입력 칸을 그릴 수 있습니다.",
            "Each prompt in `prompts/list` comes with its `arguments` list; that is how a client can draw the "
            "input fields before the slash command runs.",
        ),
        "D": (
            "프롬프트 인자의 정의에는 기본값을 적는 자리가 없습니다. 기본값은 서버의 함수 안에만 있고, 사용자가 칸을 "
            "비워 두면 서버가 채웁니다.",
            "A prompt argument's definition has no place for a default. The default lives only in the server's "
            "function, which fills it in when the field is left empty.",
        ),
    },
    hints=[
        (
            "01장의 inputSchema와 비교해 보세요. 위 셀에서 출력한 `arguments`의 항목에는 어떤 키들이 있었나요?",
            "Compare with the inputSchema of chapter 01. Which keys did the items of `arguments` printed above "
            "have?",
        ),
        (
            "프롬프트 인자는 사람이 입력 칸에 채우는 글자라서, 전선 위에서는 값이 언제나 문자열입니다. 그렇다면 칸에 "
            "넣을 후보 값은 어떤 방법으로 얻을까요?",
            "A prompt argument is text a person types into a field, so on the wire every value is a string. How, "
            "then, does the client get candidate values for the field?",
        ),
    ],
    explanation=(
        "프롬프트 인자의 정의는 `name`, `description`, `required`뿐입니다. 타입도 enum도 기본값도 실리지 않고, 값은 "
        "모두 문자열로 오갑니다. 클라이언트가 입력 칸에 후보를 보여 주려면 `completion/complete`로 서버에 물어야 "
        "합니다. mcp-notebook은 `Literal` 타입에서 그 후보를 만들고, 목록 밖의 값은 -32602로 거절합니다.",
        "A prompt argument is defined by `name`, `description` and `required` only: no type, enum or default, "
        "and values travel as strings. To show candidates in a field the client asks the server with "
        "`completion/complete`. mcp-notebook derives them from the `Literal` type and refuses other values "
        "with -32602.",
    ),
)

q2 = ShortAnswer(
    "03",
    "q2",
    title=("입력 칸의 자동 완성", "Autocomplete in an argument field"),
    question=(
        "사용자가 슬래시 명령의 인자 칸에 글자를 칠 때마다, 클라이언트는 후보 값을 받으려고 서버에 요청을 보냅니다. "
        "그 요청의 메서드 이름은 무엇일까요? JSON-RPC `method`에 쓰이는 그대로 답하세요.",
        "Each time a person types into an argument field of a slash command, the client asks the server for "
        "candidate values. What is the method name of that request, as written in the JSON-RPC `method`?",
    ),
    accepted=("completion/complete",),
    wrong={
        "prompts/get": (
            "`prompts/get`은 인자를 다 채운 뒤 완성된 메시지를 받아 오는 요청입니다. 아직 입력 중인 칸의 후보를 묻는 "
            "요청은 따로 있습니다.",
            "`prompts/get` fetches the finished messages once every argument is filled in. Asking for candidates "
            "of a field still being typed is another request.",
        ),
        "prompts/complete": (
            "자동 완성은 프롬프트 인자뿐 아니라 리소스 템플릿의 변수에도 쓰입니다. 그래서 `prompts/` 아래가 아니라 "
            "자기 이름을 가진 묶음에 있습니다.",
            "Completion serves resource template variables as well as prompt arguments, so it does not live "
            "under `prompts/` but in a group of its own.",
        ),
        "prompts/list": (
            "`prompts/list`는 어떤 프롬프트와 인자가 있는지 알려 줄 뿐, 칸에 넣을 값의 후보는 주지 않습니다.",
            "`prompts/list` tells which prompts and arguments exist, not candidate values for a field.",
        ),
        "complete": (
            "거의 맞았습니다. MCP 메서드 이름은 `묶음/동작` 모양입니다. 앞에 붙는 묶음 이름까지 쓰세요.",
            "Almost. MCP method names are shaped `group/action`; write the group name in front too.",
        ),
    },
    hints=[
        (
            "MCP 메서드 이름은 `tools/list`, `prompts/get`처럼 `묶음/동작` 모양입니다. 이번 동작은 '채워 넣을 후보를 "
            "제안하는 것'입니다.",
            "MCP method names are shaped `group/action`, like `tools/list` or `prompts/get`. The action here is "
            "suggesting values to fill in.",
        ),
        (
            "이 장의 자동 완성 절에서 서버로 보낸 JSON 요청을 다시 보세요. 같은 요청이 리소스 템플릿 변수에도 쓰인다는 "
            "점도 떠올려 보세요.",
            "Look again at the JSON request in this chapter's completion section, and remember that the same "
            "request serves resource template variables too.",
        ),
    ],
    explanation=(
        "`completion/complete`는 `ref`(프롬프트는 `ref/prompt`와 이름, 리소스 템플릿은 `ref/resource`와 URI)와 "
        "`argument`(이름과 지금까지 친 글자)를 보내고, `completion.values`로 후보를 받습니다(최대 100개, 더 있으면 "
        "`hasMore`). 서버는 초기화 때 `completions` 기능을 선언해 둡니다.",
        "`completion/complete` sends a `ref` (`ref/prompt` with a name, or `ref/resource` with a template URI) "
        "and an `argument` (its name and what was typed so far), and gets candidates in `completion.values` "
        "(at most 100, `hasMore` if there are more). The server declares the `completions` capability at "
        "initialization.",
    ),
)

q3 = MultipleChoice(
    "03",
    "q3",
    title=("프롬프트의 오류는 왜 -32602일까", "Why prompt errors are -32602"),
    question=(
        "01장에서 도구의 인자가 스키마에 맞지 않으면 `isError: true`인 결과가 된다는 것을 보았습니다. 그런데 "
        "`prompts/get`에 필수 인자가 빠지면 JSON-RPC 오류 -32602가 옵니다. 왜 다를까요?",
        "Chapter 01 showed that a tool argument failing the schema gives a result with `isError: true`. Yet a "
        "`prompts/get` missing a required argument gets JSON-RPC error -32602. Why the difference?",
    ),
    options={
        "A": (
            "프롬프트는 도구보다 덜 중요해서 서버가 오류를 간단히 처리할 뿐입니다.",
            "Prompts matter less than tools, so the server handles their errors the simple way.",
        ),
        "B": (
            "`isError`는 모델이 읽고 스스로 고치게 하려는 장치입니다. 프롬프트 결과에는 그런 필드가 없고 요청을 고칠 "
            "쪽도 모델이 아니라 사용자와 클라이언트이므로, 요청이 성립하지 않는다고 답합니다.",
            "`isError` exists so that a model can read the error and fix its call. A prompt result has no such "
            "field, and whoever fixes the request is the person and the client, not a model: so the server says "
            "the request does not stand.",
        ),
        "C": (
            "-32602는 '서버 내부 오류'라는 뜻으로, 프롬프트 함수가 실행 중에 실패했다는 표시입니다.",
            "-32602 means 'internal server error': the prompt function failed while running.",
        ),
        "D": (
            "2025-11-25 명세부터는 도구의 인자 오류도 -32602로 돌려주므로, 사실 둘은 다르지 않습니다.",
            "Since the 2025-11-25 specification tool argument errors are -32602 too, so there is no difference.",
        ),
    },
    answer="B",
    wrong={
        "A": (
            "중요도의 문제가 아닙니다. 오류 메시지를 읽고 다음 요청을 고치는 쪽이 누구인지 생각해 보세요.",
            "It is not about importance. Think about who reads the error and fixes the next request.",
        ),
        "C": (
            "-32602는 Invalid params, 곧 요청의 인자가 잘못되었다는 뜻입니다. 프롬프트 함수가 실행 중에 실패하면 "
            "Internal error인 -32603이 옵니다.",
            "-32602 is Invalid params: the request's arguments are wrong. A prompt function failing while running "
            "gives Internal error, -32603.",
        ),
        "D": (
            "방향이 반대입니다. 2025-11-25 명세는 도구의 입력 검증 실패를 프로토콜 오류에서 `isError: true` 결과로 "
            "옮겼습니다. 모델이 읽고 고칠 수 있게 하려고요.",
            "The other way round: 2025-11-25 moved tool input validation failures from protocol errors to "
            "`isError: true` results, so that the model can read and fix them.",
        ),
    },
    hints=[
        (
            "도구 호출은 모델이 만들고, 프롬프트 요청은 사용자가 슬래시 명령을 고르고 칸을 채워서 만듭니다.",
            "A tool call is made by the model; a prompt request is made by a person picking a slash command and "
            "filling in its fields.",
        ),
        (
            "`prompts/get`의 결과에는 `messages`와 `description`이 있습니다. 실패를 알리는 필드가 있었나요?",
            "A `prompts/get` result has `messages` and `description`. Was there a field that reports failure?",
        ),
    ],
    explanation=(
        "`isError` 결과는 모델이 오류를 읽고 다음 호출을 고치게 하려는 도구만의 장치입니다. 프롬프트는 사람이 고르고 "
        "클라이언트가 요청을 만들며 결과에 실패 표시가 없으므로, 없는 프롬프트나 빠진·잘못된 인자는 Invalid "
        "params(-32602)인 프로토콜 오류가 됩니다. mcp-notebook은 무엇이 빠졌는지 메시지에 적습니다. 프롬프트 함수 "
        "자체가 실패하면 -32603입니다.",
        "An `isError` result is a tool's way of letting the model read an error and fix its next call. A prompt "
        "is picked by a person, the client builds the request, and the result has no failure flag, so an "
        "unknown prompt or a missing or bad argument is a protocol error, Invalid params (-32602); mcp-notebook "
        "names what is missing. A prompt function that fails gives -32603.",
    ),
)

q4 = Classification(
    "03",
    "q4",
    title=("Prompt일까 Tool일까 Resource일까", "Prompt, Tool or Resource?"),
    question=(
        "데이터베이스 하나를 다루는 MCP 서버를 설계합니다. 아래 기능마다 Tool, Resource, Prompt 중 어느 것으로 "
        "내놓을지 고르세요. 기준은 '이 기능이 쓰이도록 방아쇠를 당기는 쪽이 누구인가'입니다.",
        "You are designing an MCP server for one database. For each capability below, pick whether to offer it "
        "as a Tool, a Resource or a Prompt. The test is who pulls the trigger for it to be used.",
    ),
    vocabulary=PRIMITIVES,
    items={
        "monthly_revenue": (
            (
                "매달 초 사용자가 명령 메뉴에서 직접 골라 돌리는 '지난달 매출 정리' 분석 요청. 달을 인자로 받는다",
                "A 'summarize last month's revenue' analysis that a person picks from the command menu at the "
                "start of each month; it takes the month as an argument",
            ),
            "prompt",
        ),
        "execute_query": (
            (
                "대화를 보던 모델이 필요하다고 판단하면 SQL을 실행해 결과를 가져오는 기능",
                "Runs SQL and brings back the rows whenever the model, following the conversation, decides it "
                "needs to",
            ),
            "tool",
        ),
        "orders_schema": (
            (
                "사용자가 작업 중인 orders 테이블의 컬럼 정의. 앱이 대화에 미리 넣어 둔다",
                "The column definitions of the orders table the person is working on; the app puts them into "
                "the conversation beforehand",
            ),
            "resource",
        ),
        "slow_queries_report": (
            (
                "사용자가 `/slow-queries-report`를 입력해 시작하는 느린 쿼리 점검 보고서 요청",
                "A slow-query review report that a person starts by typing `/slow-queries-report`",
            ),
            "prompt",
        ),
        "explain_plan": (
            (
                "느린 쿼리를 본 모델이 스스로 그 쿼리의 실행 계획을 확인해 보는 기능",
                "The model, seeing a slow query, checks that query's execution plan on its own",
            ),
            "tool",
        ),
        "create_ticket": (
            (
                "'이 버그로 티켓 하나 만들어 줘'라는 말을 들은 모델이 이슈 트래커에 티켓을 만드는 기능",
                "The model, told 'make a ticket for this bug', creates a ticket in the issue tracker",
            ),
            "tool",
        ),
        "sql_style_guide": (
            (
                "팀의 SQL 작성 규칙 문서. 앱이 필요할 때 골라 맥락에 붙인다",
                "The team's SQL style guide; the app attaches it to the context when it fits",
            ),
            "resource",
        ),
    },
    feedback={
        ("monthly_revenue", "tool"): (
            "'monthly_revenue': 모델이 알아서 부르는 기능이라면 Tool이 맞겠지요. 하지만 이 분석은 사람이 원하는 때에 "
            "메뉴에서 직접 고릅니다. 흐름을 쥔 쪽이 사람이면 어느 primitive일까요?",
            "'monthly_revenue': if the model called it by itself, a Tool would fit. But a person picks this "
            "analysis from a menu when they want it. Which primitive is it when a person holds the flow?",
        ),
        ("slow_queries_report", "tool"): (
            "'slow_queries_report': 슬래시(`/`)로 시작하는 이름을 사용자가 직접 쳐서 시작합니다. 모델은 이 일을 "
            "시작할지 정하지 않습니다.",
            "'slow_queries_report': a person starts it by typing a name beginning with a slash (`/`). The model "
            "does not decide whether it starts.",
        ),
        ("create_ticket", "prompt"): (
            "'create_ticket': 사람이 말로 부탁했다고 해서 Prompt가 되지는 않습니다. 부탁을 듣고 티켓 만들기를 실행할지 "
            "정하는 것은 누구인가요? 사람은 그 호출을 승인하거나 거부할 수 있을 뿐입니다.",
            "'create_ticket': a spoken request does not make it a Prompt. Who hears the request and decides to "
            "run the ticket creation? The person can only approve or refuse that call.",
        ),
        ("orders_schema", "tool"): (
            "'orders_schema': 모델이 조회하는 Tool로 만들 수도 있지만, 잘 바뀌지 않는 배경 지식은 앱이 먼저 깔아 두면 "
            "모델이 매번 부를 필요가 없습니다.",
            "'orders_schema': it could be a Tool the model looks up, but background knowledge that rarely "
            "changes is better laid out by the app, so the model never has to call for it.",
        ),
        ("sql_style_guide", "prompt"): (
            "'sql_style_guide': 규칙 문서는 사람이 명령으로 실행하는 틀이 아니라 읽을거리입니다. 누가 골라 맥락에 "
            "붙이나요?",
            "'sql_style_guide': a style guide is something to read, not a template a person runs as a command. "
            "Who chooses to attach it to the context?",
        ),
    },
    hints=[
        (
            "먼저 '무언가를 실행하는 것'과 '읽을거리'를 나누세요. 읽을거리는 대개 앱이 골라 맥락에 넣습니다.",
            "First separate things that run something from things to read. Things to read are usually chosen by "
            "the app and put into the context.",
        ),
        (
            "실행하는 것 가운데에서는 시작 버튼을 누가 누르는지 보세요. 사람이 메뉴나 슬래시 명령에서 직접 집어 드는 것과, "
            "모델이 대화를 보고 쓰기로 정하는 것은 다릅니다.",
            "Among things that run, look at who presses the start button: a person picking it from a menu or a "
            "slash command is different from the model deciding to use it from the conversation.",
        ),
        (
            "사람이 말로 부탁한 일도, 그 말을 듣고 어떤 기능을 실행할지 정하는 것이 모델이라면 사람이 고른 것이 아닙니다.",
            "Even when a person asked in words, if it is the model that hears them and decides which capability "
            "to run, the person did not pick it.",
        ),
    ],
    explanation=(
        "같은 데이터베이스를 향한 기능이라도 방아쇠를 당기는 쪽에 따라 나뉩니다. SQL 실행, 실행 계획 확인, 티켓 만들기는 "
        "모델이 대화를 보고 쓰기로 정하므로 Tool입니다(바꾸는 일은 사람이 승인합니다). 스키마와 규칙 문서는 앱이 골라 "
        "넣는 읽을거리라서 Resource입니다. 월간 매출 분석과 느린 쿼리 보고서는 사람이 원할 때 메뉴나 슬래시 명령으로 "
        "고르는 정해진 틀이라서 Prompt입니다. 같은 일이라도 자동으로 돌게 하고 싶으면 Tool, 사람이 흐름을 쥐게 하고 "
        "싶으면 Prompt입니다.",
        "Capabilities aimed at the same database split by who pulls the trigger. Running SQL, checking a plan "
        "and creating a ticket are decided by the model from the conversation: Tools (with a person approving "
        "changes). The schema and the style guide are things to read that the app chooses to include: "
        "Resources. The monthly revenue analysis and the slow-query report are fixed templates a person picks "
        "from a menu or a slash command when they want: Prompts. The same job is a Tool when it should run by "
        "itself and a Prompt when a person should hold the flow.",
    ),
)

q5 = PromptExercise(
    "03",
    "q5",
    prompt="explain_sql",
    required="query",
    sample="SELECT name FROM users WHERE age > 30",
    choice=Choice("level", ("beginner", "expert"), "beginner"),
    title=("SQL 설명 프롬프트 만들기", "Write an SQL explanation prompt"),
    question=(
        "`explain_sql` 프롬프트를 만드세요. 사용자가 `/explain_sql`로 불러 SQL 쿼리를 설명해 달라고 요청하는 "
        "슬래시 명령입니다.\n"
        "- 인자 `query`(필수): 설명할 SQL 쿼리입니다.\n"
        '- 인자 `level`(선택, 기본값 `"beginner"`): `"beginner"`와 `"expert"`만 받습니다. 클라이언트가 입력 칸에서 '
        "이 두 값을 자동 완성할 수 있어야 하고, 다른 값은 서버가 거절해야 합니다.\n"
        "- user 메시지를 돌려주고, 그 글에 받은 `query`가 그대로 들어 있어야 합니다. `level`에 따라 글이 달라져야 "
        "합니다.\n"
        "- 슬래시 명령 메뉴에 보일 설명을 10자 이상 씁니다.\n"
        "채점기는 커널 안의 MCP 서버를 거쳐 `prompts/list`로 정의를 읽고, `completion/complete`로 `level`의 후보를 "
        "묻고, `prompts/get`으로 여러 인자 조합을 보냅니다. `query`가 빠진 요청과 `level`이 목록 밖의 값인 요청은 "
        "-32602로 거절되어야 합니다.",
        "Write a prompt `explain_sql`: a slash command a person runs as `/explain_sql` to ask for an explanation "
        "of an SQL query.\n"
        "- Argument `query` (required): the SQL query to explain.\n"
        '- Argument `level` (optional, default `"beginner"`): only `"beginner"` or `"expert"`. Clients must be '
        "able to autocomplete these two values in the field, and the server must refuse any other value.\n"
        "- It returns a user message whose text contains the `query` it got, unchanged. The text must change "
        "with `level`.\n"
        "- A description of at least 10 characters shows in the slash-command menu.\n"
        "The checker goes through the in-kernel MCP server: it reads the definition with `prompts/list`, asks "
        "`completion/complete` for candidates of `level`, and sends `prompts/get` with several arguments. A "
        "request without `query` and one with a `level` outside the list must be refused with -32602.",
    ),
    literal_advice=(
        "허용 값이 정해진 인자에는 `typing.Literal`로 타입을 다세요. 그러면 서버가 그 값들로 자동 완성을 하고, 목록 "
        "밖의 값은 -32602로 거절합니다.",
        "Give an argument with fixed allowed values a `typing.Literal` type: the server then completes from those "
        "values and refuses others with -32602.",
    ),
    hints=[
        (
            "`@prompt`는 `@tool`처럼 함수에서 정의를 만듭니다. 함수 이름이 프롬프트 이름, docstring 첫 줄이 설명, "
            "매개변수가 인자가 되고, 기본값이 없는 매개변수는 필수 인자가 됩니다.",
            "`@prompt` builds the definition from the function, like `@tool`: the function name is the prompt's "
            "name, the docstring's first line its description, the parameters its arguments; a parameter "
            "without a default is required.",
        ),
        (
            "자동 완성과 거절은 직접 구현하지 않아도 됩니다. `level`의 타입 힌트를 허용 값만 받는 타입으로 쓰면 서버가 "
            "둘 다 해 줍니다.",
            "You need not implement completion or refusal yourself: type `level` with a hint that allows only "
            "the permitted values, and the server does both.",
        ),
        (
            "문자열을 돌려주면 user 메시지 하나가 됩니다. f-문자열로 `query`를 넣고, `level`에 따라 다른 문장을 "
            "고르세요.",
            "Returning a str makes one user message. Put `query` in with an f-string and pick a different "
            "sentence depending on `level`.",
        ),
    ],
    solution=(
        "from typing import Literal\n"
        "from mcp_notebook import prompt\n\n"
        "@prompt\n"
        'def explain_sql(query: str, level: Literal["beginner", "expert"] = "beginner") -> str:\n'
        '    """SQL 쿼리가 하는 일을 설명해 달라고 요청합니다."""\n'
        '    if level == "beginner":\n'
        '        how = "SQL을 처음 배우는 사람도 알아듣게 쉬운 말로"\n'
        "    else:\n"
        '        how = "숙련된 개발자에게 말하듯 실행 계획과 인덱스까지 짚어서"\n'
        '    return f"다음 SQL 쿼리가 하는 일을 {how} 설명해 주세요.\\n\\n{query}"',
        "from typing import Literal\n"
        "from mcp_notebook import prompt\n\n"
        "@prompt\n"
        'def explain_sql(query: str, level: Literal["beginner", "expert"] = "beginner") -> str:\n'
        '    """Ask for an explanation of what an SQL query does."""\n'
        '    if level == "beginner":\n'
        '        how = "in plain words, for someone new to SQL"\n'
        "    else:\n"
        '        how = "for an experienced developer, including the plan and indexes"\n'
        '    return f"Explain what this SQL query does, {how}.\\n\\n{query}"',
    ),
    explanation=(
        "기본값이 없는 `query`는 필수 인자, 기본값이 있는 `level`은 선택 인자가 됩니다. `Literal` 타입 덕분에 서버는 "
        "`completion/complete`에 두 값을 후보로 내주고, 목록 밖의 값이나 빠진 `query`는 함수에 닿기 전에 -32602로 "
        "거절합니다. 돌려준 문자열은 user 메시지 하나가 되어, 클라이언트가 그대로 대화에 넣습니다.",
        "`query`, without a default, is required; `level`, with one, is optional. Thanks to the `Literal` type "
        "the server offers the two values to `completion/complete` and refuses other values or a missing "
        "`query` with -32602 before the function runs. The returned string becomes one user message that the "
        "client puts into the conversation as it is.",
    ),
)
