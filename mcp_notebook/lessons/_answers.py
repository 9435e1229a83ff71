"""Exercises answered with words: classification, multiple choice and short answers.

Answers are compared after `normalize` (case, spaces, ``_``/``-``, quotes and backticks do not
matter), against variants in both languages, so ``"Tool"``, ``"tool"`` and ``"도구"`` all read
as the same answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core._text import t
from ._exercise import Exercise, NotAttempted, is_blank
from ._texts import Text, localized

_IGNORED = re.compile(r"[\s_\-`'\"“”‘’]+")


def normalize(value: str) -> str:
    """The comparable form of an answer: ``" Structured_Content. "`` → ``"structuredcontent"``."""
    return _IGNORED.sub("", value.casefold()).rstrip(".。")


@dataclass(frozen=True)
class Category:
    """One answer of a classification: its id, label, what it means, and accepted spellings."""

    id: str
    label: Text
    meaning: Text
    variants: tuple[str, ...] = ()


class Vocabulary:
    """The categories a classification sorts into (e.g. Tool / Resource / Prompt)."""

    def __init__(self, group: str, categories: list[Category]) -> None:
        self.group = group
        self.ids = [c.id for c in categories]
        self._spellings: dict[str, str] = {}
        self._categories = {category.id: category for category in categories}
        for category in categories:
            for spelling in (category.id, *category.label, *category.variants):
                self._spellings[normalize(spelling)] = category.id

    def read(self, value: Any) -> str | None:
        """The category `value` names, or None."""
        if isinstance(value, Category):
            return value.id
        return self._spellings.get(normalize(value)) if isinstance(value, str) else None

    def label(self, category: str) -> str:
        return localized(self._categories[category].label)

    def meaning(self, category: str) -> str:
        return localized(self._categories[category].meaning)

    def choices(self) -> str:
        shown = [(c, self.label(c)) for c in self.ids]
        return ", ".join(f'"{c}"' if normalize(label) == c else f'"{c}" ({label})' for c, label in shown)


class Classification(Exercise):
    """Sort each item into a category; the answer is a dict ``{item: category}``.

    `items` maps an item id to ``(description, expected category)``. `feedback` may give a
    targeted message for ``(item, wrong category)``; otherwise the message explains what the
    learner's choice would mean, without naming the right one.
    """

    def __init__(
        self,
        chapter: str,
        name: str,
        *,
        vocabulary: Vocabulary,
        items: dict[str, tuple[Text, str]],
        feedback: dict[tuple[str, str], Text] | None = None,
        **texts: Any,
    ) -> None:
        super().__init__(chapter, name, **texts)
        self.vocabulary = vocabulary
        self.expected = {item: category for item, (_, category) in items.items()}
        self.feedback_for = set(feedback or {})
        extra: dict[str, Text] = {f"item.{item}": text for item, (text, _) in items.items()}
        extra.update({f"feedback.{i}.{c}": text for (i, c), text in (feedback or {}).items()})
        self._add_texts(extra)
        for category in self.expected.values():
            assert category in vocabulary.ids, category

    def question_text(self) -> str:
        lines = [self.text("question"), ""]
        lines += [f"- `{item}`: {self.text(f'item.{item}')}" for item in self.expected]
        lines += ["", t("lessons.items.choices", choices=self.vocabulary.choices())]
        return "\n".join(lines)

    def template(self) -> str:
        body = "".join(f'    "{item}": ...,\n' for item in self.expected)
        return f"{self.variable} = {{\n{body}}}"

    def solution_code(self) -> str:
        body = "".join(f'    "{item}": "{category}",\n' for item, category in self.expected.items())
        return f"{self.variable} = {{\n{body}}}"

    def evaluate(self, answer: Any) -> list[str]:
        if isinstance(answer, list | tuple) and len(answer) == len(self.expected):
            answer = dict(zip(self.expected, answer, strict=True))
        if not isinstance(answer, dict):
            return [t("lessons.items.not_a_dict", kind=type(answer).__name__, name=self.name)]
        if all(is_blank(value) for value in answer.values()):
            raise NotAttempted
        known = ", ".join(repr(item) for item in self.expected)
        problems = [t("lessons.items.unknown", item=k, known=known) for k in answer if k not in self.expected]
        missing = [item for item in self.expected if is_blank(answer.get(item))]
        right = 0
        for item, expected in self.expected.items():
            if item in missing:
                continue
            given = self.vocabulary.read(answer[item])
            if given is None:
                choices = self.vocabulary.choices()
                problems.append(t("lessons.items.unreadable", item=item, given=answer[item], choices=choices))
            elif given == expected:
                right += 1
            elif (item, given) in self.feedback_for:
                problems.append(self.text(f"feedback.{item}.{given}"))
            else:
                label, meaning = self.vocabulary.label(given), self.vocabulary.meaning(given)
                problems.append(t("lessons.items.wrong", item=item, given=label, meaning=meaning))
        if missing:
            problems.append(t("lessons.items.missing", items=", ".join(repr(item) for item in missing)))
        if problems:
            problems.insert(0, t("lessons.check.score", total=len(self.expected), right=right))
        return problems


class MultipleChoice(Exercise):
    """Pick one option by its letter; every wrong option has its own explanation."""

    def __init__(
        self,
        chapter: str,
        name: str,
        *,
        options: dict[str, Text],
        answer: str,
        wrong: dict[str, Text],
        **texts: Any,
    ) -> None:
        super().__init__(chapter, name, **texts)
        self.letters = list(options)
        self.answer = answer
        assert set(wrong) == set(options) - {answer}, "every wrong option needs its explanation"
        extra = {f"option.{k}": v for k, v in options.items()}
        extra.update({f"wrong.{k}": v for k, v in wrong.items()})
        self._add_texts(extra)

    def question_text(self) -> str:
        lines = [self.text("question"), ""]
        lines += [f"{letter}. {self.text(f'option.{letter}')}" for letter in self.letters]
        return "\n".join(lines)

    def template(self) -> str:
        letters = ", ".join(f'"{letter}"' for letter in self.letters)
        return f"{self.variable} = ...  # {t('lessons.choice.template', letters=letters)}"

    def solution_code(self) -> str:
        return f'{self.variable} = "{self.answer}"'

    def evaluate(self, answer: Any) -> list[str]:
        letter = normalize(answer).strip("().").upper() if isinstance(answer, str) else None
        if letter not in self.letters:
            letters = ", ".join(self.letters)
            return [t("lessons.choice.unreadable", given=answer, letters=letters, first=self.letters[0])]
        if letter == self.answer:
            return []
        return [self.text(f"wrong.{letter}")]


class ShortAnswer(Exercise):
    """A word or two; `accepted` spellings pass, `wrong` maps typical wrong answers to advice."""

    def __init__(
        self,
        chapter: str,
        name: str,
        *,
        accepted: tuple[str, ...],
        wrong: dict[str, Text] | None = None,
        **texts: Any,
    ) -> None:
        super().__init__(chapter, name, **texts)
        self.model_answer = accepted[0]
        self.accepted = {normalize(a) for a in accepted}
        self.wrong_keys: dict[str, str] = {}
        extra: dict[str, Text] = {}
        for index, (spelling, advice) in enumerate((wrong or {}).items(), 1):
            self.wrong_keys[normalize(spelling)] = f"wrong.{index}"
            extra[f"wrong.{index}"] = advice
        self._add_texts(extra)

    def template(self) -> str:
        return f"{self.variable} = ...  # {t('lessons.short.template')}"

    def solution_code(self) -> str:
        return f"{self.variable} = {self.model_answer!r}"

    def evaluate(self, answer: Any) -> list[str]:
        if not isinstance(answer, str):
            return [t("lessons.short.not_text", kind=type(answer).__name__)]
        key = normalize(answer)
        if key in self.accepted:
            return []
        problems = [t("lessons.short.wrong", given=answer)]
        if key in self.wrong_keys:
            problems.append(self.text(self.wrong_keys[key]))
        return problems
