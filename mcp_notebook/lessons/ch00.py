"""Exercises of chapter 00 (시작하기): roles, who controls what, which primitive, a first tool.

>>> from mcp_notebook.lessons.ch00 import q1, q2, q3, q4, q5

Their content is data: ``content/ch00/exercises.toml``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..core._text import clip, t
from ._content import load_exercises

__all__ = ["q1", "q2", "q3", "q4", "q5"]

GREETING = re.compile(
    r"\b(hello|hi|hey|hiya|welcome|greetings|good (morning|afternoon|evening|day)|nice to meet)\b"
    r"|안녕|반갑|반가워|환영|어서 오|좋은 (아침|하루|저녁)|만나서",
    re.IGNORECASE,
)
"""Words a person reads as a greeting, in English and Korean."""


def greets(arguments: Mapping[str, Any], text: str) -> str | None:
    """None when `text` greets (besides the name it was given); else what a person would miss."""
    name = arguments.get("name")
    rest = text.replace(name, " ", 1) if isinstance(name, str) and name else text  # the name once
    return None if GREETING.search(rest) else t("lessons.ch00.not_a_greeting", text=clip(text, 80))


q1, q2, q3, q4, q5 = load_exercises("00", __all__, checks={"greets": greets})
