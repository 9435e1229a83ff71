"""The catalogue: Python callables turned into MCP tool entries.

Pure: no IPython, no threads, no widgets, no `mcp` import. Re-running a notebook cell that
redefines a tool replaces the entry in place (its position in `tools/list` stays stable) and
emits a change event; listeners (the server, widgets) decide what to do with it.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, overload

from ._arguments import argument_converter, compile_validator
from ._context import context_parameter
from ._errors import ToolDefinitionError
from ._idempotency import KEY_PARAMETER, idempotency_key_schema
from ._prompts import PromptEntry
from ._resources import ResourceEntry, TemplateEntry
from ._schema import FunctionSchema, function_schema
from ._text import t

F = TypeVar("F", bound=Callable[..., Any])
RunIn = Literal["thread", "kernel"]
ChangeListener = Callable[[str], None]

# Spec 2025-11-25, server/tools "Tool names": 1-128 characters, case-sensitive, [A-Za-z0-9_.-].
_NAME_RE = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
_BAD_CHAR_RE = re.compile(r"[^A-Za-z0-9_.\-]")

_ANNOTATION_KEYS = {
    "read_only": "readOnlyHint",
    "destructive": "destructiveHint",
    "idempotent": "idempotentHint",
    "open_world": "openWorldHint",
}


def check_tool_name(name: str) -> None:
    """Raise `ToolDefinitionError` unless `name` follows the spec's tool-name rules."""
    if _NAME_RE.fullmatch(name):
        return
    if not name:
        why = t("name.empty")
    elif len(name) > 128:
        why = t("name.too_long", n=len(name))
    else:
        bad = sorted(set(_BAD_CHAR_RE.findall(name)))
        why = t("name.bad_chars", chars=", ".join(repr(c) for c in bad))
    suggestion = _BAD_CHAR_RE.sub("_", name).strip("_")[:128] or "my_tool"
    raise ToolDefinitionError(t("name.invalid", name=name, why=why, suggestion=suggestion))


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
    annotations: dict[str, bool] = field(default_factory=dict)
    run_in: RunIn | None = None
    approval: Literal["always", "never"] | None = None
    expose: bool = True
    idempotency_key: bool = False
    rate_limit: tuple[int, float] | None = None
    timeout: float | None = None

    @property
    def takes_key(self) -> bool:
        """Whether the function itself declares ``idempotency_key`` (else the server strips it)."""
        return KEY_PARAMETER in inspect.signature(self.fn).parameters

    @functools.cached_property
    def context(self) -> str | None:
        """The function's parameter annotated `Context`, which the server fills in (not an argument)."""
        return context_parameter(self.fn)

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.fn)

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
        return wire


def make_entry(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    read_only: bool | None = None,
    destructive: bool | None = None,
    idempotent: bool | None = None,
    open_world: bool | None = None,
    output_schema: Mapping[str, Any] | Literal[False] | None = None,
    input_schema: Mapping[str, Any] | None = None,
    run_in: RunIn | None = None,
    approval: Literal["always", "never"] | None = None,
    expose: bool = True,
    idempotency_key: bool = False,
    rate_limit: tuple[int, float] | None = None,
    timeout: float | None = None,
) -> ToolEntry:
    """Build a `ToolEntry` from a function and the decorator's options."""
    if not callable(fn):
        raise ToolDefinitionError(t("tool.not_callable", what=type(fn).__name__))
    tool_name = name if name is not None else getattr(fn, "__name__", "")
    check_tool_name(tool_name)
    if read_only and destructive:
        raise ToolDefinitionError(t("tool.annotations_conflict", name=tool_name))
    if run_in not in (None, "thread", "kernel"):
        raise ToolDefinitionError(t("serve.bad_run_in", value=run_in))
    if approval not in (None, "always", "never"):
        raise ToolDefinitionError(t("tool.bad_approval", value=approval))
    if rate_limit is not None and not (
        isinstance(rate_limit, tuple) and len(rate_limit) == 2 and rate_limit[0] >= 1 and rate_limit[1] > 0
    ):
        raise ToolDefinitionError(t("tool.bad_rate_limit", value=rate_limit))
    if timeout is not None and not timeout > 0:
        raise ToolDefinitionError(t("tool.bad_timeout", value=timeout))
    schema: FunctionSchema = function_schema(fn)
    if input_schema is not None:
        # The function's own parameters still apply (conversion, defaults); the schema is what the
        # model is shown and what arguments are validated against (e.g. 2020-12 keywords no Python
        # signature can say: if/then/else, $defs with $ref, allOf).
        input_schema = dict(input_schema)
        _check_schema(tool_name, input_schema, "tool.bad_input_schema")
    else:
        input_schema = schema.input_schema
    if idempotency_key and KEY_PARAMETER not in input_schema.get("properties", {}):
        # The model must send a key: it is what makes a retried call safe to repeat.
        input_schema = dict(input_schema)
        input_schema["properties"] = {
            **input_schema.get("properties", {}),
            KEY_PARAMETER: idempotency_key_schema(),
        }
        input_schema["required"] = [*input_schema.get("required", []), KEY_PARAMETER]
    flags = {
        "read_only": read_only,
        "destructive": destructive,
        "idempotent": idempotent,
        "open_world": open_world,
    }
    annotations = {_ANNOTATION_KEYS[k]: v for k, v in flags.items() if v is not None}
    if read_only and destructive is None:
        # A read-only tool cannot destroy anything; say so rather than leave the spec default (true).
        annotations["destructiveHint"] = False
    out: dict[str, Any] | None
    wraps = schema.wraps_output
    if output_schema is False:
        out, wraps = None, False
    elif output_schema is not None:
        out, wraps = dict(output_schema), False
        _check_schema(tool_name, out, "tool.bad_output_schema")  # fail at definition, not on the first call
    else:
        out = schema.output_schema
    return ToolEntry(
        name=tool_name,
        fn=fn,
        description=description if description is not None else schema.description,
        input_schema=input_schema,
        output_schema=out,
        wraps_output=wraps,
        title=title,
        annotations=annotations,
        run_in=run_in,
        approval=approval,
        expose=expose,
        idempotency_key=idempotency_key,
        rate_limit=rate_limit,
        timeout=timeout,
    )


def _check_schema(name: str, schema: dict[str, Any], message: str) -> None:
    # Spec 2025-11-25 server/tools: inputSchema and outputSchema are JSON Schema objects whose root is
    # an object (arguments and structuredContent are JSON objects).
    import jsonschema  # only for an explicit override: defining a tool stays cheap

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ToolDefinitionError(t(message, name=name, why=exc.message)) from None
    if schema.get("type") != "object":
        why = f"its root type is {schema.get('type')!r}, not 'object'"
        raise ToolDefinitionError(t(message, name=name, why=why))


class Catalogue:
    """An ordered, thread-safe set of tools, resources and prompts, with change events.

    Order is definition order; redefining an entry keeps its place, so list pages stay stable
    while a notebook is being edited. Events are the strings ``"tools"``, ``"resources"``,
    ``"prompts"`` (a list changed) and ``"resource:<uri>"`` (that resource's content changed).
    """

    def __init__(self) -> None:
        self._tools: dict[str, ToolEntry] = {}
        self._resources: dict[str, ResourceEntry] = {}
        self._templates: dict[str, TemplateEntry] = {}
        self._prompts: dict[str, PromptEntry] = {}
        self._lock = threading.RLock()
        self._listeners: dict[object, ChangeListener] = {}

    # -- resources and prompts -----------------------------------------------------------------
    def add_resource(self, entry: ResourceEntry | TemplateEntry) -> ResourceEntry | TemplateEntry:
        """Add or replace a resource (or template); tell listeners the list and its content changed."""
        if isinstance(entry, TemplateEntry):
            with self._lock:
                self._templates[entry.uri_template] = entry
            self._emit("resources")
            return entry
        with self._lock:
            before = self._resources.get(entry.uri)
            self._resources[entry.uri] = entry
        if before is None or before.to_wire() != entry.to_wire():
            self._emit("resources")
        if before is not None:
            self._emit(f"resource:{entry.uri}")
        return entry

    def remove_resource(self, uri: str) -> None:
        """Remove the resource or template at `uri` (KeyError if there is none)."""
        with self._lock:
            if self._resources.pop(uri, None) is None and self._templates.pop(uri, None) is None:
                raise KeyError(f"No resource or template {uri!r}. Known: {', '.join(self.uris()) or '-'}")
        self._emit("resources")

    def resources(self) -> list[ResourceEntry]:
        with self._lock:
            return list(self._resources.values())

    def templates(self) -> list[TemplateEntry]:
        with self._lock:
            return list(self._templates.values())

    def uris(self) -> list[str]:
        with self._lock:
            return [*self._resources, *self._templates]

    def find_resource(self, uri: str) -> tuple[ResourceEntry | TemplateEntry, dict[str, str]] | None:
        """The entry that serves `uri` and the template variables it binds, or None."""
        with self._lock:
            static = self._resources.get(uri)
            if static is not None:
                return static, {}
            for template in self._templates.values():
                variables = template.match(uri)
                if variables is not None:
                    return template, variables
        return None

    def add_prompt(self, entry: PromptEntry) -> PromptEntry:
        with self._lock:
            self._prompts[entry.name] = entry
        self._emit("prompts")
        return entry

    def remove_prompt(self, name: str) -> None:
        with self._lock:
            if self._prompts.pop(name, None) is None:
                raise KeyError(f"No prompt {name!r}. Known: {', '.join(self._prompts) or '-'}")
        self._emit("prompts")

    def get_prompt(self, name: str) -> PromptEntry | None:
        with self._lock:
            return self._prompts.get(name)

    def prompts(self) -> list[PromptEntry]:
        with self._lock:
            return list(self._prompts.values())

    # -- tools ------------------------------------------------------------------------------------

    def add(self, entry: ToolEntry) -> ToolEntry:
        with self._lock:
            self._tools[entry.name] = entry
        self._emit("tools")
        return entry

    def remove(self, name: str) -> ToolEntry:
        """Remove the tool `name`; raise `KeyError` with a helpful message if there is none."""
        with self._lock:
            if name not in self._tools:
                raise KeyError(self.unknown_message(name))
            entry = self._tools.pop(name)
        self._emit("tools")
        return entry

    def clear(self) -> None:
        """Remove everything (one event per list that was not empty)."""
        registries: list[tuple[str, dict[str, Any]]] = [
            ("tools", self._tools),
            ("resources", self._resources),
            ("resources", self._templates),
            ("prompts", self._prompts),
        ]
        with self._lock:
            kinds = [kind for kind, items in registries if items]
            for _, items in registries:
                items.clear()
        for kind in dict.fromkeys(kinds):
            self._emit(kind)

    def get(self, name: str) -> ToolEntry | None:
        with self._lock:
            return self._tools.get(name)

    def tools(self) -> list[ToolEntry]:
        with self._lock:
            return list(self._tools.values())

    def names(self) -> list[str]:
        with self._lock:
            return list(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[ToolEntry]:
        return iter(self.tools())

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def near_names(self, name: str, n: int = 3, among: list[str] | None = None) -> list[str]:
        """Tool names (of `among`, default all) that look like `name`, for "did you mean" hints."""
        names = self.names() if among is None else among
        lowered = {candidate.lower(): candidate for candidate in names}
        close = difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.6)
        return [lowered[c] for c in close]

    def unknown_message(self, name: str) -> str:
        near = self.near_names(name)
        hint = t("did_you_mean", names=", ".join(repr(n) for n in near)) if near else ""
        known = ", ".join(self.names()) or t("none")
        return t("tool.unknown_local", name=name, hint=hint, known=known)

    def subscribe(self, listener: ChangeListener) -> Callable[[], None]:
        """Call `listener(kind)` after every change; returns an idempotent unsubscribe."""
        token = object()
        with self._lock:
            self._listeners[token] = listener

        def unsubscribe() -> None:
            with self._lock:
                self._listeners.pop(token, None)

        return unsubscribe

    def _emit(self, kind: str) -> None:
        with self._lock:
            listeners = list(self._listeners.values())
        for listener in listeners:
            listener(kind)


DEFINE_HOOKS: list[Callable[[ToolEntry, Catalogue], None]] = []
"""Called after `@tool` defines a tool (the extension adds the linter's compact report here)."""

default_catalogue = Catalogue()
"""The catalogue that `@tool` fills and `serve()` serves unless told otherwise."""


@overload
def tool(fn: F, /, *, catalogue: Catalogue | None = None) -> F: ...
@overload
def tool(
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    read_only: bool | None = None,
    destructive: bool | None = None,
    idempotent: bool | None = None,
    open_world: bool | None = None,
    output_schema: Mapping[str, Any] | Literal[False] | None = None,
    input_schema: Mapping[str, Any] | None = None,
    run_in: RunIn | None = None,
    approval: Literal["always", "never"] | None = None,
    expose: bool = True,
    idempotency_key: bool = False,
    rate_limit: tuple[int, float] | None = None,
    timeout: float | None = None,
    lint: bool = True,
    catalogue: Catalogue | None = None,
) -> Callable[[F], F]: ...
def tool(fn: Any = None, /, *, catalogue: Catalogue | None = None, lint: bool = True, **options: Any) -> Any:
    """Make a notebook function an MCP tool, bare (``@tool``) or with options (``@tool(...)``).

    The function is returned unchanged, so it can still be called directly in the notebook.
    Running the cell again replaces the tool and tells connected clients. A parameter annotated
    `Context` (``ctx: Context``) is not an argument: the server passes the call in progress, to
    report progress, log, or ask the client (see `Context`).

    Parameters
    ----------
    name:
        Tool name (default: the function's name). 1-128 characters of ``A-Za-z0-9_.-``.
    title:
        Human-readable title for clients' UIs.
    description:
        What the tool does and when to use it (default: the docstring).
    read_only, destructive, idempotent, open_world:
        Behaviour hints (``readOnlyHint`` ...). Clients must treat them as untrusted claims.
    output_schema:
        Override the schema derived from the return annotation, or ``False`` for none.
    input_schema:
        Override the schema derived from the signature (JSON Schema 2020-12, root ``object``), for
        rules a signature cannot say (``if``/``then``, ``allOf``, ``$defs``). Arguments are validated
        against it, then passed to the function's parameters of the same names.
    run_in:
        ``"thread"`` (a worker thread) or ``"kernel"`` (the kernel's main thread); default: the server's.
    approval:
        ``"always"`` to ask a person before every outside call of this tool, ``"never"`` to never ask;
        default: the server's policy (ask for tools not annotated read-only).
    expose:
        ``False`` keeps the tool from outside clients (not listed, not callable); the notebook can
        still call it (``%mcp_call``). Use it for the dangerous half of a pair (publish / revoke).
    idempotency_key:
        Add a required ``idempotency_key`` argument: a repeated call with the same key returns the
        first result instead of running again (kept 24 h, across kernel restarts).
    rate_limit:
        ``(calls, seconds)``, e.g. ``(10, 60)``: more calls than that get an error saying when to retry.
    timeout:
        Seconds a call may take; a slower one is abandoned and the model gets an error.
    lint:
        Show the tool-design linter's findings when the tool is defined (in a notebook).
    catalogue:
        Where to register (default: the catalogue ``serve()`` serves).
    """
    target = catalogue if catalogue is not None else default_catalogue

    def register(func: F) -> F:
        entry = target.add(make_entry(func, **options))
        if lint:
            for hook in list(DEFINE_HOOKS):
                hook(entry, target)
        return func

    if fn is None:
        return register
    return register(fn)
