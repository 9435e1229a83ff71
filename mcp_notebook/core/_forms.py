"""The form of an elicitation: what a tool may ask a person to fill in, and the answer the tool gets.

A form is a mapping of field names to types (``{"people": int}``), a JSON Schema object, or a class:
a pydantic model (the official SDK's own style), a dataclass or a TypedDict. A class's fields become
the form schema MCP allows (spec 2025-11-25 client/elicitation, ``requestedSchema``: a flat object
whose properties are each a string, number, integer or boolean, or a choice of strings), the same
schema the equivalent mapping gives; a field that cannot be a form field is refused when the tool
asks, before anything reaches the client. An accepted answer to a class form is validated by the
class (a model by pydantic, a dataclass or TypedDict as a tool's arguments are) and carried as
`Elicitation.data`; an answer that does not fit raises `InvalidAnswerError` in the tool.

Pure: pydantic is only used through a model the tool author already imported it for.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any, NamedTuple, get_args, get_origin

from ._docstrings import parse_docstring
from ._errors import InvalidAnswerError
from ._questions import ELICIT, Elicitation
from ._text import t
from ._type_schema import (
    _MISSING,
    UnsupportedTypeError,
    _class_hints,
    _is_pydantic_model,
    _is_typeddict,
    _json_value,
    _type_name,
    type_schema,
)

# What each kind of field may say in a requested schema (spec 2025-11-25 schema.ts: StringSchema,
# NumberSchema, BooleanSchema, the enum schemas). Other keywords (a pattern, an exclusive bound) are
# left out of the wire: the class still enforces them when it validates the answer.
_KEYWORDS = {
    "string": {"type", "title", "description", "default", "minLength", "maxLength", "format"},
    "number": {"type", "title", "description", "default", "minimum", "maximum"},
    "integer": {"type", "title", "description", "default", "minimum", "maximum"},
    "boolean": {"type", "title", "description", "default"},
}
_CHOICE = {"type", "title", "description", "default", "enum"}
_CHOICES = {"type", "title", "description", "default", "items", "minItems", "maxItems"}
_FORMATS = {"date", "date-time", "email", "uri"}


class _Field(NamedTuple):
    name: str  # on the wire
    hint: Any
    default: Any  # None when it has none (a None default is no default on the wire either)
    required: bool
    description: str | None  # from the class's docstring


class FormRequest(dict[str, Any]):
    """An ``elicitation/create`` request as `Context.elicitation` makes it, remembering its form class.

    The dict is what goes on the wire (copies of it travel, never the class); `form` is the class
    whose instance an accepted answer carries, or ``None`` for a mapping or a JSON Schema.
    """

    form: type | None = None


def is_form_class(schema: Any) -> bool:
    """Whether `schema` is a class that can be a form: a pydantic model, a dataclass or a TypedDict."""
    return isinstance(schema, type) and (
        _is_pydantic_model(schema) or dataclasses.is_dataclass(schema) or _is_typeddict(schema)
    )


def elicitation_request(message: str, schema: Any) -> FormRequest:
    """The ``elicitation/create`` request (form mode) of `message` and the form `schema`."""
    request = FormRequest(method=ELICIT, params={"message": message, "requestedSchema": form_schema(schema)})
    if is_form_class(schema):
        request.form = schema
    return request


def form_schema(schema: Any) -> dict[str, Any]:
    """A requested schema: JSON Schema as given, ``{"field": type}`` turned into one (all required), or
    the fields of a class (a pydantic model, a dataclass, a TypedDict); see `class_form_schema`."""
    if is_form_class(schema):
        return class_form_schema(schema)
    if not isinstance(schema, Mapping):
        raise TypeError(t("context.bad_schema", what=schema))
    if schema.get("type") == "object":
        return dict(schema)
    try:
        properties = {name: type_schema(tp) for name, tp in schema.items()}
    except Exception:
        raise TypeError(t("context.bad_schema", what=dict(schema))) from None
    return {"type": "object", "properties": properties, "required": list(properties)}


def class_form_schema(cls: type) -> dict[str, Any]:
    """The requested schema of a form class: one property per field, required unless it has a default.

    A field is described as for a tool's parameter (``Field(description=...)``, ``Annotated``, the
    class's docstring), ``T | None`` is ``T`` (a field is optional by its default, as the SDK renders
    it), and only the keywords MCP's form schema has are kept. Raises `TypeError` naming the first
    field that cannot be a form field.
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field in _fields(cls):
        try:
            prop = _form_field(type_schema(_without_none(field.hint)))
        except UnsupportedTypeError:
            prop = None
        if prop is None:
            shown = _shown(field.hint)
            raise TypeError(t("context.bad_form_field", form=cls.__name__, field=field.name, type=shown))
        if field.description:
            prop.setdefault("description", field.description)
        if field.default is not None and (value := _json_value(field.default)) is not _MISSING:
            prop["default"] = value
        properties[field.name] = prop
        if field.required:
            required.append(field.name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    return {**schema, "required": required} if required else schema


def with_form_data(request: Mapping[str, Any], answer: Any) -> Any:
    """`answer` to `request`, and when it is an accepted answer to a class form, with its `data`.

    The content is validated by the class: a pydantic model's ``model_validate``, for a dataclass or
    a TypedDict the checks and conversions of tool arguments. An accepted answer without content is
    validated as ``{}`` (so a form whose fields all have defaults gets them). Raises
    `InvalidAnswerError` when the content does not fit.
    """
    form = getattr(request, "form", None)
    if form is None or not isinstance(answer, Elicitation) or not answer.accepted:
        return answer
    data, problems = _instance(form, answer.content or {})
    if problems:
        message = request.get("params", {}).get("message", "")
        raise InvalidAnswerError(
            t("context.invalid_answer", message=message, form=form.__name__, problems="; ".join(problems)),
            answer=answer,
            problems=problems,
        )
    return dataclasses.replace(answer, data=data)


def _fields(cls: type) -> list[_Field]:
    """The fields of a form class, in their order."""
    if _is_pydantic_model(cls):
        fields = []
        for name, info in typing.cast(Any, cls).model_fields.items():
            # The wire names a field as the model validates it: by its alias when it has one.
            wire = info.alias if isinstance(info.alias, str) else name
            # The FieldInfo rides along as metadata: its title, description and constraints.
            annotation: Any = info.annotation
            hint = typing.Annotated[(annotation, info)]
            required = bool(info.is_required())
            default = None if required or info.default_factory is not None else info.default
            fields.append(_Field(wire, hint, default, required, None))
        return fields
    hints = _class_hints(cls, None)
    _, docs = parse_docstring(cls.__doc__)
    if dataclasses.is_dataclass(cls):
        return [
            _Field(
                field.name,
                hints[field.name],
                None if field.default is dataclasses.MISSING else field.default,
                field.default is field.default_factory is dataclasses.MISSING,
                docs.get(field.name),
            )
            for field in dataclasses.fields(cls)
            if field.init
        ]
    required_keys = getattr(cls, "__required_keys__", ())
    return [_Field(name, hint, None, name in required_keys, docs.get(name)) for name, hint in hints.items()]


def _without_none(tp: Any) -> Any:
    """``T | None`` as ``T``: MCP's form fields have no null; an optional field is left out of required."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is typing.Annotated:
        inner = _without_none(args[0])
        return tp if inner is args[0] else typing.Annotated[(inner, *tp.__metadata__)]
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        rest = tuple(arg for arg in args if arg is not type(None))
        return rest[0] if len(rest) == 1 else typing.Union[rest]  # noqa: UP007 (a tuple of types)
    return tp


def _form_field(prop: dict[str, Any]) -> dict[str, Any] | None:
    """`prop` as a field of MCP's form schema, with only the keywords it allows; None if it cannot be one."""
    kind = prop.get("type")
    if "enum" in prop:
        if kind != "string" or not all(isinstance(value, str) for value in prop["enum"]):
            return None  # a choice is of strings (spec: the enum schemas)
        return {key: value for key, value in prop.items() if key in _CHOICE}
    if kind == "array":
        items = prop.get("items")
        if not isinstance(items, dict) or _form_field(items) is None or "enum" not in items:
            return None  # only a list of choices (a multi-select) is a form field
        kept = {key: value for key, value in prop.items() if key in _CHOICES}
        return {**kept, "items": {"type": "string", "enum": items["enum"]}}
    if not isinstance(kind, str) or kind not in _KEYWORDS:
        return None
    kept = {key: value for key, value in prop.items() if key in _KEYWORDS[kind]}
    if "format" in kept and kept["format"] not in _FORMATS:
        del kept["format"]  # a UUID or a time is a plain string to the form; the class still parses it
    return kept


def _shown(hint: Any) -> str:
    """The type a person wrote for a field, for a message (without its Annotated metadata)."""
    while get_origin(hint) is typing.Annotated:
        hint = get_args(hint)[0]
    return _type_name(hint)


def _instance(form: Any, content: dict[str, Any]) -> tuple[Any, list[str]]:
    """`content` validated into `form`, or the problems with it (one line each, ``field: why``)."""
    # Imported here: `_arguments` reads signatures through `_schema`, which imports `_context`, which
    # imports this module.
    from ._arguments import MAX_PROBLEMS, argument_problems, compile_validator, convert_value

    if _is_pydantic_model(form):
        from pydantic import ValidationError  # already imported: the form is a pydantic model

        try:
            return form.model_validate(content), []
        except ValidationError as error:
            return None, [_pydantic_problem(problem) for problem in error.errors()[:MAX_PROBLEMS]]
    schema = type_schema(form)
    fields = schema.get("properties", {})
    # Like a pydantic model, a form ignores what the client sent beyond its fields.
    known = {name: value for name, value in content.items() if name in fields}
    problems = argument_problems(
        compile_validator({**schema, "additionalProperties": True}), known, output=True
    )
    return (None, problems) if problems else (convert_value(form, known), [])


def _pydantic_problem(problem: Mapping[str, Any]) -> str:
    where = ".".join(str(part) for part in problem.get("loc", ())) or "(form)"
    if problem.get("type") == "missing":
        return f"{where}: {problem.get('msg')}"
    shown = repr(problem.get("input"))
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return t("context.answer_problem", field=where, why=problem.get("msg"), value=shown)
