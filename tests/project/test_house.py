"""House rules: the layered package keeps its public face, and its functions stay short."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import mcp_notebook

MAX_FUNCTION_LINES = 80


def test_importing_every_module_leaves_every_public_name_as_it_was() -> None:
    # A subpackage named like a public function (say `lint`) would replace `mcp_notebook.lint` the
    # moment anything imports it: `mcp_notebook.lint(tool)` would then call a module.
    code = """
import importlib, pkgutil, types
import mcp_notebook
before = {name: getattr(mcp_notebook, name) for name in mcp_notebook.__all__}
for module in pkgutil.walk_packages(mcp_notebook.__path__, "mcp_notebook."):
    if not module.name.endswith(".__main__"):
        importlib.import_module(module.name)
changed = [name for name in mcp_notebook.__all__ if getattr(mcp_notebook, name) is not before[name]]
modules = [name for name in mcp_notebook.__all__ if isinstance(getattr(mcp_notebook, name), types.ModuleType)]
print(changed, modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] []", out.stdout + out.stderr


def _body_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """How many lines `function`'s body spans, its docstring left out."""
    body = function.body
    first = body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        body = body[1:]
    if not body:
        return 0
    return (body[-1].end_lineno or body[-1].lineno) - body[0].lineno + 1


def _functions(
    tree: ast.AST, prefix: str = ""
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function in `tree`, nested ones and methods too, with its qualified name."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield prefix + node.name, node
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        else:
            yield from _functions(node, prefix)


def test_no_function_body_is_longer_than_80_lines() -> None:
    # A function longer than a screen does several jobs at once: give each its own name.
    package = Path(mcp_notebook.__file__).parent
    too_long = [
        f"{path.relative_to(package.parent)}:{function.lineno} {name} ({lines} lines)"
        for path in sorted(package.rglob("*.py"))
        for name, function in _functions(ast.parse(path.read_text(encoding="utf-8")))
        if (lines := _body_lines(function)) > MAX_FUNCTION_LINES
    ]
    assert too_long == [], "functions over 80 lines (docstrings aside):\n" + "\n".join(too_long)


# Folders of tests that are about no one subpackage: other clients against ours, exported apps and
# their launchers, attacks, the repository itself, real JupyterLab, JupyterHub, the conformance
# suite; and what tests share (servers, schemas) rather than tests.
CROSS_CUTTING = {
    "peers",
    "service",
    "security",
    "project",
    "browser",
    "hub",
    "conformance",
    "servers",
    "schemas",
}


def test_each_test_module_sits_in_the_folder_of_what_it_tests() -> None:
    # A flat tests/ of dozens of files says nothing about what each covers; a folder per subpackage
    # says where a change's tests are, and which to run.
    tests = Path(__file__).resolve().parents[1]
    package = Path(mcp_notebook.__file__).parent
    subpackages = {p.name for p in package.iterdir() if (p / "__init__.py").exists()}
    flat = sorted(p.name for p in tests.glob("test_*.py"))
    assert flat == [], f"test modules directly in tests/: {flat}; move each into the folder of what it tests"
    unknown = sorted(
        folder.name
        for folder in tests.iterdir()
        if folder.is_dir()
        and any(folder.rglob("test_*.py"))
        and folder.name not in subpackages | CROSS_CUTTING
    )
    assert unknown == [], f"test folders named after no subpackage: {unknown}"


def test_no_test_module_imports_another() -> None:
    # A test module imported by another runs its module-level set-up twice and ties two files'
    # changes together; what tests share lives in helper modules (tests/exported.py, wire.py, ...).
    tests = Path(__file__).resolve().parents[1]
    imports = []
    for path in sorted(tests.rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            imports += [
                f"{path.relative_to(tests.parent)} imports {name}"
                for name in names
                if name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_")
            ]
    assert imports == [], "move what they share into a helper module:\n" + "\n".join(imports)


def test_no_class_in_the_server_is_longer_than_300_lines() -> None:
    # A server class past a few screens has become the orchestrator of everything again: the call
    # pipeline is small steps (server/_call_*.py), each a class or function of its own.
    server = Path(mcp_notebook.__file__).parent / "server"
    too_long = [
        f"{path.relative_to(server.parent.parent)}:{node.lineno} {node.name} ({lines} lines)"
        for path in sorted(server.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and (lines := node.end_lineno - node.lineno + 1) > 300  # type: ignore[operator]
    ]
    assert too_long == [], "server classes over 300 lines:\n" + "\n".join(too_long)
