"""Exercises of chapter 03 (Prompts): arguments on the wire, completion, why prompt errors are
protocol errors, Prompt vs Tool vs Resource, and a prompt the learner writes, checked through the
real server (``prompts/list``, ``completion/complete``, ``prompts/get``).

>>> from mcp_notebook.lessons.ch03 import q1, q2, q3, q4, q5

Their content is data: ``content/ch03/exercises.toml``; the kind of q5 is defined here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..core._text import t
from ._content import load_exercises
from ._data_judge import compare_completions, compare_gets, values_to_try
from ._exercise import DataContext, Exercise, NotAttempted, user_namespace
from ._judge import check_seed
from ._reference import Reference
from ._texts import Text
from ._toolcheck import CALL_TIMEOUT, served_catalogue

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
    (completed from its values, other values refused, and the messages must differ between its
    values). A ``Literal`` does both the completion and the refusal (``-32602``, before the function
    runs); a check the learner writes by hand with ``completers`` is right too: its refusal comes back
    as ``-32603`` carrying the learner's own message, and the praise says what ``Literal`` would add.
    """

    kind = "prompt"

    def __init__(
        self,
        chapter: str,
        name: str,
        *,
        prompt: str,
        required: str,
        sample: str,
        choice: Choice,
        literal_advice: Text,
        judge: bool = True,
        **texts: Any,
    ) -> None:
        super().__init__(chapter, name, variable=None, **texts)
        self.judge = judge
        self.prompt = prompt
        self.required = required
        self.sample = sample
        self.choice = choice
        self.requests = 0
        self.hand_written = False
        self._add_texts({"literal_advice": literal_advice})

    def cell_template(self) -> str | None:
        return None

    @classmethod
    def data_kwargs(cls, data: dict[str, Any], context: DataContext) -> dict[str, Any]:
        kwargs = super().data_kwargs(data, context)
        for key in ("prompt", "required", "sample", "literal_advice"):
            kwargs[key] = data.pop(key)
        choice = data.pop("choice")
        kwargs["choice"] = Choice(choice["name"], tuple(choice["values"]), choice["default"])
        return kwargs

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
            if not problems and self.judge and "solution" in self._texts:
                problems += self._judged_problems(name)
        finally:
            if server is not None:
                server.stop()
        return problems

    def _judged_problems(self, name: str) -> list[str]:
        """The same ``prompts/get`` and completions of the model answer's prompt, from a private server:
        the sample and drawn values of the required argument, with each allowed value of the choice,
        none, and values it does not allow."""
        choice = self.choice
        seed = check_seed()
        values = values_to_try(self.required, [self.sample], seed)
        picks = [*choice.values, None, "guru", choice.values[0].swapcase(), ""]
        requests: list[dict[str, str]] = [{choice.name: choice.values[0]}]
        for value in values:
            requests += [
                {self.required: value, **({choice.name: pick} if pick is not None else {})} for pick in picks
            ]
        reference = Reference(self.text("solution"), self.given)
        with reference.served():
            problems = compare_gets(
                name, reference, requests, required=self.required, choice=choice.name, exercise=self.name
            )
            self.requests += len(requests) * 2
            return problems or compare_completions(name, reference, {choice.name: choice.values})

    def praise(self) -> list[str]:
        own = [t(f"{_P}.hand_written", argument=self.choice.name)] if self.hand_written else []
        return [t(f"{_P}.checked_via", requests=self.requests), *own, *super().praise()]

    # -- what prompts/list shows --------------------------------------------------------------------
    def _definition_problems(self, definition: dict[str, Any]) -> list[str]:
        problems = []
        description = (definition.get("description") or "").strip()
        if not description:
            problems.append(t(f"{_P}.no_description"))
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
        self.hand_written = False
        for arguments, should_work in gets:
            shown = f"prompts/get {name} {json.dumps(arguments, ensure_ascii=False)}"
            self.requests += 1
            try:
                result = get_prompt(name, arguments, timeout=CALL_TIMEOUT)
            except ProtocolError as exc:
                error = f"[{exc.code}] {exc.message}"
                if should_work:
                    problems.append(t(f"{_P}.request_error", request=shown, error=error))
                elif arguments is outside and exc.code == -32603:
                    self.hand_written = True  # the learner's own check refused it, inside the function
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
__all__ = ["q1", "q2", "q3", "q4", "q5"]

q1, q2, q3, q4, q5 = load_exercises("03", __all__, kinds={"prompt": PromptExercise})
