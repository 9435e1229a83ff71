"""Build the lesson notebooks from their data, and bring a chapter written as code into data.

    python scripts/lessons.py build [CHAPTER ...] [--force]
    python scripts/lessons.py run [CHAPTER ...] [--lang ko|en]
    python scripts/lessons.py minutes
    python scripts/lessons.py convert MODULE --chapter NN NOTEBOOK.ipynb [...]
    python scripts/lessons.py english NN DRAFT.txt
    python scripts/lessons.py mutants [CHAPTER.qN ...] [--lang ko en] [--limit 40] [--all]

``build`` writes ``notebooks/ko/*.ipynb`` and ``notebooks/en/*.ipynb`` from
``mcp_notebook/lessons/content/chNN/`` (cells and exercises), without outputs, for every notebook
whose cells differ from the committed one (``--force``: all of them); then run them. ``run`` builds and
executes (the same as ``scripts/run_notebooks.py`` on each), so the committed outputs are current;
do it after changing an exercise's texts too, since the notebook shows them. ``minutes`` prints how long
each notebook takes to read (the limit is tested).

``convert`` brings a chapter written the older way (an ``Exercise`` per name in a module, texts as
``(한국어, English)`` pairs, a hand-made notebook) into data: it imports MODULE, writes each exercise's
``to_data()`` into ``content/chNN/exercises.toml`` and each notebook's cells into ``cells.toml``
(answer cells, those starting ``# 여기에 답을 쓰세요`` and ending ``qN.check()``, become
``answer = "qN"``, their first line the exercise's ``answer_note``). What it cannot know is marked
``TODO``: English for the notebook's cells, a kind of exercise the module defines itself (add its
``kind`` name and ``data_kwargs``, and pass it to ``load_exercises``), a probe's ``accept`` function
(name it in ``checks``, or say it as ``result = {contains = ...}``). Then replace the module's body
with ``load_exercises`` (see ``ch00.py``). ``english`` fills in those English texts from a draft whose
blocks start ``=== INDEX`` (a cell of the first notebook; ``=== PART:INDEX`` for another notebook) or
``=== qN.answer_note``. A test fails while any ``TODO`` is left.

``mutants`` measures the checkers of the code exercises (``01.q7``; a chapter, ``01``, for all of its
own; none for every one): it runs wrong variants of each model answer through the exercise's check,
as a learner's answer runs, and prints per exercise how many were refused, survived or equivalent, each
survivor as a one-line diff, and a table; it exits with 1 when an exercise's check refuses less than
95 % of the mutants that are not equivalent (see ``mcp_notebook/lessons/_mutants.py``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from _toml_out import dumps  # noqa: E402

from mcp_notebook.lessons import _content, _mutants, _notebooks  # noqa: E402
from mcp_notebook.lessons._answers import Classification, MultipleChoice, ShortAnswer  # noqa: E402
from mcp_notebook.lessons._order import SEED_VARIABLE  # noqa: E402
from mcp_notebook.lessons._toolcheck import ToolExercise  # noqa: E402

CONTENT = ROOT / "mcp_notebook" / "lessons" / "content"
TODO = "TODO"
ANSWER_CELL = re.compile(
    r"\A# 여기에 답을 쓰세요(?::\s*(?P<note>.*))?\n(?:.*\n)*?(?P<name>q\d+)\.check\(\)\s*\Z"
)
HANGUL = re.compile(r"[\uac00-\ud7a3]")
EXERCISES_HEADER = """Exercises of chapter {chapter}: one table per exercise (kind, texts as {{ko, en}}, what the kind adds).
accepts / refuses: answers the tests try (tests/lessons/test_answers.py); every exercise brings
at least two right answers in different forms and three wrong ones with the advice they must get."""
CELLS_HEADER = """The notebook(s) of chapter {chapter}, cell by cell: markdown, code, or answer (made from the exercise).
Built into notebooks/ko and notebooks/en by scripts/lessons.py build; see mcp_notebook/lessons/_notebooks.py."""


# -- build ----------------------------------------------------------------------------------------------
def committed_cells(path: Path) -> list[tuple[str, str, tuple[str, ...]]] | None:
    if not path.exists():
        return None
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return [
        (c["cell_type"], _source(c["source"]), tuple(c.get("metadata", {}).get("tags", ())))
        for c in notebook["cells"]
    ]


def _source(source: str | list[str]) -> str:
    return source if isinstance(source, str) else "".join(source)


def made_cells(notebook: _notebooks.Notebook) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(cell.type, cell.source, cell.tags) for cell in notebook.cells]


def build(chapters: list[str], *, force: bool, languages: tuple[str, ...] = ("ko", "en")) -> list[Path]:
    """Write the notebooks of `chapters` whose cells changed (all with `force`); the paths written."""
    written = []
    for chapter in chapters:
        for language in languages:
            for notebook in _notebooks.chapter_notebooks(chapter, language):
                path = ROOT / notebook.path
                if not force and committed_cells(path) == made_cells(notebook):
                    continue
                path.parent.mkdir(parents=True, exist_ok=True)
                text = json.dumps(notebook.to_json(), indent=1, ensure_ascii=False, sort_keys=True)
                path.write_text(text + "\n", encoding="utf-8")
                written.append(path)
    return written


# -- convert ----------------------------------------------------------------------------------------------
BASE_KINDS = (Classification, MultipleChoice, ShortAnswer, ToolExercise)
_COVERED = re.compile(
    r"(title|question|explanation|solution|answer_note|hint\.\d+|item\..+|feedback\..+|option\..+|wrong\..+|probe\.\d+)"
)


def exercise_data(exercise: Any, shared: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """An exercise as data, and the vocabulary it brings (when it is not a shared one)."""
    data = exercise.to_data()
    own_kind = type(exercise).__dict__.get("kind")
    if type(exercise) not in BASE_KINDS and own_kind is None:
        data["kind"] = f"{TODO} {type(exercise).__name__} (a {data['kind']}): give the class a kind name"
    for key, text in exercise._texts.items():
        if not _COVERED.fullmatch(key):
            data[key.replace(".", "_")] = dict(text)
    vocabularies = {}
    vocabulary = getattr(exercise, "vocabulary", None)
    if vocabulary is not None and vocabulary.group not in shared:
        vocabularies[vocabulary.group] = vocabulary.to_data()
    return data, vocabularies


def notebook_cells(path: Path, notes: dict[str, str]) -> list[dict[str, Any]]:
    """The cells of a hand-made notebook as data; answer cells' notes go into `notes`."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = []
    for cell in notebook["cells"]:
        source = _source(cell["source"])
        tags = list(cell.get("metadata", {}).get("tags", ()))
        found = ANSWER_CELL.match(source) if cell["cell_type"] == "code" else None
        if found:
            made: dict[str, Any] = {"answer": found["name"]}
            if found["note"]:
                notes[found["name"]] = found["note"].strip()
        elif cell["cell_type"] == "markdown":
            made = {"markdown": {"ko": source, "en": TODO}}
        elif HANGUL.search(source):
            made = {"code": {"ko": source, "en": TODO}}
        else:
            made = {"code": source}
        if tags:
            made["tags"] = tags
        cells.append(made)
    return cells


def convert(module_name: str, chapter: str, notebooks: list[Path]) -> None:
    module = importlib.import_module(module_name)
    shared = dict(_content.shared_vocabularies())
    exercises: dict[str, Any] = {}
    vocabularies: dict[str, Any] = {}
    for name in module.__all__:
        data, brought = exercise_data(getattr(module, name), shared)
        exercises[name] = data
        vocabularies.update(brought)
    notes: dict[str, str] = {}
    parts = [{"file": path.stem, "cell": notebook_cells(path, notes)} for path in notebooks]
    for name, note in notes.items():
        if name in exercises and "answer_note" not in exercises[name]:
            exercises[name] = _with_note(exercises[name], {"ko": note, "en": TODO})
    folder = CONTENT / f"ch{chapter}"
    folder.mkdir(parents=True, exist_ok=True)
    top = {"vocabularies": vocabularies} if vocabularies else {}
    (folder / "exercises.toml").write_text(
        dumps({**top, **exercises}, EXERCISES_HEADER.format(chapter=chapter)), encoding="utf-8"
    )
    (folder / "cells.toml").write_text(
        dumps({"notebook": parts}, CELLS_HEADER.format(chapter=chapter)), encoding="utf-8"
    )
    print(f"wrote {folder.relative_to(ROOT)}/exercises.toml and cells.toml; look for {TODO}")


def _with_note(data: dict[str, Any], note: dict[str, str]) -> dict[str, Any]:
    ordered: dict[str, Any] = {}
    for key, value in data.items():
        ordered[key] = value
        if key == "title":
            ordered["answer_note"] = note
    return ordered


# -- english ----------------------------------------------------------------------------------------------
def english(chapter: str, draft: Path) -> None:
    """Fill in English texts of a chapter's cells and answer notes from `draft` (see the docstring)."""
    blocks = re.split(r"^=== (\S+).*\n", draft.read_text(encoding="utf-8"), flags=re.MULTILINE)
    cells = _content.read(CONTENT / f"ch{chapter}" / "cells.toml")
    exercises = _content.read(CONTENT / f"ch{chapter}" / "exercises.toml")
    for where, text in zip(blocks[1::2], blocks[2::2], strict=True):
        text = text.rstrip("\n")
        if where.endswith(".answer_note"):
            exercises[where.split(".")[0]]["answer_note"]["en"] = text
            continue
        part, _, index = where.rpartition(":")
        cell = cells["notebook"][int(part or 0)]["cell"][int(index)]
        kind = "markdown" if "markdown" in cell else "code"
        if isinstance(cell[kind], str):
            cell[kind] = {"ko": cell[kind], "en": text}
        else:
            cell[kind]["en"] = text
    folder = CONTENT / f"ch{chapter}"
    (folder / "cells.toml").write_text(dumps(cells, CELLS_HEADER.format(chapter=chapter)), encoding="utf-8")
    (folder / "exercises.toml").write_text(
        dumps(exercises, EXERCISES_HEADER.format(chapter=chapter)), encoding="utf-8"
    )


# -- mutants ----------------------------------------------------------------------------------------------
def mutants(keys: list[str], languages: list[str], *, limit: int, seed: int, refused: bool) -> int:
    """Measure the checkers of the code exercises `keys`; 1 when one is below the threshold (2 when
    one of `keys` is no code exercise)."""
    reports = []
    try:
        for language in languages:
            for report in _mutants.measure(keys, language=language, limit=limit, seed=seed):
                print(report.text(refused=refused), "", sep="\n", flush=True)
                reports.append(report)
    except ValueError as exc:  # an exercise named that is none: said before anything runs
        print(exc, file=sys.stderr)
        return 2
    print(_mutants.HEADER)
    print("\n".join(report.row() for report in reports))
    below = [f"{r.key} ({r.language})" for r in reports if not r.passed]
    if below:
        print(f"below {_mutants.THRESHOLD:.0%}: {', '.join(below)}")
    return 1 if below else 0


# -- main -------------------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    b = commands.add_parser("build", help="write the notebooks whose cells changed")
    b.add_argument("chapters", nargs="*")
    b.add_argument("--force", action="store_true")
    r = commands.add_parser("run", help="build and execute notebooks, so their outputs are current")
    r.add_argument("chapters", nargs="*")
    r.add_argument("--lang", choices=("ko", "en"))
    commands.add_parser("minutes", help="how long each notebook takes to read")
    c = commands.add_parser("convert", help="bring a chapter written as code into data")
    c.add_argument("module")
    c.add_argument("--chapter", required=True)
    c.add_argument("notebooks", nargs="+", type=Path)
    e = commands.add_parser("english", help="fill in English texts from a draft")
    e.add_argument("chapter")
    e.add_argument("draft", type=Path)
    m = commands.add_parser("mutants", help="measure the code exercises' checkers with wrong model answers")
    m.add_argument("exercises", nargs="*", help="01.q7, or a chapter (01); none: every code exercise")
    m.add_argument("--lang", nargs="+", choices=("ko", "en"), default=["ko"])
    m.add_argument("--limit", type=int, default=_mutants.LIMIT, help="mutants run per exercise at most")
    m.add_argument("--seed", type=int, default=0, help="the checks' seed (the oracle takes the next three)")
    m.add_argument("--all", action="store_true", help="list the refused mutants too, with why")
    args = parser.parse_args()
    if args.command in ("build", "run"):
        chapters = args.chapters or _content.chapters()
        languages = (args.lang,) if getattr(args, "lang", None) else ("ko", "en")
        written = build(chapters, force=args.command == "run", languages=languages)
        if args.command == "run":
            from run_notebooks import run

            os.environ.setdefault(SEED_VARIABLE, "0")
            for path in written:
                print(f"running {path.relative_to(ROOT)}", flush=True)
                run(path)
        else:
            for path in written:
                print(
                    f"wrote {path.relative_to(ROOT)} (run it: python scripts/run_notebooks.py {path.relative_to(ROOT)})"
                )
    elif args.command == "minutes":
        for language in ("ko", "en"):
            for notebook in _notebooks.every_notebook(language):
                print(f"{notebook.path}: {_notebooks.reading_minutes(notebook):.1f} min")
    elif args.command == "convert":
        convert(args.module, args.chapter, args.notebooks)
    elif args.command == "mutants":
        sys.exit(mutants(args.exercises, args.lang, limit=args.limit, seed=args.seed, refused=args.all))
    else:
        english(args.chapter, args.draft)


if __name__ == "__main__":
    main()
