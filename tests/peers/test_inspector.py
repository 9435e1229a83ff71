"""MCP Inspector's CLI (a real, independent client) against a notebook-served server, in both eras.

The inspector needs Node >= 22.19: `tests/npm.py` installs Node 22 and the inspector from npm once.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook import Catalogue, tool
from mcp_notebook.client._configs import INSPECTOR_FILE, client_config, inspector_command
from tests.npm import INSPECTOR, INSPECTOR_VERSION, node_command

ERA_VERSIONS = {"legacy": "2025-11-25", "modern": "2026-07-28"}


@pytest.fixture(scope="session")
def inspector() -> list[str]:
    """The command that starts the inspector: [node 22, the inspector's launcher script]."""
    return node_command(INSPECTOR, INSPECTOR_VERSION, "mcp-inspector")


@pytest.fixture
def adder(server: Any, catalogue: Catalogue) -> Any:
    @tool(catalogue=catalogue)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return server


def run_inspector(command: list[str], *arguments: str, home: Path) -> subprocess.CompletedProcess[str]:
    # The inspector keeps a catalog under ~/.mcp-inspector: give it a scratch home.
    env = {**os.environ, "HOME": str(home)}
    return subprocess.run([*command, *arguments], capture_output=True, text=True, env=env, timeout=120)


def write_config(adder: Any, folder: Path) -> Path:
    """The configuration `client_config("inspector")` writes, saved where its usage says (token inside)."""
    path = folder / INSPECTOR_FILE
    path.write_text(client_config("inspector", adder.url, adder.token, remote=False))
    path.chmod(0o600)
    return path


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_inspector_lists_and_calls_tools_in_both_eras(
    inspector: list[str], adder: Any, era: str, tmp_path: Path
) -> None:
    # The token travels in the config file: never on the inspector's command line.
    config = write_config(adder, tmp_path)
    common = ["--cli", "--config", str(config), "--server", "notebook", "--protocol-era", era,
              "--format", "json"]  # fmt: skip
    listed = run_inspector(inspector, *common, "--method", "tools/list", home=tmp_path)
    assert listed.returncode == 0, listed.stderr
    tools = json.loads(listed.stdout)["result"]["tools"]
    assert [t["name"] for t in tools] == ["add"]
    assert tools[0]["inputSchema"]["required"] == ["a", "b"]

    called = run_inspector(
        inspector, *common, "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "--tool-arg", "b=3",
        home=tmp_path,
    )  # fmt: skip
    assert called.returncode == 0, called.stderr
    result = json.loads(called.stdout)["result"]
    assert result["structuredContent"] == {"result": 5} and result["isError"] is False
    assert adder.calls[-1].protocol_version == ERA_VERSIONS[era]  # the era really was the one asked for


def test_inspector_without_the_token_is_an_auth_failure(
    inspector: list[str], adder: Any, tmp_path: Path
) -> None:
    refused = run_inspector(
        inspector, "--cli", adder.url, "--transport", "http", "--method", "tools/list", "--format", "json",
        home=tmp_path,
    )  # fmt: skip
    assert refused.returncode == 3, refused.stdout + refused.stderr  # the inspector's "auth" exit code


def test_the_generated_inspector_config_and_command_work(
    inspector: list[str], adder: Any, tmp_path: Path
) -> None:
    config = write_config(adder, tmp_path)
    words = inspector_command(str(config))
    assert words[:2] == ["npx", INSPECTOR]
    done = run_inspector(inspector, *words[2:], "--method", "tools/list", "--format", "json", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [t["name"] for t in json.loads(done.stdout)["result"]["tools"]] == ["add"]


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_inspector_calls_a_tool_that_runs_only_as_a_task_in_both_eras(
    inspector: list[str], server: Any, catalogue: Catalogue, era: str, tmp_path: Path
) -> None:
    from mcp_notebook import Context

    @tool(catalogue=catalogue, read_only=True, task="required")
    def crunch(ctx: Context) -> str:
        """Works a second, as a task."""
        ctx.sleep(1)
        return "crunched"

    # A 2025-11-25 client asks for the task (params.task) and reads tasks/result; a 2026-07-28 one
    # declares the tasks extension and polls tasks/get, where the result comes inlined.
    config = write_config(server, tmp_path)
    called = run_inspector(
        inspector, "--cli", "--config", str(config), "--server", "notebook", "--protocol-era", era,
        "--format", "json", "--method", "tools/call", "--tool-name", "crunch", home=tmp_path,
    )  # fmt: skip
    assert called.returncode == 0, called.stderr
    result = json.loads(called.stdout)["result"]
    assert result["content"][0]["text"] == "crunched"
    from tests.conftest import until

    # The call's record is finished when its task ends, just after the result is readable.
    assert until(lambda: any(r.method == "tools/call" and r.tool == "crunch" for r in server.calls))
    [record] = [r for r in server.calls if r.method == "tools/call" and r.tool == "crunch"]
    assert record.task is not None and record.task["status"] == "completed"
    assert record.protocol_version == ERA_VERSIONS[era]


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_inspector_lists_an_app_view_and_the_tools_bound_to_it_in_both_eras(
    inspector: list[str], server: Any, catalogue: Catalogue, era: str, tmp_path: Path
) -> None:
    from mcp_notebook import app_resource

    page = "<!doctype html><html><body><p>weather</p></body></html>"
    csp = {"connectDomains": ["https://api.example.com"]}
    app_resource("ui://weather/view", page, csp=csp, catalogue=catalogue)

    @tool(catalogue=catalogue, read_only=True, app="ui://weather/view", visibility=["model", "app"])
    def forecast(city: str) -> str:
        """Weather in a city, with a view."""
        return f"{city}: 23"

    config = write_config(server, tmp_path)
    common = ["--cli", "--config", str(config), "--server", "notebook", "--protocol-era", era,
              "--format", "json"]  # fmt: skip
    listed = run_inspector(inspector, *common, "--method", "tools/list", home=tmp_path)
    assert listed.returncode == 0, listed.stderr
    [shown] = json.loads(listed.stdout)["result"]["tools"]
    assert shown["_meta"] == {"ui": {"resourceUri": "ui://weather/view", "visibility": ["model", "app"]}}
    resources = run_inspector(inspector, *common, "--method", "resources/list", home=tmp_path)
    assert resources.returncode == 0, resources.stderr
    [view] = json.loads(resources.stdout)["result"]["resources"]
    assert (view["uri"], view["mimeType"]) == ("ui://weather/view", "text/html;profile=mcp-app")
    read = run_inspector(
        inspector, *common, "--method", "resources/read", "--uri", "ui://weather/view", home=tmp_path
    )
    assert read.returncode == 0, read.stderr
    [content] = json.loads(read.stdout)["result"]["contents"]
    assert content["text"] == page and content["mimeType"] == "text/html;profile=mcp-app"
    assert content["_meta"] == {"ui": {"csp": csp}}
