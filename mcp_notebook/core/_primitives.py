"""`@resource`, `@prompt` and `publish()`: the application's and the person's primitives.

Tools are called by the model; resources are read by the application; prompts are picked by a
person. All three live in the same `Catalogue`, and re-running a cell replaces what it defined.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ._catalogue import Catalogue, target_catalogue
from ._icons import IconsOption
from ._prompts import make_prompt
from ._resources import make_resource, published

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
    """
    target = target_catalogue(catalogue)

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
