"""Prompts: message templates a *person* picks (a slash command), filled with arguments.

Pure: no IPython, no threads, no `mcp` import. Arguments come from the function's signature
(on the wire every prompt argument is a string); the return value becomes the messages:
a str is one user message; a list holds messages as ``(role, content)`` pairs, dicts, or bare
contents (user). A content is text, an image (PNG bytes, a figure, a PIL image) or an embedded
resource (`embed_resource`).
"""

from __future__ import annotations

import enum
import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, get_args, get_origin

from ._constraint_text import constraint_message, type_message
from ._context import context_parameter
from ._docstrings import parse_docstring
from ._errors import ToolDefinitionError
from ._icons import Icons, IconsOption, check_icons
from ._kinds import is_wire_type
from ._media import image_block
from ._results import text_block
from ._text import t
from ._tool_options import check_tool_name  # prompt names follow the same rules as tool names

_ROLES = ("user", "assistant")


@dataclass(frozen=True)
class EmbeddedResource:
    """A resource to embed in a prompt message; its contents are read when the prompt is rendered."""

    uri: str


def embed_resource(uri: str) -> EmbeddedResource:
    """Embed the resource at `uri` in a prompt message (read when the prompt is requested)."""
    return EmbeddedResource(uri)


@dataclass(eq=False)
class PromptEntry:
    name: str
    fn: Callable[..., Any]
    title: str | None = None
    description: str | None = None
    arguments: list[dict[str, Any]] = field(default_factory=list)
    choices: dict[str, list[str]] = field(default_factory=dict)
    completers: dict[str, Any] = field(default_factory=dict)
    converters: dict[str, Callable[[str], Any]] = field(default_factory=dict)
    context: str | None = None  # the parameter annotated `Context`, filled in by the server
    icons: Icons = ()

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"name": self.name}
        if self.title:
            wire["title"] = self.title
        if self.description:
            wire["description"] = self.description
        if self.arguments:
            wire["arguments"] = [dict(argument) for argument in self.arguments]
        if self.icons:
            wire["icons"] = [dict(icon) for icon in self.icons]
        return wire

    def problems(self, arguments: Mapping[str, str]) -> list[str]:
        """What is wrong with the arguments of a prompts/get, one line each (empty if nothing)."""
        allowed = [argument["name"] for argument in self.arguments]
        missing = [a["name"] for a in self.arguments if a.get("required") and a["name"] not in arguments]
        unexpected = [name for name in arguments if name not in allowed]
        found = []
        if missing:
            found.append(t("prompt.missing", name=self.name, missing=", ".join(repr(m) for m in missing)))
        if unexpected:
            listed = ", ".join(repr(u) for u in unexpected)
            found.append(
                t("prompt.unexpected", name=self.name, unexpected=listed, allowed=", ".join(allowed) or "-")
            )
        for key, options in self.choices.items():
            value = arguments.get(key)
            if value is not None and value not in options:
                why = constraint_message("enum", options, value, f"{value!r} is not one of {options}")
                found.append(t("prompt.bad_value", name=self.name, argument=key, why=why))
        return found

    def convert(self, arguments: Mapping[str, str]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        for key, value in arguments.items():
            convert = self.converters.get(key)
            try:
                kwargs[key] = convert(value) if convert is not None else value
            except (TypeError, ValueError):
                why = type_message(_JSON_TYPES.get(convert, "string"), value)
                raise ValueError(t("prompt.bad_value", name=self.name, argument=key, why=why)) from None
        return kwargs


def make_prompt(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    completers: Mapping[str, Any] | None = None,
    icons: IconsOption = None,
) -> PromptEntry:
    prompt_name = str(name or getattr(fn, "__name__", ""))
    check_tool_name(prompt_name)
    try:
        shown = check_icons(icons, "@prompt(icons=...)")
    except ValueError as exc:
        raise ToolDefinitionError(str(exc)) from None
    summary, param_docs = parse_docstring(inspect.getdoc(fn))
    hints = typing.get_type_hints(fn)
    arguments: list[dict[str, Any]] = []
    choices: dict[str, list[str]] = {}
    converters: dict[str, Callable[[str], Any]] = {}
    context = context_parameter(fn)
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(t("param.varargs", func=prompt_name, param=param.name))
        if param.name == context:
            continue
        argument: dict[str, Any] = {"name": param.name, "required": param.default is param.empty}
        if param.name in param_docs:
            argument["description"] = param_docs[param.name]
        arguments.append(argument)
        hint = hints.get(param.name, str)
        options = literal_choices(hint)
        if options:
            choices[param.name] = options
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            converters[param.name] = hint
        elif hint in (int, float, bool):
            converters[param.name] = _to_bool if hint is bool else hint
    return PromptEntry(
        prompt_name,
        fn,
        title,
        description or summary,
        arguments,
        choices,
        dict(completers or {}),
        converters,
        context,
        icons=shown,
    )


def _to_bool(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise ValueError(f"{value!r} is not true or false")


# What a prompt argument (always a string on the wire) had to read as, in JSON Schema's words.
_JSON_TYPES: dict[Any, str] = {int: "integer", float: "number", _to_bool: "boolean"}


def literal_choices(hint: Any) -> list[str]:
    """The string values a ``Literal[...]`` or ``Enum`` type allows (for completion and checks)."""
    if get_origin(hint) is typing.Annotated:
        hint = get_args(hint)[0]
    if get_origin(hint) is typing.Literal:
        return [str(value) for value in get_args(hint)]
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return [str(member.value) for member in hint]
    return []


def render(
    entry: PromptEntry, value: Any, read: Callable[[str], list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """The prompt's messages as wire dicts; `read(uri)` supplies embedded resources' contents."""
    items = value if isinstance(value, list | tuple) and not _is_pair(value) else [value]
    messages = []
    for item in items:
        item = _sdk_dump(item)
        role, content = ("user", item)
        if _is_pair(item):
            role, content = item
        elif isinstance(item, Mapping) and "role" in item:
            role, content = item["role"], item.get("content")
        if role not in _ROLES:
            raise TypeError(t("prompt.bad_return", name=entry.name, what=f"a message with role {role!r}"))
        messages.append({"role": role, "content": _content(entry, content, read)})
    return messages


def _is_pair(item: Any) -> bool:
    return isinstance(item, tuple) and len(item) == 2 and item[0] in _ROLES


def _sdk_dump(value: Any) -> Any:
    """The SDK's own message and content objects (``mcp_types``) as wire dicts; anything else as it is."""
    if type(value).__module__.startswith("mcp_types") and hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, mode="json", exclude_none=True)
    return value


def _content(entry: PromptEntry, content: Any, read: Callable[[str], list[dict[str, Any]]]) -> dict[str, Any]:
    content = _sdk_dump(content)
    if isinstance(content, str):
        return text_block(content)
    if isinstance(content, EmbeddedResource):
        return {"type": "resource", "resource": read(content.uri)[0]}
    if isinstance(content, Mapping) and is_wire_type(content.get("type")):
        return dict(content)
    image = image_block(content)
    if image is not None:
        return image
    raise TypeError(t("prompt.bad_return", name=entry.name, what=type(content).__name__))
