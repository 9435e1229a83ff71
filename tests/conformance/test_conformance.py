"""The official MCP conformance suite against a notebook served by ``mcp-notebook serve``, in both eras.

`conformance_fixture.ipynb` defines every fixture the suite calls, as ordinary notebook functions.
The suite (`@modelcontextprotocol/conformance`, pinned below) runs each spec revision's required
scenarios (``--requirements 2025-11-25`` and ``--requirements 2026-07-28``): every scored scenario
must pass; what the suite also runs unscored and fails is listed with its reason in
`expected-failures.yaml` (the suite itself fails the run on any other failure, or on a listed one
that passes).
"""

from __future__ import annotations

import http.client
import http.server
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.headless import Headless
from tests.npm import node_command

pytestmark = pytest.mark.kernel

CONFORMANCE = "@modelcontextprotocol/conformance"
CONFORMANCE_VERSION = "0.2.0-alpha.12"
HERE = Path(__file__).parent
FIXTURE = HERE / "conformance_fixture.ipynb"
EXPECTED_FAILURES = HERE / "expected-failures.yaml"
TOKEN = "conformance-fixture-token"
REVISIONS = ["2025-11-25", "2026-07-28"]


@pytest.fixture(scope="module")
def conformance() -> list[str]:
    return node_command(CONFORMANCE, CONFORMANCE_VERSION, "conformance")


@pytest.fixture(scope="module")
def fixture_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The fixture notebook served headless; the suite cannot send headers, so the token rides the URL."""
    folder = tmp_path_factory.mktemp("fixture") / "served"
    folder.mkdir()
    shutil.copy(FIXTURE, folder / FIXTURE.name)
    served = Headless(
        folder / FIXTURE.name,
        "--port",
        "0",
        "--approval",
        "auto",
        env={**os.environ, "MCP_NOTEBOOK_TOKEN": TOKEN},
    )
    try:
        url = served.line().strip()
        assert url.startswith("http://127.0.0.1:"), served.stderr
        yield url
    finally:
        served.stop()
        served.close()


def required_scenarios(conformance: list[str], revision: str) -> list[str]:
    """The server scenarios the suite's own requirements file scores for `revision`."""
    text = (Path(conformance[1]).parents[1] / "requirements" / f"{revision}.yaml").read_text()
    section = re.search(r"^server:\n((?:  - .*\n)+)", text, re.MULTILINE)
    assert section is not None, f"no server section in the {revision} requirements"
    return re.findall(r"^  - (\S+)$", section.group(1), re.MULTILINE)


def run_suite(conformance: list[str], url: str, *options: str, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*conformance, "server", "--url", url, *options, "-o", str(out)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_required_scenario_of_the_official_suite_passes(
    conformance: list[str], fixture_url: str, revision: str, tmp_path: Path
) -> None:
    done = run_suite(
        conformance, f"{fixture_url}?token={TOKEN}", "--requirements", revision,
        "--expected-failures", str(EXPECTED_FAILURES), out=tmp_path,
    )  # fmt: skip
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-6000:]
    summary = report[report.index("=== SUMMARY ===") :]
    passed = set(re.findall(r"^✓ (\S+):", summary, re.MULTILINE))
    required = required_scenarios(conformance, revision)
    assert len(required) >= 30
    assert [name for name in required if name not in passed] == [], summary
    assert "Baseline check passed" in report


class _TokenProxy(http.server.ThreadingHTTPServer):
    """Forwards each request to the server with ``Authorization: Bearer``, for peers that drop the query."""

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        super().__init__(("127.0.0.1", 0), _Forward)


class _Forward(http.server.BaseHTTPRequestHandler):
    server: _TokenProxy

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {key: value for key, value in self.headers.items() if key.lower() != "content-length"}
        headers["Authorization"] = f"Bearer {TOKEN}"
        connection = http.client.HTTPConnection(*self.server.upstream, timeout=60)
        try:
            connection.request("POST", self.path, body=body, headers=headers)
            answer = connection.getresponse()
            data = answer.read()  # each answer's stream ends with the response: read it whole
            self.send_response(answer.status)
            for key, value in answer.getheaders():
                if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        finally:
            connection.close()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.mark.parametrize("scenario", ["http-header-validation", "http-custom-header-server-validation"])
def test_header_scenarios_pass_once_the_token_travels_in_a_header(
    conformance: list[str], fixture_url: str, scenario: str, tmp_path: Path
) -> None:
    """Why these two are expected failures above: their probes drop the URL's query (the token).

    Given the token in a header by a proxy, as a real client sends it, they pass.
    """
    proxy = _TokenProxy(fixture_url)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{proxy.server_address[1]}/mcp"
        done = run_suite(conformance, url, "--scenario", scenario, out=tmp_path)
    finally:
        proxy.shutdown()
        proxy.server_close()
        thread.join(timeout=10)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-6000:]
    assert re.search(r"^Passed: (\d+)/\1, 0 failed", report, re.MULTILINE), report[-3000:]
