"""Judging a learner's tool by what it does, next to the model answer, through real servers.

::

    the learner's tool ── tools/call ──► notebook's server ─┐
                                                              ├─ the same inputs, one by one ─► Comparison
    the model answer   ── tools/call ──► private server  ────┘

The inputs are the question's teaching examples, the edges of both input schemas and draws from
them (`mcp_notebook.lessons._inputs`; a `domain` schema instead, for a tool too slow for any input),
fresh for each check from a seed the feedback shows. They run in one sequence on both sides, from
the same state (`States`), so a tool that changes something is judged by what its later calls see
(and, for the names of `observe`, by the notebook variable itself after each call): a booking that was never recorded, or a repeated request that
booked twice, shows as a later answer that differs. A tool that takes an idempotency key gets a
fresh key for most calls and, now and then, the key of an earlier call again, as a client that
lost an answer would send it. `then` follow-ups call another tool with a field of a result (cancel
the booking just made). The first input whose answers differ is the feedback, with both answers.

Words are judged by what they do: a description by the tools a model picks with it (`picks`, among
the chapter's tools and the `distractors` the check adds), an error message by whether the model,
given it, fixes its call (`recoveries`).
"""

from __future__ import annotations

import functools
import inspect
import json
import random
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core._idempotency import KEY_PARAMETER
from ..core._text import clip, get_language, t
from ._exercise import DataContext
from ._inputs import inputs
from ._judge import check_seed, current
from ._outcomes import Comparison, Outcome, Rules
from ._reference import Reference, States
from ._texts import LESSON_LANGUAGES

REPLAY_EVERY = 4
"""About one call in this many sends the key of an earlier call again (a client retrying)."""


@dataclass(frozen=True)
class FollowUp:
    """After a successful result, call `tool` with `arguments`, where ``"$field"`` is that result's field."""

    tool: str
    arguments: Mapping[str, Any]
    every: int = 1

    def arguments_for(self, data: Any) -> dict[str, Any] | None:
        filled: dict[str, Any] = {}
        for key, value in self.arguments.items():
            if isinstance(value, str) and value.startswith("$"):
                if not isinstance(data, Mapping) or value[1:] not in data:
                    return None
                filled[key] = data[value[1:]]
            else:
                filled[key] = value
        return filled


@dataclass(frozen=True)
class Recovery:
    """A wrong call the model is made to send first (`arguments`, with the words of `request`), and
    how its fixed call must look: `fits(wrong, fixed)`, a function of the chapter."""

    request: Mapping[str, str]
    arguments: Mapping[str, Any]
    fits: Callable[[Mapping[str, Any], Mapping[str, Any]], bool]


@dataclass(frozen=True)
class Judge:
    """An exercise's ``judge`` table: how its tool is called and compared (see the module docstring)."""

    examples: tuple[dict[str, Any], ...]
    rules: Rules = field(default_factory=Rules)
    pools: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    state: tuple[str, ...] = ()
    then: tuple[FollowUp, ...] = ()
    picks: Mapping[str, Sequence[str]] = field(default_factory=dict)
    not_for: Mapping[str, Sequence[str]] = field(default_factory=dict)
    recoveries: tuple[Recovery, ...] = ()
    distractors: str = ""
    draws: int | None = None
    domain: Mapping[str, Any] | None = None
    observe: tuple[str, ...] = ()

    @classmethod
    def from_data(cls, data: Mapping[str, Any], context: DataContext) -> Judge:
        data = dict(data)
        pools = {name: values_of(source, context) for name, source in dict(data.pop("pools", {})).items()}
        then = tuple(
            FollowUp(f["tool"], dict(f["arguments"]), int(f.get("every", 1))) for f in data.pop("then", [])
        )
        recoveries = tuple(
            Recovery(dict(r["request"]), dict(r["arguments"]), context.checks[r["fits"]])
            for r in data.pop("recoveries", [])
        )
        judge = cls(
            examples=tuple(dict(example) for example in data.pop("examples")),
            rules=Rules.from_data(data.pop("rules", {}), context.checks),
            pools=pools,
            state=tuple(data.pop("state", ())),
            then=then,
            picks={lang: list(texts) for lang, texts in dict(data.pop("picks", {})).items()},
            not_for={lang: list(texts) for lang, texts in dict(data.pop("not_for", {})).items()},
            recoveries=recoveries,
            distractors=data.pop("distractors", ""),
            draws=data.pop("draws", None),
            domain=data.pop("domain", None),
            observe=tuple(data.pop("observe", ())),
        )
        if data:
            raise ValueError(f"a judge table has unknown keys {sorted(data)}")
        return judge


def values_of(source: Any, context: DataContext) -> list[Any]:
    """A pool of values: a list as it is, or the name of a chapter's value list."""
    if isinstance(source, list):
        return source
    if source in context.values:
        return list(context.values[source])
    raise ValueError(f"a judge's pool names {source!r}, which its chapter does not define")


Caller = Callable[[str, dict[str, Any]], Any]


@dataclass
class Verdict:
    """What a behaviour check found: the problems (empty: the tool does what the model answer does),
    how many inputs it tried, and from which seed."""

    problems: list[str]
    calls: int
    seed: int


def compare_calls(
    name: str,
    judge: Judge,
    reference: Reference,
    *,
    mine: dict[str, Any],
    call_mine: Caller,
    learner_source: str = "",
    notebook: dict[str, Any],
    exercise: str,
) -> Verdict:
    """Call the learner's tool (`call_mine`) and the served `reference` on the same inputs; the first
    difference is the problem. `mine` is the learner's definition as ``tools/list`` shows it."""
    from mcp_notebook import call

    seed = check_seed()
    model = reference.definition(name) or {}
    schemas = [model.get("inputSchema", {}), mine.get("inputSchema", {})]
    if judge.domain is not None:
        schemas = [*schemas, dict(judge.domain)]  # its edges too; nothing beyond it (see below)
    drawn = inputs(
        schemas,
        examples=judge.examples,
        seed=seed,
        count=judge.draws or current().draws,
        required=model.get("inputSchema", {}).get("required", ()),
        sources=[reference.source, learner_source],
        pools=judge.pools,
        repeats=bool(judge.state),
    )
    if judge.domain is not None:
        drawn = [arguments for arguments in drawn if _inside(arguments, judge.domain)]
    takes_key = KEY_PARAMETER in model.get("inputSchema", {}).get("properties", {})
    calls = _with_keys(drawn, seed) if takes_key else [(arguments, {}) for arguments in drawn]
    states = States(judge.state, notebook, reference)
    if states.missing:
        return Verdict([t("lessons.judge.no_state", names=", ".join(states.missing))], 0, seed)
    comparison = Comparison(judge.rules)
    made = 0
    states.reset()
    try:
        for index, (arguments, shown) in enumerate(calls):
            made += 1
            learner = Outcome.of(functools.partial(call_mine, name, arguments))
            answer = Outcome.of(
                functools.partial(call, name, arguments, url=reference.url, token=reference.token)
            )
            problem = comparison.differs(arguments, learner, answer)
            if problem is None and learner.kind == "ok":
                problem = _follow_ups(judge, index, learner, answer, call_mine, reference, comparison)
            if problem is None:
                problem = _observed(judge.observe, notebook, reference.namespace)
            if problem is not None:
                where = json.dumps({**arguments, **shown}, ensure_ascii=False)
                lines = [t("lessons.judge.differs", call=f"{name} {clip(where, 200)}", problem=problem)]
                lines.append(t("lessons.judge.seed", seed=seed, name=exercise, count=made))
                return Verdict(lines, made, seed)
    finally:
        states.restore()
    return Verdict([], made, seed)


def _inside(arguments: Mapping[str, Any], domain: Mapping[str, Any]) -> bool:
    """Whether no number of `arguments` lies outside the range `domain` gives its parameter (values
    of another type, and parameters left out, are still tried: the schema refuses those)."""
    for name, prop in (domain.get("properties") or {}).items():
        value = arguments.get(name)
        if not isinstance(value, int | float) or isinstance(value, bool):
            continue
        low, high = prop.get("minimum"), prop.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            return False
    return True


def _with_keys(drawn: list[dict[str, Any]], seed: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each call with an idempotency key: a new one, or (now and then) an earlier call's again, with
    that call's arguments (a client resending) or with others (a client reusing a key by mistake).
    Keys are random whatever the seed (a key the store saw in an earlier check would replay its
    answer); the feedback shows them as ``<key N>``."""
    choose = random.Random(seed)
    nonce = secrets.token_hex(6)
    calls: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for index, arguments in enumerate(drawn):
        if calls and index % REPLAY_EVERY == REPLAY_EVERY - 1:
            earlier, label = calls[choose.randrange(len(calls))][0], None
            key = earlier[KEY_PARAMETER]
            label = next(s[KEY_PARAMETER] for a, s in calls if a[KEY_PARAMETER] == key)
            again = dict(earlier) if choose.random() < 0.75 else {**arguments, KEY_PARAMETER: key}
            calls.append((again, {KEY_PARAMETER: label}))
        number = len({a[KEY_PARAMETER] for a, _ in calls}) + 1
        calls.append(
            ({**arguments, KEY_PARAMETER: f"check-{nonce}-{number}"}, {KEY_PARAMETER: f"<key {number}>"})
        )
    return calls


def _follow_ups(
    judge: Judge,
    index: int,
    learner: Outcome,
    answer: Outcome,
    call_mine: Caller,
    reference: Reference,
    comparison: Comparison,
) -> str | None:
    from mcp_notebook import call

    for follow in judge.then:
        if index % follow.every:
            continue
        mine_args, model_args = follow.arguments_for(learner.data), follow.arguments_for(answer.data)
        if mine_args is None or model_args is None:
            continue  # a missing field was already told by the comparison
        after_mine = Outcome.of(functools.partial(call_mine, follow.tool, mine_args))
        after_model = Outcome.of(
            functools.partial(call, follow.tool, model_args, url=reference.url, token=reference.token)
        )
        problem = comparison.differs(model_args, after_mine, after_model)
        if problem is not None:
            shown = f"{follow.tool} {json.dumps(mine_args, ensure_ascii=False)}"
            return t("lessons.judge.after", call=shown, problem=problem)
    return None


def _observed(names: Sequence[str], notebook: Mapping[str, Any], model: Mapping[str, Any]) -> str | None:
    """What the call left in the notebook's `names` that the model answer's did not leave in its own."""
    for name in names:
        mine, theirs = notebook.get(name), model.get(name)
        if json.dumps(mine, sort_keys=True, default=repr) != json.dumps(theirs, sort_keys=True, default=repr):
            shown = json.dumps(mine, ensure_ascii=False, default=repr)
            return t(
                "lessons.judge.observed",
                name=name,
                mine=clip(shown, 120),
                model=clip(json.dumps(theirs, ensure_ascii=False, default=repr), 120),
            )
    return None


def source_of(function: Any) -> str:
    """The source of the learner's function (a notebook cell keeps it), or nothing."""
    try:
        return inspect.getsource(function)
    except (OSError, TypeError):
        return ""


# -- words, by what they do -----------------------------------------------------------------------------


def pick_problems(name: str, judge: Judge, mine: dict[str, Any], others: list[dict[str, Any]]) -> list[str]:
    """The requests a model, reading the learner's definition among `others`, handles wrongly: it must
    pick the tool for every request of `picks` (in both languages), and not for those of `not_for`."""
    from ._agent import Answer, ScriptedModel

    tools = [*(d for d in others if d["name"] != name), mine]
    model = ScriptedModel()
    for language in LESSON_LANGUAGES:
        for request in judge.picks.get(language, ()):
            decision = model.decide(request, tools, [])
            if isinstance(decision, Answer) or decision.tool != name:
                got = decision.tool if not isinstance(decision, Answer) else None
                return [_missed(name, request, got)]
        for request in judge.not_for.get(language, ()):
            decision = model.decide(request, tools, [])
            if not isinstance(decision, Answer) and decision.tool == name:
                return [t("lessons.judge.picked_wrongly", tool=name, request=request)]
    return []


def _missed(name: str, request: str, got: str | None) -> str:
    if got is None:
        return t("lessons.judge.not_picked_none", tool=name, request=request)
    return t("lessons.judge.not_picked", tool=name, request=request, other=got)


def recovery_problems(
    name: str, judge: Judge, reference: Reference, *, notebook: dict[str, Any]
) -> list[str]:
    """Each wrong call of `recoveries`, sent first: the model reads the tool's error and must end with
    a successful call that fits what was asked. Each starts from the set-up's state, and the
    notebook's own comes back afterwards, as around `compare_calls`."""
    from ._agent import Call, run_agent

    language = get_language()
    states = States(judge.state, notebook, reference)
    try:
        for recovery in judge.recoveries:
            states.reset()
            request = recovery.request.get(language) or next(iter(recovery.request.values()))
            arguments = dict(recovery.arguments)
            if KEY_PARAMETER in arguments:
                arguments[KEY_PARAMETER] = f"recover-{secrets.token_hex(8)}"  # never one the store saw
            run = run_agent(request, first=Call(name, arguments))
            final = getattr(run, "final", None)
            if (
                final is None
                or final.call.tool != name
                or not recovery.fits(recovery.arguments, final.call.arguments)
            ):
                lines = [t("lessons.judge.not_recovered", tool=name, request=request)]
                return [*lines, *(f"- {line.strip()}" for line in run.lines())]
    finally:
        states.restore()
    return []
