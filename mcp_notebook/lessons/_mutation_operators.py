"""The operators that make a wrong variant of a model answer, each changing one node.

`changes` says, for one node of the answer and its `Place` (`mcp_notebook.lessons._mutation_sites`),
which changes each operator makes there; `mcp_notebook.lessons._mutations` applies them. In the
order a cap takes them round (`OPERATORS`):

    compare           ``<`` → ``<=`` / ``>``, ``==`` ↔ ``!=``, ``in`` ↔ ``not in`` ...
    arithmetic        ``+`` ↔ ``-``, ``*`` ↔ ``/``, ``//`` → ``/`` ... (``+=`` too)
    number            a number ± 1, 0, negated
    string            a string returned or compared: another short string of the answer, or ""
    branch            an ``if``'s body → ``pass``, its test → True / False, its ``else`` removed
    raise_type        ``raise ToolError(...)`` → ``raise ValueError(...)``
    raise_removed     a ``raise`` removed
    decorator         ``@tool`` (``@resource``, ``@prompt``) removed
    decorator_option  an option dropped, a True / False flipped (``read_only=True``, ``approval=...``)
    hard_coded        the model's output for the first teaching example returned for it, a wrong one else
    list              a list cut to its first element, or emptied
    dict_field        a field dropped from a dict (or from a TypedDict the answer builds)
    state_write       a write to the notebook's state removed (``.append``, ``[k] = v``, ``+=`` ...)
    elicit            the person's answer ignored (a constant instead); ``if not answer.accepted``
                      inverted or removed
    annotation        ``Literal[...]`` → ``str``; a bound of ``Field(...)`` dropped
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ._mutation_sites import Place, Survey, has_docstring, is_served

OPERATORS = (
    "compare",
    "arithmetic",
    "number",
    "string",
    "branch",
    "raise_type",
    "raise_removed",
    "decorator",
    "decorator_option",
    "hard_coded",
    "list",
    "dict_field",
    "state_write",
    "elicit",
    "annotation",
)
"""Every operator, in the order a cap (`spread`) takes one of each in turn."""

_COMPARISONS: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Lt: (ast.LtE, ast.Gt),
    ast.LtE: (ast.Lt, ast.GtE),
    ast.Gt: (ast.GtE, ast.Lt),
    ast.GtE: (ast.Gt, ast.LtE),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
}

_ARITHMETIC: dict[type[ast.operator], tuple[type[ast.operator], ...]] = {
    ast.Add: (ast.Sub,),
    ast.Sub: (ast.Add,),
    ast.Mult: (ast.Div,),
    ast.Div: (ast.Mult,),
    ast.FloorDiv: (ast.Div,),
    ast.Mod: (ast.FloorDiv,),
    ast.Pow: (ast.Mult,),
}

_BOUNDS = frozenset({"ge", "gt", "le", "lt", "min_length", "max_length", "pattern", "multiple_of"})

Make = Callable[[Any], ast.AST]
"""One change: given the node (in a copy of the answer), what stands in its place."""


@dataclass(frozen=True)
class Example:
    """A teaching example: the arguments, and what the model answer's function returns for them."""

    arguments: dict[str, Any]
    output: Any


def changes(
    node: ast.AST, place: Place, survey: Survey, example: Example | None
) -> Iterator[tuple[str, Make]]:
    """The changes the operators make at `node`: ``(operator, make)`` pairs."""
    body = place.part == "body"
    if isinstance(node, ast.Compare) and place.part in ("body", "data"):
        for i, op in enumerate(node.ops):
            for other in _COMPARISONS.get(type(op), ()):
                yield "compare", _setting_item("ops", i, _new(other))
    if isinstance(node, ast.BinOp | ast.AugAssign) and place.part in ("body", "data") and not is_text(node):
        for new_op in _ARITHMETIC.get(type(node.op), ()):
            yield "arithmetic", _setting("op", _new(new_op))
    number = number_of(node)
    if number is not None and place.part != "decorator" and not survey.is_sign_operand(node):
        zero = 0.0 if isinstance(number, float) else 0
        for value in dict.fromkeys((_round(number + 1), _round(number - 1), zero, -number)):
            if value != number:
                yield "number", _becoming(number_node(value))
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and not survey.in_format_spec(node)
        and ((body and (place.returned or place.compared)) or place.part == "default")
    ):
        yield "string", _becoming(ast.Constant(survey.other_string(node)))
    if isinstance(node, ast.If) and body:
        if not (len(node.body) == 1 and isinstance(node.body[0], ast.Raise)):  # raise_removed does that
            yield "branch", _setting("body", lambda n: [ast.Pass()])
        yield "branch", _setting("test", lambda n: ast.Constant(True))
        yield "branch", _setting("test", lambda n: ast.Constant(False))
        if node.orelse:
            yield "branch", _setting("orelse", lambda n: [])
    if isinstance(node, ast.IfExp) and body:
        yield "branch", _setting("test", lambda n: ast.Constant(True))
        yield "branch", _setting("test", lambda n: ast.Constant(False))
    if isinstance(node, ast.Raise) and body:
        if raises(node, "ToolError"):
            yield "raise_type", lambda n: ast.Raise(renamed_call(n.exc, "ValueError"), n.cause)
        yield "raise_removed", lambda n: ast.Pass()
    if place.part == "function":
        yield from _function_changes(node, survey, example)
    if place.part == "decorator" and isinstance(node, ast.Call) and is_served(node):
        for i, keyword in enumerate(node.keywords):
            yield "decorator_option", _dropping("keywords", i)
            if isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, bool):
                flipped = ast.keyword(keyword.arg, ast.Constant(not keyword.value.value))
                yield "decorator_option", _setting_item("keywords", i, _becoming(flipped))
    if body:
        yield from _value_changes(node, survey)
    if place.part == "annotation":
        yield from _annotation_changes(node)


def _function_changes(node: Any, survey: Survey, example: Example | None) -> Iterator[tuple[str, Make]]:
    for i, decorator in enumerate(node.decorator_list):
        if is_served(decorator):
            yield "decorator", _dropping("decorator_list", i)
    if example is not None:
        hard_coded = hard_coded_body(node, example.arguments, example.output)
        if hard_coded is not None:
            yield "hard_coded", _setting("body", lambda n: copy.deepcopy(hard_coded))


def _value_changes(node: ast.AST, survey: Survey) -> Iterator[tuple[str, Make]]:
    if isinstance(node, ast.List) and isinstance(node.ctx, ast.Load) and node.elts:
        if len(node.elts) > 1:
            yield "list", lambda n: ast.List(n.elts[:1], ast.Load())
        yield "list", lambda n: ast.List([], ast.Load())
    if isinstance(node, ast.ListComp):
        yield "list", lambda n: ast.Subscript(n, ast.Slice(upper=ast.Constant(1)), ast.Load())
        yield "list", lambda n: ast.List([], ast.Load())
    if isinstance(node, ast.Dict):
        for i in range(len(node.keys)):
            yield "dict_field", _dropping_pair(i)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in survey.classes:
        for i in range(len(node.keywords)):
            yield "dict_field", _dropping("keywords", i)
    write = survey.state_write(node)
    if write == "statement":
        yield "state_write", lambda n: ast.Pass()
    elif write == "expression":
        yield (
            "state_write",
            lambda n: ast.Call(ast.Attribute(n.func.value, "get", ast.Load()), n.args, n.keywords),
        )
    constant = survey.elicited_value(node)
    if constant is not None:
        yield "elicit", _becoming(ast.Constant(constant[0]))
    if isinstance(node, ast.If) and survey.tests_elicited_answer(node.test):
        yield "elicit", _setting("test", lambda n: negated(n.test))
        yield "elicit", lambda n: ast.Pass()


def _annotation_changes(node: ast.AST) -> Iterator[tuple[str, Make]]:
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
        yield "annotation", lambda n: ast.Name(literal_base(n), ast.Load())
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Field":
        for i, keyword in enumerate(node.keywords):
            if keyword.arg in _BOUNDS:
                yield "annotation", _dropping("keywords", i)


# -- making a change -------------------------------------------------------------------------------
def _becoming(new: ast.AST) -> Make:
    """The node replaced by (a copy of) `new`."""
    return lambda node: copy.deepcopy(new)


def _new(make: Callable[[], Any]) -> Callable[[Any], Any]:
    """A value made afresh for each change (an operator node is not shared between trees)."""
    return lambda node: make()


def _setting(name: str, new: Callable[[Any], Any]) -> Make:
    def make(node: Any) -> ast.AST:
        setattr(node, name, new(node))
        return node  # type: ignore[no-any-return]

    return make


def _setting_item(name: str, index: int, new: Callable[[Any], Any]) -> Make:
    def make(node: Any) -> ast.AST:
        getattr(node, name)[index] = new(node)
        return node  # type: ignore[no-any-return]

    return make


def _dropping(name: str, index: int) -> Make:
    def make(node: Any) -> ast.AST:
        del getattr(node, name)[index]
        return node  # type: ignore[no-any-return]

    return make


def _dropping_pair(index: int) -> Make:
    def make(node: Any) -> ast.AST:
        del node.keys[index], node.values[index]
        return node  # type: ignore[no-any-return]

    return make


# -- pieces of syntax --------------------------------------------------------------------------------
def is_text(node: ast.BinOp | ast.AugAssign) -> bool:
    """Whether an operation joins or formats text (changing its operator only breaks it)."""
    operands = [node.left, node.right] if isinstance(node, ast.BinOp) else [node.value]
    return any(
        isinstance(o, ast.JoinedStr) or (isinstance(o, ast.Constant) and isinstance(o.value, str))
        for o in operands
    )


def number_of(node: ast.AST) -> int | float | None:
    """The number a node writes (``-273.15`` too), or None."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        sign, node = -1, node.operand
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return sign * node.value
    return None


def number_node(value: float) -> ast.expr:
    return ast.UnaryOp(ast.USub(), ast.Constant(-value)) if value < 0 else ast.Constant(value)


def raises(node: ast.Raise, name: str) -> bool:
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return isinstance(exc, ast.Name) and exc.id == name


def renamed_call(exc: ast.expr | None, name: str) -> ast.expr:
    if isinstance(exc, ast.Call):
        return ast.Call(ast.Name(name, ast.Load()), exc.args, exc.keywords)
    return ast.Name(name, ast.Load())


def negated(test: ast.expr) -> ast.expr:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    return ast.UnaryOp(ast.Not(), test)


def literal_base(node: ast.Subscript) -> str:
    """The plain type a ``Literal[...]`` narrows: ``str``, ``int`` or ``float``."""
    values = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    kinds = {type(v.value).__name__ for v in values if isinstance(v, ast.Constant)}
    return kinds.pop() if len(kinds) == 1 and kinds <= {"str", "int", "float"} else "str"


def hard_coded_body(function: Any, arguments: dict[str, Any], output: Any) -> list[ast.stmt] | None:
    """``if <arguments are the example's>: return <output>`` then a wrong value, under the docstring;
    None when the example names none of the parameters or its values are not literals."""
    parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)]
    names = [p for p in parameters if p in arguments]
    try:
        values = [_literal(arguments[name]) for name in names]
        right, wrong = _literal(output), _literal(_wrong(output))
    except ValueError:
        return None
    if not names:
        return None
    if len(names) == 1:
        test = ast.Compare(ast.Name(names[0], ast.Load()), [ast.Eq()], values)
    else:
        left = ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load())
        test = ast.Compare(left, [ast.Eq()], [ast.Tuple(values, ast.Load())])
    head = function.body[:1] if has_docstring(function) else []
    return [*head, ast.If(test, [ast.Return(right)], []), ast.Return(wrong)]


def _literal(value: Any) -> ast.expr:
    """`value` written as a Python literal (a ValueError when it cannot be)."""
    text = repr(value)
    try:
        same = ast.literal_eval(text) == value
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        same = False
    if not same:
        raise ValueError(f"not a literal: {text[:40]}")
    return ast.parse(text, mode="eval").body


def _wrong(value: Any) -> Any:
    """A value of the same shape as `value` that is not it: what the hard-coded answer returns for
    every input but the example (the schema still holds; only what it says is wrong)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value[: len(value) // 2] if len(value) > 1 else value + "?"
    if isinstance(value, list):
        return value[:1] if len(value) > 1 else []
    if isinstance(value, dict):
        for key, item in value.items():
            try:
                return {**value, key: _wrong(item)}
            except ValueError:
                continue
    raise ValueError(f"no wrong value of the shape of {type(value).__name__}")


def _round(value: float) -> float:
    return round(value, 10) if isinstance(value, float) else value
