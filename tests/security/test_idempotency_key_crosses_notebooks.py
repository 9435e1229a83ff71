"""Attack (issue 21): another notebook's call with a used idempotency key gets that notebook's stored result.

Stored results live in one SQLite file in the user's cache folder, keyed by (client, tool, key).
Two notebooks that both define ``create_order`` shared that key space: a call with a key that an
earlier run of the other notebook had used returned the other notebook's order, and the function
never ran: the order was silently not created. Now a result is scoped to the serving notebook
(its server name, from the notebook's path) and to the tool's definition. Real notebooks, each in
its own kernel, served headless with one shared cache folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import nbformat
import pytest

from tests.conftest import connect
from tests.headless import Remote, headless

pytestmark = pytest.mark.kernel

TOKEN = "issue-21-owner-token"
KEY = "order-2b7e151628aed2a6"

SOURCE = '''\
%load_ext mcp_notebook
import uuid
from pathlib import Path
from mcp_notebook import tool

@tool(idempotency_key=True)
def create_order(item: str{extra}) -> dict:
    """Create an order (a retry with the same key creates nothing new)."""
    order = uuid.uuid4().hex
    with open("orders.log", "a") as log:
        log.write(order + "\\n")
    return {{"order": order, "notebook": Path.cwd().name}}
'''


def notebook(folder: Path, *, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell(SOURCE.format(extra=extra))]
    path = folder / "orders.ipynb"
    nbformat.write(book, path)
    return path


def create_order(path: Path, env: dict[str, str]) -> Any:
    """Serve the notebook headless, call create_order once with KEY, stop; the result the client got."""
    with headless(path, "--token", TOKEN, "--approval", "auto", env=env) as served:
        url = served.line().strip()
        assert url.startswith("http://"), served.stderr

        async def call() -> Any:
            with anyio.fail_after(60):
                async with connect(Remote(url, TOKEN), "auto") as client:
                    return await client.call_tool("create_order", {"item": "tea", "idempotency_key": KEY})

        result = anyio.run(call)
        assert served.stop() == 0, served.stderr
    return result


def orders(folder: Path) -> list[str]:
    log = folder / "orders.log"
    return log.read_text().split() if log.exists() else []


def test_a_key_is_the_notebooks_own_across_kernels_restarts_and_redefinitions(tmp_path: Path) -> None:
    env = {**os.environ, "MCP_NOTEBOOK_CACHE_DIR": str(tmp_path / "cache")}  # one cache, as on one machine
    shop, archive = tmp_path / "shop", tmp_path / "archive"
    first = create_order(notebook(shop), env).structured_content
    assert first["notebook"] == "shop" and orders(shop) == [first["order"]]

    # Another notebook with a tool of the same name, the same key: its own order is created.
    other = create_order(notebook(archive), env).structured_content
    assert other["notebook"] == "archive" and orders(archive) == [other["order"]]
    assert other["order"] != first["order"]

    # The first notebook again, in a new kernel: the client's retry is recognised.
    again = create_order(notebook(shop), env).structured_content
    assert again == first and orders(shop) == [first["order"]]

    # The first notebook with create_order redefined (a new parameter): the old result is not
    # replayed for the new definition, nor is the order made twice: the client is told why.
    redefined = create_order(notebook(shop, extra=", gift: bool = False"), env)
    assert redefined.is_error is True and "redefined" in redefined.content[0].text
    assert orders(shop) == [first["order"]]
