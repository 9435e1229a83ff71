"""How hard a check looks: how many generated inputs it tries, and from which seed.

A code exercise is judged by what the learner's tool does next to the model answer's, on the
teaching examples and on inputs drawn from the tool's schema (`mcp_notebook.lessons._inputs`). The
draws are fresh for every check, from a seed the feedback shows, so that no fixed probe can be
fitted; ``qN.check(seed=...)`` draws the same inputs again. Under nbval
(``MCP_NOTEBOOK_LESSON_SEED`` set) the seed is fixed, so committed outputs stay the same.

`thoroughness` raises the number of draws for a stretch of code: the mutation tests use it as
their oracle (a wrong variant that a check with ten times the inputs cannot tell from the model
answer counts as equivalent). `noting_reads` tells them whether a check reads its thoroughness at
all: one that does not (fixed probes) can be no such oracle.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass

DRAWS = 30
"""Inputs drawn from the schema per check, besides the teaching examples and the schema's edges."""

SEED_VARIABLE = "MCP_NOTEBOOK_LESSON_SEED"
"""The variable that fixes every random choice of the lessons (the option order too): nbval sets it."""


@dataclass(frozen=True)
class Thoroughness:
    """`draws` generated inputs per check, from `seed` (None: a fresh seed per check)."""

    draws: int = DRAWS
    seed: int | None = None


_thoroughness: contextvars.ContextVar[Thoroughness] = contextvars.ContextVar(
    "mcp_notebook_lesson_thoroughness",
    default=Thoroughness(),  # noqa: B039 - a frozen dataclass: nothing in it can change
)
_reads: contextvars.ContextVar[list[Thoroughness] | None] = contextvars.ContextVar(
    "mcp_notebook_lesson_thoroughness_reads", default=None
)


@contextlib.contextmanager
def thoroughness(draws: int = DRAWS, *, seed: int | None = None) -> Iterator[Thoroughness]:
    """Checks inside the block draw `draws` inputs each (from `seed`, when given)."""
    if draws < 1:
        raise ValueError(f"draws must be at least 1, got {draws}")
    token = _thoroughness.set(Thoroughness(draws, seed))
    try:
        yield _thoroughness.get()
    finally:
        _thoroughness.reset(token)


def current() -> Thoroughness:
    """The thoroughness checks have here and now."""
    found = _thoroughness.get()
    reads = _reads.get()
    if reads is not None:
        reads.append(found)
    return found


@contextlib.contextmanager
def noting_reads() -> Iterator[list[Thoroughness]]:
    """A list that gets the thoroughness each time a check inside the block reads it (`current`,
    `check_seed`): empty afterwards when no check there draws inputs."""
    reads: list[Thoroughness] = []
    token = _reads.set(reads)
    try:
        yield reads
    finally:
        _reads.reset(token)


def check_seed(given: int | None = None) -> int:
    """The seed of one check: `given`, else the block's (`thoroughness`), else the lessons' fixed
    seed (nbval), else a fresh one."""
    current()  # a check that draws inputs reads its thoroughness (`noting_reads`)
    return _seed(given)


def _seed(given: int | None) -> int:
    if given is not None:
        return given
    chosen = _thoroughness.get().seed
    if chosen is not None:
        return chosen
    fixed = os.environ.get(SEED_VARIABLE, "").strip()
    if fixed:
        return int(fixed) if fixed.isdigit() else int.from_bytes(fixed.encode()[:6].ljust(6, b"\0"), "big")
    return secrets.randbelow(1_000_000)


@contextlib.contextmanager
def checking(seed: int | None = None) -> Iterator[int]:
    """One check: every draw inside it comes from one seed (`check_seed`), which it yields."""
    chosen = _seed(seed)  # not a read: every check, drawing or not, runs inside one
    with thoroughness(_thoroughness.get().draws, seed=chosen):
        yield chosen
