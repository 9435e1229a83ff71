"""The app a tool's result is shown with (MCP Apps, ``io.modelcontextprotocol/ui``), seen as a host.

Every connection of the client declares the extension (`declaration`), so a server that binds a
tool to a ``ui://`` resource sends the tool as it would to any Apps host. When the tool called has
``_meta.ui.resourceUri`` in its definition, the result is given its `App`: the resource read from
the same connection (``resources/read``), never from another server, with what it asks to reach
(``_meta.ui.csp``, ``_meta.ui.permissions``). What the app may do once shown is decided in
`core._app_frame` and the widget; this module only finds and reads it.

A tool's definition is what the connection last listed (`definition`): listed once per connection,
and again when a cell of this process redefines a tool or a name is not in the list.
"""

from __future__ import annotations

import base64
import binascii
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core._app_frame import APP_MIME_TYPE, EXTENSION_ID, app_visible, resource_uri
from ..core._catalogue import tools_changed

__all__ = ["App", "app_for", "app_may_call", "declaration", "definition", "remember"]

_CACHE = "_mcp_notebook_definitions"  # on the SDK client: its tool definitions, by name
_CACHE_STAMP = "_mcp_notebook_definitions_stamp"


@dataclass(frozen=True)
class App:
    """A ``ui://`` app a tool result is shown with, as its server sent it (untrusted).

    Attributes
    ----------
    uri:
        The ``ui://`` resource the tool names.
    html:
        The document, as read (empty when it could not be).
    csp, permissions:
        The resource's ``_meta.ui.csp`` and ``_meta.ui.permissions``: what it asks to reach. Each
        domain is checked before it reaches the frame's policy (`core._app_frame`).
    tool:
        The tool's definition as the server listed it (the app is told of it at its handshake).
    error:
        Why the app cannot be shown (unreadable, another media type), or None.
    """

    uri: str
    html: str = field(default="", repr=False)
    csp: Mapping[str, Any] = field(default_factory=dict)
    permissions: Mapping[str, Any] = field(default_factory=dict)
    tool: Mapping[str, Any] = field(default_factory=dict, repr=False)
    prefers_border: bool | None = None
    error: str | None = None


def declaration() -> Any:
    """The Apps extension as the SDK's client declares it (``mimeTypes``, as SEP-1865 requires)."""
    from mcp.client.extension import advertise  # the SDK is loaded by the caller already

    return advertise(EXTENSION_ID, {"mimeTypes": [APP_MIME_TYPE]})


def remember(client: Any, tools: list[dict[str, Any]]) -> None:
    """Keep a full listing of `client`'s tools as its definitions."""
    setattr(client, _CACHE, {str(tool.get("name")): tool for tool in tools})
    setattr(client, _CACHE_STAMP, tools_changed())


async def definition(client: Any, name: str) -> dict[str, Any] | None:
    """The definition of tool `name` as `client`'s server lists it (None when it lists no such tool)."""
    from ._calls import _all_pages  # _calls imports this module: here, when first needed

    known: dict[str, Any] | None = getattr(client, _CACHE, None)
    if known is None or name not in known or getattr(client, _CACHE_STAMP, None) != tools_changed():
        remember(
            client, await _all_pages(functools.partial(client.list_tools, cache_mode="refresh"), "tools")
        )
        known = getattr(client, _CACHE)
    found = known.get(name)
    return dict(found) if isinstance(found, Mapping) else None


async def app_for(client: Any, name: str) -> App | None:
    """The app the tool `name` is bound to, read over `client`; None for a tool without one."""
    tool = await definition(client, name)
    uri = resource_uri(tool)
    if tool is None or uri is None:
        return None
    try:
        read = await client.read_resource(uri)
    except Exception as exc:  # a server that binds an app it cannot serve: the result still shows
        return App(uri=uri, tool=tool, error=f"{type(exc).__name__}: {exc}")
    contents = read.model_dump(by_alias=True, mode="json", exclude_none=True).get("contents") or []
    return _app_of(uri, tool, contents)


def _app_of(uri: str, tool: Mapping[str, Any], contents: list[dict[str, Any]]) -> App:
    item = next((c for c in contents if c.get("uri") == uri), contents[0] if contents else None)
    if not isinstance(item, Mapping):
        return App(uri=uri, tool=tool, error="resources/read returned no contents")
    mime = str(item.get("mimeType", "")).replace(" ", "").lower()
    if mime != APP_MIME_TYPE:
        return App(uri=uri, tool=tool, error=f"media type {item.get('mimeType')!r}, not {APP_MIME_TYPE!r}")
    if isinstance(item.get("text"), str):
        document = item["text"]
    else:
        try:
            document = base64.b64decode(str(item.get("blob", "")), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            return App(uri=uri, tool=tool, error=f"unreadable blob: {exc}")
    meta = item.get("_meta")
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    ui = ui if isinstance(ui, Mapping) else {}
    csp, permissions, border = ui.get("csp"), ui.get("permissions"), ui.get("prefersBorder")
    return App(
        uri=uri,
        html=document,
        csp=dict(csp) if isinstance(csp, Mapping) else {},
        permissions=dict(permissions) if isinstance(permissions, Mapping) else {},
        tool=tool,
        prefers_border=border if isinstance(border, bool) else None,
    )


def app_may_call(name: str, **target: Any) -> bool:
    """Whether an app of the server `target` names may call its tool `name`: the server lists the
    tool, and its visibility names ``"app"`` (a request over the same connection as the app's)."""
    from ._requests import request  # which imports this module (the connections declare Apps)
    from ._target import Target

    async def do(client: Any) -> bool:
        return app_visible(await definition(client, name))

    return bool(request(do, Target.of(target, "app_may_call()")))
