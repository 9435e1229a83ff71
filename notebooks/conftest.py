"""nbval runs the notebooks with the option order their committed outputs were made with.

Multiple-choice options are shuffled per learner (`mcp_notebook.lessons._order`); seed ``"0"`` is
the one ``scripts/run_notebooks.py`` makes the outputs with, and the kernel nbval starts inherits it.
"""

from __future__ import annotations

import os

from mcp_notebook.lessons._order import SEED_VARIABLE

os.environ[SEED_VARIABLE] = "0"
