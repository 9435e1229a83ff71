"""What the scripted model reads: a request (its meanings, its values, its numbers), a tool's
definition (its parameters, and what its name, description and parameters say), a value with the words
next to it, and what an earlier call returned.

A request's quoted values (``'ST-1043'``) and the IDs it writes bare (``ST-1043``, ``B201을``) are values,
never meanings: they fill arguments and are left out of the words a tool is picked by.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any

from . import _glossary
from ._glossary import Terms, terms
from ._repair import ID_LIKE, QUOTED, Candidate
from ._steps import Step

PARAM_WEIGHT = 0.5
"""How much a meaning counts when only a parameter says it: a parameter says what the tool takes, its
name and description what it does."""

_EXAMPLE = re.compile(r"(?:예:|예를 들어|예시:|e\.g\.,?|for example,?|such as|like)\s*([^\s,;)]+)", re.I)
_CLAUSE = re.compile(r"[,;/\n]|(?<=[.!?。])\s|\bor\b|또는|혹은")


@dataclass(frozen=True)
class Request:
    """A request as the model reads it: its `terms` (quoted values and IDs left out), its `values`
    (quoted, then IDs written bare) and its `numbers` (each with the counter after it)."""

    text: str
    terms: Terms
    values: tuple[str, ...]
    numbers: tuple[tuple[float, str], ...]

    @property
    def number_set(self) -> set[int]:
        return {int(n) for n, _ in self.numbers if float(n).is_integer()}


@functools.lru_cache(maxsize=512)
def parse(request: str) -> Request:
    """`request` as the model reads it (see `Request`)."""
    quoted = [m.group(1) for m in QUOTED.finditer(request)]
    bare = QUOTED.sub(" ", request)
    ids = [m.group(0) for m in ID_LIKE.finditer(bare)]
    rest = ID_LIKE.sub(" ", bare)
    found = _glossary.tokens(rest)
    numbers: list[tuple[float, str]] = []
    for index, token in enumerate(found):
        after = found[index + 1] if index + 1 < len(found) else ""
        if token[0].isdigit():
            numbers.append((float(token), after if _glossary.is_counter(after) else ""))
        elif token in _glossary.number_words() and after and _glossary.is_counter(after):
            numbers.append((float(_glossary.number_words()[token]), after))
    return Request(request, terms(rest), tuple(quoted + ids), tuple(numbers))


@dataclass(frozen=True)
class Param:
    """One parameter of a tool's input schema, as the model reads it."""

    name: str
    schema: dict[str, Any]
    required: bool

    @property
    def type(self) -> str:
        return str(self.schema.get("type", "string"))

    @property
    def enum(self) -> list[Any] | None:
        enum = self.schema.get("enum")
        return list(enum) if isinstance(enum, list) else None

    @property
    def description(self) -> str:
        return str(self.schema.get("description", ""))

    @property
    def has_default(self) -> bool:
        return self.schema.get("default") is not None

    @property
    def is_id(self) -> bool:
        """Whether the parameter takes an identifier (``station_id``), by its name."""
        return "id" in name_terms(self.name).concepts

    @property
    def examples(self) -> list[str]:
        """Example values the schema shows: ``examples``, quoted values and ``예: ...`` in its description."""
        found = [str(e) for e in self.schema.get("examples", []) if isinstance(e, str | int | float)]
        found += [m.group(1) for m in QUOTED.finditer(self.description)]
        found += [m.group(1).strip("'\".") for m in _EXAMPLE.finditer(self.description)]
        return found

    def convert(self, raw: Any) -> Any:
        """`raw` as a value of this parameter, or None when it does not fit (see `ScriptedModel`)."""
        text = str(raw).strip()
        if self.enum is not None:
            return next((v for v in self.enum if str(v).casefold() == text.casefold()), None)
        if self.type in ("integer", "number"):
            try:
                number = float(text)
            except ValueError:
                return None
            return int(number) if self.type == "integer" and number.is_integer() else number
        if self.type == "boolean":
            return {"true": True, "false": False}.get(text.casefold())
        shaped = [e for e in self.examples if looks_like_id(e)]
        if shaped:
            return text if any(shape(text) == shape(e) for e in shaped) else None
        if self.is_id and not looks_like_id(text):
            return None  # a name is not an ID: the model looks the ID up instead
        return text


def params(tool: dict[str, Any]) -> list[Param]:
    """The parameters of `tool`, in the schema's order."""
    schema = tool.get("inputSchema", {}) or {}
    required = set(schema.get("required") or [])
    return [
        Param(n, p if isinstance(p, dict) else {}, n in required)
        for n, p in (schema.get("properties") or {}).items()
    ]


@dataclass(frozen=True)
class ToolText:
    """What a model reads about a tool: `main`, its name, title and description; `params`, its
    parameters' names, descriptions and allowed values (what the tool takes, weighed at `PARAM_WEIGHT`)."""

    main: Terms
    params: Terms

    def weight(self, key: str) -> float:
        """How much the tool's text says `key`: 1 in its name or description, less in its parameters only."""
        return 1.0 if self.main.has(key) else PARAM_WEIGHT if self.params.has(key) else 0.0

    @property
    def size(self) -> float:
        """How many different things the text says, a parameter-only one counted at `PARAM_WEIGHT`."""
        return self.main.size + PARAM_WEIGHT * max(0, (self.main | self.params).size - self.main.size)


def tool_text(tool: dict[str, Any]) -> ToolText:
    """Every meaning a model reads about `tool` (see `ToolText`)."""
    return _tool_text(json.dumps(tool, sort_keys=True, ensure_ascii=False, default=str))


def tool_terms(tool: dict[str, Any]) -> Terms:
    """Every meaning a model reads about `tool`, its parameters' included."""
    text = tool_text(tool)
    return text.main | text.params


@functools.lru_cache(maxsize=256)
def _tool_text(key: str) -> ToolText:
    tool = json.loads(key)
    main = [split_name(tool.get("name", "")), tool.get("title", "") or "", tool.get("description", "") or ""]
    taken = []
    for param in params(tool):
        taken += [split_name(param.name), param.description, " ".join(map(str, param.enum or []))]
    return ToolText(terms(" . ".join(main)), terms(" . ".join(taken)))


def split_name(name: str) -> str:
    """A name's words: ``bike_count``, ``bikeCount`` and ``bike-count`` are ``bike count``."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).replace("_", " ").replace("-", " ")


@functools.lru_cache(maxsize=256)
def name_terms(name: str) -> Terms:
    """The meanings of a tool's or a parameter's name (``station_id``: a station, an ID)."""
    return terms(split_name(name))


def shape(value: str) -> str:
    """How a value is written, runs of a kind of character as one: ``ST-1043`` is ``A-9``, a date
    ``9-9-9``, a Korean name ``H``. An ID parameter takes values shaped like its example."""
    out: list[str] = []
    for ch in value:
        if ch.isascii() and ch.isalpha():
            kind = "A"
        elif ch.isdigit():
            kind = "9"
        elif "가" <= ch <= "힣":
            kind = "H"
        else:
            kind = ch
        if not (out and out[-1] == kind and kind in "A9H "):
            out.append(kind)
    return "".join(out)


def looks_like_id(value: str) -> bool:
    """Whether `value` is written like an identifier: letters, digits and ``_.:-``, a digit among them."""
    return bool(re.fullmatch(r"[A-Za-z0-9_.:-]*\d[A-Za-z0-9_.:-]*", value))


def fit(request: Request, text: str, common: frozenset[str] = frozenset()) -> int:
    """How well `text` (a value the model could use, and the words next to it) fits `request`: the
    request's quoted values it contains (or whose meanings it names), the meanings it shares (but
    `common`), the numbers it shares."""
    low = text.casefold()
    score = 0
    found = terms(text)
    for value in request.values:
        meant = terms(value).concepts  # 'Gwangjin' means 광진구, in the other language too
        value = value.casefold()
        if (len(value) >= 2 and (value in low or (len(low) >= 2 and low in value))) or (
            meant and meant <= found.concepts
        ):
            score += 3
    score += sum(1 for key in request.terms.names() if key not in common and found.has(key))
    numbers = {int(float(n)) for n in re.findall(r"\d+", text)}
    return score + len(request.number_set & numbers)


def described(candidate: Candidate, param: Param, tool_description: str) -> str:
    """A value with the words next to it in the message and in the descriptions that speak of it alone
    (``kids: 어린이용 새싹 자전거``)."""
    others = [str(v).casefold() for v in (param.enum or []) if str(v) != candidate.value]
    said = [candidate.value, candidate.context]
    for clause in _CLAUSE.split(f"{param.description}\n{tool_description}"):
        words = set(_glossary.tokens(clause))
        if candidate.value.casefold() in words and not words.intersection(others):
            said.append(clause)
    return " ".join(said)


def from_results(asked: Request, param: Param, steps: list[Step]) -> tuple[Any, str] | None:
    """A value for `param` from what an earlier call returned, and that call's tool."""
    for step in reversed(steps):
        if step.is_error:
            continue
        data = step.structured
        if data is None:
            try:
                data = json.loads(step.text)
            except ValueError:
                continue
        value = dig(asked, data, param.name)
        if value is not None and param.convert(value) is not None:
            return param.convert(value), step.call.tool
    return None


def dig(asked: Request, data: Any, name: str) -> Any:
    """The value of `name` in a result: its field (``id`` for a ``..._id``), inside ``result`` too; in
    a list, the item that has it, or among several the one that fits `asked` (None when none can be told)."""
    if isinstance(data, dict):
        if name in data and not isinstance(data[name], dict | list):
            return data[name]
        if name.endswith("_id") and "id" in data and not isinstance(data["id"], dict | list):
            return data["id"]
        if "result" in data:
            return dig(asked, data["result"], name)
        return None
    if isinstance(data, list):
        having = [item for item in data if dig(asked, item, name) is not None]
        if len(having) == 1:
            return dig(asked, having[0], name)
        fits = [fit(asked, json.dumps(item, ensure_ascii=False)) for item in having]
        if fits and max(fits) > 0 and fits.count(max(fits)) == 1:
            return dig(asked, having[fits.index(max(fits))], name)
    return None
