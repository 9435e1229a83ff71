"""JupyterLab on the learner's copies of notebooks/, the project's way; `scripts/lab` runs it once .venv is ready.

JupyterLab opens `work/` (untracked, ignored by git), where each start copies in the lesson notebooks
the folder lacks: a learner's answers and new notebooks stay there, a copy once made is never
overwritten, and the repository's lessons stay as committed (delete a copy to get the lesson afresh).
Given `--ServerApp.root_dir` (or an alias), JupyterLab opens that folder instead and nothing is copied.

A first start opens chapter 00 of the lessons and prints nothing a newcomer would take for an
error. Everything it sets stays in the repository or in .venv: the user's own Jupyter settings and
files (~/.jupyter, ~/.local/share/jupyter) are neither written nor overridden, and what the user set
there still wins. `scripts/jupyter/` (first on JUPYTER_CONFIG_PATH, for this process only) holds:

- `labconfig/default_setting_overrides.json`: two defaults changed, no "official Jupyter news?"
  question over the lesson and no update check.
- `jupyter_server_config.py`: kernel websockets keep jupyter_server's ping timeout (three ping
  intervals), and the one line tornado >= 6.5 logs about it at the first websocket is filtered out.

And here, on the command line: kernels talk to the server with CurveZMQ keys the kernel manager
provisions (ipykernel warns that plain TCP can be overheard, and names this remedy). The lessons
ship with outputs, which Jupyter treats as untrusted (a warning per notebook opened) until they
are signed on this machine: whoever runs this script already runs the repository's code, so its
notebooks are signed, in a trust database inside .venv. Without a browser to open (a server, a
container), none is tried: the URL is printed either way.

    python scripts/_lab.py [jupyter lab options]
"""

from __future__ import annotations

import os
import shutil
import sys
import webbrowser
from pathlib import Path

import nbformat
import zmq
from nbformat.sign import NotebookNotary

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
WORK = ROOT / "work"  # in .gitignore
ROOT_DIR = ("--ServerApp.root_dir", "--ServerApp.notebook_dir", "--notebook-dir")
CONFIG = ROOT / "scripts" / "jupyter"
TRUST = Path(sys.prefix) / "share" / "jupyter" / "mcp-notebook-trust"
FIRST = "ko/00_getting_started.ipynb"  # as the Binder badge opens


def lessons() -> list[Path]:
    return [path for path in sorted(NOTEBOOKS.rglob("*.ipynb")) if ".ipynb_checkpoints" not in path.parts]


def copy_lessons(work: Path = WORK) -> None:
    """Copies each lesson notebook that `work` lacks (at the same relative path); never overwrites."""
    for source in lessons():
        copy = work / source.relative_to(NOTEBOOKS)
        if not copy.exists():
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, copy)


def sign_notebooks() -> None:
    # A signature is of the content: a copy still as committed is trusted by the lesson's signature,
    # and one a learner saved is signed by Jupyter as it saves.
    TRUST.mkdir(mode=0o700, parents=True, exist_ok=True)
    with NotebookNotary(data_dir=str(TRUST)) as notary:
        for path in lessons():
            notebook = nbformat.read(path, as_version=4)
            if not notary.check_signature(notebook):
                notary.sign(notebook)


def has_browser() -> bool:
    try:
        webbrowser.get()
    except webbrowser.Error:
        return False
    return True


def given_options(argv: list[str]) -> set[str]:
    return {arg.partition("=")[0] for arg in argv if arg.startswith("--")}


def command(argv: list[str]) -> list[str]:
    defaults = {
        # name (and its aliases) -> the option given unless the caller gives that name
        ROOT_DIR: f"--ServerApp.root_dir={WORK}",
        ("--LabApp.default_url",): f"--LabApp.default_url=/lab/tree/{FIRST}",
        ("--NotebookNotary.data_dir",): f"--NotebookNotary.data_dir={TRUST}",
    }
    # ipykernel warns that a kernel over TCP without encryption can be overheard; its remedy is CurveZMQ
    # keys the kernel manager provisions ("auto": for kernels that declare support, as ipykernel does).
    if zmq.has("curve"):
        defaults[("--KernelManager.transport_encryption",)] = "--KernelManager.transport_encryption=auto"
    given = given_options(argv)
    # Jupyter takes a setting once: the caller's options replace these rather than repeat them.
    args = [option for names, option in defaults.items() if not given & set(names)]
    # Jupyter refuses to run as root without being told; containers and CI machines often are root.
    if os.geteuid() == 0:
        args.append("--allow-root")
    if not has_browser():
        args.append("--no-browser")
    return [sys.executable, "-m", "jupyterlab", *args, *argv]


def main(argv: list[str]) -> None:
    if not given_options(argv) & set(ROOT_DIR):
        copy_lessons()
    sign_notebooks()
    paths = [str(CONFIG), *filter(None, os.environ.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep))]
    env = {**os.environ, "JUPYTER_CONFIG_PATH": os.pathsep.join(paths)}
    args = command(argv)
    os.execve(args[0], args, env)


if __name__ == "__main__":
    main(sys.argv[1:])
