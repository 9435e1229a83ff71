"""Where the client side leans on the SDK's internals: every such use, in this one module.

The client side is the client layer and the bridge's upstream connections (``mcp-notebook bridge``,
which may import the client layer). Their one need the SDK's `Client` has no public way for is to
declare exactly the capabilities a bridged client declared (`DeclaringClient`). Nothing outside the
two compat modules touches a private name of the SDK (this one, and `mcp_notebook.server._sdk_compat`
for the server's side: the server and client layers never import each other, so each has its own);
``tests/test_sdk_compat.py`` fails when a module elsewhere does.

`RELIES_ON` lists every private name used here and what else of the SDK's we use in a way it does not
document, with the shape we need and where we rely on it; the same test checks each one on the
installed SDK and fails naming the one that changed. pyproject keeps ``mcp`` below its next minor
release: raise the bound only once that test passes on it.

One reliance has no name to check: the SDK runs an upstream client's callbacks (log lines, questions)
in the context of the request that caused them, carrying context variables across its streams, which
is how the bridge knows which stdio request they belong to (``cli/_bridge_upstream.py``,
`forwarding`). ``tests/test_bridge.py::test_progress_logs_and_questions_cross_between_any_two_eras``
fails when that changes.

Importing this module loads the SDK (over a second): import it where the SDK is loaded already.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import mcp_types as types
from mcp import Client
from mcp.client.session import ClientSession

# (what, the shape we need, who relies on it). Shapes: "def (signature)" and "async def (signature)"
# (exactly those parameters, annotations aside), "dataclass".
RELIES_ON: tuple[tuple[str, str, str], ...] = (
    ("mcp.client.client.Client", "dataclass", "DeclaringClient (a dataclass subclass with one more field)"),
    ("mcp.client.client.Client._build_session", "async def (self, exit_stack)", "DeclaringClient"),
    ("mcp.client.session.ClientSession._build_capabilities", "def (self, version)", "DeclaringClient"),
)


@dataclass(kw_only=True)
class DeclaringClient(Client):
    """An SDK `Client` that declares the capabilities `declared`, exactly, instead of its own.

    ``ClientSession._build_capabilities(version)`` makes the declaration of ``initialize``,
    ``server/discover`` and each 2026-07-28 request from the callbacks alone: any elicitation callback
    declares form and url mode, any roots callback ``listChanged``, and only sampling's
    sub-capabilities have a parameter. So that one method is replaced on the session
    ``Client._build_session`` makes. `None` keeps the SDK's declaration. A ``capabilities`` parameter
    on `Client` (as the Go SDK's ``ClientOptions.Capabilities``) would replace this class.
    """

    declared: types.ClientCapabilities | None = None

    async def _build_session(self, exit_stack: contextlib.AsyncExitStack) -> ClientSession:
        session = await super()._build_session(exit_stack)
        declared = self.declared
        if declared is not None:
            session._build_capabilities = lambda version: declared  # type: ignore[method-assign]
        return session
