"""A Binder launch starts JupyterLab as quietly as `scripts/lab`: the same settings file, installed by postBuild.

repo2docker runs ``binder/postBuild`` once the environment is built. It must install the very file
`scripts/lab` uses (one source of the settings, never a copy of its content) where JupyterLab reads
it, so the "official Jupyter news?" question does not cover chapter 00 on Binder either.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
POST_BUILD = ROOT / "binder" / "postBuild"
NEWS = "@jupyterlab/apputils-extension:notification"


def lab_overrides() -> Path:
    """The settings file `scripts/lab` puts on the Jupyter config path (read from `scripts/_lab.py`)."""
    spec = importlib.util.spec_from_file_location("_lab", ROOT / "scripts" / "_lab.py")
    assert spec is not None and spec.loader is not None
    lab = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lab)
    path: Path = lab.CONFIG / "labconfig" / "default_setting_overrides.json"
    assert json.loads(path.read_text())[NEWS]["fetchNews"] == "false"
    return path


def test_post_build_installs_the_settings_file_scripts_lab_uses_without_copying_its_content() -> None:
    source = lab_overrides()
    script = POST_BUILD.read_text()
    assert os.access(POST_BUILD, os.X_OK), "repo2docker runs postBuild only when it is executable"
    assert (
        script.startswith("#!/bin/bash\n") and "set -euo pipefail" in script
    )  # a failed copy fails the build
    assert source.relative_to(ROOT).as_posix() in script
    assert "fetchNews" not in script and "checkForUpdates" not in script  # one source of the settings
    assert not any(path.suffix == ".json" for path in POST_BUILD.parent.iterdir())  # nor a second file


def test_post_build_puts_the_settings_where_jupyterlab_reads_them(tmp_path: Path) -> None:
    prefix = tmp_path / "env"
    home = tmp_path / "home"
    # No network needed: run it against a temporary prefix, from another directory.
    subprocess.run(["bash", str(POST_BUILD), str(prefix)], cwd=tmp_path, check=True, timeout=60)
    installed = prefix / "etc" / "jupyter" / "labconfig" / "default_setting_overrides.json"
    assert installed.read_bytes() == lab_overrides().read_bytes()
    # JupyterLab's own reading of labconfig directories, with that prefix's config directory on the
    # Jupyter config path (as sys.prefix/etc/jupyter is for a server started from the environment)
    # and an empty home, as on a fresh Binder.
    env = {
        **os.environ,
        "JUPYTER_CONFIG_PATH": str(prefix / "etc" / "jupyter"),
        "JUPYTER_CONFIG_DIR": str(home / ".jupyter"),
        "HOME": str(home),
    }
    read = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json; from jupyter_server.services.config import ConfigManager; "
            "print(json.dumps(ConfigManager(config_dir_name='labconfig').get('default_setting_overrides')))",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(read.stdout)[NEWS] == {"fetchNews": "false", "checkForUpdates": False}
