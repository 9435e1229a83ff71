"""Forms for a person to answer what a server the notebook calls asks (elicitation, sampling).

The client (`mcp_notebook.client._questions`) gets the request and asks for a form here through the
display registry; a cell cannot wait for a click, so a call that needs input stops waiting and
shows a `CallInProgress`: the form(s) now, the result below once answered.
"""

from __future__ import annotations

import asyncio
import html
import json
import threading
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from ..core._text import t
from ..core._visible import visible_html
from ._badge import WAITING_CLASS, waiting_badge
from ._tryit import field_for


def _bounded() -> Any:
    """The layout of a server's words above a form: a long text scrolls in its box, the buttons stay in sight."""
    return widgets.Layout(max_height="24em", overflow="auto")


class _Question(widgets.VBox):
    """A request for input, answered by a person; the answer resolves a future on the client's loop."""

    def _setup(self, children: list[Any], asks: str) -> None:
        self._loop = asyncio.get_running_loop()
        self.answer: asyncio.Future[Any] = self._loop.create_future()
        self.status = widgets.HTML("")
        super().__init__([*children, self.status], layout=widgets.Layout(border="1px solid #0b6bcb"))
        # Counted on the page's badge, which leads here, until answered.
        self.add_class(WAITING_CLASS)
        self._waiting = waiting_badge().add_question(asks)
        # A call given up on cancels the future it awaits: it no longer waits for anyone.
        self.answer.add_done_callback(lambda _: self._settled())

    def _reply(self, value: Any, action: str) -> None:
        for child in self.buttons.children:
            child.disabled = True
        self._settled()
        self.status.value = f"<span style='color:var(--jp-ui-font-color2)'>{html.escape(t('ask.answered', action=action))}</span>"

        # A click runs on the kernel's thread: hand the answer to the client's loop safely.
        def settle() -> None:
            if not self.answer.done():  # the first answer counts
                self.answer.set_result(value)

        self._loop.call_soon_threadsafe(settle)

    def _settled(self) -> None:
        self.remove_class(WAITING_CLASS)
        waiting_badge().remove(self._waiting)


class ElicitationForm(_Question):
    """A form generated from the requested schema, with Send / Decline / Cancel."""

    def __init__(self, params: Any) -> None:
        schema = getattr(params, "requested_schema", None) or {"type": "object", "properties": {}}
        required = set(schema.get("required", []))
        self.fields = {
            name: _input_for(name, prop, name in required)
            for name, prop in schema.get("properties", {}).items()
        }
        question = widgets.HTML(
            f"<b>{visible_html(t('ask.elicit', message=params.message))}</b>", layout=_bounded()
        )
        send, decline, cancel = (
            widgets.Button(description=t(key)) for key in ("ask.accept", "ask.decline", "ask.cancel")
        )
        send.button_style = "primary"
        send.on_click(lambda _: self.send())
        decline.on_click(lambda _: self._answer("decline"))
        cancel.on_click(lambda _: self._answer("cancel"))
        self.buttons = widgets.HBox([send, decline, cancel])
        self._setup([question, *self.fields.values(), self.buttons], str(params.message))

    def send(self) -> None:
        content = {
            name: list(field.value) if isinstance(field.value, tuple) else field.value
            for name, field in self.fields.items()
            if field.value not in (None, "")
        }
        self._answer("accept", content)

    def _answer(self, action: Any, content: dict[str, Any] | None = None) -> None:
        import mcp_types as types

        self._reply(
            types.ElicitResult(action=action, content=content if action == "accept" else None), action
        )

    def __repr__(self) -> str:
        return "<elicitation form>"


def _input_for(name: str, schema: dict[str, Any], required: bool) -> Any:
    """The input for one field of a form: a multi-select for a list of choices, else as a tool's argument."""
    items = schema.get("items")
    if schema.get("type") == "array" and isinstance(items, dict) and "enum" in items:
        # A list of choices (spec: the multi-select enum schemas) is picked, never typed as JSON.
        default = schema.get("default")
        return widgets.SelectMultiple(
            options=list(items["enum"]),
            value=[value for value in default if value in items["enum"]] if isinstance(default, list) else [],
            description=name + ("" if required else " (optional)"),
            tooltip=schema.get("description", ""),
        )
    return field_for(name, schema, required)


class SamplingForm(_Question):
    """The model-to-be's view: the messages the server sent, and a reply the person writes (or a rejection)."""

    def __init__(self, params: Any) -> None:
        shown = [
            f"<div><b>{visible_html(m.role)}</b>: "
            f"{visible_html(getattr(m.content, 'text', json.dumps(m.content.model_dump(mode='json'))))}</div>"
            for m in params.messages
        ]
        if getattr(params, "system_prompt", None):
            shown.insert(
                0,
                f"<div><span style='color:var(--jp-ui-font-color2)'>{visible_html(params.system_prompt)}</span></div>",
            )
        intro = widgets.HTML(f"<b>{html.escape(t('ask.sampling'))}</b>" + "".join(shown), layout=_bounded())
        self.reply = widgets.Textarea(layout=widgets.Layout(width="100%"))
        send, reject = (
            widgets.Button(description=t("ask.accept"), button_style="primary"),
            widgets.Button(description=t("ask.reject")),
        )
        send.on_click(lambda _: self.send())
        reject.on_click(lambda _: self.reject())
        self.buttons = widgets.HBox([send, reject])
        self._setup([intro, self.reply, self.buttons], t("ask.sampling"))

    def send(self) -> None:
        import mcp_types as types

        text = types.TextContent(type="text", text=self.reply.value)
        self._reply(
            types.CreateMessageResult(role="assistant", content=text, model="person-at-the-notebook"), "send"
        )

    def reject(self) -> None:
        import mcp_types as types

        self._reply(
            types.ErrorData(code=-1, message="The person at the notebook rejected the request."), "reject"
        )

    def __repr__(self) -> str:
        return "<sampling request>"


class CallInProgress(widgets.VBox):
    """A call that needs a person's input: the question(s) now, the result below when it comes."""

    def __init__(
        self, tool: str, questions: list[widgets.Widget], future: Any, finish: Callable[[Any], Any]
    ) -> None:
        self.tool = tool
        self._future = future
        self._finish = finish
        self.output = widgets.Output()
        self.output.append_stdout(t("ask.waiting", tool=tool) + "\n")
        self._done = threading.Event()
        self._result: Any = None
        super().__init__([*questions, self.output])
        future.add_done_callback(self._show)

    def _show(self, future: Any) -> None:
        try:
            self._result = self._finish(future)
            self.output.clear_output()
            self.output.append_display_data(self._result)
        except BaseException as exc:
            self._result = exc
            self.output.append_stderr(f"{type(exc).__name__}: {exc}\n")
        self._done.set()

    def result(self, timeout: float | None = 60.0) -> Any:
        """The call's result once the questions are answered (raises what the call raised)."""
        if not self._done.wait(timeout):
            raise TimeoutError(t("ask.waiting", tool=self.tool))
        if isinstance(self._result, BaseException):
            raise self._result
        return self._result

    def __repr__(self) -> str:
        return f"<call to {self.tool} waiting for input>"
