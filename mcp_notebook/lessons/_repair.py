"""What a tool's error message says would fix the call, read the way the scripted model reads it.

`read` finds, clause by clause (a line, or a sentence):

- ``param=value``: a value to use, said outright;
- bounds: ``hours <= 3``, "at most 3", "at least 1", "from 9 to 17", "between 1 and 12", the server's
  "greater than the maximum of 3", and in Korean ``3 이하``, ``9 이상``, ``9시부터 17시까지``,
  ``최댓값 3``, ``미만``, ``초과``;
- values to choose from: quoted values, ``['a', 'b']``, "one of: a, b, c", ``a, b, c 중 하나``, and a
  list after a colon (``일기가 있는 날짜: 2026-03-01, 2026-03-02``), each with the words next to it
  (``'ST-1043'(여의나루역 1번출구 앞)``: the ID, and what it is the ID of);
- other tools it names (``find_station으로 먼저 찾으세요``).

Which of these fits *this* request is for the model to judge (`mcp_notebook.lessons._scripted`): a
message is only read here, never trusted blindly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

QUOTED = re.compile(r"""(?<![A-Za-z0-9])['"`‘“]([^'"`’”\n]+?)['"`’”](?![A-Za-z0-9])""")
"""A value in quotes: the quote opens after no letter or digit (``kids' bikes`` has none) and closes
before none (``'ST-1043'에`` has one, the particle is Hangul)."""

ID_LIKE = re.compile(
    r"(?<![A-Za-z0-9_-])(?:\d{4}-\d{2}-\d{2}|[A-Za-z]{1,6}[-_]?\d{2,}[A-Za-z0-9-]*)(?![A-Za-z0-9_-])"
)
"""An identifier written without quotes: ``ST-1043``, ``A12``, a date ``2026-03-01`` (a Korean particle
may follow: ``B201을``)."""

_NUMBER = r"(-?\d+(?:\.\d+)?)"
_UNIT = r"\s*[\uac00-\ud7a3]{0,2}\s*"  # 9시, 1시간, 3대: a counter between a number and 이하/부터

# (pattern, kind): kind is "le", "ge", "lt", "gt" or "range"; specific phrasings come before general
# ones, and a number once read is not read again ("greater than the maximum of 3" is "<= 3", not "> 3").
_BOUNDS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            rf"(?:greater|more|larger|higher) than the maximum(?: of| allowed)?(?: is)?\s*{_NUMBER}", re.I
        ),
        "le",
    ),
    (
        re.compile(
            rf"(?:less|smaller|lower|fewer) than the minimum(?: of| allowed)?(?: is)?\s*{_NUMBER}", re.I
        ),
        "ge",
    ),
    (re.compile(rf"between\s*{_NUMBER}\s*and\s*{_NUMBER}", re.I), "range"),
    (re.compile(rf"from\s*{_NUMBER}\s*(?:to|until|through)\s*{_NUMBER}", re.I), "range"),
    (re.compile(rf"{_NUMBER}{_UNIT}부터\s*{_NUMBER}{_UNIT}까지"), "range"),
    (re.compile(rf"{_NUMBER}\s*(?:~|\.\.|–|—)\s*{_NUMBER}"), "range"),
    (re.compile(rf"(?:<=|≤|=<)\s*{_NUMBER}"), "le"),
    (re.compile(rf"(?:>=|≥|=>)\s*{_NUMBER}"), "ge"),
    (re.compile(rf"(?<![-=<>])<\s*{_NUMBER}"), "lt"),
    (re.compile(rf"(?<![-=<>])>\s*{_NUMBER}"), "gt"),
    (
        re.compile(
            rf"(?:at most|no more than|not more than|up to|cannot exceed|must not exceed|not exceed|"
            rf"maximum(?: of| is)?:?|max:?)\s*{_NUMBER}",
            re.I,
        ),
        "le",
    ),
    (re.compile(rf"{_NUMBER}\s*or (?:less|fewer|lower|below|under|earlier)", re.I), "le"),
    (
        re.compile(rf"(?:at least|no less than|not less than|minimum(?: of| is)?:?|min:?)\s*{_NUMBER}", re.I),
        "ge",
    ),
    (re.compile(rf"{_NUMBER}\s*or (?:more|greater|higher|above|over|later)", re.I), "ge"),
    (re.compile(rf"(?:less|fewer|lower|smaller) than\s*{_NUMBER}|(?:under|below)\s+{_NUMBER}", re.I), "lt"),
    (re.compile(rf"(?:more|greater|larger|higher) than\s*{_NUMBER}|(?:above|over)\s+{_NUMBER}", re.I), "gt"),
    (re.compile(rf"(?:최댓값|최대값|최대)\s*{_NUMBER}"), "le"),
    (re.compile(rf"(?:최솟값|최소값|최소)\s*{_NUMBER}"), "ge"),
    (re.compile(rf"{_NUMBER}{_UNIT}이하"), "le"),
    (re.compile(rf"{_NUMBER}{_UNIT}이상"), "ge"),
    (re.compile(rf"{_NUMBER}{_UNIT}미만"), "lt"),
    (re.compile(rf"{_NUMBER}{_UNIT}초과"), "gt"),
    (re.compile(rf"{_NUMBER}{_UNIT}까지"), "le"),
    (re.compile(rf"{_NUMBER}{_UNIT}부터"), "ge"),
]
_ONE_OF = re.compile(r"(?:one of|any of|either)\s*:?\s*(?P<items>.+)$", re.I)
_KO_ONE_OF = re.compile(r"(?P<items>.+?)\s*(?:중|가운데)\s*(?:하나|에서|의|한)")
_KO_FOLLOWING = re.compile(r"(?:다음|아래)\s*(?:중|가운데)[^:]*:\s*(?P<items>.+)$")
_COLON_LIST = re.compile(r":\s*(?P<items>[^:]+)$")
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")
_ITEM_SPLIT = re.compile(r"\s*(?:,|;|/|\bor\b|\band\b|또는|혹은|이나)\s*")
_CLAUSE_END = re.compile(r"(?<=[.!?。;])\s+|\n+")
_PLACEHOLDER = re.compile("\x00(\\d+)\x00")


@dataclass(frozen=True)
class Bound:
    """A limit on a number: `low` and `high` (either may be None), each exclusive when said so."""

    param: str | None
    low: float | None = None
    high: float | None = None
    low_exclusive: bool = False
    high_exclusive: bool = False

    def clamp(self, value: float, *, integer: bool) -> float:
        """`value` moved to the nearest value the bound allows."""
        step = 1 if integer else 0
        if self.high is not None:
            top = self.high - step if self.high_exclusive else self.high
            value = min(value, top)
        if self.low is not None:
            bottom = self.low + step if self.low_exclusive else self.low
            value = max(value, bottom)
        return value

    def describe(self) -> str:
        """``hours <= 3``, ``9 <= start_hour <= 17``: the bound as a learner reads it."""
        name = self.param or "?"
        low = f"{_show(self.low)} {'<' if self.low_exclusive else '<='} " if self.low is not None else ""
        high = f" {'<' if self.high_exclusive else '<='} {_show(self.high)}" if self.high is not None else ""
        return f"{low}{name}{high}"


@dataclass(frozen=True)
class Candidate:
    """A value the message offers, the words next to it (`context`), and the parameter its clause
    names (`param`, None when it names none)."""

    value: str
    context: str = ""
    param: str | None = None


@dataclass
class Reading:
    """Everything a message says that could fix a call (see the module docstring)."""

    assigned: list[tuple[str, str]] = field(default_factory=list)
    bounds: list[Bound] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)


def read(message: str, params: list[str], tools: list[str]) -> Reading:
    """Read `message` for fixes, knowing the parameters of the tool that failed and the other `tools`."""
    reading = Reading()
    quoted: list[str] = []

    def protect(match: re.Match[str]) -> str:
        quoted.append(match.group(0))
        return f"\x00{len(quoted) - 1}\x00"

    protected = QUOTED.sub(protect, message)
    for clause in (c for c in _CLAUSE_END.split(protected) if c.strip()):
        _read_clause(clause, quoted, params, reading)
    reading.tools = [name for name in tools if _mentions(message, name)]
    return reading


def _read_clause(clause: str, quoted: list[str], params: list[str], reading: Reading) -> None:
    def restore(text: str) -> str:
        return _PLACEHOLDER.sub(lambda m: quoted[int(m.group(1))], text)

    named = sorted((m.start(), name) for name in params for m in _mentions_at(clause, name))
    for name in params:
        said = rf"(?<![A-Za-z0-9_]){re.escape(name)}\s*(?:=|:=|＝)\s*(\x00\d+\x00|[^\s,;:)]+)"
        for match in re.finditer(said, clause):
            reading.assigned.append((name, _unquote(restore(match.group(1)).rstrip("."))))
    consumed: list[tuple[int, int]] = []
    for pattern, kind in _BOUNDS:
        for match in pattern.finditer(clause):
            if any(a < match.end() and match.start() < b for a, b in consumed):
                continue
            consumed.append(match.span())
            numbers = [float(n) for n in match.groups() if n is not None]
            reading.bounds.append(_bound(kind, numbers, _nearest(named, match.start())))
    before = len(reading.candidates)
    for match in _BRACKETS.finditer(clause):
        items = [quoted[int(m.group(1))] for m in _PLACEHOLDER.finditer(match.group(1))]
        param = _nearest(named, match.start())
        reading.candidates += [Candidate(_unquote(item), "", param) for item in items]
    if len(reading.candidates) == before:
        listed = _listed(clause)
        if listed is not None:
            start, items = listed
            param = _nearest(named, start)
            for item in items:
                inside = _PLACEHOLDER.search(item)
                if inside:
                    value = _unquote(quoted[int(inside.group(1))])
                    rest = restore(_PLACEHOLDER.sub(" ", item, count=1))
                    reading.candidates.append(Candidate(value, _clean(rest), param))
                else:
                    reading.candidates.append(Candidate(_clean(restore(item)), "", param))
    if len(reading.candidates) == before:
        segments = re.split(r"[,;]", clause)
        for segment in segments:
            for match in _PLACEHOLDER.finditer(segment):
                value = _unquote(quoted[int(match.group(1))])
                context = restore(segment.replace(match.group(0), " "))
                reading.candidates.append(
                    Candidate(value, _clean(context), _nearest(named, clause.find(segment)))
                )
            for match in ID_LIKE.finditer(segment):  # unquoted IDs (a quoted one is a placeholder here)
                context = restore(segment).replace(match.group(0), " ")
                reading.candidates.append(
                    Candidate(match.group(0), _clean(context), _nearest(named, clause.find(segment)))
                )


def _listed(clause: str) -> tuple[int, list[str]] | None:
    """Where a list of values starts in `clause`, and its items (two at least), if it has one."""
    for pattern in (_ONE_OF, _KO_FOLLOWING, _KO_ONE_OF, _COLON_LIST):
        match = pattern.search(clause)
        if match is None:
            continue
        text = match.group("items")
        if pattern is _KO_ONE_OF and ":" in text:
            text = text.rsplit(":", 1)[1]
        items = [i.strip(" .。'\"") for i in _ITEM_SPLIT.split(text.strip().rstrip(".。"))]
        items = [i for i in items if i]
        if pattern is _KO_ONE_OF and items:
            items[0] = items[0].split()[
                -1
            ]  # "... 없습니다 영등포구, 광진구 중 하나": the list starts at its last word
        if len(items) >= 2 and all(len(i) <= 40 and len(i.split()) <= 5 for i in items):
            return match.start("items"), items
    return None


def _bound(kind: str, numbers: list[float], param: str | None) -> Bound:
    if kind == "range":
        low, high = sorted(numbers[:2])
        return Bound(param, low, high)
    (number,) = numbers[:1]
    if kind in ("le", "lt"):
        return Bound(param, high=number, high_exclusive=kind == "lt")
    return Bound(param, low=number, low_exclusive=kind == "gt")


def _nearest(named: list[tuple[int, str]], position: int) -> str | None:
    """The parameter named last before `position` in the clause, else the first one after it."""
    before = [name for start, name in named if start <= position]
    if before:
        return before[-1]
    return named[0][1] if named else None


def _mentions_at(text: str, name: str) -> list[re.Match[str]]:
    return list(re.finditer(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text))


def _mentions(text: str, name: str) -> bool:
    return bool(_mentions_at(text, name))


def _unquote(value: str) -> str:
    value = value.strip()
    match = QUOTED.fullmatch(value)
    return match.group(1) if match else value


def _clean(text: str) -> str:
    return " ".join(text.replace("\x00", " ").split()).strip(" .,:;()")


def _show(number: float | None) -> str:
    if number is None:
        return ""
    return str(int(number)) if float(number).is_integer() else str(number)
