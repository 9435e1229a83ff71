"""One options object each (the server's settings, ``@tool``'s options, the client's target), as a person meets them.

Every public function still takes its options as keywords, shows each in its signature (``help``,
``tool?``, completion), and refuses a value that cannot work before anything starts, naming the
option and what to write instead, in English and in Korean.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, ToolDefinitionError, set_language, tool
from mcp_notebook.api._serving import current_server
from mcp_notebook.client._target import Target
from mcp_notebook.core._errors import OptionError
from mcp_notebook.core._options import option_names
from mcp_notebook.core._tool_options import ToolOptions
from mcp_notebook.server._settings import ServerSettings


@pytest.mark.parametrize(
    ("function", "options"),
    [
        (mcp_notebook.tool, ToolOptions),
        (mcp_notebook.serve, ServerSettings),
        (mcp_notebook.call, Target),
        (mcp_notebook.read_resource, Target),
        (mcp_notebook.get_prompt, Target),
        (mcp_notebook.list_tools, Target),
        (mcp_notebook.list_resources, Target),
        (mcp_notebook.list_prompts, Target),
        (mcp_notebook.complete, Target),
    ],
)
def test_every_option_shows_by_name_with_its_default_in_the_signature(
    function: Callable[..., Any], options: type[Any]
) -> None:
    shown = inspect.signature(function).parameters
    defaults = options()
    for name in option_names(options):
        assert name in shown, f"{function.__name__}() does not show {name!r}"
        assert shown[name].kind is inspect.Parameter.KEYWORD_ONLY or name in ("port", "host")
        assert shown[name].default == getattr(defaults, name)
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in shown.values())


def test_a_mistyped_tool_option_names_the_option_meant_in_english_and_korean(catalogue: Catalogue) -> None:
    def forecast(city: str) -> str:
        """The weather in one city."""
        return city

    with pytest.raises(ToolDefinitionError) as raised:
        tool(catalogue=catalogue, readonly=True)(forecast)
    said = str(raised.value)
    assert "@tool has no option 'readonly'" in said and "Did you mean 'read_only'?" in said
    assert "idempotency_key" in said  # every option, to pick from
    set_language("ko")
    with pytest.raises(ToolDefinitionError, match="'readonly'라는 옵션이 없습니다") as raised:
        tool(catalogue=catalogue, readonly=True)(forecast)
    assert "혹시 'read_only'를 찾으셨나요?" in str(raised.value)
    assert "forecast" not in catalogue


def test_a_tool_option_that_cannot_work_is_refused_when_the_cell_runs(catalogue: Catalogue) -> None:
    def slow() -> str:
        """Takes a while."""
        return "done"

    with pytest.raises(ToolDefinitionError, match="rate_limit must be"):
        tool(catalogue=catalogue, rate_limit=(0, 60))(slow)
    with pytest.raises(ToolDefinitionError, match="'slow' is marked both read_only and destructive"):
        tool(catalogue=catalogue, read_only=True, destructive=True)(slow)
    tool(catalogue=catalogue, read_only=True, timeout=5, task="optional")(slow)
    entry = catalogue.get("slow")
    assert entry is not None and entry.timeout == 5 and entry.task == "optional" and entry.read_only


@pytest.mark.parametrize(
    ("target", "said"),
    [
        (
            {"mode": "2025"},
            "mode must be 'auto', 'legacy' (the 2025-11-25 handshake) or '2026-07-28', got '2025'",
        ),
        ({"url": "127.0.0.1:8000/mcp"}, "http:// or https:// address"),
        ({"url": "http://127.0.0.1:1/mcp", "stdio": "python server.py"}, "Give url= or stdio=, not both"),
        ({"stdio": "  "}, "the command line that starts a stdio MCP server"),
        ({"timeout": 0}, "seconds to wait for the answer: a number greater than 0"),
        ({"timout": 5}, "call() has no option 'timout'. Did you mean 'timeout'?"),
    ],
)
def test_a_target_that_cannot_work_is_refused_before_anything_is_sent(
    target: dict[str, Any], said: str
) -> None:
    assert current_server() is None  # nothing to reach: only the options are looked at
    with pytest.raises(OptionError) as raised:
        mcp_notebook.call("add", {"a": 1}, **target)
    assert said in str(raised.value)


def test_a_target_that_cannot_work_is_said_in_korean_by_every_client_function() -> None:
    set_language("ko")
    with pytest.raises(OptionError, match="mode는 'auto', 'legacy'"):
        mcp_notebook.read_resource("data://sales/north", mode="modern")
    with pytest.raises(OptionError, match="url=과 stdio= 중 하나만 주세요"):
        mcp_notebook.list_tools(url="http://127.0.0.1:1/mcp", stdio="python server.py")


def test_the_magics_say_which_option_cannot_work() -> None:
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mcp_notebook")
    try:
        with pytest.raises(UsageError, match="http:// or https:// address"):
            shell.run_line_magic("mcp_call", "add a=1 --url ftp://127.0.0.1/mcp")
        with pytest.raises(UsageError, match="port must be a TCP port number from 0 to 65535"):
            shell.run_line_magic("mcp_serve", "--port 70000")
    finally:
        shell.run_line_magic("unload_ext", "mcp_notebook")
    assert current_server() is None


def test_a_server_setting_that_cannot_work_is_refused_before_a_port_is_taken(catalogue: Catalogue) -> None:
    with pytest.raises(OptionError) as raised:
        mcp_notebook.serve(catalogue=catalogue, page_size=0)
    assert raised.value.option == "page_size"
    assert "page_size must be a whole number of at least 1, e.g. page_size=100; got 0" in str(raised.value)
    with pytest.raises(OptionError, match=r"serve\(\) has no option 'pagesize'. Did you mean 'page_size'\?"):
        mcp_notebook.serve(catalogue=catalogue, pagesize=10)
    set_language("ko")
    with pytest.raises(OptionError, match="session_idle_timeout에는 0보다 큰 초 단위 숫자를"):
        mcp_notebook.serve(catalogue=catalogue, session_idle_timeout=-1)
    assert current_server() is None


def test_headless_serve_refuses_a_setting_before_a_kernel_starts(tmp_path: Path) -> None:
    notebook = tmp_path / "shop.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), notebook)
    done = subprocess.run(
        [sys.executable, "-m", "mcp_notebook.cli", "serve", str(notebook), "--port", "70000"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "port must be a TCP port number from 0 to 65535" in done.stderr
    assert done.stdout == ""


def test_the_settings_are_one_frozen_object_made_in_one_place() -> None:
    settings = ServerSettings.of({"page_size": 2, "approval": "auto"}, "serve()")
    assert (settings.page_size, settings.approval, settings.port) == (2, "auto", 0)
    with pytest.raises(AttributeError):
        settings.page_size = 3  # type: ignore[misc]  # frozen: the server reads what was checked
    with pytest.raises(OptionError, match="store=") as raised:
        ServerSettings(store="memory://", idempotency_path="state.sqlite3")
    assert raised.value.option == "store"
