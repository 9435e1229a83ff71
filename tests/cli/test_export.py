"""``mcp-notebook export``: what it refuses, what it reports, and that what it writes runs.

Every test writes a small notebook with nbformat and runs the real command in a new process;
where it matters the exported module is imported, or served by uvicorn and called by a real client.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from tests.exported import connect, token_of, write_secret
from tests.services import Replica

TOOL = "from mcp_notebook import tool\n\n@tool(read_only=True)\ndef ok() -> str:\n    return 'ok'"


def notebook(folder: Path, *cells: str | tuple[str, list[str]], name: str = "nb.ipynb") -> Path:
    """A notebook of code cells in `folder`; a cell given as (source, tags) has those tags."""
    book = nbformat.v4.new_notebook()
    for cell in cells:
        source, tags = cell if isinstance(cell, tuple) else (cell, [])
        code = nbformat.v4.new_code_cell(source)
        code.metadata["tags"] = tags
        book.cells.append(code)
    path = folder / name
    nbformat.write(book, path)
    return path


def export(*arguments: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``mcp-notebook export ...``, the real command in a new process."""
    command = [sys.executable, "-m", "mcp_notebook.cli", "export", *map(str, arguments)]
    environ = {**os.environ, "MCP_NOTEBOOK_LANG": "en"}
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd, env=environ)


def run_module(folder: Path, module: str, code: str) -> subprocess.CompletedProcess[str]:
    """`code` run after ``import MODULE`` in `folder`, as an app's process would (no kernel)."""
    environ = {**os.environ, "MCP_NOTEBOOK_TOKEN": "owner-" + "o" * 30, "MCP_NOTEBOOK_AUDIT_LOG": ""}
    environ["MCP_NOTEBOOK_STORE"] = f"sqlite:///{folder / 'state.sqlite3'}"
    probe = f"import sys; sys.path.insert(0, '.'); import {module}; {code}"
    return subprocess.run(
        [sys.executable, "-c", probe], cwd=folder, env=environ, capture_output=True, text=True, timeout=120
    )


@contextlib.contextmanager
def served(folder: Path, module: str) -> Iterator[str]:
    """The exported `module` in `folder` served by uvicorn, as its hint says, for the client
    ``ana`` (token `token_of("ana")`); its URL."""
    clients = write_secret(
        folder / "clients.json", json.dumps({"clients": {"ana": {"token": token_of("ana")}}})
    )
    environ = {
        **os.environ,
        "MCP_NOTEBOOK_STORE": f"sqlite:///{folder / 'state.sqlite3'}",
        "MCP_NOTEBOOK_CLIENTS_FILE": str(clients),
        "MCP_NOTEBOOK_AUDIT_LOG": "",
    }
    replica = Replica(folder, environ, module=module)
    try:
        yield replica.url
    finally:
        replica.stop()


# -- 1. the notebook is never written over ----------------------------------------------------------


def test_export_refuses_to_write_over_the_notebook_or_any_other_notebook(tmp_path: Path) -> None:
    path = notebook(tmp_path, TOOL)
    before = path.read_bytes()
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.ipynb").symlink_to(path)
    (tmp_path / "alias.py").symlink_to(path)  # the same file under a name that looks like a module
    other = notebook(tmp_path, TOOL, name="other.ipynb")
    other_before = other.read_bytes()
    for target in ("nb.ipynb", "sub/../nb.ipynb", str(path), "link.ipynb", "alias.py"):
        done = export("nb.ipynb", "-o", target, cwd=tmp_path)
        assert done.returncode == 2, (target, done.stderr)
        assert f"will not write over {target}: it is the notebook being exported" in done.stderr
        assert "-o app.py" in done.stderr and "Traceback" not in done.stderr and "Wrote" not in done.stderr
    done = export("nb.ipynb", "-o", "other.ipynb", cwd=tmp_path)
    assert done.returncode == 2
    assert "will not write over other.ipynb: it is a notebook" in done.stderr
    assert path.read_bytes() == before and other.read_bytes() == other_before
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "alias.py",
        "link.ipynb",
        "nb.ipynb",
        "other.ipynb",
        "sub",
    ]
    assert export("nb.ipynb", "-o", "app.py", cwd=tmp_path).returncode == 0  # a .py beside it: fine


# -- 2. a name a tool's body reads, defined only in a skipped cell ----------------------------------


def test_a_name_a_tool_reads_that_only_a_skipped_cell_defines_fails_the_export_by_name(
    tmp_path: Path,
) -> None:
    path = notebook(
        tmp_path,
        ('MODEL = {"w": 2}', ["mcp-skip"]),
        "from mcp_notebook import tool\n\n@tool\ndef f(x: int) -> int:\n    return MODEL['w'] * x",
        "@tool\ndef g(x: int) -> int:\n    return len(HISTORY) + x",
        # The same names bound only locally elsewhere: a parameter, a comprehension's variable.
        "def describe(MODEL: dict) -> str:\n    return str(MODEL)\n\nLAST = [HISTORY for HISTORY in range(2)]",
    )
    done = export(path, "-o", tmp_path / "app.py")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "app.py").exists()
    message = done.stderr
    assert "2 cells need changes" in message
    assert (
        "cell 2, line 5 (\"return MODEL['w'] * x\"): MODEL is defined only in skipped cell 1 (mcp-skip): "
        "the app would stop with NameError here. Define it in a cell that is exported" in message
    )
    assert "cell 3, line 3 ('return len(HISTORY) + x'): HISTORY is defined in no exported cell" in message
    # The cell defines a tool the app needs: skipping it is no advice.
    assert "tag it mcp-skip" not in message


def test_names_python_binds_in_any_scope_are_not_reported_and_the_exported_tools_run(tmp_path: Path) -> None:
    """Builtins, imports, every kind of binding, locals and parameters: no false reports."""
    cells = [
        "import json\nimport os.path\nfrom pathlib import Path as P\nfrom mcp_notebook import tool, Context",
        "RATES = {k: v for k, v in [('a', 1), ('b', 2)]}\nfor LAST in range(3):\n    pass\n"
        "with open(os.path.devnull) as NULL:\n    pass\nif (LIMIT := 10) > 5:\n    pass\n"
        "try:\n    import tomllib as toml\nexcept ImportError as exc:\n    toml = None\n"
        "class Scale:\n    factor = 3\n    def apply(self, x: int) -> int:\n        return self.factor * x\n"
        "def configure() -> None:\n    global CONFIGURED\n    CONFIGURED = True\n\nconfigure()",
        "@tool\ndef rate(name: str, ctx: Context) -> int:\n"
        "    '''A rate by name.'''\n"
        "    total = sum(RATES[k] for k in RATES if k == name)\n"
        "    squares = [n * n for n in range(LAST)]\n"
        "    def inner() -> int:\n        nonlocal total\n        total += 1\n        return total\n"
        "    scale = lambda y: Scale().apply(y)  # noqa: E731\n"
        "    match name:\n        case 'a' as chosen:\n            pass\n        case _:\n            chosen = name\n"
        "    assert json.dumps(chosen) and P('.').name == '' and CONFIGURED and LIMIT and NULL.closed\n"
        "    return scale(inner()) + len(squares) + len(__name__) * 0 + ctx.__class__.__name__.count('x')",
    ]
    path = notebook(tmp_path, *cells)
    done = export(path, "-o", tmp_path / "app.py")
    assert done.returncode == 0, done.stderr
    # Called outside any kernel: every name it reads resolves. 3 * (1 + 1) + len([0, 1]).
    ran = run_module(tmp_path, "app", "print(app.rate('a', None))")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split()[-1] == "8"


# -- 3. a folder that does not exist ---------------------------------------------------------------


def test_export_into_a_missing_folder_says_so_without_a_traceback_and_leaves_nothing(tmp_path: Path) -> None:
    path = notebook(tmp_path, TOOL)
    for target in (tmp_path / "no" / "such" / "dir" / "app.py", tmp_path / "missing" / ".." / "app.py"):
        done = export(path, "-o", target)
        assert done.returncode == 2
        assert "Traceback" not in done.stderr and "FileNotFoundError" not in done.stderr
        assert f"cannot write {target}: the folder {target.parent} does not exist" in done.stderr
        assert "Create it" in done.stderr and "Nothing was written" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nb.ipynb"]  # no temporary file, no folder


# -- 4. what the report says -------------------------------------------------------------------------


def test_the_report_counts_cells_quotes_each_line_and_gives_every_problem_at_once(tmp_path: Path) -> None:
    path = notebook(
        tmp_path,
        # A set-up cell: what it defines, the tool needs; two lines of it need the kernel.
        "%load_ext mcp_notebook\nimport mcp_notebook\nSTATIONS = ['north', 'south']\n"
        "srv = mcp_notebook.serve()\n!ls",
        "from mcp_notebook import tool\n\n@tool\ndef stations() -> list[str]:\n    return STATIONS",
    )
    done = export(path)
    assert done.returncode == 1
    message = done.stderr
    assert "nb.ipynb cannot be exported: 1 cell needs changes (below)." in message
    assert "1 cells" not in message
    assert (
        "cell 1, line 4 ('srv = mcp_notebook.serve()'): it uses serve of the kernel's own server" in message
    )
    assert "cell 1, line 5 ('!ls'): a shell command (!...) needs IPython" in message
    advice = (
        "Do not tag the cell mcp-skip: its other lines give the app STATIONS. "
        "Remove this line, or move it to a cell of its own tagged mcp-skip."
    )
    assert message.count(advice) == 2 and "If the app does not need this cell" not in message

    path = notebook(
        tmp_path,
        TOOL,
        "ip = get_ipython()\nx = 1\nip.run_line_magic('who', '')",
        "value = 1\nprint(value\n",
        "srv = %mcp_serve\nprint(srv.url)",
        "print(srv.token)",
        name="many.ipynb",
    )
    done = export(path)
    message = done.stderr
    assert "many.ipynb cannot be exported: 2 cells need changes (below)." in message
    assert (
        "cell 2, line 1 ('ip = get_ipython()'): get_ipython() exists only in a kernel (it is the IPython "
        "shell), and an app has none: do without it. If the app does not need this cell, tag it mcp-skip."
    ) in message
    assert "cell 3, line 2 ('print(value'): it is not Python: " in message
    assert "Fix the line. If the app does not need this cell, tag it mcp-skip." in message
    # Said in the same run, not after the first is fixed. `srv = %mcp_serve` is left out of the app
    # (a try-out, not a problem); srv, which only it makes, is checked once cell 3 parses, since
    # what a cell defines cannot be known before: the report says so.
    assert "cell 4" not in message and "cell 5" not in message
    assert "Names read across cells" in message and "once cell 3 is Python" in message


def test_a_name_made_only_by_a_refused_line_is_reported_where_it_is_used(tmp_path: Path) -> None:
    path = notebook(tmp_path, TOOL, "ip = get_ipython()", "print(ip.user_ns)\ndisplay(ok())")
    message = export(path).stderr
    assert "2 cells need changes" in message
    assert (
        "cell 3, line 1 ('print(ip.user_ns)'): ip is made only by cell 2, line 1, which needs the kernel"
        in message
    )
    assert "cell 3, line 2 ('display(ok())'): display is defined in no exported cell" in message


# -- 4b. lines that try the notebook's server out -----------------------------------------------------

TRY_OUTS = [
    "%load_ext mcp_notebook",
    "srv = %mcp_serve --name demo",
    "%mcp_call ok",
    "answer = %mcp_call ok",
    "%mcp_read notes://a",
    "%mcp_prompt greet",
    "%mcp_tools",
    "%mcp_status",
    "%mcp_stop",
]


def test_lines_that_try_the_server_out_are_left_out_with_one_notice_each(tmp_path: Path) -> None:
    """A notebook as people write it: a tool, then the magics that serve, call and look at it."""
    path = notebook(tmp_path, TOOL + "\n" + "\n".join(TRY_OUTS[:4]), "\n".join(TRY_OUTS[4:]))
    done = export(path, "-o", "app.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    notices = [line for line in done.stderr.splitlines() if "is left out of the app" in line]
    expected = [(1, 7, TRY_OUTS[1]), (1, 8, TRY_OUTS[2]), (1, 9, TRY_OUTS[3])]
    expected += [(2, n, line) for n, line in enumerate(TRY_OUTS[4:], start=1)]
    assert notices == [
        f"mcp-notebook: note: nb.ipynb, cell {cell}, line {number} ({text!r}) is left out of the app: "
        f"%{text.split('%')[1].split()[0]} tries the notebook's own server out, and the app is the server."
        for cell, number, text in expected
    ]
    module = (tmp_path / "app.py").read_text()
    for line in TRY_OUTS[1:]:
        assert f"# {line}  (tries the notebook's server out: the app is the server)" in module
    ran = run_module(tmp_path, "app", "print(type(app.app).__name__)")  # imports without a kernel
    assert ran.returncode == 0, ran.stderr


def test_a_name_only_a_left_out_line_makes_is_reported_and_magics_in_a_body_are_refused(
    tmp_path: Path,
) -> None:
    path = notebook(
        tmp_path,
        TOOL,
        "srv = %mcp_serve\nanswer = %mcp_call ok",
        "print(srv.url)",
        "for _ in range(2):\n    %mcp_call ok",
    )
    done = export(path)
    assert done.returncode == 1
    assert (
        "cell 3, line 1 ('print(srv.url)'): srv is made only by cell 2, line 1 (%mcp_serve), which tries "
        "the notebook's server out and is left out of the app"
    ) in done.stderr
    assert "answer" not in done.stderr  # made, never read: nothing to say
    # Inside a loop the magic is no try-out line of its own: it needs IPython, and says so.
    assert "cell 4, line 2 ('%mcp_call ok'): %mcp_call calls a server from the notebook" in done.stderr


@pytest.mark.replicas
@pytest.mark.anyio
async def test_the_readme_tours_notebook_exports_and_serves_unchanged(tmp_path: Path) -> None:
    from tests import readme

    (tour,) = readme.blocks("python", section=readme.TOUR)
    done = export(notebook(tmp_path, tour.code), "-o", "app.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("is left out of the app") == 2  # %mcp_serve and %mcp_call
    with served(tmp_path, "app:app") as url:
        async with connect(url, "ana", "2026-07-28") as session:
            called = await session.call_tool("forecast", {"city": "Seoul"})
            assert called.structured_content == {"city": "Seoul", "temperature": 23, "unit": "C"}


def test_the_serve_hint_and_the_docstring_name_the_module_that_was_written(tmp_path: Path) -> None:
    path = notebook(tmp_path, TOOL)
    done = export(path, "-o", "app2.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Serve it: uvicorn app2:app " in done.stderr and "app:app" not in done.stderr.replace(
        "app2:app", ""
    )
    assert "as an ASGI app: uvicorn app2:app." in (tmp_path / "app2.py").read_text().splitlines()[0]
    (tmp_path / "out").mkdir()
    done = export(path, "-o", "out/svc.py", cwd=tmp_path)
    assert "Serve it: uvicorn --app-dir out svc:app " in done.stderr


@pytest.mark.replicas
@pytest.mark.anyio
async def test_the_module_the_hint_names_is_served_by_uvicorn(tmp_path: Path) -> None:
    done = export(notebook(tmp_path, TOOL), "-o", "app2.py", cwd=tmp_path)
    assert "uvicorn app2:app" in done.stderr
    with served(tmp_path, "app2:app") as url:
        async with connect(url, "ana", "2026-07-28") as session:
            called = await session.call_tool("ok", {})
            assert called.structured_content == {"result": "ok"}


# -- 5. files read by a relative path --------------------------------------------------------------


def test_a_file_read_by_a_relative_path_is_a_warning_naming_the_cell_and_the_folder(tmp_path: Path) -> None:
    (tmp_path / "prices.json").write_text('{"tea": 3}')
    (tmp_path / "data.csv").write_text("a\n1\n")
    path = notebook(
        tmp_path,
        "import json\nfrom pathlib import Path\nPRICES = json.load(open('prices.json'))",
        TOOL + "\n\n@tool\ndef rows() -> str:\n    return Path('data.csv').read_text()",
        "LOG = open('not-there.txt', 'a')\nNULL = open('/dev/null')",  # not beside it, absolute: no warning
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = export(path, "-o", elsewhere / "app.py")
    assert done.returncode == 0, done.stderr
    assert "Wrote" in done.stderr
    warnings = [line for line in done.stderr.splitlines() if "warning:" in line]
    assert len(warnings) == 2, done.stderr
    assert (
        f"cell 1, line 3 reads 'prices.json' by a relative path, which the app finds only when it is started in {tmp_path}"
        in warnings[0]
    )
    assert "Path(__file__).parent / 'prices.json'" in warnings[0]
    assert "cell 2, line 9 reads 'data.csv'" in warnings[1]
    # What the warning is about: started from its own folder, the app does not find the file.
    ran = run_module(elsewhere, "app", "pass")
    assert ran.returncode != 0 and "prices.json" in ran.stderr


# -- 6. nothing to serve; lesson checkers ----------------------------------------------------------


def test_a_notebook_with_nothing_to_serve_fails_saying_so(tmp_path: Path) -> None:
    path = notebook(tmp_path, "from mcp_notebook import tool\n\n# @tool\n# def answer() -> str:\n#     ...")
    done = export(path, "-o", tmp_path / "app.py")
    assert done.returncode == 1 and not (tmp_path / "app.py").exists()
    assert "nb.ipynb has no tool, resource or prompt to serve" in done.stderr
    assert "fill in the exercise answers" in done.stderr and "Nothing was written" in done.stderr


def test_lesson_checkers_are_reported_as_lines_that_need_the_kernel(tmp_path: Path) -> None:
    path = notebook(
        tmp_path,
        "%load_ext mcp_notebook\nfrom mcp_notebook.lessons.ch01 import q1, q2",
        TOOL,
        "q1_answer = 'tool'\nq1.check()",
    )
    done = export(path, "-o", tmp_path / "app.py")
    assert done.returncode == 1 and not (tmp_path / "app.py").exists()
    message = done.stderr
    assert "2 cells need changes" in message
    assert (
        "cell 1, line 2 ('from mcp_notebook.lessons.ch01 import q1, q2'): it imports mcp_notebook.lessons.ch01"
        in message
    )
    assert "cell 3, line 2 ('q1.check()'): q1 comes from the lessons (cell 1, line 2)" in message


# -- 7. MCP Apps: views and the tools bound to them -----------------------------------------------

APP_CELLS = (
    "import pandas as pd\nfrom mcp_notebook import app_from, app_resource, tool",
    "VIEW = app_resource(\n    'ui://orders/view',\n    path='view.html',\n"
    "    csp={'connectDomains': ['https://api.example.com']},\n)",
    "@tool(read_only=True, app=VIEW)\ndef order(number: int) -> dict:\n"
    "    '''One order, with a view.'''\n    return {'number': number, 'status': 'sent'}",
    "MENU = pd.DataFrame({'name': ['tea', '<b>rice</b>'], 'price': [3, 1]})\napp_from(MENU, name='menu')",
)
VIEW_HTML = "<!doctype html><html><body><p>order</p></body></html>"


@pytest.mark.replicas
@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])  # auto: discovers 2026-07-28
async def test_an_app_view_and_the_tools_bound_to_it_export_and_serve_the_same(
    tmp_path: Path, mode: str
) -> None:
    import mcp_types as types

    (tmp_path / "view.html").write_text(VIEW_HTML, encoding="utf-8")
    done = export(notebook(tmp_path, *APP_CELLS), "-o", "app.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "cell 2, line 3 reads 'view.html' by a relative path" in done.stderr  # found where the app starts
    with served(tmp_path, "app:app") as url:
        async with connect(url, "ana", mode) as session:
            tools = {tool.name: tool.meta for tool in (await session.list_tools()).tools}
            read = (await session.read_resource("ui://orders/view")).contents[0]
            table = (await session.read_resource("ui://menu/table")).contents[0]
            called = await session.call_tool("order", {"number": 7})
            rows = await session.call_tool("menu_rows", {"sort_by": "price"})
            discovered = session.session.discover_result
    assert tools == {
        "order": {"ui": {"resourceUri": "ui://orders/view"}},
        "menu": {"ui": {"resourceUri": "ui://menu/table", "visibility": ["model", "app"]}},
        "menu_rows": {"ui": {"resourceUri": "ui://menu/table", "visibility": ["app"]}},
    }
    assert isinstance(read, types.TextResourceContents) and read.text == VIEW_HTML
    assert read.mime_type == "text/html;profile=mcp-app"
    assert read.meta == {"ui": {"csp": {"connectDomains": ["https://api.example.com"]}}}
    assert isinstance(table, types.TextResourceContents) and "<b>rice" not in table.text
    assert called.structured_content == {"number": 7, "status": "sent"}
    assert rows.structured_content is not None and rows.structured_content["rows"][0]["name"] == "<b>rice</b>"
    if mode == "auto":
        assert discovered is not None and discovered.capabilities.extensions is not None
        assert "io.modelcontextprotocol/ui" in discovered.capabilities.extensions


def test_an_exported_app_whose_tool_is_bound_to_no_view_stops_at_import_saying_so(tmp_path: Path) -> None:
    bound = "from mcp_notebook import tool\n\n@tool(read_only=True, app='ui://gone/view')\ndef lost() -> str:\n    return 'x'"
    done = export(notebook(tmp_path, bound), "-o", "app.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ran = run_module(tmp_path, "app", "pass")
    assert ran.returncode != 0
    assert "'lost' → 'ui://gone/view'" in ran.stderr and "app_resource" in ran.stderr
