"""Which Jupyter server runs a kernel, where clients elsewhere reach it, and what its configuration says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import mcp_notebook
from mcp_notebook.client._jupyter import JUPYTER_URL_ENV, TOKEN_PLACEHOLDER, base_url, jupyter_location

PID = "4242"


def _server_file(folder: Path, **info: Any) -> Path:
    described = {
        "url": "http://192.168.1.20:8888/",
        "hostname": "192.168.1.20",
        "port": 8888,
        "sock": "",
        "secure": False,
        "base_url": "/",
        "token": "jupyters-own-token",
        **info,
    }
    path = folder / f"jpserver-{PID}.json"
    path.write_text(json.dumps(described))
    return path


def test_a_server_on_a_machine_address_is_where_clients_elsewhere_come_in(tmp_path: Path) -> None:
    _server_file(tmp_path)
    where = jupyter_location([tmp_path], environ={"JPY_PARENT_PID": PID})
    assert where is not None and where.preferred
    assert where.mcp_url("my shop") == "http://192.168.1.20:8888/mcp-notebook/my%20shop/mcp"
    assert where.inside_url("shop") == "http://192.168.1.20:8888/mcp-notebook/shop/mcp"
    assert where.check_token == "jupyters-own-token"
    assert "jupyters-own-token" not in repr(where) + where.note()


def test_a_loopback_server_is_found_but_not_preferred(tmp_path: Path) -> None:
    _server_file(tmp_path, url="http://127.0.0.1:8888/lab-base/", hostname="127.0.0.1", base_url="/lab-base/")
    where = jupyter_location([tmp_path], environ={"JPY_PARENT_PID": PID})
    assert where is not None and not where.preferred
    assert where.mcp_url("shop") == "http://127.0.0.1:8888/lab-base/mcp-notebook/shop/mcp"


def test_all_interfaces_are_checked_on_loopback_and_offered_by_host_name(tmp_path: Path) -> None:
    _server_file(tmp_path, url="https://labhost:8888/", hostname="0.0.0.0", secure=True)
    where = jupyter_location([tmp_path], environ={"JPY_PARENT_PID": PID})
    assert where is not None and where.preferred
    assert where.mcp_url("shop") == "https://labhost:8888/mcp-notebook/shop/mcp"
    assert where.inside_url("shop") == "https://127.0.0.1:8888/mcp-notebook/shop/mcp"


def test_another_processs_server_is_not_taken_for_this_kernels(tmp_path: Path) -> None:
    _server_file(tmp_path)
    assert jupyter_location([tmp_path], environ={"JPY_PARENT_PID": "1"}) is None
    assert jupyter_location([tmp_path / "elsewhere"], environ={"JPY_PARENT_PID": PID}) is None


def test_a_named_address_wins_and_a_pasted_token_never_reaches_the_configuration(tmp_path: Path) -> None:
    _server_file(tmp_path, url="http://127.0.0.1:8888/", hostname="127.0.0.1")
    env = {"JPY_PARENT_PID": PID, JUPYTER_URL_ENV: "http://localhost:18888/lab/tree/a.ipynb?token=pasted#x"}
    where = jupyter_location([tmp_path], environ=env)
    assert where is not None and where.preferred  # named for clients elsewhere: used unasked
    assert where.mcp_url("shop") == "http://localhost:18888/mcp-notebook/shop/mcp"
    assert where.inside_url("shop") == "http://127.0.0.1:8888/mcp-notebook/shop/mcp"
    assert "pasted" not in where.note() and JUPYTER_URL_ENV not in where.note()
    # The argument wins over the environment, a server found or not.
    alone = jupyter_location([], url="https://lab.example.org/user/ann/lab", environ={})
    assert alone is not None and alone.mcp_url("s") == "https://lab.example.org/user/ann/mcp-notebook/s/mcp"
    # The Jupyter server's own token goes to that server's own address only, never to one named.
    assert where.check_token == "jupyters-own-token" and alone.check_token is None


def test_the_note_says_how_to_get_a_jupyter_token_and_where_it_goes(tmp_path: Path) -> None:
    _server_file(tmp_path)
    where = jupyter_location([tmp_path], environ={"JPY_PARENT_PID": PID})
    assert where is not None
    note = where.note()
    assert "jupyter server list" in note and "/hub/token" in note and TOKEN_PLACEHOLDER in note
    assert JUPYTER_URL_ENV in note  # the address is the server's own say: how to give another one
    mcp_notebook.set_language("ko")
    note = where.note()
    assert "`jupyter server list`가 보여 주는" in note and "토큰" in note


def test_an_address_that_is_not_a_url_says_what_to_give() -> None:
    with pytest.raises(ValueError, match=r"http:// or https:// URL.*MCP_NOTEBOOK_JUPYTER_URL"):
        base_url("192.168.1.20:8888")
    assert base_url("http://[::1]:8888/base/tree") == "http://[::1]:8888/base/"
