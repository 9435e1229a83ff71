"""The suite spread over processes (scripts/check, pytest-xdist ``--dist loadgroup``) keeps together
what must run in one process, and nothing else.

Collected for real in a pytest of its own: which ``xdist_group`` each test gets from
`tests.conftest.pytest_collection_modifyitems`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

COLLECT = """
import json, sys, pytest
class Groups:
    def __init__(self): self.found = {}
    def pytest_collection_finish(self, session):
        for item in session.items:
            mark = item.get_closest_marker("xdist_group")
            self.found[item.nodeid] = None if mark is None else mark.kwargs.get("name", mark.args[0] if mark.args else None)
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


def test_shared_starts_keep_their_tests_in_one_process_and_the_rest_go_anywhere() -> None:
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
    assert (
        "tests/ipython/test_kernel.py"
        in of("tests/ipython/test_kernel.py")
        <= {"tests/ipython/test_kernel.py", None}
    )
    # A notebook's cells run in order in one kernel.
    assert of("notebooks/en/00_getting_started.ipynb") == {"notebooks/en/00_getting_started.ipynb"}
    # Each exercise's mutant measurement a unit of its own (minutes each), though they share a kernel.
    spread = {n: g for n, g in found.items() if "test_the_check_refuses_the_wrong_variants" in n}
    assert len(spread) > 10 and all(group == nodeid for nodeid, group in spread.items())
    # Tests that share nothing go to whichever process is free.
    assert of("tests/core/test_visible.py") == {None}


def test_the_check_script_spreads_the_suite_by_those_groups() -> None:
    script = (ROOT / "scripts" / "check").read_text()
    assert "--dist loadgroup" in script and "MCP_NOTEBOOK_TEST_PROCESSES" in script
