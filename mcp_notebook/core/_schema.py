"""What a model is told about a tool function: its description, and input and output JSON Schemas.

`function_schema` reads a function's signature, type hints and docstring: one property per
parameter (with its default and its description from the docstring), which ones are required,
and an output schema from the return type, wrapped as ``{"result": ...}`` when it is not an
object. Each type hint is mapped by `mcp_notebook.core._type_schema`, whose `type_schema` and
`UnsupportedTypeError` are re-exported here so that this stays the one module to ask for a schema.
Checking and converting the arguments of a call is `mcp_notebook.core._arguments`.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable
from typing import Any, get_origin

from ._context import context_parameter
from ._docstrings import parse_docstring
from ._errors import ToolDefinitionError
from ._kinds import kind_of_annotation
from ._text import t
from ._type_schema import (
    _MISSING,
    UnsupportedTypeError,
    _annotate,
    _Builder,
    _is_field_info,
    _json_value,
    _object,
    _type_name,
    type_schema,
)

__all__ = ["FunctionSchema", "UnsupportedTypeError", "function_schema", "type_schema"]


@dataclasses.dataclass(frozen=True)
class FunctionSchema:
    """What a model is told about a function.

    Parameters
    ----------
    description:
        The docstring without its parameter, returns and raises sections; ``None`` without a docstring.
    input_schema:
        JSON Schema (2020-12) of the arguments object.
    output_schema:
        JSON Schema of the structured result, or ``None`` when the return type has none.
    wraps_output:
        The return type is not an object, so results are sent as ``{"result": value}``.
    """

    description: str | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    wraps_output: bool


def function_schema(fn: Callable[..., Any]) -> FunctionSchema:
    """Describe `fn` (sync or async) as an MCP tool; raise `ToolDefinitionError` if it cannot be one."""
    func = getattr(fn, "__name__", repr(fn))
    hints, unresolved = _hints(fn)
    description, docs = parse_docstring(fn.__doc__ if inspect.isroutine(fn) else None)
    builder = _Builder(namespace=_namespace(fn))
    properties: dict[str, Any] = {}
    required: list[str] = []
    context = context_parameter(fn)
    for param in inspect.signature(fn).parameters.values():
        if param.kind is param.VAR_POSITIONAL:
            raise ToolDefinitionError(t("param.varargs", func=func, param=param.name))
        if param.kind is param.VAR_KEYWORD:
            raise ToolDefinitionError(t("param.varkw", func=func, param=param.name))
        if param.kind is param.POSITIONAL_ONLY:
            raise ToolDefinitionError(t("param.positional_only", func=func, param=param.name))
        if param.name == context:
            continue  # the server passes the call's Context: not an argument the client sends
        if param.name in unresolved:
            raise ToolDefinitionError(t("type.unresolved", name=f"{func}()", error=unresolved[param.name]))
        tp = hints.get(param.name, _MISSING)
        if tp is _MISSING:
            # Unannotated: trust a scalar default's type, accept anything otherwise.
            tp = type(param.default) if type(param.default) in (str, int, float, bool) else Any
        try:
            schema = builder.schema(tp)
        except UnsupportedTypeError as exc:
            key = "type.unsupported" if exc.tp is tp else "type.unsupported_inner"
            names = {"param": param.name, "func": func, "type": _type_name(tp), "inner": _type_name(exc.tp)}
            raise UnsupportedTypeError(t(key, **names), exc.tp) from None
        if _is_field_info(param.default):
            _annotate(schema, [param.default])
        default = _param_default(param, tp)
        if default is _MISSING:
            required.append(param.name)
        elif (value := _json_value(default)) is not _MISSING:
            schema["default"] = value
        if param.name in docs:
            schema.setdefault("description", docs[param.name])
        properties[param.name] = schema
    output, wraps = _output_schema(hints, unresolved, _namespace(fn))
    return FunctionSchema(description, builder.root(_object(None, properties, required)), output, wraps)


def _output_schema(
    hints: dict[str, Any], unresolved: dict[str, str], namespace: dict[str, Any] | None
) -> tuple[dict[str, Any] | None, bool]:
    ret = hints.get("return", _MISSING)
    if "return" in unresolved or ret is _MISSING or ret is None or ret is type(None) or ret is Any:
        return None, False
    if kind_of_annotation(ret) is not None:
        # A content kind (bytes, or a kind a notebook registered, dataclass or not) is sent as its
        # content blocks: a schema would promise structured content that never comes.
        return None, False
    builder = _Builder(namespace, output=True)
    try:
        schema = builder.schema(ret)
    except ToolDefinitionError:
        # Figures, images, bytes, content blocks: the result is still sent, just without a schema.
        return None, False
    target = builder.defs.get(schema.get("$ref", "").rpartition("/")[2], schema)
    if target.get("type") == "object":
        # MCP requires an object at the root, even when it is reached through a $ref.
        return builder.root({"type": "object", **schema}), False
    return builder.root(_object(None, {"result": schema}, ["result"], closed=False)), True


def _hints(fn: Callable[..., Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The resolved type hints of `fn`, and an error message for each hint that cannot be resolved."""
    try:
        return typing.get_type_hints(fn, include_extras=True), {}
    except (NameError, TypeError, SyntaxError, AttributeError):
        pass
    # One bad hint (often the return type) should not hide the others: resolve them one by one.
    globalns = _namespace(fn)
    hints: dict[str, Any] = {}
    unresolved: dict[str, str] = {}
    for name, hint in getattr(fn, "__annotations__", {}).items():
        holder = types.SimpleNamespace(__annotations__={name: hint})
        try:
            hints.update(typing.get_type_hints(holder, globalns=globalns, include_extras=True))
        except (NameError, TypeError, SyntaxError, AttributeError) as exc:
            unresolved[name] = str(exc)
    return hints, unresolved


def _namespace(fn: Callable[..., Any]) -> dict[str, Any] | None:
    return getattr(inspect.unwrap(fn), "__globals__", None)


def _param_default(param: inspect.Parameter, tp: Any) -> Any:
    if _is_field_info(param.default):
        return _field_default(param.default)
    if param.default is not param.empty:
        return param.default
    if get_origin(tp) is typing.Annotated:
        for item in tp.__metadata__:
            if _is_field_info(item) and (default := _field_default(item)) is not _MISSING:
                return default
    return _MISSING


def _field_default(field: Any) -> Any:
    return _MISSING if field.is_required() else field.get_default(call_default_factory=True)
