"""JSON Schema for one type hint: scalars, containers, unions, literals, enums and classes.

`type_schema` gives the self-contained schema of one hint. A `_Builder` does the work for one schema
root: it inlines dataclasses, TypedDicts and pydantic models, moving to ``$defs`` only the classes
that contain themselves (and giving two classes that share a name two names). The tables of which
Python types map to which JSON types, and the parsers of string formats, are shared with
`mcp_notebook.core._arguments`, so checking and converting arguments agree with the schema.

pydantic is optional: it is only looked at when the user has already imported it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import pathlib
import re
import sys
import types
import typing
import uuid
from collections import abc
from collections.abc import Callable
from typing import Any, get_args, get_origin

from ._docstrings import parse_docstring
from ._errors import ToolDefinitionError
from ._text import t

_MISSING: Any = object()
_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
    dt.datetime: {"type": "string", "format": "date-time"},
    dt.date: {"type": "string", "format": "date"},
    dt.time: {"type": "string", "format": "time"},
    uuid.UUID: {"type": "string", "format": "uuid"},
    pathlib.Path: {"type": "string"},
}
# Validation and conversion must agree, so the same parsers check these formats and build the objects.
_PARSERS: dict[Any, Callable[[str], Any]] = {
    dt.datetime: dt.datetime.fromisoformat,
    dt.date: dt.date.fromisoformat,
    dt.time: dt.time.fromisoformat,
    uuid.UUID: uuid.UUID,
    pathlib.Path: pathlib.Path,
}
_ARRAYS = {list, abc.Sequence, abc.MutableSequence, abc.Collection, abc.Iterable}
_SETS = {set, frozenset, abc.Set, abc.MutableSet}
_MAPS = {dict, abc.Mapping, abc.MutableMapping}
_BOUNDS = {"gt": "exclusiveMinimum", "ge": "minimum", "lt": "exclusiveMaximum", "le": "maximum"}
_LENGTHS = {"string": "Length", "array": "Items", "object": "Properties"}
_QUALIFIED = re.compile(r"(?<!['\w])(?:(?:[A-Za-z_]\w*|<locals>)\.)+(?=[A-Za-z_])")
_QUALIFIERS = ("Required", "NotRequired", "ReadOnly")  # TypedDict key qualifiers, kept by include_extras


class UnsupportedTypeError(ToolDefinitionError, TypeError):
    """A type hint has no JSON Schema equivalent; `tp` is the offending (innermost) type."""

    def __init__(self, message: str, tp: Any) -> None:
        super().__init__(message)
        self.tp = tp


def type_schema(tp: Any) -> dict[str, Any]:
    """The self-contained JSON Schema of one type hint; raise `UnsupportedTypeError` if it has none."""
    builder = _Builder()
    return builder.root(builder.schema(tp))


class _Builder:
    """Builds the schemas of one root, collecting shared definitions for its ``$defs``."""

    def __init__(self, namespace: dict[str, Any] | None = None, *, output: bool = False) -> None:
        self.namespace = namespace
        self.output = output
        self.defs: dict[str, Any] = {}
        self._names: dict[type, str] = {}
        self._open: set[type] = set()
        self._recursive: set[type] = set()

    def root(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {**schema, "$defs": self.defs} if self.defs else schema

    def schema(self, tp: Any) -> dict[str, Any]:
        origin, args = get_origin(tp), get_args(tp)
        if origin is typing.Annotated:
            return _annotate(self.schema(args[0]), tp.__metadata__)
        if getattr(origin, "_name", None) in _QUALIFIERS:
            return self.schema(args[0])
        if isinstance(tp, typing.NewType):
            return self.schema(tp.__supertype__)
        if tp is Any:
            return {}
        if tp is None:
            return {"type": "null"}
        if origin in (typing.Union, types.UnionType):
            return {"anyOf": [self.schema(arg) for arg in args]}
        if origin is typing.Literal:
            return _enum([arg.value if isinstance(arg, enum.Enum) else arg for arg in args], tp)
        base = origin or tp
        if not isinstance(base, type):
            raise _unsupported(tp)
        if issubclass(base, enum.Enum):
            return {**_enum([member.value for member in base], tp), "title": base.__name__}
        if base in _SCALARS:
            return dict(_SCALARS[base])
        if base in _ARRAYS or base in _SETS:
            schema: dict[str, Any] = {"type": "array"}
            if args and (items := self.schema(args[0])):
                schema["items"] = items
            return {**schema, "uniqueItems": True} if base in _SETS else schema
        if base is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return {"type": "array", "items": self.schema(args[0])}
            if args:
                prefix = [self.schema(arg) for arg in args]
                return {"type": "array", "prefixItems": prefix, "minItems": len(args), "maxItems": len(args)}
            return {"type": "array"}
        if base in _MAPS:
            if args and args[0] not in (str, Any):
                raise _unsupported(tp)
            values = self.schema(args[1]) if args else {}
            return {"type": "object", "additionalProperties": values} if values else {"type": "object"}
        if self.output and base.__module__.partition(".")[0] == "mcp":
            raise _unsupported(tp)  # content blocks are results in their own right, not structured data
        if _is_pydantic_model(base):
            return self._pydantic(base)
        if dataclasses.is_dataclass(base) or _is_typeddict(base):
            return self._class(base)
        raise _unsupported(tp)

    def _class(self, cls: type) -> dict[str, Any]:
        # Inline every class, except those that contain themselves: they must live in $defs.
        if cls in self._open or cls in self._names:
            if cls in self._open:
                self._recursive.add(cls)
            return {"$ref": f"#/$defs/{self._name(cls)}"}
        self._open.add(cls)
        try:
            schema = self._fields(cls)
        finally:
            self._open.discard(cls)
        if cls not in self._recursive:
            return schema
        self.defs[self._name(cls)] = schema
        return {"$ref": f"#/$defs/{self._name(cls)}"}

    def _fields(self, cls: type) -> dict[str, Any]:
        hints = _class_hints(cls, self.namespace)
        _, docs = parse_docstring(cls.__doc__)
        properties: dict[str, Any] = {}
        if dataclasses.is_dataclass(cls):
            fields = [field for field in dataclasses.fields(cls) if field.init]
            required = [f.name for f in fields if f.default is f.default_factory is dataclasses.MISSING]
            defaults = {field.name: field.default for field in fields}
        else:
            required = [name for name in hints if name in getattr(cls, "__required_keys__", ())]
            defaults = dict.fromkeys(hints, _MISSING)
        for name, default in defaults.items():
            schema = self.schema(hints[name])
            if name in docs:
                schema.setdefault("description", docs[name])
            if (value := _json_value(default)) is not _MISSING:
                schema["default"] = value
            properties[name] = schema
        return _object(cls.__name__, properties, required)

    def _pydantic(self, model: Any) -> dict[str, Any]:
        schema: dict[str, Any] = model.model_json_schema(
            mode="serialization" if self.output else "validation"
        )
        defs: dict[str, Any] = schema.pop("$defs", {})
        for sub in [schema, *defs.values()]:
            # Models that ignore unknown fields are closed here: a model should learn its mistake.
            if sub.get("type") == "object" and "properties" in sub:
                sub.setdefault("additionalProperties", False)
        renames: dict[str, str] = {}
        for name, sub in defs.items():
            # Two different models may share a name (or one of our classes'): keep both, under two names.
            if name in self._taken() and self.defs.get(name) != sub:
                renames[name] = self._unique(name, {*defs, *renames.values()})
        if renames:
            schema, defs = _renamed(schema, renames), _renamed(defs, renames)
            defs = {renames.get(name, name): sub for name, sub in defs.items()}
        self.defs.update(defs)
        return schema

    def _name(self, cls: type) -> str:
        if cls not in self._names:
            self._names[cls] = self._unique(cls.__name__)
        return self._names[cls]

    def _taken(self) -> set[str]:
        return {*self.defs, *self._names.values()}

    def _unique(self, name: str, also_taken: typing.Iterable[str] = ()) -> str:
        taken = self._taken() | set(also_taken)
        candidates = (name if n == 1 else f"{name}{n}" for n in range(1, len(taken) + 2))
        return next(candidate for candidate in candidates if candidate not in taken)


def _object(
    title: str | None, properties: dict[str, Any], required: list[str], closed: bool = True
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    if title:
        schema["title"] = title
    if properties:
        schema["properties"] = properties
    if required:
        schema["required"] = required
    return {**schema, "additionalProperties": False} if closed else schema


def _enum(values: list[Any], tp: Any) -> dict[str, Any]:
    kinds = {_json_kind(value) for value in values}
    if None in kinds:
        raise _unsupported(tp)
    return {"type": kinds.pop(), "enum": values} if len(kinds) == 1 else {"enum": values}


def _annotate(schema: dict[str, Any], metadata: typing.Iterable[Any]) -> dict[str, Any]:
    for item in metadata:
        if isinstance(item, str):
            schema["description"] = item
        elif _is_field_info(item):
            for key in ("title", "description", "examples"):
                if getattr(item, key, None) is not None:
                    schema[key] = getattr(item, key)
            _annotate(schema, item.metadata)
        else:
            # annotated_types (Gt, Interval, Len...) and pydantic's own metadata all carry plain attributes.
            for attr, key in (*_BOUNDS.items(), ("multiple_of", "multipleOf")):
                value = getattr(item, attr, None)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    schema[key] = value
            kind = schema.get("type")
            suffixes = [_LENGTHS[kind]] if isinstance(kind, str) and kind in _LENGTHS else ["Length", "Items"]
            for attr, prefix in (("min_length", "min"), ("max_length", "max")):
                if isinstance(value := getattr(item, attr, None), int):
                    schema.update({prefix + suffix: value for suffix in suffixes})
            pattern = getattr(item, "pattern", None)
            if isinstance(pattern, str | re.Pattern):
                schema["pattern"] = pattern if isinstance(pattern, str) else pattern.pattern
    return schema


def _class_hints(cls: Any, namespace: dict[str, Any] | None) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except (NameError, TypeError, SyntaxError, AttributeError) as exc:
        error = exc
    if namespace is not None:
        # Notebook classes may name types that only the tool's namespace holds (when it is not __main__).
        try:
            return typing.get_type_hints(cls, localns=namespace, include_extras=True)
        except (NameError, TypeError, SyntaxError, AttributeError):
            pass
    raise ToolDefinitionError(t("type.unresolved", name=cls.__qualname__, error=error))


def _json_value(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        value = value.value
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError):
        return _MISSING


def _json_kind(value: Any) -> str | None:
    kinds = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (type(None), "null"))
    return next((kind for cls, kind in kinds if isinstance(value, cls)), None)


def _is_pydantic_model(tp: Any) -> bool:
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


def _is_field_info(value: Any) -> bool:
    fields = sys.modules.get("pydantic.fields")
    return fields is not None and isinstance(value, fields.FieldInfo)


def _is_typeddict(tp: Any) -> bool:
    # typing.is_typeddict misses typing_extensions.TypedDict, which pydantic users need before 3.12.
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def _renamed(node: Any, renames: dict[str, str]) -> Any:
    if isinstance(node, dict):
        return {
            key: _renamed_ref(value, renames)
            if key == "$ref" and isinstance(value, str)
            else _renamed(value, renames)
            for key, value in node.items()
        }
    return [_renamed(item, renames) for item in node] if isinstance(node, list) else node


def _renamed_ref(ref: str, renames: dict[str, str]) -> str:
    head, _, name = ref.rpartition("/")
    return f"{head}/{renames.get(name, name)}" if head == "#/$defs" else ref


def _type_name(tp: Any) -> str:
    # Module paths only make the message longer: "list[Callable[[], None]]", not "list[collections.abc...".
    return tp.__name__ if isinstance(tp, type) else _QUALIFIED.sub("", repr(tp))


def _unsupported(tp: Any) -> UnsupportedTypeError:
    return UnsupportedTypeError(t("type.unsupported_bare", type=_type_name(tp)), tp)
