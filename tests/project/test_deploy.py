"""The deployment recipes in deploy/ are what the tools they are for accept.

HAProxy's own check of deploy/haproxy.cfg (the file tests/service/test_replicas.py runs), nginx's of
deploy/nginx.conf, the Kubernetes sketch loaded as YAML with its parts pointing at each other, and
the Dockerfile's command serving the app the way the tests serve it. Docker and a cluster are not
here: what cannot run is checked for what it says.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.services import ROOT

DEPLOY = ROOT / "deploy"


def binary(name: str) -> str | None:
    return shutil.which(name) or next(
        (str(path) for path in (Path("/usr/sbin") / name, Path("/sbin") / name) if path.exists()), None
    )


def test_haproxy_accepts_the_shipped_config() -> None:
    haproxy = binary("haproxy")
    if haproxy is None:
        pytest.fail("haproxy is missing: scripts/check installs it (apt-get install haproxy)")
    addresses = {
        "MCP_LISTEN": "127.0.0.1:8080",
        "MCP_REPLICA_1": "10.0.0.11:8000",
        "MCP_REPLICA_2": "10.0.0.12:8000",
    }
    done = subprocess.run(
        [haproxy, "-c", "-f", str(DEPLOY / "haproxy.cfg")],
        env={**os.environ, **addresses},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ALERT" not in done.stdout + done.stderr and "WARNING" not in done.stdout + done.stderr


def test_nginx_accepts_the_shipped_config(tmp_path: Path) -> None:
    nginx = binary("nginx")
    if nginx is None:
        pytest.skip("nginx is not installed (scripts/check installs nginx-light)")
    done = subprocess.run(
        [
            nginx,
            "-t",
            "-p",
            str(tmp_path),
            "-c",
            str(DEPLOY / "nginx.conf"),
            "-g",
            f"pid {tmp_path}/nginx.pid;",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr


def test_the_kubernetes_sketch_fits_together() -> None:
    documents = list(yaml.safe_load_all((DEPLOY / "kubernetes.yaml").read_text()))
    by_kind = {document["kind"]: document for document in documents}
    assert set(by_kind) == {"Deployment", "Service", "HorizontalPodAutoscaler"}
    deployment, service, autoscaler = (
        by_kind[k] for k in ("Deployment", "Service", "HorizontalPodAutoscaler")
    )
    pod = deployment["spec"]["template"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    assert service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    (container,) = pod["spec"]["containers"]
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    assert service["spec"]["ports"][0]["targetPort"] in ports
    target = autoscaler["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])
    assert autoscaler["spec"]["minReplicas"] >= 2
    # Secrets come from files in the mounted secret volume, never from values in this file.
    env = {item["name"]: item.get("value") for item in container["env"]}
    mount = next(m["mountPath"] for m in container["volumeMounts"] if m["name"] == "secrets")
    for variable in ("MCP_NOTEBOOK_CLIENTS_FILE", "MCP_NOTEBOOK_STATE_KEY_FILE"):
        assert env[variable].startswith(mount + "/")
    assert not {"MCP_NOTEBOOK_TOKEN", "MCP_NOTEBOOK_STATE_KEY"} & set(env)
    assert env["MCP_NOTEBOOK_STORE"].startswith("redis://")  # replicas share one store
    mode = next(v for v in pod["spec"]["volumes"] if v["name"] == "secrets")["secret"]["defaultMode"]
    assert mode & 0o007 == 0  # nobody but the app's group


def test_the_dockerfile_serves_the_exported_app_as_the_tests_do() -> None:
    lines = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ").splitlines()
    instructions = [line.split(None, 1) for line in lines if line.strip() and not line.startswith("#")]
    known = {"FROM", "COPY", "RUN", "WORKDIR", "USER", "ENV", "EXPOSE", "CMD"}
    assert {word for word, _ in instructions} <= known
    command = json.loads(next(rest for word, rest in instructions if word == "CMD"))
    assert command[:2] == ["uvicorn", "app:app"]
    # One worker per container: a tool's question on a 2025-11-25 session must reach the asking process.
    assert command[command.index("--workers") + 1] == "1"
    assert next(rest for word, rest in instructions if word == "USER") != "root"
    env = " ".join(rest for word, rest in instructions if word == "ENV")
    assert "MCP_NOTEBOOK_CLIENTS_FILE=/run/secrets/" in env and "TOKEN=" not in env
