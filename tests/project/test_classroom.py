"""The class kit (classroom/): what can be checked on a machine without Docker or Kubernetes.

The JupyterHub configuration loads into JupyterHub's own configuration objects, the Zero to
JupyterHub values parse and agree with it, and the Dockerfile copies only what the repository has.
Running the images and the chart needs Docker and a cluster, which this test suite does not have;
the same settings run for real in tests/hub (a local hub with the same service and extension).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from traitlets.config.loader import PyFileConfigLoader

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "classroom"


@pytest.fixture(scope="module")
def config() -> Any:
    return PyFileConfigLoader("jupyterhub_config.py", path=str(KIT)).load_config()


def test_the_hub_configuration_loads_into_jupyterhub(config: Any) -> None:
    from jupyterhub.app import JupyterHub
    from jupyterhub.spawner import Spawner

    hub = JupyterHub(config=config)
    assert hub.public_url == "https://hub.example.org/"
    services = {service["name"]: service for service in hub.services}
    progress = services["mcp-progress"]
    assert progress["oauth_no_confirm"] is True
    assert importlib.util.find_spec(progress["command"][-1]) is not None  # the module the hub will run
    assert {"name": "mcp-progress", "scopes": ["read:users"], "services": ["mcp-progress"]} in hub.load_roles
    assert hub.load_groups == {"instructors": {"users": ["teacher"]}}
    spawner = Spawner(config=config)
    assert spawner.mem_limit == 1024**3 and spawner.mem_guarantee == 512 * 1024**2
    assert spawner.environment["MCP_NOTEBOOK_PROGRESS_URL"].startswith(progress["url"])
    assert spawner.default_url.startswith("/git-pull?repo=")
    assert "notebooks/ko/00_getting_started.ipynb" in spawner.default_url


def test_the_zero_to_jupyterhub_values_parse_and_agree_with_the_hub_configuration(config: Any) -> None:
    values = yaml.safe_load((KIT / "values.yaml").read_text())
    singleuser = values["singleuser"]
    assert singleuser["memory"] == {"guarantee": "512M", "limit": "1G"}
    assert singleuser["extraEnv"]["MCP_NOTEBOOK_PROGRESS_URL"].startswith(
        values["hub"]["services"]["mcp-progress"]["url"]
    )
    assert values["hub"]["services"]["mcp-progress"]["command"][-1] == "mcp_notebook.jupyter.progress_service"
    assert values["hub"]["config"]["JupyterHub"]["public_url"].startswith("https://")
    assert values["cull"]["enabled"] and values["cull"]["timeout"] == 3600
    assert "gitpuller" in singleuser["lifecycleHooks"]["postStart"]["exec"]["command"]


def test_every_file_the_dockerfile_copies_is_in_the_repository() -> None:
    text = (KIT / "Dockerfile").read_text()
    stages = re.findall(r"^FROM \S+ AS (\w+)", text, re.MULTILINE)
    assert {"singleuser", "hub"} <= set(stages)
    copies = [line.split()[1:] for line in text.splitlines() if line.startswith("COPY ")]
    assert copies
    for words in copies:
        if any(word.startswith("--from=") for word in words):
            continue
        sources = [word for word in words if not word.startswith("--")][:-1]
        for source in sources:
            assert (ROOT / source).exists(), f"COPY {source}: not in the repository"


def test_the_install_enables_the_jupyter_server_extension() -> None:
    """What the Dockerfile's check and every install rely on: the package ships its server config."""
    import json
    import tomllib

    shared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"][
        "wheel"
    ]["shared-data"]
    ((source, target),) = shared.items()
    assert target == "etc/jupyter/jupyter_server_config.d/mcp_notebook.json"
    assert json.loads((ROOT / source).read_text()) == {
        "ServerApp": {"jpserver_extensions": {"mcp_notebook.jupyter": True}}
    }


def test_what_a_stage_removes_after_installing_belongs_to_the_user_that_removes_it() -> None:
    """docker-stacks images build as the notebook user: a root-owned copy could not be removed.

    The hub image's Python belongs to root, so that stage installs as root and then hands the image
    back to the unprivileged user the chart runs it as.
    """
    text = (KIT / "Dockerfile").read_text()
    stages = dict(re.findall(r"^FROM \S+ AS (\w+)\n(.*?)(?=^FROM |\Z)", text, re.MULTILINE | re.DOTALL))
    for name, body in stages.items():
        user = "root" if name == "wheel" else "notebook user"
        for line in body.replace("\\\n", " ").splitlines():
            if line.startswith("USER "):
                user = "root" if line.split()[1] in ("root", "0") else "notebook user"
            elif line.startswith("COPY ") and user != "root":
                removed = line.split()[-1]
                if f"rm -rf {removed}" in body:
                    assert "--chown=${NB_UID}:${NB_GID}" in line, f"{name}: {line}"
        assert user == "notebook user" or name == "wheel", f"{name} ends as root"


def test_the_pacing_names_every_lesson_notebook() -> None:
    """The kit's pacing table places each lesson notebook in a session: a new chapter is added there too."""
    pacing = (KIT / "README.md").read_text(encoding="utf-8").split("## Pacing", 1)[1].split("\n## ", 1)[0]
    placed = set(re.findall(r"\| \d+ \| (.+?) \|", pacing))
    named = {match for row in placed for match in re.findall(r"\b(\d\d[a-z]?) ", row)}
    lessons = {path.stem.split("_")[0] for path in (ROOT / "notebooks" / "ko").glob("*.ipynb")}
    assert lessons <= named, f"not in classroom/README.md's pacing: {sorted(lessons - named)}"
