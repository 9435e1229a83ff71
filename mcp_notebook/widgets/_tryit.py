"""A "try it" form generated from a tool's input schema, calling the tool through the real server.

enum → dropdown, bounded number → bounded input, bool → checkbox, string → text, anything nested
(objects, arrays, unions) → a JSON editor checked before sending. The call goes to the in-kernel
server on a runtime thread, so a click never waits on the kernel, and the result shows below.
"""

from __future__ import annotations

import html
import json
from typing import Any

import anyio.to_thread
import ipywidgets as widgets

from ..client._calls import call
from ..core._arguments import argument_problems, compile_validator
from ..core._text import t
from ..runtime._loop import runtime


def field_for(name: str, schema: dict[str, Any], required: bool) -> widgets.Widget:
    """The input widget for one property of an input schema."""
    label = name + ("" if required else " (optional)")
    tooltip = schema.get("description", "")
    kind = schema.get("type")
    default = schema.get("default")
    if "enum" in schema:
        options = list(schema["enum"]) if required else [None, *schema["enum"]]
        return widgets.Dropdown(
            options=options,
            value=default if default in options else options[0],
            description=label,
            tooltip=tooltip,
        )
    if kind == "boolean":
        return widgets.Checkbox(value=bool(default), description=label, tooltip=tooltip)
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        value = default if default is not None else (low if low is not None else 0)
        if low is not None and high is not None:
            cls = widgets.BoundedIntText if kind == "integer" else widgets.BoundedFloatText
            return cls(value=value, min=low, max=high, description=label, tooltip=tooltip)
        cls = widgets.IntText if kind == "integer" else widgets.FloatText
        return cls(value=value, description=label, tooltip=tooltip)
    if kind == "string" and set(schema) <= {
        "type",
        "description",
        "title",
        "default",
        "maxLength",
        "minLength",
        "format",
    }:
        return widgets.Text(value=default or "", description=label, tooltip=tooltip)
    initial = json.dumps(default, ensure_ascii=False) if default is not None else ""
    return widgets.Textarea(value=initial, description=label, placeholder="JSON", tooltip=tooltip)


class TryIt(widgets.VBox):
    """Fill in the arguments, press Call, see the result."""

    def __init__(self, entry: Any) -> None:
        self.entry = entry
        schema = entry.input_schema
        required = set(schema.get("required", []))
        self.fields = {
            name: field_for(name, prop, name in required)
            for name, prop in schema.get("properties", {}).items()
        }
        self.call_button = widgets.Button(description=t("tryit.call"), button_style="primary")
        self.problems = widgets.HTML("")
        self.output = widgets.Output()
        self.call_button.on_click(lambda _: self.submit())
        super().__init__([*self.fields.values(), self.call_button, self.problems, self.output])

    def arguments(self) -> tuple[dict[str, Any], list[str]]:
        """The arguments as the form holds them, and what is wrong with them (checked before sending)."""
        arguments: dict[str, Any] = {}
        problems: list[str] = []
        required = set(self.entry.input_schema.get("required", []))
        for name, field in self.fields.items():
            value = field.value
            if isinstance(field, widgets.Textarea):
                if not value.strip():
                    continue
                try:
                    value = json.loads(value)
                except json.JSONDecodeError as exc:
                    problems.append(t("tryit.bad_json", field=name, error=exc.msg))
                    continue
            if value is None or (value == "" and name not in required):
                continue
            arguments[name] = value
        if not problems:
            problems = argument_problems(compile_validator(self.entry.input_schema), arguments)
        return arguments, problems

    def submit(self) -> Any:
        """Check the form; if it is right, call the tool in the background (returns the future, or None)."""
        arguments, problems = self.arguments()
        self.problems.value = "".join(f"<div style='color:#b3261e'>{html.escape(p)}</div>" for p in problems)
        if problems:
            return None
        return runtime.portal().start_task_soon(anyio.to_thread.run_sync, self._call, arguments)

    def _call(self, arguments: dict[str, Any]) -> Any:
        result = call(self.entry.name, arguments)
        self.output.clear_output()
        self.output.append_display_data(result)  # thread-safe, unlike `with output:`
        return result

    def __repr__(self) -> str:
        return f"<try {self.entry.name}>"
