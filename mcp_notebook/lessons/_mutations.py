"""Wrong variants of a model answer, one change each: the mutants that measure a lesson's checker.

`mutants` parses a model answer with `ast`, surveys where a change may go (what the answer serves
and the module's data, `mcp_notebook.lessons._mutation_sites`) and applies every change of every
operator (`mcp_notebook.lessons._mutation_operators`) to a copy, one at a time. Variants with the
same source are kept once; each says whether it compiles to the model answer's own code (trivial
compiler equivalence: positions aside, the same code objects). `spread` caps them, keeping every
kind of mistake.
"""

from __future__ import annotations

import ast
import copy
import difflib
from dataclasses import dataclass, field
from typing import Any

from ._mutation_operators import OPERATORS, Example, Make, changes
from ._mutation_sites import Survey, is_served, replace, served_functions

__all__ = ["OPERATORS", "Example", "Mutant", "mutants", "serves", "spread"]


@dataclass(frozen=True)
class Mutant:
    """One variant of a model answer: its operator, the line changed, the whole source, the change
    in a line, and whether it compiles to the model answer's code."""

    operator: str
    line: int
    source: str
    diff: str
    equivalent: bool = False
    site: int = field(default=0, compare=False)


def serves(source: str) -> bool:
    """Whether `source` defines a function with ``@tool``, ``@resource`` or ``@prompt``."""
    try:
        return bool(served_functions(ast.parse(source)))
    except SyntaxError:
        return False


def mutants(source: str, *, given: str = "", example: Example | None = None) -> list[Mutant]:
    """Every distinct one-change variant of the model answer `source`, by operator, in source order.

    Parameters
    ----------
    given:
        The code the notebook runs before the answer: its short strings are candidates too (a
        station's ``"kids"`` for its ``"bikes"``).
    example:
        The first teaching example and the model's output there, for ``hard_coded``.
    """
    tree = ast.parse(source)
    survey = Survey(tree, given)
    original = ast.unparse(tree)
    model = _code(tree)
    seen = {original}
    found: list[Mutant] = []
    for index, node in enumerate(ast.walk(tree)):
        place = survey.places.get(id(node))
        if place is None:
            continue
        for operator, make in changes(node, place, survey, example):
            changed = _apply(tree, index, make)
            text = ast.unparse(changed)
            if text in seen:
                continue
            seen.add(text)
            try:
                code = _code(changed)
            except (SyntaxError, ValueError):
                continue  # not Python any more: no learner writes it
            line = getattr(node, "lineno", 0)
            if operator == "decorator":  # the decorator's line, not the def's
                line = min(d.lineno for d in node.decorator_list if is_served(d))  # type: ignore[attr-defined]
            found.append(Mutant(operator, line, text, _diff(original, text), code == model, index))
    return sorted(found, key=lambda m: (OPERATORS.index(m.operator), m.line))


def spread(found: list[Mutant], limit: int) -> list[Mutant]:
    """At most `limit` of `found`: one of each operator in turn, and within one operator one of each
    place in turn, so that a cap keeps every kind of mistake; the same answer gives the same choice."""
    queues: dict[str, list[Mutant]] = {}
    for operator in OPERATORS:
        by_site: dict[int, list[Mutant]] = {}
        for mutant in found:
            if mutant.operator == operator:
                by_site.setdefault(mutant.site, []).append(mutant)
        rounds = max((len(group) for group in by_site.values()), default=0)
        queues[operator] = [g[i] for i in range(rounds) for g in by_site.values() if i < len(g)]
    chosen: list[Mutant] = []
    while len(chosen) < limit and any(queues.values()):
        for queue in queues.values():
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return sorted(chosen, key=lambda m: (OPERATORS.index(m.operator), m.line))


def _apply(tree: ast.Module, index: int, make: Make) -> ast.Module:
    """A copy of `tree` whose `index`-th node (in `ast.walk` order) `make` has changed."""
    changed = copy.deepcopy(tree)
    target = list(ast.walk(changed))[index]
    new = make(target)
    if new is not target:
        replace(changed, target, new)
    return ast.fix_missing_locations(changed)


def _code(tree: ast.Module) -> Any:
    """`tree` compiled with every position the same: code objects compare equal when only the layout
    differs (a removed ``else: pass`` moves the lines below it)."""
    flat = copy.deepcopy(tree)
    for node in ast.walk(flat):
        if isinstance(node, ast.expr | ast.stmt | ast.arg | ast.keyword | ast.excepthandler):
            node.lineno = node.end_lineno = 1
            node.col_offset = node.end_col_offset = 0
    return compile(flat, "<answer>", "exec")


def _diff(before: str, after: str, context: int = 24) -> str:
    """The change between two sources in one line: the first lines that differ, cut to the change."""
    old, new = before.splitlines(), after.splitlines()
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    tag = next(op for op in matcher.get_opcodes() if op[0] != "equal")
    a = " ⏎ ".join(line.strip() for line in old[tag[1] : tag[2]])
    b = " ⏎ ".join(line.strip() for line in new[tag[3] : tag[4]])
    start = _common(a, b)
    end = _common(a[start:][::-1], b[start:][::-1])
    begin = max(0, start - context)
    return f"{_cut(a, begin, len(a) - end + context)} → {_cut(b, begin, len(b) - end + context)}"


def _common(a: str, b: str) -> int:
    """How many characters `a` and `b` begin with alike."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def _cut(text: str, begin: int, stop: int, most: int = 100) -> str:
    part = text[begin:stop]
    if len(part) > most:
        part = part[: most - 1] + "…"
    return ("…" if begin > 0 else "") + part + ("…" if stop < len(text) and len(part) < most else "")
