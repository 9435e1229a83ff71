"""`scripts/lab` opens the learner's copies of the lessons in `work/`, so the committed lessons stay as they are.

The real start is `tests/browser/test_first_start.py`; here `scripts/_lab.py`'s parts, without a server.
"""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def lab() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_lab", ROOT / "scripts" / "_lab.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_lesson_is_copied_once_and_a_learners_copy_is_never_overwritten(
    lab: ModuleType, tmp_path: Path
) -> None:
    lab.copy_lessons(tmp_path)
    copies = sorted(path.relative_to(tmp_path) for path in tmp_path.rglob("*.ipynb"))
    assert copies == [path.relative_to(lab.NOTEBOOKS) for path in lab.lessons()]
    assert Path(lab.FIRST) in copies
    answered = tmp_path / lab.FIRST
    answered.write_text("the learner's answers")
    (tmp_path / "en" / "01_tools.ipynb").unlink()  # deleted to get the lesson afresh
    lab.copy_lessons(tmp_path)
    assert answered.read_text() == "the learner's answers"
    assert (tmp_path / "en" / "01_tools.ipynb").read_bytes() == (
        lab.NOTEBOOKS / "en" / "01_tools.ipynb"
    ).read_bytes()


def test_jupyterlab_opens_the_work_folder_unless_told_another(lab: ModuleType) -> None:
    assert f"--ServerApp.root_dir={lab.WORK}" in lab.command([])
    assert f"--LabApp.default_url=/lab/tree/{lab.FIRST}" in lab.command([])
    elsewhere = lab.command(["--notebook-dir=/tmp"])
    assert not [arg for arg in elsewhere if arg.startswith("--ServerApp.root_dir")]


def test_git_ignores_the_work_folder(lab: ModuleType) -> None:
    probe = lab.WORK.relative_to(ROOT) / "ko" / "00_getting_started.ipynb"
    ignored = subprocess.run(["git", "check-ignore", "-q", str(probe)], cwd=ROOT, check=False)
    assert ignored.returncode == 0
