"""One exercise: its question, the learner's attempts, a ladder of hints and a model answer.

An `Exercise` shows itself (``repr`` / ``_repr_html_``) with its state, as a card that a later
check updates in place (a display id); ``check``, ``hint`` and ``solution`` return a `Feedback`. Everything shown is plain, deterministic text (nbval compares
committed outputs), with an HTML rendering for notebooks.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from IPython.display import display, update_display

from ..core._text import t
from ._judge import checking
from ._progress import record_check
from ._texts import Text, as_text, localized

Kind = Literal["not_attempted", "correct", "incorrect", "hint", "no_more_hints", "solution"]
Status = Literal["not_attempted", "incorrect", "correct"]

_MARKS: dict[Kind, str] = {
    "not_attempted": "○",
    "correct": "✔",
    "incorrect": "✘",
    "hint": "💡",
    "no_more_hints": "💡",
    "solution": "📘",
}
_COLOURS: dict[Kind, str] = {
    "not_attempted": "#5f6368",
    "correct": "#1b6e3a",
    "incorrect": "#b3261e",
    "hint": "#8a5a00",
    "no_more_hints": "#8a5a00",
    "solution": "#1a4f8b",
}


@dataclass(frozen=True)
class DataContext:
    """What a chapter's data may name besides itself: vocabularies and checks of its module.

    Attributes
    ----------
    vocabularies:
        Categories a classification sorts into, by name (the shared ones and the chapter's own).
    checks:
        Functions a probe names to judge a result (``accept = "name"``), from the chapter's module.
    values:
        Constants a chapter's code and its data share (``{"diary_dates": [...]}``).
    """

    vocabularies: dict[str, Any] = field(default_factory=dict)
    checks: dict[str, Any] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)


class NotAttempted(Exception):
    """Raised by an exercise's evaluation when there is nothing to check yet."""


@dataclass
class Feedback:
    """What ``check()``, ``hint()`` and ``solution()`` return.

    Attributes
    ----------
    kind:
        ``"not_attempted"``, ``"correct"``, ``"incorrect"``, ``"hint"``, ``"no_more_hints"`` or
        ``"solution"``.
    lines:
        The message, one paragraph per line.
    code:
        A block of code or an answer template, shown as is.
    """

    label: str
    kind: Kind
    heading: str
    lines: list[str] = field(default_factory=list)
    code: str | None = None

    @property
    def correct(self) -> bool:
        return self.kind == "correct"

    def __bool__(self) -> bool:
        # `assert q1.check(...)` reads naturally; only a correct answer is truthy.
        return self.correct

    def __repr__(self) -> str:
        parts = [f"{_MARKS[self.kind]} [{self.label}] {self.heading}"]
        parts += [f"  {line}" for line in self.lines]
        if self.code:
            parts += ["", *(f"    {line}".rstrip() for line in self.code.splitlines())]
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        colour = _COLOURS[self.kind]
        body = blocks_html("\n".join(self.lines))
        if self.code:
            body += f"<pre>{html.escape(self.code)}</pre>"
        return (
            f"<div style='border-left:4px solid {colour};padding:0.2em 0.8em;margin:0.3em 0'>"
            f"<b style='color:{colour}'>{_MARKS[self.kind]} {html.escape(self.heading)}</b> "
            f"<small>[{html.escape(self.label)}]</small>{body}</div>"
        )


def inline_html(text: str) -> str:
    """Escape `text` and render `backticks` as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def blocks_html(text: str) -> str:
    """Lines as paragraphs, runs of ``- item`` lines as a list; blank lines only separate."""
    parts: list[str] = []
    items: list[str] = []
    for line in [*text.split("\n"), ""]:
        if line.startswith("- "):
            items.append(f"<li>{inline_html(line[2:])}</li>")
            continue
        if items:
            parts.append(f"<ul style='margin:0.3em 0'>{''.join(items)}</ul>")
            items = []
        if line.strip():
            parts.append(f"<p style='margin:0.3em 0'>{inline_html(line)}</p>")
    return "".join(parts)


def given_code(given: Any, language: str | None = None) -> str:
    """An exercise's set-up code (its data's ``given``: one string, or a ``{ko, en}`` table) in
    `language` (default: the current one)."""
    if isinstance(given, str):
        return given
    if not given:
        return ""
    return str(given[language] if language is not None else localized(given))


def user_namespace() -> dict[str, Any]:
    """The notebook's variables (IPython's ``user_ns``), or ``{}`` outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency
        return {}
    shell = get_ipython()
    return shell.user_ns if shell is not None else {}


def is_blank(value: Any) -> bool:
    """True for the placeholders a template leaves: ``...``, ``None`` and empty strings."""
    return value is ... or value is None or (isinstance(value, str) and not value.strip())


class Exercise:
    """A checked exercise. Subclasses say how to read and judge an answer (`evaluate`).

    Parameters
    ----------
    chapter, name:
        ``"00"`` and ``"q1"``: the exercise is imported as ``from ...ch00 import q1``.
    title, question:
        Texts, ``{"ko": ..., "en": ...}`` (a ``(한국어, English)`` pair is read as well).
    hints:
        The hint ladder, gentlest first; none gives the answer away.
    explanation:
        Why the model answer is right.
    solution:
        The model answer as code, when the kind of exercise cannot write it itself.
    variable:
        The notebook variable ``check()`` reads when given no answer (default ``q1_answer``);
        ``None`` for exercises that read something else.
    answer_note:
        What to write, said in the first line of the notebook's answer cell
        (``# 여기에 답을 쓰세요: ...``).
    given:
        The code the chapter's notebook runs before the exercise (its data, the tools it defines):
        what the model answer runs after, when the checker runs it beside the learner's. A
        ``{ko, en}`` table when the two notebooks define their data in their own language.
    """

    kind = "exercise"
    """The name of this kind of exercise in a chapter's data (``kind = "choice"``)."""

    def __init__(
        self,
        chapter: str,
        name: str,
        *,
        title: Text,
        question: Text,
        hints: list[Text],
        explanation: Text,
        solution: Text | None = None,
        variable: str | None = "",
        answer_note: Text | None = None,
        given: str | Text = "",
    ) -> None:
        self.chapter = chapter
        self.name = name
        self._given = given
        self.variable = f"{name}_answer" if variable == "" else variable
        self._texts: dict[str, dict[str, str]] = {}
        texts: dict[str, Text] = {
            "title": title,
            "question": question,
            "explanation": explanation,
        }
        if solution is not None:
            texts["solution"] = solution
        if answer_note is not None:
            texts["answer_note"] = answer_note
        texts.update({f"hint.{i}": hint for i, hint in enumerate(hints, 1)})
        self._add_texts(texts)
        self.hint_count = len(hints)
        # Where its card is shown (one id for every display of it), once it has been.
        self._card_id = f"mcp-notebook-exercise-{chapter}-{name}-{id(self):x}"
        self._card_shown = False
        self.reset()

    @property
    def given(self) -> str:
        """The set-up code of the notebook in the current language (see ``given`` above)."""
        return given_code(self._given)

    # -- state --------------------------------------------------------------------------------------
    def reset(self) -> None:
        """Forget attempts and hints seen (as in a fresh kernel)."""
        self.status: Status = "not_attempted"
        self.attempts = 0
        self.hints_seen = 0
        self._update_card()

    # -- the three things a learner does ------------------------------------------------------------
    def check(self, answer: Any = None, *, seed: int | None = None) -> Feedback:
        """Check `answer` (or, given none, what the notebook holds) and say what to fix.

        A code exercise draws new inputs for each check; `seed` (which its feedback shows) draws
        the same ones again.
        """
        try:
            if answer is None:
                answer = self.find_answer()
            if is_blank(answer):
                raise NotAttempted
            with checking(seed):
                problems = self.evaluate(answer)
        except NotAttempted:
            return self._feedback("not_attempted", t("lessons.check.not_attempted", how=self.how_to_answer()))
        self.attempts += 1
        record_check(self.chapter, self.name, "incorrect" if problems else "correct", self.attempts)
        if not problems:
            self.status = "correct"
            self._update_card()
            return self._feedback("correct", t("lessons.check.correct"), *self.praise())
        if self.status != "correct":
            self.status = "incorrect"
        self._update_card()
        more = t("lessons.check.more_help", name=self.name)
        return self._feedback("incorrect", t("lessons.check.incorrect"), *problems, more)

    def hint(self) -> Feedback:
        """The next hint of the ladder (each call reveals one more)."""
        if self.hints_seen >= self.hint_count:
            message = t("lessons.hint.none_left", total=self.hint_count, name=self.name)
            return self._feedback("no_more_hints", message)
        self.hints_seen += 1
        heading = t("lessons.hint.heading", n=self.hints_seen, total=self.hint_count)
        return Feedback(self.label, "hint", heading, [self.text(f"hint.{self.hints_seen}")])

    def solution(self) -> Feedback:
        """The model answer, with a short explanation."""
        lines = [f"{t('lessons.solution.why')}: {self.text('explanation')}"]
        return Feedback(
            self.label, "solution", t("lessons.solution.heading"), lines, code=self.solution_code()
        )

    # -- for subclasses -----------------------------------------------------------------------------
    def find_answer(self) -> Any:
        """The answer in the notebook (``check()`` without an argument)."""
        if self.variable is None:
            raise NotAttempted
        return user_namespace().get(self.variable)

    def evaluate(self, answer: Any) -> list[str]:
        """Problems with `answer` (empty when it is right); raise `NotAttempted` if it is blank."""
        raise NotImplementedError

    def how_to_answer(self) -> str:
        return t("lessons.check.how_variable", variable=self.variable, name=self.name)

    def solution_code(self) -> str:
        """The model answer, as the learner would write it."""
        return self.text("solution")

    def question_text(self) -> str:
        """The question as shown (subclasses add their items or options)."""
        return self.text("question")

    def template(self) -> str | None:
        """The answer template shown with the question, if any."""
        return None

    def praise(self) -> list[str]:
        """Extra lines for a correct answer: why it is right."""
        return [f"{t('lessons.solution.why')}: {self.text('explanation')}"]

    def text(self, key: str) -> str:
        """This exercise's own text `key` (``"question"``, ``"hint.1"``, ...) in the current language."""
        return localized(self._texts[key])

    def _add_texts(self, texts: dict[str, Text]) -> None:
        """Keep more texts of this exercise (a subclass's items, options, advice)."""
        self._texts.update({key: as_text(text) for key, text in texts.items()})

    # -- the notebook's answer cell -------------------------------------------------------------------
    def answer_cell(self) -> str:
        """The source of the notebook cell where the learner answers, in the current language.

        Its first line says what to write (``answer_note``), then comes the template to fill in (none
        for exercises answered by defining something), then the check.
        """
        note = f"# {t('lessons.cell.write_here')}"
        if "answer_note" in self._texts:
            note += f": {self.text('answer_note')}"
        body = self.cell_template()
        return f"{note}\n{body}\n{self.name}.check()" if body else f"{note}\n\n\n{self.name}.check()"

    def cell_template(self) -> str | None:
        """What the answer cell holds for the learner to fill in (`template` unless a kind says otherwise)."""
        return self.template()

    # -- as data ------------------------------------------------------------------------------------------
    def to_data(self) -> dict[str, Any]:
        """This exercise as a chapter's data holds it (``kind``, texts, and what its kind adds).

        `from_data` reads it back; ``scripts/lessons.py convert`` writes it into a chapter's TOML.
        """
        data: dict[str, Any] = {"kind": self.kind}
        if self.variable is not None and self.variable != f"{self.name}_answer":
            data["variable"] = self.variable  # None is the kind's own choice (it reads no variable)
        for key in ("title", "answer_note", "question"):
            if key in self._texts:
                data[key] = dict(self._texts[key])
        data.update(self.kind_data())
        data["hints"] = [dict(self._texts[f"hint.{i}"]) for i in range(1, self.hint_count + 1)]
        data["explanation"] = dict(self._texts["explanation"])
        if "solution" in self._texts:
            data["solution"] = dict(self._texts["solution"])
        if self._given:
            data["given"] = self._given if isinstance(self._given, str) else dict(self._given)
        return data

    def kind_data(self) -> dict[str, Any]:
        """What this kind of exercise adds to `to_data` (items, options, probes ...)."""
        return {}

    @classmethod
    def from_data(cls, chapter: str, name: str, data: dict[str, Any], context: DataContext) -> Exercise:
        """The exercise `data` describes (a table of a chapter's ``exercises.toml``, without ``kind``)."""
        data = dict(data)
        kwargs = cls.data_kwargs(data, context)
        if data:
            raise ValueError(f"exercise {chapter}.{name} ({cls.kind}): unknown keys {sorted(data)}")
        return cls(chapter, name, **kwargs)

    @classmethod
    def data_kwargs(cls, data: dict[str, Any], context: DataContext) -> dict[str, Any]:
        """The constructor's keyword arguments, taken out of `data` (what is left over is a mistake)."""
        kwargs: dict[str, Any] = {
            "title": data.pop("title"),
            "question": data.pop("question"),
            "hints": data.pop("hints"),
            "explanation": data.pop("explanation"),
        }
        for key in ("solution", "answer_note", "given"):
            if key in data:
                kwargs[key] = data.pop(key)
        if "variable" in data:
            kwargs["variable"] = data.pop("variable")
        return kwargs

    # -- display ------------------------------------------------------------------------------------
    @property
    def label(self) -> str:
        return t("lessons.label", chapter=self.chapter, number=self.name.lstrip("q"))

    def status_text(self) -> str:
        if self.status == "incorrect":
            return t("lessons.status.incorrect", attempts=self.attempts)
        return t(f"lessons.status.{self.status}")

    def _feedback(self, kind: Kind, heading: str, *lines: str) -> Feedback:
        return Feedback(self.label, kind, heading, list(lines))

    def __repr__(self) -> str:
        mark = {"not_attempted": "○", "incorrect": "✘", "correct": "✔"}[self.status]
        parts = [f"{mark} [{self.label}] {self.text('title')} — {self.status_text()}", ""]
        parts += self.question_text().splitlines()
        template = self.template()
        if template:
            parts += [
                "",
                f"{t('lessons.how_to_answer')}:",
                *(f"    {line}" for line in template.splitlines()),
            ]
        parts += ["", t("lessons.commands", name=self.name)]
        return "\n".join(parts)

    def _ipython_display_(self) -> None:
        """Show the card with a display id, so that a check in a later cell updates it where it is:
        a card above a right answer must not still say "not attempted yet"."""
        display(self._card(), raw=True, display_id=self._card_id)  # type: ignore[no-untyped-call]  # IPython has no hints here
        self._card_shown = True

    def _card(self) -> dict[str, str]:
        return {"text/plain": repr(self), "text/html": self._repr_html_()}

    def _update_card(self) -> None:
        if self._card_shown:
            update_display(self._card(), raw=True, display_id=self._card_id)  # type: ignore[no-untyped-call]

    def _repr_html_(self) -> str:
        colour = _COLOURS[self.status]
        question = blocks_html(self.question_text())
        template = self.template()
        how = (
            f"<p style='margin:0.3em 0'><b>{html.escape(t('lessons.how_to_answer'))}</b></p>"
            f"<pre>{html.escape(template)}</pre>"
            if template
            else ""
        )
        return (
            f"<div style='border:1px solid #ccc;border-left:4px solid {colour};padding:0.4em 0.8em'>"
            f"<small>{html.escape(self.label)}</small> "
            f"<b>{html.escape(self.text('title'))}</b> — "
            f"<span style='color:{colour}'>{html.escape(self.status_text())}</span>"
            f"{question}{how}<p style='margin:0.3em 0'><small>"
            f"{inline_html(t('lessons.commands', name=self.name))}</small></p></div>"
        )
