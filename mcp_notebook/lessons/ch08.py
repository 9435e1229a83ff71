"""Exercises of chapter 08 (두 프로토콜 시대): a 2026-07-28 request the learner writes by hand and the
checker sends to the real server, which era a wire fact belongs to, what a stateless server does
when a tool needs the user, why ``requestState`` is sealed, and a tool that asks with `Context`,
called by the checker in both eras.

>>> from mcp_notebook.lessons.ch08 import q1, q2, q3, q4, q5

Their content is data: ``content/ch08/exercises.toml``; the kinds of q1 and q5 are defined here.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..core._idempotency import KEY_PARAMETER
from ..core._text import clip, t
from ._content import load_exercises
from ._exercise import DataContext, Exercise, NotAttempted, is_blank, user_namespace
from ._texts import Text
from ._toolcheck import CALL_TIMEOUT, ToolExercise, served_catalogue

__all__ = ["q1", "q2", "q3", "q4", "q5"]

STATELESS = "2026-07-28"

# -- shared by the checkers that talk to the real server ---------------------------------------------


def _blocking(work: Callable[[], Awaitable[Any]], timeout: float) -> Any:
    """Run ``await work()`` on the server's loop and wait for it, from a cell or any other thread.

    On the kernel's main thread the wait keeps running tools queued for it (``run_in="kernel"``), so
    a checker calling the in-kernel server cannot deadlock with it.
    """
    from ..runtime._loop import runtime

    future = runtime.portal().start_task_soon(work)
    if threading.current_thread() is threading.main_thread():
        return runtime.kernel_pump.wait(future, timeout)
    return future.result(timeout)


def _has_ellipsis(value: Any) -> bool:
    if value is ...:
        return True
    if isinstance(value, dict):
        return any(_has_ellipsis(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_ellipsis(v) for v in value)
    return False


# -- q1: a 2026-07-28 request written by hand, sent to the real server -------------------------------

MENU_URI = "menu://today"
CHECKER_HEADERS = ("authorization", "accept", "content-type")


@dataclass
class _Reply:
    """What the server answered a raw request: HTTP status and the JSON-RPC message (None if none)."""

    status: int
    message: dict[str, Any] | None


def _last_message(content_type: str, text: str) -> dict[str, Any] | None:
    if content_type.startswith("text/event-stream"):
        data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        return dict(json.loads(data[-1])) if data else None
    return dict(json.loads(text)) if text.strip() else None


class RawRequestExercise(Exercise):
    """The learner writes a 2026-07-28 ``resources/read`` request (headers and body) by hand.

    The checker POSTs it to the in-kernel server exactly as written (adding only the token and the
    content headers) and judges what the server answers, so every mismatch the server catches is
    explained in the learner's words; a session header, which the server ignores, is called out too.
    """

    kind = "raw_request"

    def __init__(self, *args: Any, uri: str, template: Text, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.uri = uri
        self._add_texts({"template": template})
        self._sent: dict[str, Any] = {}

    @classmethod
    def data_kwargs(cls, data: dict[str, Any], context: DataContext) -> dict[str, Any]:
        kwargs = super().data_kwargs(data, context)
        kwargs["uri"] = data.pop("uri")
        kwargs["template"] = data.pop("template")
        return kwargs

    def template(self) -> str:
        return self.text("template")

    def cell_template(self) -> str:
        # The notebook's cell leaves the comments out: the question shown above it has them.
        return "\n".join(line.split("  #", 1)[0] for line in self.template().splitlines())

    def evaluate(self, answer: Any) -> list[str]:
        self._sent = {}
        if not isinstance(answer, dict):
            return [t("lessons.ch08.raw.shape", what=type(answer).__name__)]
        headers, body = answer.get("headers"), answer.get("body")
        if is_blank(headers) and is_blank(body):
            raise NotAttempted
        problems: list[str] = []
        if not isinstance(headers, dict):
            problems.append(t("lessons.ch08.raw.headers_not_dict", kind=type(headers).__name__))
        if not isinstance(body, dict):
            problems.append(t("lessons.ch08.raw.body_not_dict", kind=type(body).__name__))
        if problems:
            return problems
        assert isinstance(headers, dict) and isinstance(body, dict)
        if _has_ellipsis(headers) or _has_ellipsis(body):
            return [t("lessons.ch08.raw.ellipsis")]
        for name, value in headers.items():
            if not isinstance(value, str):
                problems.append(t("lessons.ch08.raw.header_value", name=name, value=value))
        try:
            payload = json.dumps(body, ensure_ascii=False).encode()
        except (TypeError, ValueError) as exc:
            problems.append(t("lessons.ch08.raw.not_json", error=exc))
        if problems:
            return problems
        if any(str(name).lower() == "mcp-session-id" for name in headers):
            problems.append(t("lessons.ch08.raw.session"))
        sent = {str(k): v for k, v in headers.items() if str(k).lower() not in CHECKER_HEADERS}
        import mcp_notebook

        started_here = mcp_notebook.current_server() is None
        server = mcp_notebook.serve()
        try:
            reply = _blocking(lambda: self._post(server.url, server.token, sent, payload), CALL_TIMEOUT + 5)
        except Exception as exc:
            return [*problems, t("lessons.ch08.raw.unreachable", error=f"{type(exc).__name__}: {exc}")]
        finally:
            if started_here:
                server.stop()
        return problems + self._judge(reply)

    @staticmethod
    async def _post(url: str, token: str, headers: dict[str, str], payload: bytes) -> _Reply:
        import anyio
        import httpx2

        headers = {
            **headers,
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        with anyio.fail_after(CALL_TIMEOUT):
            async with httpx2.AsyncClient(timeout=CALL_TIMEOUT) as http:
                response = await http.post(url, headers=headers, content=payload)
        return _Reply(
            response.status_code, _last_message(response.headers.get("content-type", ""), response.text)
        )

    def _judge(self, reply: _Reply) -> list[str]:
        message = reply.message
        if message is None:
            return [t("lessons.ch08.raw.notification", status=reply.status)]
        error = message.get("error")
        if isinstance(error, dict):
            code, text = error.get("code"), str(error.get("message", ""))
            lines = [t("lessons.ch08.raw.answered", status=reply.status, code=code, message=clip(text, 200))]
            return [*lines, self._advice(code, text.lower())]
        result = message.get("result")
        contents = result.get("contents") if isinstance(result, dict) else None
        if isinstance(contents, list) and any(
            isinstance(c, dict) and c.get("uri") == self.uri for c in contents
        ):
            assert isinstance(result, dict)
            self._sent = {
                "status": reply.status,
                "result_type": json.dumps(result.get("resultType")),
                "ttl": json.dumps(result.get("ttlMs")),
                "scope": json.dumps(result.get("cacheScope")),
            }
            return []
        got = clip(json.dumps(result, ensure_ascii=False), 200)
        return [t("lessons.ch08.raw.other_result", uri=self.uri, got=got)]

    def _advice(self, code: Any, text: str) -> str:
        if code == -32020:
            if "mcp-name" in text:
                return t("lessons.ch08.raw.mcp_name")
            if "mcp-method" in text:
                return t("lessons.ch08.raw.mcp_method")
            if "protocol-version" in text or "protocol version" in text:
                return t("lessons.ch08.raw.version_mismatch")
        if code == -32602:
            if "_meta" in text or "envelope" in text:
                return t("lessons.ch08.raw.meta")
            if "invalid request parameters" in text:
                return t("lessons.ch08.raw.meta_value")
            return t("lessons.ch08.raw.resource", uri=self.uri)
        if code == -32600 and "session" in text:
            return t("lessons.ch08.raw.handshake")
        if code == -32022:
            return t("lessons.ch08.raw.version")
        if code == -32601:
            return t("lessons.ch08.raw.method")
        return t("lessons.ch08.raw.other")

    def praise(self) -> list[str]:
        sent = [t("lessons.ch08.raw.sent", **self._sent)] if self._sent else []
        return [*sent, *super().praise()]


# -- q5: a tool that asks, checked in both eras ---------------------------------------------------------

RESTAURANT = "한강식당"
PEOPLE = 4
LEDGER = "reservations"
ERA_MODES = (("legacy", "2025-11-25"), (STATELESS, STATELESS))


@dataclass
class _Round:
    """One checked call: what the user was asked, the result (or the failure), in one era."""

    asked: list[Any] = field(default_factory=list)
    result: Any = None
    failure: str | None = None


class AskingToolExercise(ToolExercise):
    """The learner writes a tool that asks the user with `Context`; the checker calls it in both eras.

    Each era gets two calls from the official SDK client through the in-kernel server, one where the
    user accepts and one where they decline; the notebook's `LEDGER` list shows what the tool changed.
    The checker connects as the notebook itself, so no approval is asked.
    """

    kind = "asking_tool"

    def _definition_problems(self, definition: dict[str, Any]) -> list[str]:
        problems = super()._definition_problems(definition)
        entry = served_catalogue().get(definition["name"])
        self._asks = entry is not None and entry.context is not None
        if not self._asks:
            problems.append(t("lessons.ch08.ask.no_context"))
        return problems

    def _probe_problems(self, name: str) -> list[str]:
        if not getattr(self, "_asks", False):
            return []
        ledger = user_namespace().get(LEDGER)
        if not isinstance(ledger, list):
            return [t("lessons.ch08.ask.no_ledger", ledger=LEDGER)]
        problems: list[str] = []
        self._form_wrong = False
        for mode, era in ERA_MODES:
            found = self._era_problems(name, mode, ledger)
            problems += [t("lessons.ch08.ask.era", era=era, problem=p) for p in found]
            if self._form_wrong:
                break  # the form itself is wrong: the other era would only say so again
        return problems

    def _era_problems(self, name: str, mode: str, ledger: list[Any]) -> list[str]:
        before = len(ledger)
        accepted = self._call(name, mode, "accept")
        if accepted.failure is not None:
            return [accepted.failure]
        problems: list[str] = []
        if not accepted.asked:
            problems.append(t("lessons.ch08.ask.not_asked"))
        elif len(accepted.asked) > 1:
            problems.append(t("lessons.ch08.ask.asked_more", count=len(accepted.asked)))
        else:
            schema = accepted.asked[0] if isinstance(accepted.asked[0], dict) else {}
            field_schema = schema.get("properties", {}).get("people", {})
            if field_schema.get("type") != "integer":
                self._form_wrong = True
                shown = clip(json.dumps(schema, ensure_ascii=False), 200)
                return [t("lessons.ch08.ask.schema", schema=shown)]
        shown_call = f"{name} {json.dumps({'restaurant': RESTAURANT}, ensure_ascii=False)}"
        if accepted.result.is_error:
            text = " ".join(getattr(block, "text", "") for block in accepted.result.content)
            problems.append(t("lessons.tool.call_error", call=shown_call, text=clip(text, 200)))
        made = ledger[before:]
        expected = {"restaurant": RESTAURANT, "people": PEOPLE}
        if not made:
            text = " ".join(getattr(block, "text", "") for block in accepted.result.content)
            problems.append(
                t("lessons.ch08.ask.none_made", people=PEOPLE, ledger=LEDGER, got=clip(text, 200))
            )
        elif len(made) > 1:
            key = "made_twice" if mode == STATELESS else "made_many"
            problems.append(t(f"lessons.ch08.ask.{key}", ledger=LEDGER, count=len(made), made=_shown(made)))
        elif made[0] != expected:
            problems.append(
                t(
                    "lessons.ch08.ask.wrong_entry",
                    ledger=LEDGER,
                    got=_shown(made[0]),
                    expected=_shown(expected),
                )
            )
        before = len(ledger)
        declined = self._call(name, mode, "decline")
        if declined.failure is not None:
            return [*problems, declined.failure]
        if len(ledger) > before:
            problems.append(t("lessons.ch08.ask.declined_made", ledger=LEDGER, made=_shown(ledger[before:])))
        return problems

    def _call(self, name: str, mode: str, action: str) -> _Round:
        import mcp_notebook

        server = mcp_notebook.current_server()
        assert server is not None  # ToolExercise.evaluate started one if none was running
        shown = f"{name} {json.dumps({'restaurant': RESTAURANT}, ensure_ascii=False)}"
        done = _Round()
        arguments: dict[str, Any] = {"restaurant": RESTAURANT}
        entry = served_catalogue().get(name)
        if entry is not None and KEY_PARAMETER in entry.input_schema.get("properties", {}):
            # A tool that guards its bookings with an idempotency key: each of the checker's calls is a
            # new booking, so each gets a key of its own (the SDK resends it with the answers).
            arguments[KEY_PARAMETER] = secrets.token_hex(16)
        try:
            done.result = _blocking(
                lambda: _ask_through_sdk(server.url, name, mode, action, done.asked, arguments),
                CALL_TIMEOUT + 5,
            )
        except Exception as exc:
            error = getattr(exc, "error", None)
            if error is not None and hasattr(error, "code"):
                done.failure = t(
                    "lessons.tool.protocol_error", call=shown, error=f"[{error.code}] {error.message}"
                )
            else:
                described = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                done.failure = t("lessons.tool.unreachable", call=shown, error=described)
        return done

    def praise(self) -> list[str]:
        return [t("lessons.ch08.ask.checked"), f"{t('lessons.solution.why')}: {self.text('explanation')}"]


async def _ask_through_sdk(
    url: str, name: str, mode: str, action: str, asked: list[Any], arguments: dict[str, Any]
) -> Any:
    """Call `name` with the official SDK client in `mode`; the user (this function) accepts or declines."""
    import anyio
    import httpx2
    import mcp_types as types
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from ..runtime._loop import runtime

    async def answer(context: Any, params: Any) -> Any:
        asked.append(getattr(params, "requested_schema", None))
        if action == "accept":
            return types.ElicitResult(action="accept", content={"people": PEOPLE})
        return types.ElicitResult(action="decline")

    # The notebook's own credential: the checker is the notebook, so no approval is asked.
    headers = {"Authorization": f"Bearer {runtime.local_secret}"}
    with anyio.fail_after(CALL_TIMEOUT):
        async with (
            httpx2.AsyncClient(headers=headers, timeout=CALL_TIMEOUT) as http,
            Client(
                streamable_http_client(url, http_client=http),
                mode=mode,
                elicitation_callback=answer,
                client_info=types.Implementation(name="lesson-checker", version="1.0"),
            ) as client,
        ):
            return await client.call_tool(name, arguments)


def _shown(value: Any) -> str:
    return clip(json.dumps(value, ensure_ascii=False), 200)


q1, q2, q3, q4, q5 = load_exercises(
    "08", __all__, kinds={"raw_request": RawRequestExercise, "asking_tool": AskingToolExercise}
)
