"""A tool that returns a matplotlib figure: sent as a PNG, then closed, so it never shows up anywhere else."""

from __future__ import annotations

import base64
import subprocess
import sys
import textwrap
from typing import Any

import anyio
import pytest

from mcp_notebook import Catalogue, tool
from tests.conftest import connect, serve_unattended
from tests.kernel import Kernel, Outputs

pytestmark = pytest.mark.anyio


async def test_figures_made_by_a_tool_are_closed_once_sent(catalogue: Catalogue) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    @tool(catalogue=catalogue, read_only=True)
    def chart(points: int):  # type: ignore[no-untyped-def]
        """A line chart."""
        figure, axes = plt.subplots(figsize=(2, 2))
        axes.plot(range(points))
        return figure

    before = plt.get_fignums()
    srv = serve_unattended(catalogue)
    try:
        async with connect(srv, "auto") as client:
            for points in range(25):
                result = await client.call_tool("chart", {"points": points + 2})
                assert base64.b64decode(result.content[0].data).startswith(b"\x89PNG")
    finally:
        srv.stop()
    assert plt.get_fignums() == before  # pyplot keeps no figure a tool made


def test_encoding_a_figure_never_imports_pyplot() -> None:
    code = textwrap.dedent(
        """
        import sys
        from matplotlib.figure import Figure
        from mcp_notebook.core._results import to_result

        figure = Figure(figsize=(1, 1))
        figure.add_subplot().plot([0, 1])
        assert to_result(figure)["content"][0]["mimeType"] == "image/png"
        print("matplotlib.pyplot" in sys.modules)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"  # importing pyplot would pick a backend behind the user's back


def images(outputs: Outputs) -> int:
    """How many images a person sees in a cell's output: PNG outputs, and images inside HTML."""
    count = 0
    for message in outputs.messages:
        if message["msg_type"] in ("display_data", "execute_result"):
            data = message["content"]["data"]
            count += "image/png" in data
            count += data.get("text/html", "").count("<img") if "image/png" not in data else 0
    return count


PLOT = '''
%matplotlib inline
import matplotlib.pyplot as plt
from mcp_notebook import tool

@tool(read_only=True)
def plot(points: int):
    """A line through some points."""
    figure, axes = plt.subplots(figsize=(2, 2))
    axes.plot(range(points))
    return figure
'''


@pytest.mark.kernel
def test_in_a_kernel_a_figure_from_a_tool_shows_once_and_never_in_a_later_cell() -> None:
    kernel = Kernel()
    try:
        kernel.run("%load_ext mcp_notebook").raise_for_error()
        kernel.run(PLOT).raise_for_error()
        kernel.run("srv = %mcp_serve --approval auto").raise_for_error()
        remote = kernel.json('{"url": srv.url, "token": srv.token}')

        class Remote:
            url, token = remote["url"], remote["token"]

        async def outside() -> list[Any]:
            with anyio.fail_after(60):
                async with connect(Remote, "auto") as client:
                    return [await client.call_tool("plot", {"points": n}) for n in (2, 3, 4)]

        results = anyio.run(outside)
        assert all(r.content[0].mime_type == "image/png" for r in results)
        unrelated = kernel.run("total = 1 + 1")  # the inline backend shows open figures after a cell
        unrelated.raise_for_error()
        assert images(unrelated) == 0, "a figure made for a client appeared in an unrelated cell"

        called = kernel.run("%mcp_call plot points=5")
        called.raise_for_error()
        assert images(called) == 1  # the result's image, and not the inline backend's copy too
        assert kernel.json("plt.get_fignums()") == []
    finally:
        kernel.shutdown()
