"""The order a learner sees the options of a multiple-choice exercise in.

Options are shuffled per learner, so that the place of the right answer tells nothing, and the
order is stable: the same learner sees the same order every time, and a notebook's committed
outputs (checked by nbval) come out the same on every run. The order comes from a *seed*:

- ``MCP_NOTEBOOK_LESSON_SEED`` when it is set. ``notebooks/conftest.py`` and ``scripts/run_notebooks.py``
  set it to ``"0"``, so committed outputs and their nbval check agree on any machine.
- Otherwise a value made from the learner's user name and machine name (hashed; neither is shown).

Across the course the right answers are spread evenly: the multiple-choice exercises are taken in
course order in blocks as long as their option lists, and within a block every position holds the
right answer once, in an order the seed shuffles. No position holds more than its share, whatever
the seed, and a learner cannot tell the next answer's place from the last one's.
"""

from __future__ import annotations

import getpass
import hashlib
import os
import random
import socket

SEED_VARIABLE = "MCP_NOTEBOOK_LESSON_SEED"


def learner_seed() -> str:
    """The seed of this learner's option order (see the module docstring)."""
    chosen = os.environ.get(SEED_VARIABLE, "").strip()
    if chosen:
        return chosen
    try:
        who = getpass.getuser()
    except Exception:  # no user name on this system (some containers): the machine alone
        who = ""
    mine = f"{who}@{socket.gethostname()}".encode()
    return hashlib.sha256(mine).hexdigest()[:16]


def arrange(ids: list[str], answer: str, *, key: str, ordinal: int, seed: str | None = None) -> list[str]:
    """`ids` in the order shown to the learner of `seed` (default: `learner_seed`).

    Parameters
    ----------
    ids:
        The option ids as written in the chapter's data.
    answer:
        The id of the right option.
    key:
        The exercise (``"01.q4"``): shuffles its wrong options.
    ordinal:
        Its place among the course's multiple-choice exercises (0 for the first): chooses the
        position of the right option, evenly across the course.
    """
    seed = learner_seed() if seed is None else seed
    count = len(ids)
    block, slot = divmod(ordinal, count)
    positions = list(range(count))
    random.Random(f"{seed}/block/{block}").shuffle(positions)
    others = [option for option in ids if option != answer]
    random.Random(f"{seed}/{key}").shuffle(others)
    others.insert(positions[slot], answer)
    return others


def fallback_ordinal(key: str) -> int:
    """An ordinal for an exercise outside the course's data (a chapter still written as code)."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16)
