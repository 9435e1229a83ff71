"""Attack: a link from another server, read from the notebook's own server, shows the notebook's secret.

A ``resource_link`` names a URI that the server which sent it chose. ``tests/servers/evil.py``
(reached over stdio, as ``%mcp_call --stdio`` does) links to ``notebook://variables/secret``, the
URI the notebook's ``%mcp_publish secret`` serves. "Read it" used to read every link from the
in-kernel server, as the notebook itself: the person saw the notebook's secret under the evil
server's result and believed the evil server had sent it (and a server could probe the notebook's
resources by what the person reported). A link is now read from the server its result came from,
with the same credential; a result that does not say where it came from offers no button at all.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import mcp_types as types

import mcp_notebook
from mcp_notebook import Catalogue
from mcp_notebook.widgets import ResultView
from mcp_notebook.widgets._result import ResourceLinkView
from tests.conftest import serve_unattended

EVIL = Path(__file__).resolve().parents[1] / "servers" / "evil.py"
COMMAND = f'"{sys.executable}" "{EVIL}"'
SECRET = "the notebook's secret: 4111-1111-1111-1111"
NOT_THE_NOTEBOOK = "what the evil server says is at notebook://variables/secret"


def links(view: Any) -> list[ResourceLinkView]:
    found = [view] if isinstance(view, ResourceLinkView) else []
    for child in getattr(view, "children", ()):
        found += links(child)
    return found


def shown(widget: Any) -> str:
    if isinstance(widget, widgets.HTML):
        return str(widget.value)
    return "\n".join(shown(child) for child in getattr(widget, "children", ()))


def test_a_link_from_another_server_is_read_from_that_server() -> None:
    catalogue = Catalogue()
    mcp_notebook.publish(SECRET, "notebook://variables/secret", name="secret", catalogue=catalogue)
    srv = serve_unattended(catalogue)
    try:
        # The notebook's own server does hold the secret at that URI.
        assert mcp_notebook.read_resource("notebook://variables/secret").text == SECRET
        for result in (
            mcp_notebook.call("link", stdio=COMMAND),
            mcp_notebook.get_prompt("evil", stdio=COMMAND),
        ):
            view = ResultView.of(result)
            (link,) = [link for link in links(view) if link.uri == "notebook://variables/secret"]
            link.read_button.click()  # what the person does
            assert link.read_error is None, link.read_error
            assert link.read_result.text == NOT_THE_NOTEBOOK
            assert SECRET not in shown(view) and NOT_THE_NOTEBOOK in shown(view)
    finally:
        srv.stop()


def test_the_notebooks_own_links_are_still_read_from_it() -> None:
    catalogue = Catalogue()
    mcp_notebook.publish(SECRET, "notebook://variables/secret", name="secret", catalogue=catalogue)

    @mcp_notebook.tool(catalogue=catalogue, read_only=True, lint=False)
    def where() -> Any:
        """Where the secret is."""
        return types.ResourceLink(type="resource_link", uri="notebook://variables/secret", name="secret")

    srv = serve_unattended(catalogue)
    try:
        result = mcp_notebook.call("where")
        assert result.origin is not None and result.origin.in_kernel
        (link,) = links(ResultView.of(result))
        assert link.read() is not None and link.read_result.text == SECRET
    finally:
        srv.stop()
