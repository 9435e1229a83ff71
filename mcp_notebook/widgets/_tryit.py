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


class _LeaveOut:
    """The choice of an optional enum that sends nothing (None may be one of the allowed values)."""

    def __repr__(self) -> str:
        return t("tryit.leave_out")


LEAVE_OUT = _LeaveOut()
# The label takes the room it needs (never cut to ipywidgets' 80 px), and the field the rest.
LABEL = {"description_width": "initial"}
WIDE = {"width": "auto", "max_width": "40em"}


def _label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def optional_branch(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The one branch of ``anyOf: [X, {"type": "null"}]`` (an ``X | None`` parameter), with the property's notes."""
    branches = schema.get("anyOf")
    if not isinstance(branches, list):
        return None
    rest = [branch for branch in branches if branch != {"type": "null"}]
    if len(rest) != 1 or len(rest) == len(branches) or not isinstance(rest[0], dict):
        return None
    notes = {key: schema[key] for key in ("description", "title", "default") if key in schema}
    return {**rest[0], **notes}


def field_for(name: str, schema: dict[str, Any], required: bool) -> widgets.Widget:
    """The input widget for one property of an input schema (``X | None`` as X, left out when empty)."""
    branch = optional_branch(schema)
    # Only where an empty field can say "leave it out" (a dropdown's first choice, an empty text):
    # a number box or a checkbox always holds a value, which would be sent instead of nothing.
    if branch is not None and not required and ("enum" in branch or branch.get("type") == "string"):
        schema = branch
    label = name if required else t("tryit.optional", name=name)
    tooltip = schema.get("description", "")
    kind = schema.get("type")
    default = schema.get("default")
    common: dict[str, Any] = {"description": label, "tooltip": tooltip, "style": LABEL}
    if "enum" in schema:
        options: list[tuple[str, Any]] = [(_label(value), value) for value in schema["enum"]]
        if not required:
            options.insert(0, (t("tryit.leave_out"), LEAVE_OUT))
        values = [value for _, value in options]
        return widgets.Dropdown(
            options=options,
            value=default if default in values else values[0],
            layout=widgets.Layout(**WIDE),
            **common,
        )
    if kind == "boolean":
        return widgets.Checkbox(value=bool(default), indent=False, **common)
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        value = default if default is not None else (low if low is not None else 0)
        if low is not None and high is not None:
            cls = widgets.BoundedIntText if kind == "integer" else widgets.BoundedFloatText
            return cls(value=value, min=low, max=high, layout=widgets.Layout(**WIDE), **common)
        cls = widgets.IntText if kind == "integer" else widgets.FloatText
        return cls(value=value, layout=widgets.Layout(**WIDE), **common)
    if kind == "string" and set(schema) <= {
        "type",
        "description",
        "title",
        "default",
        "maxLength",
        "minLength",
        "format",
    }:
        return widgets.Text(value=default or "", layout=widgets.Layout(**WIDE), **common)
    initial = json.dumps(default, ensure_ascii=False) if default is not None else ""
    return widgets.Textarea(value=initial, placeholder="JSON", layout=widgets.Layout(**WIDE), **common)


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
        self.add_class("mcp-form")

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
            if value is None or value is LEAVE_OUT or (value == "" and name not in required):
                continue
            arguments[name] = value
        if not problems:
            problems = argument_problems(compile_validator(self.entry.input_schema), arguments)
        return arguments, problems

    def submit(self) -> Any:
        """Check the form; if it is right, call the tool in the background (returns the future, or None)."""
        arguments, problems = self.arguments()
        self.problems.value = "".join(f"<div class='mcp-error'>{html.escape(p)}</div>" for p in problems)
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
