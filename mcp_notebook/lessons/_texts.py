"""How a chapter's own texts reach the learner, in the language of the messages.

The lesson kit's messages (statuses, feedback frames, the checkers' advice) are in the catalogue like
every other message of the package, and shown with `mcp_notebook.core._text.t`. A chapter's content (its
questions, items, hints and model answers) is written next to its exercises as ``(한국어, English)``
pairs, kept by the exercise that owns them and shown with `localized`: importing a chapter registers
nothing, and `set_language` switches the lessons too.
"""

from __future__ import annotations

from ..core._text import get_language

Text = tuple[str, str]
"""A lesson text as ``(한국어, English)``."""


def localized(text: Text) -> str:
    """`text` in the current language (`mcp_notebook.set_language`)."""
    korean, english = text
    return korean if get_language() == "ko" else english
