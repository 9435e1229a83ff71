"""Exercises answered with words: classification, multiple choice and short answers.

Words are compared after `normalize` (case, spaces, ``_``/``-``, quotes and backticks do not
matter), against variants in both languages, so ``"Tool"``, ``"tool"`` and ``"도구"`` all read
as the same answer. A short answer that is a name or a code on the wire is compared exactly instead
(`._wire_names`): ``isError`` is not ``is_error``, and ``-32602`` is not ``32602``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core._text import t
from ._exercise import DataContext, Exercise, NotAttempted, is_blank
from ._order import arrange
from ._texts import Text, as_text, localized
from ._wire_names import exact_form, near_miss

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

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", as_text(self.label))
        object.__setattr__(self, "meaning", as_text(self.meaning))


class Vocabulary:
    """The categories a classification sorts into (e.g. Tool / Resource / Prompt)."""

    def __init__(self, group: str, categories: list[Category]) -> None:
        self.group = group
        self.ids = [c.id for c in categories]
        self._spellings: dict[str, str] = {}
        self._categories = {category.id: category for category in categories}
        for category in categories:
            for spelling in (category.id, *category.label.values(), *category.variants):
                self._spellings[normalize(spelling)] = category.id

    @classmethod
    def from_data(cls, group: str, data: dict[str, Any]) -> Vocabulary:
        """A vocabulary from its table: ``{id: {label, meaning, variants}}``, in order."""
        return cls(
            group,
            [
                Category(key, value["label"], value["meaning"], tuple(value.get("variants", ())))
                for key, value in data.items()
            ],
        )

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for category in self._categories.values():
            entry: dict[str, Any] = {"label": dict(category.label), "meaning": dict(category.meaning)}
            if category.variants:
                entry["variants"] = list(category.variants)
            data[category.id] = entry
        return data

    @property
    def categories(self) -> list[Category]:
        return list(self._categories.values())

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

    kind = "classification"

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
            if category not in vocabulary.ids:
                raise ValueError(f"exercise {chapter}.{name}: {category!r} is not in {vocabulary.group}")

    def model_answer(self) -> dict[str, Any]:
        """The right answer, in the form ``check`` takes."""
        return dict(self.expected)

    def kind_data(self) -> dict[str, Any]:
        items: dict[str, Any] = {}
        for item, category in self.expected.items():
            entry: dict[str, Any] = {"answer": category, **self._texts[f"item.{item}"]}
            feedback = {c: dict(self._texts[f"feedback.{i}.{c}"]) for i, c in self.feedback_for if i == item}
            if feedback:
                entry["feedback"] = dict(
                    sorted(feedback.items(), key=lambda kv: self.vocabulary.ids.index(kv[0]))
                )
            items[item] = entry
        return {"vocabulary": self.vocabulary.group, "items": items}

    @classmethod
    def data_kwargs(cls, data: dict[str, Any], context: DataContext) -> dict[str, Any]:
        kwargs = super().data_kwargs(data, context)
        group = data.pop("vocabulary")
        if group not in context.vocabularies:
            raise ValueError(f"no vocabulary {group!r}; known: {sorted(context.vocabularies)}")
        kwargs["vocabulary"] = context.vocabularies[group]
        items: dict[str, tuple[Text, str]] = {}
        feedback: dict[tuple[str, str], Text] = {}
        for item, entry in data.pop("items").items():
            entry = dict(entry)
            items[item] = ({"ko": entry.pop("ko"), "en": entry.pop("en")}, entry.pop("answer"))
            for category, text in entry.pop("feedback", {}).items():
                feedback[(item, category)] = text
            if entry:
                raise ValueError(f"item {item!r}: unknown keys {sorted(entry)}")
        kwargs["items"] = items
        kwargs["feedback"] = feedback
        return kwargs

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


class ReasonedClassification(Classification):
    """Sort each item into a category and say why, in a second vocabulary: ``{item: (category, reason)}``.

    For design judgements where the choice is only as good as its reason: which primitive a capability
    becomes, and who is meant to decide that it is used (``reasons = "controllers"``). Each item has an
    ``answer`` and a ``reason``; ``reason_feedback`` may target ``(item, wrong reason)`` as ``feedback``
    targets a wrong category. A right category with a wrong or missing reason is not right.
    """

    kind = "classification_why"

    def __init__(
        self,
        chapter: str,
        name: str,
        *,
        reasons: Vocabulary,
        reason_of: dict[str, str],
        reason_feedback: dict[tuple[str, str], Text] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(chapter, name, **kwargs)
        self.reasons = reasons
        self.reason_of = dict(reason_of)
        self.reason_feedback_for = set(reason_feedback or {})
        self._add_texts({f"why.{i}.{r}": text for (i, r), text in (reason_feedback or {}).items()})
        if set(self.reason_of) != set(self.expected):
            raise ValueError(f"exercise {chapter}.{name}: every item needs its reason")
        for reason in self.reason_of.values():
            if reason not in reasons.ids:
                raise ValueError(f"exercise {chapter}.{name}: {reason!r} is not in {reasons.group}")

    def model_answer(self) -> dict[str, Any]:
        return {item: (category, self.reason_of[item]) for item, category in self.expected.items()}

    def kind_data(self) -> dict[str, Any]:
        data = super().kind_data()
        for item, entry in data["items"].items():
            entry["reason"] = self.reason_of[item]
            feedback = {
                r: dict(self._texts[f"why.{i}.{r}"]) for i, r in self.reason_feedback_for if i == item
            }
            if feedback:
                entry["reason_feedback"] = feedback
        data["reasons"] = self.reasons.group
        return data

    @classmethod
    def data_kwargs(cls, data: dict[str, Any], context: DataContext) -> dict[str, Any]:
        group = data.pop("reasons")
        if group not in context.vocabularies:
            raise ValueError(f"no vocabulary {group!r}; known: {sorted(context.vocabularies)}")
        reason_of: dict[str, str] = {}
        reason_feedback: dict[tuple[str, str], Text] = {}
        items: dict[str, Any] = {}
        for item, entry in data.pop("items").items():
            entry = dict(entry)
            reason_of[item] = entry.pop("reason")
            for reason, text in entry.pop("reason_feedback", {}).items():
                reason_feedback[(item, reason)] = text
            items[item] = entry
        data["items"] = items
        kwargs = super().data_kwargs(data, context)
        kwargs.update(
            reasons=context.vocabularies[group], reason_of=reason_of, reason_feedback=reason_feedback
        )
        return kwargs

    def question_text(self) -> str:
        lines = [self.text("question"), ""]
        lines += [f"- `{item}`: {self.text(f'item.{item}')}" for item in self.expected]
        lines += [
            "",
            t("lessons.reasoned.choices", choices=self.vocabulary.choices(), reasons=self.reasons.choices()),
        ]
        return "\n".join(lines)

    def template(self) -> str:
        body = "".join(f'    "{item}": (..., ...),\n' for item in self.expected)
        return f"{self.variable} = {{\n{body}}}"

    def solution_code(self) -> str:
        body = "".join(
            f'    "{item}": ("{category}", "{self.reason_of[item]}"),\n'
            for item, category in self.expected.items()
        )
        return f"{self.variable} = {{\n{body}}}"

    def evaluate(self, answer: Any) -> list[str]:
        if not isinstance(answer, dict):
            return [t("lessons.items.not_a_dict", kind=type(answer).__name__, name=self.name)]
        if all(is_blank(value) or value == (..., ...) for value in answer.values()):
            raise NotAttempted
        known = ", ".join(repr(item) for item in self.expected)
        problems = [t("lessons.items.unknown", item=k, known=known) for k in answer if k not in self.expected]
        missing: list[str] = []
        right = 0
        for item, expected in self.expected.items():
            value = answer.get(item)
            pair = tuple(value) if isinstance(value, list | tuple) else (value, ...)
            if len(pair) != 2 or all(is_blank(part) for part in pair):
                if len(pair) != 2:
                    problems.append(t("lessons.reasoned.not_a_pair", item=item, given=value))
                else:
                    missing.append(item)
                continue
            given, why = self.vocabulary.read(pair[0]), self.reasons.read(pair[1])
            if given is None:
                choices = self.vocabulary.choices()
                problems.append(t("lessons.items.unreadable", item=item, given=pair[0], choices=choices))
            elif given != expected:
                if (item, given) in self.feedback_for:
                    problems.append(self.text(f"feedback.{item}.{given}"))
                else:
                    label, meaning = self.vocabulary.label(given), self.vocabulary.meaning(given)
                    problems.append(t("lessons.items.wrong", item=item, given=label, meaning=meaning))
            elif is_blank(pair[1]):
                problems.append(t("lessons.reasoned.no_reason", item=item, choices=self.reasons.choices()))
            elif why is None:
                choices = self.reasons.choices()
                problems.append(t("lessons.items.unreadable", item=item, given=pair[1], choices=choices))
            elif why != self.reason_of[item]:
                if (item, why) in self.reason_feedback_for:
                    problems.append(self.text(f"why.{item}.{why}"))
                else:
                    label, meaning = self.reasons.label(why), self.reasons.meaning(why)
                    category = self.vocabulary.label(given)
                    problems.append(
                        t(
                            "lessons.reasoned.wrong_reason",
                            item=item,
                            category=category,
                            given=label,
                            meaning=meaning,
                        )
                    )
            else:
                right += 1
        if missing:
            problems.append(t("lessons.items.missing", items=", ".join(repr(item) for item in missing)))
        if problems:
            problems.insert(0, t("lessons.check.score", total=len(self.expected), right=right))
        return problems


class MultipleChoice(Exercise):
    """Pick one option by its letter; every wrong option has its own explanation.

    Options have ids (``"breaks_spec"``); the letters a learner sees are given in an order shuffled
    per learner and per exercise (`._order`), so the right answer sits anywhere. Older chapters used
    the letters as ids; they are shuffled all the same.
    """

    kind = "choice"

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
        self.ids = list(options)
        self.answer = answer
        if set(wrong) != set(options) - {answer}:
            raise ValueError(f"exercise {chapter}.{name}: every wrong option needs its explanation")
        extra = {f"option.{k}": v for k, v in options.items()}
        extra.update({f"wrong.{k}": v for k, v in wrong.items()})
        self._add_texts(extra)

    # -- the learner's letters ------------------------------------------------------------------------
    def order(self, seed: str | None = None) -> list[str]:
        """The option ids in the order shown (A, B, ...), for this learner or for `seed`."""
        return arrange(self.ids, key=f"{self.chapter}.{self.name}", seed=seed)

    @property
    def letters(self) -> list[str]:
        return [chr(ord("A") + index) for index in range(len(self.ids))]

    def letter_of(self, option: str) -> str:
        """The letter `option` (an id) is shown under."""
        return self.letters[self.order().index(option)]

    def question_text(self) -> str:
        lines = [self.text("question"), ""]
        lines += [
            f"{letter}. {self.text(f'option.{option}')}"
            for letter, option in zip(self.letters, self.order(), strict=True)
        ]
        return "\n".join(lines)

    def template(self) -> str:
        letters = ", ".join(f'"{letter}"' for letter in self.letters)
        return f"{self.variable} = ...  # {t('lessons.choice.template', letters=letters)}"

    def cell_template(self) -> str:
        return f"{self.variable} = ..."

    def solution_code(self) -> str:
        return f'{self.variable} = "{self.letter_of(self.answer)}"'

    def evaluate(self, answer: Any) -> list[str]:
        letter = normalize(answer).strip("().").upper() if isinstance(answer, str) else None
        if letter not in self.letters:
            letters = ", ".join(self.letters)
            return [t("lessons.choice.unreadable", given=answer, letters=letters, first=self.letters[0])]
        chosen = self.order()[self.letters.index(letter)]
        if chosen == self.answer:
            return []
        return [self.text(f"wrong.{chosen}")]

    # -- as data --------------------------------------------------------------------------------------
    def kind_data(self) -> dict[str, Any]:
        options: dict[str, Any] = {}
        for option in self.ids:
            entry: dict[str, Any] = dict(self._texts[f"option.{option}"])
            if option != self.answer:
                entry["why"] = dict(self._texts[f"wrong.{option}"])
            options[option] = entry
        return {"answer": self.answer, "options": options}

    @classmethod
    def data_kwargs(cls, data: dict[str, Any], context: DataContext) -> dict[str, Any]:
        kwargs = super().data_kwargs(data, context)
        kwargs["answer"] = data.pop("answer")
        options: dict[str, Text] = {}
        wrong: dict[str, Text] = {}
        for option, entry in data.pop("options").items():
            entry = dict(entry)
            options[option] = {"ko": entry.pop("ko"), "en": entry.pop("en")}
            if "why" in entry:
                wrong[option] = entry.pop("why")
            if entry:
                raise ValueError(f"option {option!r}: unknown keys {sorted(entry)}")
        kwargs["options"] = options
        kwargs["wrong"] = wrong
        return kwargs


class ShortAnswer(Exercise):
    """A word or two; `accepted` spellings pass, `wrong` maps typical wrong answers to advice.

    An ordinary word is read leniently (`normalize`). An answer that is a name or a code on the wire
    (a JSON field, a method, an error code) is marked ``exact = true`` in the data and judged as the
    protocol spells it (`._wire_names`): case and sign matter, and a near miss of an accepted spelling
    or of a wrong answer gets advice of its own (the SDK's snake_case spelling, a lost minus sign, a
    wrong case).
    """

    kind = "short"

    def __init__(
        self,
        chapter: str,
        name: str,
        *,
        accepted: tuple[str, ...],
        wrong: dict[str, Text] | None = None,
        exact: bool = False,
        **texts: Any,
    ) -> None:
        super().__init__(chapter, name, **texts)
        self.model_answer = accepted[0]
        self.spellings = tuple(accepted)
        self.exact = exact
        self.accepted = {self._key(a) for a in accepted}
        self.wrong_keys: dict[str, str] = {}
        self.wrong_spellings: dict[str, str] = {}
        extra: dict[str, Text] = {}
        for index, (spelling, advice) in enumerate((wrong or {}).items(), 1):
            self.wrong_keys[self._key(spelling)] = f"wrong.{index}"
            self.wrong_spellings[f"wrong.{index}"] = spelling
            extra[f"wrong.{index}"] = advice
        self._add_texts(extra)

    def _key(self, value: str) -> str:
        """The form two answers are compared in: exact for a wire name, `normalize` for a word."""
        return exact_form(value) if self.exact else normalize(value)

    def template(self) -> str:
        return f"{self.variable} = ...  # {t('lessons.short.template')}"

    def cell_template(self) -> str:
        return f"{self.variable} = ..."

    def kind_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"accepted": list(self.spellings)}
        if self.exact:
            data["exact"] = True
        wrong = {spelling: dict(self._texts[key]) for key, spelling in self.wrong_spellings.items()}
        if wrong:
            data["wrong"] = wrong
        return data

    @classmethod
    def data_kwargs(cls, data: dict[str, Any], context: DataContext) -> dict[str, Any]:
        kwargs = super().data_kwargs(data, context)
        kwargs["accepted"] = tuple(data.pop("accepted"))
        kwargs["wrong"] = data.pop("wrong", {})
        kwargs["exact"] = data.pop("exact", False)
        return kwargs

    def solution_code(self) -> str:
        return f"{self.variable} = {self.model_answer!r}"

    def evaluate(self, answer: Any) -> list[str]:
        if not isinstance(answer, str):
            return [t("lessons.short.not_text", kind=type(answer).__name__)]
        key = self._key(answer)
        if key in self.accepted:
            return []
        problems = [t("lessons.short.wrong", given=answer)]
        if key in self.wrong_keys:
            problems.append(self.text(self.wrong_keys[key]))
        elif self.exact:
            problems += self._near_miss_advice(key)
        return problems

    def _near_miss_advice(self, given: str) -> list[str]:
        """What a wire name `given` misses, when it nearly names an accepted answer or a wrong one."""
        spellings = [exact_form(s) for s in self.spellings]
        found = near_miss(given, [*spellings, *(exact_form(s) for s in self.wrong_spellings.values())])
        if found is None:
            return []
        name, miss = found
        advice = []
        if miss == "sdk":
            advice.append(t("lessons.short.sdk_spelling", given=f"`{given}`", wire=f"`{name}`"))
        elif miss == "sign":
            advice.append(t("lessons.short.sign", given=f"`{given}`"))
        elif name in spellings:
            advice.append(t(f"lessons.short.{miss}", given=f"`{given}`"))
        if name not in spellings:
            # a near miss of a wrong answer is that wrong answer: its own advice says why
            advice.append(self.text(self.wrong_keys[name]))
        return advice
