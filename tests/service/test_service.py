"""An exported notebook served like a service: uvicorn and gunicorn workers, settings, OAuth.

The example notebook is exported with the real CLI and served by real uvicorn / gunicorn
processes; real SDK clients of both eras call it. Settings that cannot work stop the app at start
with a message naming where the value came from and what to write. OAuth: tokens signed by a
test authorization server whose JWKS is served over HTTP (`tests.oauth`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import nbformat
import pytest

from mcp_notebook import asgi_app
from mcp_notebook.client._http import tls_context
from mcp_notebook.server._service_config import ServiceConfigError, load_config
from tests.exported import NOTEBOOK, connect, service_environ
from tests.oauth import RESOURCE, AuthorizationServer
from tests.security.conftest import post_modern, reply
from tests.services import Replica

pytestmark = pytest.mark.anyio


def export(notebook: Path, output: Path) -> subprocess.CompletedProcess[str]:
    """``mcp-notebook export NOTEBOOK -o OUTPUT``, the real command in a new process."""
    command = [sys.executable, "-m", "mcp_notebook.cli", "export", str(notebook), "-o", str(output)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("exported")
    done = export(NOTEBOOK, folder / "app.py")
    assert done.returncode == 0, done.stderr
    assert "Wrote" in done.stderr  # said on stderr, as every status
    assert f"uvicorn --app-dir {folder} app:app" in done.stderr  # written elsewhere: where uvicorn finds it
    return folder


def test_the_exported_module_needs_no_kernel_ipython_or_widgets(exported: Path) -> None:
    environ = service_environ(exported, f"sqlite:///{exported / 'state.sqlite3'}")
    probe = (
        "import sys; sys.path.insert(0, '.'); import app; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'IPython', 'ipykernel', 'ipywidgets', "
        "'jupyter_client', 'zmq'}), type(app.app).__name__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=exported, env=environ, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "ServiceApp"]


@pytest.mark.replicas
@pytest.mark.parametrize("server", ["uvicorn", "gunicorn"])
async def test_the_exported_example_is_served_by_four_workers_to_clients_of_both_eras(
    exported: Path, server: str
) -> None:
    """``uvicorn app:app --workers 4`` (and gunicorn's ``-w 4``), as the README says to serve it.

    Whichever worker the kernel hands a connection to answers it: a 2026-07-28 request on its own,
    a 2025-11-25 session by taking it over from the shared store when another worker opened it.
    Half of the 2025-11-25 clients open a new connection for every request, so their sessions go
    through every worker; not one request fails.
    """
    environ = service_environ(exported, f"sqlite:///{exported / f'{server}.sqlite3'}")
    replica = Replica(exported, environ, workers=4, server=server)
    try:
        starts = [json.loads(line) for line in replica.lines.seen if '"event": "start"' in line]
        workers = {start["pid"] for start in starts}
        assert len(workers) == 4 and replica.pid not in workers  # four worker processes under one parent
        report = "\n".join(f"sale {n:06d}: tea x{n % 7 + 1}" for n in range(3000))
        served: dict[str, list[int]] = {}

        async def one(n: int, mode: str, fresh_connections: bool) -> None:
            client = f"client{n:02d}"
            transport = httpx2.AsyncHTTPTransport(limits=httpx2.Limits(max_keepalive_connections=0))
            async with connect(
                replica.url, client, mode, transport=transport if fresh_connections else None
            ) as session:
                pids = served.setdefault(client, [])
                for _ in range(5):  # 4 requests a round, 5 rounds, and the large result's read: 21
                    tools = {tool.name for tool in (await session.list_tools()).tools}
                    assert {"price", "open_cart", "confirm_order", "sales_report"} <= tools
                    price = await session.call_tool("price", {"item": "cake"})
                    assert price.structured_content == {"item": "cake", "price": 5}
                    answered_by = (await session.call_tool("served_by", {})).structured_content
                    assert answered_by["client"] == client  # type: ignore[index]
                    pids.append(answered_by["pid"])  # type: ignore[index]
                    kept = await session.call_tool("sales_report", {"rows": 3000})
                link = next(block for block in kept.content if block.type == "resource_link")
                read = await session.read_resource(str(link.uri))
                assert read.contents[0].text == report  # type: ignore[union-attr]

        async with anyio.create_task_group() as group:
            for n in range(8):
                mode = "legacy" if n < 6 else "2026-07-28"
                group.start_soon(one, n, mode, n % 2 == 0)
        assert set().union(*served.values()) <= workers
        # A new connection each time: sessions went through several workers. Which worker accepts a
        # connection is the kernel's choice (an idle machine often wakes the same one), so the proof
        # is that at least one such session was served by more than one worker, and never failed.
        fresh = [set(served[f"client{n:02d}"]) for n in (0, 2, 4)]
        assert any(len(pids) > 1 for pids in fresh), served
    finally:
        replica.stop()


@pytest.mark.replicas
async def test_a_question_on_a_session_several_workers_serve_fails_at_once_saying_why(exported: Path) -> None:
    """A 2025-11-25 client's answer to a tool's question may reach another worker than the one that
    asked: the question is refused at once, with what to do, rather than waited on in vain."""
    environ = service_environ(exported, f"sqlite:///{exported / 'questions.sqlite3'}")
    replica = Replica(exported, environ, workers=4)
    asked: list[str] = []

    async def answer(context: Any, params: Any) -> Any:
        from mcp import types

        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})

    try:
        transport = httpx2.AsyncHTTPTransport(limits=httpx2.Limits(max_keepalive_connections=0))
        async with connect(
            replica.url, "client10", "legacy", transport=transport, elicitation_callback=answer
        ) as session:
            pids = set()
            for _ in range(60):  # until a second worker has served the session (4**-60: never 60 misses)
                pids.add((await session.call_tool("served_by", {})).structured_content["pid"])  # type: ignore[index]
                if len(pids) > 1:
                    break
            assert len(pids) > 1
            cart = (
                await session.call_tool("open_cart", {"idempotency_key": "questions-cart-00001"})
            ).structured_content["result"]  # type: ignore[index]
            await session.call_tool("add_to_cart", {"cart": cart, "item": "tea", "idempotency_key": "questions-add-000001"})  # fmt: skip
            with anyio.fail_after(60):
                result = await session.call_tool(
                    "confirm_order", {"cart": cart, "idempotency_key": "questions-confirm-01"}
                )
    finally:
        replica.stop()
    assert result.is_error is True and asked == []
    said = result.content[0].text  # type: ignore[union-attr]
    assert "question (elicitation/create) was not sent" in said
    assert "one worker per process" in said and "2026-07-28 client" in said


@pytest.mark.replicas
def test_a_session_ended_through_one_worker_is_refused_by_every_worker(tmp_path: Path) -> None:
    """A DELETE through any process, or the idle expiry, ends a 2025-11-25 session for all of them:
    the record they take sessions over from is gone, and each answers the 404 that says what to do.
    Two processes sharing one SQLite store, as workers on one machine do."""
    from mcp_notebook.core._store import SESSIONS
    from mcp_notebook.core._store_url import open_store
    from tests.conftest import INITIALIZE, until
    from tests.exported import export_example, token_of

    database = tmp_path / "shared.sqlite3"
    environ = service_environ(
        # Long enough that a loaded machine does not expire a session between two of the test's
        # requests; short enough to see the idle expiry below.
        export_example(tmp_path),
        f"sqlite:///{database}",
        MCP_NOTEBOOK_SESSION_IDLE_TIMEOUT="12",
    )
    first, second = Replica(tmp_path, environ), Replica(tmp_path, environ)
    store = open_store(f"sqlite:///{database}")
    auth = {
        "Authorization": f"Bearer {token_of('client00')}",
        "Accept": "application/json, text/event-stream",
    }
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "price", "arguments": {"item": "tea"}}}  # fmt: skip

    def opened(http: httpx2.Client) -> dict[str, str]:
        answer = http.post(first.url, json=INITIALIZE, headers=auth)
        session = {"Mcp-Session-Id": answer.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
        http.post(first.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers={**auth, **session})  # fmt: skip
        return session

    def refused(http: httpx2.Client, url: str, session: dict[str, str]) -> bool:
        answer = http.post(url, json=call, headers={**auth, **session})
        return answer.status_code == 404 and "send initialize again" in answer.json()["error"]["message"]

    try:
        with httpx2.Client(verify=tls_context(), timeout=30) as http:
            session = opened(http)
            assert (
                http.post(second.url, json=call, headers={**auth, **session}).status_code == 200
            )  # taken over
            gone = http.delete(first.url, headers={**auth, **session})
            assert gone.status_code < 300, gone.text
            assert refused(http, second.url, session) and refused(http, first.url, session)

            session = opened(http)  # left alone: its record expires after the idle timeout (12 s)
            assert until(lambda: store.count(SESSIONS) == 0, timeout=60)
            assert refused(http, second.url, session)
    finally:
        store.close()
        first.stop()
        second.stop()


def test_a_notebook_that_needs_a_kernel_is_refused_cell_by_cell_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    notebook = nbformat.v4.new_notebook()
    cells = [
        "from mcp_notebook import tool\n\n@tool(read_only=True)\ndef ok() -> str:\n    return 'ok'",
        "srv = %mcp_serve",  # a try-out: left out with a notice, not refused
        "ip = get_ipython()",
        "!ls",
        "import asyncio\nawait asyncio.sleep(0)",
        "display(ok())",
        "%load_ext mcp_notebook",  # set-up only: fine
    ]
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nbformat.write(notebook, tmp_path / "needs_kernel.ipynb")
    output = tmp_path / "app.py"
    output.write_text("# an older export\n")
    done = export(tmp_path / "needs_kernel.ipynb", output)
    assert done.returncode != 0
    message = done.stderr
    assert "4 cells need changes" in message and "Nothing was written" in message
    assert "cell 2" not in message
    assert "cell 3, line 1 ('ip = get_ipython()'): get_ipython() exists only in a kernel" in message
    assert "cell 4, line 1 ('!ls'): a shell command" in message and "subprocess.run" in message
    assert "cell 5, line 2 ('await asyncio.sleep(0)'): top-level await runs only in a kernel" in message
    assert "cell 6, line 1 ('display(ok())'): display is defined in no exported cell" in message
    assert "cell 1" not in message and "cell 7" not in message
    assert output.read_text() == "# an older export\n"  # the file that was there is left as it was
    done = export(tmp_path / "needs_kernel.ipynb", tmp_path / "fresh.py")
    assert done.returncode != 0 and not (tmp_path / "fresh.py").exists()


TOKEN = {"MCP_NOTEBOOK_TOKEN": "owner-" + "o" * 30}


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"MCP_NOTEBOOK_MAX_SESSIONS": "many"}, ["MCP_NOTEBOOK_MAX_SESSIONS", "'many'", "a whole number above 0", "MCP_NOTEBOOK_MAX_SESSIONS=32"]),
        ({"MCP_NOTEBOOK_SESSION_IDLE_TIMEOUT": "-5"}, ["MCP_NOTEBOOK_SESSION_IDLE_TIMEOUT", "seconds above 0", "MCP_NOTEBOOK_SESSION_IDLE_TIMEOUT=600"]),
        ({"MCP_NOTEBOOK_STORE": "postgres://db/x"}, ["MCP_NOTEBOOK_STORE", "does not name a store", "redis://host:6379/0"]),
        ({"MCP_NOTEBOOK_STORE": "redis://cache:6379/0"}, ["shared by replicas", "MCP_NOTEBOOK_STATE_KEY", "secrets.token_urlsafe(32)"]),
        ({"MCP_NOTEBOOK_STATE_KEY": "short"}, ["at least 32 characters; this one has 5"]),
        ({"MCP_NOTEBOOK_APPROVAL": "ask"}, ["MCP_NOTEBOOK_APPROVAL", "'ask'", "one of 'unattended', 'auto'", "MCP_NOTEBOOK_APPROVAL=unattended"]),
        ({"MCP_NOTEBOOK_LOG_FORMAT": "xml"}, ["MCP_NOTEBOOK_LOG_FORMAT", "MCP_NOTEBOOK_LOG_FORMAT=json"]),
        ({"MCP_NOTEBOOK_OAUTH_ISSUER": "https://login.example.com"}, ["oauth.jwks_url", "MCP_NOTEBOOK_OAUTH_JWKS_URL"]),
        ({"MCP_NOTEBOOK_TOKEN": ""}, ["Nobody could call this app", "MCP_NOTEBOOK_CLIENTS_FILE"]),
        ({"MCP_NOTEBOOK_TOKEN": "short"}, ["MCP_NOTEBOOK_TOKEN", "has 5 characters", "at least 16"]),
    ],
)  # fmt: skip
def test_a_bad_setting_stops_the_app_saying_where_and_what_to_write(
    environ: dict[str, str], expected: list[str]
) -> None:
    with pytest.raises(ServiceConfigError) as raised:
        load_config({}, environ={**TOKEN, **environ})
    for part in expected:
        assert part in str(raised.value)


@pytest.mark.parametrize(
    ("environ", "audit"),
    [
        ({}, "-"),
        ({"MCP_NOTEBOOK_AUDIT_LOG": ""}, ""),  # set empty: an operator turning audit lines off
        ({"MCP_NOTEBOOK_AUDIT_LOG": "off"}, ""),
        ({"MCP_NOTEBOOK_AUDIT_LOG": "None"}, ""),
        ({"MCP_NOTEBOOK_AUDIT_LOG": "/var/log/mcp/audit.jsonl"}, "/var/log/mcp/audit.jsonl"),
    ],
)
def test_the_audit_log_can_be_turned_off_from_the_environment(environ: dict[str, str], audit: str) -> None:
    assert load_config({}, environ={**TOKEN, **environ}).server.audit_log == (audit or False)


def test_secrets_stay_out_of_the_config_file_and_away_from_other_users(tmp_path: Path) -> None:
    config = tmp_path / "service.toml"
    config.write_text('token = "owner-oooooooooooooooooooooooooooo"\n')
    with pytest.raises(ServiceConfigError, match="token_file") as raised:
        load_config({}, config=config, environ={})
    assert "MCP_NOTEBOOK_TOKEN" in str(raised.value)
    clients = tmp_path / "clients.json"
    clients.write_text(json.dumps({"ana": "a" * 24}))
    clients.chmod(0o644)
    with pytest.raises(ServiceConfigError, match="0o644"):
        load_config({}, environ={"MCP_NOTEBOOK_CLIENTS_FILE": str(clients)})
    config.write_text("[limits]\nmax_session = 3\n")
    with pytest.raises(ServiceConfigError, match=r"limits\.max_session\b.*limits\.max_sessions"):
        load_config({}, config=config, environ=TOKEN)


def test_files_named_in_the_config_file_are_found_beside_it_wherever_the_app_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_folder = tmp_path / "deploy"
    config_folder.mkdir()
    clients = config_folder / "clients.json"
    clients.write_text(json.dumps({"clients": {"ana": {"token": "a" * 24}}}))
    clients.chmod(0o600)
    config = config_folder / "service.toml"
    config.write_text('clients_file = "clients.json"\n[log]\naudit = "audit.jsonl"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # started from another folder, as a service manager does
    loaded = load_config({}, config=config, environ={})
    assert loaded.clients == {"ana": "a" * 24}
    assert loaded.server.audit_log == str(config_folder / "audit.jsonl")
    config.write_text(f'clients_file = "{clients}"\n')  # an absolute path stays as written
    assert load_config({}, config=config, environ={}).clients == {"ana": "a" * 24}
    missing = config_folder / "nope.json"
    config.write_text('clients_file = "nope.json"\n')
    with pytest.raises(ServiceConfigError, match=str(missing)):  # the path it looked at
        load_config({}, config=config, environ={})


def test_a_tool_allowed_by_a_name_the_app_does_not_have_is_refused(tmp_path: Path) -> None:
    from mcp_notebook import Catalogue, tool

    catalogue = Catalogue()

    @tool(catalogue=catalogue)
    def place_order(cart: str) -> str:
        """Place an order."""
        return cart

    with pytest.raises(ServiceConfigError, match="'place_ordr'") as raised:
        asgi_app(catalogue, environ={**TOKEN, "MCP_NOTEBOOK_ALLOW_TOOLS": "place_ordr"})
    assert "'place_order'" in str(raised.value)  # the names it has


def uvicorn_once(folder: Path, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``uvicorn app:app`` in `folder`, for an app that should not start: how it ended, what it said."""
    command = [sys.executable, "-m", "uvicorn", "app:app", "--port", "0"]
    return subprocess.run(command, cwd=folder, env=environ, capture_output=True, text=True, timeout=120)


@pytest.mark.replicas
def test_uvicorn_with_a_bad_setting_exits_with_the_message(exported: Path) -> None:
    environ = {**service_environ(exported, "sqlite://"), "MCP_NOTEBOOK_MAX_REQUEST_BYTES": "4MB"}
    done = uvicorn_once(exported, environ)
    assert done.returncode != 0
    assert "MCP_NOTEBOOK_MAX_REQUEST_BYTES: limits.max_request_bytes cannot be '4MB'" in done.stderr


@pytest.mark.replicas
@pytest.mark.parametrize("where", ["sqlite", "redis"])
def test_a_store_that_cannot_work_stops_the_app_at_start_saying_why(
    exported: Path, tmp_path: Path, where: str
) -> None:
    """Not a server that answers one era and fails the other's calls later, as the store opens."""
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    store = f"sqlite:///{a_file / 'state.sqlite3'}" if where == "sqlite" else "redis://127.0.0.1:1/0"
    environ = service_environ(exported, store)
    done = uvicorn_once(exported, environ)
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert "cannot be used" in said and "the app does not start" in said, said
    assert "Traceback" not in said  # one line saying why, not a stack


@pytest.mark.replicas
def test_the_app_tells_clients_it_is_an_app_and_where_tokens_come_from(exported: Path) -> None:
    """Not a live notebook whose token is ``srv.token``: nobody who calls a service has a kernel."""
    from tests.conftest import INITIALIZE
    from tests.exported import token_of

    replica = Replica(exported, service_environ(exported, f"sqlite:///{exported / 'speaks.sqlite3'}"))
    try:
        with httpx2.Client(verify=tls_context(), timeout=30) as http:
            accept = {"Accept": "application/json, text/event-stream"}
            refused = http.post(replica.url, json=INITIALIZE, headers=accept)
            answer = http.post(
                replica.url,
                json=INITIALIZE,
                headers={**accept, "Authorization": f"Bearer {token_of('client01')}"},
            )
    finally:
        replica.stop()
    said = refused.json()["error"]["message"]
    assert refused.status_code == 401 and "operator" in said and "srv.token" not in said
    result = reply(answer)["result"]
    assert "notebook is edited" not in result["instructions"] and "operator" in result["instructions"]
    assert result["serverInfo"]["title"] == "Notebook tools, served as an app"


@pytest.mark.replicas
async def test_the_operators_log_says_what_the_app_serves_and_why_a_tool_failed(tmp_path: Path) -> None:
    """The client gets the error result; the operator, who has only the log, gets why. At start the
    log counts what is served, and says which tools asked for a kernel the app does not have."""
    from mcp_notebook.cli._export import export_notebook

    cells = [
        "from mcp_notebook import prompt, publish, tool",
        '''@tool(read_only=True)
def ratio(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b''',
        'publish("a / b, rounded to 3 places", "notes://ratio", name="ratio-notes")',
        '''@tool(read_only=True, run_in="kernel")
def plot_ratio(a: int, b: int) -> str:
    """Plot a ratio (in a notebook, on the kernel's main thread)."""
    return f"plotted {a}/{b}"''',
        '''@prompt
def explain(a: int, b: int) -> str:
    """Explain a ratio."""
    return f"Explain what {a}/{b} means."''',
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in cells])
    nbformat.write(notebook, tmp_path / "ratios.ipynb")
    (tmp_path / "app.py").write_text(export_notebook(tmp_path / "ratios.ipynb"), encoding="utf-8")
    environ = service_environ(
        tmp_path, f"sqlite:///{tmp_path / 'state.sqlite3'}", MCP_NOTEBOOK_ALLOW_TOOLS=""
    )
    replica = Replica(tmp_path, environ)
    try:
        async with connect(replica.url, "client01", "2026-07-28") as client:
            failed = await client.call_tool("ratio", {"a": 1, "b": 0})
            plotted = await client.call_tool("plot_ratio", {"a": 1, "b": 2})
    finally:
        replica.stop()
    assert failed.is_error is True and "ZeroDivisionError: division by zero" in failed.content[0].text  # type: ignore[union-attr]
    logged = [json.loads(line) for line in replica.lines.rest() if line.startswith("{")]
    (start,) = [entry for entry in logged if entry.get("event") == "start"]
    assert "Tools: 2, resources: 1, resource templates: 0, prompts: 1" in start["message"]
    (no_kernel,) = [entry for entry in logged if entry.get("event") == "run_in"]
    assert no_kernel["level"] == "warning" and no_kernel["tools"] == ["plot_ratio"]
    assert plotted.content[0].text == "plotted 1/2"  # type: ignore[union-attr]  # on a thread, still served
    assert start["resources"] == ["ratio-notes"] and start["prompts"] == ["explain"]
    (raised,) = [entry for entry in logged if "raised" in entry.get("message", "")]
    assert raised["level"] == "warning" and "'ratio'" in raised["message"]
    assert "ZeroDivisionError" in raised["error"] and "return a / b" in raised["error"]


# -- OAuth 2.1 resource server -------------------------------------------------------------------


@pytest.mark.replicas
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_an_access_token_from_the_authorization_server_is_accepted(
    oauth_app: Any, authority: AuthorizationServer, mode: str
) -> None:
    import mcp
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {authority.token(subject='ana')}"}
    async with (
        httpx2.AsyncClient(verify=tls_context(), headers=headers) as http,
        mcp.Client(streamable_http_client(oauth_app.url, http_client=http), mode=mode) as client,
    ):
        result = await client.call_tool("served_by", {})
    assert result.structured_content["client"] == "oauth:ana"  # type: ignore[index]


@pytest.mark.replicas
def test_protected_resource_metadata_names_the_authorization_server(
    oauth_app: Any, authority: AuthorizationServer
) -> None:
    response = httpx2.get(f"http://127.0.0.1:{oauth_app.port}/.well-known/oauth-protected-resource/mcp")
    assert response.status_code == 200
    metadata = response.json()
    assert metadata["resource"] == RESOURCE
    assert [server.rstrip("/") for server in metadata["authorization_servers"]] == [authority.issuer]
    assert metadata["scopes_supported"] == ["mcp:tools"]


@pytest.mark.replicas
def test_no_token_or_a_token_without_the_scope_gets_the_specs_challenge(
    oauth_app: Any, authority: AuthorizationServer
) -> None:
    metadata = f'resource_metadata="{"https://orders.example.test/.well-known/oauth-protected-resource/mcp"}"'
    bare = httpx2.post(oauth_app.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert bare.status_code == 401
    assert (
        bare.headers["www-authenticate"].startswith("Bearer ")
        and metadata in bare.headers["www-authenticate"]
    )
    narrow = post_modern(oauth_app, "tools/list", {}, token=authority.token(scope="profile"))
    assert narrow.status_code == 403
    challenge = narrow.headers["www-authenticate"]
    assert (
        'error="insufficient_scope"' in challenge
        and 'scope="mcp:tools"' in challenge
        and metadata in challenge
    )


@pytest.mark.replicas
def test_static_client_tokens_work_beside_oauth(oauth_app: Any) -> None:
    answer = post_modern(
        oauth_app, "tools/call", {"name": "served_by", "arguments": {}}, token="client03-" + "t" * 24
    )
    assert answer.status_code == 200
    assert reply(answer)["result"]["structuredContent"]["client"] == "client03"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="makes a file root's: needs root")
def test_a_secret_handed_over_by_the_platform_through_the_group_is_read(tmp_path: Path) -> None:
    """Kubernetes secret volumes are root's files, 0440, of the pod's group (deploy/kubernetes.yaml)."""
    key = tmp_path / "state.key"
    key.write_text("k" * 40)
    os.chown(key, 0, os.getegid())
    key.chmod(0o440)
    assert load_config({}, environ={**TOKEN, "MCP_NOTEBOOK_STATE_KEY_FILE": str(key)}).state_keys == (
        b"k" * 40,
    )
    for open_mode in (0o444, 0o460):  # readable by others, or writable by the group: refused
        key.chmod(open_mode)
        with pytest.raises(ServiceConfigError, match="other users can read it"):
            load_config({}, environ={**TOKEN, "MCP_NOTEBOOK_STATE_KEY_FILE": str(key)})


def test_the_readme_config_file_names_only_settings_that_exist() -> None:
    import tomllib

    from mcp_notebook.server._service_config import SETTINGS
    from tests import readme

    (block,) = readme.blocks("toml")
    data = tomllib.loads(block.code)
    written = {f"{table}.{key}" for table, value in data.items() if isinstance(value, dict) for key in value}
    written |= {key for key, value in data.items() if not isinstance(value, dict)}
    assert written <= {path for path, *_ in SETTINGS.values()}, written - {p for p, *_ in SETTINGS.values()}


@pytest.mark.replicas
async def test_an_unattended_app_says_at_start_what_runs_and_refuses_the_rest(exported: Path) -> None:
    environ = service_environ(exported, f"sqlite:///{exported / 'unattended.sqlite3'}")
    del environ["MCP_NOTEBOOK_ALLOW_TOOLS"]  # nothing allowed by name: only the read-only tools run
    replica = Replica(exported, environ)
    try:
        async with connect(replica.url, "client01", "2026-07-28") as client:
            price = await client.call_tool("price", {"item": "tea"})
            refused = await client.call_tool("open_cart", {"idempotency_key": "unattended-key-00001"})
    finally:
        replica.stop()
    lines = [line for line in replica.lines.rest() if line.strip()]
    logged = [json.loads(line) for line in lines]  # JSON lines, every one of them
    assert "Started server process" in logged[0]["message"]
    (approval,) = [entry for entry in logged if entry.get("event") == "approval"]
    assert approval["runs"] == ["price", "cart_total", "sales_report", "served_by"]
    assert approval["refused"] == ["open_cart", "add_to_cart", "place_order", "confirm_order"]
    assert "MCP_NOTEBOOK_ALLOW_TOOLS" in approval["message"]
    assert price.is_error is False
    assert refused.is_error is True
    said = refused.content[0].text  # type: ignore[union-attr]
    assert "'open_cart' was refused without running" in said and "MCP_NOTEBOOK_ALLOW_TOOLS" in said


@pytest.mark.replicas
def test_workers_sharing_a_sqlite_store_are_told_what_it_costs_and_what_to_use(exported: Path) -> None:
    """Store-bound calls take the file's one write lock: past a few workers, Redis is the store."""
    environ = service_environ(exported, f"sqlite:///{exported / 'shared-by-two.sqlite3'}")
    first = Replica(exported, environ)
    try:
        second = Replica(exported, environ)  # a second worker or replica on the same file
        second.stop()
    finally:
        first.stop()

    def said(replica: Replica) -> list[dict[str, Any]]:
        logged = [json.loads(line) for line in replica.lines.rest() if line.strip()]
        return [entry for entry in logged if entry.get("event") == "store_shared"]

    assert said(first) == []  # alone on the file when it started: nothing to say
    (notice,) = said(second)
    assert notice["processes"] == 2 and notice["level"] == "warning"
    assert "2 processes share the SQLite store" in notice["message"]
    assert "MCP_NOTEBOOK_STORE=redis://" in notice["message"]
