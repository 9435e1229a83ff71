"""How `scripts/check` spreads the suite over processes (pytest-xdist, ``-n N --dist loadgroup``).

A test that uses only function-scoped fixtures goes to whichever process is free. Tests that share
something started once for them stay in one process, so that it starts once: a session fixture of
ours (a JupyterHub, a Jupyter server, Redis, Node peers) groups every test that uses it; a module's
or a class's fixture (a kernel, an exported app) groups its file. A notebook's cells under nbval run
in order in one kernel: a notebook is one group. A parametrized test marked ``spread`` is the
exception: each case is a group of its own, though its cases share a module's fixture (the lessons'
mutant measurement: a minute or more each).

Each test's group is decided where the fixtures are known, in the processes that collect the tests,
and handed to the one that schedules them through a file: pytest-xdist's own ``xdist_group`` mark
travels as a suffix of the node ID, which pytest 9's structured node IDs no longer take.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

SPREAD = "spread"
"""The mark of a parametrized test whose cases may each run in a process of their own."""

CHEAP_SESSION_FIXTURES = frozenset({"cache_dir"})
"""Session fixtures of ours that every test uses and that cost nothing to make again per process."""

_FOLDER = "mcp_notebook_test_groups"
"""The key of `workerinput` that names the folder where each process writes the groups it found."""


def group_of(item: pytest.Item) -> str | None:
    """The group `item` must run in, or None where any process may run it."""
    file = item.nodeid.split("::", 1)[0]
    if item.get_closest_marker(SPREAD) is not None:
        return item.nodeid
    info = getattr(item, "_fixtureinfo", None)  # pytest's own record of the fixtures a test uses
    if info is None:  # not a Python test function: a notebook cell under nbval
        return file
    shared_in_session: list[str] = []
    shared_in_file = False
    for name, definitions in info.name2fixturedefs.items():
        definition = definitions[-1]
        if definition.scope == "session":
            if _ours(definition) and name not in CHEAP_SESSION_FIXTURES:
                shared_in_session.append(name)
        elif definition.scope in ("module", "class", "package"):
            shared_in_file = True
    if shared_in_session:
        return "session:" + min(shared_in_session)
    return file if shared_in_file else None


def _ours(definition: Any) -> bool:
    """Whether a fixture is defined by these tests (not by pytest or a plugin: ``tmp_path_factory``)."""
    module = getattr(definition.func, "__module__", "") or ""
    return module.startswith("tests") or str(definition.baseid).startswith("tests")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a worker of a spread run: write each collected test's group for the scheduler to read."""
    workerinput = getattr(config, "workerinput", None)
    if not workerinput or _FOLDER not in workerinput:
        return
    groups = {item.nodeid: group_of(item) for item in items}
    folder = Path(workerinput[_FOLDER])
    written = folder / f".{workerinput['workerid']}.json"
    written.write_text(json.dumps(groups), encoding="utf-8")
    written.replace(folder / f"{workerinput['workerid']}.json")  # whole, or not there at all


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """In the scheduling process: tell each worker where to write the groups."""
    node.workerinput[_FOLDER] = str(_groups_folder(node.config))


def _groups_folder(config: pytest.Config) -> Path:
    folder = getattr(config, "_mcp_notebook_groups", None)
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="test-groups-"))
        config._mcp_notebook_groups = folder  # type: ignore[attr-defined]
    return Path(folder)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup``: units of work by the groups the workers wrote (see the module's docstring)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Grouped(LoadScopeScheduling):  # type: ignore[misc]
        """Each group one unit of work, largest first (xdist's own order); a test of no group, one."""

        _groups: dict[str, str | None] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self._groups is None:
                found = sorted(_groups_folder(config).glob("*.json"))
                if not found:
                    raise RuntimeError("no worker wrote the groups of the tests it collected")
                self._groups = json.loads(found[0].read_text(encoding="utf-8"))
            group = self._groups.get(nodeid)
            return nodeid if group is None else f"group:{group}"

    return Grouped(config, log)


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = getattr(config, "_mcp_notebook_groups", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
