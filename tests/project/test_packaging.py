"""What pyproject.toml declares matches what the code imports, and the README map and mypy match the tree.

Every third-party distribution imported anywhere (the package, the lesson notebooks, the tests, the
scripts and benchmarks), at the top of a module or inside a function, must be declared in the
dependencies or in an extra that the importing file's feature installs (FEATURES), and every declared
dependency must be imported by the package outside the optional features. A module's distribution is
the one this environment installed it from (`importlib.metadata.packages_distributions`).
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import json
import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
NAME = canonicalize_name(PROJECT["project"]["name"])

FEATURES: dict[str, str | None] = {
    # path (a file, or a folder ending in "/") -> the extra it needs; None: the dependencies alone.
    # The longest matching path decides.
    "mcp_notebook/": None,
    "mcp_notebook/lessons/": "lab",  # exercise checks (hypothesis) and the instructor's mutants
    "mcp_notebook/jupyter/_forward.py": "lab",  # the server extension runs inside Jupyter Server
    "mcp_notebook/jupyter/progress_service.py": "hub",  # a JupyterHub service, run by the hub
    "mcp_notebook/core/_store_redis.py": "service",  # Store("redis://..."), imported on first use
    "mcp_notebook/server/http/_jwks.py": "service",  # OAuth access tokens, imported on first use
    "mcp_notebook/server/http/_oauth.py": "service",
    "mcp_notebook/core/_tracing.py": "otel",  # the API, only once a process collects traces
    "notebooks/": "lab",  # what the lessons' cells import
    "notebooks/conftest.py": "test",  # nbval's
    "scripts/": "dev",
    "scripts/_lab.py": "lab",  # what `scripts/lab` runs
    "tests/": "test",
    "bench/": "dev",
}
LEARNER_ONLY = {"pytest", "playwright", "jupyterhub", "nbval", "gunicorn", "ruff", "mypy", "import-linter"}
"""Distributions `scripts/lab` must not install for a learner: the test and development stack."""


def requirements(extra: str | None) -> set[str]:
    """The distributions `pip install .[extra]` asks for by name, through the extras it names."""
    declared = PROJECT["project"]["dependencies"]
    if extra is not None:
        declared = PROJECT["project"]["optional-dependencies"][extra]
    names: set[str] = set()
    for line in declared:
        requirement = Requirement(line)
        if canonicalize_name(requirement.name) == NAME:
            for included in requirement.extras:
                names |= requirements(included)
        else:
            names.add(canonicalize_name(requirement.name))
    return names if extra is None else names | requirements(None)


def feature(path: Path) -> str | None:
    relative = path.relative_to(ROOT).as_posix()
    matches = [key for key in FEATURES if relative == key or (key.endswith("/") and relative.startswith(key))]
    assert matches, f"{relative}: no feature in FEATURES"
    return FEATURES[max(matches, key=len)]


def is_local(module: str, path: Path) -> bool:
    return any(
        (folder / module).is_dir() or (folder / f"{module}.py").is_file() for folder in (ROOT, path.parent)
    )


def imports_of_python(source: str) -> Iterator[str]:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


IMPORT_LINE = re.compile(
    r"^\s*(?:from\s+([\w.]+)\s+import\b|import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*))"
)


def imports_of_notebook(path: Path) -> Iterator[str]:
    # Cells hold magics (`srv = %mcp_serve`) that ast cannot read: import lines are taken one by one.
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        for line in "".join(cell["source"]).splitlines():
            found = IMPORT_LINE.match(line)
            if found and found.group(1):
                yield found.group(1)
            elif found:
                yield from (part.split()[0] for part in found.group(2).split(","))


@functools.cache
def third_party_imports() -> dict[Path, set[str]]:
    """Each file's imported third-party top-level modules."""
    files = [
        path
        for folder in ("mcp_notebook", "tests", "scripts", "bench")
        for path in (ROOT / folder).rglob("*.py")
    ]
    files += [ROOT / "notebooks" / "conftest.py"]
    notebooks = [
        path for path in (ROOT / "notebooks").rglob("*.ipynb") if ".ipynb_checkpoints" not in path.parts
    ]
    found: dict[Path, set[str]] = {}
    for path in [*files, *notebooks]:
        modules = (
            imports_of_notebook(path) if path.suffix == ".ipynb" else imports_of_python(path.read_text())
        )
        tops = {module.partition(".")[0] for module in modules}
        found[path] = {
            top
            for top in tops
            if top not in sys.stdlib_module_names and top != "__future__" and not is_local(top, path)
        }
    return found


@functools.cache
def installed() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


def distributions(module: str) -> set[str]:
    return {canonicalize_name(name) for name in installed().get(module, [])}


def test_every_imported_distribution_is_declared_where_the_importing_file_needs_it() -> None:
    undeclared = []
    for path, modules in sorted(third_party_imports().items()):
        extra = feature(path)
        declared = requirements(extra)
        for module in sorted(modules):
            providers = distributions(module)
            assert providers, (
                f"{path.relative_to(ROOT)} imports {module}, which no installed distribution provides"
            )
            if not providers & declared:
                where = f"[{extra}]" if extra else "the dependencies"
                undeclared.append(
                    f"{path.relative_to(ROOT)}: {module} ({', '.join(sorted(providers))}) not in {where}"
                )
    assert undeclared == []


def test_every_dependency_is_imported_by_the_package_outside_its_optional_features() -> None:
    imported: set[str] = set()
    for path, modules in third_party_imports().items():
        if path.is_relative_to(ROOT / "mcp_notebook") and feature(path) is None:
            for module in modules:
                imported |= distributions(module)
    assert requirements(None) - imported == set()


def test_the_lab_extra_is_what_a_learner_needs_and_none_of_the_test_stack() -> None:
    assert requirements("lab") & LEARNER_ONLY == set()
    assert "jupyterlab" in requirements("lab")
    assert {"pytest", "playwright", "jupyterhub"} <= requirements("test")
    assert requirements("test") <= requirements("dev")
    # The scripts install these extras by name (scripts/_venv.sh takes the one each passes).
    for script, extra in (("lab", "lab"), ("check", "dev")):
        assert f'_venv.sh" {extra}\n' in (ROOT / "scripts" / script).read_text()


def test_every_mypy_override_names_a_module_that_exists() -> None:
    missing = []
    for override in PROJECT["tool"]["mypy"]["overrides"]:
        for module in override["module"]:
            path = ROOT / module.removesuffix(".*").replace(".", "/")
            if not (path.is_dir() or path.with_suffix(".py").is_file()):
                missing.append(module)
    assert missing == []


def test_the_readme_map_lists_every_subpackage() -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("```text\nmcp_notebook/\n", 1)[1].split("```", 1)[0]
    listed = set(re.findall(r"^ {2}(\w+)/", block, re.MULTILINE))
    packages = {path.parent.name for path in (ROOT / "mcp_notebook").glob("*/__init__.py")}
    assert listed == packages
