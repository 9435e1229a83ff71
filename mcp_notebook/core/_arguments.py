"""Checking and converting the arguments a model sends to a tool.

`compile_validator` and `argument_problems` check a call's arguments against the tool's input schema
and explain each problem in one line the model can act on; `argument_converter` turns the validated
JSON values into the objects the function's type hints ask for. Both are built once per tool, so a
call pays only for the checking and converting itself.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import functools
import inspect
import itertools
import types
import typing
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, get_args, get_origin

from ._constraint_text import constraint_message, type_message
from ._jsonschema import load_jsonschema
from ._quickcheck import quick_check
from ._schema import _hints, _namespace, _param_default
from ._text import t
from ._type_schema import (
    _ARRAYS,
    _MAPS,
    _MISSING,
    _PARSERS,
    _QUALIFIERS,
    _SCALARS,
    _SETS,
    _class_hints,
    _is_field_info,
    _is_pydantic_model,
    _is_typeddict,
    _json_kind,
)

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator


# -- validation ------------------------------------------------------------------------------------------


def _format_check(parse: Callable[[str], Any]) -> Callable[[object], bool]:
    def check(value: object) -> bool:
        if isinstance(value, str):
            parse(value)
        return True

    return check


@functools.cache
def _formats() -> Any:
    """The format checker, built on first use: importing jsonschema takes a while, which `%load_ext`
    must not pay (`_jsonschema` keeps the worst of it off even then)."""
    jsonschema = load_jsonschema()

    formats = jsonschema.FormatChecker(jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers)
    for name, tp in (("date-time", dt.datetime), ("date", dt.date), ("time", dt.time), ("uuid", uuid.UUID)):
        formats.checks(name, raises=ValueError)(_format_check(_PARSERS[tp]))
    return formats


_VALIDATORS: dict[int, tuple[Mapping[str, Any], Validator]] = {}
_QUICK: dict[int, tuple[Mapping[str, Any], Callable[[Any], bool] | None]] = {}


def compile_validator(schema: Mapping[str, Any]) -> Validator:
    """A Draft 2020-12 validator for `schema`, which also checks the formats `convert_arguments` parses."""
    cached = _VALIDATORS.get(id(schema))
    # The schema itself is kept in the cache, so its id cannot be reused by another object.
    if cached is not None and cached[0] is schema:
        return cached[1]
    jsonschema = load_jsonschema()

    validator = jsonschema.Draft202012Validator(schema, format_checker=_formats())
    if len(_VALIDATORS) >= 512:
        _VALIDATORS.clear()
    _VALIDATORS[id(schema)] = (schema, validator)
    return validator


def _quick(schema: Mapping[str, Any]) -> Callable[[Any], bool]:
    cached = _QUICK.get(id(schema))
    if cached is None or cached[0] is not schema:
        if len(_QUICK) >= 512:
            _QUICK.clear()
        cached = _QUICK[id(schema)] = (schema, quick_check(schema))
    check = cached[1]
    return check if check is not None else _never


def _never(value: Any) -> bool:
    return False


MAX_PROBLEMS = 20  # lines listed; a model fixes the first ones and tries again
MAX_PROBLEM_CHARS = 300  # per line: a value quoted in a message is cut in the middle
_ERRORS_READ = 100  # validation errors read before the list stops growing


def argument_problems(validator: Validator, arguments: Any, *, output: bool = False) -> list[str]:
    """The problems with `arguments`, one line each as ``path: message``, sorted by path; ``[]`` if valid.

    With `output` the value checked is a tool's result against its output schema: a missing name is
    then a required *field* of the result, not an argument someone forgot to send.

    Bounded however large the arguments are: at most `MAX_PROBLEMS` lines (then one saying more
    were found), each at most `MAX_PROBLEM_CHARS` characters, so a 4 MiB request cannot become an
    error message many times its size.
    """
    if _quick(validator.schema)(arguments) or (isinstance(arguments, dict) and validator.is_valid(arguments)):
        return []  # the common case, without building error objects
    if not isinstance(arguments, dict):
        kind = _json_kind(arguments) or (
            "array" if isinstance(arguments, list | tuple) else type(arguments).__name__
        )
        return [_shortened(t("call.not_object", kind=kind, value=_short_repr(arguments)))]
    errors = list(itertools.islice(validator.iter_errors(arguments), _ERRORS_READ + 1))
    more = len(errors) > _ERRORS_READ
    missing = "call.missing_field" if output else "call.missing"
    found = [line for error in errors[:_ERRORS_READ] for line in _explain(error, missing)]
    found.sort(key=lambda item: [(0, part) if isinstance(part, int) else (1, str(part)) for part in item[0]])
    lines = list(
        dict.fromkeys(_shortened(f"{_path(path)}: {message}" if path else message) for path, message in found)
    )
    if len(lines) > MAX_PROBLEMS or more:
        shown = lines[:MAX_PROBLEMS]
        hidden = len(lines) - len(shown)
        shown.append(t("call.more_problems", count=hidden) if not more else t("call.many_more_problems"))
        return shown
    return lines


def _short_repr(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) or len(value) <= MAX_PROBLEM_CHARS else repr(value[:200])
    return text if len(text) <= MAX_PROBLEM_CHARS else text[:200] + "..."


def _shortened(line: str) -> str:
    """`line` cut in the middle when too long: the start names the field, the end the rule it broke."""
    if len(line) <= MAX_PROBLEM_CHARS:
        return line
    cut = len(line) - (MAX_PROBLEM_CHARS - 40)
    return f"{line[:160]} [... {cut:,} characters ...] {line[-(MAX_PROBLEM_CHARS - 200) :]}"


def _explain(error: ValidationError, missing: str = "call.missing") -> Iterator[tuple[list[Any], str]]:
    path, instance = list(error.absolute_path), error.instance
    if error.validator == "required" and isinstance(instance, dict):
        for name in error.validator_value:
            if name not in instance:
                yield path, t(missing, field=name)
    elif (
        error.validator == "additionalProperties"
        and error.validator_value is False
        and isinstance(instance, dict)
    ):
        allowed = list(error.schema.get("properties", {}))
        key = "call.unexpected_field" if path else "call.unexpected"
        for name in instance:
            if name not in allowed:
                yield path, t(key, field=name, allowed=", ".join(allowed) or t("none"))
    elif error.validator in ("anyOf", "oneOf") and error.context:
        yield from _explain_branches(error, missing)
    else:
        yield path, constraint_message(str(error.validator), error.validator_value, instance, error.message)


def _explain_branches(
    error: ValidationError, missing: str = "call.missing"
) -> Iterator[tuple[list[Any], str]]:
    # "not valid under any of the given schemas" tells a model nothing: name the branch it was aiming for.
    branches: dict[Any, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    wrong_type = {
        i for i, subs in branches.items() if any(s.validator == "type" and not s.relative_path for s in subs)
    }
    aimed = [subs for i, subs in branches.items() if i not in wrong_type]
    if len(aimed) == 1:
        for sub in aimed[0]:
            yield from _explain(sub, missing)
    elif not aimed:
        types_: list[str] = []
        for subs in branches.values():
            for sub in subs:
                if sub.validator == "type" and not sub.relative_path:
                    expected = sub.validator_value
                    types_ += expected if isinstance(expected, list) else [expected]
        yield list(error.absolute_path), type_message(list(dict.fromkeys(types_)), error.instance)
    else:
        yield list(error.absolute_path), error.message


def _path(path: list[Any]) -> str:
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part.isidentifier():
            text += f".{part}" if text else part
        else:
            text += f"[{part!r}]"
    return text


# -- conversion ------------------------------------------------------------------------------------------


def convert_arguments(fn: Callable[..., Any], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments for `fn`: validated JSON values turned into what its type hints ask for.

    Enum members, dataclass and pydantic instances, tuples, sets, datetimes and UUIDs are built;
    defaults given by pydantic ``Field`` are filled in; anything else is passed through unchanged.
    """
    return argument_converter(fn)(arguments)


# Types whose JSON value already is the Python value: nothing to convert, so no per-call work.
_PLAIN = frozenset({str, bool, Any, type(None)})


def argument_converter(fn: Callable[..., Any]) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """`convert_arguments` for one function, with its signature and hints read once."""
    hints, _ = _hints(fn)
    namespace = _namespace(fn)
    convert: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    for param in inspect.signature(fn).parameters.values():
        tp = hints.get(param.name, Any)
        if tp not in _PLAIN:
            convert[param.name] = tp
        # Python does not know a default that only a pydantic Field declares, so it is passed explicitly.
        if (param.default is param.empty or _is_field_info(param.default)) and (
            default := _param_default(param, tp)
        ) is not _MISSING:
            defaults[param.name] = default

    def converter(arguments: Mapping[str, Any]) -> dict[str, Any]:
        kwargs = dict(arguments)
        for name, tp in convert.items():
            if name in kwargs:
                value = kwargs[name]
                if type(value) is tp and tp in (int, float):
                    continue  # already what the hint asks for: the common case, without the general walk
                kwargs[name] = _convert(tp, value, namespace)
        for name, default in defaults.items():
            kwargs.setdefault(name, default)
        return kwargs

    return converter


def convert_value(tp: Any, value: Any, namespace: dict[str, Any] | None = None) -> Any:
    """A validated JSON value turned into what the type hint `tp` asks for, as an argument of that type is."""
    return _convert(tp, value, namespace)


class _NoFit(ValueError):
    """The value cannot be of this type (so, in a union, try the next member)."""


def _fit(condition: bool) -> None:
    if not condition:
        raise _NoFit


def _convert(tp: Any, value: Any, ns: dict[str, Any] | None) -> Any:
    origin, args = get_origin(tp), get_args(tp)
    if origin is typing.Annotated or getattr(origin, "_name", None) in _QUALIFIERS:
        return _convert(args[0], value, ns)
    if isinstance(tp, typing.NewType):
        return _convert(tp.__supertype__, value, ns)
    if origin in (typing.Union, types.UnionType):
        for arg in args:
            try:
                return _convert(arg, value, ns)
            except (TypeError, ValueError):
                continue
        raise _NoFit
    if origin is typing.Literal:
        for arg in args:
            plain = arg.value if isinstance(arg, enum.Enum) else arg
            if plain == value and _json_kind(plain) == _json_kind(value):
                return arg
        raise _NoFit
    base = origin or tp
    if not isinstance(base, type):
        return value
    if issubclass(base, enum.Enum):
        return base(value)
    if base in (bool, str, type(None)):
        _fit(_json_kind(value) == _SCALARS[base]["type"])
    elif base in (int, float):
        _fit(_json_kind(value) in ("integer", "number"))
        return float(value) if base is float else _integer(value)
    elif base in _PARSERS:
        _fit(isinstance(value, str))
        return _PARSERS[base](value)
    elif base in _ARRAYS or base in _SETS or base is tuple:
        _fit(isinstance(value, list))
        if base is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return (
                tuple(_convert(arg, item, ns) for arg, item in zip(args, value, strict=False))
                if args
                else tuple(value)
            )
        items = [_convert(args[0], item, ns) for item in value] if args else list(value)
        if base is tuple or base is frozenset:
            return base(items)
        return set(items) if base in _SETS else items
    elif base in _MAPS:
        _fit(isinstance(value, dict))
        return {key: _convert(args[1], item, ns) for key, item in value.items()} if args else value
    elif _is_pydantic_model(base):
        return typing.cast(Any, base).model_validate(value)
    elif dataclasses.is_dataclass(base) or _is_typeddict(base):
        _fit(isinstance(value, dict))
        hints = _class_hints(base, ns)
        fields = {key: _convert(hints.get(key, Any), item, ns) for key, item in value.items()}
        return fields if _is_typeddict(base) else base(**fields)
    return value


def _integer(value: int | float) -> int:
    # JSON Schema counts 3.0 as an integer; the function should still get an int.
    _fit(isinstance(value, int) or value.is_integer())
    return int(value)
