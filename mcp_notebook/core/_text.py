"""User-facing messages in English and Korean.

Every message the package shows a person lives in one catalogue per language,
``core/messages/en.toml`` and ``core/messages/ko.toml``, under a stable key: `t` looks a key up in the
current language and fills in its fields. A file is read once, on the first message in its language,
so importing the package reads none. Nothing registers messages at import: a new message goes into
both files (``python scripts/messages.py add KEY --en ... --ko ...``).

The language is chosen once per process (`set_language`), from ``MCP_NOTEBOOK_LANG`` or the locale;
lessons switch to Korean explicitly so their outputs do not depend on the machine. A Korean template
chooses the particle after a field from its value, ``{tool!r:을/를}`` (see `._particles`).
"""

from __future__ import annotations

import os
import re
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from ._particles import PARTICLES, with_particle

Language = Literal["en", "ko"]
LANGUAGES: tuple[Language, ...] = ("en", "ko")

_FOLDER = Path(__file__).with_name("messages")
_catalogues: dict[Language, dict[str, str]] = {}
_with_particles: set[str] = set()  # the templates that use a particle (the others keep the fast str.format)
_PARTICLE_SPEC = re.compile(r"\{[^{}]*:(?:" + "|".join(re.escape(p) for p in PARTICLES) + r")\}")


def _initial_language() -> Language:
    for var in ("MCP_NOTEBOOK_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "ko" if value.lower().startswith("ko") else "en"
    return "en"


_language: Language = _initial_language()


def set_language(language: Language) -> None:
    """Choose the language of messages: ``"ko"`` (한국어) or ``"en"`` (English)."""
    global _language
    if language not in LANGUAGES:
        raise ValueError(f"language must be 'en' or 'ko', got {language!r}")
    _language = language


def get_language() -> Language:
    """The language messages are shown in now."""
    return _language


def catalogue(language: Language) -> Mapping[str, str]:
    """Every message of `language`, key to template, read from its file on first use."""
    messages = _catalogues.get(language)
    if messages is None:
        # Deferred for start-up speed: tomllib is needed only once a message is shown.
        import tomllib

        with (_FOLDER / f"{language}.toml").open("rb") as file:
            messages = tomllib.load(file)
        _with_particles.update(text for text in messages.values() if _PARTICLE_SPEC.search(text))
        # Two threads may both read the file the first time; they store equal dicts, so either wins.
        _catalogues[language] = messages
    return messages


def t(key: str, /, **values: object) -> str:
    """The message `key` in the current language, filled with `values`.

    A Korean template picks a particle from the value it follows: ``{tool!r:을/를}`` (see
    `with_particle`).
    """
    return _format(catalogue(_language)[key], values)


def both(key: str, /, **values: object) -> dict[Language, str]:
    """The message in both languages, for tests and for the lessons."""
    return {language: _format(catalogue(language)[key], values) for language in LANGUAGES}


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _ParticleFormatter(string.Formatter):
    """``{value:을/를}``: the value, then the particle that fits it."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec in PARTICLES:
            return with_particle(format(value, ""), format_spec)
        return str(super().format_field(value, format_spec))


_PARTICLE_FORMATTER = _ParticleFormatter()


def _format(template: str, values: Mapping[str, object]) -> str:
    if template in _with_particles:
        return _PARTICLE_FORMATTER.vformat(template, (), values)
    return template.format_map(values)
