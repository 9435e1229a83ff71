"""The catalogue: the ordered set of tools, resources and prompts a server serves, and `@tool`.

Pure: no IPython, no threads, no widgets, no `mcp` import. Re-running a notebook cell that
redefines a tool replaces the entry in place (its position in `tools/list` stays stable) and
emits a change event; listeners (the server, widgets) decide what to do with it. What one tool's
entry holds and how it is built from a function is in `_tool_entry`.
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, overload

from ._apps import SCHEME as APP_SCHEME
from ._apps import unbound, unbound_message
from ._errors import ToolDefinitionError
from ._options import takes_options
from ._prompts import PromptEntry
from ._resources import ResourceEntry, TemplateEntry
from ._text import t
from ._tool_entry import ToolEntry, make_entry
from ._tool_options import RunIn, ToolOptions, check_tool_name

# The entry's names lived here before `_tool_entry` split off; other modules and tests import them from here.
__all__ = [
    "DEFINE_HOOKS",
    "Catalogue",
    "ChangeListener",
    "RunIn",
    "ToolEntry",
    "ToolOptions",
    "check_tool_name",
    "collecting_into",
    "default_catalogue",
    "make_entry",
    "target_catalogue",
    "tool",
    "tools_changed",
]

F = TypeVar("F", bound=Callable[..., Any])
ChangeListener = Callable[[str], None]


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
        if before is None:
            self._view_changed(entry.uri)
        if before is not None:
            self._emit(f"resource:{entry.uri}")
        return entry

    def remove_resource(self, uri: str) -> None:
        """Remove the resource or template at `uri` (KeyError if there is none)."""
        with self._lock:
            if self._resources.pop(uri, None) is None and self._templates.pop(uri, None) is None:
                raise KeyError(f"No resource or template {uri!r}. Known: {', '.join(self.uris()) or '-'}")
        self._emit("resources")
        self._view_changed(uri)

    # -- MCP Apps ------------------------------------------------------------------------------
    def app_uris(self) -> set[str]:
        """The ``ui://`` resources registered: the views a tool may be bound to."""
        with self._lock:
            return {uri for uri in self._resources if uri.startswith(APP_SCHEME)}

    def unbound_apps(self) -> list[tuple[str, str]]:
        """(tool, uri) for each tool bound to a view that is not registered."""
        return unbound(((entry.name, entry.app) for entry in self.tools()), self.app_uris())

    def check_apps(self) -> None:
        """Raise `ToolDefinitionError` if a tool is bound to a view that is not registered."""
        missing = self.unbound_apps()
        if missing:
            raise ToolDefinitionError(unbound_message(missing, self.app_uris()))

    def _view_changed(self, uri: str) -> None:
        # A tool is listed with its view only while the view is registered: its definition changed.
        if uri.startswith(APP_SCHEME) and any(entry.app == uri for entry in self.tools()):
            self._emit("tools")

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
        global _tools_changed
        with self._lock:
            listeners = list(self._listeners.values())
            if kind == "tools":
                _tools_changed += 1
        for listener in listeners:
            listener(kind)


_tools_changed = 0


def tools_changed() -> int:
    """How many times a tool list of this process has changed (any catalogue): a client that last
    listed tools before the count it sees now may hold a definition a cell has since replaced."""
    return _tools_changed


DEFINE_HOOKS: list[Callable[[ToolEntry, Catalogue], None]] = []
"""Called after `@tool` defines a tool (the extension adds the linter's compact report here)."""

default_catalogue = Catalogue()
"""The catalogue that `@tool` fills and `serve()` serves unless told otherwise."""

_collecting: contextvars.ContextVar[Catalogue | None] = contextvars.ContextVar(
    "mcp_notebook_collecting", default=None
)


@contextlib.contextmanager
def collecting_into(catalogue: Catalogue) -> Iterator[Catalogue]:
    """Inside the block, `@tool`, `@resource` and `@prompt` without ``catalogue=`` fill `catalogue`.

    For code that is not the notebook's, run by the kernel's own machinery (the lessons' model
    answers): what it defines stays out of the catalogue the notebook serves, and no linter report
    is shown for it.
    """
    token = _collecting.set(catalogue)
    try:
        yield catalogue
    finally:
        _collecting.reset(token)


def target_catalogue(catalogue: Catalogue | None) -> Catalogue:
    """Where a definition goes: `catalogue` if given, else the one being collected into, else the default."""
    if catalogue is not None:
        return catalogue
    collected = _collecting.get()
    return collected if collected is not None else default_catalogue


@overload
def tool(fn: F, /, *, catalogue: Catalogue | None = None, lint: bool = True) -> F: ...
@overload
def tool(*, catalogue: Catalogue | None = None, lint: bool = True, **options: Any) -> Callable[[F], F]: ...
@takes_options(ToolOptions)
def tool(fn: Any = None, /, *, catalogue: Catalogue | None = None, lint: bool = True, **options: Any) -> Any:
    """Make a notebook function an MCP tool, bare (``@tool``) or with options (``@tool(...)``).

    The function is returned unchanged, so it can still be called directly in the notebook.
    Running the cell again replaces the tool and tells connected clients. A parameter annotated
    `Context` (``ctx: Context``) is not an argument: the server passes the call in progress, to
    report progress, log, or ask the client (see `Context`).

    Parameters
    ----------
    name, title, description, read_only, destructive, idempotent, open_world, input_schema, output_schema:
        What clients are shown (see `ToolOptions`, which documents and checks every option).
    app, visibility:
        The ``ui://`` view (`app_resource`) an MCP Apps host shows the result in, and who may call
        the tool: ``["model", "app"]`` (default), ``["model"]`` or ``["app"]`` (only the view).
    run_in, timeout, rate_limit, task:
        How a call runs.
    approval, expose, idempotency_key:
        Who may call it, and how often it really runs.
    lint:
        Show the tool-design linter's findings when the tool is defined (in a notebook).
    catalogue:
        Where to register (default: the catalogue ``serve()`` serves).

    Raises
    ------
    ToolDefinitionError
        An option that cannot work (an unknown one names the option it may have meant), or a
        function that cannot be a tool, saying what to write instead.
    """
    target = target_catalogue(catalogue)
    quiet = catalogue is None and _collecting.get() is not None

    def register(func: F) -> F:
        entry = target.add(make_entry(func, **options))
        if lint and not quiet:
            for hook in list(DEFINE_HOOKS):
                hook(entry, target)
        return func

    if fn is None:
        return register
    return register(fn)
