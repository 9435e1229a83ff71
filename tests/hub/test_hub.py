"""A class on a real JupyterHub: each student's in-kernel MCP server through the hub's URL and login.

One hub for the run (the session fixture ``classroom``; PyPI's jupyterhub, npm's configurable-http-proxy, the dummy authenticator,
the simple local process spawner), three students whose notebooks each run ``%mcp_serve``, an
instructor, and the class's progress service. Clients are the real SDK in both eras, holding
tokens the hub minted, exactly as a student's token page would.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.conftest import ERAS, INITIALIZE, Mode
from tests.hub.hub import Classroom, wait_until
from tests.jupyter.servers import SERVE, connect

pytestmark = [pytest.mark.hub, pytest.mark.kernel]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.anyio
async def test_a_students_hub_token_lists_and_calls_their_tools(classroom: Classroom, mode: Mode) -> None:
    async with connect(classroom.mcp_url("alice"), classroom.tokens["alice"], mode) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == ["whoami", "add_row", "slow"]
        result = await client.call_tool("whoami", {})
    assert (
        result.content[0].text == "jupyter:alice"
    )  # the student the hub logged in, not the notebook's owner


def test_the_hubs_own_token_scheme_works_for_a_post_without_xsrf(classroom: Classroom) -> None:
    """``Authorization: token T`` (JupyterHub's spelling) as well as Bearer; a token-authenticated
    POST needs no XSRF cookie."""
    answer = httpx.post(
        classroom.mcp_url("bob"),
        json=INITIALIZE,
        headers={
            "Authorization": f"token {classroom.tokens['bob']}",
            "Accept": "application/json, text/event-stream",
        },
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    assert answer.headers["mcp-session-id"]


def test_no_token_gets_401_and_never_reaches_a_kernel(classroom: Classroom) -> None:
    before = classroom.requests_seen("carol")
    post = httpx.post(classroom.mcp_url("carol"), json=INITIALIZE)
    get = httpx.get(classroom.mcp_url("carol"), headers={"Accept": "text/event-stream"})
    assert post.status_code == 401 and post.headers["www-authenticate"].startswith("Bearer")
    assert get.status_code in (401, 302)
    assert classroom.requests_seen("carol") == before


def test_an_approval_in_the_students_notebook_is_answered_by_a_click(classroom: Classroom) -> None:
    kernel = classroom.kernels["alice"]
    box: list[Any] = []

    async def call() -> None:
        async with connect(classroom.mcp_url("alice"), classroom.tokens["alice"], "auto") as client:
            box.append(await client.call_tool("add_row", {"item": "pen"}))

    async def scenario() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            prompt = await anyio.to_thread.run_sync(
                lambda: kernel.wait_for_comm(
                    lambda state: (
                        state.get("_model_name") == "ButtonModel" and state.get("description") == "Approve"
                    )
                )
            )
            # A browser shows the button once the row that holds it exists (made after its handler
            # is attached), so the click waits for that row, as a student's would.
            await anyio.to_thread.run_sync(
                lambda: kernel.wait_for_comm(
                    lambda state: f"IPY_MODEL_{prompt['comm_id']}" in state.get("children", [])
                )
            )
            kernel.click(prompt["comm_id"])  # what the browser sends when the student clicks

    anyio.run(scenario)
    assert box[0].content[0].text == "added pen for jupyter:alice"


def test_client_config_on_the_hub_gives_the_hub_url_and_how_to_make_a_token(classroom: Classroom) -> None:
    kernel = classroom.kernels["alice"]
    text = kernel.json('srv.client_config("claude-code")')
    config = json.loads(text.split("\n\n", 1)[1])["mcpServers"]["notebook"]
    assert config["url"] == classroom.mcp_url("alice")
    assert config["headers"] == {"Authorization": "Bearer <YOUR-HUB-TOKEN>"}
    assert f"{classroom.hub.url}/hub/token" in text and "access:servers!user=alice" in text
    assert kernel.json("srv.token") not in text and kernel.json("srv.clients") == []


def test_check_goes_through_the_hub(classroom: Classroom) -> None:
    kernel = classroom.kernels["alice"]
    token = classroom.tokens["alice"]
    with_token = kernel.json(f"(lambda r: [r.ok, r.kind, r.message])(srv.check(token={token!r}))")
    assert with_token[0], with_token
    assert classroom.mcp_url("alice") in with_token[2]
    own = kernel.json("(lambda r: [r.ok, r.message])(srv.check())")  # the server's own hub token
    assert own[0], own
    wrong = kernel.json("(lambda r: [r.ok, r.kind])(srv.check(token='not-a-hub-token-at-all'))")
    assert wrong == [False, "origin"]  # the hub's 403 for a token it does not know


def test_the_instructor_sees_the_class_table_and_a_student_does_not(classroom: Classroom) -> None:
    classroom.kernels["alice"].run(
        "from mcp_notebook.lessons.ch00 import q4\nq4.check('tools/call')\nq4.check('tools/list')"
    ).raise_for_error()
    classroom.kernels["bob"].run(
        "from mcp_notebook.lessons.ch00 import q4\nq4.check('tools/call')"
    ).raise_for_error()
    table_url = f"{classroom.hub.url}/services/mcp-progress/api/table"

    def table(who: str) -> httpx.Response:
        return httpx.get(table_url, headers={"Authorization": f"token {classroom.tokens[who]}"}, timeout=30)

    seen = table("teacher")
    assert seen.status_code == 200, seen.text
    students = seen.json()["students"]
    # Only alice's and bob's rows: a security test may have added a row of its own user (mallory).
    assert seen.json()["exercises"] == ["00/q4"] and {name: students[name] for name in ("alice", "bob")} == {
        "alice": {"00/q4": {"outcome": "correct", "attempts": 2}},
        "bob": {"00/q4": {"outcome": "incorrect", "attempts": 1}},
    }
    assert "carol" not in students  # she checked nothing
    assert table("dean").json() == seen.json()  # a hub admin, not in the group
    refused = table("alice")
    assert refused.status_code == 403 and "instructors" in refused.json()["message"]
    # Not even with all of a student's own permissions, nor with none.
    everything = httpx.get(
        table_url, headers={"Authorization": f"token {classroom.hub.token_for('bob')}"}, timeout=30
    )
    assert everything.status_code == 403
    assert httpx.get(table_url, timeout=30).status_code == 401
    browser = httpx.get(f"{classroom.hub.url}/services/mcp-progress/", timeout=30)
    assert browser.status_code == 302 and "/hub/" in browser.headers["location"]  # the hub's login
    page = httpx.get(
        f"{classroom.hub.url}/services/mcp-progress/",
        headers={"Authorization": f"token {classroom.tokens['teacher']}"},
        timeout=30,
    )
    assert page.status_code == 200 and "alice" in page.text and "✔ 2" in page.text
    # The student's own record, on the student's side: never the answer.
    local = next(classroom.hub.home("alice").rglob("progress.jsonl")).read_text()
    assert '"outcome": "correct"' in local and "tools/list" not in local and "tools/call" not in local


def test_a_malformed_record_is_refused_with_what_to_fix(classroom: Classroom) -> None:
    url = f"{classroom.hub.url}/services/mcp-progress/api/records"
    bad = {
        "chapter": "../00",
        "exercise": "q1",
        "outcome": "correct",
        "attempts": 1,
        "time": "2026-01-01T00:00:00Z",
    }
    answer = httpx.post(
        url,
        json={"records": [bad]},
        headers={"Authorization": f"token {classroom.tokens['bob']}"},
        timeout=30,
    )
    assert answer.status_code == 400
    assert "record 0: chapter must be 1-32 letters" in answer.json()["message"]
    nobody = httpx.post(url, json={"records": [bad]}, timeout=30)
    assert nobody.status_code == 401 and "Authorization: token" in nobody.json()["message"]


def _memory(pid: int) -> dict[str, float]:
    """Resident and proportional memory of process `pid`, in MiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))
    rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    pss = int(next(line.split()[1] for line in rollup.splitlines() if line.startswith("Pss:")))
    return {"rss_mib": round(rss / 1024, 1), "pss_mib": round(pss / 1024, 1)}


def test_memory_of_one_student_server(classroom: Classroom) -> None:
    """Measured for classroom/README.md ("Capacity"): a student's Jupyter server; a fresh kernel in
    it bare, with ``%mcp_serve`` running and called, and with what the lessons' chapters import
    (pandas, matplotlib, one figure drawn); and, once for the whole class, the hub and its proxy."""
    server_pid, served_pid = classroom.kernels["carol"].json(
        "[__import__('os').getppid(), __import__('os').getpid()]"
    )
    kernel_id, kernel = classroom.hub.start_kernel("carol")
    try:
        pid = int(kernel.json("__import__('os').getpid()"))
        stages = {"kernel_bare": _memory(pid)}
        kernel.run(SERVE.replace("--name shop", "--name measure"), timeout=120).raise_for_error()
        kernel.run(
            "for _ in range(20):\n    get_ipython().run_line_magic('mcp_call', 'whoami')"
        ).raise_for_error()
        stages["kernel_with_mcp_serve"] = _memory(pid)
        kernel.run(
            "import pandas as pd, matplotlib\nmatplotlib.use('agg')\nimport matplotlib.pyplot as plt\n"
            "pd.DataFrame({'x': range(100)}).plot()\nplt.close('all')",
            timeout=120,
        ).raise_for_error()
        stages["kernel_with_lesson_imports"] = _memory(pid)
    finally:
        kernel.shutdown()
        classroom.hub.stop_kernel("carol", kernel_id)
    figures = {
        "server": _memory(server_pid),
        "kernel_serving_shop": _memory(served_pid),
        **stages,
        "hub": _memory(classroom.hub.process.pid),
        "proxy": _memory(int((classroom.hub.folder / "proxy.pid").read_text())),
    }
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "hub-memory.json").write_text(json.dumps(figures, indent=2))
    print(f"\none student server: {json.dumps(figures)}")
    # What the README's arithmetic rests on: serving adds to a kernel, the lessons' imports add more.
    bare, serving, lesson = (stages[name]["rss_mib"] for name in stages)
    assert 0 < bare < serving < lesson


def test_stopping_a_students_server_frees_its_port_and_leaves_the_others(classroom: Classroom) -> None:
    others = ("bob", "carol")
    probe = "[srv.port, __import__('os').getpid(), len(srv.activity)]"
    before = {name: classroom.kernels[name].json(probe) for name in others}
    mcp_port = int(classroom.kernels["alice"].json("srv.port"))
    classroom.kernels["alice"].shutdown()
    del classroom.kernels["alice"]
    classroom.hub.stop_server("alice")

    def refused(port: int) -> bool:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP) as probe_socket:
            probe_socket.settimeout(2)
            return probe_socket.connect_ex(("127.0.0.1", port)) != 0

    wait_until(lambda: refused(mcp_port), 30, "alice's in-kernel server still listens")
    gone = httpx.post(
        classroom.mcp_url("alice"),
        json=INITIALIZE,
        headers={"Authorization": f"Bearer {classroom.tokens['alice']}"},
    )
    assert gone.status_code != 200

    async def still_works(name: str) -> str:
        async with connect(classroom.mcp_url(name), classroom.tokens[name], "auto") as client:
            return str((await client.call_tool("whoami", {})).content[0].text)

    for name in others:
        port, pid, seen = before[name]
        assert not refused(port), f"{name}'s in-kernel server stopped with alice's"
        assert anyio.run(still_works, name) == f"jupyter:{name}"
        # The same kernel and the same server, not a restarted one: same process, same port, and its
        # activity log kept what it had.
        after = classroom.kernels[name].json(probe)
        assert after[:2] == [port, pid] and after[2] > seen
