"""The scripted model: an offline, deterministic stand-in for a model, whose every choice a learner
can read in the trace (nbval and Binder need it: no network, no randomness).

Picking a tool. A request and each tool's name, description and parameters are read as `Terms`
(`._glossary`): meanings shared across Korean and English, each counted once however often it is
written. A tool scores, for each term of the request it has, that term's weight among the tools
present (a term every tool has says little; one only this tool has says much: IDF, as in BM25), and
the sum is scaled down when the tool's text says many other things (length normalisation): a long
list of keywords weighs less per word than a plain sentence. A tool whose name says an action the
request does not ask for (``cancel_booking`` for a booking, ``return_bike`` for a rental,
``show_processed`` for processing) keeps only `OTHER_ACTION` of its score. The best tool is picked when it is
clearly best; when the runner-up scores within `MARGIN` of it, the model cannot tell them apart and
asks instead of guessing.

Arguments. From the schema: a parameter with allowed values (``enum``) takes the value the request
names, in its words or the glossary's (새싹 for ``kids``), or in the words the description pairs with
the value; a number takes the request's number (the one whose counter fits the parameter first); a
text takes the request's quoted value, or an ID written as one (``ST-1043``), when the value fits
the parameter (an ID parameter takes what looks like an ID, like its example). A parameter with a
default the request does not set gets that default, written out in the call and the trace, never
silently. A required parameter left without a value is looked up first, when another tool takes what
the request gives and returns it (a chain: ``find_station`` gives ``station_id``); otherwise the call
goes without it (the trace says so), and the server's error comes back to be read like any other.

Errors. After an ``isError`` result the model reads the message (`._recovery`) and fixes the call from
what it says: a ``param=value``, a bound (``hours <= 3``, ``9 이상``), a value among those it offers
that fits the request (the one whose words match the request's, never blindly the first), or a tool
to call first. When the message says none of these, or offers values none of which fits, it gives up.
"""

from __future__ import annotations

import math
from typing import Any

from ..core._text import clip, t
from ._arguments import fill
from ._glossary import actions
from ._reading import Param, Request, from_results, name_terms, params, parse, tool_terms, tool_text
from ._recovery import recover, tried
from ._steps import Answer, Call, Step

MARGIN = 0.25
"""How close the runner-up may come to the best tool (a share of its score) before the model asks."""

K1, B = 1.2, 0.75
"""BM25's constants for length normalisation: how strongly a long text is scaled down."""

OTHER_ACTION = 0.3
"""What is left of a tool's score when its name is an action the request does not ask for."""


class ScriptedModel:
    """A model that follows a script a learner can read, so every run is the same (see the module
    docstring for the script)."""

    def scores(self, request: str, tools: list[dict[str, Any]]) -> list[tuple[str, float, list[str]]]:
        """Each tool's score for `request` and the request's words that earned it, best first (then by name)."""
        asked = parse(request).terms
        docs = [tool_text(tool) for tool in tools]
        if not docs:
            return []
        average = sum(d.size for d in docs) / len(docs) or 1.0
        top = _idf(1, len(docs))
        scored = []
        for tool, doc in zip(tools, docs, strict=True):
            shared = [k for k in asked.names() if doc.weight(k)]
            weight = sum(
                _idf(sum(1 for d in docs if d.weight(k)), len(docs)) / top * doc.weight(k) for k in shared
            )
            norm = min(1.0, (K1 + 1) / (1 + K1 * (1 - B + B * doc.size / average)))
            # A tool named for doing something the request does not ask (cancel_booking, when asked to
            # book) is not the one, whatever else the two share.
            named = name_terms(str(tool.get("name", ""))).concepts & actions()
            if named - asked.concepts:
                norm *= OTHER_ACTION
            written = sorted({w for k in shared for w in asked.written.get(k, ())})
            scored.append((str(tool["name"]), weight * norm, written))
        return sorted(scored, key=lambda item: (-item[1], item[0]))

    def decide(self, request: str, tools: list[dict[str, Any]], steps: list[Step]) -> Call | Answer:
        """The next call, or the answer: after an error, the fix its message gives; after a lookup, the
        call it was for; else the tool the request is clearly for, with its arguments."""
        asked = parse(request)
        by_name = {str(tool["name"]): tool for tool in tools}
        if steps and steps[-1].is_error:
            last = steps[-1]
            tool = by_name.get(last.call.tool)
            fixed = None
            if tool is not None and not last.protocol_error:
                fixed = recover(asked, last, tool, by_name, steps)
            return fixed or Answer(t("agent.give_up", error=clip(" ".join(last.text.split()), 120)))
        if steps:
            retry = self._after_lookup(asked, by_name, steps)
            if retry is not None:
                return retry
        ranked = self.scores(request, tools)
        best = [(name, score) for name, score, _ in ranked if score > 0]
        close = len(best) > 1 and best[1][1] > best[0][1] * (1 - MARGIN)
        if not steps:
            if not best:
                return Answer(t("agent.no_tool"))
            if close:
                return Answer(t("agent.tie", first=best[0][0], second=best[1][0]))
            return self._plan(asked, by_name[best[0][0]], by_name, steps)
        solved = {s.call.tool for s in steps if not s.is_error}
        if best and not close and best[0][0] not in solved:
            return self._plan(asked, by_name[best[0][0]], by_name, steps)
        return Answer(steps[-1].text)

    def arguments(self, request: str, tool: dict[str, Any]) -> dict[str, Any]:
        """The arguments `request` gives `tool`'s parameters (see the module docstring)."""
        return fill(parse(request), tool, []).arguments

    # -- a call and its arguments --------------------------------------------------------------------
    def _plan(
        self, asked: Request, tool: dict[str, Any], by_name: dict[str, dict[str, Any]], steps: list[Step]
    ) -> Call | Answer:
        filling = fill(asked, tool, steps)
        for missing in filling.missing:
            lookup = self._lookup(asked, tool, missing, by_name, steps)
            if lookup is not None:
                return lookup
        if filling.missing:  # nothing gives it: the call goes without, and the server's error says so
            names = ", ".join(p.name for p in filling.missing)
            filling.reasons.append(t("agent.left_out", parameters=names))
        call = Call(str(tool["name"]), filling.arguments, reason=" ".join(filling.reasons))
        if tried(call, steps):
            return Answer(steps[-1].text if steps and not steps[-1].is_error else t("agent.no_tool"))
        return call

    def _lookup(
        self,
        asked: Request,
        target: dict[str, Any],
        missing: Param,
        by_name: dict[str, dict[str, Any]],
        steps: list[Step],
    ) -> Call | None:
        """A call of another tool that takes what the request gives and returns `missing` (a chain)."""
        options = []
        for name, tool in by_name.items():
            level = _provides(tool, missing)
            if name == target["name"] or not level:
                continue
            filling = fill(asked, tool, [])
            call = Call(
                name,
                filling.arguments,
                t("agent.look_up", parameter=missing.name, tool=name, target=target["name"]),
            )
            if not filling.missing and not tried(call, steps):
                score = next(
                    (s for n, s, _ in self.scores(asked.text, list(by_name.values())) if n == name), 0.0
                )
                options.append((level, score, name, call))
        return max(options, key=lambda o: (o[0], o[1], o[2]))[3] if options else None

    def _after_lookup(
        self, asked: Request, by_name: dict[str, dict[str, Any]], steps: list[Step]
    ) -> Call | None:
        """After a lookup an error message asked for, the failed call again with what the lookup returned."""
        last = steps[-1]
        failed = next((s for s in reversed(steps[:-1]) if s.call.tool != last.call.tool), None)
        if failed is None or not failed.is_error or failed.call.tool not in by_name:
            return None
        arguments = dict(failed.call.arguments)
        reasons = []
        for param in params(by_name[failed.call.tool]):
            found = from_results(asked, param, [last])
            if found is not None and found[0] != arguments.get(param.name):
                arguments[param.name] = found[0]
                reasons.append(
                    t(
                        "agent.from_result",
                        source=last.call.tool,
                        parameter=param.name,
                        value=found[0],
                        tool=failed.call.tool,
                    )
                )
        call = Call(failed.call.tool, arguments, reason=" ".join(reasons))
        return call if reasons and not tried(call, steps) else None


def _idf(n: int, total: int) -> float:
    """How much a meaning says when `n` of `total` tools have it (BM25's IDF, never below zero)."""
    return math.log(1 + (total - n + 0.5) / (n + 0.5))


def _provides(tool: dict[str, Any], param: Param) -> int:
    """Whether `tool` returns `param`: 2 its output schema names it; 1 the parameter is an ID (a value
    the request cannot be expected to know) and the tool's text speaks of every part of its name
    (``station_id``: a station, an ID); 0 neither. A parameter with allowed values is never looked up."""
    if param.enum is not None:
        return 0
    output = tool.get("outputSchema") or {}
    fields = set(output.get("properties") or {})
    items = ((output.get("properties") or {}).get("result") or {}).get("items") or {}
    fields |= set(items.get("properties") or {})
    if param.name in fields:
        return 2
    wanted = name_terms(param.name)
    if not param.is_id or not wanted.names():
        return 0
    return 1 if all(tool_terms(tool).has(k) for k in wanted.names()) else 0
