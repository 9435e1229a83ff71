"""Chapter 01b: the agent loop over the real in-kernel server. The scripted model weighs the meanings a
tool's name, description and schema share with the request (Korean and English alike), fills arguments
from the schema, looks a missing ID up first, and corrects a call from what an ``isError`` message says
(its own table: ``test_scripted_model.py``). The exercises are judged by what the loop does with the
learner's tool. The same loop drives a model behind an OpenAI-compatible endpoint, here a fake one on
127.0.0.1 (never the network)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Annotated, Any, Literal

import mcp_types as types
import pytest

import mcp_notebook
from mcp_notebook import Catalogue, ClientConnectionError, Context, ToolError, lint, set_language, tool
from mcp_notebook.lessons import ch01b
from mcp_notebook.lessons._agent import (
    Call,
    ChatCompletionsModel,
    SamplingModel,
    ScriptedModel,
    run_agent,
    words,
)
from mcp_notebook.lessons._exercise import given_code
from tests.conftest import ERAS, connect

STATIONS: dict[str, dict[str, Any]] = {
    "ST-1043": {"name": "여의나루역 1번출구 앞", "bikes": 7, "kids": 2},
    "ST-2210": {"name": "뚝섬유원지역 2번출구", "bikes": 12, "kids": 0},
    "ST-0501": {"name": "광화문역 5번출구", "bikes": 3, "kids": 1},
    "ST-3318": {"name": "서울숲 3번출입구", "bikes": 9, "kids": 4},
}
STATIONS_EN: dict[str, dict[str, Any]] = {
    "ST-1043": {"name": "Yeouinaru Station Exit 1", "bikes": 7, "kids": 2},
    "ST-2210": {"name": "Ttukseom Resort Station Exit 2", "bikes": 12, "kids": 0},
    "ST-0501": {"name": "Gwanghwamun Station Exit 5", "bikes": 3, "kids": 1},
    "ST-3318": {"name": "Seoul Forest Gate 3", "bikes": 9, "kids": 4},
}


def define_find_station(catalogue: Catalogue) -> None:
    @tool(read_only=True, catalogue=catalogue)
    def find_station(name: Annotated[str, "대여소 이름의 일부, 예: 여의나루역"]) -> dict[str, str]:
        """대여소가 어디 있는지 물을 때 씁니다. 이름으로 대여소를 찾아 주소와 ID를 알려 줍니다."""
        for key, station in STATIONS.items():
            if name in str(station["name"]):
                return {"station_id": key, "name": str(station["name"])}
        raise ToolError("그런 이름의 대여소가 없습니다. 역 이름처럼 더 짧게 찾아 보세요.")

    @tool(read_only=True, catalogue=catalogue)
    def ride_history() -> dict[str, float]:
        """이번 달에 따릉이를 몇 번 탔는지 물을 때 씁니다. 탄 횟수와 거리를 알려 줍니다."""
        return {"rides": 12, "km": 34.5}


def define_bike_count(catalogue: Catalogue, description: str, *, fixable: bool = True) -> None:
    @tool(read_only=True, catalogue=catalogue, description=description, lint=False)
    def bike_count(station_id: str) -> int:
        if station_id in STATIONS:
            return int(STATIONS[station_id]["bikes"])
        near = [key for key, s in STATIONS.items() if station_id in str(s["name"])]
        if fixable and near:
            raise ToolError(
                f"station_id에는 대여소 ID를 넣습니다. 이름이 맞는 대여소의 ID는 '{near[0]}'입니다."
            )
        raise ToolError("대여소 ID가 아닙니다.")


GOOD = "대여소에 자전거가 몇 대 남았는지 물을 때 씁니다. 지금 남아 있는 자전거 수를 돌려줍니다."


# -- the scripted model -------------------------------------------------------------------------------
def test_words_leave_out_stop_words_and_one_syllable_korean() -> None:
    assert words("How many bikes are left at the station? 몇 대 남았어") == {
        "how many",
        "bikes",
        "left",
        "station",
        "몇",
        "남았어",
    }


def test_the_model_picks_the_tool_whose_description_says_what_the_request_asks(
    server: Any, catalogue: Catalogue
) -> None:
    define_find_station(catalogue)
    define_bike_count(catalogue, GOOD)
    run = run_agent("'ST-1043' 대여소에 자전거가 몇 대 남았어?")
    assert run.picked == "bike_count" and run.solved_by == "bike_count"
    assert run.steps[0].call.arguments == {"station_id": "ST-1043"}
    assert run.answer == "7" and run.final is not None and run.final.structured == {"result": 7}
    assert run.scores[0][0] == "bike_count" and run.scores[0][1] > 3 * run.scores[1][1]
    assert "bike_count 3 (남았어, 대여소에, 몇, 자전거가)" in repr(run)


def test_a_vague_description_cannot_be_told_from_the_other_bike_tool(
    server: Any, catalogue: Catalogue
) -> None:
    define_find_station(catalogue)
    define_bike_count(catalogue, "수를 셉니다.")
    run = run_agent("'ST-2210'에 지금 빌릴 수 있는 따릉이 있어?")
    assert run.steps == [] and run.final is None
    assert "가릴 수 없습니다" in run.answer and "bike_count" in run.answer and "ride_history" in run.answer


def test_a_description_claiming_another_tools_job_makes_the_model_ask(
    server: Any, catalogue: Catalogue
) -> None:
    define_find_station(catalogue)
    define_bike_count(catalogue, "대여소, 어디, 위치: 대여소에 관한 것이면 무엇이든 알려 줍니다.")
    run = run_agent("'여의나루역' 대여소는 어디 있어?")
    assert run.steps == []
    assert "가릴 수 없습니다" in run.answer and "find_station과 bike_count" in run.answer


def test_no_tool_fits_and_nothing_is_called(server: Any, catalogue: Catalogue) -> None:
    define_bike_count(catalogue, GOOD)
    run = run_agent("내일 날씨 알려 줘")
    assert run.steps == [] and "맞는 도구가 없어서" in run.answer


def test_a_name_is_looked_up_first_and_its_id_used(server: Any, catalogue: Catalogue) -> None:
    define_find_station(catalogue)
    define_bike_count(catalogue, GOOD)
    run = run_agent("'뚝섬유원지역' 대여소에 자전거가 몇 대 남았어?")
    assert [(s.call.tool, s.call.arguments) for s in run.steps] == [
        ("find_station", {"name": "뚝섬유원지역"}),
        ("bike_count", {"station_id": "ST-2210"}),
    ]
    assert run.answer == "12"
    assert "find_station을 먼저 부릅니다" in repr(run) and "station_id = 'ST-2210'을 얻어" in repr(run)


def test_the_model_reads_is_error_and_retries_with_the_value_the_message_names(
    server: Any, catalogue: Catalogue
) -> None:
    define_bike_count(catalogue, GOOD)
    first = Call("bike_count", {"station_id": "여의나루역"})
    run = run_agent("'여의나루역' 대여소에 자전거가 몇 대 남았어?", first=first)
    assert [(s.call.arguments["station_id"], s.is_error) for s in run.steps] == [
        ("여의나루역", True),
        ("ST-1043", False),
    ]
    assert "first=" in repr(run)
    assert "모델이 오류를 읽고 station_id에 'ST-1043'을 넣어 다시 부릅니다." in repr(run)
    assert [c.tool for c in server.calls] == ["bike_count", "bike_count"]  # through the real server


def test_a_message_without_a_value_to_use_makes_the_model_give_up(server: Any, catalogue: Catalogue) -> None:
    define_bike_count(catalogue, GOOD, fixable=False)
    first = Call("bike_count", {"station_id": "여의나루역"})
    run = run_agent("'여의나루역' 대여소에 자전거가 몇 대 남았어?", first=first)
    assert len(run.steps) == 1 and run.final is None
    assert "대여소 ID가 아닙니다" in run.answer


def test_an_enum_lets_the_model_fill_an_argument_the_request_names(server: Any, catalogue: Catalogue) -> None:
    @tool(read_only=True, catalogue=catalogue, description=GOOD, lint=False)
    def bike_count(station_id: str, kind: Literal["일반", "새싹"]) -> int:
        return int(STATIONS[station_id]["kids" if kind == "새싹" else "bikes"])

    run = run_agent("How many kids bikes are left at station 'ST-1043'?")
    assert run.steps[0].call.arguments == {"station_id": "ST-1043", "kind": "새싹"}
    assert run.answer == "2"


def test_a_free_string_the_request_does_not_give_is_left_out_and_the_server_says_so(
    server: Any, catalogue: Catalogue
) -> None:
    @tool(read_only=True, catalogue=catalogue, description=GOOD, lint=False)
    def bike_count(station_id: str, kind: str) -> int:
        return 0

    run = run_agent("'ST-1043' 대여소에 새싹 자전거가 몇 대 남았어?")
    assert run.steps[0].call.arguments == {"station_id": "ST-1043"}  # never a made-up kind
    assert "kind에 넣을 값을 알 수 없어서 빼고 부릅니다" in repr(run)
    assert run.steps[0].is_error and "kind" in run.steps[0].text
    assert len(run.steps) == 1 and run.final is None  # 'kind', quoted in the message, is no value


def test_numbers_fill_number_parameters(server: Any, catalogue: Catalogue) -> None:
    @tool(read_only=True, catalogue=catalogue, lint=False)
    def convert_temperature(value: float, unit: Literal["C", "F"]) -> float:
        """Convert a temperature between Celsius and Fahrenheit; unit is the unit of value."""
        return value * 9 / 5 + 32 if unit == "C" else (value - 32) * 5 / 9

    assert ScriptedModel().arguments("convert 30 C to fahrenheit", mcp_notebook.list_tools()[0]) == {
        "value": 30.0,
        "unit": "C",
    }


def test_the_trace_is_in_english_too(server: Any, catalogue: Catalogue) -> None:
    set_language("en")
    define_bike_count(catalogue, "Use when someone asks how many bikes are left at a station.")
    run = run_agent("How many bikes are left at station 'ST-1043'?")
    assert repr(run).startswith("Request: How many bikes")
    assert "Answer: 7" in repr(run)


# -- a model behind an OpenAI-compatible endpoint: a fake one on 127.0.0.1 -----------------------------
class FakeEndpoint:
    """A chat-completions endpoint that answers from a script and keeps every request it got."""

    def __init__(self, replies: list[tuple[int, dict[str, Any]]]) -> None:
        self.replies = list(replies)
        self.requests: list[tuple[dict[str, str], dict[str, Any]]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests.append(({"path": self.path, **dict(self.headers)}, body))
                status, reply = endpoint.replies.pop(0)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:  # keep the test output clean
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)

    def __enter__(self) -> FakeEndpoint:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.shutdown()
        self.http.server_close()


def tool_call(name: str, arguments: dict[str, Any], call_id: str) -> tuple[int, dict[str, Any]]:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }
    return 200, {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}


def answer(text: str) -> tuple[int, dict[str, Any]]:
    return 200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}


def test_an_openai_compatible_model_drives_the_same_loop_through_the_real_server(
    server: Any, catalogue: Catalogue
) -> None:
    define_find_station(catalogue)
    define_bike_count(catalogue, GOOD)
    replies = [
        tool_call("bike_count", {"station_id": "여의나루역"}, "call_a"),
        tool_call("bike_count", {"station_id": "ST-1043"}, "call_b"),
        answer("7대 남았습니다."),
    ]
    with FakeEndpoint(replies) as endpoint:
        model = ChatCompletionsModel(endpoint.url, "test-model", key="sk-test-key")
        run = run_agent("'여의나루역' 대여소에 자전거가 몇 대 남았어?", model)
    assert [(s.call.arguments["station_id"], s.is_error) for s in run.steps] == [
        ("여의나루역", True),
        ("ST-1043", False),
    ]
    assert run.answer == "7대 남았습니다."
    assert [c.arguments for c in server.calls] == [{"station_id": "여의나루역"}, {"station_id": "ST-1043"}]
    headers, first = endpoint.requests[0]
    assert headers["path"] == "/v1/chat/completions"
    assert headers["Authorization"] == "Bearer sk-test-key"
    assert first["model"] == "test-model"
    offered = {t["function"]["name"]: t["function"] for t in first["tools"]}
    assert offered["bike_count"]["description"] == GOOD
    assert offered["bike_count"]["parameters"]["required"] == ["station_id"]
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    _, last = endpoint.requests[2]
    assert [m["role"] for m in last["messages"]] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
    ]
    error_reply = last["messages"][3]
    assert error_reply["tool_call_id"] == "call_a"
    assert error_reply["content"].startswith("isError: true") and "'ST-1043'" in error_reply["content"]
    assert last["messages"][5]["content"] == "7"
    assert "sk-test-key" not in repr(model)


def test_an_endpoint_that_refuses_gets_a_clear_error(server: Any, catalogue: Catalogue) -> None:
    define_bike_count(catalogue, GOOD)
    with FakeEndpoint([(401, {"error": {"message": "invalid api key"}})]) as endpoint:
        model = ChatCompletionsModel(endpoint.url, "test-model", key="wrong")
        with pytest.raises(ClientConnectionError) as caught:
            run_agent("'ST-1043' 대여소에 자전거가 몇 대 남았어?", model)
    assert "HTTP 401" in str(caught.value) and "invalid api key" in str(caught.value)
    assert "키를 확인하세요" in str(caught.value)


def test_an_answer_not_shaped_like_chat_completions_is_named(server: Any, catalogue: Catalogue) -> None:
    define_bike_count(catalogue, GOOD)
    with (
        FakeEndpoint([(200, {"result": "hello"})]) as endpoint,
        pytest.raises(ClientConnectionError, match=r"choices\[0\]\.message"),
    ):
        run_agent("'ST-1043' 대여소에 자전거가 몇 대 남았어?", ChatCompletionsModel(endpoint.url, "m"))


def test_an_unreachable_endpoint_says_what_to_check(server: Any, catalogue: Catalogue) -> None:
    define_bike_count(catalogue, GOOD)
    with FakeEndpoint([]) as endpoint:
        url = endpoint.url
    with pytest.raises(ClientConnectionError, match="/v1"):
        run_agent("'ST-1043' 대여소에 자전거가 몇 대 남았어?", ChatCompletionsModel(url, "m", timeout=5))


@pytest.fixture
def no_model_variables(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    for name in ("MCP_NOTEBOOK_LLM_URL", "MCP_NOTEBOOK_LLM_MODEL", "MCP_NOTEBOOK_LLM_KEY"):
        monkeypatch.delenv(name, raising=False)
    yield monkeypatch


def test_the_model_comes_from_the_environment_and_says_what_is_missing(
    no_model_variables: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ValueError, match=r"MCP_NOTEBOOK_LLM_URL.*MCP_NOTEBOOK_LLM_MODEL"):
        ChatCompletionsModel.from_env()
    no_model_variables.setenv("MCP_NOTEBOOK_LLM_URL", "http://127.0.0.1:11434/v1/")
    no_model_variables.setenv("MCP_NOTEBOOK_LLM_MODEL", "qwen2.5:7b")
    model = ChatCompletionsModel.from_env()
    assert (model.url, model.model, model.key) == ("http://127.0.0.1:11434/v1", "qwen2.5:7b", None)


# -- the exercises' model answers follow the course's rules --------------------------------------------
@pytest.mark.parametrize("language", ["ko", "en"])
@pytest.mark.parametrize("name", ["q1", "q2", "q3"])
def test_each_model_answer_passes_the_linter_without_a_finding(
    name: str, language: str, catalogue: Catalogue
) -> None:
    set_language(language)  # type: ignore[arg-type]
    exercise = getattr(ch01b, name)
    namespace: dict[str, Any] = {"STATIONS": STATIONS, "ToolError": ToolError}
    code = exercise.solution_code().replace(
        "@tool(read_only=True)", "@tool(read_only=True, catalogue=catalogue)"
    )
    namespace["catalogue"] = catalogue
    exec(f"from mcp_notebook import tool\n{code}", namespace)
    entry = catalogue.get("bike_count")
    assert entry is not None
    assert list(lint(entry)) == []


def test_the_chapters_own_tool_shown_with_the_question_is_not_an_answer(
    server: Any, catalogue: Catalogue
) -> None:
    define_find_station(catalogue)
    define_bike_count(catalogue, "수를 셉니다.")
    repr(ch01b.q1)  # the notebook shows the question after defining the weak tool
    assert ch01b.q1.check().kind == "not_attempted" and ch01b.q1.attempts == 0
    define_bike_count(catalogue, GOOD)
    assert ch01b.q1.check().correct


def test_the_chapters_find_station_and_the_model_answer_together_pass_the_linter(
    catalogue: Catalogue,
) -> None:
    from mcp_notebook.lessons import _content

    namespace: dict[str, Any] = {"catalogue": catalogue}
    for code in (given_code(_content.chapter_data("01b")["q1"]["given"], "ko"), ch01b.q1.solution_code()):
        code = code.replace("@tool(read_only=True)", "@tool(read_only=True, catalogue=catalogue)")
        exec(f"from typing import Annotated\nfrom mcp_notebook import ToolError, tool\n{code}", namespace)
    assert sorted(e.name for e in catalogue.tools()) == ["bike_count", "find_station", "ride_history"]
    assert lint(catalogue) == []


# -- the exercises, judged by what the loop does -----------------------------------------------------------
def _notebook(shell: Any, language: str, solution: str) -> None:
    """The chapter's set-up in `language` (its station names too), then `solution`, in the shell."""
    from mcp_notebook.lessons import _content

    set_language(language)  # type: ignore[arg-type]
    given = given_code(_content.chapter_data("01b")["q1"]["given"], language)
    prelude = "from typing import Annotated, Literal\nfrom mcp_notebook import ToolError, tool\n"
    assert shell.run_cell(prelude + given, silent=True).success
    assert shell.run_cell(solution, silent=True).success


@pytest.mark.parametrize("language", ["ko", "en"])
@pytest.mark.parametrize("name", ["q1", "q2", "q3"])
def test_each_model_answer_is_right_in_its_own_notebook(name: str, language: str, shell: Any) -> None:
    srv = mcp_notebook.serve()
    try:
        exercise = getattr(ch01b, name)
        _notebook(shell, language, exercise.solution_code())
        feedback = exercise.check()
        assert feedback.correct, repr(feedback)
        assert "채점기가" in repr(feedback) or "checker ran" in repr(feedback)
    finally:
        srv.stop()
        mcp_notebook.default_catalogue.clear()


def test_the_check_puts_its_other_tools_back_as_it_found_them(shell: Any) -> None:
    srv = mcp_notebook.serve()
    try:
        _notebook(shell, "ko", ch01b.q1.solution_code())
        before = sorted(e.name for e in srv.catalogue.tools())
        assert ch01b.q1.check().correct
        assert (
            sorted(e.name for e in srv.catalogue.tools())
            == before
            == ["bike_count", "find_station", "ride_history"]
        )
        assert [t["name"] for t in mcp_notebook.list_tools() if t["name"] == "rental_fee"] == []
    finally:
        srv.stop()
        mcp_notebook.default_catalogue.clear()


def test_the_feedback_names_the_first_request_that_failed_and_shows_its_trace(shell: Any) -> None:
    srv = mcp_notebook.serve()
    try:
        vague = '@tool(read_only=True)\ndef bike_count(station_id: str) -> int:\n    """Counts."""\n    return STATIONS[station_id]["bikes"]\n'
        _notebook(shell, "en", vague)
        first = repr(ch01b.q1.check())
        again = repr(ch01b.q1.check())
        assert first == again  # deterministic: the same requests, the same model, the same trace
        lines = first.splitlines()
        assert any("of 18 requests" in line for line in lines), first
        failed = next(i for i, line in enumerate(lines) if line.strip().startswith("Request "))
        assert lines[failed + 1].strip().startswith("- Request: ")  # the trace of that request follows
        assert any("The model read the tool list" in line for line in lines)
        assert "Say what this tool tells" in first  # the advice of that request, in English
    finally:
        srv.stop()
        mcp_notebook.default_catalogue.clear()


def test_every_exercise_asks_enough_of_the_loop() -> None:
    q1, q2, q3 = ch01b.q1, ch01b.q2, ch01b.q3
    solving = [r for r in q1.runs if r.solved_by == "bike_count"]
    assert len(solving) >= 5 and q1.every_language  # five paraphrases, each in both languages
    assert len([r for r in q1.runs if r.picks is not None]) >= 3
    assert {"find_station", "rental_fee", "nearby_stations", "ride_history"} <= set(q1.distractors)
    assert all(r.answer is not None for r in solving)
    assert q2.every_language and any(r.asks for r in q2.runs) and len(q2.runs) >= 5
    recoveries = [r for r in q3.runs if r.first is not None]
    assert len(recoveries) >= 5
    assert len({json.dumps(dict(r.arguments)) for r in recoveries}) >= 4  # each input needs its own ID


# -- the client's own model, through MCP sampling: a real SDK client answers, in both eras ------------
@pytest.mark.anyio
@pytest.mark.parametrize("mode", ERAS)
async def test_the_loop_runs_on_the_calling_clients_model_through_sampling(
    server: Any, catalogue: Catalogue, mode: Any
) -> None:
    define_bike_count(catalogue, GOOD)

    @tool(read_only=True, catalogue=catalogue, lint=False)
    def ask_agent(request: str, ctx: Context) -> str:
        """Answer a request with the tools of this server, the calling client's model choosing."""
        return run_agent(request, SamplingModel(ctx)).answer

    prompts: list[str] = []
    replies = iter(
        ['{"tool": "bike_count", "arguments": {"station_id": "ST-1043"}}', 'Sure: {"answer": "7대"}']
    )
    answered: dict[str, str] = {}

    async def model(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        asked = params.messages[0].content
        text = asked.text if isinstance(asked, types.TextContent) else ""
        if text not in answered:  # 2026-07-28 asks again what was not answered yet, never twice the same
            prompts.append(text)
            answered[text] = next(replies)
        content = types.TextContent(type="text", text=answered[text])
        return types.CreateMessageResult(role="assistant", content=content, model="test-model")

    async with connect(server, mode, sampling_callback=model) as client:
        result = await client.call_tool("ask_agent", {"request": "'ST-1043' 대여소에 자전거가 몇 대 남았어?"})
    assert result.is_error is False, result
    assert result.content[0].text == "7대"
    assert len(prompts) == 2
    assert "bike_count" in prompts[0] and GOOD in prompts[0]  # the tool list, descriptions included
    assert '"isError": false' in prompts[1] and '"result": "7"' in prompts[1]  # what the call returned
    assert {c.arguments.get("station_id") for c in server.calls if c.tool == "bike_count"} == {"ST-1043"}
