"""An agent loop for the lessons: a model reads the tool list, picks a tool, reads the result and,
when it is an error, corrects itself or gives up.

::

    run_agent(request, model)
      └── tools/list ─► model.decide(request, tools, steps) ─► Call(tool, arguments) or Answer(text)
                           ▲                                          │
                           └──── Step(result text, is_error) ◄── tools/call

Two models speak the same `Model` interface:

- `ScriptedModel`: offline and deterministic (nbval and Binder need it). It scores each tool by the
  words a request shares with the tool's name, description and parameters; takes arguments only where
  a request marks them (quoted text, numbers, a word that is one of a parameter's allowed values); and
  on an error result, retries with a value the error message quotes, or tries the next tool.
- `ChatCompletionsModel`: any endpoint that speaks the OpenAI chat-completions shape (``tools`` in,
  ``tool_calls`` out), configured by environment variables (`ChatCompletionsModel.from_env`).
- `SamplingModel`: the connected client's own model, asked through MCP sampling (`Context.sample`), for
  a loop that runs inside a tool an outside client called.

The calls go through the real in-kernel server (`mcp_notebook.list_tools`, `mcp_notebook.call`), as
the notebook itself: what the model sees is what any MCP client would see.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Protocol

import mcp_notebook

from ..core._errors import ClientConnectionError, ProtocolError
from ..core._text import clip, t

MAX_STEPS = 4
"""Calls a run may make before the loop stops it (a model that keeps retrying gets nowhere)."""

# -- what a model decides ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """The model wants `tool` called with `arguments` (`id`: the endpoint's id of that call)."""

    tool: str
    arguments: dict[str, Any]
    reason: str = ""
    id: str = ""


@dataclass(frozen=True)
class Answer:
    """The model answers the person (and calls nothing more)."""

    text: str


@dataclass(frozen=True)
class Step:
    """One call of a run and what came back: the result's text, and whether it was an error."""

    call: Call
    text: str
    is_error: bool
    protocol_error: bool = False


class Model(Protocol):
    """What the loop needs of a model: given the request, the tools and the steps so far, decide."""

    def decide(self, request: str, tools: list[dict[str, Any]], steps: list[Step]) -> Call | Answer: ...


@dataclass
class Run:
    """What a run of the loop did: its request, the scores (scripted model), every step, the answer."""

    request: str
    steps: list[Step] = field(default_factory=list)
    answer: str = ""
    scores: list[tuple[str, int, list[str]]] = field(default_factory=list)

    @property
    def picked(self) -> str | None:
        """The tool the model called first (None: it called none)."""
        return self.steps[0].call.tool if self.steps else None

    @property
    def solved_by(self) -> str | None:
        """The tool whose call last succeeded (None: no call succeeded)."""
        ok = [step for step in self.steps if not step.is_error]
        return ok[-1].call.tool if ok else None

    def lines(self) -> list[str]:
        lines = [t("agent.request", request=self.request)]
        if self.scores:
            shown = ", ".join(
                f"{name} {score}" + (f" ({', '.join(words)})" if words else "")
                for name, score, words in self.scores
            )
            lines.append(t("agent.scores", scores=shown))
        for number, step in enumerate(self.steps, 1):
            arguments = json.dumps(step.call.arguments, ensure_ascii=False)
            if step.call.reason:
                lines.append(f"   {step.call.reason}")
            mark = "isError" if step.is_error else "ok"
            if step.protocol_error:
                mark = t("agent.protocol_error")
            lines.append(
                f"{number}. {step.call.tool} {arguments} → {mark}: {clip(' '.join(step.text.split()), 160)}"
            )
        lines.append(t("agent.answer", answer=clip(" ".join(self.answer.split()), 200)))
        return lines

    def __repr__(self) -> str:
        return "\n".join(self.lines())


def run_agent(request: str, model: Model | None = None, *, max_steps: int = MAX_STEPS) -> Run:
    """Let `model` (default: a `ScriptedModel`) handle `request` with the in-kernel server's tools.

    The tools are read with ``tools/list`` and called with ``tools/call`` through the running server
    (one is started for the run, and stopped after, when none runs). A JSON-RPC error is shown to the
    model as text too, marked as a protocol error: a model sees it, but the tool never ran.

    Returns
    -------
    Run
        Every step, printable (``repr``) as a trace in the current language.
    """
    model = model if model is not None else ScriptedModel()
    started = mcp_notebook.current_server() is None
    server = mcp_notebook.serve() if started else None
    try:
        tools = mcp_notebook.list_tools()
        run = Run(request)
        if isinstance(model, ScriptedModel):
            run.scores = model.scores(request, tools)
        for _ in range(max_steps):
            decision = model.decide(request, tools, run.steps)
            if isinstance(decision, Answer):
                run.answer = decision.text
                return run
            run.steps.append(_call(decision))
        run.answer = t("agent.too_many_steps", steps=max_steps)
        return run
    finally:
        if server is not None:
            server.stop()


def _call(decision: Call) -> Step:
    try:
        result = mcp_notebook.call(decision.tool, decision.arguments)
    except ProtocolError as exc:
        return Step(decision, f"[{exc.code}] {exc.message}", True, protocol_error=True)
    return Step(decision, result.text, bool(result.is_error))


# -- the scripted model -----------------------------------------------------------------------------

_QUOTED = re.compile(r"""['"`‘“]([^'"`’”]+)['"`’”]""")
_WORD = re.compile(r"[0-9A-Za-z\uac00-\ud7a3]+")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_STOP = "a an the is are am be at in on of to for and or with by from it its this that what how many much"
STOPWORDS = frozenset(
    f"{_STOP} me my i you your can could please tell do does now right there here".split(" ")
)
"""Words too common to say anything about a tool (English; Korean words of one syllable never count)."""


def words(text: str) -> set[str]:
    """The words of `text` that may carry meaning: two characters or more, not a stop word."""
    return {w for w in (m.casefold() for m in _WORD.findall(text)) if len(w) >= 2 and w not in STOPWORDS}


def _same(a: str, b: str) -> bool:
    """Whether two words count as one. Korean words may differ in their last syllable, where a
    particle goes (``대여소에`` / ``대여소를``), when two syllables or more agree; an English word may
    go on where the other ends (``bike`` / ``bikes``), when the shorter has three letters or more."""
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    if re.match(r"[\uac00-\ud7a3]", short):
        common = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(short))
        return common >= max(2, len(short) - 1)
    return len(short) >= 3 and long.startswith(short)


def tool_words(tool: dict[str, Any]) -> set[str]:
    """Every word a model reads about `tool`: its name's parts, description, parameters and theirs."""
    text = [tool.get("name", "").replace("_", " "), tool.get("title", ""), tool.get("description", "")]
    for name, prop in (tool.get("inputSchema", {}).get("properties") or {}).items():
        text += [name.replace("_", " "), str(prop.get("description", ""))]
    return words(" ".join(text))


class ScriptedModel:
    """A model that follows a script a learner can read, so every run is the same.

    Picking: a tool scores one point for each word of the request (quoted values left out) that is
    also a word of its name, description or parameters. The best score wins; a tie, or no tool
    scoring at all, and the model asks the person instead of guessing.

    Arguments: a parameter with allowed values (``enum``) takes the one the request names; a number
    takes the request's first number; a text takes the request's quoted text (in order); a
    parameter the request does not mark is left out.

    Errors: after an error result it reads the message. If the message quotes a value not tried yet
    (one of the parameter's allowed values, if it has them), it calls again with that value. Else it
    tries the next best tool, and gives up when none is left.
    """

    def scores(self, request: str, tools: list[dict[str, Any]]) -> list[tuple[str, int, list[str]]]:
        """Each tool's score for `request` and the words that earned it, best first (then by name)."""
        asked = words(_QUOTED.sub(" ", request))
        scored = []
        for tool in tools:
            known = tool_words(tool)
            shared = sorted(w for w in asked if any(_same(w, k) for k in known))
            scored.append((str(tool["name"]), len(shared), shared))
        return sorted(scored, key=lambda item: (-item[1], item[0]))

    def decide(self, request: str, tools: list[dict[str, Any]], steps: list[Step]) -> Call | Answer:
        if steps and not steps[-1].is_error:
            return Answer(steps[-1].text)
        by_name = {tool["name"]: tool for tool in tools}
        if steps:
            last = steps[-1]
            retry = self._fix(last, by_name.get(last.call.tool, {}), steps)
            if retry is not None:
                return retry
        tried = {step.call.tool for step in steps}
        ranked = [(name, score) for name, score, _ in self.scores(request, tools) if score > 0]
        if not steps and len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
            return Answer(t("agent.tie", first=ranked[0][0], second=ranked[1][0]))
        for name, _ in ranked:
            if name not in tried:
                reason = t("agent.next_tool", tool=name) if steps else ""
                return Call(name, self.arguments(request, by_name[name]), reason=reason)
        if steps:
            return Answer(t("agent.give_up", error=clip(" ".join(steps[-1].text.split()), 120)))
        return Answer(t("agent.no_tool"))

    def arguments(self, request: str, tool: dict[str, Any]) -> dict[str, Any]:
        """The arguments the request marks for `tool`'s parameters (see the class docstring)."""
        schema = tool.get("inputSchema", {})
        quoted = _QUOTED.findall(request)
        numbers = _NUMBER.findall(_QUOTED.sub(" ", request))
        asked = [m.casefold() for m in _WORD.findall(request)]
        arguments: dict[str, Any] = {}
        for name, prop in (schema.get("properties") or {}).items():
            kind = prop.get("type")
            if "enum" in prop:
                named = [v for v in prop["enum"] if any(_same(str(v).casefold(), w) for w in asked)]
                if named:
                    arguments[name] = named[0]
            elif kind in ("number", "integer") and numbers:
                value = numbers.pop(0)
                arguments[name] = int(float(value)) if kind == "integer" else float(value)
            elif kind == "string" and quoted:
                arguments[name] = quoted.pop(0)
        return arguments

    def _fix(self, last: Step, tool: dict[str, Any], steps: list[Step]) -> Call | None:
        """The same call with one value the error quotes, if the error gives one not tried yet."""
        if last.protocol_error or not tool:
            return None  # the tool never ran (or is unknown): nothing in the message to fix a call with
        properties = tool.get("inputSchema", {}).get("properties") or {}
        tried = {json.dumps(s.call.arguments, sort_keys=True) for s in steps if s.call.tool == last.call.tool}
        named = [p for p in properties if p in last.text] or list(last.call.arguments) or list(properties)
        names = {last.call.tool, *properties}  # a quoted name is what the message is about, not a value
        for value in _QUOTED.findall(last.text):
            if value in names:
                continue
            for parameter in named:
                allowed = properties.get(parameter, {}).get("enum")
                if allowed is not None and value not in allowed:
                    continue
                arguments = {**last.call.arguments, parameter: value}
                if json.dumps(arguments, sort_keys=True) not in tried:
                    reason = t("agent.retry", parameter=parameter, value=value)
                    return Call(last.call.tool, arguments, reason=reason)
        return None


# -- a real model behind an OpenAI-compatible endpoint ---------------------------------------------

URL_VARIABLE = "MCP_NOTEBOOK_LLM_URL"
KEY_VARIABLE = "MCP_NOTEBOOK_LLM_KEY"
MODEL_VARIABLE = "MCP_NOTEBOOK_LLM_MODEL"


class ChatCompletionsModel:
    """A model behind any endpoint that speaks the OpenAI chat-completions shape.

    Parameters
    ----------
    url:
        The API's base URL, up to ``/v1`` (``http://127.0.0.1:11434/v1`` for a local Ollama); the
        model posts to ``{url}/chat/completions``.
    model:
        The model's name at that endpoint.
    key:
        The API key, sent as ``Authorization: Bearer``; none for a local endpoint that needs none.
    timeout:
        Seconds to wait for each answer.
    """

    def __init__(self, url: str, model: str, *, key: str | None = None, timeout: float = 60.0) -> None:
        self.url = url.rstrip("/")
        self.model = model
        self.key = key
        self.timeout = timeout

    @classmethod
    def from_env(cls) -> ChatCompletionsModel:
        """The model that ``MCP_NOTEBOOK_LLM_URL``, ``MCP_NOTEBOOK_LLM_MODEL`` and (if the endpoint
        needs one) ``MCP_NOTEBOOK_LLM_KEY`` name. The key is read from the environment, so it is
        never written in a notebook.

        Raises
        ------
        ValueError
            When the URL or the model is not set (the message says which variables to set).
        """
        url, model = os.environ.get(URL_VARIABLE, ""), os.environ.get(MODEL_VARIABLE, "")
        if not url.strip() or not model.strip():
            raise ValueError(t("agent.not_configured", url=URL_VARIABLE, model=MODEL_VARIABLE))
        return cls(url.strip(), model.strip(), key=os.environ.get(KEY_VARIABLE) or None)

    def __repr__(self) -> str:
        return f"ChatCompletionsModel(url={self.url!r}, model={self.model!r})"  # never the key

    def decide(self, request: str, tools: list[dict[str, Any]], steps: list[Step]) -> Call | Answer:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": t("agent.system")},
            {"role": "user", "content": request},
        ]
        for index, step in enumerate(steps):
            call_id = step.call.id or f"call_{index}"
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {
                                "name": step.call.tool,
                                "arguments": json.dumps(step.call.arguments, ensure_ascii=False),
                            },
                        }
                    ],
                }
            )
            text = f"isError: true\n{step.text}" if step.is_error else step.text
            messages.append({"role": "tool", "tool_call_id": call_id, "content": text})
        body = {
            "model": self.model,
            "messages": messages,
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": tool["name"],
                        "description": tool.get("description", ""),
                        "parameters": tool.get("inputSchema", {"type": "object"}),
                    },
                }
                for tool in tools
            ],
        }
        reply = self._post(body)
        try:
            message = reply["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            raise ClientConnectionError(
                t("agent.bad_reply", url=self.url, reply=clip(json.dumps(reply), 200))
            ) from None
        calls = message.get("tool_calls") or []
        if not calls:
            return Answer(str(message.get("content") or ""))
        function = calls[0].get("function", {})
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except ValueError:
            arguments = {}
        return Call(str(function.get("name", "")), arguments, id=str(calls[0].get("id", "")))

    def _post(self, body: dict[str, Any]) -> Any:
        headers = {"Content-Type": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        request = urllib.request.Request(
            f"{self.url}/chat/completions", data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            detail = clip(exc.read().decode("utf-8", "replace"), 200)
            raise ClientConnectionError(
                t("agent.http_error", url=self.url, status=exc.code, detail=detail)
            ) from None
        except (urllib.error.URLError, TimeoutError, ValueError) as exc:
            raise ClientConnectionError(t("agent.unreachable", url=self.url, error=str(exc))) from None


# -- the client's own model, through MCP sampling ------------------------------------------------------

_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


class SamplingModel:
    """The model of the client that called a tool, asked through sampling (``sampling/createMessage``).

    Inside a tool that takes a `Context`, ``run_agent(request, SamplingModel(ctx))`` lets the client's
    model drive the loop: each decision is one sampling request (its own `key`, so on 2026-07-28, where
    a tool runs again for each answer, the answers already given are replayed and only the new
    question is asked). The model is asked to answer with one JSON object, ``{"tool": ..., "arguments":
    {...}}`` or ``{"answer": ...}``; a reply that is neither is taken as the answer.

    On 2026-07-28 the tool runs again for every answer, so the loop's earlier calls run again too:
    give such a loop read-only tools.
    """

    def __init__(self, ctx: Any, *, max_tokens: int = 400) -> None:
        self.ctx = ctx
        self.max_tokens = max_tokens

    def decide(self, request: str, tools: list[dict[str, Any]], steps: list[Step]) -> Call | Answer:
        listed = [
            {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "inputSchema": tool.get("inputSchema"),
            }
            for tool in tools
        ]
        done = [
            {"tool": s.call.tool, "arguments": s.call.arguments, "isError": s.is_error, "result": s.text}
            for s in steps
        ]
        prompt = t(
            "agent.sampling_prompt",
            request=request,
            tools=json.dumps(listed, ensure_ascii=False),
            steps=json.dumps(done, ensure_ascii=False),
        )
        reply = self.ctx.sample(
            prompt,
            max_tokens=self.max_tokens,
            system_prompt=t("agent.system"),
            key=f"agent-step-{len(steps)}",
        )
        found = _JSON_OBJECT.search(reply or "")
        try:
            decided = json.loads(found.group()) if found else None
        except ValueError:
            decided = None
        if isinstance(decided, dict) and isinstance(decided.get("tool"), str):
            arguments = decided.get("arguments")
            return Call(decided["tool"], arguments if isinstance(arguments, dict) else {})
        if isinstance(decided, dict) and "answer" in decided:
            return Answer(str(decided["answer"]))
        return Answer(str(reply or ""))
