"""How a magic reads its line: a trailing `# comment` as a shell reads one, `#` in values kept.

Through a real IPython shell and `run_cell`, so the line takes the path a notebook cell gives it
(IPython's input transformer, then `run_line_magic` with its variable expansion).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.core.magic import line_magic, magics_class

import mcp_notebook
from mcp_notebook import Catalogue, prompt, resource, tool
from mcp_notebook.ipython._magic_args import strip_comment, tokens
from mcp_notebook.ipython._magics import MAGIC_NAMES, MCPMagics


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mcp_notebook")
    try:
        yield ip
    finally:
        ip.run_line_magic("unload_ext", "mcp_notebook")
        for name in ("seen", "srv", "result", "uri", "view", "read", "got", "table", "tag", "start"):
            ip.user_ns.pop(name, None)


@pytest.fixture
def notes(server: Any, catalogue: Catalogue) -> Any:
    """A server whose `note` tool gives back the text it got, so the test sees what the magic sent."""

    @tool(catalogue=catalogue, read_only=True)
    def note(text: str) -> str:
        """Echo a note."""
        return text

    @resource("data://sales/{region}", catalogue=catalogue)
    def sales(region: str) -> str:
        """Sales of one region."""
        return f"{region}: 10"

    @prompt(catalogue=catalogue)
    def summarize(topic: str) -> str:
        """Ask for a summary."""
        return f"Summarize {topic}."

    return server


def cell(shell: InteractiveShell, code: str) -> Any:
    """Run `code` as a notebook cell; raise what it raised (a UsageError is shown, not raised)."""
    outcome = shell.run_cell(code)
    error = outcome.error_before_exec or outcome.error_in_exec
    if error is not None:
        raise error
    return outcome.result


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ("--port 0 # c", "--port 0"),
        ("--port 0     # Streamable HTTP on 127.0.0.1, in a background thread", "--port 0"),
        ("# only a comment", ""),
        ("#", ""),
        ("forecast city=Seoul #", "forecast city=Seoul"),
        ("--port 0#c", "--port 0#c"),  # `#` inside a word is part of it, as in a shell
        ("note text=#a", "note text=#a"),
        ('note text="#1 item"', 'note text="#1 item"'),
        ("note text='#1 # 2' # c", "note text='#1 # 2'"),
        ('note text="say \\"#1\\" #2" # c', 'note text="say \\"#1\\" #2"'),
        ('t {"tag": "#a"} # c', 't {"tag": "#a"}'),
        ('t {"tags": ["#a", "#b"]}', 't {"tags": ["#a", "#b"]}'),
        ("t x=$city # c", "t x=$city"),
        ("t x=$my#city", "t x=$my#city"),
        ("# don't stop here", ""),
        ("t text='unclosed # c", "t text='unclosed # c"),  # left whole for the parser to report
    ],
)
def test_a_trailing_comment_is_cut_where_a_shell_cuts_it(line: str, kept: str) -> None:
    assert strip_comment(line) == kept


def test_tokens_keep_a_hash_and_an_escaped_quote_inside_quotes() -> None:
    assert tokens('note text="say \\"#1\\""') == ["note", 'text="say \\"#1\\""']
    assert tokens("note text='#1 # 2'") == ["note", 'text="#1 # 2"']
    with pytest.raises(UsageError):
        tokens('note text="unclosed')


def test_every_magic_of_the_extension_ignores_a_trailing_comment(shell: InteractiveShell, notes: Any) -> None:
    shell.user_ns["table"] = "day,rain\nmon,yes"
    lines = {
        "mcp_serve": "srv = %mcp_serve --port 0  # Streamable HTTP on 127.0.0.1",
        "mcp_status": "%mcp_status   # where does it run?",
        "mcp_tools": "view = %mcp_tools # the catalogue",
        "mcp_call": "result = %mcp_call note text=hello  # a real MCP client calls the tool",
        "mcp_read": "read = %mcp_read data://sales/north # a resource",
        "mcp_prompt": "got = %mcp_prompt summarize topic=rain # a prompt",
        "mcp_publish": "uri = %mcp_publish table # a variable",
        "mcp_stop": "%mcp_stop # and stop",
    }
    assert set(lines) == set(MAGIC_NAMES)  # a new magic needs a line here too
    for line in lines.values():  # in this order: the server starts first and stops last
        cell(shell, line)
    ns = shell.user_ns
    assert ns["srv"] is notes  # the server already running: `--port 0` was read, the comment was not
    assert ns["result"].text == "hello"
    assert ns["read"].text == "north: 10"
    assert ns["got"].messages[0]["content"]["text"] == "Summarize rain."
    assert ns["uri"] == "notebook://variables/table"
    mcp_notebook.default_catalogue.remove_resource(ns["uri"])
    assert notes.running is False


def test_a_line_that_is_only_a_comment_is_an_empty_line(
    shell: InteractiveShell, notes: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cell(shell, "%mcp_serve # only a comment") is notes
    assert cell(shell, "%mcp_serve #") is notes
    cell(shell, "%mcp_status # how is it going?")
    assert f"MCP server running at {notes.url}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("line", "sent"),
    [
        ('%mcp_call note text="#1 item"', "#1 item"),
        ('%mcp_call note text="#1 item"  # quoted: kept', "#1 item"),
        ("%mcp_call note text='#1 # 2' # c", "#1 # 2"),
        ("%mcp_call note text=#a", "#a"),
        ("%mcp_call note text=a#b # c", "a#b"),
        ('%mcp_call note {"text": "#a"}', "#a"),
        ('%mcp_call note {"text": "#a # b"}  # JSON: kept', "#a # b"),
        ('%mcp_call note text="say \\"#1\\"" # c', 'say "#1"'),
        ("%mcp_call note text=$tag  # a kernel variable", "#tag # not a comment"),
    ],
)
def test_a_hash_in_a_value_is_kept(shell: InteractiveShell, notes: Any, line: str, sent: str) -> None:
    shell.user_ns["tag"] = "#tag # not a comment"
    assert cell(shell, line).text == sent


def test_a_hash_inside_a_word_is_part_of_it_as_in_a_shell(shell: InteractiveShell, notes: Any) -> None:
    with pytest.raises(UsageError, match="invalid int value: '0#c'"):
        cell(shell, "%mcp_serve --port 0#c")


def test_ipython_expansion_still_works_and_never_reads_the_comment(shell: InteractiveShell) -> None:
    # `{1/0}` would fail IPython's expansion of the whole line, leaving `$port` unexpanded.
    code = "def start():\n    port = 0\n    s = %mcp_serve --port $port # not expanded: {1/0}\n    return s\n"
    cell(shell, code)
    srv = cell(shell, "start()")
    try:
        assert srv.running and srv.port != 0
    finally:
        srv.stop()


def test_a_hash_at_the_start_of_an_expanded_value_is_not_a_comment(shell: InteractiveShell) -> None:
    shell.user_ns["secret"] = "#starts-with-a-hash"
    srv = cell(shell, "%mcp_serve --token $secret # the token from a variable")
    try:
        assert srv.token == "#starts-with-a-hash"
    finally:
        srv.stop()


def test_a_magic_added_later_reads_its_line_the_same_way(shell: InteractiveShell) -> None:
    @magics_class
    class More(MCPMagics):
        @line_magic
        def mcp_echo(self, line: str) -> str:
            return line

    shell.register_magics(More)
    try:
        assert cell(shell, "seen = %mcp_echo a 'b # c' # d") is None
        assert shell.user_ns["seen"] == "a 'b # c'"
    finally:
        shell.magics_manager.magics["line"].pop("mcp_echo", None)
