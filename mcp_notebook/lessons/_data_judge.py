"""Judging a learner's resource template or prompt by what it answers, next to the model answer.

The same requests go to the notebook's server and to the private server of the model answer
(`mcp_notebook.lessons._reference`): ``resources/read`` of URIs made from the template's variables,
``prompts/get`` with arguments, and ``completion/complete`` for each variable after every prefix of its
values. The values are the exercise's (``judge.values``: a variable's real values, such as the
regions), then strings drawn from a string schema with hypothesis, fresh for each check from its
seed. A read or a get must succeed or fail as the model answer's does (a JSON-RPC error for both),
and succeed with the same contents; completions must offer the same values.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core._text import clip, t
from ._inputs import TEXTS, draws
from ._judge import check_seed
from ._outcomes import Outcome
from ._reference import Reference

READ_TIMEOUT = 20.0
DRAWN = 8
"""Strings drawn per variable or argument, besides its real values."""


def variables(template: str) -> list[str]:
    """The ``{variables}`` of a URI template, in order."""
    return re.findall(r"{(\w+)}", template)


def values_to_try(name: str, pool: Sequence[Any], seed: int) -> list[str]:
    """A variable's real values, a case variant of one, the empty string, and strings drawn for it."""
    found = [str(value) for value in pool]
    if found:
        found.append(found[0].swapcase() if found[0].swapcase() != found[0] else found[0] + "x")
    drawn = draws(
        [{"type": "object", "properties": {name: {"type": "string"}}}],
        seed=seed,
        count=DRAWN,
        required=[name],
    )
    found += ["", *TEXTS, *(str(d[name]) for d in drawn)]
    if found[0]:
        found.append(f"{found[0]} {found[0]}")  # longer than any value the question shows
    return list(dict.fromkeys(found))


def prefixes(pool: Sequence[Any]) -> list[str]:
    """What a person may have typed into a field: nothing, and the first one or two letters of each value."""
    found = [""]
    for value in map(str, pool):
        found += [value[:1], value[:2], value[:1].swapcase()]
    return list(dict.fromkeys(found))


def read_outcome(result: Any) -> Outcome:
    """A ``resources/read`` answer as an outcome: its contents (JSON parsed) and MIME types."""
    contents = list(result.contents)
    data: list[Any] = []
    for item in contents:
        text = item.get("text")
        if item.get("mimeType") == "application/json" and isinstance(text, str):
            try:
                data.append(json.loads(text))
                continue
            except ValueError:
                pass
        data.append(text if text is not None else item.get("blob"))
    types = tuple(str(item.get("mimeType")) for item in contents)
    return Outcome("ok", result.text or "", data, types)


def compare_reads(
    template: str, reference: Reference, pools: Mapping[str, Sequence[Any]], *, exercise: str
) -> list[str]:
    """Read the same URIs from both servers; the first that differs is the problem."""
    from mcp_notebook import read_resource

    seed = check_seed()
    names = variables(template)
    tried = {name: values_to_try(name, pools.get(name, ()), seed) for name in names}
    count = 0
    for name in names:
        for value in tried[name]:
            others = {other: str((pools.get(other) or ["x"])[0]) for other in names if other != name}
            uri = template.format(**{**others, name: value})
            count += 1
            mine = Outcome.of(functools.partial(read_resource, uri, timeout=READ_TIMEOUT), read_outcome)
            model = Outcome.of(
                functools.partial(
                    read_resource, uri, url=reference.url, token=reference.token, timeout=READ_TIMEOUT
                ),
                read_outcome,
            )
            problem = _differs(mine, model)
            if problem is not None:
                return [
                    t("lessons.judge.differs", call=f"resources/read {uri}", problem=problem),
                    t("lessons.judge.seed", seed=seed, name=exercise, count=count),
                ]
    return []


def compare_gets(
    prompt: str,
    reference: Reference,
    requests: Sequence[dict[str, str]],
    *,
    required: str,
    choice: str,
    exercise: str,
) -> list[str]:
    """Get the prompt with the same arguments from both servers. A request that succeeds must give a
    user message with the `required` argument's value in it wherever the model answer's has it, and
    texts that change with `choice` wherever the model answer's change."""
    from mcp_notebook import get_prompt

    seed = check_seed()
    texts: dict[tuple[str, str], str] = {}
    model_texts: dict[tuple[str, str], str] = {}
    for count, arguments in enumerate(requests, 1):
        mine = Outcome.of(
            functools.partial(get_prompt, prompt, arguments, timeout=READ_TIMEOUT), _prompt_outcome
        )
        model = Outcome.of(
            functools.partial(
                get_prompt, prompt, arguments, url=reference.url, token=reference.token, timeout=READ_TIMEOUT
            ),
            _prompt_outcome,
        )
        shown = f"prompts/get {prompt} {json.dumps(arguments, ensure_ascii=False)}"
        problem = _differs(mine, model, contents=False)
        value = arguments.get(required, "")
        if problem is None and mine.kind == "ok":
            if value and value in model.text and value not in mine.text:
                problem = t("lessons.judge.mention", param=required, value=value, text=clip(mine.text, 120))
            key = (value, arguments.get(choice, ""))
            texts[key], model_texts[key] = mine.text, model.text
        if problem is not None:
            return [
                t("lessons.judge.differs", call=shown, problem=problem),
                t("lessons.judge.seed", seed=seed, name=exercise, count=count),
            ]
    for value in {key[0] for key in texts}:
        mine_kinds = {text for (v, _), text in texts.items() if v == value}
        model_kinds = {text for (v, _), text in model_texts.items() if v == value}
        if len(model_kinds) > 1 and len(mine_kinds) < len(model_kinds):
            return [t("lessons.judge.same_text", argument=choice, value=value)]
    return []


def compare_completions(
    ref: str,
    reference: Reference,
    pools: Mapping[str, Sequence[Any]],
    *,
    complete_mine: Callable[..., list[str]] | None = None,
) -> list[str]:
    """Ask both servers for the candidates of each variable after every prefix; they must offer the same."""
    from mcp_notebook import complete

    for name, pool in pools.items():
        for typed in prefixes(pool):
            mine = sorted(complete(ref, name, typed, timeout=READ_TIMEOUT))
            model = sorted(
                complete(ref, name, typed, url=reference.url, token=reference.token, timeout=READ_TIMEOUT)
            )
            if mine != model:
                return [
                    t(
                        "lessons.resource.wrong_completion",
                        variable=name,
                        value=typed,
                        got=json.dumps(mine, ensure_ascii=False),
                        expected=json.dumps(model, ensure_ascii=False),
                    )
                ]
    return []


def _prompt_outcome(result: Any) -> Outcome:
    parts = []
    for message in result.messages:
        content = message.get("content") or {}
        resource = content.get("resource") if content.get("type") == "resource" else None
        parts.append(f"{message.get('role')}: {content.get('text') or (resource or {}).get('text') or ''}")
    return Outcome("ok", "\n".join(parts), None, tuple(str(m.get("role")) for m in result.messages))


def _differs(mine: Outcome, model: Outcome, *, contents: bool = True) -> str | None:
    if (mine.kind == "ok") != (model.kind == "ok"):
        return t("lessons.judge.kind", mine=mine.shown(), model=model.shown())
    if mine.kind != "ok":
        return (
            None  # both refused: a JSON-RPC error either way (its code may differ: the learner's own check)
        )
    if contents and (mine.data != model.data or set(mine.types) != set(model.types)):
        return t("lessons.judge.kind", mine=mine.shown(), model=model.shown())
    return None
