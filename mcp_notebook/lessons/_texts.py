"""How a chapter's own texts reach the learner, in the language of the messages.

The lesson kit's messages (statuses, feedback frames, the checkers' advice) are in the catalogue like
every other message of the package, and shown with `mcp_notebook.core._text.t`. A chapter's content (its
questions, items, hints and model answers) is data, ``content/chNN/exercises.toml``, where every text is
a table ``{ko = "...", en = "..."}``; an exercise keeps its texts and shows them with `localized`, so
`set_language` switches the lessons too. Importing a chapter registers nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core._text import Language, get_language

Text = Mapping[str, str]
"""A lesson text in every language: ``{"ko": "...", "en": "..."}``."""

LESSON_LANGUAGES: tuple[Language, ...] = ("ko", "en")
"""The languages of every lesson text, the lessons' own first."""


def as_text(value: Any) -> dict[str, str]:
    """`value` as a `Text`: a ``{ko, en}`` mapping, or a ``(한국어, English)`` pair as older chapters wrote.

    Raises
    ------
    ValueError
        When a language is missing or empty: every text of a lesson exists in Korean and English.
    """
    if isinstance(value, tuple | list) and len(value) == 2:
        value = {"ko": value[0], "en": value[1]}
    if not isinstance(value, Mapping):
        raise ValueError(f"a lesson text is a {{ko, en}} table, got {value!r}")
    missing = [language for language in LESSON_LANGUAGES if not str(value.get(language, "")).strip()]
    if missing:
        raise ValueError(f"a lesson text lacks {', '.join(missing)}: {dict(value)!r}")
    return {language: str(value[language]) for language in LESSON_LANGUAGES}


def localized(text: Text) -> str:
    """`text` in the current language (`mcp_notebook.set_language`)."""
    return text[get_language()]
