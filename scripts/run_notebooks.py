"""Execute notebooks in place (fresh kernel, top to bottom) so their committed outputs are current.

    python scripts/run_notebooks.py notebooks/quickstart.ipynb [more.ipynb ...]

Widget state is stripped (nbval and GitHub need none of it), so diffs stay small.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def run(path: Path) -> None:
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
