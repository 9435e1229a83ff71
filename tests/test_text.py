"""Every user-facing message exists in English and Korean, with the same placeholders."""

from __future__ import annotations

import importlib
import pkgutil
import string
from collections.abc import Iterator

import pytest

import mcp_notebook
from mcp_notebook import ToolDefinitionError, _text, set_language, tool
from mcp_notebook._catalogue import Catalogue

# Modules register their own messages when imported: import them all before collecting the keys.
for _module in pkgutil.walk_packages(mcp_notebook.__path__, "mcp_notebook."):
    importlib.import_module(_module.name)


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.fixture
def korean() -> Iterator[None]:
    before = _text.get_language()
    set_language("ko")
    try:
        yield
    finally:
        set_language(before)


@pytest.mark.parametrize("key", _text.all_keys())
def test_each_message_has_both_languages_with_the_same_fields(key: str) -> None:
    messages = _text._MESSAGES[key]
    assert set(messages) == {"en", "ko"}
    assert messages["en"].strip() and messages["ko"].strip()
    assert fields(messages["en"]) == fields(messages["ko"])
    assert any("\uac00" <= ch <= "\ud7a3" for ch in messages["ko"]) or key.startswith("name.")


def test_language_switch_reaches_definition_errors(korean: None) -> None:
    with pytest.raises(ToolDefinitionError, match="도구 이름"):
        tool(name="bad name", catalogue=Catalogue())(lambda: None)


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="'en' or 'ko'"):
        set_language("fr")  # type: ignore[arg-type]
