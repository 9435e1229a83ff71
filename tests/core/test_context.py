"""`Context`: a running tool reports progress, logs, and asks the client, the same code in both eras.

2025-11-25 clients get requests on the call's stream; 2026-07-28 clients get ``input_required`` with a
sealed ``requestState`` and call again. The SDK's client answers both through the same callbacks, so
every test here runs once per era and must see the same behaviour.
"""

from __future__ import annotations

import itertools
import threading
import warnings
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPDeprecationWarning

import mcp_notebook
from mcp_notebook import Catalogue, Context, Elicitation, prompt, serve, tool
from mcp_notebook.core._context import next_progress
from mcp_notebook.server._pipeline import SEALED
from mcp_notebook.widgets._questions import CallInProgress, ElicitationForm
from tests.conftest import ERAS, connect, serve_unattended

pytestmark = pytest.mark.anyio

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


async def answer_name(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Mina"})


async def answer_model(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    asked = params.messages[0].content
    text = asked.text if isinstance(asked, types.TextContent) else "?"
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text=f"re: {text}"), model="test-model"
    )


async def answer_roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///projects/demo", name="project")])


@pytest.fixture
def asking_tools(server: Any, catalogue: Catalogue) -> Any:
    runs: list[str] = []

    @tool(read_only=True, catalogue=catalogue)
    def greet(greeting: str, ctx: Context) -> str:
        """Greet the person at the client by name, asking for it."""
        runs.append("greet")
        answer = ctx.elicit("What is your name?", NAME)
        return f"{greeting}, {answer.get('name')}!" if answer.accepted else f"no name ({answer.action})"

    @tool(read_only=True, catalogue=catalogue)
    def two_steps(ctx: Context) -> str:
        """Ask two questions, one after the other."""
        runs.append("two_steps")
        name = ctx.elicit("Name?", {"name": str}, key="name").get("name")
        color = ctx.elicit("Colour?", {"color": str}, key="color").get("color")
        return f"{name} likes {color}"

    @tool(read_only=True, catalogue=catalogue)
    def ask_model(topic: str, ctx: Context) -> str:
        """Ask the client's model about a topic."""
        return ctx.sample(f"Tell me about {topic}", max_tokens=30)

    @tool(read_only=True, catalogue=catalogue)
    def everything(ctx: Context) -> dict:
        """Ask a person, the model and the roots in one go."""
        answers = ctx.ask(
            {
                "who": Context.elicitation("Who?", NAME),
                "say": Context.sampling("Say hi"),
                "where": Context.roots(),
            }
        )
        who: Elicitation = answers["who"]
        return {"who": who.get("name"), "said": answers["say"], "roots": [r["uri"] for r in answers["where"]]}

    @tool(read_only=True, catalogue=catalogue)
    async def greet_async(ctx: Context) -> str:
        """The async way of asking."""
        answer = await ctx.aelicit("What is your name?", NAME)
        await ctx.aprogress(1, total=1)
        return f"hello {answer.get('name')}"

    @tool(read_only=True, catalogue=catalogue)
    async def blocks_the_loop(ctx: Context) -> str:
        """Uses the blocking method from an async tool (a mistake the error must explain)."""
        ctx.elicit("What is your name?", NAME)
        return "unreachable"

    server.runs = runs
    return server


@pytest.mark.parametrize("mode", ERAS)
async def test_a_tool_asks_the_person_and_gets_the_answer(asking_tools: Any, mode: Any) -> None:
    async with connect(asking_tools, mode, elicitation_callback=answer_name) as client:
        result = await client.call_tool("greet", {"greeting": "Hello"})
    assert result.is_error is False, result
    assert result.content[0].text == "Hello, Mina!"


@pytest.mark.parametrize("mode", ERAS)
async def test_a_declined_question_is_the_tools_to_handle(asking_tools: Any, mode: Any) -> None:
    async def decline(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async with connect(asking_tools, mode, elicitation_callback=decline) as client:
        result = await client.call_tool("greet", {"greeting": "Hello"})
    assert result.content[0].text == "no name (decline)"


@pytest.mark.parametrize("mode", ERAS)
async def test_questions_one_after_another(asking_tools: Any, mode: Any) -> None:
    asked: list[str] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        field = "name" if params.message == "Name?" else "color"
        return types.ElicitResult(action="accept", content={field: "Mina" if field == "name" else "green"})

    async with connect(asking_tools, mode, elicitation_callback=answer) as client:
        result = await client.call_tool("two_steps", {})
    assert result.content[0].text == "Mina likes green"
    assert asked == ["Name?", "Colour?"]  # each question asked once, in either era
    # Handshake era: the tool runs once and waits. 2026-07-28: once per round, the answers replayed.
    assert asking_tools.runs == (["two_steps"] if mode == "legacy" else ["two_steps"] * 3)


@pytest.mark.parametrize("mode", ERAS)
async def test_sampling_and_roots_and_several_questions_at_once(asking_tools: Any, mode: Any) -> None:
    async with connect(
        asking_tools, mode, elicitation_callback=answer_name, sampling_callback=answer_model,
        list_roots_callback=answer_roots,
    ) as client:  # fmt: skip
        sampled = await client.call_tool("ask_model", {"topic": "tides"})
        everything = await client.call_tool("everything", {})
    assert sampled.content[0].text == "re: Tell me about tides"
    assert everything.structured_content == {
        "who": "Mina",
        "said": "re: Say hi",
        "roots": ["file:///projects/demo"],
    }


@pytest.mark.parametrize("mode", ERAS)
async def test_sampling_and_roots_warn_once_in_a_2026_07_28_request(
    asking_tools: Any, mode: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SEP-2577 deprecates both: a 2026-07-28 call warns once per feature (a category users can
    filter) and says what to move to; a 2025-11-25 call does not warn. Both still work."""
    from mcp_notebook.core import _context

    monkeypatch.setattr(_context, "_WARNED", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with connect(
            asking_tools, mode, elicitation_callback=answer_name, sampling_callback=answer_model,
            list_roots_callback=answer_roots,
        ) as client:  # fmt: skip
            for _ in range(2):
                assert (
                    (await client.call_tool("ask_model", {"topic": "tides"}))
                    .content[0]
                    .text.startswith("re:")
                )
                assert (await client.call_tool("everything", {})).structured_content["roots"]
    ours = [w for w in caught if issubclass(w.category, mcp_notebook.ProtocolDeprecationWarning)]
    assert all(issubclass(w.category, DeprecationWarning) for w in ours)
    if mode == "legacy":
        assert ours == []
        return
    assert [str(w.message).split(":")[0] for w in ours] == ["ctx.sample", "ctx.list_roots"]
    assert "model provider's API" in str(ours[0].message) and "tool parameter" in str(ours[1].message)
    assert ours[0].filename == __file__  # it points at the tool's own line, where IPython shows it


@pytest.mark.parametrize("mode", ERAS)
async def test_async_tools_await_the_a_methods(asking_tools: Any, mode: Any) -> None:
    seen: list[float] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append(value)

    async with connect(asking_tools, mode, elicitation_callback=answer_name) as client:
        result = await client.call_tool("greet_async", {}, progress_callback=progress)
        wrong = await client.call_tool("blocks_the_loop", {})
    assert result.content[0].text == "hello Mina"
    assert seen == [1]
    assert wrong.is_error is True
    assert "await ctx.aelicit(...)" in wrong.content[0].text  # the error says how to fix it


@pytest.mark.parametrize("mode", ERAS)
async def test_a_client_without_the_capability_gets_a_protocol_error(asking_tools: Any, mode: Any) -> None:
    async with connect(asking_tools, mode) as client:  # no sampling callback: no sampling capability
        with pytest.raises(Exception) as raised:
            await client.call_tool("ask_model", {"topic": "tides"})
    error = getattr(raised.value, "error", None)
    assert error is not None and error.code == -32021, raised.value
    assert "'sampling'" in error.message and error.data == {"requiredCapabilities": {"sampling": {}}}


def test_the_context_parameter_is_not_an_argument(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue)
    def greet(greeting: str, ctx: Context) -> str:
        """Greet."""
        return greeting

    entry = catalogue.get("greet")
    assert entry is not None and entry.context == "ctx"
    assert entry.input_schema["properties"] == {"greeting": {"type": "string"}}
    assert entry.input_schema["required"] == ["greeting"]


# -- progress and logging -----------------------------------------------------------------------------
@pytest.fixture
def reporting(server: Any, catalogue: Catalogue) -> Any:
    @tool(read_only=True, catalogue=catalogue)
    def crunch(ctx: Context) -> str:
        """Crunch numbers, saying how far it got."""
        for step in (1, 2, 3):
            ctx.progress(step, total=3, message=f"step {step}")
        ctx.log("debug", "details")
        ctx.log("warning", "running low on patience")
        return "done"

    return server


@pytest.mark.parametrize("mode", ERAS)
async def test_progress_arrives_before_the_result(reporting: Any, mode: Any) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, total, message))

    async with connect(reporting, mode) as client:
        result = await client.call_tool("crunch", {}, progress_callback=progress)
    assert result.content[0].text == "done"
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


@pytest.mark.parametrize("mode", ERAS)
async def test_progress_that_would_not_grow_is_sent_just_above_the_last(
    server: Any, catalogue: Catalogue, mode: Any
) -> None:
    @tool(read_only=True, catalogue=catalogue)
    def retry_steps(ctx: Context) -> str:
        """Report the same step twice and then go back, as a tool retrying a step might."""
        for step in (1, 1, 0.5, 2):
            ctx.progress(step, total=2)
        return "done"

    seen: list[float] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append(value)

    async with connect(server, mode) as client:
        await client.call_tool("retry_steps", {}, progress_callback=progress)
    assert seen[0] == 1 and seen[-1] == 2 and len(seen) == 4
    assert all(later > earlier for earlier, later in itertools.pairwise(seen)), seen
    assert seen[2] - 1 < 0.001  # raised just enough, not to the next step


def test_next_progress_grows_even_where_a_small_step_is_lost_to_rounding() -> None:
    assert next_progress(0, None) == 0 and next_progress(3, 1) == 3
    assert 1 < next_progress(1, 1) < 1.001 and 1 < next_progress(0, 1) < 1.001
    assert next_progress(0, 1e300) > 1e300  # 1e300 + 1e-6 == 1e300 in floats


async def test_handshake_logging_follows_set_level(reporting: Any) -> None:
    logs: list[tuple[str, Any]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append((params.level, params.data))

    async with connect(reporting, "legacy", logging_callback=on_log) as client:
        await client.call_tool("crunch", {})
        assert logs == [("debug", "details"), ("warning", "running low on patience")]
        logs.clear()
        with pytest.warns(MCPDeprecationWarning):  # logging is deprecated from 2026-07-28 on
            await client.set_logging_level("warning")
        await client.call_tool("crunch", {})
    assert logs == [("warning", "running low on patience")]


async def test_stateless_logging_is_sent_only_when_the_request_opts_in(reporting: Any) -> None:
    logs: list[str] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params.level)

    async with connect(reporting, "auto", logging_callback=on_log) as client:
        await client.call_tool("crunch", {})
    assert logs == []  # 2026-07-28: no logLevel in _meta, no log messages
    async with connect(reporting, "auto", logging_callback=on_log, log_level="info") as client:
        await client.call_tool("crunch", {})
    assert logs == ["warning"]


# -- 2026-07-28 state -----------------------------------------------------------------------------------
def _post(srv: Any, body: dict[str, Any], name: str) -> httpx.Response:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", **body}
    body["params"]["_meta"] = meta
    headers = {
        "Authorization": f"Bearer {srv.token}",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": name,
        "Accept": "application/json, text/event-stream",
    }
    return httpx.post(srv.url, json=body, headers=headers, timeout=30)


def _json(response: httpx.Response) -> dict[str, Any]:
    import json

    if response.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        return dict(json.loads(data[-1]))
    return dict(response.json())


def test_request_state_is_sealed_and_a_tampered_one_is_refused(asking_tools: Any) -> None:
    first = _json(_post(asking_tools, {"params": {"name": "two_steps", "arguments": {}}}, "two_steps"))
    result = first["result"]
    assert result["resultType"] == "input_required" and set(result["inputRequests"]) == {"name"}
    state = result["requestState"]
    assert "answers" not in state and "Mina" not in state  # sealed: opaque to the client
    answer = {"name": {"action": "accept", "content": {"name": "Mina"}}}
    second = _json(_post(asking_tools, {"params": {"name": "two_steps", "arguments": {}, "inputResponses": answer,
                                                    "requestState": state}}, "two_steps"))  # fmt: skip
    sealed = second["result"]["requestState"]
    assert set(second["result"]["inputRequests"]) == {"color"} and "Mina" not in sealed
    forged = sealed[:-4] + ("AAAA" if not sealed.endswith("AAAA") else "BBBB")
    refused = _json(_post(asking_tools, {"params": {"name": "two_steps", "arguments": {}, "inputResponses": {
        "color": {"action": "accept", "content": {"color": "red"}}}, "requestState": forged}}, "two_steps"))  # fmt: skip
    assert refused["error"]["code"] == -32602
    # The state is bound to its tool and arguments: replaying it for another call is refused too.
    other = _json(_post(asking_tools, {"params": {"name": "greet", "arguments": {"greeting": "Hi"},
                                                   "inputResponses": answer, "requestState": sealed}}, "greet"))  # fmt: skip
    assert other["error"]["code"] == -32602
    assert asking_tools.activity[-1].outcome == "error -32602"  # refused, and on record


def test_a_malformed_answer_is_never_taken_as_an_answer(asking_tools: Any) -> None:
    def call(responses: dict[str, Any]) -> dict[str, Any]:
        params = {"name": "greet", "arguments": {"greeting": "Hi"}, "inputResponses": responses}
        return _json(_post(asking_tools, {"params": params}, "greet"))

    # Not a result at all: the SDK refuses the request (invalid params).
    assert call({"elicit-1": 12345})["error"]["code"] == -32602
    # A well-formed answer of the wrong kind (roots for a form): the question is asked again.
    again = call({"elicit-1": {"roots": []}})["result"]
    assert again["resultType"] == "input_required"
    assert again["inputRequests"]["elicit-1"]["method"] == "elicitation/create"


@pytest.mark.parametrize("mode", ERAS)
async def test_a_person_approves_once_for_all_rounds(catalogue: Catalogue, mode: Any) -> None:
    @tool(catalogue=catalogue)
    def rename(ctx: Context) -> str:
        """Rename the project after asking for the new name (changes things: needs approval)."""
        return f"renamed to {ctx.elicit('New name?', NAME).get('name')}"

    srv = serve(catalogue=catalogue, approval_timeout=10)
    asked: list[Any] = []
    arrived = threading.Event()

    def on_request(request: Any) -> None:
        asked.append(request)
        request.approve()
        arrived.set()

    srv.approval.listeners.append(on_request)
    try:
        async with connect(srv, mode, elicitation_callback=answer_name) as client:
            result = await client.call_tool("rename", {})
    finally:
        srv.stop()
    assert result.content[0].text == "renamed to Mina"
    assert len(asked) == 1  # not once per round


# -- prompts, and the notebook's own client -----------------------------------------------------------
@pytest.mark.parametrize("mode", ERAS)
async def test_a_prompt_can_ask_too(server: Any, catalogue: Catalogue, mode: Any) -> None:
    @prompt(catalogue=catalogue)
    def briefing(ctx: Context) -> str:
        """A briefing for the person who asks."""
        return f"Brief {ctx.elicit('Who is it for?', NAME).get('name')} on today's numbers."

    async with connect(server, mode, elicitation_callback=answer_name) as client:
        result = await client.get_prompt("briefing", {})
    assert result.messages[0].content.text == "Brief Mina on today's numbers."


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_the_notebooks_client_shows_the_question_as_a_form(catalogue: Catalogue, mode: str) -> None:
    @tool(read_only=True, catalogue=catalogue)
    def greet(ctx: Context) -> str:
        """Greet by name."""
        return f"Hello, {ctx.elicit('What is your name?', NAME).get('name')}!"

    srv = serve_unattended(catalogue)
    try:
        pending = mcp_notebook.call("greet", url=srv.url, token=srv.token, mode=mode)
        assert isinstance(pending, CallInProgress), pending
        form = pending.children[0]
        assert isinstance(form, ElicitationForm)
        form.fields["name"].value = "Mina"
        form.buttons.children[0].click()  # Send
        assert pending.result(30).text == "Hello, Mina!"
    finally:
        srv.stop()


def test_the_activity_log_shows_each_round_as_it_went_over_the_wire(asking_tools: Any) -> None:
    first = _json(
        _post(asking_tools, {"params": {"name": "greet", "arguments": {"greeting": "Hi"}}}, "greet")
    )
    state = first["result"]["requestState"]
    answer = {"elicit-1": {"action": "accept", "content": {"name": "Mina"}}}
    params = {
        "name": "greet",
        "arguments": {"greeting": "Hi"},
        "inputResponses": answer,
        "requestState": state,
    }
    second = _json(_post(asking_tools, {"params": params}, "greet"))
    assert second["result"]["content"][0]["text"] == "Hi, Mina!"
    asked, answered = (record.wire() for record in asking_tools.calls[-2:])
    assert asked["response"]["result"]["resultType"] == "input_required"
    # Never the plaintext the server keeps inside the state (earlier answers, the approval).
    assert asked["response"]["result"]["requestState"] == SEALED
    assert answered["request"]["params"]["inputResponses"] == answer
    assert answered["request"]["params"]["requestState"] == SEALED
    assert answered["response"]["result"]["resultType"] == "complete"


def test_discovery_is_in_the_activity_log_and_long_lists_are_cut(server: Any, catalogue: Catalogue) -> None:
    for index in range(15):
        tool(read_only=True, catalogue=catalogue, name=f"tool_{index}", lint=False)(lambda: "x")

    async def main() -> None:
        async with connect(server, "auto") as client:
            await client.list_tools()

    import anyio

    anyio.run(main)
    methods = [record.method for record in server.activity]
    assert "server/discover" in methods
    listed = next(record for record in server.activity if record.method == "tools/list").result["tools"]
    assert len(listed) == 11 and listed[-1] == "... 5 more (not kept in the activity log)"


def test_a_kernel_tool_asked_from_its_waiting_cell_says_why_it_cannot_ask(catalogue: Catalogue) -> None:
    @tool(read_only=True, catalogue=catalogue, run_in="kernel")
    def greet(ctx: Context) -> str:
        """Greet by name (on the kernel's thread)."""
        ctx.progress(0, total=1)  # telling is fine; asking would need a form the waiting cell cannot show
        return f"Hello, {ctx.elicit('What is your name?', NAME).get('name')}!"

    srv = serve_unattended(catalogue)
    try:
        result = mcp_notebook.call("greet")  # this thread plays the cell that waits in %mcp_call
    finally:
        srv.stop()
    assert result.is_error is True
    assert "run_in='kernel'" in result.text and "run_in='thread'" in result.text


def test_a_state_written_by_the_client_cannot_skip_approval(catalogue: Catalogue) -> None:
    ran: list[str] = []

    @tool(catalogue=catalogue)
    def wipe(ctx: Context) -> str:
        """Wipe the table after asking (changes things: needs approval)."""
        ctx.elicit("Sure?", {"sure": bool})
        ran.append("wiped")
        return "wiped"

    srv = serve(catalogue=catalogue, approval_timeout=5)
    try:
        forged = '{"v":1,"answers":{"elicit-1":{"action":"accept","content":{"sure":true}}},"approved":true}'
        params = {"name": "wipe", "arguments": {}, "requestState": forged}
        refused = _json(_post(srv, {"params": params}, "wipe"))
        assert refused["error"]["code"] == -32602  # not sealed by this server: refused before anything runs
        assert srv.pending == [] and ran == []
    finally:
        srv.stop()


def test_the_round_ledger_answers_each_round_once_and_stays_bounded() -> None:
    from mcp_notebook.core._questions import RoundLedger

    now = [0.0]
    ledger = RoundLedger(ttl=600, max_open=2, clock=lambda: now[0])
    first = ledger.open("alice")
    assert ledger.close(first, "bob") is False  # another identity's attempt does not use it up
    assert ledger.close(first, "alice") is True and ledger.close(first, "alice") is False
    late = ledger.open("alice")
    now[0] = 600.0
    assert ledger.close(late, "alice") is False  # expired with the sealed state
    old, newer, newest = ledger.open("alice"), ledger.open("alice"), ledger.open("alice")
    assert len(ledger) == 2  # full: the oldest open round is forgotten, so it can never be answered
    assert ledger.close(old, "alice") is False
    assert ledger.close(newer, "alice") is True and ledger.close(newest, "alice") is True
    assert ledger.close(None, "alice") is False and ledger.close(12, "alice") is False
