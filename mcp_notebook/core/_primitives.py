"""`@resource`, `@prompt`, `publish()` and `app_resource()`: the application's and the person's primitives.

Tools are called by the model; resources are read by the application; prompts are picked by a
person. All three live in the same `Catalogue`, and re-running a cell replaces what it defined. An
MCP Apps view (`app_resource`) is a resource too: the host reads it to show a tool's result.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from ._apps import MIME_TYPE as APP_MIME_TYPE
from ._apps import SCHEME as APP_SCHEME
from ._apps import app_entry, check_app_uri
from ._catalogue import Catalogue, target_catalogue
from ._errors import ToolDefinitionError
from ._icons import IconsOption
from ._prompts import make_prompt
from ._resources import make_resource, published
from ._text import t

F = TypeVar("F", bound=Callable[..., Any])


def resource(
    uri: str,
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
    size: int | None = None,
    audience: list[str] | None = None,
    priority: float | None = None,
    last_modified: _dt.datetime | str | None = None,
    completers: Mapping[str, Any] | None = None,
    icons: IconsOption = None,
    catalogue: Catalogue | None = None,
) -> Callable[[F], F]:
    """Serve what a function returns as a resource, read when a client asks for it.

    A fixed URI (``"notes://today"``) makes one resource; ``{variables}`` in it
    (``"data://sales/{region}"``) make a template, read by calling the function with them.

    Parameters
    ----------
    uri:
        ``scheme://path``, optionally with ``{variable}`` parts, one per function parameter.
    name, title, description:
        How clients show it (default name: the function's; description: its docstring).
    mime_type, size:
        What the content is, and how large (bytes), when known in advance.
    audience, priority, last_modified:
        Annotations: ``["user", "assistant"]``, 0.0-1.0, and a timestamp.
    completers:
        For templates: ``{"region": ["north", "south"]}`` or ``{"region": fn(partial) -> list}``.
    icons:
        Icons clients may show beside it, as for ``@tool(icons=...)``.

    A ``ui://`` URI makes an MCP Apps view whose page the function returns at each read (served as
    ``text/html;profile=mcp-app``, the only type hosts render); `app_resource` registers one with
    its ``csp`` and ``permissions``.
    """
    target = target_catalogue(catalogue)
    if uri.startswith(APP_SCHEME):
        check_app_uri(uri, "@resource")
        if mime_type not in (None, APP_MIME_TYPE):
            raise ToolDefinitionError(t("app.bad_mime", uri=uri, got=mime_type, mime=APP_MIME_TYPE))
        mime_type = APP_MIME_TYPE

    def register(fn: F) -> F:
        entry = make_resource(
            fn,
            uri,
            name=name,
            title=title,
            description=description,
            mime_type=mime_type,
            size=size,
            audience=audience,
            priority=priority,
            last_modified=last_modified,
            completers=completers,
            icons=icons,
        )
        target.add_resource(entry)
        return fn

    return register


def prompt(
    fn: Any = None,
    /,
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    completers: Mapping[str, Any] | None = None,
    icons: IconsOption = None,
    catalogue: Catalogue | None = None,
) -> Any:
    """Offer a function as a prompt a person can pick (bare ``@prompt`` or ``@prompt(...)``).

    Its parameters are the prompt's arguments (``Literal``/``Enum`` types complete by themselves;
    `completers` adds more); it returns a str (one user message) or a list of messages. `icons`:
    icons clients may show beside it, as for ``@tool(icons=...)``.
    """
    target = target_catalogue(catalogue)

    def register(func: F) -> F:
        target.add_prompt(
            make_prompt(
                func, name=name, title=title, description=description, completers=completers, icons=icons
            )
        )
        return func

    if fn is None:
        return register
    return register(fn)


def publish(
    value: Any,
    uri: str | None = None,
    *,
    name: str,
    title: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
    catalogue: Catalogue | None = None,
) -> str:
    """Publish a live notebook value as a resource; publishing again updates it and tells subscribers.

    A pandas DataFrame is served as CSV and as JSON records (its columns described), a str as text,
    bytes as a blob, a figure as PNG, anything else as JSON. Returns the URI.

    Parameters
    ----------
    value:
        The object to serve, as it is now (publish again after changing it).
    uri:
        Where (default ``notebook://variables/<name>``).
    name:
        The resource's name (e.g. the variable's name).
    """
    target = target_catalogue(catalogue)
    where = uri or f"notebook://variables/{name}"
    target.add_resource(
        published(value, where, name=name, title=title, description=description, mime_type=mime_type)
    )
    return where


def app_resource(
    uri: str,
    html: str | None = None,
    *,
    path: str | Path | None = None,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    csp: Mapping[str, Any] | None = None,
    permissions: Iterable[str] | Mapping[str, Any] | None = None,
    prefers_border: bool | None = None,
    catalogue: Catalogue | None = None,
) -> str:
    """Register an MCP Apps view: a ``ui://`` HTML page a host shows a tool's result in.

    Bind a tool to it with ``@tool(app=uri)``. A host that supports MCP Apps (extension
    ``io.modelcontextprotocol/ui``) reads it (served as ``text/html;profile=mcp-app``) and runs it
    in a sandboxed iframe with no network unless `csp` names origins; the page talks to the host
    with ``postMessage`` JSON-RPC (``ui/initialize``, then ``tools/call`` ...). A client without
    Apps never reads it and gets the tool's text result. Registering the URI again replaces it.

    Parameters
    ----------
    uri:
        ``ui://name/...``, a fixed URI (no ``{variables}``).
    html, path:
        The page, as text or as a UTF-8 file read now (once: register again after changing it).
        Exactly one of them.
    name, title, description:
        How clients list it (default name: the URI without ``ui://``).
    csp:
        The origins the page may reach (``_meta.ui.csp``): ``connectDomains`` (fetch, WebSocket),
        ``resourceDomains`` (scripts, images, styles, fonts), ``frameDomains``, ``baseUriDomains``
        (or their snake_case spelling), each a list like ``["https://api.example.com"]``.
        Default: none, and the host lets the page load nothing from the network.
    permissions:
        Browser features the page asks for (``_meta.ui.permissions``): ``"camera"``,
        ``"microphone"``, ``"geolocation"``, ``"clipboardWrite"``; the host may refuse them.
    prefers_border:
        Whether the host should draw a border around the view (default: the host decides).

    Returns
    -------
    str
        The URI, for ``@tool(app=...)``.

    Raises
    ------
    ToolDefinitionError
        A URI that is not ``ui://``, both or neither of `html` and `path`, a file that cannot be
        read, an unknown `csp` key or permission, or an origin a policy cannot hold.

    Examples
    --------
    >>> view = app_resource("ui://hello/view", html="<!doctype html><p id=out>...</p><script>...</script>")
    >>> @tool(app=view, read_only=True)
    ... def hello(name: str) -> str:
    ...     return f"Hello, {name}!"
    """
    entry = app_entry(
        uri,
        html=html,
        path=path,
        name=name,
        title=title,
        description=description,
        csp=csp,
        permissions=permissions,
        prefers_border=prefers_border,
    )
    target_catalogue(catalogue).add_resource(entry)
    return uri
