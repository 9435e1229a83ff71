"""One tool's entry: a Python callable checked, described and made ready to call.

`make_entry` turns a function and the ``@tool`` options (`ToolOptions`, which checks them) into a
`ToolEntry`. The entry carries what `tools/list` shows (`to_wire`) and
builds its argument validator and converter once, on first use. Kept apart from the `Catalogue`
that holds entries: this part is about one tool, the catalogue about the set and its changes.

Pure: no IPython, no threads, no widgets, no `mcp` import.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import marshal
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ._apps import Visibility, ui_meta
from ._arguments import argument_converter, compile_validator
from ._context import context_parameter
from ._errors import ToolDefinitionError
from ._icons import Icons
from ._idempotency import KEY_PARAMETER, idempotency_key_schema
from ._options import build
from ._schema import FunctionSchema, function_schema
from ._tasks import TaskSupport
from ._text import t
from ._tool_options import RunIn, ToolOptions, check_tool_name

__all__ = [
    "RunIn",
    "ToolEntry",
    "check_tool_name",
    "make_entry",
]  # RunIn and check_tool_name: from _tool_options

# The options an entry keeps as they were given; the others become its schemas, description and annotations.
_CARRIED = (
    "title",
    "icons",
    "run_in",
    "approval",
    "expose",
    "idempotency_key",
    "rate_limit",
    "timeout",
    "task",
    "app",
    "visibility",
)
_ANNOTATION_KEYS = {
    "read_only": "readOnlyHint",
    "destructive": "destructiveHint",
    "idempotent": "idempotentHint",
    "open_world": "openWorldHint",
}


@dataclass(frozen=True, eq=False)
class ToolEntry:
    """One tool: the function, its schemas and what the server advertises about it."""

    name: str
    fn: Callable[..., Any]
    description: str | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    wraps_output: bool
    title: str | None = None
    icons: Icons = ()
    annotations: dict[str, bool] = field(default_factory=dict)
    run_in: RunIn | None = None
    approval: Literal["always", "never"] | None = None
    expose: bool = True
    idempotency_key: bool = False
    rate_limit: tuple[int, float] | None = None
    timeout: float | None = None
    task: TaskSupport = "never"
    app: str | None = None
    visibility: tuple[Visibility, ...] | None = None

    @property
    def takes_key(self) -> bool:
        """Whether the function itself declares ``idempotency_key`` (else the server strips it)."""
        return KEY_PARAMETER in inspect.signature(self.fn).parameters

    @functools.cached_property
    def context(self) -> str | None:
        """The function's parameter annotated `Context`, which the server fills in (not an argument)."""
        return context_parameter(self.fn)

    @property
    def read_only(self) -> bool:
        return self.annotations.get("readOnlyHint") is True

    @functools.cached_property
    def validator(self) -> Any:
        """The compiled input-schema validator (built on first call, then kept)."""
        return compile_validator(self.input_schema)

    @functools.cached_property
    def convert(self) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
        """JSON arguments → the keyword arguments the function's type hints ask for."""
        return argument_converter(self.fn)

    @functools.cached_property
    def fingerprint(self) -> str:
        """A digest of what a person approves when they "always allow" this tool.

        What clients are shown (name, title, description, schemas, annotations), the settings that
        decide how it runs (approval, exposure, where it runs, limits) and its code. Re-running a
        cell unchanged keeps it; any change, such as the same tool now marked destructive, makes
        another one, and the person is asked again.
        """
        settings = [self.to_wire(), self.approval, self.expose, self.run_in, self.rate_limit, self.timeout]
        shown = json.dumps(settings, sort_keys=True, default=repr).encode()
        return hashlib.sha256(shown + b"\0" + _code_identity(self.fn)).hexdigest()

    def to_wire(self) -> dict[str, Any]:
        """The tool as `tools/list` shows it (JSON, camelCase keys)."""
        wire: dict[str, Any] = {"name": self.name}
        if self.title:
            wire["title"] = self.title
        if self.description:
            wire["description"] = self.description
        wire["inputSchema"] = self.input_schema
        if self.output_schema is not None:
            wire["outputSchema"] = self.output_schema
        if self.annotations or self.title:
            notes: dict[str, Any] = dict(self.annotations)
            if self.title:
                notes["title"] = self.title
            wire["annotations"] = notes
        if self.icons:
            wire["icons"] = [dict(icon) for icon in self.icons]
        if self.task != "never":
            # 2025-11-25 tasks: absent means "forbidden". The 2026-07-28 Tool has no such field (the
            # server decides per call), and the SDK drops it from that era's tools/list.
            wire["execution"] = {"taskSupport": self.task}
        if (ui := ui_meta(self.app, self.visibility)) is not None:
            wire["_meta"] = {"ui": ui}  # MCP Apps (ext-apps 2026-01-26, "Resource Discovery")
        return wire


def make_entry(fn: Callable[..., Any], **options: Any) -> ToolEntry:
    """Build a `ToolEntry` from a function and the decorator's options (`ToolOptions`)."""
    if not callable(fn):
        raise ToolDefinitionError(t("tool.not_callable", what=type(fn).__name__))
    if options.get("name") is None:
        options = {**options, "name": getattr(fn, "__name__", "")}
    chosen: ToolOptions = build(ToolOptions, options, "@tool", ToolDefinitionError)
    tool_name = str(chosen.name)
    schema: FunctionSchema = function_schema(fn)
    # An input_schema given overrides the signature's: the function's own parameters still apply
    # (conversion, defaults); the schema is what the model is shown and what arguments are
    # validated against (e.g. 2020-12 keywords no Python signature can say: if/then/else, $defs
    # with $ref, allOf).
    given = chosen.input_schema
    input_schema = dict(given) if given is not None else schema.input_schema
    if chosen.idempotency_key and KEY_PARAMETER not in input_schema.get("properties", {}):
        # The model must send a key: it is what makes a retried call safe to repeat.
        input_schema = dict(input_schema)
        input_schema["properties"] = {
            **input_schema.get("properties", {}),
            KEY_PARAMETER: idempotency_key_schema(),
        }
        input_schema["required"] = [*input_schema.get("required", []), KEY_PARAMETER]
    flags = {key: getattr(chosen, key) for key in _ANNOTATION_KEYS}
    annotations = {_ANNOTATION_KEYS[k]: v for k, v in flags.items() if v is not None}
    if chosen.read_only and chosen.destructive is None:
        # A read-only tool cannot destroy anything; say so rather than leave the spec default (true).
        annotations["destructiveHint"] = False
    out: dict[str, Any] | None
    wraps = schema.wraps_output
    if chosen.output_schema is False:
        out, wraps = None, False
    elif chosen.output_schema is not None:
        out, wraps = dict(chosen.output_schema), False
    else:
        out = schema.output_schema
    return ToolEntry(
        name=tool_name,
        fn=fn,
        description=chosen.description if chosen.description is not None else schema.description,
        input_schema=input_schema,
        output_schema=out,
        wraps_output=wraps,
        annotations=annotations,
        **{option: getattr(chosen, option) for option in _CARRIED},
    )


def _code_identity(fn: Callable[..., Any]) -> bytes:
    """The bytes of `fn`'s code (constants and nested functions included); else of its object's identity."""
    target = inspect.unwrap(fn)
    code = getattr(target, "__code__", None)
    if code is None:  # a callable object: the code of its class's __call__
        code = getattr(inspect.getattr_static(type(target), "__call__", None), "__code__", None)
    if code is not None:
        try:
            return marshal.dumps(code)
        except ValueError:  # pragma: no cover - compiled code holds only marshallable constants
            pass
    # No code to compare (a builtin, a functools.partial): this very object, so a new one asks again.
    return f"{type(target).__module__}.{type(target).__qualname__}@{id(target)}".encode()
