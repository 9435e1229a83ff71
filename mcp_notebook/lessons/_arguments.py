"""The arguments the scripted model gives a tool, from its schema: allowed values the request names,
numbers where their counters fit, quoted values and IDs where they fit, values earlier calls returned,
and defaults written out in the call, never left to the tool silently."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core._text import t
from . import _glossary
from ._glossary import terms
from ._reading import Param, Request, described, from_results, looks_like_id, name_terms, params
from ._repair import Candidate
from ._steps import Step


@dataclass
class Filling:
    """The arguments found, the required parameters nothing gave (`missing`), and the trace's notes."""

    arguments: dict[str, Any] = field(default_factory=dict)
    missing: list[Param] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)


def fill(asked: Request, tool: dict[str, Any], steps: list[Step]) -> Filling:
    """The arguments the model gives `tool` for `asked`: from the request, from what earlier `steps`
    returned, and defaults (written out); the required parameters none of these gives are `missing`."""
    filling = Filling()
    every = params(tool)
    for param in every:
        if param.enum is not None:
            value = _choose_enum(asked, param, tool)
            if value is not None:
                filling.arguments[param.name] = value
    numeric = [p for p in every if p.type in ("integer", "number") and p.enum is None]
    numbers = list(asked.numbers)
    # A number goes first where its counter fits (2시간 → hours, 10시 → start_hour): the share of the
    # parameter's name its counter speaks of, with the parameter's description as a witness.
    pairs = sorted(
        (
            (-_counter_fit(number[1], param), i, j)
            for i, param in enumerate(numeric)
            for j, number in enumerate(numbers)
            if number[1] and _counter_fit(number[1], param) > 0
        )
    )
    taken: set[int] = set()
    for _, i, j in pairs:
        if numeric[i].name not in filling.arguments and j not in taken:
            filling.arguments[numeric[i].name] = numeric[i].convert(_plain(numbers[j][0]))
            taken.add(j)
    rest = [n for j, n in enumerate(numbers) if j not in taken]
    for param in numeric:
        if param.name not in filling.arguments and rest:
            filling.arguments[param.name] = param.convert(_plain(rest.pop(0)[0]))
    texts = [p for p in every if p.enum is None and p.type not in ("integer", "number", "boolean")]
    fitting = sorted(
        ((_text_fit(p, v), i, j, p, v) for i, p in enumerate(texts) for j, v in enumerate(asked.values)),
        key=lambda pair: (-pair[0], pair[1], pair[2]),
    )
    used: set[int] = set()
    for level, _, j, param, value in fitting:
        if level > 0 and param.name not in filling.arguments and j not in used:
            filling.arguments[param.name] = value
            used.add(j)
    for param in every:
        if param.name in filling.arguments:
            continue
        found = from_results(asked, param, steps)
        if found is not None:
            value, source = found
            filling.arguments[param.name] = value
            filling.reasons.append(
                t(
                    "agent.from_result",
                    source=source,
                    parameter=param.name,
                    value=value,
                    tool=tool["name"],
                )
            )
        elif param.has_default:
            filling.arguments[param.name] = param.schema["default"]
            filling.reasons.append(t("agent.default", parameter=param.name, value=param.schema["default"]))
        elif param.required:
            filling.missing.append(param)
    return filling


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def _counter_fit(counter: str, param: Param) -> float:
    """How well a number's counter fits a numeric parameter: the meanings they share over the size of
    the parameter's name (``시간`` fits ``hours`` wholly, ``start_hour`` by half), when its name or
    description speaks of the counter's meaning."""
    said = terms(counter)
    name = name_terms(param.name)
    shared = said.shared(name | terms(param.description))
    return len(shared) / max(1, len(name.names())) if shared else 0.0


def _text_fit(param: Param, value: str) -> int:
    """How well a request's value fits a text parameter: 3 in the shape of its example ID, 2 an ID for
    an ID parameter, 1 any value for a free text, 0 not at all."""
    if param.convert(value) is None:
        return 0
    if any(looks_like_id(e) for e in param.examples):
        return 3
    return 2 if param.is_id else 1


def _choose_enum(asked: Request, param: Param, tool: dict[str, Any]) -> Any:
    """The allowed value the request names: said as written, or through the glossary and the words the
    descriptions pair with each value; None when the request names none, or two equally. What the
    tool's and the parameter's names say (``bike_count``: bikes, a count) tells no value apart."""
    values = param.enum or []
    said = {v.casefold() for v in asked.values} | {w.casefold() for w in _glossary.tokens(asked.text)}
    named = [v for v in values if str(v).casefold() in said]
    if len(named) == 1:
        return named[0]
    meanings = [terms(described(Candidate(str(v)), param, str(tool.get("description", "")))) for v in values]
    if not meanings:
        return None
    common = frozenset.intersection(*(frozenset(d.names()) for d in meanings))
    common |= frozenset((name_terms(str(tool.get("name", ""))) | name_terms(param.name)).names())
    fits = [sum(1 for k in asked.terms.names() if k not in common and d.has(k)) for d in meanings]
    top = max(fits)
    return values[fits.index(top)] if top > 0 and fits.count(top) == 1 else None
