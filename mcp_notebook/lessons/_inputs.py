"""Inputs for judging a tool by what it does: its teaching examples, the edges of its input schema,
and arguments drawn from the schema with hypothesis.

The edges are boundary-value analysis, one parameter at a time from a valid base call: every allowed
value of an enum and a near miss of one, each bound and one step past it, zero, negatives, the
empty string, text in other scripts, each parameter left out, a value of the wrong type, and the
numbers and strings the code itself compares against (a bound written in the function body, such as
absolute zero, is an edge too). The draws then combine parameters at random, mostly valid values,
sometimes just outside. Both come from every schema given: the model answer's and the learner's,
so a learner's range that is stricter than the task's is probed at its own edge.

A draw is reproducible from its seed (`mcp_notebook.lessons._judge.check_seed`).
"""

from __future__ import annotations

import ast
import json
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..core._idempotency import KEY_PARAMETER

TEXTS = ("민지", "Zoë 🚲", "a b", "x" * 40)
"""Strings every text parameter is tried with: Hangul, other scripts and an emoji, a space, a long one."""

MAX_EDGES = 80
"""At most this many edge inputs (the first ones: enums and bounds come before the rest)."""


def properties(schemas: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each parameter's schemas, from every input schema that has it (in order of first appearance)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for schema in schemas:
        for name, prop in (schema.get("properties") or {}).items():
            found.setdefault(name, []).append(_plain(prop))
    return found


def _plain(prop: Mapping[str, Any]) -> dict[str, Any]:
    """A parameter's schema without the ``anyOf: [X, null]`` wrapper of an optional value."""
    options = prop.get("anyOf") or prop.get("oneOf")
    if options:
        kept = [o for o in options if o.get("type") != "null"]
        if len(kept) == 1:
            return {**{k: v for k, v in prop.items() if k not in ("anyOf", "oneOf")}, **kept[0]}
    return dict(prop)


def _type(prop: Mapping[str, Any]) -> str:
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind is None and "enum" in prop:
        values = prop["enum"]
        kind = "string" if all(isinstance(v, str) for v in values) else "number"
    return str(kind or "string")


def mined_constants(sources: Iterable[str]) -> tuple[list[float], list[str]]:
    """The numbers and short strings the code compares against or computes with: a bound written in
    a function body (``value < -273.15``) is an edge of what the tool does."""
    numbers: list[float] = []
    strings: list[str] = []
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
                operand = node.operand
                value = operand.value if isinstance(operand, ast.Constant) else None
                if isinstance(value, int | float) and _is_number(value):
                    numbers.append(-float(value))
            elif isinstance(node, ast.Constant):
                if isinstance(node.value, int | float) and _is_number(node.value):
                    numbers.append(float(node.value))
                elif isinstance(node.value, str) and 0 < len(node.value) <= 20 and "\n" not in node.value:
                    strings.append(node.value)
    return _unique(numbers), _unique(strings)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _unique(values: Iterable[Any]) -> list[Any]:
    seen: set[str] = set()
    kept = []
    for value in values:
        key = json.dumps(value, sort_keys=True, ensure_ascii=False)
        if key not in seen:
            seen.add(key)
            kept.append(value)
    return kept


def _near(value: float) -> float:
    """`value` without the float noise of a step (``-273.15 - 0.01`` is ``-273.16``, not ``-273.15999...``)."""
    return round(value, 6)


def _bounds(prop: Mapping[str, Any]) -> tuple[float | None, float | None]:
    low = prop.get("minimum", prop.get("exclusiveMinimum"))
    high = prop.get("maximum", prop.get("exclusiveMaximum"))
    return low, high


def edge_values(
    prop: Mapping[str, Any], numbers: Sequence[float], strings: Sequence[str], pool: Sequence[Any]
) -> list[Any]:
    """The values worth trying for one parameter, valid and just invalid (see the module docstring)."""
    kind = _type(prop)
    values: list[Any] = list(pool)
    if "enum" in prop:
        allowed = list(prop["enum"])
        values += allowed
        texts = [v for v in allowed if isinstance(v, str)]
        if texts:
            near = texts[0].swapcase() if texts[0].swapcase() != texts[0] else texts[0] + "x"
            values += [near, ""]
        return values
    if kind in ("integer", "number"):
        step = 1 if kind == "integer" else 0.01
        low, high = _bounds(prop)
        for bound in (low, high):
            if bound is not None:
                values += [_near(bound - step), bound, _near(bound + step)]
        for number in numbers:
            if kind == "integer" and number != int(number):
                continue
            values += [_near(number - step), number, _near(number + step)]
        values += [0, 1, -1, 10**6, -(10**6)]
        if kind == "number":
            values += [0.5, -0.5]
        values.append("12")  # a number written as text: the schema, not the body, should refuse it
        return [int(v) if kind == "integer" and isinstance(v, float) and v == int(v) else v for v in values]
    if kind == "boolean":
        return [*values, True, False, "yes"]
    if kind == "array":
        return [*values, [], None]
    if kind == "object":
        return [*values, {}]
    values += [s for s in strings if s not in values]
    values += ["", *TEXTS, 42]
    for length in (prop.get("minLength"), prop.get("maxLength")):
        if isinstance(length, int):
            values += ["x" * max(0, length - 1), "x" * length, "x" * (length + 1)]
    return values


def _bound_values(props: Sequence[Mapping[str, Any]]) -> list[Any]:
    """A number's schema bounds and one step past each (from every schema that has the parameter)."""
    values: list[Any] = []
    for prop in props:
        kind = _type(prop)
        if kind not in ("integer", "number") or "enum" in prop:
            continue
        step = 1 if kind == "integer" else 0.01
        for bound in _bounds(prop):
            if bound is not None:
                values += [_near(bound - step), bound, _near(bound + step)]
    return _unique(values)


def pairs(schemas: Sequence[Mapping[str, Any]], base: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Calls that put two bounded numbers at their edges together (start 17 with one hour is valid,
    start 17 with two is not): a rule over two parameters shows only where both are at an edge."""
    bounded = {
        name: values for name, props in properties(schemas).items() if (values := _bound_values(props))
    }
    found: list[dict[str, Any]] = []
    names = sorted(bounded)
    for index, first in enumerate(names):
        for second in names[index + 1 :]:
            found += [{**base, first: a, second: b} for a in bounded[first] for b in bounded[second]]
    return _unique(found)[:MAX_EDGES]


def edges(
    schemas: Sequence[Mapping[str, Any]],
    base: Mapping[str, Any],
    *,
    sources: Iterable[str] = (),
    pools: Mapping[str, Sequence[Any]] | None = None,
) -> list[dict[str, Any]]:
    """Calls that each change one parameter of `base` to one of its edge values, or leave it out."""
    pools = pools or {}
    numbers, strings = mined_constants(sources)
    found: list[dict[str, Any]] = []
    for name, props in properties(schemas).items():
        if name == KEY_PARAMETER:
            continue  # keys are the scenario's to choose: a fresh one per booking
        values: list[Any] = []
        for prop in props:
            values += edge_values(prop, numbers, strings, pools.get(name, ()))
        for value in _unique(values):
            found.append({**base, name: value})
        if name in base:
            found.append({key: value for key, value in base.items() if key != name})
    return _unique(found)[:MAX_EDGES]


# -- draws with hypothesis ------------------------------------------------------------------------------


def _strategy(
    props: Sequence[Mapping[str, Any]], numbers: Sequence[float], strings: Sequence[str], pool: Sequence[Any]
) -> Any:
    from hypothesis import strategies as st

    options: list[Any] = []
    for prop in props:
        kind = _type(prop)
        if "enum" in prop:
            options.append(st.sampled_from(list(prop["enum"])))
            continue
        if kind in ("integer", "number"):
            low, high = _bounds(prop)
            marks = [*numbers, *(b for b in (low, high) if b is not None)]
            lo = (min(marks) if marks else -50) - 20
            hi = (max(marks) if marks else 50) + 20
            if kind == "integer":
                options.append(st.integers(math.floor(lo), math.ceil(hi)))
            else:
                options.append(
                    st.floats(lo, hi, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 2))
                )
                options.append(st.integers(math.floor(lo), math.ceil(hi)))
            if marks:
                step = 1 if kind == "integer" else 0.01
                around = [value for mark in marks for value in (_near(mark - step), mark, _near(mark + step))]
                options.append(st.sampled_from(around))
        elif kind == "boolean":
            options.append(st.booleans())
        elif kind == "array":
            options.append(st.lists(st.text(max_size=8), max_size=3))
        elif kind == "string":
            options.append(st.text(max_size=12))
            if strings:
                options.append(st.sampled_from(list(strings)))
    if pool:
        # Values the task is about (station IDs, district names) first: without them nearly every
        # draw would be an unknown value that both tools refuse alike.
        options.insert(0, st.sampled_from(list(pool)))
    return st.one_of(options) if options else st.none()


def draws(
    schemas: Sequence[Mapping[str, Any]],
    *,
    seed: int,
    count: int,
    required: Iterable[str] = (),
    sources: Iterable[str] = (),
    pools: Mapping[str, Sequence[Any]] | None = None,
    repeats: bool = False,
) -> list[dict[str, Any]]:
    """`count` argument sets drawn from the parameters' strategies with hypothesis, from `seed`.

    Required parameters (`required`) are always there; the others are left out now and then. With
    `repeats` the same arguments may come again (a tool that changes things answers them otherwise
    the second time); else each set is drawn once.
    """
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as seeded
    from hypothesis import strategies as st

    pools = pools or {}
    numbers, strings = mined_constants(sources)
    props = {name: found for name, found in properties(schemas).items() if name != KEY_PARAMETER}
    needed = set(required)
    strategy = st.fixed_dictionaries(
        {
            name: _strategy(found, numbers, strings, pools.get(name, ()))
            for name, found in props.items()
            if name in needed
        },
        optional={
            name: _strategy(found, numbers, strings, pools.get(name, ()))
            for name, found in props.items()
            if name not in needed
        },
    )
    drawn: list[dict[str, Any]] = []

    @seeded(seed)
    @settings(
        max_examples=count * 2,  # some draws repeat: enough to keep `count` different ones
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategy)
    def collect(arguments: dict[str, Any]) -> None:
        drawn.append(arguments)

    collect()
    drawn = _unique(drawn)
    if not repeats:
        return drawn[:count]
    # Hypothesis never draws the same choices twice, but a tool that changes things must meet the same
    # request again (the same station until it runs out): half the calls repeat an earlier one, one
    # that names values the task is about when there is one.
    choose = random.Random(seed)
    fresh = iter(drawn)
    sequence: list[dict[str, Any]] = []
    for _ in range(count):
        real = [call for call in sequence if any(call.get(k) in v for k, v in pools.items())]
        if sequence and choose.random() < 0.5:
            sequence.append(dict(choose.choice(real or sequence)))
        else:
            drawn_next = next(fresh, None)
            sequence.append(drawn_next if drawn_next is not None else dict(choose.choice(sequence or [{}])))
    return sequence


def inputs(
    schemas: Sequence[Mapping[str, Any]],
    *,
    examples: Sequence[Mapping[str, Any]],
    seed: int,
    count: int,
    required: Iterable[str] = (),
    sources: Iterable[str] = (),
    pools: Mapping[str, Sequence[Any]] | None = None,
    repeats: bool = False,
) -> list[dict[str, Any]]:
    """The teaching examples, then the edges of the schemas around the first two examples (the
    valid calls the question shows) and two numbers at their edges together, then `count` draws (which may repeat earlier calls, with
    `repeats`: see `draws`)."""
    sources = list(sources)
    found = [dict(example) for example in examples]
    for base in [dict(example) for example in examples[:2]] or [{}]:
        found += edges(schemas, base, sources=sources, pools=pools)
    found += pairs(schemas, examples[0] if examples else {})
    drawn = draws(
        schemas, seed=seed, count=count, required=required, sources=sources, pools=pools, repeats=repeats
    )
    return [*_unique(found), *drawn] if repeats else _unique([*found, *drawn])
