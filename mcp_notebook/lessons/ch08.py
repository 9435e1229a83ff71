"""Exercises of chapter 08 (두 프로토콜 시대): a 2026-07-28 request the learner writes by hand and the
checker sends to the real server, which era a wire fact belongs to, what a stateless server does
when a tool needs the user, why ``requestState`` is sealed, and a tool that asks with `Context`,
called by the checker in both eras.

>>> from mcp_notebook.lessons.ch08 import q1, q2, q3, q4, q5

Their content is data: ``content/ch08/exercises.toml``; the kinds of q1 and q5 are defined here.
"""

from __future__ import annotations

import json
import random
import re
import secrets
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..core._idempotency import KEY_PARAMETER
from ..core._text import clip, t
from ._behaviour import Verdict, pick_problems
from ._content import load_exercises
from ._exercise import DataContext, Exercise, NotAttempted, is_blank, user_namespace
from ._judge import check_seed
from ._reference import States
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

        from ..client._http import http_client

        headers = {
            **headers,
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        with anyio.fail_after(CALL_TIMEOUT):
            async with http_client(timeout=CALL_TIMEOUT) as http:
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

LEDGER = "reservations"
ERA_MODES = (("legacy", "2025-11-25"), (STATELESS, STATELESS))
RESTAURANTS = ("한강식당", "Café Lumière", "을지로 국수집", "Blue Door")
"""Restaurants the checker books at: names in both scripts, none of them a word that says "no"."""
ROUNDS = ("accept", "accept", "decline", "cancel", "accept")
"""What the user answers, call by call, in each era: a new number of people each time they accept."""

# Words that say something did not happen: a result that has one says "not booked".
_NOT_DONE = re.compile(
    r"\b(not|no|never|didn't|did not|declined?|cancell?ed|cancel|false|failed)\b|않|못|안 |취소|거절|없",
    re.IGNORECASE,
)


def reads_as_done(text: str, restaurant: str) -> bool:
    """Whether a person reading `text` would take it that the booking was made (no word saying otherwise).

    The restaurant's name is left out first: a name is not a statement.
    """
    return _NOT_DONE.search(text.replace(restaurant, " ")) is None


@dataclass
class _Round:
    """One checked call: what the user was asked, the result (or the failure), the ledger's change."""

    asked: list[Any] = field(default_factory=list)
    result: Any = None
    failure: str | None = None
    made: list[Any] = field(default_factory=list)

    @property
    def text(self) -> str:
        if self.result is None:
            return ""
        return " ".join(getattr(block, "text", "") for block in self.result.content)

    @property
    def people_type(self) -> Any:
        schema = self.asked[0] if self.asked and isinstance(self.asked[0], dict) else {}
        return schema.get("properties", {}).get("people", {}).get("type")


class AskingToolExercise(ToolExercise):
    """The learner writes a tool that asks the user with `Context`; the checker calls it in both eras,
    beside the model answer.

    In each era the official SDK client calls the learner's tool (through the notebook's server) and
    the model answer (through a private one) the same way, one call per answer of `ROUNDS`: the user
    accepts with a number of people drawn for that check, declines, or cancels. Both start from an
    empty `LEDGER`; what each call asked, its result, the reservations it made and whether its text
    says it booked must be the same. The checker connects as the notebook itself, so no approval is
    asked.
    """

    kind = "asking_tool"

    def _definition_problems(self, definition: dict[str, Any]) -> list[str]:
        problems = super()._definition_problems(definition)
        entry = served_catalogue().get(definition["name"])
        self._asks = entry is not None and entry.context is not None
        if not self._asks:
            problems.append(t("lessons.ch08.ask.no_context"))
        return problems

    def _judged_problems(self, name: str, definition: dict[str, Any]) -> list[str]:
        self.verdict = None
        if not getattr(self, "_asks", False):
            return []
        notebook = user_namespace()
        if not isinstance(notebook.get(LEDGER), list):
            return [t("lessons.ch08.ask.no_ledger", ledger=LEDGER)]
        import mcp_notebook

        server = mcp_notebook.current_server()
        assert server is not None  # ToolExercise.evaluate started one if none was running
        seed = check_seed()
        choose = random.Random(seed)
        reference = self.reference()
        if self.judge is not None:
            with reference.served():
                picked = pick_problems(name, self.judge, definition, reference.definitions())
            if picked:
                return picked
        states = States([LEDGER], notebook, reference)
        calls = 0
        try:
            with reference.served():
                for mode, era in ERA_MODES:
                    for action in ROUNDS:
                        people, restaurant = choose.randint(1, 12), choose.choice(RESTAURANTS)
                        calls += 1
                        states.reset()
                        mine = self._round(
                            name, server.url, mode, (action, people, restaurant), notebook, served_catalogue()
                        )
                        model = self._round(
                            name,
                            reference.url,
                            mode,
                            (action, people, restaurant),
                            reference.namespace,
                            reference.catalogue,
                        )
                        if model.failure is not None or model.result is None or model.result.is_error:
                            raise RuntimeError(
                                f"the model answer of {self.label} failed: {model.failure or model.text}"
                            )
                        problem = _difference(mine, model, action, mode, restaurant)
                        if problem is not None:
                            shown = f"{name} {json.dumps({'restaurant': restaurant}, ensure_ascii=False)}"
                            answer = t("lessons.ch08.ask.answer", action=action, people=people)
                            return [
                                t("lessons.ch08.ask.era", era=era, problem=f"{shown}, {answer}: {problem}"),
                                t("lessons.judge.seed", seed=seed, name=self.name, count=calls),
                            ]
        finally:
            states.restore()
        self.verdict = Verdict([], calls * 2, seed)
        return []

    def _round(
        self,
        name: str,
        url: str,
        mode: str,
        answer: tuple[str, int, str],
        namespace: dict[str, Any],
        catalogue: Any,
    ) -> _Round:
        """One call through the server at `url`: the user answers (action, people); the tool is the one
        `catalogue` holds, and `namespace` the notebook (or the model answer's namespace) it writes to."""
        from ..runtime._loop import runtime

        action, people, restaurant = answer
        done = _Round()
        arguments: dict[str, Any] = {"restaurant": restaurant}
        entry = catalogue.get(name)
        if entry is not None and KEY_PARAMETER in entry.input_schema.get("properties", {}):
            # A tool that guards its bookings with an idempotency key: each call is a new booking,
            # so each gets a key of its own (the SDK resends it with the answers).
            arguments[KEY_PARAMETER] = secrets.token_hex(16)
        ledger = namespace[LEDGER]
        before = len(ledger)
        try:
            done.result = _blocking(
                lambda: _ask_through_sdk(
                    url, runtime.local_secret, name, mode, action, people, done.asked, arguments
                ),
                CALL_TIMEOUT + 5,
            )
        except Exception as exc:
            error = getattr(exc, "error", None)
            shown = f"{name} {json.dumps({'restaurant': restaurant}, ensure_ascii=False)}"
            if error is not None and hasattr(error, "code"):
                done.failure = t(
                    "lessons.tool.protocol_error", call=shown, error=f"[{error.code}] {error.message}"
                )
            else:
                described = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                done.failure = t("lessons.tool.unreachable", call=shown, error=described)
        done.made = list(ledger[before:])
        return done

    def praise(self) -> list[str]:
        return [t("lessons.ch08.ask.checked"), f"{t('lessons.solution.why')}: {self.text('explanation')}"]


def _difference(mine: _Round, model: _Round, action: str, mode: str, restaurant: str) -> str | None:
    """What the learner's call did that the model answer's did not, in a sentence (None: the same)."""
    if mine.failure is not None:
        return mine.failure
    if mine.result.is_error and not model.result.is_error:
        # What went wrong says more than "it did not ask" (a blocking ctx.elicit in an async tool).
        return t("lessons.tool.call_error", call="", text=clip(mine.text, 200)).lstrip()
    if not mine.asked:
        return t("lessons.ch08.ask.not_asked")
    if len(mine.asked) > len(model.asked):
        return t("lessons.ch08.ask.asked_more", count=len(mine.asked))
    if mine.people_type != model.people_type:
        shown = clip(json.dumps(mine.asked[0], ensure_ascii=False), 200)
        return t("lessons.ch08.ask.schema", schema=shown)
    if bool(mine.result.is_error) != bool(model.result.is_error):
        return t("lessons.ch08.ask.not_error", text=clip(mine.text, 200))
    if mine.made != model.made:
        if not model.made:
            return t("lessons.ch08.ask.declined_made", ledger=LEDGER, made=_shown(mine.made))
        if not mine.made:
            return t(
                "lessons.ch08.ask.none_made",
                people=model.made[0].get("people"),
                ledger=LEDGER,
                got=clip(mine.text, 200),
            )
        if len(mine.made) > len(model.made):
            key = "made_twice" if mode == STATELESS else "made_many"
            return t(f"lessons.ch08.ask.{key}", ledger=LEDGER, count=len(mine.made), made=_shown(mine.made))
        return t(
            "lessons.ch08.ask.wrong_entry",
            ledger=LEDGER,
            got=_shown(mine.made[0]),
            expected=_shown(model.made[0]),
        )
    done, said = bool(model.made), reads_as_done(mine.text, restaurant)
    if done != said:
        key = "says_not_booked" if done else "says_booked"
        return t(f"lessons.ch08.ask.{key}", text=clip(mine.text, 160), action=action)
    return None


async def _ask_through_sdk(
    url: str,
    token: str,
    name: str,
    mode: str,
    action: str,
    people: int,
    asked: list[Any],
    arguments: dict[str, Any],
) -> Any:
    """Call `name` with the official SDK client in `mode`; the user (this function) answers `action`."""
    import anyio
    import mcp_types as types
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from ..client._http import http_client

    async def answer(context: Any, params: Any) -> Any:
        asked.append(getattr(params, "requested_schema", None))
        if action == "accept":
            return types.ElicitResult(action="accept", content={"people": people})
        return types.ElicitResult(action="cancel" if action == "cancel" else "decline")

    # The notebook's own credential: the checker is the notebook, so no approval is asked.
    headers = {"Authorization": f"Bearer {token}"}
    with anyio.fail_after(CALL_TIMEOUT):
        async with (
            http_client(headers=headers, timeout=CALL_TIMEOUT) as http,
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


# -- q8 (part 3, 08c): a tool that stops when its task is cancelled -------------------------------------

PROCESSED = "processed"
CHUNKS = 200  # 0.02 s each: a loop that does not stop runs about 4 s after the cancel
STARTED = 3  # chunks processed before the checker cancels
STOP_WAIT = 15.0  # past the server's grace for a thread that never looks (5 s)
SLACK = 2  # chunks a stopping loop may still finish: the one in hand when the cancel came


def _until(condition: Callable[[], bool], seconds: float) -> bool:
    """Whether `condition` came true within `seconds` (checked every 20 ms; a deadline, not a sleep)."""
    deadline = time.monotonic() + seconds
    pause = threading.Event()
    while not condition():
        if time.monotonic() > deadline:
            return False
        pause.wait(0.02)
    return True


class CancellableToolExercise(ToolExercise):
    """The learner writes a long tool that stops when cancelled; the checker really cancels it.

    The tool is called as a task with the notebook's own ``call(..., task=True)`` (no approval); once
    it has processed a few chunks the checker sends ``tasks/cancel`` and waits until the server's run
    of the task is gone, then counts the chunks the notebook's ``processed`` list gained after the
    cancel: a loop that looks at ``ctx.cancelled`` gains at most the chunk in hand.
    """

    kind = "cancellable_tool"

    def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """A call of the judged sequence, as a task (a tool with ``task="required"`` takes no other)."""
        import mcp_notebook

        return mcp_notebook.call(name, arguments, task=True, timeout=CALL_TIMEOUT).result(CALL_TIMEOUT)

    def _definition_problems(self, definition: dict[str, Any]) -> list[str]:
        problems = super()._definition_problems(definition)
        entry = served_catalogue().get(definition["name"])
        self._as_task = entry is not None and entry.task in ("optional", "required")
        self._stopped: tuple[int, int] | None = None
        if entry is not None and not self._as_task:
            problems.append(t("lessons.ch08.cancel.not_task", tool=entry.name, value=repr(entry.task)))
        return problems

    def _judged_problems(self, name: str, definition: dict[str, Any]) -> list[str]:
        # The short calls beside the model answer first: a loop that does not stop at the cancel
        # below goes on filling `processed` for seconds, which those calls would see.
        if not getattr(self, "_as_task", False):
            return []
        namespace = user_namespace()
        ledger = namespace.get(PROCESSED)
        if not isinstance(ledger, list) or not callable(namespace.get("process")):
            return [t("lessons.ch08.cancel.no_ledger", ledger=PROCESSED)]
        return super()._judged_problems(name, definition) or self._cancel_problems(name)

    def _cancel_problems(self, name: str) -> list[str]:
        namespace = user_namespace()
        ledger = namespace[PROCESSED]
        import mcp_notebook

        server = mcp_notebook.current_server()
        assert server is not None  # ToolExercise.evaluate started one if none was running
        shown = f"{name} {json.dumps({'chunks': CHUNKS})}"
        ledger.clear()
        try:
            job = mcp_notebook.call(name, {"chunks": CHUNKS}, task=True, timeout=CALL_TIMEOUT)
        except mcp_notebook.ProtocolError as exc:
            return [t("lessons.tool.protocol_error", call=shown, error=f"[{exc.code}] {exc.message}")]
        except Exception as exc:
            return [t("lessons.tool.unreachable", call=shown, error=f"{type(exc).__name__}: {exc}")]
        if not _until(lambda: len(ledger) >= STARTED or job.done, CALL_TIMEOUT):
            job.cancel()
            return [
                t("lessons.ch08.cancel.nothing_processed", tool=name, chunks=CHUNKS, seconds=CALL_TIMEOUT)
            ]
        if job.done:
            if not ledger:
                return [t("lessons.ch08.cancel.nothing_processed", tool=name, chunks=CHUNKS, seconds=0)]
            return [t("lessons.ch08.cancel.ended_early", tool=name, status=job.status, message=job.message)]
        job.cancel()
        at = len(ledger)
        runs = server.tool_server.tasks.runs
        ended = _until(lambda: job.task_id not in runs, STOP_WAIT)
        extra = len(ledger) - at
        if extra > SLACK:
            return [t("lessons.ch08.cancel.kept_working", tool=name, at=at, count=extra)]
        if not ended:
            return [t("lessons.ch08.cancel.still_running", tool=name, seconds=STOP_WAIT)]
        self._stopped = (at, extra)
        return []

    def praise(self) -> list[str]:
        stopped = getattr(self, "_stopped", None)
        if stopped is None:
            return super().praise()
        at, extra = stopped
        checked = t("lessons.ch08.cancel.checked", chunks=CHUNKS, at=at, extra=extra)
        return [checked, f"{t('lessons.solution.why')}: {self.text('explanation')}"]


__all__ += ["q6", "q7", "q8"]

q1, q2, q3, q4, q5, q6, q7, q8 = load_exercises(
    "08",
    __all__,
    kinds={
        "raw_request": RawRequestExercise,
        "asking_tool": AskingToolExercise,
        "cancellable_tool": CancellableToolExercise,
    },
)
