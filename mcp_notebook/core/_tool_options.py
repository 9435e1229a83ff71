"""The options of ``@tool``, written, documented and checked in one place.

`ToolOptions` is what ``@tool(...)`` takes as keywords (and `make_entry` builds from them): every
option is checked when the cell that defines the tool runs, so a mistake shows there, not on a
model's first call. What one tool becomes from a function and its options is `_tool_entry`.

Pure: no IPython, no threads, no widgets, no `mcp` import.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ._apps import Visibility, check_app_uri, check_visibility
from ._errors import ToolDefinitionError
from ._icons import IconsOption, check_icons
from ._jsonschema import load_jsonschema
from ._tasks import TASK_SUPPORT, TaskSupport
from ._text import t

RunIn = Literal["thread", "kernel"]

# Spec 2025-11-25, server/tools "Tool names": 1-128 characters, case-sensitive, [A-Za-z0-9_.-].
_NAME_RE = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
_BAD_CHAR_RE = re.compile(r"[^A-Za-z0-9_.\-]")


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


@dataclass(frozen=True)
class ToolOptions:
    """How a notebook function is offered as a tool: the options of ``@tool(...)``.

    What clients are shown:

    name:
        Tool name (default: the function's name). 1-128 characters of ``A-Za-z0-9_.-``.
    title:
        Human-readable title for clients' UIs.
    description:
        What the tool does and when to use it (default: the docstring).
    read_only, destructive, idempotent, open_world:
        Behaviour hints (``readOnlyHint`` ...). Clients must treat them as untrusted claims.
    input_schema:
        Override the schema derived from the signature (JSON Schema 2020-12, root ``object``), for
        rules a signature cannot say (``if``/``then``, ``allOf``, ``$defs``). Arguments are validated
        against it, then passed to the function's parameters of the same names.
    output_schema:
        Override the schema derived from the return annotation, or ``False`` for none.
    icons:
        Icons clients may show beside the tool (SEP-973): a list of ``"https://..."`` URLs or
        ``data:image/...;base64,...`` URIs, or of dicts ``{"src": ..., "mimeType": "image/png",
        "sizes": ["48x48"], "theme": "light" | "dark"}``. The linter flags one a client could not
        fetch (MCP070-MCP073).
    app:
        The ``ui://`` URI of an HTML view registered with `app_resource` (or made by `app_from`):
        a host that supports MCP Apps shows the tool's result in it (``_meta.ui.resourceUri``);
        any other client gets the tool and its text result as usual. The server refuses to
        start while a tool's view is not registered, and lists the tool without it meanwhile.
    visibility:
        Who may call a tool bound to a view (``_meta.ui.visibility``): ``["model", "app"]`` (the
        spec's default), ``["model"]``, or ``["app"]`` for a tool only the view calls (refresh,
        filter), which an Apps host keeps off its model's tool list. Needs ``app``.

    How a call runs:

    run_in:
        ``"thread"`` (a worker thread) or ``"kernel"`` (the kernel's main thread); default: the server's.
    timeout:
        Seconds a call may take; a slower one is abandoned and the model gets an error.
    rate_limit:
        ``(calls, seconds)``, e.g. ``(10, 60)``: more calls than that get an error saying when to retry.
    task:
        Whether a call may run as a task, which the client polls instead of waiting on one request
        (clients give up on a plain request after about 60 s): ``"optional"`` (a client that
        supports tasks gets one when the call takes longer than half a second), ``"required"``
        (only clients that support tasks may call it) or ``"never"`` (default). Opt in for long
        functions; the default is ``"never"`` because a 2025-11-25 client that supports tasks
        makes every call of a tool that allows them a task and polls for its result (a quick tool
        would answer slower), and a task's result is kept in the server's store until it expires.
        A cancelled task stops where the tool calls its `Context` (``ctx.progress``, ``ctx.sleep``,
        ``ctx.check_cancelled()``); a ``run_in="kernel"`` tool is interrupted like a cell. The
        catalogue view shows the setting, and the linter advises it (MCP061) for a tool that
        reports progress in a loop.

    Who may call it, and how often it really runs:

    approval:
        ``"always"`` to ask a person before every outside call of this tool, ``"never"`` to never ask;
        default: the server's policy (ask for tools not annotated read-only).
    expose:
        ``False`` keeps the tool from outside clients (not listed, not callable); the notebook can
        still call it (``%mcp_call``). Use it for the dangerous half of a pair (publish / revoke).
    idempotency_key:
        Add a required ``idempotency_key`` argument: a repeated call with the same key returns the
        first result instead of running again (kept 24 h, across kernel restarts).

    Raises
    ------
    ToolDefinitionError
        An option that cannot work, saying what to write instead.
    """

    name: str | None = None
    title: str | None = None
    description: str | None = None
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None
    input_schema: Mapping[str, Any] | None = None
    output_schema: Mapping[str, Any] | Literal[False] | None = None
    icons: IconsOption = ()
    app: str | None = None
    visibility: tuple[Visibility, ...] | list[Visibility] | None = None

    run_in: RunIn | None = None
    timeout: float | None = None
    rate_limit: tuple[int, float] | None = None
    task: TaskSupport = "never"

    approval: Literal["always", "never"] | None = None
    expose: bool = True
    idempotency_key: bool = False

    def __post_init__(self) -> None:
        if self.name is not None:
            check_tool_name(self.name)
        shown = self.name or "?"
        if self.read_only and self.destructive:
            raise ToolDefinitionError(t("tool.annotations_conflict", name=shown))
        if self.run_in not in (None, "thread", "kernel"):
            raise ToolDefinitionError(t("serve.bad_run_in", value=self.run_in))
        if self.approval not in (None, "always", "never"):
            raise ToolDefinitionError(t("tool.bad_approval", value=self.approval))
        limit = self.rate_limit
        if limit is not None and not (
            isinstance(limit, tuple) and len(limit) == 2 and limit[0] >= 1 and limit[1] > 0
        ):
            raise ToolDefinitionError(t("tool.bad_rate_limit", value=limit))
        if self.timeout is not None and not self.timeout > 0:
            raise ToolDefinitionError(t("tool.bad_timeout", value=self.timeout))
        try:
            object.__setattr__(self, "icons", check_icons(self.icons, "@tool(icons=...)"))
        except ValueError as exc:
            raise ToolDefinitionError(str(exc)) from None
        if self.app is not None:
            check_app_uri(self.app, "@tool(app=...)")
        if self.visibility is not None:
            if self.app is None:
                raise ToolDefinitionError(t("app.visibility_without_app", name=shown))
            object.__setattr__(self, "visibility", check_visibility(self.visibility))
        if self.task not in TASK_SUPPORT:
            raise ToolDefinitionError(t("tool.bad_task", name=shown, value=repr(self.task)))
        if self.input_schema is not None:
            _check_schema(shown, dict(self.input_schema), "tool.bad_input_schema")
        if self.output_schema not in (None, False):
            # Fail at definition, not on the first call.
            _check_schema(shown, dict(self.output_schema), "tool.bad_output_schema")  # type: ignore[arg-type]


def _check_schema(name: str, schema: dict[str, Any], message: str) -> None:
    # Spec 2025-11-25 server/tools: inputSchema and outputSchema are JSON Schema objects whose root is
    # an object (arguments and structuredContent are JSON objects).
    jsonschema = load_jsonschema()  # only for an explicit override: defining a tool stays cheap

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ToolDefinitionError(t(message, name=name, why=exc.message)) from None
    if schema.get("type") != "object":
        why = f"its root type is {schema.get('type')!r}, not 'object'"
        raise ToolDefinitionError(t(message, name=name, why=why))
