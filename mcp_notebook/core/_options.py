"""Options objects: one frozen dataclass per set of options, and the functions that take them as keywords.

Each set of options the package takes (the server's settings, ``@tool``'s options, the client's
target) is written once, as a frozen dataclass that documents and checks its fields. The public
functions keep taking those options as plain keywords (``serve(port=8765)``, ``@tool(read_only=True)``,
``call("x", url=...)``): they gather them with ``**options``, build the object with `build`, and
show the fields in their signature (`takes_options`), so ``help()``, ``tool?`` and completion
still list every option by name, each from the one list in the dataclass.

A value that cannot work is refused where the object is made, by the dataclass itself, with an
`OptionError` that names the option (`ToolOptions` raises `ToolDefinitionError`, as every mistake in
a tool's definition does): a caller that read the value from somewhere else (a config file, the
environment) can say where it came from.
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ._errors import OptionError
from ._text import t

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


def option_names(cls: type[Any]) -> tuple[str, ...]:
    """The options of the dataclass `cls`, in the order it declares them."""
    return tuple(field.name for field in dataclasses.fields(cls))


def build(
    cls: Callable[..., T],
    given: Mapping[str, Any],
    where: str,
    error: Callable[[str], Exception] | None = None,
) -> T:
    """``cls(**given)``, with an unknown option refused by name (and the option it may have meant).

    `where` is how the person passed them (``"@tool"``, ``"serve()"``), for the message; `error`
    makes the exception raised for an unknown option (default: an `OptionError` naming it).
    """
    known = option_names(cls)  # type: ignore[arg-type]  # a dataclass: every caller passes one
    for name in given:
        if name not in known:
            near = difflib.get_close_matches(name, known, n=2, cutoff=0.6)
            hint = t("did_you_mean", names=", ".join(repr(n) for n in near)) if near else ""
            message = t("options.unknown", where=where, name=name, hint=hint, known=", ".join(known))
            raise error(message) if error is not None else OptionError(message, name)
    return cls(**given)


def takes_options(cls: type[Any]) -> Callable[[F], F]:
    """Show `cls`'s fields as the keyword-only parameters of a function that takes ``**options``.

    The function's own parameters stay as they are (a field it names itself is its own); the
    ``**options`` parameter is replaced by the other fields, with their defaults and types.
    """

    def decorate(fn: F) -> F:
        own = inspect.signature(fn)
        named = set(own.parameters)
        params = [p for p in own.parameters.values() if p.kind is not p.VAR_KEYWORD]
        at = next((i for i, p in enumerate(params) if p.kind is p.KEYWORD_ONLY), len(params))
        fields = [
            inspect.Parameter(
                field.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=_default(field),
                annotation=field.type,
            )
            for field in dataclasses.fields(cls)
            if field.name not in named
        ]
        fn.__signature__ = own.replace(parameters=[*params[:at], *fields, *params[at:]])  # type: ignore[attr-defined]
        return fn

    return decorate


def _default(field: dataclasses.Field[Any]) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return inspect.Parameter.empty
