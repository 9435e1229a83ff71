"""The SDK's internals we rely on are all in two modules, listed, and still as we need them.

Each compat module (`mcp_notebook.server._sdk_compat`, `mcp_notebook.client._sdk_compat`) lists in
``RELIES_ON`` every private name of the SDK it uses and each public one used in a way the SDK does not
document. Here each is checked on the installed packages: a failure names the one that changed and
who relies on it. No module outside the two touches a private name of the SDK (nor of uvicorn and the
HTTP packages under it), and the two use none they do not list. The requirements on those packages
admit no minor release newer than the one installed, which is the one these tests passed on.

Before raising a bound in pyproject: install the new version and run this file first.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import importlib.util
import inspect
import re
import sys
import textwrap
import tomllib
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

import mcp_notebook
from mcp_notebook.client import _sdk_compat as client_compat
from mcp_notebook.server import _sdk_compat as server_compat

PACKAGE = Path(mcp_notebook.__file__).parent
COMPAT = {
    PACKAGE / "server" / "_sdk_compat.py": server_compat,
    PACKAGE / "client" / "_sdk_compat.py": client_compat,
}
RELIANCES = [(module, *entry) for module in COMPAT.values() for entry in module.RELIES_ON]
# The packages whose private names count: the SDK and the HTTP stack under it.
THIRD_PARTY = ("mcp", "mcp_types", "uvicorn", "starlette", "sse_starlette", "httpx2", "h11")
PRIVATE = re.compile(r"_[A-Za-z]\w*")  # `_name`, not `__dunder__` (nor a mangled `__name`)
# Under `object`'s and the standard library's bases, nothing of ours is a reliance.
_BUILTIN_ROOTS = ("builtins", "abc", "typing", "asyncio", "contextlib", "dataclasses")


# -- each reliance holds on the installed packages -----------------------------------------------
@pytest.mark.parametrize(("compat", "what", "shape", "user"), RELIANCES, ids=[r[1] for r in RELIANCES])
def test_each_reliance_holds(compat: Any, what: str, shape: str, user: str) -> None:
    found = _shape_of(what, shape)
    assert found == shape, (
        f"{what} changed in the installed packages: we need {shape!r}, it is {found!r}. "
        f"Relied on by {user} (listed in {compat.__name__}.RELIES_ON): adapt that hook, or keep the "
        f"version that has it."
    )


def _shape_of(what: str, shape: str) -> str:
    """What `what` is on the installed packages, said the way `shape` says what it must be."""
    try:
        owner, name = _resolve(what)
    except (ImportError, AttributeError) as exc:
        return f"missing ({exc})"
    if shape == "attribute":
        if name in _instance_attributes(owner) or name in dir(owner):
            return "attribute"
        return "missing"
    try:
        value = inspect.getattr_static(owner, name)
    except AttributeError:
        return "missing"
    if shape == "dataclass":
        return "dataclass" if dataclasses.is_dataclass(value) else f"not a dataclass: {value!r}"
    if isinstance(value, property):
        return "property"
    if not inspect.isfunction(value):
        return f"{type(value).__name__}, not a function"
    kind = "async def" if inspect.iscoroutinefunction(value) else "def"
    return f"{kind} {_bare(inspect.signature(value))}"


def _resolve(what: str) -> tuple[Any, str]:
    """The object that holds `what`'s last part (a module or a class), and that part."""
    parts = what.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for part in parts[cut:-1]:
            owner = getattr(owner, part)
        return owner, parts[-1]
    raise ImportError(f"no module in {what}")


def _bare(signature: inspect.Signature) -> str:
    """A signature without annotations: the parameters, their kinds and defaults."""
    parameters = [p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()]
    return str(signature.replace(parameters=parameters, return_annotation=inspect.Signature.empty))


@functools.cache
def _instance_attributes(cls: type) -> frozenset[str]:
    """The attributes the methods of `cls` and its bases set on ``self`` (as their source says)."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass.__module__.split(".")[0] in _BUILTIN_ROOTS:
            continue
        try:
            source = textwrap.dedent(inspect.getsource(klass))
        except (OSError, TypeError):
            continue
        for node in ast.walk(ast.parse(source)):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
            ):
                names.add(node.attr)
    return frozenset(names)


# -- only the compat modules touch private names, and they list each one ----------------------------
@dataclasses.dataclass(frozen=True)
class Use:
    """One use of another package's private name in our source."""

    path: Path
    line: int
    what: str
    name: str  # the private name used, or the dotted name of what is imported

    def __str__(self) -> str:
        where = self.path.relative_to(PACKAGE.parent) if self.path.is_relative_to(PACKAGE) else self.path
        return f"{where}:{self.line}: {self.what}"


def test_no_module_but_the_compat_modules_touches_a_private_name_of_the_sdk() -> None:
    uses = [use for path in _our_sources() if path not in COMPAT for use in _private_uses(path)]
    uses.sort(key=lambda use: (use.path, use.line))
    assert not uses, (
        "Private names of the SDK (or uvicorn, starlette, httpx2) used outside the compat modules; "
        "give each a hook in mcp_notebook/server/_sdk_compat.py or mcp_notebook/client/_sdk_compat.py "
        "(listed in its RELIES_ON, with what the SDK lacks and what upstream hook would replace it), "
        "and call that instead:\n" + "\n".join(map(str, uses))
    )


@pytest.mark.parametrize("path", list(COMPAT), ids=[path.parent.name for path in COMPAT])
def test_the_compat_modules_list_every_private_name_they_use(path: Path) -> None:
    # Changing an object's class is Python's, not the SDK's: what it relies on (that the SDK built the
    # object, with no factory to take ours) is listed as the name that hands the object over.
    targets = [what for what, _, _ in COMPAT[path].RELIES_ON]
    listed = {what.rsplit(".", 1)[1] for what in targets} | {"__class__"}
    unlisted = [
        use
        for use in _private_uses(path)
        if use.name not in listed and not any(f"{what}.".startswith(f"{use.name}.") for what in targets)
    ]
    assert not unlisted, (
        f"{COMPAT[path].__name__} uses private names its RELIES_ON does not list; add each one "
        f"(its full name, the shape we need, the hook that uses it):\n" + "\n".join(map(str, unlisted))
    )


def test_the_source_scan_finds_each_kind_of_private_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scans above are only as good as what they recognise: each way of reaching in is found."""
    module = tmp_path / "mcp_notebook_scan_probe.py"
    module.write_text(
        textwrap.dedent(
            """
            from mcp.shared._httpx_utils import create_mcp_http_client
            from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

            def peek(manager, transport, server):
                manager._server_instances.clear()
                server.__class__ = type(server)
                return getattr(transport, "_requests_in_flight", 0)

            class Manager(StreamableHTTPSessionManager):
                def _admit_session(self, requestor):
                    return None
            """
        )
    )
    monkeypatch.syspath_prepend(tmp_path)
    try:
        found = {use.name for use in _private_uses(module, "mcp_notebook_scan_probe")}
    finally:
        sys.modules.pop("mcp_notebook_scan_probe", None)
    assert found == {
        "mcp.shared._httpx_utils.create_mcp_http_client",
        "_server_instances",
        "__class__",
        "_requests_in_flight",
        "_admit_session",
    }


def _our_sources() -> Iterator[Path]:
    return (path for path in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in path.parts)


def _private_uses(path: Path, module_name: str | None = None) -> list[Use]:
    """Where `path` imports, reads, writes or overrides a private name of a third-party package."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    theirs = _their_private_names() - _our_private_names()
    uses: list[Use] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and _is_third_party(node.module):
            for alias in node.names:
                if _private_module(node.module) or PRIVATE.fullmatch(alias.name):
                    what = f"imports {alias.name} from {node.module}"
                    uses.append(Use(path, node.lineno, what, f"{node.module}.{alias.name}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _is_third_party(alias.name) and _private_module(alias.name):
                    uses.append(Use(path, node.lineno, f"imports {alias.name}", alias.name))
        elif isinstance(node, ast.Attribute):
            if node.attr == "__class__" and isinstance(node.ctx, ast.Store):
                uses.append(Use(path, node.lineno, "changes an object's class", "__class__"))
            elif node.attr in theirs:
                uses.append(Use(path, node.lineno, f"reaches .{node.attr}", node.attr))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr", "delattr")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in theirs
        ):
            uses.append(
                Use(path, node.lineno, f"{node.func.id}(..., {node.args[1].value!r})", node.args[1].value)
            )
    if _imports_third_party_at_module_level(tree):
        uses += _overrides(path, module_name or _module_name(path))
    return uses


def _overrides(path: Path, module_name: str) -> list[Use]:
    """Private names a class of the module defines that a third-party base class defines too."""
    module = importlib.import_module(module_name)
    uses = []
    for cls in vars(module).values():
        if not isinstance(cls, type) or cls.__module__ != module_name:
            continue
        mine = {name for name in vars(cls) if PRIVATE.fullmatch(name)}
        mine |= {name for name in _own_instance_attributes(cls) if PRIVATE.fullmatch(name)}
        for base in cls.__mro__[1:]:
            if not _is_third_party(base.__module__):
                continue
            for name in sorted(mine & (set(vars(base)) | _own_instance_attributes(base))):
                line = inspect.getsourcelines(cls)[1]
                what = f"{cls.__name__} overrides {base.__name__}.{name}"
                uses.append(Use(path, line, what, name))
    return uses


def _own_instance_attributes(cls: type) -> frozenset[str]:
    return _instance_attributes(cls) - {
        name for base in cls.__mro__[1:] for name in _instance_attributes(base)
    }


@functools.cache
def _their_private_names() -> frozenset[str]:
    """Every private name the third-party packages define (functions, classes, attributes, variables)."""
    names: set[str] = set()
    for package in THIRD_PARTY:
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations, package
        for folder in spec.submodule_search_locations:
            for source in Path(folder).rglob("*.py"):
                names |= _defined_private_names(ast.parse(source.read_bytes()))
    return frozenset(names)


@functools.cache
def _our_private_names() -> frozenset[str]:
    """The private names our package defines outside the compat modules: reaching those is our business."""
    names: set[str] = set()
    for path in _our_sources():
        if path not in COMPAT:
            names |= _defined_private_names(ast.parse(path.read_text(encoding="utf-8")))
    return frozenset(names)


def _defined_private_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias) and node.asname:
            names.add(node.asname)
    return {name for name in names if PRIVATE.fullmatch(name)}


def _is_third_party(module: str) -> bool:
    return module.split(".")[0] in THIRD_PARTY


def _private_module(module: str) -> bool:
    return any(PRIVATE.fullmatch(part) for part in module.split("."))


def _imports_third_party_at_module_level(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and _is_third_party(node.module):
            return True
        if isinstance(node, ast.Import) and any(_is_third_party(alias.name) for alias in node.names):
            return True
    return False


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# -- the requirements admit only what these tests passed on -----------------------------------------
@pytest.mark.parametrize("distribution", sorted({r[1].split(".")[0] for r in RELIANCES}))
def test_the_requirement_admits_no_newer_minor_release_than_the_one_tested(distribution: str) -> None:
    pyproject = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    requirements = [Requirement(text) for text in pyproject["project"]["dependencies"]]
    requirement = next(r for r in requirements if r.name == distribution)
    installed = Version(version(distribution))
    next_minor = Version(f"{installed.major}.{installed.minor + 1}")
    assert installed in requirement.specifier, (
        f"the installed {distribution} {installed} is not one pyproject admits ({requirement})"
    )
    assert next_minor not in requirement.specifier, (
        f"pyproject admits {distribution} {next_minor} ({requirement}), but these tests ran on "
        f"{installed}: its private parts we use may have changed. Bound it below {next_minor}, and raise "
        f"the bound only once tests/peers/test_sdk_compat.py passes on the new version."
    )
