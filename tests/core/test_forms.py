"""A class as the form of a question (`mcp_notebook.core._forms`): the official SDK's style, in both eras.

``ctx.elicit(message, Party)`` with a pydantic model (or a dataclass, or a TypedDict) asks with the
form schema MCP allows, the same as the equivalent mapping gives; the accepted answer carries the
instance the class validated (``answer.data``); an answer that does not fit is an error result that
says why; a class that cannot be a form is refused before anything is asked. Every path a question
takes is here: pushed on 2025-11-25, ``input_required`` rounds on 2026-07-28, ``ctx.ask``, async
tools, tasks in both eras, and the notebook's own client with its form widget.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Annotated, Any, Literal, TypedDict

import mcp_types as types
import pytest
from pydantic import BaseModel, Field

import mcp_notebook
from mcp_notebook import Catalogue, Context, InvalidAnswerError, set_language, tool
from mcp_notebook.core._forms import form_schema
from mcp_notebook.widgets._questions import CallInProgress, ElicitationForm
from tests.conftest import ERAS, connect, serve_unattended
from tests.tasks_client import TasksExtension, legacy_task_call, until_status, update_task

pytestmark = pytest.mark.anyio


class Seats(BaseModel):
    people: int


class Party(BaseModel):
    people: int = Field(description="How many people are coming", ge=1, le=12)


class Visit(BaseModel):
    day: dt.date
    size: Literal["small", "large"] = "small"
    extras: list[Literal["window", "quiet"]] = []
    note: str | None = None


class Address(BaseModel):
    street: str


class Delivery(BaseModel):
    people: int
    address: Address


class Tagged(BaseModel):
    tags: list[str]


@dataclasses.dataclass
class SeatsRow:
    people: int
    day: dt.date | None = None


class SeatsDict(TypedDict):
    people: int


def answering(*answers: dict[str, Any]) -> Any:
    """An elicitation callback that answers with `answers` in turn, and records what it was asked."""
    queue = list(answers)

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        answer.asked.append(params.requested_schema)  # type: ignore[attr-defined]
        return types.ElicitResult(**queue.pop(0))

    answer.asked = []  # type: ignore[attr-defined]
    return answer


ACCEPT_4 = {"action": "accept", "content": {"people": 4}}


@pytest.fixture
def forms(server: Any, catalogue: Catalogue) -> Any:
    @tool(read_only=True, catalogue=catalogue)
    def reserve(ctx: Context) -> dict:
        """Ask how many people are coming, with a pydantic model as the form."""
        answer = ctx.elicit(message="How many people?", schema=Party)
        data = answer.data
        return {
            "action": answer.action,
            "party": isinstance(data, Party),
            "people": data.people if data is not None else None,
            "get": answer.get("people"),
        }

    @tool(read_only=True, catalogue=catalogue)
    def seats_by_model(ctx: Context) -> str:
        """The same question, the SDK's way."""
        return str(ctx.elicit("How many?", Seats).action)

    @tool(read_only=True, catalogue=catalogue)
    def seats_by_mapping(ctx: Context) -> str:
        """The same question, with a mapping as the form."""
        return str(ctx.elicit("How many?", {"people": int}).action)

    @tool(read_only=True, catalogue=catalogue)
    def visit(ctx: Context) -> dict:
        """Ask for a day: the model turns the answer into a date and fills in its defaults."""
        data = ctx.elicit("When?", Visit).data
        assert data is not None
        return {"weekday": data.day.strftime("%A"), "size": data.size, "extras": data.extras}

    @tool(read_only=True, catalogue=catalogue)
    def reserve_or_explain(ctx: Context) -> str:
        """Catches an answer that does not fit, and says what to fix."""
        try:
            return str(ctx.elicit("How many people?", Party).data)
        except InvalidAnswerError as error:
            return f"{error.answer.content} -> {error.problems}"

    @tool(read_only=True, catalogue=catalogue)
    def deliver(ctx: Context) -> str:
        """Asks with a model that nests another: refused."""
        return str(ctx.elicit("Where to?", Delivery))

    @tool(read_only=True, catalogue=catalogue)
    def tag(ctx: Context) -> str:
        """Asks with a model that has a list of free values: refused."""
        return str(ctx.elicit("Tags?", Tagged))

    @tool(read_only=True, catalogue=catalogue)
    def both(ctx: Context) -> dict:
        """A model and a mapping in one round."""
        answers = ctx.ask(
            {
                "party": Context.elicitation("How many people?", Party),
                "who": Context.elicitation("Who?", {"name": str}),
            }
        )
        return {"people": answers["party"].data.people, "who": answers["who"].get("name")}

    @tool(read_only=True, catalogue=catalogue)
    async def reserve_async(ctx: Context) -> str:
        """The async way."""
        answer = await ctx.aelicit("How many people?", Party)
        return f"{type(answer.data).__name__} {answer.data.people if answer.data else None}"

    @tool(read_only=True, catalogue=catalogue)
    def rows(ctx: Context) -> dict:
        """A dataclass and a TypedDict as forms."""
        row = ctx.elicit("A row?", SeatsRow).data
        plain = ctx.elicit("A dict?", SeatsDict).data
        assert row is not None and plain is not None
        return {"row": [type(row).__name__, row.people, str(row.day)], "dict": plain}

    return server


# -- the schema on the wire ---------------------------------------------------------------------------------
def test_a_class_form_has_the_schema_of_the_equivalent_mapping() -> None:
    people = Annotated[int, Field(description="How many people are coming", ge=1, le=12)]
    assert (
        form_schema(Party)
        == form_schema({"people": people})
        == {
            "type": "object",
            "properties": {
                "people": {
                    "type": "integer",
                    "description": "How many people are coming",
                    "minimum": 1,
                    "maximum": 12,
                }
            },
            "required": ["people"],
        }
    )
    plain = form_schema({"people": int})
    assert form_schema(Seats) == form_schema(SeatsDict) == plain
    assert form_schema(SeatsRow) == {
        "type": "object",
        "properties": {"people": {"type": "integer"}, "day": {"type": "string", "format": "date"}},
        "required": [
            "people"
        ],  # a field with a default is optional, and T | None is T (as the SDK renders it)
    }
    assert form_schema(Visit)["properties"] == {
        "day": {"type": "string", "format": "date"},
        "size": {"type": "string", "enum": ["small", "large"], "default": "small"},
        "extras": {"type": "array", "items": {"type": "string", "enum": ["window", "quiet"]}, "default": []},
        "note": {"type": "string"},
    }


@pytest.mark.parametrize("mode", ERAS)
async def test_a_model_form_goes_on_the_wire_as_its_mapping_does(forms: Any, mode: Any) -> None:
    decline = answering({"action": "decline"}, {"action": "decline"})
    async with connect(forms, mode, elicitation_callback=decline) as client:
        await client.call_tool("seats_by_model", {})
        await client.call_tool("seats_by_mapping", {})
    by_model, by_mapping = decline.asked
    assert by_model == by_mapping
    assert by_model["properties"]["people"]["type"] == "integer"


# -- the answer ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ERAS)
async def test_an_accepted_model_form_carries_the_validated_instance(forms: Any, mode: Any) -> None:
    answer = answering(ACCEPT_4, {"action": "accept", "content": {"day": "2025-05-02", "extras": ["quiet"]}})
    async with connect(forms, mode, elicitation_callback=answer) as client:
        reserved = await client.call_tool("reserve", {})
        visited = await client.call_tool("visit", {})
    assert reserved.structured_content == {"action": "accept", "party": True, "people": 4, "get": 4}
    assert visited.structured_content == {"weekday": "Friday", "size": "small", "extras": ["quiet"]}


@pytest.mark.parametrize("action", ["decline", "cancel"])
@pytest.mark.parametrize("mode", ERAS)
async def test_a_declined_or_cancelled_model_form_carries_no_instance(
    forms: Any, mode: Any, action: str
) -> None:
    async with connect(forms, mode, elicitation_callback=answering({"action": action})) as client:
        result = await client.call_tool("reserve", {})
    assert result.structured_content == {"action": action, "party": False, "people": None, "get": None}


@pytest.mark.parametrize("mode", ERAS)
async def test_an_answer_that_does_not_fit_the_model_is_an_error_result_that_says_why(
    forms: Any, mode: Any
) -> None:
    answer = answering(
        {"action": "accept", "content": {"people": "many"}},
        {"action": "accept", "content": {"people": 40}},
        {"action": "accept", "content": {"people": 0}},
        ACCEPT_4,
    )
    async with connect(forms, mode, elicitation_callback=answer) as client:
        many = await client.call_tool("reserve", {})
        forty = await client.call_tool("reserve", {})
        caught = await client.call_tool("reserve_or_explain", {})
        after = await client.call_tool("reserve", {})  # the server goes on serving
    assert many.is_error is True and forty.is_error is True
    text = many.content[0].text
    assert "The answer to 'How many people?' does not fit the form Party" in text  # what failed
    assert "people: Input should be a valid integer" in text and "'many'" in text  # why
    assert "InvalidAnswerError" in text  # what to do
    assert "people: Input should be less than or equal to 12" in forty.content[0].text
    assert (
        caught.content[0].text
        == "{'people': 0} -> ['people: Input should be greater than or equal to 1 (sent: 0)']"
    )
    assert after.structured_content is not None and after.structured_content["people"] == 4


@pytest.mark.parametrize("mode", ERAS)
async def test_ask_and_async_tools_take_a_model_form_too(forms: Any, mode: Any) -> None:
    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        content = {"name": "Mina"} if params.message == "Who?" else {"people": 3}
        return types.ElicitResult(action="accept", content=content)

    async with connect(forms, mode, elicitation_callback=answer) as client:
        both = await client.call_tool("both", {})
        awaited = await client.call_tool("reserve_async", {})
    assert both.structured_content == {"people": 3, "who": "Mina"}
    assert awaited.content[0].text == "Party 3"


@pytest.mark.parametrize("mode", ERAS)
async def test_a_dataclass_and_a_typeddict_are_forms_too(forms: Any, mode: Any) -> None:
    answer = answering(
        {"action": "accept", "content": {"people": 2, "day": "2025-05-02", "unasked": True}}, ACCEPT_4
    )
    async with connect(forms, mode, elicitation_callback=answer) as client:
        result = await client.call_tool("rows", {})
    assert result.structured_content == {"row": ["SeatsRow", 2, "2025-05-02"], "dict": {"people": 4}}


# -- a class that cannot be a form ----------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ERAS)
async def test_a_model_that_cannot_be_a_form_is_refused_before_anything_is_asked(
    forms: Any, mode: Any
) -> None:
    never = answering()
    async with connect(forms, mode, elicitation_callback=never) as client:
        nested = await client.call_tool("deliver", {})
        listed = await client.call_tool("tag", {})
    assert never.asked == []
    assert nested.is_error is True and listed.is_error is True
    text = nested.content[0].text
    assert "The form Delivery cannot be asked: its field 'address' is Address" in text  # what failed
    assert "a form field may be a str, int, float or bool" in text.lower()  # why: what a field may be
    assert "split a nested model into fields of its own" in text  # what to do
    assert "its field 'tags' is list[str]" in listed.content[0].text


def test_the_refusal_speaks_korean_with_particles_chosen_from_the_words() -> None:
    set_language("ko")
    with pytest.raises(TypeError) as refused:
        form_schema(Delivery)
    assert "양식 Delivery로는 물을 수 없습니다. 필드 'address'의 타입 Address는" in str(refused.value)
    with pytest.raises(TypeError) as listed:
        form_schema(Tagged)
    assert "타입 list[str]은" in str(listed.value)
    with pytest.raises(TypeError, match="pydantic 모델, dataclass, TypedDict"):
        form_schema(Party(people=2))  # an instance is not a form


# -- tasks ------------------------------------------------------------------------------------------------------
@pytest.fixture
def task_server(catalogue: Catalogue) -> Any:
    @tool(catalogue=catalogue, read_only=True, task="optional")
    def reserve_later(ctx: Context) -> str:
        """Asks with a model once it is a task."""
        ctx.sleep(0.6)  # long enough to become a task (the server's half second)
        answer = ctx.elicit("How many people?", Party)
        return f"{type(answer.data).__name__} of {answer.data.people}" if answer.data else answer.action

    srv = serve_unattended(catalogue)
    try:
        yield srv
    finally:
        srv.stop()


async def test_a_2026_tasks_model_form_is_validated_when_the_client_answers(task_server: Any) -> None:
    never = answering()  # declares the capability; a task's question is polled, never pushed
    async with connect(
        task_server, "auto", extensions=[TasksExtension()], elicitation_callback=never
    ) as client:
        created = await client.session.call_tool("reserve_later", {}, allow_claimed=True)
        waiting = await until_status(client.session, created.task_id, "input_required")
        [(key, question)] = (waiting.input_requests or {}).items()
        assert question["params"]["requestedSchema"] == form_schema(Party)
        await update_task(client.session, created.task_id, {key: ACCEPT_4})
        done = await until_status(client.session, created.task_id)
    assert done.result is not None and done.result["content"][0]["text"] == "Party of 4"
    assert never.asked == []


async def test_a_2025_tasks_model_form_is_validated_when_the_client_answers(task_server: Any) -> None:
    import anyio.to_thread

    answer = answering({"action": "accept", "content": {"people": "many"}})
    created = await anyio.to_thread.run_sync(
        lambda: legacy_task_call(
            task_server.url, task_server.token, "reserve_later", {}, {}, capabilities={"elicitation": {}}
        )
    )
    task_id = created["result"]["task"]["taskId"]
    async with connect(task_server, "legacy", elicitation_callback=answer) as client:
        result = await client.session.send_request(
            types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task_id)),
            types.CallToolResult,
        )
    assert answer.asked == [form_schema(Party)]
    assert result.is_error is True and "does not fit the form Party" in result.content[0].text


# -- the notebook's own client --------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_the_notebooks_form_widget_answers_a_model_form(catalogue: Catalogue, mode: str) -> None:
    @tool(read_only=True, catalogue=catalogue)
    def visit(ctx: Context) -> str:
        """Ask for a day and extras."""
        data = ctx.elicit("When?", Visit).data
        return f"{data.day:%A}, {data.size}, {data.extras}" if data else "no visit"

    srv = serve_unattended(catalogue)
    try:
        pending = mcp_notebook.call("visit", url=srv.url, token=srv.token, mode=mode)
        assert isinstance(pending, CallInProgress), pending
        form = pending.children[0]
        assert isinstance(form, ElicitationForm)
        assert set(form.fields) == {"day", "size", "extras", "note"}
        form.fields["day"].value = "2025-05-02"
        form.fields["size"].value = "large"
        form.fields["extras"].value = ("window", "quiet")  # a list of choices is a multi-select
        form.buttons.children[0].click()  # Send
        assert pending.result(30).text == "Friday, large, ['window', 'quiet']"
    finally:
        srv.stop()
