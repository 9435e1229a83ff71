"""Magics through a real IPython shell, and the client's other targets (URL, stdio)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, ProtocolError, tool

HERE = Path(__file__).parents[1]


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mcp_notebook")
    try:
        yield ip
    finally:
        ip.run_line_magic("unload_ext", "mcp_notebook")


@pytest.fixture
def adder(server: Any, catalogue: Catalogue) -> Any:
    @tool(catalogue=catalogue, idempotent=True)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return server


def test_magics_are_registered_and_removed(shell: InteractiveShell) -> None:
    for name in ("mcp_serve", "mcp_stop", "mcp_status", "mcp_call"):
        assert shell.find_line_magic(name) is not None
    shell.run_line_magic("unload_ext", "mcp_notebook")
    assert shell.find_line_magic("mcp_call") is None
    shell.run_line_magic("load_ext", "mcp_notebook")


def test_help_says_how_to_use_each_magic(shell: InteractiveShell) -> None:
    serve_help = shell.find_line_magic("mcp_serve").__doc__
    call_help = shell.find_line_magic("mcp_call").__doc__
    assert "--port" in serve_help and "--run-in" in serve_help and "srv.token" in serve_help
    assert (
        "key=value" in call_help
        and "--url" in call_help
        and "--stdio" in call_help
        and "$my_city" in call_help
    )


def test_serve_magic_takes_the_servers_name(shell: InteractiveShell) -> None:
    with pytest.warns(UserWarning, match="approval='auto'"):
        srv = shell.run_line_magic("mcp_serve", "--name orders --approval auto")
    try:
        assert srv.name == "orders"
    finally:
        srv.stop()
    with pytest.raises(UsageError, match="server name"):
        shell.run_line_magic("mcp_serve", "--name " + "x" * 101)


def test_bad_arguments_are_usage_errors(shell: InteractiveShell) -> None:
    with pytest.raises(UsageError):
        shell.run_line_magic("mcp_serve", "--port nope")
    with pytest.raises(UsageError, match="not key=value"):
        shell.run_line_magic("mcp_call", "add 3")
    with pytest.raises(UsageError, match="No MCP server is running"):
        shell.run_line_magic("mcp_call", "add a=1 b=2")


def test_mcp_serve_takes_an_approval_timeout_and_refuses_a_bad_one(shell: InteractiveShell) -> None:
    with pytest.raises(UsageError, match="approval_timeout must be a number of seconds greater than 0"):
        shell.run_line_magic("mcp_serve", "--approval-timeout 0")
    with pytest.raises(UsageError, match="got 'soon'"):
        shell.run_line_magic("mcp_serve", "--approval-timeout soon")
    srv = shell.run_line_magic("mcp_serve", "--approval-timeout 600")
    try:
        assert srv.approval.timeout == 600.0
        assert srv.approval.answered_in == "notebook"  # its panel is where a person answers
    finally:
        srv.stop()
    assert "--approval-timeout SECONDS" in shell.find_line_magic("mcp_serve").__doc__


def test_call_in_kernel_server_through_the_magic(shell: InteractiveShell, adder: Any) -> None:
    result = shell.run_line_magic("mcp_call", "add a=2 b=3")
    assert result.is_error is False
    assert result.structured_content == {"result": 5}
    assert result.text == "5"
    assert "Tool result: add" in repr(result)
    assert "<code>add</code>" in result._repr_html_()
    error = shell.run_line_magic("mcp_call", "add a=two b=3")
    assert error.is_error is True and "a: 'two' is not of type 'integer'" in error.text
    with pytest.raises(ProtocolError) as caught:
        shell.run_line_magic("mcp_call", "ad a=1 b=2")
    assert caught.value.code == -32602 and "'add'" in caught.value.message


def test_python_api_call_and_list(adder: Any) -> None:
    assert mcp_notebook.call("add", {"a": 1, "b": 1}).text == "2"
    assert mcp_notebook.call("add", {"a": 1, "b": 1}, mode="legacy").structured_content == {"result": 2}
    assert [t["name"] for t in mcp_notebook.list_tools()] == ["add"]


def test_url_target_with_token(shell: InteractiveShell, adder: Any) -> None:
    url, token = adder.url, adder.token
    result = shell.run_line_magic("mcp_call", f"add a=4 b=5 --url {url} --token {token} --mode legacy")
    assert result.text == "9"
    with pytest.raises(UsageError, match="Could not connect"):
        shell.run_line_magic("mcp_call", f"add a=4 b=5 --url {url} --token wrong")


def test_target_options_take_kernel_variables(shell: InteractiveShell, adder: Any) -> None:
    # A token read from a variable is never written into the cell (or the saved notebook).
    shell.user_ns.update(where=adder.url, secret=adder.token, numbers={"a": 1, "b": 2})
    assert shell.run_line_magic("mcp_call", "add $numbers --url $where --token $secret").text == "3"
    assert shell.run_line_magic("mcp_call", "add a=4 b=5 --token $secret --url $where").text == "9"


def test_unreachable_url_says_so(shell: InteractiveShell) -> None:
    with pytest.raises(UsageError, match=r"Could not connect to http://127\.0\.0\.1:9/mcp"):
        shell.run_line_magic("mcp_call", "add a=1 b=2 --url http://127.0.0.1:9/mcp --timeout 5")


def test_stdio_target(shell: InteractiveShell) -> None:
    command = f'"{sys.executable} {HERE / "servers" / "stdio_adder.py"}"'
    result = shell.run_line_magic("mcp_call", f"add a=20 b=22 --stdio {command}")
    assert result.text == "42"


def test_import_is_cheap_and_does_not_import_the_sdk() -> None:
    code = (
        "import sys, mcp_notebook\n"
        "@mcp_notebook.tool(catalogue=mcp_notebook.Catalogue())\n"
        "def f(x: int) -> int:\n"
        "    'Add one.'\n"
        "    return x + 1\n"
        "print(*(m in sys.modules for m in ('mcp', 'uvicorn', 'IPython', 'jsonschema', 'pydantic')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # jsonschema too: with JupyterLab's optional format libraries, importing it takes most of a second.
    # pydantic too: a form may be a pydantic model, but only one the notebook imported pydantic for.
    assert out.stdout.split() == ["False", "False", "False", "False", "False"]


def test_public_surface_is_curated() -> None:
    assert mcp_notebook.__all__ == sorted(
        mcp_notebook.__all__, key=str.lower
    ) or mcp_notebook.__all__ == sorted(mcp_notebook.__all__)
    for name in mcp_notebook.__all__:
        assert getattr(mcp_notebook, name) is not None, name
    assert {"tool", "serve", "call", "ToolError", "ProtocolError", "remove_tool", "stop"} <= set(
        mcp_notebook.__all__
    )


def test_console_script() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mcp_notebook.cli", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0 and out.stdout.startswith("mcp-notebook ")


def test_status_says_where_the_server_runs(shell: InteractiveShell, adder: Any, capsys: Any) -> None:
    shell.run_line_magic("mcp_status", "")
    assert f"MCP server running at {adder.url}" in capsys.readouterr().out
    shell.run_line_magic("mcp_stop", "")
    shell.run_line_magic("mcp_status", "")
    assert "MCP server stopped." in capsys.readouterr().out


def test_interpreter_exit_stops_the_server_and_frees_the_port() -> None:
    code = "import mcp_notebook; srv = mcp_notebook.serve(); print(srv.port, flush=True)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    port = int(out.stdout.strip())
    assert out.stderr == ""  # nothing printed by the server on its way out
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", port))


def test_read_prompt_and_publish_magics(shell: InteractiveShell, server: Any, catalogue: Catalogue) -> None:
    from mcp_notebook import prompt, resource

    @resource("data://sales/{region}", catalogue=catalogue)
    def sales(region: str) -> str:
        """Sales of one region."""
        return f"{region}: 10"

    @prompt(catalogue=catalogue)
    def summarize(topic: str, words: int = 50) -> str:
        """Ask for a summary."""
        return f"Summarize {topic} in {words} words."

    read = shell.run_line_magic("mcp_read", "data://sales/north")
    assert read.text == "north: 10"
    got = shell.run_line_magic("mcp_prompt", "summarize topic='rainy days' words=20")
    assert got.messages[0]["content"]["text"] == "Summarize rainy days in 20 words."
    shell.user_ns["forecast_table"] = "day,rain\nmon,yes"
    uri = shell.run_line_magic("mcp_publish", "forecast_table --description 'Rain by day'")
    assert uri == "notebook://variables/forecast_table"
    # The magic publishes into the default catalogue; this server serves another one.
    mcp_notebook.default_catalogue.remove_resource(uri)
    with pytest.raises(UsageError, match="missing_variable"):
        shell.run_line_magic("mcp_publish", "missing_variable")
    with pytest.raises(ProtocolError) as caught:
        shell.run_line_magic("mcp_read", "data://nothing --mode 2026-07-28")
    assert caught.value.code == -32602
