"""`mcp-notebook serve NOTEBOOK.ipynb`: a real notebook in a real kernel, served headless, used by real clients."""

from __future__ import annotations

import concurrent.futures
import json
import os
import pty
import queue
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_notebook.cli._headless import Cell, read_cells
from tests.conftest import ERAS, INITIALIZE, Mode, connect
from tests.headless import CELLS, TOKEN, WHO_CELLS, Remote, headless, with_token, write_notebook
from tests.kernel import Kernel

pytestmark = pytest.mark.kernel


def use(remote: Remote, mode: Mode) -> dict[str, Any]:
    """What a client sees: a tool call, a resource read and a prompt, as JSON."""

    async def main() -> dict[str, Any]:
        with anyio.fail_after(60):
            async with connect(remote, mode) as client:
                return observe(
                    await client.call_tool("describe", {"city": "Seoul", "days": 2}),
                    await client.read_resource("notes://today"),
                    await client.get_prompt("review", {"code": "x = 1"}),
                )

    result: dict[str, Any] = anyio.run(main)
    return result


def observe(*results: Any) -> dict[str, Any]:
    dumps = [r.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"meta"}) for r in results]
    return dict(zip(("call", "read", "prompt"), dumps, strict=True))


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT leftovers are not a listener
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_cells_marked_to_skip_are_skipped(tmp_path: Path) -> None:
    cells = read_cells(write_notebook(tmp_path))
    assert [(c.number, c.skipped) for c in cells if c.skipped] == [(6, True), (7, True)]
    assert cells[0].number == 2  # numbered as the notebook shows them: the markdown cell is 1


@pytest.mark.parametrize(
    ("source", "tags", "skipped"),
    [
        ("# mcp: skip (needs a browser)\nopen_browser()", [], True),
        ("\n#mcp:skip\nx = 1", [], True),
        ("# MCP: Skip\nx = 1", [], True),
        ("x = 1  # mcp: skip", [], False),
        ("x = 1\n# mcp: skip", [], False),
        ("x = 1", ["mcp-skip"], True),
        ("x = 1", ["raises-exception"], False),
    ],
)
def test_skip_markers(source: str, tags: list[str], skipped: bool) -> None:
    assert Cell(1, source, tags).skipped is skipped


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_serve_prints_only_the_url_serves_both_eras_and_stops_cleanly(tmp_path: Path, signum: int) -> None:
    notebook = write_notebook(tmp_path)
    with headless(notebook, "--port", "0", "--approval", "auto", env=with_token()) as served:
        url = served.line().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp"), served.stderr
        seen = {mode: use(Remote(url, TOKEN), mode) for mode in ERAS}
        code = served.stop(signum)
        rest = served.line()
    assert code == 0, served.stderr
    assert rest == ""  # nothing but the URL on stdout
    for observed in seen.values():
        assert observed["call"]["structuredContent"] == {
            "city": "Seoul",
            "days": 2,
            "note": "read from the notebook's folder",
        }
        assert observed["read"]["contents"][0]["text"] == "read from the notebook's folder"
        assert observed["prompt"]["messages"][0]["content"]["text"] == "Review this code:\nx = 1"
    assert "cell output goes to stderr" in served.stderr
    assert "must not run headless" not in served.stderr
    assert "cell 6 skipped" in served.stderr and "cell 7 skipped" in served.stderr
    assert TOKEN not in served.stderr  # a token given by the environment is not echoed
    assert port_is_free(int(url.rsplit(":", 1)[1].split("/")[0]))


def test_without_a_token_one_is_made_and_shown_on_stderr(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path)
    env = {key: value for key, value in os.environ.items() if key != "MCP_NOTEBOOK_TOKEN"}
    with headless(notebook, env=env) as served:
        url = served.line().strip()
        token = next(
            line.split("token: ", 1)[1].split()[0] for line in served.stderr.splitlines() if "token: " in line
        )
        observed = use(Remote(url, token), "auto")
        assert served.stop() == 0
    assert observed["call"]["structuredContent"]["city"] == "Seoul"


def test_a_failing_cell_stops_serve_with_its_number(tmp_path: Path) -> None:
    cells = [*CELLS[:2], ("total = 1 / 0", []), CELLS[3]]
    notebook = write_notebook(tmp_path, cells)
    with headless(notebook, env=with_token()) as served:
        assert served.line() == ""  # stdout ends without a URL
        code = served.process.wait(timeout=60)
    assert code == 1
    assert "cell 4 failed: ZeroDivisionError: division by zero" in served.stderr
    assert "total = 1 / 0" in served.stderr  # the traceback shows the line


@pytest.mark.parametrize("mode", ERAS)
def test_serve_stdio_speaks_the_protocol_itself(tmp_path: Path, mode: Mode) -> None:
    notebook = write_notebook(tmp_path)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_notebook.cli", "serve", str(notebook), "--stdio", "--approval", "auto"],
    )

    async def main() -> dict[str, Any]:
        with (tmp_path / "stdio.stderr").open("w") as errlog, anyio.fail_after(120):
            async with Client(stdio_client(params, errlog=errlog), mode=mode) as client:
                assert [t.name for t in (await client.list_tools()).tools] == ["describe"]
                return observe(
                    await client.call_tool("describe", {"city": "Seoul", "days": 2}),
                    await client.read_resource("notes://today"),
                    await client.get_prompt("review", {"code": "x = 1"}),
                )

    observed = anyio.run(main)
    assert observed["call"]["structuredContent"]["note"] == "read from the notebook's folder"
    assert observed["prompt"]["messages"][0]["content"]["text"] == "Review this code:\nx = 1"


def test_serve_stdio_writes_nothing_but_protocol_and_ends_when_the_client_leaves(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path)
    with headless(notebook, "--stdio", stdin=subprocess.PIPE) as served:
        assert served.process.stdin is not None
        served.process.stdin.write(json.dumps(INITIALIZE) + "\n")
        served.process.stdin.flush()
        answer = json.loads(served.line())  # the very first line is the answer: no stray output
        served.process.stdin.close()  # the client leaves
        rest = served.line()
        code = served.process.wait(timeout=60)
    assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "mcp-notebook"
    assert rest == "" and code == 0, served.stderr
    assert "cell output goes to stderr" in served.stderr


def test_the_same_notebook_behaves_the_same_in_a_jupyter_kernel_and_headless(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path)
    kernel = Kernel(cwd=str(tmp_path))
    try:
        for cell in read_cells(notebook):
            if not cell.skipped and "raises-exception" not in cell.tags:
                kernel.run(cell.source).raise_for_error()  # as a person runs them in JupyterLab
        info = kernel.json('{"url": srv.url, "token": srv.token}')
        in_kernel = {mode: use(Remote(info["url"], info["token"]), mode) for mode in ERAS}
    finally:
        kernel.shutdown()
    with headless(notebook, env=with_token()) as served:
        url = served.line().strip()
        served_headless = {mode: use(Remote(url, TOKEN), mode) for mode in ERAS}
        assert served.stop() == 0
    assert served_headless == in_kernel


# -- approvals, headless -----------------------------------------------------------------------------------

APPROVAL_CELLS: list[tuple[str, list[str]]] = [
    (
        "from mcp_notebook import tool\n\n"
        "@tool(destructive=True)\n"
        "def wipe(table: str) -> str:\n"
        '    """Delete every row of a table."""\n'
        "    with open('wiped.txt', 'a') as log:\n"
        "        log.write(table + '\\n')\n"
        "    return f'wiped {table}'",
        [],
    ),
]


class Terminal:
    """A pseudo-terminal for `mcp-notebook serve`: its stdin and stderr, read and typed into by the test."""

    def __init__(self) -> None:
        self.master, self.slave = pty.openpty()
        self._chunks: queue.Queue[str] = queue.Queue()
        self.transcript = ""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:  # drained all the time: a full pty would stop the process writing to it
            try:
                data = os.read(self.master, 4096)
            except OSError:  # the other end closed
                return
            if not data:
                return
            self._chunks.put(data.decode("utf-8", errors="replace"))

    def expect(self, text: str, timeout: float = 60) -> str:
        """Everything written from the previous `expect` up to `text` (which must appear in time)."""
        deadline = time.monotonic() + timeout
        while text not in self.transcript:
            try:
                self.transcript += self._chunks.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"{text!r} never appeared at the terminal:\n{self.transcript}") from None
        seen, _, self.transcript = self.transcript.partition(text)
        return seen + text

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> None:
        os.close(self.master)


def call_in_background(url: str, mode: Mode, table: str) -> concurrent.futures.Future[Any]:
    def call() -> Any:
        async def main() -> Any:
            with anyio.fail_after(90):
                async with connect(Remote(url, TOKEN), mode) as client:
                    return await client.call_tool("wipe", {"table": table})

        return anyio.run(main)

    return concurrent.futures.ThreadPoolExecutor(1).submit(call)


def test_at_a_terminal_each_call_is_asked_about_there(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path, APPROVAL_CELLS)
    terminal = Terminal()
    try:
        with headless(
            notebook,
            "--token",
            TOKEN,
            "--approval-timeout",
            "30",
            stdin=terminal.slave,
            stderr=terminal.slave,
        ) as served:
            os.close(terminal.slave)  # the child holds it now
            url = served.line().strip()
            assert "asked about here, at this terminal" in terminal.expect("serving served.ipynb")

            answered = call_in_background(url, "legacy", "sales")
            asked = terminal.expect("left): ")
            # Who asks is the token's identity (the server token: the owner); the client's name is a claim.
            assert "owner (claims to be mcp) wants to run the tool wipe" in asked
            assert "Delete every row of a table." in asked
            assert 'arguments: {"table": "sales"}' in asked and "destructiveHint=True" in asked
            assert "[y]es / [n]o / [a]lways" in asked
            # The countdown starts at the timeout given; a busy machine may show a second gone already.
            left = re.search(r"\((\d+) s left\)", asked)
            assert left is not None and 20 <= int(left.group(1)) <= 30, asked
            terminal.type("maybe")
            terminal.expect("Answer y (approve), n (deny) or a (always allow this tool)")
            terminal.type("y")
            assert answered.result(60).content[0].text == "wiped sales"

            declined = call_in_background(url, "2026-07-28", "users")
            terminal.expect("left): ")
            terminal.type("n")
            refused = declined.result(60)
            assert refused.is_error and "declined" in refused.content[0].text
            assert "notebook" not in refused.content[0].text.replace("mcp-notebook", "")

            always = call_in_background(url, "legacy", "logs")
            terminal.expect("left): ")
            terminal.type("a")
            assert always.result(60).content[0].text == "wiped logs"
            # Always allowed: the next call runs without a question.
            assert call_in_background(url, "2026-07-28", "cache").result(60).content[0].text == "wiped cache"
            assert served.stop() == 0
    finally:
        terminal.close()
    assert (tmp_path / "wiped.txt").read_text().split() == ["sales", "logs", "cache"]


def test_at_a_terminal_a_question_nobody_answers_ends_with_the_timeout(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path, APPROVAL_CELLS)
    terminal = Terminal()
    try:
        with headless(
            notebook, "--token", TOKEN, "--approval-timeout", "1", stdin=terminal.slave, stderr=terminal.slave
        ) as served:
            os.close(terminal.slave)
            url = served.line().strip()
            result = call_in_background(url, "legacy", "sales").result(60)
            terminal.expect("(no longer waiting: timeout)")
            assert served.stop() == 0
    finally:
        terminal.close()
    text = result.content[0].text
    assert result.is_error and "Nobody answered the approval request" in text and "within 1 s" in text
    assert "at the terminal where `mcp-notebook serve` runs" in text
    assert not (tmp_path / "wiped.txt").exists()


def test_without_a_terminal_such_calls_are_declined_at_once_and_serve_says_so(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path, APPROVAL_CELLS)
    with headless(notebook, "--token", TOKEN, "--approval-timeout", "300") as served:  # stdin: /dev/null
        url = served.line().strip()
        started = time.monotonic()
        result = call_in_background(url, "auto", "sales").result(60)
        waited = time.monotonic() - started
        assert served.stop() == 0
    assert "no terminal is attached" in served.stderr and "--approval auto" in served.stderr
    text = result.content[0].text
    assert result.is_error and "No one can approve calls on this server" in text
    assert "approve it in the notebook" not in text and waited < 60  # not after the 300 s timeout
    assert not (tmp_path / "wiped.txt").exists()


def test_with_stdio_nobody_is_asked_at_the_terminal_and_such_calls_are_declined(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path, APPROVAL_CELLS)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "mcp_notebook.cli", "serve", str(notebook), "--stdio"]
    )

    async def main() -> Any:
        with (tmp_path / "stdio.stderr").open("w") as errlog, anyio.fail_after(120):
            async with Client(stdio_client(params, errlog=errlog), mode="auto") as client:
                return await client.call_tool("wipe", {"table": "sales"})

    result = anyio.run(main)
    assert result.is_error and "No one can approve calls on this server" in result.content[0].text
    assert "carries the protocol with --stdio" in (tmp_path / "stdio.stderr").read_text()
    assert not (tmp_path / "wiped.txt").exists()


def test_a_bad_approval_timeout_is_refused_with_what_to_pass(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcp_notebook.cli", "serve", "x.ipynb", "--approval-timeout", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--approval-timeout: approval_timeout must be a number of seconds greater than 0" in done.stderr


# -- clients with tokens of their own, and the server's name ---------------------------------------------


def whoami(url: str, token: str) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        with anyio.fail_after(60):
            async with connect(Remote(url, token), "auto") as client:
                result: dict[str, Any] = (await client.call_tool("whoami", {})).structured_content or {}
                return result

    return anyio.run(main)


def test_each_client_gets_a_token_of_its_own_in_a_file_only_its_owner_reads(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path, WHO_CELLS)
    tokens_file = tmp_path / "private" / "clients.json"
    options = ("--token", TOKEN, "--name", "shop", "--clients-file", str(tokens_file))
    with headless(notebook, *options, "--client", "claude-code", "--client", "alice") as served:
        url = served.line().strip()
        saved = json.loads(tokens_file.read_text())
        claude, alice = (saved["clients"][name]["token"] for name in ("claude-code", "alice"))
        assert whoami(url, claude) == {"client": "claude-code", "server": "shop"}
        assert whoami(url, alice)["client"] == "alice"
        assert whoami(url, TOKEN)["client"] == "owner"
        assert served.stop() == 0
    assert saved["url"] == url and saved["clients"]["alice"]["header"] == f"Authorization: Bearer {alice}"
    assert stat.S_IMODE(tokens_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(tokens_file.parent.stat().st_mode) == 0o700
    assert claude not in served.stderr and alice not in served.stderr  # only the file's path is logged
    assert str(tokens_file) in served.stderr
    # A later run reuses the tokens in the file: a client set up once keeps working after a restart.
    with headless(notebook, *options, "--client", "claude-code", "--client", "bob") as served:
        url = served.line().strip()
        assert whoami(url, claude)["client"] == "claude-code"
        bob = json.loads(tokens_file.read_text())["clients"]["bob"]["token"]
        assert whoami(url, bob)["client"] == "bob"
        assert served.stop() == 0


def test_a_bad_client_name_stops_serve_before_anything_runs(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path, WHO_CELLS)
    with headless(notebook, "--client", "notebook") as served:
        assert served.line() == ""
        code = served.process.wait(timeout=60)
    assert code == 2 and "reserved" in served.stderr


def test_serve_stdio_speaks_as_the_first_client(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path, WHO_CELLS)
    tokens_file = tmp_path / "clients.json"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_notebook.cli", "serve", str(notebook), "--stdio", "--approval", "auto",
              "--client", "claude-desktop", "--clients-file", str(tokens_file)],
    )  # fmt: skip

    async def main() -> dict[str, Any]:
        with (tmp_path / "stdio.stderr").open("w") as errlog, anyio.fail_after(120):
            async with Client(stdio_client(params, errlog=errlog), mode="auto") as client:
                result: dict[str, Any] = (await client.call_tool("whoami", {})).structured_content or {}
                return result

    seen = anyio.run(main)
    assert seen["client"] == "claude-desktop"
    assert seen["server"].startswith("served-")  # the name from the notebook's path: served.ipynb
