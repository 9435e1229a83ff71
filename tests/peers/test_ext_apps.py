"""The official MCP Apps packages (npm ``@modelcontextprotocol/ext-apps``) against this package's server.

Nobody here wrote them: ext-apps' helpers find each tool's view and visibility the way hosts do, its
schemas accept the tools' and views' ``_meta.ui``, and its host bridge (``AppBridge`` over the official
TypeScript client) carries its view SDK's (``App``) ``tools/call`` of a view-only tool to the server,
in both eras (`tests/ts_ext_apps.mjs`; Node 22 and the packages from `tests/npm.py`).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from mcp_notebook import Catalogue, app_from, app_resource, tool
from tests.conftest import serve_unattended
from tests.npm import EXT_APPS, EXT_APPS_VERSION, node_module

CLIENT, CLIENT_VERSION = "@modelcontextprotocol/client", "2.3.1"
SCRIPT = Path(__file__).parents[1] / "ts_ext_apps.mjs"
MIME = "text/html;profile=mcp-app"


@pytest.fixture(scope="session")
def node() -> list[str]:
    """[node 22, the script, the client's entry module, ext-apps' folder]."""
    binary, client = node_module(CLIENT, CLIENT_VERSION)
    _, ext_apps = node_module(EXT_APPS, EXT_APPS_VERSION)
    return [binary, str(SCRIPT), (client / "dist" / "index.mjs").as_uri(), str(ext_apps)]


@pytest.fixture
def apps(catalogue: Catalogue) -> Iterator[Any]:
    app_resource(
        "ui://weather/view",
        "<!doctype html><html><body><p>weather</p></body></html>",
        csp={"connectDomains": ["https://api.example.com"]},
        permissions=["geolocation"],
        catalogue=catalogue,
    )

    @tool(catalogue=catalogue, read_only=True, app="ui://weather/view")
    def forecast(city: str) -> str:
        """Weather in a city, with a view."""
        return f"{city}: 23"

    app_from(pd.DataFrame({"name": ["tea", "rice"], "price": [3, 1]}), name="menu", catalogue=catalogue)
    srv = serve_unattended(catalogue)
    try:
        yield srv
    finally:
        srv.stop()


@pytest.mark.parametrize("era", ["legacy", "auto"])
def test_ext_apps_reads_the_views_and_its_bridge_carries_a_views_call_to_the_server(
    node: list[str], apps: Any, era: str
) -> None:
    environ = {**os.environ, "URL": apps.url, "MCP_NOTEBOOK_TOKEN": apps.token, "ERA": era}
    done = subprocess.run(node, capture_output=True, text=True, env=environ, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout)
    assert seen["tools"] == {
        "forecast": {"resourceUri": "ui://weather/view", "appOnly": False, "metaValid": True},
        "menu": {"resourceUri": "ui://menu/table", "appOnly": False, "metaValid": True},
        "menu_rows": {"resourceUri": "ui://menu/table", "appOnly": True, "metaValid": True},
    }
    weather, table = seen["views"]["ui://weather/view"], seen["views"]["ui://menu/table"]
    assert weather == {
        "mimeType": MIME,
        "isAppMime": True,
        "ui": {"csp": {"connectDomains": ["https://api.example.com"]}, "permissions": {"geolocation": {}}},
        "metaValid": True,
        "startsAsHtml": True,
    }
    assert table["isAppMime"] and table["metaValid"] and table["startsAsHtml"] and table["ui"] is None
    assert seen["host"] == {"name": "ext-apps-host", "version": "1.0.0"}
    assert seen["called"]["isError"] is False
    assert seen["called"]["structuredContent"]["rows"] == [{"name": "rice", "price": 1}]
    assert seen["viewRead"] == MIME
    calls = [record for record in apps.calls if record.method == "tools/call"]
    assert [record.tool for record in calls] == ["menu_rows"]
