"""Faults: what a person sees when something goes wrong, and that the server goes on serving after it.

Every fault has a test that shows the message a person reads *and* a follow-up call that succeeds
(or the server cleanly stopped, with its port free). Faults proven elsewhere are not tested twice:

==================================  ============================================================================
Fault                               Proven by
==================================  ============================================================================
a tool raises                       tests/server/test_server.py::test_tool_exceptions_become_error_results_and_serving_goes_on
                                    (both eras: "ZeroDivisionError: float division by zero", then a call works);
                                    tests/server/test_server.py::test_even_system_exit_in_a_tool_leaves_the_server_serving
a tool hangs past its timeout       tests/server/test_guardrails.py::test_a_slow_call_is_abandoned_and_the_server_goes_on
                                    (a sync tool on a worker thread, 2026-07-28); here
                                    test_an_async_tool_past_its_timeout_is_abandoned (an awaited tool, handshake era)
a client disconnects mid-call       test_a_client_that_disconnects_mid_call_costs_nothing (both eras)
a kernel interrupt during a call    tests/ipython/test_kernel.py::test_kernel_interrupt_ends_a_kernel_mode_call_and_the_kernel_goes_on
                                    (the call ends as "KeyboardInterrupt...", the kernel runs cells); here
                                    test_an_interrupt_stops_the_cell_not_the_server (a thread-mode call outlives an
                                    interrupted cell; after a kernel-mode interrupt the next calls are served)
port already in use                 tests/server/test_http.py::test_port_in_use_is_a_clear_error (the message); here
                                    test_a_busy_port_leaves_nothing_half_started (the magic says it too; port=0 serves)
``%mcp_serve`` twice                tests/server/test_http.py::test_serve_twice_returns_the_running_server (Python API); here
                                    test_mcp_serve_twice_returns_the_same_server (the magic, in a kernel, then a call)
``%reload_ext``                     tests/ipython/test_kernel.py::test_unload_reload_and_shutdown_free_the_port (port freed);
                                    here test_reload_ext_serves_again_with_a_new_token (a call works, the old token 401s)
kernel restart                      test_kernel_restart_frees_the_port (then the same port serves again);
                                    shutdown: tests/ipython/test_kernel.py::test_unload_reload_and_shutdown_free_the_port
malformed JSON                      test_malformed_json_is_a_parse_error (both eras; also tests/server/test_http.py::
                                    test_malformed_json_is_parse_error before any session)
a batch / JSON that is no message   test_a_body_that_is_not_one_message_is_32600_saying_what_to_send (both eras)
non-object tools/call arguments     test_call_arguments_that_are_not_an_object_are_32602_saying_what_to_send
                                    (both eras; also a call without a tool name)
wrong content type                  test_a_body_that_is_not_json_is_415_saying_what_to_send (both eras)
oversized body                      test_an_oversized_body_is_413_naming_the_limit_and_the_fix (both eras, declared
                                    and chunked); test_the_body_limit_can_be_raised (and a bad setting is refused)
unknown method                      test_an_unknown_method_is_32601 (both eras; HTTP 404 on 2026-07-28)
bytes that are not HTTP             test_bytes_that_are_not_http_leave_the_notebook_alone (400, serving goes on,
                                    nothing lands in the ``%mcp_serve`` cell's output)
==================================  ============================================================================

Random input of every kind (arguments, envelopes, bytes) is in tests/server/test_fuzz.py.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import gc
import http.client
import json
import logging
import socket
import textwrap
import threading
import warnings
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import mcp_notebook
from mcp_notebook import Catalogue, ServerError, serve, set_language, tool
from tests.conftest import INITIALIZE, connect, serve_unattended
from tests.kernel import Kernel, Remote, call_from_outside, port_is_free, serve_in
from tests.wire import ACCEPT, WIRE_ERAS, Wire, answer

LIMIT_VARIABLE = "MCP_NOTEBOOK_MAX_REQUEST_BYTES"


def assert_serves(wire: Wire) -> None:
    """A real tool call on the same connection (and session) still gets its answer."""
    assert wire.call("add", {"a": 2, "b": 3})["result"]["structuredContent"] == {"result": 5}


def define_add(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, read_only=True)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b


@pytest.fixture
def wire(server: Any, catalogue: Catalogue, request: pytest.FixtureRequest) -> Iterator[Wire]:
    define_add(catalogue)
    opened = Wire(server, request.param)
    try:
        yield opened
    finally:
        opened.close()


@contextlib.contextmanager
def no_problems_logged() -> Iterator[None]:
    """Fail if anything (uvicorn, the SDK, asyncio, this package) logs a warning or worse meanwhile.

    uvicorn's own logger does not propagate to the root logger, so it is watched by name.
    """
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(logging.WARNING)
    watched = [logging.getLogger(), logging.getLogger("uvicorn")]
    for logger in watched:
        logger.addHandler(handler)
    try:
        yield
    finally:
        for logger in watched:
            logger.removeHandler(handler)
    assert [record.getMessage() for record in records] == []


# -- faults in the call ----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_an_async_tool_past_its_timeout_is_abandoned(server: Any, catalogue: Catalogue) -> None:
    define_add(catalogue)

    @tool(catalogue=catalogue, timeout=0.2, read_only=True)
    async def stalled() -> str:
        """Wait for an answer that never comes."""
        await anyio.Event().wait()
        return "never"

    async with connect(server, "legacy") as client:
        abandoned = await client.call_tool("stalled", {})
        after = await client.call_tool("add", {"a": 2, "b": 3})
    assert abandoned.is_error is True
    assert abandoned.content[0].text == (
        "Tool 'stalled' took longer than 0.2 s and was abandoned; nothing it returns later is used. "
        "Try a smaller request."
    )
    assert after.structured_content == {"result": 5}
    assert server.calls[-2].outcome == "timeout"


class Abandoned:
    """A tools/call whose client hung up while the tool ran: `release` lets the tool finish."""

    def __init__(self, wire: Wire, server: Any, catalogue: Catalogue) -> None:
        started, self.release, self.finished = threading.Event(), threading.Event(), threading.Event()

        @tool(catalogue=catalogue, read_only=True)
        def slow() -> str:
            """Answer once the test lets it."""
            started.set()
            self.release.wait(30)
            self.finished.set()
            return "late"

        body = json.dumps(wire.message("tools/call", {"name": "slow", "arguments": {}})).encode()
        headers = {
            **wire.http.headers,
            **wire.headers("tools/call", "slow"),
            "Host": f"127.0.0.1:{server.port}",
            "Content-Length": str(len(body)),
        }
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as raw:
            head = "".join(f"{key}: {value}\r\n" for key, value in headers.items())
            raw.sendall(f"POST /mcp HTTP/1.1\r\n{head}\r\n".encode() + body)
            assert started.wait(30)

    def finish(self) -> None:
        self.release.set()
        assert self.finished.wait(30)


@pytest.mark.parametrize("wire", WIRE_ERAS, indirect=True)
def test_a_client_that_disconnects_mid_call_costs_nothing(
    wire: Wire, server: Any, catalogue: Catalogue
) -> None:
    with no_problems_logged():
        abandoned = Abandoned(wire, server, catalogue)
        assert_serves(wire)  # others are answered while the orphaned call runs ...
        abandoned.finish()
        assert_serves(wire)  # ... and after it ended, with nobody left to answer


@pytest.mark.parametrize(
    "wire",
    ["2025-11-25", "2026-07-28"],
    indirect=True,
)
def test_a_call_whose_client_hung_up_is_still_audited(wire: Wire, server: Any, catalogue: Catalogue) -> None:
    recorded = threading.Event()
    server.tool_server.call_listeners.append(lambda record: record.tool == "slow" and recorded.set())
    abandoned = Abandoned(wire, server, catalogue)
    assert_serves(wire)  # by the time another request is answered, the server has seen the hang-up
    abandoned.finish()
    # The tool ran (its side effects happened): the audit trail must say so, whatever the outcome.
    assert recorded.wait(30)
    orphan = next(record for record in server.calls if record.tool == "slow")
    assert orphan.outcome


# -- faults on the wire ----------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRE_ERAS, indirect=True)
def test_malformed_json_is_a_parse_error(wire: Wire) -> None:
    response = wire.post(b'{"jsonrpc": "2.0", "id": 1, "method": ')
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32700 and error["message"].startswith("Parse error")
    assert_serves(wire)


@pytest.mark.parametrize("wire", WIRE_ERAS, indirect=True)
def test_a_body_that_is_not_one_message_is_32600_saying_what_to_send(wire: Wire) -> None:
    batch = wire.post(json.dumps([wire.message("tools/list")]).encode())
    assert batch.status_code == 400
    error = batch.json()["error"]
    assert error["code"] == -32600 and "MCP has no batches" in error["message"]
    assert "send one JSON-RPC message per POST" in error["message"]
    for body, kind in ((b"null", "null"), (b"3", "a number"), (b'"tools/list"', "a string")):
        answer = wire.post(body)
        assert answer.status_code == 400
        assert answer.json()["error"] == {
            "code": -32600,
            "message": f"The body is {kind}, not a JSON-RPC message. Send one JSON object such as "
            '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}.',
        }
    assert_serves(wire)


@pytest.mark.parametrize("wire", WIRE_ERAS, indirect=True)
def test_call_arguments_that_are_not_an_object_are_32602_saying_what_to_send(wire: Wire) -> None:
    message = wire.message("tools/call", {"name": "add", "arguments": [2, 3]})
    answer = wire.post(json.dumps(message).encode(), "tools/call", "add")
    assert answer.status_code == (200 if wire.era == "2025-11-25" else 400)  # as the SDK's own -32602
    assert answer.json()["id"] == message["id"]
    assert answer.json()["error"]["code"] == -32602
    assert answer.json()["error"]["message"] == (
        'tools/call needs "params.arguments" as a JSON object of argument names to values, '
        'e.g. {"a": 2, "b": 3}; got [2, 3].'
    )
    nameless = wire.message("tools/call", {"arguments": {"a": 2}})
    answer = wire.post(json.dumps(nameless).encode(), "tools/call")
    assert "the tool's name as a string" in answer.json()["error"]["message"]
    assert_serves(wire)


@pytest.mark.parametrize("wire", WIRE_ERAS, indirect=True)
def test_a_body_that_is_not_json_is_415_saying_what_to_send(wire: Wire) -> None:
    body = json.dumps(wire.message("tools/list")).encode()
    for content_type in ("text/plain", "application/x-www-form-urlencoded"):
        response = wire.post(body, **{"Content-Type": content_type})
        assert response.status_code == 415
        error = response.json()["error"]
        assert error["code"] == -32600
        assert f"the request says Content-Type '{content_type}'" in error["message"]
        assert "Send the header 'Content-Type: application/json'" in error["message"]
    assert_serves(wire)


def raw_post(srv: Any, headers: dict[str, str], first_bytes: bytes) -> tuple[int, dict[str, Any]]:
    """POST with the given headers but send only `first_bytes` of the body; return the answer."""
    with socket.create_connection(("127.0.0.1", srv.port), timeout=30) as raw:
        head = "".join(f"{key}: {value}\r\n" for key, value in headers.items())
        raw.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n{head}\r\n".encode() + first_bytes)
        response = http.client.HTTPResponse(raw)
        response.begin()
        return response.status, json.loads(response.read())


@pytest.mark.parametrize("wire", WIRE_ERAS, indirect=True)
def test_an_oversized_body_is_413_naming_the_limit_and_the_fix(wire: Wire, server: Any) -> None:
    message = (
        "The request body is larger than this server accepts (4194304 bytes = 4 MiB). Send less: pass "
        "large data as a file path or a resource rather than inline. To raise the limit, set the "
        f"environment variable {LIMIT_VARIABLE} (e.g. {LIMIT_VARIABLE}=8388608) before starting the server."
    )
    # A declared length over the limit is refused before a byte of the body is read.
    headers = {**wire.http.headers, **wire.headers("tools/call", "add"), "Content-Length": str(5 << 20)}
    status, refused = raw_post(server, headers, b'{"jsonrpc": "2.0", "id": 1, ')
    assert status == 413
    assert refused["error"] == {"code": -32600, "message": message}
    # A chunked body (no length declared) is counted as it arrives ...
    chunks = (b" " * (1 << 16) for _ in range(65))
    assert wire.post(chunks, "tools/call", "add").status_code == 413
    # ... and served as usual when within the limit.
    call = json.dumps(wire.message("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}})).encode()
    served = answer(wire.post(iter([call[:10], call[10:]]), "tools/call", "add"))
    assert served["result"]["structuredContent"] == {"result": 5}
    set_language("ko")  # the `english` fixture switches back
    status, korean = raw_post(server, headers, b"{")
    assert status == 413
    assert korean["error"]["message"].startswith(
        "요청 본문이 이 서버가 받는 크기(4194304바이트 = 4 MiB)보다 큽니다"
    )
    assert_serves(wire)


def test_the_body_limit_can_be_raised(monkeypatch: pytest.MonkeyPatch, catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, read_only=True)
    def measure(text: str) -> int:
        """Count the characters of a text."""
        return len(text)

    define_add(catalogue)
    monkeypatch.setenv(LIMIT_VARIABLE, str(8 << 20))
    srv = serve_unattended(catalogue)
    wire = Wire(srv, "2026-07-28")
    try:
        big = "x" * (6 << 20)  # over the default 4 MiB: the SDK's own limit is raised with ours
        assert wire.call("measure", {"text": big})["result"]["structuredContent"] == {"result": 6 << 20}
        headers = {
            **wire.http.headers,
            **wire.headers("tools/call", "measure"),
            "Content-Length": str(9 << 20),
        }
        status, refused = raw_post(srv, headers, b"{")
        assert status == 413
        assert "this server accepts (8388608 bytes = 8 MiB)" in refused["error"]["message"]
        assert_serves(wire)
    finally:
        wire.close()
        srv.stop()


def test_a_bad_body_limit_setting_stops_serve_saying_why(
    monkeypatch: pytest.MonkeyPatch, catalogue: Catalogue
) -> None:
    monkeypatch.setenv(LIMIT_VARIABLE, "lots")
    with pytest.raises(ServerError) as refused:
        serve(catalogue=catalogue)
    assert str(refused.value) == (
        f"The MCP server could not start: {LIMIT_VARIABLE} must be a whole number of bytes greater than 0 "
        "(e.g. 8388608), got 'lots'."
    )
    assert mcp_notebook.current_server() is None


def test_a_server_that_fails_to_start_closes_what_it_opened(
    monkeypatch: pytest.MonkeyPatch, catalogue: Catalogue
) -> None:
    monkeypatch.setenv(LIMIT_VARIABLE, "lots")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ServerError):
            serve(catalogue=catalogue)
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


@pytest.mark.parametrize("wire", WIRE_ERAS, indirect=True)
def test_an_unknown_method_is_32601(wire: Wire) -> None:
    response = wire.send("tools/frobnicate")
    # 2026-07-28 basic/transports: an unknown method is HTTP 404; the handshake era answers in the stream.
    assert response.status_code == (404 if wire.era == "2026-07-28" else 200)
    error = answer(response)["error"]
    assert error["code"] == -32601
    assert (error["message"], error["data"]) == ("Method not found", "tools/frobnicate")
    assert_serves(wire)


# -- faults around the server's life -----------------------------------------------------------------------


def test_a_busy_port_leaves_nothing_half_started(catalogue: Catalogue) -> None:
    define_add(catalogue)
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mcp_notebook")
    try:
        with socket.create_server(("127.0.0.1", 0)) as busy:
            port = busy.getsockname()[1]
            # The magic says it as one line, without a traceback (a UsageError).
            with pytest.raises(UsageError, match=f"^Port {port} on 127.0.0.1 is already in use.*port=0"):
                shell.run_line_magic("mcp_serve", f"--port {port}")
            assert mcp_notebook.current_server() is None
    finally:
        shell.run_line_magic("unload_ext", "mcp_notebook")
    srv = serve_unattended(catalogue)
    try:
        result = mcp_notebook.call("add", {"a": 2, "b": 3}, url=srv.url, token=srv.token)
        assert result.structured_content == {"result": 5}
    finally:
        srv.stop()


# -- faults in a real kernel -------------------------------------------------------------------------------

KERNEL_SETUP = '''
%load_ext mcp_notebook
%mcp_stop
import socket, threading
import mcp_notebook
from mcp_notebook import tool

@tool(read_only=True)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b
'''


def fresh(kernel: Kernel) -> None:
    """The extension loaded, `add` defined, no server running (whatever an earlier test left)."""
    kernel.run(KERNEL_SETUP).raise_for_error()


def adds(remote: Remote) -> bool:
    return bool(call_from_outside(remote, "add", {"a": 2, "b": 3}).structured_content == {"result": 5})


def port_of(remote: Remote) -> int:
    return int(remote.url.split(":")[2].split("/")[0])


@pytest.mark.kernel
def test_mcp_serve_twice_returns_the_same_server(kernel: Kernel) -> None:
    fresh(kernel)
    remote = serve_in(kernel)
    again = kernel.run("again = %mcp_serve --port 1")  # its options are ignored: port 1 is never tried
    again.raise_for_error()
    assert kernel.json("again is srv") is True
    assert adds(remote)
    kernel.run("%mcp_stop").raise_for_error()


@pytest.mark.kernel
def test_reload_ext_serves_again_with_a_new_token(kernel: Kernel) -> None:
    fresh(kernel)
    first = serve_in(kernel)
    kernel.run("%reload_ext mcp_notebook").raise_for_error()
    assert port_is_free(port_of(first))
    second = serve_in(kernel, f"%mcp_serve --port {port_of(first)} --approval auto")
    assert second.url == first.url
    assert adds(second)
    stale = httpx2.post(
        first.url, json=INITIALIZE, headers={"Authorization": f"Bearer {first.token}", "Accept": ACCEPT}
    )
    assert stale.status_code == 401 and "srv.token" in stale.json()["error"]["message"]
    kernel.run("%mcp_stop").raise_for_error()


@pytest.mark.kernel
def test_an_interrupt_stops_the_cell_not_the_server(kernel: Kernel) -> None:
    fresh(kernel)
    kernel.run(
        textwrap.dedent(
            '''
            @tool(run_in="thread", read_only=True)
            def hold(port: int) -> str:
                """Tell the test it started, then wait for its word."""
                with socket.create_connection(("127.0.0.1", port)) as line:
                    line.recv(1)
                return "held to the end"

            @tool(read_only=True)
            def stuck(port: int) -> str:
                """Tell the test it started, then wait until interrupted."""
                socket.create_connection(("127.0.0.1", port)).close()
                threading.Event().wait()
                return "never"

            srv = mcp_notebook.serve(run_in="kernel", approval="auto")
            '''
        )
    ).raise_for_error()
    remote = Remote(**kernel.json('{"url": srv.url, "token": srv.token}'))
    with socket.create_server(("127.0.0.1", 0)) as listener, concurrent.futures.ThreadPoolExecutor(1) as pool:
        listener.settimeout(30)
        port = listener.getsockname()[1]
        # A thread-mode call while a cell runs: the interrupt ends the cell, the call goes on.
        busy = kernel.start(
            f'socket.create_connection(("127.0.0.1", {port})).close()\nthreading.Event().wait(60)'
        )
        listener.accept()[0].close()  # the cell is running
        held = pool.submit(call_from_outside, remote, "hold", {"port": port})
        line = listener.accept()[0]  # the tool is running, on a worker thread
        kernel.manager.interrupt_kernel()
        stopped = kernel.wait(busy).error
        assert stopped is not None and stopped["ename"] == "KeyboardInterrupt"
        line.sendall(b"!")
        line.close()
        result = held.result(timeout=30)
        assert (result.is_error, result.content[0].text) == (False, "held to the end")
        # A kernel-mode call interrupted (what test_kernel.py proves) ... then the next ones are served.
        ended = pool.submit(call_from_outside, remote, "stuck", {"port": port})
        listener.accept()[0].close()
        kernel.manager.interrupt_kernel()
        assert ended.result(timeout=30).content[0].text.startswith("KeyboardInterrupt")
    assert adds(remote)
    own = kernel.run("%mcp_call add a=2 b=3", timeout=30)
    own.raise_for_error()
    assert own.text == "Tool result: add\n5"
    kernel.run("%mcp_stop").raise_for_error()


@pytest.mark.kernel
def test_kernel_restart_frees_the_port(kernel: Kernel) -> None:
    fresh(kernel)
    before = serve_in(kernel)
    kernel.manager.restart_kernel(now=False)  # what the notebook's "Restart kernel" does
    assert port_is_free(port_of(before))
    kernel.client.wait_for_ready(timeout=60)
    fresh(kernel)
    after = serve_in(kernel, f"%mcp_serve --port {port_of(before)} --approval auto")
    assert after.url == before.url
    assert adds(after)


@pytest.mark.kernel
def test_bytes_that_are_not_http_leave_the_notebook_alone(kernel: Kernel) -> None:
    fresh(kernel)
    serving = kernel.start("srv = %mcp_serve --approval auto")
    kernel.wait(serving).raise_for_error()
    remote = Remote(**kernel.json('{"url": srv.url, "token": srv.token}'))
    tls_hello = bytes.fromhex("16030100a5010000a10303") + b"\x00" * 32  # a client told https:// for http://
    with socket.create_connection(("127.0.0.1", port_of(remote)), timeout=30) as raw:
        raw.sendall(tls_hello)
        assert raw.recv(1024).startswith(b"HTTP/1.1 400 Bad Request")
    assert adds(remote)
    kernel.run("import sys; sys.stderr.flush()").raise_for_error()  # whatever the server wrote has arrived
    later = kernel.wait(serving)  # what reached the %mcp_serve cell after it finished
    kernel.run("%mcp_stop").raise_for_error()
    assert "Invalid HTTP request" not in later.text
