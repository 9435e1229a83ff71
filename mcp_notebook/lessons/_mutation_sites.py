"""Where in a model answer a mutant may change something, and what a change there needs to know.

A `Survey` of an answer knows, for each node worth changing, its `Place`: the served function itself,
its decorator, a parameter's annotation or default, its body (and whether the node is part of a
returned or a compared value), or the module's data. It also knows what a change needs from the rest
of the answer: the classes it defines (TypedDicts whose fields can be dropped), which names are the
notebook's state (a write to one is a state write), which names hold a person's answer to
``ctx.elicit``, and the answer's short strings (what a changed string becomes).
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Literal

SERVING = frozenset({"tool", "resource", "prompt"})
"""The decorators that serve a function: what an answer to a code exercise defines."""

MUTATING = frozenset(
    {
        "append",
        "extend",
        "insert",
        "add",
        "update",
        "setdefault",
        "pop",
        "popitem",
        "remove",
        "discard",
        "clear",
    }
)
"""Methods that change the object they are called on."""

SHORT = 20
"""A string this long or shorter, without spaces, is a word or a key: another one can stand for it."""

_PLACEHOLDERS = {"int": 1, "float": 1.0, "str": "", "bool": True}
"""What stands for a person's answer, by the type the form asked for."""

Part = Literal["function", "decorator", "annotation", "default", "body", "data"]


@dataclass(frozen=True)
class Place:
    """Where a node is: which `part` of the answer, in which served `function`, and whether it is part
    of a value the function returns (or assigns to a name it returns) or compares."""

    part: Part
    function: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    returned: bool = False
    compared: bool = False


class Survey:
    """The places of an answer's nodes (`places`, by ``id``) and what its changes need to know."""

    def __init__(self, tree: ast.Module, given: str = "") -> None:
        self.places: dict[int, Place] = {}
        self.parents = {
            id(child): parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)
        }
        self.classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
        self._locals: dict[int, set[str]] = {}
        self._globals: dict[int, set[str]] = {}
        self._answers: dict[str, dict[str, str]] = {}
        self._specs = {
            id(part)
            for node in ast.walk(tree)
            if isinstance(node, ast.FormattedValue) and node.format_spec is not None
            for part in ast.walk(node.format_spec)
        }
        served = served_functions(tree)
        for statement in tree.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and statement in served:
                self._survey_function(statement)
            elif isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
                self._mark(statement.value, Place("data"))
        self._strings = _short_strings(tree, given)
        self._literals = [
            [v.value for v in node.slice.elts if isinstance(v, ast.Constant) and isinstance(v.value, str)]
            for node in ast.walk(tree)
            if isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == "Literal"
            and isinstance(node.slice, ast.Tuple)
        ]

    def _survey_function(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.places[id(function)] = Place("function", function)
        for decorator in function.decorator_list:
            self._mark(decorator, Place("decorator", function))
        arguments = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
        for argument in arguments:
            if argument.annotation is not None:
                self._mark(argument.annotation, Place("annotation", function))
        for default in [*function.args.defaults, *function.args.kw_defaults]:
            if default is not None:
                self._mark(default, Place("default", function))
        declared = {n for node in ast.walk(function) if isinstance(node, ast.Global) for n in node.names}
        stored = {
            n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        self._locals[id(function)] = ({a.arg for a in arguments} | stored) - declared
        self._globals[id(function)] = declared
        returned = {
            name.id
            for node in ast.walk(function)
            if isinstance(node, ast.Return) and node.value is not None
            for name in ast.walk(node.value)
            if isinstance(name, ast.Name)
        }
        body = function.body[1:] if has_docstring(function) else function.body
        for statement in body:
            self._mark(statement, Place("body", function), returned)
            self._note_elicitation(statement)

    def _mark(self, node: ast.AST, place: Place, returned: AbstractSet[str] = frozenset()) -> None:
        self.places[id(node)] = place
        feeds = isinstance(node, ast.Assign | ast.AnnAssign) and any(
            root(target) in returned for target in _targets(node)
        )
        inner = dataclasses.replace(
            place,
            returned=place.returned or feeds or isinstance(node, ast.Return | ast.Yield),
            compared=place.compared or isinstance(node, ast.Compare),
        )
        for child in ast.iter_child_nodes(node):
            self._mark(child, inner, returned)

    def _note_elicitation(self, statement: ast.stmt) -> None:
        for node in ast.walk(statement):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                continue
            call = node.value.value if isinstance(node.value, ast.Await) else node.value
            target = node.targets[0]
            if isinstance(target, ast.Name) and isinstance(call, ast.Call) and _method(call) == "elicit":
                form = call.args[1] if len(call.args) > 1 else None
                fields = {}
                if isinstance(form, ast.Dict):
                    for key, value in zip(form.keys, form.values, strict=True):
                        if isinstance(key, ast.Constant) and isinstance(value, ast.Name):
                            fields[str(key.value)] = value.id
                self._answers[target.id] = fields

    # -- what the operators ask ---------------------------------------------------------------------
    def is_sign_operand(self, node: ast.AST) -> bool:
        """Whether `node` is the number under a minus sign (the signed number is changed instead)."""
        parent = self.parents.get(id(node))
        return isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub)

    def in_format_spec(self, node: ast.AST) -> bool:
        return id(node) in self._specs

    def other_string(self, node: ast.Constant) -> str:
        """What a changed string becomes: for a word or a key, the answer's short string nearest in
        length (then in order after it); for a sentence or a piece of an f-string, nothing."""
        value = str(node.value)
        if not value:
            return "?"
        others = [s for s in self._strings if s != value]
        part = isinstance(self.parents.get(id(node)), ast.JoinedStr)
        if part or len(value) > SHORT or any(c.isspace() for c in value) or not others:
            return ""
        for group in self._literals:  # "C" of Literal["C", "F"] becomes "F"
            if value in group and len(group) > 1:
                return group[(group.index(value) + 1) % len(group)]
        pool = self._strings
        at = pool.index(value) if value in pool else 0
        return min(others, key=lambda s: (abs(len(s) - len(value)), (pool.index(s) - at) % len(pool)))

    def state_write(self, node: ast.AST) -> Literal["statement", "expression"] | None:
        """Whether `node` writes the notebook's state: a statement to remove, or a call in an
        expression (``return LEDGER.setdefault(k, v)``) whose write a ``.get`` skips."""
        place = self.places.get(id(node))
        if place is None or place.function is None:
            return None
        local = self._locals[id(place.function)]
        declared = self._globals[id(place.function)]
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and _method(node.value) in MUTATING
            and _outside(node.value.func.value, local)  # type: ignore[attr-defined]
        ):
            return "statement"
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            for target in _targets(node):
                if isinstance(target, ast.Subscript | ast.Attribute) and _outside(target, local):
                    return "statement"
                if isinstance(target, ast.Name) and target.id in declared:
                    return "statement"
        if (
            isinstance(node, ast.Call)
            and _method(node) in ("setdefault", "pop")
            and _outside(node.func.value, local)  # type: ignore[attr-defined]
            and not isinstance(self.parents.get(id(node)), ast.Expr)
        ):
            return "expression"
        return None

    def elicited_value(self, node: ast.AST) -> tuple[Any] | None:
        """A constant for a value read from a person's answer (``answer.get("people")``,
        ``answer["people"]``), in a 1-tuple; None when `node` reads none."""
        base: ast.AST | None = None
        key: ast.AST | None = None
        if isinstance(node, ast.Call) and _method(node) == "get" and node.args:
            base, key = node.func.value, node.args[0]  # type: ignore[attr-defined]
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            base, key = node.value, node.slice
            if isinstance(base, ast.Attribute) and base.attr in ("content", "data"):
                base = base.value
        if not (isinstance(base, ast.Name) and base.id in self._answers):
            return None
        wanted = self._answers[base.id].get(str(key.value) if isinstance(key, ast.Constant) else "")
        return (_PLACEHOLDERS.get(wanted or ""),)

    def tests_elicited_answer(self, test: ast.AST) -> bool:
        """Whether an ``if`` test looks at how the person answered (``answer.accepted``)."""
        return any(
            isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in self._answers
            for n in ast.walk(test)
        )


# -- reading an answer ------------------------------------------------------------------------------
def served_functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The module's functions decorated with ``@tool``, ``@resource`` or ``@prompt``."""
    return [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(map(is_served, node.decorator_list))
    ]


def is_served(decorator: ast.AST) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
    return name in SERVING


def replace(root: ast.AST, old: ast.AST, new: ast.AST) -> None:
    """Put `new` where `old` is under `root`."""
    for parent in ast.walk(root):
        for name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, name, new)
                return
            if isinstance(value, list) and any(item is old for item in value):
                value[next(i for i, item in enumerate(value) if item is old)] = new
                return


def root(node: ast.AST) -> str | None:
    """The name an attribute or item is taken from (``LEDGER`` of ``LEDGER[k].x``)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _outside(node: ast.AST, local: set[str]) -> bool:
    name = root(node)
    return name is not None and name not in local


def _method(call: ast.Call) -> str | None:
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    return [node.target] if isinstance(node, ast.AnnAssign | ast.AugAssign) else []


def has_docstring(node: ast.AST) -> bool:
    body = getattr(node, "body", None) or [None]
    first = body[0]
    return (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )


def _short_strings(tree: ast.Module, given: str) -> list[str]:
    """The answer's words and keys (then the given code's), in order: what a changed one becomes."""
    trees = [tree]
    with contextlib.suppress(SyntaxError):  # a cell with IPython syntax: its strings are not needed
        trees.append(ast.parse(given))
    found: dict[str, None] = {}
    for module in trees:
        # Docstrings and the pieces of f-strings are sentences, not words a learner swaps.
        skipped = {
            id(node.body[0].value)  # type: ignore[attr-defined]
            for node in ast.walk(module)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and has_docstring(node)
        }
        skipped |= {
            id(part) for node in ast.walk(module) if isinstance(node, ast.JoinedStr) for part in node.values
        }
        constants = [
            node
            for node in ast.walk(module)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped
        ]
        for node in sorted(constants, key=lambda n: (n.lineno, n.col_offset)):
            value = str(node.value)
            if 0 < len(value) <= SHORT and not any(c.isspace() for c in value):
                found.setdefault(value)
    return list(found)
