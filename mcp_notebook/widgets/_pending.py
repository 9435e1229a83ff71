"""A call that waits for the person at the notebook: ``%mcp_call --confirm`` / ``call(..., confirm=True)``.

A cell that blocks waiting for a button click never receives the click (ipykernel), so a pending
call returns at once, shows Approve / Deny in its own output, and runs only when approved. The
result is collected later: ``pending.result(timeout)`` in a later cell, ``await pending``, or by
clicking; ``.approve()`` and ``.deny()`` decide from code.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import html
import json
import threading
from collections.abc import Callable
from typing import Any

import anyio.to_thread
import ipywidgets as widgets

from ..client._calls import call
from ..core._errors import MCPNotebookError
from ..core._text import t
from ..core._visible import visible_html
from ..runtime._loop import runtime


class CallDenied(MCPNotebookError):
    """The person denied a pending call; it never ran."""


class PendingCall(widgets.VBox):
    """A tool call shown with Approve / Deny; it runs only once approved.

    `from_app`: the ``ui://`` app that asks for the call (said in the question, and kept on the
    result as its `from_app`). `on_done(decision, result, error)` is called once the call is denied
    or has ended (on the thread that ran it).
    """

    def __init__(
        self,
        name: str,
        arguments: dict[str, Any],
        options: dict[str, Any],
        *,
        from_app: str | None = None,
        on_done: Callable[[str, Any, BaseException | None], None] | None = None,
    ) -> None:
        self.tool = name
        self.arguments = arguments
        self._options = options
        self.from_app = from_app
        self._on_done = on_done
        self._future: concurrent.futures.Future[Any] | None = None
        self._decided = threading.Event()
        self._lock = threading.Lock()
        self.decision: str | None = None
        shown = json.dumps(arguments, ensure_ascii=False, indent=2)
        # Arguments may come from kernel variables ($name): hidden characters are shown, not hidden.
        asks = t("app.asks", uri=from_app, tool=name) if from_app else t("pending.asks", tool=name)
        question = widgets.HTML(f"<b>{visible_html(asks)}</b><pre>{visible_html(shown)}</pre>")
        self.approve_button = widgets.Button(description=t("pending.approve"), button_style="success")
        self.deny_button = widgets.Button(description=t("pending.deny"), button_style="danger")
        self.status = widgets.HTML(
            f"<span style='color:var(--jp-ui-font-color2)'>{html.escape(t('pending.waiting'))}</span>"
        )
        self.output = widgets.Output()
        self.approve_button.on_click(lambda _: self.approve())
        self.deny_button.on_click(lambda _: self.deny())
        buttons = widgets.HBox([self.approve_button, self.deny_button, self.status])
        super().__init__([question, buttons, self.output])

    def approve(self) -> None:
        """Run the call now (in the background: this returns at once)."""
        if not self._decide("approved"):
            return
        self.status.value = (
            f"<span style='color:var(--jp-ui-font-color2)'>{html.escape(t('pending.running'))}</span>"
        )
        # A worker thread of the runtime's loop makes the (blocking) client call, so neither the
        # click handler nor the kernel waits; the in-kernel server answers from its own thread.
        self._future = runtime.portal().start_task_soon(anyio.to_thread.run_sync, self._run)

    def deny(self) -> None:
        """Do not run the call."""
        if self._decide("denied"):
            self.status.value = (
                f"<span style='color:var(--jp-ui-font-color2)'>{html.escape(t('pending.denied'))}</span>"
            )
            if self._on_done is not None:
                self._on_done("denied", None, None)

    def _decide(self, decision: str) -> bool:
        with self._lock:
            if self.decision is not None:
                return False  # the first decision counts
            self.decision = decision
        for button in (self.approve_button, self.deny_button):
            button.disabled = True
        self._decided.set()
        return True

    def _run(self) -> Any:
        try:
            result = call(self.tool, self.arguments, from_app=self.from_app, **self._options)
        except BaseException as exc:
            if self._on_done is not None:
                self._on_done("approved", None, exc)
            raise
        finally:
            self.status.value = (
                f"<span style='color:var(--jp-ui-font-color2)'>{html.escape(t('pending.done'))}</span>"
            )
        # Output.append_display_data is the thread-safe way to show something in this widget.
        self.output.append_display_data(result)
        if self._on_done is not None:
            self._on_done("approved", result, None)
        return result

    def result(self, timeout: float | None = 60.0) -> Any:
        """The call's result once approved (waits up to `timeout` seconds for it to finish).

        Raises
        ------
        CallDenied
            The call was denied.
        MCPNotebookError
            No decision yet: blocking here would never let a click through, so it says so at once.
        """
        if self.decision == "denied":
            raise CallDenied(t("pending.was_denied", tool=self.tool))
        if self._future is None:
            raise MCPNotebookError(t("pending.undecided", tool=self.tool))
        if threading.current_thread() is threading.main_thread():
            return runtime.kernel_pump.wait(self._future, timeout)
        return self._future.result(timeout)

    def __await__(self) -> Any:
        return self._wait_async().__await__()

    async def _wait_async(self) -> Any:
        # An awaiting cell lets clicks through (ipykernel 7.4): wait for the decision, then the result.
        await asyncio.get_running_loop().run_in_executor(None, self._decided.wait)
        if self.decision == "denied" or self._future is None:
            raise CallDenied(t("pending.was_denied", tool=self.tool))
        return await asyncio.wrap_future(self._future)

    def __repr__(self) -> str:
        state = self.decision or "pending"
        by = f" from {self.from_app}" if self.from_app else ""
        return f"<pending call {self.tool} {json.dumps(self.arguments, ensure_ascii=False)}{by}: {state}>"
