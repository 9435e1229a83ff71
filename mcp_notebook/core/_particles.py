"""Korean particles chosen from the word before them: 노트북이 / 서버가, 파일을 / 도구를.

A particle depends on how the word before it ends when read aloud: on a consonant (a final, 받침) or on
a vowel, and for (으)로 whether that consonant is ㄹ (서울로, 집으로). Messages name runtime values (a
tool, a client, a number, a path), so the choice is made from the value when the message is formatted,
never written as ``을(를)``. How a value is read aloud:

- Hangul: its last syllable's final (노트북 → ㄱ, 바다 → none, 서울 → ㄹ).
- Digits: the Korean name of the last digit (1 일, 2 이, 3 삼, 4 사, 5 오, 6 육, 7 칠, 8 팔, 9 구, 0 영);
  a number ending in 0 ends in 십, 백, 천 or 만 when not in 영, a consonant other than ㄹ all the same.
- Latin letters read one by one (acronyms such as ``GPT``, ``HTML``; a single letter; a lower-case run
  without a vowel letter such as ``csv``, ``npm``): the name of the last letter (엘 엠 엔 알 end in a
  consonant, the others in a vowel).
- Other Latin words: as a Korean reader says the loanword. ``-ng`` ㅇ; ``l``, ``m``, ``n`` and a silent
  ``-le``, ``-me``, ``-ne`` (file, name, line) ㄹ/ㅁ/ㄴ; ``k``, ``c``, ``p``, ``b``, ``t`` after a vowel
  letter or doubled (book, magic, map, web, chat) ㄱ/ㅂ/ㅅ, after another consonant a vowel (desk 데스크,
  sync 싱크, help 헬프, test 테스트); every other ending a vowel (code 코드, user 유저). English spelling
  does not always tell, so this is a best effort: ``json`` 제이슨 → 을, ``api`` → 를, ``bob`` → 이.
- What is not read aloud is skipped: closing quotes, brackets and punctuation (``'abc'`` is ``abc``),
  markup (``<code>x</code>``) and a trailing aside in parentheses (``f()``, ``철수(친구)``).
- Anything else, and an empty value, takes the form for a vowel (를, 가, 는, 와, 로).
"""

from __future__ import annotations

import re

PARTICLES: dict[str, tuple[str, str]] = {
    "을/를": ("을", "를"),
    "이/가": ("이", "가"),
    "은/는": ("은", "는"),
    "과/와": ("과", "와"),
    "으로/로": ("으로", "로"),
    "이라고/라고": ("이라고", "라고"),
    "이라는/라는": ("이라는", "라는"),
    "이어야/여야": ("이어야", "여야"),
}
"""The pairs a message may use, written consonant form first, as in ``{name:을/를}``."""

_DIGIT_FINAL = {"0": "ㅇ", "1": "ㄹ", "3": "ㅁ", "6": "ㄱ", "7": "ㄹ", "8": "ㄹ"}  # 영 일 삼 육 칠 팔
_LETTER_FINAL = {"L": "ㄹ", "M": "ㅁ", "N": "ㄴ", "R": "ㄹ"}  # 엘 엠 엔 알; other letters end in a vowel
_WORD_FINAL = {"l": "ㄹ", "m": "ㅁ", "n": "ㄴ"}
_AFTER_A_VOWEL = {"k": "ㄱ", "c": "ㄱ", "p": "ㅂ", "b": "ㅂ", "t": "ㅅ"}  # book 북, but desk 데스크
_SILENT_E = {"l": "ㄹ", "m": "ㅁ", "n": "ㄴ"}  # file 파일, name 네임, line 라인
_VOWELS = frozenset("aeiouy")
_TAG = re.compile(r"<[^>]*>")
_TRAILING_ASIDE = re.compile(r"\s*\([^()]*\)\s*$")
_LETTERS = re.compile(r"[A-Za-z]+$")
_NOT_READ = " '\"`)]}>…·.,:;!?"


def final_sound(word: str) -> str | None:
    """The final consonant of `word` read aloud in Korean (ㄹ, or ㅇ for any other), None after a vowel."""
    word = _TAG.sub("", word)
    while True:
        shorter = _TRAILING_ASIDE.sub("", word)
        if shorter == word or not shorter.strip():
            break
        word = shorter
    stripped = word.rstrip(_NOT_READ)
    if not stripped:
        return None
    last = stripped[-1]
    if "가" <= last <= "힣":
        index = (ord(last) - ord("가")) % 28
        return None if index == 0 else ("ㄹ" if index == 8 else "ㅇ")  # only ㄹ matters beyond yes/no
    if last.isdigit():
        return _DIGIT_FINAL.get(last)
    found = _LETTERS.search(stripped)
    if found is None:
        return None
    letters = found.group()
    if _read_letter_by_letter(letters):
        return _LETTER_FINAL.get(letters[-1].upper())
    return _word_final(letters.lower())


def _read_letter_by_letter(letters: str) -> bool:
    if len(letters) == 1 or (letters[-1].isupper() and letters[-2].isupper()):
        return True  # x, GPT, getURL
    return letters.islower() and not _VOWELS.intersection(letters)  # csv, npm


def _word_final(word: str) -> str | None:
    last, before = word[-1], word[-2]
    if word.endswith("ng"):
        return "ㅇ"
    if last in _WORD_FINAL:
        return _WORD_FINAL[last]
    if last == "e" and before in _SILENT_E and len(word) > 2:
        return _SILENT_E[before]
    if last in _AFTER_A_VOWEL and (before in _VOWELS or before == last or (last, before) == ("k", "c")):
        return _AFTER_A_VOWEL[last]
    return None


def with_particle(word: str, particle: str) -> str:
    """`word` followed by the Korean particle that fits it: ``with_particle("노트북", "이/가") == "노트북이"``.

    `particle` names a pair of `PARTICLES`, consonant form first: ``"을/를"``, ``"이/가"``, ``"은/는"``,
    ``"과/와"``, ``"으로/로"``, ``"이라고/라고"``, ``"이라는/라는"`` or ``"이어야/여야"``. Words in
    Latin letters or digits are read aloud the Korean way (see the module docstring):
    ``"claude-code를"``, ``"notebook을"``, ``"GPT가"``, ``"student-7이"``.
    """
    after_consonant, after_vowel = PARTICLES[particle]
    final = final_sound(word)
    if particle == "으로/로":
        return word + (after_consonant if final not in (None, "ㄹ") else after_vowel)
    return word + (after_consonant if final is not None else after_vowel)
