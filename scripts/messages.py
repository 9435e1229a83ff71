"""Put messages into the catalogue: ``mcp_notebook/core/messages/en.toml`` and ``ko.toml``.

    python scripts/messages.py add KEY --en "English text" --ko "한국어 문장"
    python scripts/messages.py move [MODULE.py ...]

``add`` writes one message into both files, after the last key that shares its prefix (``call.x`` after
the other ``call.*`` keys), or at the end. ``move`` takes the ``add_messages({...})`` blocks a module
still registers at import (every module of the package when none is named), writes their messages into
both files, one section per module, and deletes the blocks and the import of ``add_messages``. A key
already in the catalogue gets the new text in place. The key order and the comments of a block are kept.

Each message is one line, ``"key" = 'text'``, so that a key or a sentence is found with grep; the files
are never rewritten, only added to. Check the result with ``pytest tests/core/test_text.py``.
"""

from __future__ import annotations

import argparse
import ast
import re
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mcp_notebook"
CATALOGUE = PACKAGE / "core" / "messages"
LANGUAGES = ("en", "ko")
REGISTRARS = {"add_messages", "register"}  # `register` is the lesson kit's former spelling


# -- writing TOML -------------------------------------------------------------------------------------
def toml_string(text: str) -> str:
    """`text` as a one-line TOML string: literal ('...') when it can be, basic ("...") otherwise."""
    if "'" not in text and not any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text):
        return f"'{text}'"
    escaped = []
    for ch in text:
        if ch in '\\"':
            escaped.append("\\" + ch)
        elif ch == "\n":
            escaped.append("\\n")
        elif ch == "\t":
            escaped.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            escaped.append(f"\\u{ord(ch):04x}")
        else:
            escaped.append(ch)
    return '"' + "".join(escaped) + '"'


def entry(key: str, text: str) -> str:
    line = f'"{key}" = {toml_string(text)}'
    assert tomllib.loads(line) == {key: text}, line  # what is written reads back the same
    return line


class CatalogueFile:
    """One language's file, edited as lines so that hand-written comments and order survive."""

    def __init__(self, language: str) -> None:
        self.path = CATALOGUE / f"{language}.toml"
        self.lines = self.path.read_text(encoding="utf-8").splitlines() if self.path.exists() else []
        self.messages: dict[str, str] = tomllib.loads("\n".join(self.lines))

    def _line_of(self, key: str) -> int:
        prefix = f'"{key}" = '
        return next(i for i, line in enumerate(self.lines) if line.startswith(prefix))

    def put(self, key: str, text: str) -> str:
        """Replace the text of `key` in place; 'same', 'changed' or 'new' (the caller places new keys)."""
        if key not in self.messages:
            return "new"
        if self.messages[key] == text:
            return "same"
        self.lines[self._line_of(key)] = entry(key, text)
        self.messages[key] = text
        return "changed"

    def insert_near(self, key: str, text: str) -> None:
        """Add `key` after the last key with the longest common dotted prefix, or at the end."""
        parts = key.split(".")
        for size in range(len(parts) - 1, 0, -1):
            prefix = ".".join(parts[:size]) + "."
            neighbours = [k for k in self.messages if k.startswith(prefix)]
            if neighbours:
                at = max(self._line_of(k) for k in neighbours) + 1
                self.lines.insert(at, entry(key, text))
                break
        else:
            self.lines.append(entry(key, text))
        self.messages[key] = text

    def append_section(self, title: str, items: list[tuple[list[str], str, str]]) -> None:
        """Add a section of new messages: (comments before it, key, text) each."""
        if not items:
            return
        self.lines += ["", f"# == {title}"]
        for comments, key, text in items:
            self.lines += comments
            self.lines.append(entry(key, text))
            self.messages[key] = text

    def save(self) -> None:
        text = "\n".join(self.lines).strip("\n") + "\n"
        assert tomllib.loads(text) == self.messages, self.path
        self.path.write_text(text, encoding="utf-8")


# -- reading add_messages blocks ----------------------------------------------------------------------
def registrar_calls(tree: ast.Module) -> list[ast.Expr]:
    """Module-level statements that register messages at import."""
    imported = {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] in ("_text", "_texts")
        for alias in node.names
    }
    return [
        node
        for node in tree.body
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id in REGISTRARS & imported
    ]


def dict_source(path: Path, tree: ast.Module, argument: ast.expr) -> tuple[Path, ast.Dict] | None:
    """The dict literal behind `argument`: itself, or the module-level (or imported) assignment it names."""
    if isinstance(argument, ast.Dict):
        return path, argument
    if not isinstance(argument, ast.Name):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Dict):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == argument.id for t in targets):
                return path, node.value
        imported = isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
        if imported and any((a.asname or a.name) == argument.id for a in node.names):
            other = path.parent / f"{node.module}.py"
            other_tree = ast.parse(other.read_text(encoding="utf-8"))
            return dict_source(other, other_tree, ast.Name(id=argument.id))
    return None


def comments_before(lines: list[str], start: int, end: int) -> list[str]:
    """Whole-line comments among source lines start..end-1 (0-based), as TOML comments."""
    found = [line.strip() for line in lines[start:end] if line.strip().startswith("#")]
    return [re.sub(r"\s*-+\s*$", "", comment) for comment in found]  # "# -- x -----" -> "# -- x"


def constants(tree: ast.Module) -> dict[str, Any]:
    """The module's top-level assignments that can be evaluated alone (key prefixes, shared texts).

    The module is not imported: one that still calls ``add_messages`` no longer imports.
    """
    namespace: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            try:
                value = eval(compile(ast.Expression(node.value), "<constant>", "eval"), dict(namespace))
            except Exception:
                continue  # not a constant (a call, a name from elsewhere): messages do not use it
            namespace.update({t.id: value for t in targets if isinstance(t, ast.Name)})
    return namespace


def messages_of(path: Path, call: ast.Expr) -> list[tuple[list[str], str, dict[str, str]]]:
    """(comments, key, {language: text}) for each message of one registering call, in source order."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert isinstance(call.value, ast.Call)
    argument = call.value.args[0]
    found = dict_source(path, tree, argument)
    if found is None:  # not a dict literal: evaluate the expression itself
        namespace = constants(tree)
        messages: dict[str, dict[str, str]] = eval(
            compile(ast.Expression(argument), str(path), "eval"), namespace
        )
        return [([], key, texts) for key, texts in messages.items()]
    source_path, literal = found
    source = source_path.read_text(encoding="utf-8")
    namespace = constants(ast.parse(source))
    lines = source.splitlines()
    result = []
    previous_end = literal.lineno  # the line of the opening brace (1-based) is not searched
    for key_node, value_node in zip(literal.keys, literal.values, strict=True):
        assert key_node is not None, "no **spreads in a message block"
        key = eval(compile(ast.Expression(key_node), str(source_path), "eval"), namespace)
        texts = eval(compile(ast.Expression(value_node), str(source_path), "eval"), namespace)
        result.append((comments_before(lines, previous_end, key_node.lineno - 1), key, texts))
        previous_end = value_node.end_lineno or value_node.lineno
    return result


def remove_statements(path: Path, calls: list[ast.Expr]) -> None:
    """Delete the registering statements and the now unused import of the registrar."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for call in sorted(calls, key=lambda c: c.lineno, reverse=True):
        del lines[call.lineno - 1 : call.end_lineno]
    text = "\n".join(lines) + "\n"
    for name in REGISTRARS:
        if not re.search(rf"\b{name}\(", text):
            text = re.sub(rf"^(from \S*_texts? import .*?)\b{name}, ", r"\1", text, flags=re.M)
            text = re.sub(rf"^(from \S*_texts? import .*?), {name}\b", r"\1", text, flags=re.M)
            text = re.sub(rf"^from \S*_texts? import {name}\n", "", text, flags=re.M)
    text = re.sub(r"\n{4,}", "\n\n\n", text)  # the blank lines around a deleted block
    path.write_text(text, encoding="utf-8")


def move(paths: list[Path]) -> None:
    files = {language: CatalogueFile(language) for language in LANGUAGES}
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = registrar_calls(tree)
        if not calls:
            continue
        title = str(path.resolve().relative_to(PACKAGE))
        for call in calls:
            new: dict[str, list[tuple[list[str], str, str]]] = {language: [] for language in LANGUAGES}
            for comments, key, texts in messages_of(path, call):
                if set(texts) != set(LANGUAGES):
                    raise SystemExit(
                        f"{path}: message {key!r} needs exactly {LANGUAGES}, has {sorted(texts)}"
                    )
                for language in LANGUAGES:
                    status = files[language].put(key, texts[language])
                    if status == "new":
                        new[language].append((comments, key, texts[language]))
                    elif status == "changed":
                        print(f"{key} [{language}]: new text")
            for language in LANGUAGES:
                files[language].append_section(title, new[language])
            print(f"{title}: {len(new['en'])} new messages")
        remove_statements(path, calls)
    for file in files.values():
        file.save()


def add(key: str, texts: dict[str, str]) -> None:
    files = {language: CatalogueFile(language) for language in LANGUAGES}
    for language, file in files.items():
        if file.put(key, texts[language]) == "new":
            file.insert_near(key, texts[language])
        file.save()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    add_parser = commands.add_parser("add", help="write one message into both languages")
    add_parser.add_argument("key")
    for language in LANGUAGES:
        add_parser.add_argument(f"--{language}", required=True)
    move_parser = commands.add_parser("move", help="move add_messages blocks of modules into the catalogue")
    move_parser.add_argument("paths", nargs="*", type=Path)
    args: Any = parser.parse_args(argv)
    if args.command == "add":
        add(args.key, {language: getattr(args, language) for language in LANGUAGES})
    else:
        move(args.paths or sorted(PACKAGE.rglob("*.py")))


if __name__ == "__main__":
    main()
