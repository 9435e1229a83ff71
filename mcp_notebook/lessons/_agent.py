"""An agent loop for the lessons: a model reads the tool list, picks a tool, reads the result and,
when it is an error, corrects itself or gives up.

::

    run_agent(request, model)
      └── tools/list ─► model.decide(request, tools, steps) ─► Call(tool, arguments) or Answer(text)
                           ▲                                          │
                           └──── Step(result text, is_error) ◄── tools/call

Three models speak the same `Model` interface:

- `ScriptedModel` (`._scripted`): offline and deterministic (nbval and Binder need it). It weighs
  the meanings a request shares with each tool's name, description and parameters, in Korean and
  English alike (`._glossary`, `._reading`), fills arguments from the schema (`._arguments`), looks
  a missing ID up with another tool first, and on an error result fixes the call from what the
  message says, when that fits the request (`._repair` reads it, `._recovery` chooses).
- `ChatCompletionsModel`: any endpoint that speaks the OpenAI chat-completions shape (``tools`` in,
  ``tool_calls`` out), configured by environment variables (`ChatCompletionsModel.from_env`).
- `SamplingModel`: the connected client's own model, asked through MCP sampling (`Context.sample`), for
  a loop that runs inside a tool an outside client called.

The calls go through the real in-kernel server (`mcp_notebook.list_tools`, `mcp_notebook.call`), as
the notebook itself: what the model sees is what any MCP client would see. ``run_agent(...,
first=Call(...))`` starts the loop with a call of the caller's choosing, as if the model had made it:
a grader forces a bad call that way, to see whether the model recovers from the tool's error message.
The loop's records (`Call`, `Answer`, `Step`, `Run`) are in `._steps`; this module re-exports them.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import mcp_notebook

from ..core._errors import ClientConnectionError, ProtocolError
from ..core._text import clip, t
from ._glossary import words
from ._scripted import ScriptedModel
from ._steps import Answer, Call, Model, Run, Step

__all__ = [
    "MAX_STEPS",
    "Answer",
    "Call",
    "ChatCompletionsModel",
    "Model",
    "Run",
    "SamplingModel",
    "ScriptedModel",
    "Step",
    "loop",
    "run_agent",
    "words",
]

MAX_STEPS = 4
"""Calls a run may make before the loop stops it (a model that keeps retrying gets nowhere)."""


def run_agent(
    request: str, model: Model | None = None, *, max_steps: int = MAX_STEPS, first: Call | None = None
) -> Run:
    """Let `model` (default: a `ScriptedModel`) handle `request` with the in-kernel server's tools.

    The tools are read with ``tools/list`` and called with ``tools/call`` through the running server
    (one is started for the run, and stopped after, when none runs). A JSON-RPC error is shown to the
    model as text too, marked as a protocol error: a model sees it, but the tool never ran.

    Parameters
    ----------
    first:
        A call to start with, as if the model had chosen it (a grader forces a bad call this way, to
        see whether the model recovers from the error message); it counts as one of `max_steps`.

    Returns
    -------
    Run
        Every step, printable (``repr``) as a trace in the current language; ``run.final`` is the last
        call that succeeded, ``run.answer`` what the model answered.
    """
    model = model if model is not None else ScriptedModel()
    started = mcp_notebook.current_server() is None
    server = mcp_notebook.serve() if started else None
    try:
        return loop(request, model, mcp_notebook.list_tools(), _call, max_steps=max_steps, first=first)
    finally:
        if server is not None:
            server.stop()


def loop(
    request: str,
    model: Model,
    tools: list[dict[str, Any]],
    call: Callable[[Call], Step],
    *,
    max_steps: int = MAX_STEPS,
    first: Call | None = None,
) -> Run:
    """The loop itself, over `tools` and a `call` that runs one decision: `run_agent` passes the real
    server's; a test may pass its own."""
    run = Run(request)
    if isinstance(model, ScriptedModel):
        run.scores = model.scores(request, tools)
    if first is not None:
        run.steps.append(call(first if first.reason else replace(first, reason=t("agent.forced"))))
    while len(run.steps) < max_steps:
        decision = model.decide(request, tools, run.steps)
        if isinstance(decision, Answer):
            run.answer = decision.text
            return run
        run.steps.append(call(decision))
    decision = model.decide(request, tools, run.steps)
    if isinstance(decision, Answer) and run.steps and not run.steps[-1].is_error:
        run.answer = decision.text  # the last call answered the request: nothing was cut short
    else:
        run.answer = t("agent.too_many_steps", steps=max_steps)
    return run


def _call(decision: Call) -> Step:
    try:
        result = mcp_notebook.call(decision.tool, decision.arguments)
    except ProtocolError as exc:
        return Step(decision, f"[{exc.code}] {exc.message}", True, protocol_error=True)
    return Step(decision, result.text, bool(result.is_error), structured=result.structured_content)


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
