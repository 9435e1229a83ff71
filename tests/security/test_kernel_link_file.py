"""Attack: read a kernel's forwarder credential, or plant a link that sends a user's requests elsewhere.

The link file next to a kernel's connection file holds the credential with which the Jupyter
extension speaks for logged-in users. It is created readable by its owner only (0600, never wider
even for a moment), lives in Jupyter's hidden runtime folder, which Jupyter does not serve,
and never appears in what the extension answers. A link the extension did not get from its own
user (another owner, loose permissions, a non-loopback URL) is not trusted.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook.core._kernel_link import KernelLink, link_path, read_link, write_link


@pytest.mark.kernel
def test_the_link_is_readable_by_its_owner_only(jupyter_shop: Any) -> None:
    path = link_path(jupyter_shop.server.runtime_dir, jupyter_shop.kernel_id)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".") and p.suffix == ".tmp"]


@pytest.mark.kernel
def test_jupyter_serves_neither_the_link_nor_its_credential(jupyter_shop: Any) -> None:
    server = jupyter_shop.server
    path = link_path(server.runtime_dir, jupyter_shop.kernel_id)
    relative = path.relative_to(server.root).as_posix()
    credential = json.loads(path.read_text())["credential"]
    for route in (
        f"/api/contents/{relative}",
        f"/files/{relative}",
        f"/api/contents/{Path(relative).parent.as_posix()}",
    ):
        answer = server.api("GET", route)
        assert answer.status_code in (403, 404), (route, answer.status_code)
        assert credential not in answer.text
    listing = server.api("GET", "/mcp-notebook")
    assert listing.status_code == 200 and credential not in listing.text


def _link(url: str = "http://127.0.0.1:9/mcp") -> KernelLink:
    return KernelLink("k1", url, "c" * 32, "shop")


def test_a_link_anyone_else_may_read_or_write_is_not_trusted(tmp_path: Path) -> None:
    path = write_link(tmp_path, _link())
    assert read_link(tmp_path, "k1") == _link()
    os.chmod(path, 0o644)
    assert read_link(tmp_path, "k1") is None
    os.chmod(path, 0o620)
    assert read_link(tmp_path, "k1") is None


def test_a_link_to_another_machine_is_not_trusted(tmp_path: Path) -> None:
    write_link(tmp_path, _link("http://attacker.example:80/mcp"))
    assert read_link(tmp_path, "k1") is None


def test_a_link_of_another_user_is_not_trusted(tmp_path: Path) -> None:
    if not hasattr(os, "getuid") or os.getuid() != 0:
        pytest.skip("giving a file to another user needs root")
    path = write_link(tmp_path, _link())
    os.chown(path, 65534, 65534)  # nobody
    assert read_link(tmp_path, "k1") is None


def test_a_kernel_id_cannot_lead_out_of_the_runtime_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        link_path(tmp_path, "../../etc/passwd")
    assert read_link(tmp_path, "../x") is None
