"""What the scripted model understands of a text: its meaningful words, as meanings shared across
Korean and English (``content/agent_glossary.toml``).

A text becomes `Terms`: the glossary's concepts it names (자전거, 따릉이, bike and bicycles are all
``bike``) and the other words it uses that say something (stop words and one-syllable Korean words
left out). Two texts meet on a concept whatever words and language each uses, and on another word
when both write it (a Korean particle or an English plural aside: 대여소에 / 대여소는, note / notes).

Nothing here counts how often a word comes: a text names a concept or it does not.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GLOSSARY = Path(__file__).with_name("content") / "agent_glossary.toml"

_TOKEN = re.compile(r"[A-Za-z]+|[0-9]+(?:\.[0-9]+)?|[\uac00-\ud7a3]+")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


@dataclass(frozen=True)
class _Entry:
    concept: str
    words: tuple[str, ...]  # one phrase, word by word, casefolded

    @property
    def weight(self) -> tuple[int, int]:
        return len(self.words), sum(len(w.strip("~")) for w in self.words)


@dataclass(frozen=True)
class _Glossary:
    entries: tuple[_Entry, ...]
    # Where a phrase can start, so that `_spans` tries a handful of entries per token, not all of them
    # (each a position in `entries`, which keeps their order: the first of equal weight wins).
    by_stem: Mapping[str, tuple[int, ...]]  # English first word, by its stem
    by_first: Mapping[str, tuple[int, ...]]  # Korean first word, by its first syllable
    by_last: Mapping[str, tuple[int, ...]]  # Korean one-word phrase, by its last syllable (`_ends`)
    by_concept: Mapping[str, Mapping[str, tuple[str, ...]]]
    stop: frozenset[str]
    particles: tuple[str, ...]  # longest first
    numbers: Mapping[str, int]
    counters: frozenset[str]
    actions: frozenset[str]


@functools.cache
def _glossary() -> _Glossary:
    with GLOSSARY.open("rb") as file:
        data = tomllib.load(file)
    entries = [
        _Entry(concept, tuple([word.casefold()] if "~" in word else tokens(word)))
        for concept, languages in data["concepts"].items()
        for words in languages.values()
        for word in words
    ]
    numbers = {**data["numbers"]["en"], **data["numbers"]["ko"]}
    ordered = tuple(sorted(entries, key=lambda e: e.weight, reverse=True))
    by_stem: dict[str, list[int]] = {}
    by_first: dict[str, list[int]] = {}
    by_last: dict[str, list[int]] = {}
    for position, entry in enumerate(ordered):
        first = entry.words[0]
        if not _HANGUL.match(first.strip("~")):
            by_stem.setdefault(stem(first), []).append(position)
        elif not first.startswith("~"):
            by_first.setdefault(first[0], []).append(position)
        if len(entry.words) == 1 and _HANGUL.match(first.strip("~")) and " " not in first:
            by_last.setdefault(first[-1], []).append(position)
    return _Glossary(
        entries=ordered,
        by_stem={key: tuple(value) for key, value in by_stem.items()},
        by_first={key: tuple(value) for key, value in by_first.items()},
        by_last={key: tuple(value) for key, value in by_last.items()},
        by_concept={
            concept: {lang: tuple(words) for lang, words in languages.items()}
            for concept, languages in data["concepts"].items()
        },
        stop=frozenset(w.casefold() for words in data["stop"].values() for w in words),
        particles=tuple(sorted(data["particles"]["ko"], key=len, reverse=True)),
        numbers={word.casefold(): int(value) for word, value in numbers.items()},
        counters=frozenset(w.casefold() for w in data["numbers"]["counters"]),
        actions=frozenset(data.get("actions", {}).get("concepts", ())),
    )


def tokens(text: str) -> list[str]:
    """The words of `text`, casefolded, split where the script changes (``ID를`` is ``id``, ``를``)."""
    return [m.casefold() for m in _TOKEN.findall(text)]


@functools.lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """An English word without its plural or -ing/-ed ending (``bikes``, ``riding``); Korean as is."""
    w = word.casefold()
    if _HANGUL.match(w) or not w.isalpha():
        return w
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith(("ches", "shes", "xes", "sses")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif len(w) > 4 and w.endswith("ed"):
        w = w[:-2]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]  # running → run
    if len(w) >= 5 and w.endswith("e"):
        w = w[:-1]  # locate / located
    return w


@functools.lru_cache(maxsize=8192)
def without_particle(word: str) -> str:
    """A Korean word without the particle it ends in (``대여소에`` → ``대여소``), when two syllables
    or more are left; any other word as is."""
    if not _HANGUL.match(word):
        return word
    for particle in _glossary().particles:
        if word.endswith(particle) and len(word) - len(particle) >= 2:
            return word[: -len(particle)]
    return word


def same_word(a: str, b: str) -> bool:
    """Whether two words the glossary does not know count as one: the same English stem, or Korean words
    that differ only where a particle goes (``대여소에`` / ``대여소를``), when two syllables agree."""
    a, b = a.casefold(), b.casefold()
    if a == b:
        return True
    if _HANGUL.match(a) and _HANGUL.match(b):
        short = min(a, b, key=len)
        common = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(short))
        return common >= max(2, len(short) - 1)
    if _HANGUL.match(a) or _HANGUL.match(b):
        return False
    return len(min(a, b, key=len)) >= 3 and stem(a) == stem(b)


def _matches(word: str, token: str) -> bool:
    if not _HANGUL.match(word.strip("~")):
        return token == word or stem(token) == stem(word)
    if word.startswith("~"):
        return False  # an ending: see `_ends`
    if word.endswith("~"):
        return token.startswith(word[:-1])
    if len(word) >= 2:
        return token.startswith(word)
    return token == word or (token.startswith(word) and token[len(word) :] in _glossary().particles)


def _ends(word: str, token: str) -> bool:
    """Whether a Korean `token` ends in `word` before its particle: the last part of a compound
    (한강식당에 ends in 식당), or a one-syllable ending written ``~구`` in a word of three syllables."""
    if not _HANGUL.match(token) or " " in word:
        return False
    base = without_particle(token)
    if word.startswith("~"):
        return len(base) >= 3 and base.endswith(word[1:])
    return (
        len(word) >= 2 and _HANGUL.match(word) is not None and len(base) > len(word) and base.endswith(word)
    )


def is_stop(token: str) -> bool:
    """Whether `token` says nothing about what a tool does (a stop word, a digit, or too short)."""
    stop = _glossary().stop
    if token in stop or without_particle(token) in stop:
        return True
    if token[0].isdigit():
        return True
    return len(token) < 2


@dataclass(frozen=True)
class Terms:
    """The meaningful words of a text: `concepts` of the glossary it names, and `others` (words the
    glossary does not know), with the words as written (`written`, by key: a concept, or ``=word``)."""

    concepts: frozenset[str] = frozenset()
    others: tuple[str, ...] = ()
    written: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def names(self) -> list[str]:
        """Every term once: the concepts, then ``=word`` for each other word."""
        return [*sorted(self.concepts), *dict.fromkeys(f"={w}" for w in self.others)]

    def has(self, key: str) -> bool:
        """Whether this text has the term `key` (a concept, or ``=word`` matched as `same_word` does)."""
        if key.startswith("="):
            return any(same_word(key[1:], other) for other in self.others)
        return key in self.concepts

    def shared(self, other: Terms) -> list[str]:
        """The keys of this text's terms that `other` has too."""
        return [key for key in self.names() if other.has(key)]

    @property
    def size(self) -> int:
        """How many different things the text says (a repeated word or a synonym adds nothing)."""
        return len(self.concepts) + len({without_particle(stem(w)) for w in self.others})

    def __or__(self, other: Terms) -> Terms:
        written = {
            k: tuple(dict.fromkeys([*self.written.get(k, ()), *other.written.get(k, ())]))
            for k in {*self.written, *other.written}
        }
        return Terms(self.concepts | other.concepts, (*self.others, *other.others), written)


@functools.lru_cache(maxsize=4096)
def terms(text: str) -> Terms:
    """The `Terms` of `text` (see the module docstring)."""
    found = tokens(text)
    concepts: set[str] = set()
    others: list[str] = []
    written: dict[str, list[str]] = {}
    for start, end, concept in _spans(found):
        if concept is not None:
            concepts.add(concept)
            written.setdefault(concept, []).append(" ".join(found[start:end]))
        elif not is_stop(found[start]) and not (_HANGUL.match(found[start]) and len(found[start]) < 2):
            others.append(found[start])
            written.setdefault(f"={found[start]}", []).append(found[start])
    return Terms(frozenset(concepts), tuple(others), {k: tuple(v) for k, v in written.items()})


def _spans(found: list[str]) -> Iterator[tuple[int, int, str | None]]:
    """(start, end, concept) over the tokens, each glossary phrase taken longest first (a compound's last
    part before its first, as Korean names a thing by its last part); a token no phrase starts at comes
    alone, with no concept."""
    glossary = _glossary()
    entries = glossary.entries
    index = 0
    while index < len(found):
        best: tuple[tuple[int, int, int], _Entry] | None = None
        for entry in (entries[position] for position in _candidates(found[index])):
            size = len(entry.words)
            if index + size > len(found):
                continue
            if all(_matches(word, token) for word, token in zip(entry.words, found[index:], strict=False)):
                rank = (*entry.weight, 0)
            elif size == 1 and _ends(entry.words[0], found[index]):
                rank = (*entry.weight, 1)
            else:
                continue
            if best is None or rank > best[0]:
                best = (rank, entry)
        if best is not None:
            size = len(best[1].words)
            yield index, index + size, best[1].concept
            index += size
        else:
            yield index, index + 1, None
            index += 1


@functools.lru_cache(maxsize=8192)
def _candidates(token: str) -> tuple[int, ...]:
    """The positions of the entries that may start at `token`, in order: those whose first word
    `_matches` it or, for one-word phrases, `_ends` it; no other entry can (see the index above)."""
    glossary = _glossary()
    found = {*glossary.by_stem.get(stem(token), ()), *glossary.by_first.get(token[:1], ())}
    if _HANGUL.match(token):
        base = without_particle(token)
        found.update(glossary.by_last.get(base[-1:], ()))
    return tuple(sorted(found))


def concepts_of(text: str) -> frozenset[str]:
    """The glossary's concepts `text` names (``"새싹 자전거"`` → ``{"kids", "bike"}``)."""
    return terms(text).concepts


def synonyms(concept: str) -> dict[str, tuple[str, ...]]:
    """The words of `concept` by language (``{"en": (...), "ko": (...)}``); empty for an unknown one."""
    return dict(_glossary().by_concept.get(concept, {}))


def words(text: str) -> set[str]:
    """The words of `text` that carry meaning, as written (a glossary phrase whole: ``how many``): no
    stop word, no Korean word of one syllable the glossary does not know."""
    return {phrase for written in terms(text).written.values() for phrase in written}


def number_words() -> Mapping[str, int]:
    """Number words read as numbers before a counter (``두`` → 2 in ``두 시간``; ``two hours``)."""
    return _glossary().numbers


def is_counter(token: str) -> bool:
    """Whether `token` counts something after a number (시간, 대, hours ...)."""
    glossary = _glossary()
    if token in glossary.counters or stem(token) in glossary.counters:
        return True
    return any(token.startswith(c) and token[len(c) :] in glossary.particles for c in glossary.counters)


def data() -> Mapping[str, Any]:
    """The glossary file as read (for tests and tools that list its concepts)."""
    with GLOSSARY.open("rb") as file:
        return tomllib.load(file)


def actions() -> frozenset[str]:
    """The concepts that say what a tool does to the world (``[actions]`` of the glossary)."""
    return _glossary().actions
