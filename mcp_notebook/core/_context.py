"""What a running tool can do with the client that called it: report progress, log, ask.

A tool (or prompt) asks for a `Context` with a parameter annotated ``Context``; that parameter is
not part of the input schema, and the server passes it in::

    @tool
    def plan_trip(city: str, ctx: Context) -> str:
        ctx.progress(0, total=2, message="checking the weather")
        answer = ctx.elicit("How many nights?", {"nights": int})
        if not answer.accepted:
            return "No trip planned."
        ...

A form may also be a class, the official SDK's way: ``ctx.elicit("How many?", Party)`` with a
pydantic model (or a dataclass, or a TypedDict) asks with the same schema as the equivalent mapping,
and the accepted answer carries the validated instance as ``answer.data`` (see `._forms`).

The protocol eras ask the client differently, and the same tool code serves both:

- 2025-11-25 (handshake era): the server sends ``elicitation/create``, ``sampling/createMessage`` or
  ``roots/list`` to the client on the call's own response stream, and the tool waits for the answer.
- 2026-07-28 (stateless era): a server may not send requests. The call ends with
  ``resultType: "input_required"``, the questions, and a ``requestState`` that the SDK seals
  (encrypted and authenticated: a client cannot forge or edit it). The client asks its user or model
  and calls again with ``inputResponses``; the tool then runs again from the top and each question
  returns its answer (earlier answers travel inside the sealed state). So: change things *after*
  the questions, not before.

Sync tools call the plain methods (from a worker thread, or the kernel's thread); ``async def``
tools await the ``a``-prefixed ones (``await ctx.aelicit(...)``), which never block the server loop.

A call can be cancelled (its task cancelled by the client or in the panel, or the call abandoned
after its timeout): `Context.cancelled` turns true, and the tool's next `Context` call raises
`CallCancelled` (a ``BaseException``, so ``except Exception`` in tool code does not swallow it).
A long loop checks it, or waits with `Context.sleep`, which returns early::

    for epoch in range(epochs):
        ctx.progress(epoch, total=epochs)   # raises CallCancelled once cancelled
        train_one(epoch)

Once a call has become a task (a client that supports tasks, a tool that allows them), progress
goes into the task's status and questions wait for the client to poll and answer (`TaskChannel`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import math
import threading
import typing
import warnings
from collections.abc import Callable, Collection, Mapping
from typing import Any, Literal, Protocol, TypeVar, overload

from ._errors import ProtocolDeprecationWarning
from ._forms import elicitation_request, with_form_data
from ._identity import identity_of
from ._questions import (
    CAPABILITY,
    ELICIT,
    KEY_PREFIX,
    ROOTS,
    SAMPLE,
    UNANSWERED,
    Elicitation,
    InputRequired,
    ProtocolRefusal,
    parse_answer,
    state_of,
    this_rounds_answers,
)
from ._text import t

__all__ = ["CallCancelled", "Context"]

FormT = TypeVar("FormT")
_WARNED: set[str] = set()  # the deprecated features this process has warned of (once each)


class CallCancelled(BaseException):
    """Raised in a tool by its next `Context` call once its call was cancelled.

    A ``BaseException`` (as ``KeyboardInterrupt``), so that ``except Exception`` in tool code lets it
    through and the tool stops. Catch it only to clean up, then raise it again.
    """


class TaskChannel(Protocol):
    """Where a call that became a task reports progress and asks its questions (the server's)."""

    def progress(self, value: float, total: float | None, message: str | None) -> None: ...

    async def ask(self, requests: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        """Wait for the client's raw answers to `requests`, by key."""
        ...


# Progress on one token MUST increase with each notification (spec 2025-11-25, basic/utilities/progress),
# whatever a tool sends and after the server's own keep-alives while a person was asked. A value that
# would not grow is raised by this much over the last one: small enough that no client shows the
# difference, large enough to survive a float round trip through JSON.
PROGRESS_STEP = 1e-6


def next_progress(value: float, last: float | None) -> float:
    """`value`, raised just above `last` (the value sent before on the same token) when it is not above it."""
    if last is None:
        return value
    return max(value, last + PROGRESS_STEP, math.nextafter(last, math.inf))


LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


class Context:
    """The call in progress, as a tool sees it. Made by the server for each call; never built by hand.

    Attributes
    ----------
    client:
        Who is calling, as its credential proves it: ``"notebook"``, ``"owner"`` or the name given
        to ``srv.add_client(name)`` (the same as `mcp_notebook.current_client`).
    claimed_client:
        The name the client gives itself (``clientInfo.name``), or ``None``: a claim, fine to show,
        never to trust.
    protocol_version:
        The protocol version of this request (``"2025-11-25"``, ``"2026-07-28"`` ...).
    """

    def __init__(
        self,
        request: Any,
        *,
        stateless: bool,
        answers: Mapping[str, Any] | None = None,
        responses: Mapping[str, Any] | None = None,
        log_levels: Collection[str] = (),
        in_waiting_cell: Callable[[], bool] = lambda: False,
        progress_after: float | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        self._request = request  # the SDK's ServerRequestContext of this call
        # Whether this thread runs the tool for a cell that waits for it (the runtime knows; see `_block`).
        self._in_waiting_cell = in_waiting_cell
        self._stateless = stateless
        self._answers: dict[str, Any] = dict(answers or {})  # earlier rounds, from the sealed state
        self._responses: dict[str, Any] = dict(responses or {})  # this round's inputResponses
        # The levels the client lets this call send (its session's logging/setLevel on 2025-11-25,
        # the request's own opt-in on 2026-07-28): the server reads them from the request.
        self._log_levels = frozenset(log_levels)
        self._last_progress = progress_after  # the server's keep-alives on this call's token, if any
        self._counts: dict[str, int] = {}
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._pending: set[concurrent.futures.Future[Any]] = set()
        # Set from any thread when the call is cancelled; read by every method (`check_cancelled`).
        # A task's event belongs to the task (its end is not a cancel); a plain call's is its own.
        self._cancel = cancel if cancel is not None else threading.Event()
        self._owns_cancel = cancel is None
        self._task: TaskChannel | None = None  # set by the server once the call became a task
        params = request.session.client_params
        self.client: str = identity_of(request).name
        self.claimed_client: str | None = params.client_info.name if params is not None else None
        self.protocol_version: str = request.protocol_version

    @classmethod
    def of_request(
        cls,
        request: Any,
        *,
        log_levels: Collection[str] = (),
        in_waiting_cell: Callable[[], bool] = lambda: False,
        progress_after: float | None = None,
        cancel: threading.Event | None = None,
    ) -> Context:
        """The Context of one tools/call or prompts/get: its era, and on 2026-07-28 the answers of this
        round (``inputResponses``, only those to the questions the round asked) and of earlier ones
        (inside the verified, unsealed ``requestState``). `progress_after`: the last progress the
        server already sent on this request's token (while it waited for a person), which the tool's
        own progress must stay above."""
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

        stateless = request.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS
        params = request.params or {}
        state = state_of(params.get("requestState")) if stateless else {}
        answers = state.get("answers")
        responses = this_rounds_answers(state, params.get("inputResponses")) if stateless else None
        return cls(
            request,
            stateless=stateless,
            answers=answers if isinstance(answers, dict) else None,
            responses=responses if isinstance(responses, dict) else None,
            log_levels=log_levels,
            in_waiting_cell=in_waiting_cell,
            progress_after=progress_after,
            cancel=cancel,
        )

    # -- cancellation ---------------------------------------------------------------------------
    @property
    def cancelled(self) -> bool:
        """Whether this call was cancelled: stop soon (the next `Context` call raises `CallCancelled`)."""
        return self._cancel.is_set()

    def check_cancelled(self) -> None:
        """Raise `CallCancelled` if this call was cancelled (call it in a loop that uses no other method)."""
        if self._cancel.is_set():
            raise CallCancelled(t("context.cancelled"))

    def sleep(self, seconds: float) -> None:
        """Wait `seconds`, but raise `CallCancelled` as soon as the call is cancelled."""
        if self._cancel.wait(max(0.0, seconds)):
            raise CallCancelled(t("context.cancelled"))

    async def asleep(self, seconds: float) -> None:
        """`sleep` for ``async def`` tools (never blocks the loop)."""
        self.check_cancelled()
        deadline = self._loop.time() + max(0.0, seconds)
        while (left := deadline - self._loop.time()) > 0:
            await asyncio.sleep(min(left, 0.05))
            self.check_cancelled()

    def become_task(self, channel: TaskChannel) -> None:
        """The server made this call a task: progress and questions go through `channel` from now on."""
        self._task = channel

    # -- what the client can do ---------------------------------------------------------------
    @property
    def client_capabilities(self) -> dict[str, Any]:
        """The capabilities the client declared, as JSON (``{"elicitation": {...}, ...}``)."""
        capabilities = self._request.session.client_capabilities
        if capabilities is None:
            return {}
        dumped: dict[str, Any] = capabilities.model_dump(by_alias=True, mode="json", exclude_none=True)
        return dumped

    def supports(self, capability: Literal["elicitation", "sampling", "roots"]) -> bool:
        """Whether the client declared `capability`: ask only what it can answer."""
        return capability in self.client_capabilities

    @property
    def supports_apps(self) -> bool:
        """Whether the client shows MCP Apps views: it declared ``io.modelcontextprotocol/ui`` with
        ``text/html;profile=mcp-app`` among its ``mimeTypes`` (as the SDK's ``client_supports_apps``).

        A tool bound to a view (``@tool(app=...)``) returns meaningful text either way (SEP-2133);
        this lets its text say that a view shows more, only to a client that shows it. Hosts of
        either era may declare it (2025-11-25 ones in ``initialize``).
        """
        # Imported here: `_apps` builds on the resources, which (through results) import this module.
        from ._apps import EXTENSION as APPS_EXTENSION
        from ._apps import MIME_TYPE as APPS_MIME_TYPE

        extensions = self.client_capabilities.get("extensions")
        settings = extensions.get(APPS_EXTENSION) if isinstance(extensions, dict) else None
        mime_types = settings.get("mimeTypes") if isinstance(settings, dict) else None
        return isinstance(mime_types, list) and APPS_MIME_TYPE in mime_types

    # -- notifications ------------------------------------------------------------------------
    def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Tell the client how far the call is (sent only if the client asked for progress).

        Progress must grow with each notification: a value not above the last one sent for this call
        (the tool's own, or the server's while the call waited for a person) is sent just above it.
        """
        self.check_cancelled()
        if self._task is not None:  # a task's progress is its status: nothing to send, no loop to reach
            self._task.progress(progress, total, message)
            return
        self._block("progress", self.aprogress(progress, total, message))

    async def aprogress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        self.check_cancelled()
        if self._task is not None:
            self._task.progress(progress, total, message)
            return
        # Computed and recorded on the loop before the await: concurrent reports still grow.
        self._last_progress = value = next_progress(progress, self._last_progress)
        await self._request.session.report_progress(value, total, message)

    def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send a log message to the client (``notifications/message``), if it wants that level.

        Handshake era: levels below the session's ``logging/setLevel`` are dropped. 2026-07-28: sent
        only when the request opted in with ``_meta["io.modelcontextprotocol/logLevel"]`` (the SDK's
        client: ``Client(..., log_level="info")``); ``logging/setLevel`` is gone. MCP 2026-07-28
        deprecates logging (SEP-2577): for what a person operating the server reads, log to stderr
        (stdio) or trace with OpenTelemetry; for what the model should read, put it in the result.
        """
        self.check_cancelled()
        if self._task is not None:
            self._check_level(level)
            return  # a task has no request stream left to carry a log line (both eras)
        self._block("log", self.alog(level, data, logger))

    async def alog(self, level: str, data: Any, logger: str | None = None) -> None:
        self.check_cancelled()
        self._check_level(level)
        if self._task is not None or not self._wants(level):
            return
        import mcp_types as types

        notification = types.LoggingMessageNotification(
            params=types.LoggingMessageNotificationParams(level=level, data=data, logger=logger)  # type: ignore[arg-type]
        )
        await self._request.session.send_notification(
            notification, related_request_id=self._request.request_id
        )

    def _deprecated(self, feature: str, *, stacklevel: int) -> None:
        """Warn, once per process, that a 2026-07-28 request uses what that revision deprecates.

        `stacklevel` points at the tool's own line, so that IPython shows it for a notebook's tool.
        """
        if not self._stateless or feature in _WARNED:
            return
        _WARNED.add(feature)
        warnings.warn(t(f"context.deprecated.{feature}"), ProtocolDeprecationWarning, stacklevel=stacklevel)

    def _deprecated_in(self, requests: Mapping[str, Mapping[str, Any]], *, stacklevel: int) -> None:
        for request in requests.values():
            feature = {SAMPLE: "sampling", ROOTS: "roots"}.get(str(request.get("method")))
            if feature:
                self._deprecated(feature, stacklevel=stacklevel)

    @staticmethod
    def _check_level(level: str) -> None:
        if level not in LOG_LEVELS:
            raise ValueError(t("context.bad_level", level=level, levels=", ".join(LOG_LEVELS)))

    def _wants(self, level: str) -> bool:
        return level in self._log_levels

    # -- questions ----------------------------------------------------------------------------
    @staticmethod
    def elicitation(message: str, schema: Mapping[str, Any] | type) -> dict[str, Any]:
        """An ``elicitation/create`` request (form mode), for `ask`; `schema` is the form, as for `elicit`.

        With a class as the form, its answer in `ask`'s result carries the validated instance
        (`Elicitation.data`).
        """
        return elicitation_request(message, schema)

    @staticmethod
    def sampling(prompt: str, *, max_tokens: int = 200, system_prompt: str | None = None) -> dict[str, Any]:
        """A ``sampling/createMessage`` request (one user message), for `ask`."""
        params: dict[str, Any] = {
            "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
            "maxTokens": max_tokens,
        }
        if system_prompt is not None:
            params["systemPrompt"] = system_prompt
        return {"method": SAMPLE, "params": params}

    @staticmethod
    def roots() -> dict[str, Any]:
        """A ``roots/list`` request, for `ask`."""
        return {"method": ROOTS}

    @overload
    def elicit(self, message: str, schema: type[FormT], *, key: str | None = None) -> Elicitation[FormT]: ...

    @overload
    def elicit(
        self, message: str, schema: Mapping[str, Any], *, key: str | None = None
    ) -> Elicitation[Any]: ...

    def elicit(self, message: str, schema: Any, *, key: str | None = None) -> Elicitation[Any]:
        """Ask the person at the client to fill in a form; their `Elicitation` (accept/decline/cancel).

        Parameters
        ----------
        message:
            The question, as the person reads it.
        schema:
            The form. A mapping of field names to types (``{"people": int}``, every field required),
            a JSON Schema object, or a class, as in the official SDK: a pydantic model
            (``class Party(BaseModel): people: int = Field(description="How many")``), a dataclass
            or a TypedDict, whose fields with a default are optional. A form field is a string,
            number, integer or boolean, a choice of strings (``Literal``, an ``Enum`` of strings) or
            a list of such a choice: a class with another field (a nested model, a list of other
            values) is refused here with a `TypeError` naming the field.
        key:
            The question's key in a 2026-07-28 round (``elicit-1``, ``elicit-2``... by default).

        Returns
        -------
        Elicitation
            ``.action``, ``.accepted``, ``.get(field)``; with a class as the form, an accepted
            answer also carries ``.data``, the content validated into the class.

        Raises
        ------
        InvalidAnswerError
            The answer was accepted, but its content does not fit the class (what and why in the
            message, the answer as sent in ``.answer``). Uncaught, the call ends with an error result.
        """
        answer: Elicitation[Any] = self._block("elicit", self.aelicit(message, schema, key=key))
        return answer

    @overload
    async def aelicit(
        self, message: str, schema: type[FormT], *, key: str | None = None
    ) -> Elicitation[FormT]: ...

    @overload
    async def aelicit(
        self, message: str, schema: Mapping[str, Any], *, key: str | None = None
    ) -> Elicitation[Any]: ...

    async def aelicit(self, message: str, schema: Any, *, key: str | None = None) -> Elicitation[Any]:
        """`elicit` for ``async def`` tools (never blocks the loop)."""
        request = self.elicitation(message, schema)
        answer: Elicitation[Any] = (await self.aask({key or self._key(ELICIT): request})).popitem()[1]
        return answer

    def sample(
        self, prompt: str, *, max_tokens: int = 200, system_prompt: str | None = None, key: str | None = None
    ) -> str:
        """Ask the client's language model; the text of its reply.

        Deprecated by MCP 2026-07-28 (SEP-2577), still served in both eras: a 2026-07-28 request
        warns once (`ProtocolDeprecationWarning`). What replaces it: call a model provider's API
        from the tool yourself.
        """
        self._deprecated("sampling", stacklevel=3)
        text: str = self._block(
            "sample", self.asample(prompt, max_tokens=max_tokens, system_prompt=system_prompt, key=key)
        )
        return text

    async def asample(
        self, prompt: str, *, max_tokens: int = 200, system_prompt: str | None = None, key: str | None = None
    ) -> str:
        self._deprecated("sampling", stacklevel=3)
        request = self.sampling(prompt, max_tokens=max_tokens, system_prompt=system_prompt)
        text: str = (await self.aask({key or self._key(SAMPLE): request})).popitem()[1]
        return text

    def list_roots(self, *, key: str | None = None) -> list[dict[str, Any]]:
        """The client's roots (folders it lets servers see), as ``[{"uri": ..., "name": ...}]``.

        Deprecated by MCP 2026-07-28 (SEP-2577), still served in both eras: a 2026-07-28 request
        warns once (`ProtocolDeprecationWarning`). What replaces it: take the folder or file as a
        tool parameter or a resource URI, or from the server's own configuration.
        """
        self._deprecated("roots", stacklevel=3)
        roots: list[dict[str, Any]] = self._block("list_roots", self.alist_roots(key=key))
        return roots

    async def alist_roots(self, *, key: str | None = None) -> list[dict[str, Any]]:
        self._deprecated("roots", stacklevel=3)
        roots: list[dict[str, Any]] = (await self.aask({key or self._key(ROOTS): self.roots()})).popitem()[1]
        return roots

    def ask(self, requests: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        """Several questions at once (one round on 2026-07-28); answers by key.

        An elicitation answers an `Elicitation` (with its ``data`` when its form is a class), a
        sampling request the reply's text, a roots request the list of roots.
        """
        self._deprecated_in(requests, stacklevel=4)
        answers: dict[str, Any] = self._block("ask", self.aask(requests))
        return answers

    async def aask(self, requests: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        """`ask` for ``async def`` tools (never blocks the loop)."""
        self._deprecated_in(requests, stacklevel=4)
        answers = await self._asked(requests)
        # Validated once every answer is in, whichever way it came (pushed, polled or replayed).
        return {key: with_form_data(requests[key], answer) for key, answer in answers.items()}

    async def _asked(self, requests: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        self.check_cancelled()
        for key, request in requests.items():
            if not isinstance(request, Mapping) or request.get("method") not in CAPABILITY:
                raise TypeError(t("context.bad_request", key=key, what=request))
            self._require(request["method"])
        if self._task is not None:
            # Read at once, on the loop, where the server makes the call a task: a question asked
            # before that goes the request's own way, one asked after waits for the client's poll.
            raw = await self._task.ask(requests)
            self.check_cancelled()
            return {
                key: _unanswered_none(parse_answer(request["method"], raw.get(key)))
                for key, request in requests.items()
            }
        if self._stateless:
            return self._answered(requests)
        return {key: await self._push(request) for key, request in requests.items()}

    def _answered(self, requests: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        missing: dict[str, dict[str, Any]] = {}
        for key, request in requests.items():
            raw = self._responses[key] if key in self._responses else self._answers.get(key)
            value = parse_answer(request["method"], raw)
            if value is UNANSWERED:
                missing[key] = dict(request)
            else:
                found[key] = value
                self._answers[key] = raw  # carried to later rounds in the sealed state
        if missing:
            raise InputRequired(missing, dict(self._answers))
        return found

    async def _push(self, request: Mapping[str, Any]) -> Any:
        """Send one question to a 2025-11-25 client on the call's stream and return its answer.

        The server's subclass sends it (`mcp_notebook.server._contexts`): the core knows the shapes of
        questions and answers, not the SDK's session.
        """
        raise NotImplementedError

    def _require(self, method: str) -> None:
        capability = CAPABILITY[method]
        if not self.supports(capability):  # type: ignore[arg-type]
            raise ProtocolRefusal(
                -32021,
                t("context.missing_capability", capability=capability, method=method),
                {"requiredCapabilities": {capability: {}}},
            )

    def _key(self, method: str) -> str:
        # The n-th question of its kind in this run: the same on every re-run of the same tool.
        self._counts[method] = count = self._counts.get(method, 0) + 1
        return f"{KEY_PREFIX[method]}-{count}"

    # -- threads --------------------------------------------------------------------------------
    def _block(self, method: str, coroutine: Any) -> Any:
        """Run `coroutine` on the server loop and wait for it: from a tool's worker or kernel thread."""
        if threading.get_ident() == self._loop_thread:
            coroutine.close()
            raise RuntimeError(t("context.on_loop", method=method))
        if method not in ("progress", "log") and self._in_waiting_cell():
            # The kernel's thread runs this tool for a cell that waits in %mcp_call: the form that
            # asks the person could never be shown (the cell would have to end first).
            coroutine.close()
            raise RuntimeError(t("context.in_cell", method=method))
        self.check_cancelled()
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        self._pending.add(future)
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            self.check_cancelled()  # the call was cancelled while the tool waited: say so
            raise
        finally:
            self._pending.discard(future)

    def cancel(self) -> None:
        """Cancel the call (from any thread): `cancelled` turns true, waits for the client end."""
        self._cancel.set()
        for future in list(self._pending):
            future.cancel()

    def close(self) -> None:
        """The call is over (answered, timed out or abandoned): stop waiting for the client.

        A tool still running (abandoned after its timeout) sees `cancelled` from now on.
        """
        if self._owns_cancel:
            self._cancel.set()
        for future in list(self._pending):
            future.cancel()

    def __repr__(self) -> str:
        era = "stateless" if self._stateless else "handshake"
        return f"<Context {self.protocol_version} ({era}) client={self.client!r}>"


def _unanswered_none(value: Any) -> Any:
    return None if value is UNANSWERED else value


def context_parameter(fn: Any) -> str | None:
    """The name of `fn`'s parameter annotated `Context`, if it has one (the server fills it in)."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception:
        hints = getattr(fn, "__annotations__", {})
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return None
    for name in parameters:
        hint = hints.get(name)
        if hint is Context or hint == "Context" or (isinstance(hint, type) and issubclass(hint, Context)):
            return name
    return None
