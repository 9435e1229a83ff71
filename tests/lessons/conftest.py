"""Fixtures every lesson test module imports: fresh exercises in Korean, a server, a shell.

The order of multiple-choice options is the one committed notebooks show (seed ``"0"``, as
``notebooks/conftest.py`` sets it for nbval), whoever runs the tests.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, set_language
from mcp_notebook.lessons import CHAPTERS, Classification, Exercise, MultipleChoice, ShortAnswer
from mcp_notebook.lessons._order import SEED_VARIABLE

os.environ[SEED_VARIABLE] = "0"

ALL_EXERCISES: dict[str, Exercise] = {
    f"{chapter}.{name}": getattr(module, name)
    for chapter in CHAPTERS
    for module in [importlib.import_module(f"mcp_notebook.lessons.{chapter}")]
    for name in module.__all__
    if isinstance(getattr(module, name), Exercise)
}
"""Every exercise of every chapter, as ``"ch02.q1"``."""

WORD_EXERCISES = {
    key: exercise
    for key, exercise in ALL_EXERCISES.items()
    if isinstance(exercise, Classification | MultipleChoice | ShortAnswer)
}
"""The exercises answered in words or choices (the others are checked through a server)."""


@pytest.fixture(autouse=True)
def fresh_exercises() -> Iterator[None]:
    """Every exercise unattempted, and messages in Korean (the lessons' language), around each test."""
    set_language("ko")
    for exercise in ALL_EXERCISES.values():
        exercise.reset()
    try:
        yield
    finally:
        set_language("en")
        for exercise in ALL_EXERCISES.values():
            exercise.reset()


@pytest.fixture
def server(catalogue: Catalogue) -> Iterator[Any]:
    """The in-kernel server with its default approval policy: the checker's calls are the notebook's own."""
    srv = mcp_notebook.serve(catalogue=catalogue)
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    saved = dict(ip.user_ns)
    try:
        yield ip
    finally:
        ip.user_ns.clear()
        ip.user_ns.update(saved)


@pytest.fixture
def notebook() -> Iterator[InteractiveShell]:
    """The learner's shell with a server running (``srv``), as the chapters have it; cleaned up after."""
    shell = InteractiveShell.instance()
    saved = dict(shell.user_ns)
    catalogue = mcp_notebook.default_catalogue
    assert not list(catalogue.tools()), "the default catalogue is shared: start from an empty one"
    srv = mcp_notebook.serve()
    shell.user_ns["srv"] = srv
    try:
        yield shell
    finally:
        srv.stop()
        catalogue.clear()
        shell.user_ns.clear()
        shell.user_ns.update(saved)
