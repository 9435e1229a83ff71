"""`client_config(via=...)` and `check(via=...)` outside a Jupyter kernel: the kernel's own URL, and
a clear refusal to go through a Jupyter server that is not there."""

from __future__ import annotations

import json
from typing import Any

import pytest


def test_outside_jupyter_the_kernel_is_the_only_way_in(server: Any) -> None:
    assert server.routes == ("kernel",)
    for via in (None, "kernel"):
        entry = json.loads(server.client_config("cursor", via=via))["mcpServers"]["notebook"]
        assert entry["url"] == server.url


def test_via_jupyter_without_a_jupyter_server_says_what_to_do(server: Any, english: None) -> None:
    with pytest.raises(
        ValueError, match=r"via='jupyter' needs the Jupyter server.*jupyter_url=.*via='kernel'"
    ):
        server.client_config("cursor", via="jupyter")
    with pytest.raises(ValueError, match="via='jupyter' needs"):
        server.check(via="jupyter")
    assert server.clients == []  # refused before any client token was made


def test_an_unknown_way_in_lists_the_known_ones(server: Any, english: None) -> None:
    with pytest.raises(ValueError, match=r"via='ssh' is not a way in: give 'kernel'.*'jupyter'.*None"):
        server.client_config("cursor", via="ssh")


def test_the_refusal_reads_in_korean(server: Any) -> None:
    import mcp_notebook

    mcp_notebook.set_language("ko")
    with pytest.raises(ValueError, match="찾지 못했습니다"):
        server.client_config("cursor", via="jupyter")
