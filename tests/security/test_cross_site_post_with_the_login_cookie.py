"""Attack: a web page makes a logged-in student's browser call the notebook's tools (cross-site request forgery).

A browser sends the Jupyter (or JupyterHub) login cookie with every request to the Jupyter server,
whichever page asked for it. MCP clients authenticate with a token in a header, which a page on
another site cannot read or send; a request that authenticates with the cookie alone must carry
Jupyter's XSRF token, and one from a foreign origin is refused before anything else. The
extension keeps both of Jupyter's checks, so such a request never reaches the kernel.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.conftest import INITIALIZE

pytestmark = pytest.mark.kernel


@pytest.mark.parametrize("origin", [None, "http://evil.example"])
def test_a_post_with_only_the_login_cookie_never_reaches_the_kernel(
    jupyter_shop: Any, origin: str | None
) -> None:
    server = jupyter_shop.server
    with httpx.Client() as browser:
        # The student logged in once: the browser now holds Jupyter's login cookie.
        assert browser.get(f"{server.url}/api/status", params={"token": server.token}).status_code == 200
        assert browser.cookies
        before = jupyter_shop.requests_seen()
        headers = {"Accept": "application/json, text/event-stream"}
        if origin is not None:
            headers["Origin"] = origin
        answer = browser.post(jupyter_shop.mcp_url, json=INITIALIZE, headers=headers)
    assert answer.status_code in (403, 404), answer.text
    assert jupyter_shop.requests_seen() == before
