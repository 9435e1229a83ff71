"""The lint rules themselves: what to look for in one tool's name, description, schema and annotations.

Pure detection: `check` returns raw hits ``(rule id, field, values)``; `_lint` turns them into
findings with severities and messages. The thresholds and word lists are here, each with its why.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Iterator, Mapping, Sequence, Set
from typing import Any

from ..core._guards import looks_secret, name_tokens
from ..core._idempotency import KEY_PARAMETER
from ..core._kinds import kind_of_annotation
from ..core._tool_entry import ToolEntry
from ._blocking import blocking_calls
from ._icons import icon_hits
from ._long_calls import progress_in_loop

Hit = tuple[str, str | None, dict[str, Any]]
"""A rule that fired: its id, the parameter path (or None) and the values its messages need."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


MAX_PARAMETERS = 6
SHORT_DESCRIPTION = 20
CLIENT_NAME_LIMIT = 64  # stricter clients (Windsurf; model APIs behind Claude Code and others)
ASSUMED_SERVER_NAME = 16  # for the room a client's "mcp__<server>__" prefix takes
PREFIXED_NAME_LIMIT = CLIENT_NAME_LIMIT - len("mcp__") - ASSUMED_SERVER_NAME - len("__")

_SPEC_NAME_RE = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
_CLIENT_BAD_RE = re.compile(r"[^A-Za-z0-9_\-]")
_WHEN_RE = re.compile(
    r"\b(use (this|it|when|for|to|only|if|after|before)|when(ever)?|for questions|if the user|"
    r"call (this|it|when|after|before|only|if)|only (if|for|after|before|when)|if you (need|want)|"
    r"useful (for|when))\b|사용|때|경우|호출",
    re.IGNORECASE,
)
_WHEN_NOT_RE = re.compile(
    r"\b(not for|not to be used|do not|don't|never|instead|rather than|otherwise|not when|only for)\b|"
    r"대신|말고|쓰지|사용하지|아닌|않|안 됩니다",
    re.IGNORECASE,
)
# Words shared by unrelated tools ("get_user", "get_order") say nothing about similarity.
_GENERIC_WORDS = _words(
    "get set list create update delete add remove make new do run fetch find search read write put post "
    "show by to of for and or the a an all my from with in on tool mcp api"
)
# In descriptions the verbs matter ("Add a card" vs "Add several cards"); filler and the usual guidance
# wording ("Use when the user asks", "사용하세요", "합니다") would make every pair look alike.
_FILLER_WORDS = _words(
    "a an the to of for and or by in on at with from one this that it is are be use used when call user "
    "ask asks asked need needs want wants only not instead tool 합니 니다 습니 세요 하세 사용 용하 하면 경우"
)
_CLOSED_SET_WORDS = _words(
    "type status state kind mode unit category level format sort order direction priority severity role "
    "color colour lang language currency country gender tier plan method strategy scope visibility variant "
    "style theme size action operation"
)
_IDENTIFIER_WORDS = _words(
    "id ids name key url uri path query text description note comment message title body content"
)
_POSITION_WORDS = frozenset({"x", "y", "left", "top", "right", "bottom"})
_SIZE_WORDS = frozenset({"w", "h", "width", "height"})
_PIXEL_WORDS = frozenset({"px", "pixel", "pixels"})


def check(entry: ToolEntry, everyone: Sequence[ToolEntry]) -> list[Hit]:
    """Every rule that fires for `entry`; `everyone` is the set it is compared with (MCP013)."""
    return _Check(entry, everyone).run()


class _Check:
    """The rules, applied to one tool."""

    def __init__(self, entry: ToolEntry, everyone: Sequence[ToolEntry]) -> None:
        self.entry = entry
        self.everyone = everyone
        self.hits: list[Hit] = []
        self._seen: set[tuple[str, str | None]] = set()

    def add(self, rule_id: str, field: str | None = None, **values: Any) -> None:
        if (rule_id, field) in self._seen:  # anyOf branches can reach one parameter twice
            return
        self._seen.add((rule_id, field))
        self.hits.append((rule_id, field, values))

    def run(self) -> list[Hit]:
        self.name()
        self.description()
        self.parameters()
        self.behaviour()
        self.output()
        self.runtime()
        for rule_id, field, values in icon_hits(self.entry.icons):
            self.add(rule_id, field, **values)
        return self.hits

    def name(self) -> None:
        name = self.entry.name
        if not _SPEC_NAME_RE.fullmatch(name):
            suggestion = _CLIENT_BAD_RE.sub("_", name).strip("_")[:PREFIXED_NAME_LIMIT] or "my_tool"
            self.add("MCP001", name=name, suggestion=suggestion)
            return
        bad = sorted(set(_CLIENT_BAD_RE.findall(name)))
        if bad:
            chars = ", ".join(repr(c) for c in bad)
            self.add("MCP002", chars=chars, suggestion=_CLIENT_BAD_RE.sub("_", name))
        if len(name) > CLIENT_NAME_LIMIT:
            self.add("MCP003", n=len(name), limit=PREFIXED_NAME_LIMIT)
        elif len(name) > PREFIXED_NAME_LIMIT:
            self.add("MCP004", n=len(name), server=ASSUMED_SERVER_NAME, limit=PREFIXED_NAME_LIMIT)

    def description(self) -> None:
        text = (self.entry.description or "").strip()
        if not text:
            self.add("MCP010")
            return
        if len(text) < SHORT_DESCRIPTION:
            self.add("MCP011", n=len(text))
        if not _WHEN_RE.search(text):
            self.add("MCP012")
        similar = [other for other in self.everyone if _similar(self.entry, other)]
        if similar and not _WHEN_NOT_RE.search(text) and not any(o.name in text for o in similar):
            self.add("MCP013", similar=", ".join(o.name for o in similar), other=similar[0].name)

    def parameters(self) -> None:
        schema = self.entry.input_schema
        properties: dict[str, Any] = schema.get("properties") or {}
        defs: dict[str, Any] = schema.get("$defs") or {}
        counted = [name for name in properties if name != KEY_PARAMETER]
        if len(counted) > MAX_PARAMETERS:
            self.add("MCP021", n=len(counted), limit=MAX_PARAMETERS)
        for name in counted:
            sub = properties[name]
            if not (isinstance(sub, dict) and str(sub.get("description") or "").strip()):
                self.add("MCP020", name, param=name)
        if not _closed(schema):
            self.add("MCP024", None, param="inputSchema")
        self.pixels(properties, None)
        for path, node in _nodes(properties, defs, ""):
            self.node(path, node)

    def node(self, path: str, node: dict[str, Any]) -> None:
        name = re.sub(r"(\[\]|\{\})+$", "", path.rpartition(".")[2])
        kinds = _types(node)
        if name != KEY_PARAMETER and looks_secret(name):
            self.add("MCP050", path, param=path)
        if "string" in kinds and not {"enum", "const", "pattern", "maxLength", "format"} & node.keys():
            words = {_singular(word) for word in name_tokens(name)}
            if words & _CLOSED_SET_WORDS and not words & _IDENTIFIER_WORDS:
                self.add("MCP022", path, param=path)
        if {"integer", "number"} & kinds and not {"enum", "const"} & node.keys():
            missing = [k for k in ("minimum", "maximum") if not {k, "exclusive" + k.title()} & node.keys()]
            if missing:
                self.add("MCP023", path, param=path, missing="/".join(missing))
        if "object" in kinds and not _closed(node):
            self.add("MCP024", path, param=path)
        if isinstance(node.get("properties"), dict):
            self.pixels(node["properties"], path)

    def pixels(self, properties: dict[str, Any], path: str | None) -> None:
        numeric = [
            n for n, s in properties.items() if isinstance(s, dict) and {"integer", "number"} & _types(s)
        ]
        words = {n: set(name_tokens(n)) for n in numeric}
        position = [n for n in numeric if words[n] & _POSITION_WORDS]
        size = [n for n in numeric if words[n] & _SIZE_WORDS]
        pixel = [n for n in numeric if words[n] & _PIXEL_WORDS]
        if (position and size) or pixel:
            names = [n for n in numeric if n in {*position, *size, *pixel}]
            self.add("MCP025", path, params=", ".join(names))

    def behaviour(self) -> None:
        notes = self.entry.annotations
        read_only = notes.get("readOnlyHint") is True
        destructive = notes.get("destructiveHint") is True
        if read_only and destructive:
            self.add("MCP032")
            return
        properties = self.entry.input_schema.get("properties") or {}
        if not read_only and KEY_PARAMETER not in properties and notes.get("idempotentHint") is not True:
            self.add("MCP030")
        # approval="always" asks a person even when the server runs with approval="auto".
        # A hidden tool (expose=False) is only ever called by the person at the notebook.
        if destructive and self.entry.approval != "always" and getattr(self.entry, "expose", True):
            self.add("MCP031")

    def output(self) -> None:
        returns = _structured_return(self.entry.fn)
        schema = self.entry.output_schema
        if returns and schema is None:
            self.add("MCP040", returns=returns)
        elif schema is not None and schema.get("type") == "object" and set(schema) <= {"type", "title"}:
            self.add("MCP041")

    def runtime(self) -> None:
        calls = blocking_calls(self.entry.fn)
        if calls:
            self.add("MCP060", calls=", ".join(calls), first=calls[0])
        if self.entry.task == "never" and progress_in_loop(self.entry.fn, self.entry.context):
            self.add("MCP061", context=self.entry.context)


def _nodes(properties: Mapping[str, Any], defs: Mapping[str, Any], prefix: str) -> Iterator[tuple[str, Any]]:
    for name, sub in properties.items():
        yield from _expand(prefix + name, sub, defs, frozenset())


def _expand(path: str, node: Any, defs: Mapping[str, Any], refs: frozenset[str]) -> Iterator[tuple[str, Any]]:
    """Every subschema under a parameter, with its path; ``$ref`` followed once per branch."""
    if not isinstance(node, dict):
        return
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref not in refs:
        yield from _expand(path, defs.get(ref.rpartition("/")[2]), defs, refs | {ref})
    yield path, node
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in node.get(key) or []:
            yield from _expand(path, branch, defs, refs)
    for item in [node.get("items"), *(node.get("prefixItems") or [])]:
        yield from _expand(path + "[]", item, defs, refs)
    if isinstance(node.get("additionalProperties"), dict):
        yield from _expand(path + "{}", node["additionalProperties"], defs, refs)
    for name, sub in (node.get("properties") or {}).items():
        yield from _expand(f"{path}.{name}", sub, defs, refs)


def _types(node: Mapping[str, Any]) -> set[str]:
    kind = node.get("type")
    if isinstance(kind, str):
        return {kind}
    return {k for k in kind if isinstance(k, str)} if isinstance(kind, list) else set()


def _closed(node: Mapping[str, Any]) -> bool:
    # A typed map (dict[str, int]) has a schema for its values: a deliberate map, not an open object.
    extra = node.get("additionalProperties")
    return (
        extra is False
        or (isinstance(extra, dict) and bool(extra))
        or node.get("unevaluatedProperties") is False
    )


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ses") and len(word) > 4:  # statuses, classes
        return word[:-2]
    return (
        word[:-1] if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3 else word
    )


def _name_words(name: str) -> set[str]:
    return {_singular(word) for word in name_tokens(name)} - _GENERIC_WORDS


def _trigrams(text: str) -> set[str]:
    flat = " ".join(text.lower().split())
    return {flat[i : i + 3] for i in range(len(flat) - 2)}


def _content_words(text: str) -> set[str]:
    """English words, and Korean as character pairs (particles glue onto words: "보드에", "보드를")."""
    words: set[str] = set()
    for run in re.findall(r"[a-z0-9]+|[가-힣]+", text.lower()):
        if run.isascii():
            words.add(_singular(run))
        else:
            words.update({run[i : i + 2] for i in range(len(run) - 1)} or {run})
    return words - _FILLER_WORDS


def _similar(entry: ToolEntry, other: ToolEntry) -> bool:
    """Tools a model could confuse: near-same descriptions, or a shared name noun and related descriptions."""
    if other.name == entry.name:
        return False
    mine, theirs = _trigrams(entry.description or ""), _trigrams(other.description or "")
    if mine and theirs and len(mine & theirs) / len(mine | theirs) >= 0.6:
        return True
    if not _name_words(entry.name) & _name_words(other.name):
        return False
    # Containment, not Jaccard: a terse "Add a card." sits wholly inside "Add several cards to the board".
    words, their_words = _content_words(entry.description or ""), _content_words(other.description or "")
    if not words or not their_words:
        return not theirs
    return len(words & their_words) / min(len(words), len(their_words)) >= 0.5


def _structured_return(fn: Any) -> str | None:
    """How the return annotation reads, when it is structured data (dict, list, dataclass ...)."""
    try:
        returns = typing.get_type_hints(fn).get("return")
    except Exception:  # unresolvable hints are reported when the tool is defined, not here
        return None
    if returns is None or not _is_structured(returns):
        return None
    return (
        getattr(returns, "__name__", None)
        if isinstance(returns, type)
        else str(returns).replace("typing.", "")
    )


def _is_structured(tp: Any) -> bool:
    if kind_of_annotation(tp) is not None:  # a content kind (bytes, one a notebook registered): no schema
        return False
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return any(_is_structured(arg) for arg in typing.get_args(tp))
    base = origin or tp
    if not isinstance(base, type) or issubclass(base, str | bytes | bytearray):
        return False
    if (
        issubclass(base, Mapping | Sequence | Set)
        or dataclasses.is_dataclass(base)
        or typing.is_typeddict(base)
    ):
        return True
    # pydantic models and DataFrames, recognised by what they can do, as _results does
    return hasattr(base, "model_json_schema") or (hasattr(base, "to_dict") and hasattr(base, "columns"))
