"""The suite spread over processes (scripts/check: pytest-xdist ``-n N --dist loadgroup``) keeps
together what must run in one process, and nothing else (tests/spread.py).

The groups are read from a real collection of the suite's own tests; the scheduling is proven by a
real spread run of a small test file, whose tests say which process ran them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

COLLECT = """
import json, sys, pytest
from tests.spread import group_of
class Groups:
    def __init__(self): self.found = {}
    def pytest_collection_finish(self, session):
        self.found = {item.nodeid: group_of(item) for item in session.items}
groups = Groups()
code = pytest.main(sys.argv[1:] + ["--collect-only", "-q", "-p", "no:cacheprovider", "-n", "0"], plugins=[groups])
print("GROUPS" + json.dumps(groups.found))
sys.exit(code)
"""


def groups_of(*paths: str) -> dict[str, str | None]:
    done = subprocess.run(
        [sys.executable, "-c", COLLECT, *paths, "--nbval", "--nbval-current-env"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("GROUPS"))
    found: dict[str, str | None] = json.loads(line.removeprefix("GROUPS"))
    return found


def test_shared_starts_keep_their_tests_together_and_the_rest_go_anywhere() -> None:
    found = groups_of(
        "tests/hub/test_hub.py",
        "tests/ipython/test_kernel.py",
        "tests/lessons/test_mutants.py",
        "tests/core/test_visible.py",
        "notebooks/en/00_getting_started.ipynb",
    )

    def of(prefix: str) -> set[str | None]:
        return {group for nodeid, group in found.items() if nodeid.startswith(prefix)}

    # One JupyterHub for the run: every test that uses it, in one process.
    assert of("tests/hub/test_hub.py") == {"session:classroom"}
    # A module's kernel: the module's tests that use it together (its others may go anywhere).
    kernel = "tests/ipython/test_kernel.py"
    assert kernel in of(kernel) <= {kernel, None}
    # A notebook's cells run in order in one kernel.
    assert of("notebooks/en/00_getting_started.ipynb") == {"notebooks/en/00_getting_started.ipynb"}
    # Each exercise's mutant measurement a unit of its own (a minute or more each), though they share a kernel.
    spread = {n: g for n, g in found.items() if "test_the_check_refuses_the_wrong_variants" in n}
    assert len(spread) > 10 and all(group == nodeid for nodeid, group in spread.items())
    # Tests that share nothing go to whichever process is free.
    assert of("tests/core/test_visible.py") == {None}


SAMPLE = """
import os, pytest

def ran(kind):
    with open(os.environ["SAMPLE_RAN"], "a") as log:
        log.write(kind + " " + os.environ["PYTEST_XDIST_WORKER"] + chr(10))

@pytest.fixture(scope="module")
def started():
    return os.environ["PYTEST_XDIST_WORKER"]

@pytest.mark.parametrize("n", range(12))
def test_shares_the_module_start(started, n):
    assert started == os.environ["PYTEST_XDIST_WORKER"]
    ran("shared")

@pytest.mark.spread
@pytest.mark.parametrize("n", range(12))
def test_spread_case(started, n):
    ran("spread")
"""


def test_a_spread_run_keeps_a_module_start_in_one_process(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(textwrap.dedent(SAMPLE))
    # Only the plugins under test: each of the four processes would otherwise load every installed
    # plugin (nbval's notebook reader, hypothesis, playwright, ...), 18 s of CPU instead of 1.5.
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(tmp_path), "-p", "xdist.plugin", "-p", "tests.spread", "-n", "3",
         "--dist", "loadgroup", "-q", "-p", "no:cacheprovider", "-o", "markers=spread", "--rootdir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), "SAMPLE_RAN": str(tmp_path / "ran.txt"),
             "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ran: dict[str, list[str]] = defaultdict(list)
    for line in (tmp_path / "ran.txt").read_text().splitlines():
        kind, worker = line.split()
        ran[kind].append(worker)
    # Every test that uses the module's fixture ran where it was started (the test itself asserts it too).
    assert len(ran["shared"]) == 12 and len(set(ran["shared"])) == 1
    assert len(ran["spread"]) == 12


def test_the_check_script_spreads_the_suite_by_those_groups() -> None:
    script = (ROOT / "scripts" / "check").read_text()
    assert "--dist loadgroup" in script and "MCP_NOTEBOOK_TEST_PROCESSES" in script
