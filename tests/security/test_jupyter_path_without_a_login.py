"""Attack: reach a kernel through the Jupyter server's MCP path without Jupyter's login.

The extension forwards to a kernel's server with that server's forwarder credential, so a
request that got past the extension would act with the full weight of a logged-in user. Every
route runs Jupyter's own authentication first (``APIHandler.prepare``, then the ``execute`` on
``kernels`` authorization): no credential gets 401, a wrong one 403, and neither ever reaches the
kernel (its server's activity log does not grow).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.conftest import INITIALIZE

pytestmark = pytest.mark.kernel


@pytest.mark.parametrize("method", ["POST", "GET", "DELETE"])
def test_no_credential_gets_401_and_never_reaches_the_kernel(jupyter_shop: Any, method: str) -> None:
    before = jupyter_shop.requests_seen()
    answer = httpx.request(
        method,
        jupyter_shop.mcp_url,
        json=INITIALIZE if method == "POST" else None,
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert answer.status_code == 401
    assert jupyter_shop.requests_seen() == before


@pytest.mark.parametrize("sent", ["Authorization", "token", "cookie"])
def test_a_wrong_credential_gets_403_and_never_reaches_the_kernel(jupyter_shop: Any, sent: str) -> None:
    before = jupyter_shop.requests_seen()
    url, headers = jupyter_shop.mcp_url, {"Accept": "application/json, text/event-stream"}
    if sent == "Authorization":
        headers["Authorization"] = "Bearer not-the-jupyter-token"
    elif sent == "token":
        url += "?token=not-the-jupyter-token"
    else:
        headers["Cookie"] = "username-127-0-0-1=forged"
    answer = httpx.post(url, json=INITIALIZE, headers=headers)
    assert answer.status_code == 403
    assert jupyter_shop.requests_seen() == before
