"""A tool call run as a task, seen from the notebook: ``call(..., task=True)`` / ``%mcp_call --task``.

The call is sent over a connection that declares the 2026-07-28 tasks extension; a server that
makes it a task answers at once with its id, and a `TaskCall` follows it from a thread of its own
(``tasks/get`` at the interval the server suggests): ``.status``, ``.progress``, ``.result(timeout)``,
``await``, ``.cancel()``. Shown in a cell, it is a progress bar with a Cancel button (`core._ui`
kind ``"task_call"``). A call the server answered at once (quick, or a tool that never runs as a
task) is a `TaskCall` that has ended already.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Callable
from typing import Any

from ..core import _ui
from ..core._errors import ClientConnectionError, ProtocolError
from ..core._text import t
from ..runtime._loop import runtime
from ._results import CallResult
from ._target import Target

TERMINAL = ("completed", "failed", "cancelled")
INTERNAL_ERROR = -32603


def to_call_result(tool: str, raw: dict[str, Any], origin: Target | None = None) -> CallResult:
    return CallResult(
        tool=tool,
        content=raw.get("content", []),
        structured_content=raw.get("structuredContent"),
        is_error=bool(raw.get("isError")),
        raw=raw,
        origin=origin,
    )


class TaskCall:
    """A tool call that runs as a task in the server; the notebook follows it.

    Attributes
    ----------
    tool:
        The tool called.
    task_id:
        The server's id of the task (None when the server answered at once).
    status:
        ``working``, ``input_required``, ``completed``, ``failed`` or ``cancelled``, as last seen.
    message:
        The task's status message, as last seen (its progress, what it waits for, why it ended).
    progress:
        The last progress report ``(progress, total, message)``, or None.
    """

    def __init__(
        self,
        tool: str,
        send: Callable[[Callable[[Any], Any]], Any],
        task_id: str | None,
        origin: Target | None = None,
    ) -> None:
        self.tool = tool
        self.origin = origin  # where the result's links are read
        self.task_id = task_id
        self.status = "working"
        self.message: str | None = None
        self.progress: tuple[float, float | None, str | None] | None = None
        self._send = send  # runs ``await fn(client)`` on the task's connection, synchronously
        self._done: concurrent.futures.Future[CallResult] = concurrent.futures.Future()
        self._stop = threading.Event()
        self.listeners: list[Callable[[TaskCall], None]] = []  # told of every change (the view)

    # -- made by `call` -----------------------------------------------------------------------------------
    @classmethod
    def answered(cls, tool: str, result: CallResult) -> TaskCall:
        """A call the server answered at once: an ended task, with its result."""
        task = cls(tool, lambda _: None, None)
        task._end("completed", result)
        return task

    def follow(self, first_poll_ms: int | None) -> None:
        """Poll the task from a thread of its own until it ends."""
        threading.Thread(
            target=self._poll, args=(first_poll_ms,), name=f"task {self.tool}", daemon=True
        ).start()

    def _poll(self, interval_ms: int | None) -> None:
        from ._sdk_compat import get_task

        task_id = self.task_id
        assert task_id is not None
        failures = 0
        while not self._done.done():
            # The server's suggested interval, between a tenth of a second and five seconds.
            if self._stop.wait(min(max((interval_ms or 500) / 1000, 0.1), 5.0)):
                return
            try:
                task = self._send(lambda client: get_task(client.session, task_id))
            except (ProtocolError, ClientConnectionError) as exc:
                failures += 1
                if isinstance(exc, ProtocolError) or failures >= 3:
                    self._fail(exc)
                    return
                continue
            if not isinstance(task, dict) or "status" not in task:
                continue  # the wait was stopped for a person's question elsewhere: ask again
            failures = 0
            interval_ms = task.get("pollIntervalMs")
            self._seen(task)

    def _seen(self, task: dict[str, Any]) -> None:
        report = (task.get("_meta") or {}).get("io.github.mcp-notebook/progress")
        if isinstance(report, dict):
            self.progress = (report.get("progress") or 0, report.get("total"), report.get("message"))
        self.status, self.message = task["status"], task.get("statusMessage")
        if self.status == "completed":
            self._end(
                "completed", to_call_result(self.tool, task.get("result") or {"content": []}, self.origin)
            )
        elif self.status in TERMINAL:
            error = task.get("error") or {"code": INTERNAL_ERROR, "message": self.message or self.status}
            self._fail(ProtocolError(int(error.get("code", INTERNAL_ERROR)), str(error.get("message")), None))
        else:
            self._tell()

    def _end(self, status: str, result: CallResult) -> None:
        self.status = status
        if not self._done.done():
            self._done.set_result(result)
        self._tell()

    def _fail(self, error: BaseException) -> None:
        if self.status not in TERMINAL:
            self.status = "failed"
        if not self._done.done():
            self._done.set_exception(error)
        self._tell()

    def _tell(self) -> None:
        for listener in list(self.listeners):
            with contextlib.suppress(Exception):  # a display must never stop the polling
                listener(self)

    # -- what the notebook uses ---------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """Whether the task ended (completed, failed or cancelled)."""
        return self._done.done()

    def result(self, timeout: float | None = 60.0) -> CallResult:
        """The task's result (waits up to `timeout` seconds for it to end; None waits as long as it takes).

        Raises
        ------
        ProtocolError
            The task failed with a JSON-RPC error, or was cancelled.
        ClientConnectionError
            It did not end within `timeout` (it goes on running; ask again, or `cancel` it).
        """
        try:
            if threading.current_thread() is threading.main_thread():
                # A cell waiting here keeps running the server's run_in="kernel" calls: no deadlock.
                return runtime.kernel_pump.wait(self._done, timeout)  # type: ignore[no-any-return]
            return self._done.result(timeout)
        except (TimeoutError, concurrent.futures.TimeoutError):
            raise ClientConnectionError(t("task_call.timeout", tool=self.tool, seconds=timeout)) from None

    def __await__(self) -> Any:
        return asyncio.wrap_future(self._done).__await__()

    def cancel(self) -> None:
        """Ask the server to cancel the task; it reads ``cancelled`` at once, and its work stops."""
        from ._sdk_compat import cancel_task

        task_id = self.task_id
        if task_id is None or self.done:
            return
        self._send(lambda client: cancel_task(client.session, task_id))
        self.status = "cancelled"
        self._fail(ProtocolError(INTERNAL_ERROR, t("task_call.cancelled", tool=self.tool), None))
        self._stop.set()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        # Shown in a cell: a progress bar with a Cancel button, following the task.
        return _ui.make("task_call", self)._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        shown = f" {self.task_id[:8]}…" if self.task_id else ""
        return f"<task{shown} {self.tool}: {self.status}>"
