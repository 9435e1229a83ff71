"""How the scripted model recovers from an error result: it reads the message (`._repair`) and
takes only the fixes that fit the request. A value it offers alone is taken; among several, the one
whose words (and the words next to it) fit the request's, and none when none can be told to fit, so a
message that lists every possible value does not make every request succeed. A bound moves the number
to the nearest value allowed; a tool the message names is called first."""

from __future__ import annotations

import json
from typing import Any

from ..core._text import clip, t
from ._arguments import fill
from ._glossary import terms
from ._reading import Param, Request, described, fit, params
from ._repair import Bound, Candidate, read
from ._steps import Answer, Call, Step


def recover(
    asked: Request,
    last: Step,
    tool: dict[str, Any],
    by_name: dict[str, dict[str, Any]],
    steps: list[Step],
) -> Call | Answer | None:
    """The call fixed from what `last`'s error message says, or a call of the tool it names first;
    an answer when it offers values none of which can be told to fit; None when it says nothing to use."""
    every = {p.name: p for p in params(tool)}
    others = [name for name in by_name if name != tool["name"]]
    reading = read(last.text, list(every), others)
    arguments = dict(last.call.arguments)
    changes: dict[str, Any] = {}
    reasons: list[str] = []
    for name, raw in reading.assigned:
        value = every[name].convert(raw)
        if value is not None and value != arguments.get(name) and name not in changes:
            changes[name] = value
            reasons.append(t("agent.retry", parameter=name, value=value))
    for bound in reading.bounds:
        param = _bounded(bound, every, arguments)
        if param is None or param.name in changes:
            continue
        current = arguments[param.name]
        value = bound.clamp(float(current), integer=param.type == "integer")
        value = int(value) if param.type == "integer" else value
        if value != current:
            changes[param.name] = value
            shown = Bound(param.name, bound.low, bound.high, bound.low_exclusive, bound.high_exclusive)
            reasons.append(t("agent.retry_bound", parameter=param.name, bound=shown.describe(), value=value))
    unsure = _choose(asked, reading.candidates, every, arguments, tool, others, steps, changes, reasons)
    call = Call(str(tool["name"]), {**arguments, **changes}, reason=" ".join(reasons))
    if changes and not tried(call, steps):
        return call
    for name in reading.tools:
        filling = fill(asked, by_name[name], [])
        first = Call(name, filling.arguments, t("agent.named_tool", tool=name))
        if not filling.missing and not tried(first, steps):
            return first
    if unsure:
        error = clip(" ".join(last.text.split()), 120)
        return Answer(t("agent.cannot_choose", count=unsure[1], parameter=unsure[0], error=error))
    return None


def _choose(
    asked: Request,
    candidates: list[Candidate],
    every: dict[str, Param],
    arguments: dict[str, Any],
    tool: dict[str, Any],
    others: list[str],
    steps: list[Step],
    changes: dict[str, Any],
    reasons: list[str],
) -> tuple[str, int] | None:
    """Pick, for each parameter, the value the message offers that fits the request; returns the
    parameter and how many values it offered when none could be told to fit."""
    names = {str(tool["name"]), *every, *others}
    current = {str(v).casefold() for v in arguments.values()}
    tried = {
        (name, json.dumps(value, ensure_ascii=False, default=str))
        for s in steps
        if s.call.tool == tool["name"]
        for name, value in s.call.arguments.items()
    }
    offered: dict[str, list[tuple[Candidate, Any]]] = {}
    for candidate in candidates:
        if candidate.value in names or candidate.value.casefold() in current:
            continue
        for name in _targets(candidate, every, arguments):
            value = every[name].convert(candidate.value)
            if value is not None:
                if (name, json.dumps(value, ensure_ascii=False, default=str)) not in tried:
                    offered.setdefault(name, []).append((candidate, value))
                break
    unsure = None
    for name, options in offered.items():
        if name in changes:
            continue
        if len(options) == 1:
            chosen: Any = options[0][1]
        else:
            texts = [described(c, every[name], str(tool.get("description", ""))) for c, _ in options]
            common = frozenset.intersection(*(frozenset(terms(d).names()) for d in texts))
            fits = [fit(asked, d, common) for d in texts]
            top = max(fits)
            best = [options[i][0].value for i, score in enumerate(fits) if score == top]
            # Two values that mean the same (마포구 and Mapo-gu, from a schema that takes both) are one choice.
            meanings = {terms(value).concepts for value in best}
            if top <= 0 or (len(best) > 1 and (len(meanings) > 1 or not next(iter(meanings)))):
                unsure = unsure or (name, len(options))
                continue
            chosen = options[fits.index(top)][1]
        changes[name] = chosen
        reasons.append(
            t("agent.retry", parameter=name, value=chosen)
            if len(options) == 1
            else t("agent.retry_choice", parameter=name, value=chosen, count=len(options))
        )
    return unsure


def _targets(candidate: Candidate, every: dict[str, Param], arguments: dict[str, Any]) -> list[str]:
    """The parameters a value the message offers may be for: the one its clause names, else those of the
    call, else any."""
    if candidate.param in every:
        return [candidate.param]
    return [*(n for n in every if n in arguments), *(n for n in every if n not in arguments)]


def _bounded(bound: Bound, every: dict[str, Param], arguments: dict[str, Any]) -> Param | None:
    """The numeric parameter of the call a bound speaks of: the one it names, else the only one."""
    numeric = [
        p
        for p in every.values()
        if p.type in ("integer", "number") and isinstance(arguments.get(p.name), int | float)
    ]
    if bound.param is not None:
        return next((p for p in numeric if p.name == bound.param), None)
    return numeric[0] if len(numeric) == 1 else None


def tried(call: Call, steps: list[Step]) -> bool:
    key = json.dumps(call.arguments, sort_keys=True, ensure_ascii=False, default=str)
    return any(
        s.call.tool == call.tool
        and json.dumps(s.call.arguments, sort_keys=True, ensure_ascii=False, default=str) == key
        for s in steps
    )
