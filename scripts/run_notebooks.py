"""Execute notebooks in place (fresh kernel, top to bottom) so their committed outputs are current.

    python scripts/run_notebooks.py notebooks/quickstart.ipynb [more.ipynb ...]

Widget state is stripped (nbval and GitHub need none of it), so diffs stay small. The lessons'
multiple-choice options are shuffled per learner; outputs are made with seed ``"0"``, the one
``notebooks/conftest.py`` gives nbval.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

SEED_VARIABLE = "MCP_NOTEBOOK_LESSON_SEED"  # mcp_notebook.lessons._order.SEED_VARIABLE


def run(path: Path) -> None:
    os.environ.setdefault(SEED_VARIABLE, "0")
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
    nbformat.write(notebook, path)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        run(Path(name))
