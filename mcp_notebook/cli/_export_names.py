"""Which module-level names a piece of notebook code defines, and which it reads from elsewhere.

The scopes are Python's own (`symtable`): a function's parameters and locals, comprehension
variables, ``with ... as``, walrus targets and ``except ... as`` names are local where Python
makes them local, ``global``/``nonlocal`` declarations are followed, and a name read inside a
function body counts as much as one read at the top level (it fails later, at call time, which is
worse). Attributes (``x.MODEL``) are never names.
"""

from __future__ import annotations

import ast
import builtins
import symtable
from dataclasses import dataclass

# Defined in every module, and by what `export` appends to the notebook's code.
MODULE_NAMES = frozenset(
    set(dir(builtins))
    | {"__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__", "__package__"}
    | {"__annotations__", "app", "_asgi_app"}
)


@dataclass(frozen=True)
class Names:
    """What one statement (or cell) binds at module level, and the global names it reads."""

    defines: frozenset[str]
    reads: frozenset[str]
    star: bool  # `from x import *`: it may define anything


def names_of(statement: ast.stmt) -> Names:
    """The module-level names `statement` binds and the global names it (or any body in it) reads."""
    if isinstance(statement, ast.ImportFrom) and any(alias.name == "*" for alias in statement.names):
        return Names(frozenset(), frozenset(), star=True)
    # From the statement's own text: symtable reads source, and a cell's transformed magics make it
    # differ from what the user wrote, so the AST is the one form both sides agree on.
    table = symtable.symtable(ast.unparse(statement), "<cell>", "exec")
    defines: set[str] = set()
    reads: set[str] = set()
    for symbol in table.get_symbols():
        if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace():
            defines.add(symbol.get_name())
        if symbol.is_referenced():
            reads.add(symbol.get_name())
    pending = list(table.get_children())
    while pending:
        scope = pending.pop()
        pending += scope.get_children()
        for symbol in scope.get_symbols():
            if not symbol.is_global():
                continue
            if symbol.is_declared_global() and symbol.is_assigned():
                defines.add(symbol.get_name())  # `global X; X = ...` in a function
            if symbol.is_referenced():
                reads.add(symbol.get_name())
    return Names(frozenset(defines), frozenset(reads - MODULE_NAMES), star=False)


def first_use(tree: ast.AST, name: str) -> int:
    """The line where `tree` first reads `name` (1 if it cannot be told)."""
    lines = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
    ]
    return min(lines, default=getattr(tree, "lineno", 1))
