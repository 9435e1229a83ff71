"""End to end in a real Jupyter kernel: magics, the in-kernel server, and an outside client."""

from __future__ import annotations

import socket
import textwrap
from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types as types
import pytest

from tests.conftest import ERAS, connect
from tests.kernel import Kernel, Remote, call_from_outside, port_is_free, serve_in

pytestmark = pytest.mark.kernel

FORECAST = '''
from typing import Literal
from mcp_notebook import tool

@tool(read_only=True)
def forecast(city: str, unit: Literal["C", "F"] = "C") -> dict:
    """Current weather for one city. Use for questions about weather now; not for past weather."""
    return {"city": city, "temperature": TEMPERATURE if unit == "C" else 73, "unit": unit}
'''


@pytest.fixture(scope="module")
def kernel() -> Iterator[Kernel]:
    k = Kernel()
    try:
        k.run("%load_ext mcp_notebook").raise_for_error()
        yield k
    finally:
        k.shutdown()


def test_load_ext_registers_magics_without_importing_the_sdk(kernel: Kernel) -> None:
    # The fixture ran %load_ext first thing in this kernel; nothing else has run yet.
    out = kernel.run("import sys\nprint('mcp' in sys.modules, 'uvicorn' in sys.modules)")
    out.raise_for_error()
    assert out.stdout.strip() == "False False"
    help_text = kernel.run("print(get_ipython().find_line_magic('mcp_serve').__doc__)").stdout
    assert "--port" in help_text and "--run-in" in help_text


def test_the_tour_works_end_to_end_with_an_outside_client(kernel: Kernel) -> None:
    kernel.run("TEMPERATURE = 23\n" + FORECAST).raise_for_error()
    remote = serve_in(kernel)
    out = kernel.run("%mcp_call forecast city=Seoul")
    out.raise_for_error()
    assert '"temperature": 23' in out.text
    for mode in ERAS:
        result = call_from_outside(remote, "forecast", {"city": "Seoul", "unit": "F"}, mode)
        assert result.structured_content == {"city": "Seoul", "temperature": 73, "unit": "F"}
    # The tool reads live kernel state: change a variable in a cell, the next call sees it.
    kernel.run("TEMPERATURE = 31").raise_for_error()
    assert call_from_outside(remote, "forecast", {"city": "Seoul"}).structured_content["temperature"] == 31


def test_rerunning_a_cell_notifies_a_connected_client(kernel: Kernel) -> None:
    remote = serve_in(kernel)
    heard = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            heard.set()

    async def main() -> list[str]:
        async with connect(remote, "legacy", message_handler=on_message) as client:
            await client.list_tools()
            with anyio.fail_after(20):
                while not heard.is_set():
                    await anyio.to_thread.run_sync(lambda: kernel.run(FORECAST).raise_for_error())
                    with anyio.move_on_after(0.5):
                        await heard.wait()
            return [tool.name for tool in (await client.list_tools()).tools]

    assert anyio.run(main) == ["forecast"]


def test_magic_errors_are_one_line_and_protocol_errors_carry_the_code(kernel: Kernel) -> None:
    serve_in(kernel)
    unknown = kernel.run("%mcp_call forcast city=Seoul").error
    assert unknown is not None and unknown["ename"] == "ProtocolError"
    assert "-32602" in "".join(unknown["traceback"]) and "'forcast'" in unknown["evalue"]
    # IPython prints a UsageError as one line on stderr, without a traceback.
    for line in ('%mcp_call forecast {"city": ', "%mcp_serve --port not-a-number", "%mcp_call"):
        out = kernel.run(line)
        assert out.error is None and out.text.startswith("UsageError: "), line
        assert len(out.text.strip().splitlines()) <= 3, out.text
    tool_error = kernel.run("%mcp_call forecast city=Seoul unit=K")
    tool_error.raise_for_error()  # a tool execution error is a result, not an exception
    assert "unit: 'K' is not one of ['C', 'F']" in tool_error.text


def test_call_syntax_json_values_and_kernel_variables(kernel: Kernel) -> None:
    serve_in(kernel)
    kernel.run(
        textwrap.dedent(
            '''
            @tool
            def echo(text: str, times: int = 1, tags: list[str] | None = None) -> dict:
                """Echo text back, for testing argument parsing."""
                return {"text": text, "times": times, "tags": tags}
            my_city = "Daegu"
            payload = {"text": "from a dict", "times": 2}
            '''
        )
    ).raise_for_error()
    cases = {
        '%mcp_call echo text=$my_city times=3 tags=["a","b"]': '"text": "Daegu"',
        '%mcp_call echo {"text": "hello world", "times": 2}': '"text": "hello world"',
        "%mcp_call echo $payload": '"text": "from a dict"',
        "%mcp_call echo text='two words'": '"text": "two words"',
    }
    for line, expected in cases.items():
        out = kernel.run(line)
        out.raise_for_error()
        assert expected in out.text, line
    missing = kernel.run("%mcp_call echo text=$nowhere")
    assert missing.text.startswith("UsageError: $nowhere refers to no variable")
    nested = kernel.run('%mcp_call echo text=x tags=["a b", "c"] --timeout 10')
    assert '"a b"' in nested.text


def test_tools_run_while_a_cell_is_busy(kernel: Kernel) -> None:
    remote = serve_in(kernel)
    kernel.run(
        textwrap.dedent(
            '''
            import threading
            gate = threading.Event()

            @tool
            def release() -> str:
                """Let the waiting cell finish."""
                print("LEAK? this must not reach any cell")
                gate.set()
                return "released"
            '''
        )
    ).raise_for_error()
    busy = kernel.start("print('waiting'); print('gate opened:', gate.wait(30))")
    result = call_from_outside(remote, "release", {})  # would hang if tools needed the busy kernel
    assert result.content[0].text == "released"
    out = kernel.wait(busy)
    assert "gate opened: True" in out.stdout
    assert "LEAK" not in out.text  # the tool's print went to its call record, not the running cell
    assert "LEAK?" in kernel.json("srv.calls[-1].stdout")


def test_kernel_mode_runs_on_the_main_thread_and_says_when_busy() -> None:
    kernel = Kernel()
    try:
        kernel.run(
            textwrap.dedent(
                '''
                %load_ext mcp_notebook
                import threading
                import mcp_notebook
                from mcp_notebook import tool
                gate = threading.Event()

                @tool
                def where() -> dict:
                    """Say which thread ran this call."""
                    return {"main": threading.current_thread() is threading.main_thread()}

                @tool(run_in="thread")
                def release() -> str:
                    """Let the waiting cell finish."""
                    gate.set()
                    return "released"

                srv = mcp_notebook.serve(run_in="kernel", busy_timeout=1, approval="auto")
                '''
            )
        ).raise_for_error()
        remote = Remote(**kernel.json('{"url": srv.url, "token": srv.token}'))
        assert call_from_outside(remote, "where", {}).structured_content == {"main": True}
        # %mcp_call waits for a tool that needs this very thread: it must not deadlock.
        own = kernel.run("%mcp_call where", timeout=30)
        own.raise_for_error()
        assert '"main": true' in own.text
        busy = kernel.start("gate.wait(30)")
        refused = call_from_outside(remote, "where", {})
        assert refused.is_error is True
        assert "kernel stayed busy for 1 s" in refused.content[0].text
        assert call_from_outside(remote, "release", {}).content[0].text == "released"
        kernel.wait(busy).raise_for_error()
        assert call_from_outside(remote, "where", {}).structured_content == {"main": True}
    finally:
        kernel.shutdown()


def test_unload_reload_and_shutdown_free_the_port() -> None:
    kernel = Kernel()
    try:
        kernel.run("%load_ext mcp_notebook").raise_for_error()
        first = serve_in(kernel)
        port = int(first.url.split(":")[2].split("/")[0])
        assert not port_is_free(port)
        kernel.run("%unload_ext mcp_notebook").raise_for_error()
        assert port_is_free(port)
        kernel.run("%load_ext mcp_notebook").raise_for_error()
        second = serve_in(kernel, f"%mcp_serve --port {port} --approval auto")
        assert second.url == first.url
        kernel.run("%reload_ext mcp_notebook").raise_for_error()
        assert port_is_free(port)
        third = serve_in(kernel, f"%mcp_serve --port {port} --approval auto")
        assert third.url == first.url and third.token != first.token
    finally:
        kernel.shutdown()
    assert port_is_free(port)


def test_kernel_interrupt_ends_a_kernel_mode_call_and_the_kernel_goes_on() -> None:
    import concurrent.futures

    kernel = Kernel()
    try:
        kernel.run(
            textwrap.dedent(
                '''
                %load_ext mcp_notebook
                import socket, threading
                import mcp_notebook
                from mcp_notebook import tool

                @tool
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
        with (
            socket.create_server(("127.0.0.1", 0)) as listener,
            concurrent.futures.ThreadPoolExecutor(1) as pool,
        ):
            listener.settimeout(30)
            pending = pool.submit(call_from_outside, remote, "stuck", {"port": listener.getsockname()[1]})
            listener.accept()[0].close()  # the tool is running on the kernel's main thread now
            kernel.manager.interrupt_kernel()
            result = pending.result(timeout=30)
        assert result.is_error is True and result.content[0].text.startswith("KeyboardInterrupt")
        after = kernel.run("print(1 + 1)")
        after.raise_for_error()
        assert after.stdout.strip() == "2"
        assert kernel.json("srv.running") is True
    finally:
        kernel.shutdown()


def test_republishing_a_dataframe_notifies_a_subscribed_client(kernel: Kernel) -> None:
    remote = serve_in(kernel)
    kernel.run(
        "import pandas as pd\nsales = pd.DataFrame({'region': ['north'], 'total': [10]})\n%mcp_publish sales"
    ).raise_for_error()
    uri = "notebook://variables/sales"

    async def main() -> str:
        async with (
            connect(remote, "auto") as client,
            client.listen(resource_subscriptions=[uri]) as subscription,
        ):
            update = "sales.loc[0, 'total'] = 11\n%mcp_publish sales"
            await anyio.to_thread.run_sync(lambda: kernel.run(update).raise_for_error())
            with anyio.fail_after(20):
                while type(await subscription.__anext__()).__name__ != "ResourceUpdated":
                    pass
            read = await client.read_resource(uri)
            return next(item.text for item in read.contents if item.mime_type == "text/csv")

    assert anyio.run(main).splitlines() == ["region,total", "north,11"]
