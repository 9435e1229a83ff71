"""A result knows the MCP App its tool is bound to, read from the same server: the SDK's own Apps
extension (``tests/servers/apps.py``) over stdio and Streamable HTTP, in both eras."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mcp_notebook
from mcp_notebook.client._results import CallResult
from tests.apps import STDIO, apps_over_http

MODES = ["legacy", "2026-07-28"]


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with apps_over_http() as url:
        yield url


@pytest.fixture(params=["stdio", "http"])
def target(request: pytest.FixtureRequest) -> dict[str, str]:
    if request.param == "stdio":
        return {"stdio": STDIO}
    return {"url": request.getfixturevalue("http_url")}


@pytest.mark.parametrize("mode", MODES)
def test_the_result_knows_its_app_read_from_the_same_server(target: dict[str, str], mode: str) -> None:
    result = mcp_notebook.call("weather", {"city": "Seoul"}, mode=mode, **target)
    assert isinstance(result, CallResult) and not result.is_error
    # The server saw the extension declared (the SDK's client_supports_apps), in either era.
    assert result.structured_content == {"city": "Seoul", "celsius": 21, "apps": True}
    app = result.app
    assert app is not None and app.error is None
    assert app.uri == "ui://weather/app.html"
    assert "ui/initialize" in app.html
    assert app.csp == {"connectDomains": ["https://api.weather.example"]}
    assert app.permissions == {"clipboardWrite": {}}
    assert app.tool["name"] == "weather" and app.tool["_meta"]["ui"]["resourceUri"] == app.uri
    assert result.arguments == {"city": "Seoul"}
    assert result.origin is not None and result.origin.options()["mode"] == mode


@pytest.mark.parametrize("mode", MODES)
def test_a_tool_without_an_app_has_none(target: dict[str, str], mode: str) -> None:
    result = mcp_notebook.call("plain", mode=mode, **target)
    assert result.text == "plain, apps=True"
    assert result.app is None
    assert result._repr_mimebundle_() is None  # shown as before: its text and HTML


def test_the_text_fallback_names_the_app() -> None:
    result = mcp_notebook.call("weather", {"city": "Seoul"}, stdio=STDIO)
    assert repr(result).splitlines()[-1] == (
        "[app ui://weather/app.html: an interactive view of this result, shown where widgets run]"
    )
    assert "ui://weather/app.html" in result._repr_html_()
    bundle = result._repr_mimebundle_()
    # Where widgets run, the widget; its text/plain is the result's own (nbval, nbconvert, terminals).
    assert bundle["text/plain"] == repr(result)
    assert "application/vnd.jupyter.widget-view+json" in bundle
    # IPython puts the HTML fallback beside the widget: what nbconvert and GitHub show.
    from IPython.core.formatters import DisplayFormatter

    shown, _ = DisplayFormatter().format(result)
    assert "ui://weather/app.html" in shown["text/html"]
    assert shown["text/plain"] == repr(result)


def test_an_app_its_server_cannot_serve_is_said_and_the_result_still_shows() -> None:
    from mcp_notebook.client._apps import _app_of

    app = _app_of(
        "ui://x/app.html", {"name": "x"}, [{"uri": "ui://x/app.html", "mimeType": "text/html", "text": "<p>"}]
    )
    assert app.error is not None and "text/html" in app.error
    result = CallResult(tool="x", content=[{"type": "text", "text": "plain"}], app=app)
    view = result.view()
    assert view.app_view is None
    assert "could not be shown" in view.children[1].value
    assert "could not be shown" in repr(result)


def test_the_catalogue_and_reads_go_over_connections_that_declare_apps() -> None:
    # Every call of the client shares its connection, declared once: a read sees the same server.
    read = mcp_notebook.read_resource("ui://weather/app.html", stdio=STDIO)
    assert read.contents[0]["mimeType"] == "text/html;profile=mcp-app"
    assert mcp_notebook.call("plain", stdio=STDIO).text == "plain, apps=True"
