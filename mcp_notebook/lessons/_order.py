"""The order a learner sees the options of a multiple-choice exercise in.

Options are shuffled per learner, so that the place of the right answer tells nothing, and the
order is stable: the same learner sees the same order every time, and a notebook's committed
outputs (checked by nbval) come out the same on every run. The order comes from a *seed*:

- ``MCP_NOTEBOOK_LESSON_SEED`` when it is set. ``notebooks/conftest.py`` and ``scripts/run_notebooks.py``
  set it to ``"0"``, so committed outputs and their nbval check agree on any machine.
- Otherwise a value made from the learner's user name and machine name (hashed; neither is shown).

Each exercise is shuffled on its own, from the seed and the exercise's name, and from nothing else:
where the right answer sits in one exercise says nothing about where it sits in any other. (Spreading
the answers evenly across the course, each letter once in every few exercises, would do the opposite:
a learner who knew three answers of a run could tell the fourth.) Over many learners, each option of
an exercise comes first, second ... equally often.
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


def arrange(ids: list[str], *, key: str, seed: str | None = None) -> list[str]:
    """`ids` in the order shown to the learner of `seed` (default: `learner_seed`).

    Parameters
    ----------
    ids:
        The option ids as written in the chapter's data.
    key:
        The exercise (``"01.q4"``): with the seed, the only thing its order depends on.
    seed:
        The learner's seed; `learner_seed` when not given.
    """
    seed = learner_seed() if seed is None else seed
    shown = list(ids)
    # random.Random seeds a string through SHA-512, so the order is the same on every platform and run
    random.Random(f"{seed}/{key}").shuffle(shown)
    return shown
