"""MCP Apps, the server's side: ``ui://`` resources a host renders, and the tools bound to them.

MCP Apps (extension ``io.modelcontextprotocol/ui``, SEP-1865) lets a tool name an HTML view in its
``_meta.ui.resourceUri``; a host that supports Apps reads that ``ui://`` resource (served as
``text/html;profile=mcp-app``) and shows it in a sandboxed iframe, next to the tool's result. The
resource says what the view may reach (``_meta.ui.csp``: the origins it may connect to, load from,
frame, use as a base) and which browser permissions it asks for (``_meta.ui.permissions``); the
tool says who may call it (``_meta.ui.visibility``: the model, the view, or both).

Here: the checks of those options (each refused with what to write instead), the ``ui://``
resource entry (`app_entry`), and what ``tools/list`` shows of a tool bound to a view (`listed`).

Pure: no IPython, no threads, no `mcp` import.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from ._errors import ToolDefinitionError
from ._resources import ResourceEntry, check_uri
from ._text import t

EXTENSION = "io.modelcontextprotocol/ui"
MIME_TYPE = "text/html;profile=mcp-app"
SCHEME = "ui://"
FROM_APP = "io.github.mcp-notebook/from-app"
"""A request's ``_meta`` key: the ``ui://`` app whose host sent this call on its behalf (this
package's host sets it). The host's word, as a client's name is: shown to people, never a key."""

Visibility = Literal["model", "app"]
VISIBILITY: tuple[Visibility, ...] = ("model", "app")

# ext-apps 2026-01-26, McpUiResourceCsp and the permissions of UIResourceMeta: camelCase on the
# wire; the snake_case spelling a Python user writes is taken too.
CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
PERMISSIONS = ("camera", "microphone", "geolocation", "clipboardWrite")
# A host builds its Content-Security-Policy from these origins: one with a space, a quote or a ';'
# would write other directives into it. scheme://host[:port], the host's first label may be '*'.
_ORIGIN = re.compile(r"(https?|wss?)://(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?")
_CAMEL = re.compile(r"_([a-z])")


def check_app_uri(uri: object, where: str) -> str:
    """`uri` if it is a fixed ``ui://`` URI, else `ToolDefinitionError` saying what to write."""
    if not isinstance(uri, str) or not uri.startswith(SCHEME) or len(uri) == len(SCHEME):
        raise ToolDefinitionError(t("app.bad_uri", uri=uri, where=where))
    if check_uri(uri):
        raise ToolDefinitionError(t("app.uri_template", uri=uri, where=where))
    return uri


def check_visibility(value: object) -> tuple[Visibility, ...]:
    """The visibility as a tuple of ``"model"``/``"app"``, once each, in the spec's order."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, Iterable) or isinstance(items, Mapping):
        raise ToolDefinitionError(t("app.bad_visibility", value=value))
    chosen = list(items)
    if not chosen or any(item not in VISIBILITY for item in chosen) or len(set(chosen)) != len(chosen):
        raise ToolDefinitionError(t("app.bad_visibility", value=value))
    return tuple(item for item in VISIBILITY if item in chosen)


def check_csp(csp: Mapping[str, Any] | None) -> dict[str, list[str]]:
    """``_meta.ui.csp`` from `csp`: known keys only (camelCase), each a list of origins."""
    if csp is None:
        return {}
    if not isinstance(csp, Mapping):
        raise ToolDefinitionError(t("app.csp_not_mapping", got=type(csp).__name__, keys=", ".join(CSP_KEYS)))
    made: dict[str, list[str]] = {}
    for key, origins in csp.items():
        name = _known(key, CSP_KEYS, "app.csp_unknown_key")
        if isinstance(origins, str) or not isinstance(origins, Sequence):
            raise ToolDefinitionError(t("app.csp_not_list", key=name, got=origins))
        for origin in origins:
            if not isinstance(origin, str) or not _ORIGIN.fullmatch(origin):
                raise ToolDefinitionError(t("app.csp_bad_origin", key=name, origin=origin))
        made[name] = list(origins)
    return made


def check_permissions(permissions: Iterable[str] | Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """``_meta.ui.permissions`` from names (``["camera"]``) or the wire's ``{"camera": {}}``."""
    if permissions is None:
        return {}
    if isinstance(permissions, str) or not isinstance(permissions, Iterable):
        raise ToolDefinitionError(
            t("app.permissions_not_list", got=permissions, known=", ".join(PERMISSIONS))
        )
    return {_known(name, PERMISSIONS, "app.permission_unknown"): {} for name in permissions}


def _known(key: object, known: tuple[str, ...], message: str) -> str:
    name = _CAMEL.sub(lambda found: found.group(1).upper(), key) if isinstance(key, str) else ""
    if name in known:
        return name
    near = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
    hint = t("did_you_mean", names=repr(near[0])) if near else ""
    raise ToolDefinitionError(t(message, key=key, hint=hint, known=", ".join(known)))


def app_entry(
    uri: str,
    *,
    html: str | None = None,
    path: str | Path | None = None,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    csp: Mapping[str, Any] | None = None,
    permissions: Iterable[str] | Mapping[str, Any] | None = None,
    prefers_border: bool | None = None,
) -> ResourceEntry:
    """The ``ui://`` resource entry of an HTML view (see `mcp_notebook.app_resource`).

    A file is read here, once: a missing one fails where it is registered, and an exported app
    serves what the notebook registered (register again after changing the file).
    """
    check_app_uri(uri, "app_resource")
    if (html is None) == (path is None):
        raise ToolDefinitionError(t("app.html_or_path", uri=uri))
    if path is not None:
        try:
            html = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ToolDefinitionError(
                t(
                    "app.file_unreadable",
                    uri=uri,
                    path=str(path),
                    why=getattr(exc, "strerror", None) or str(exc),
                )
            ) from None
    if not isinstance(html, str):
        raise ToolDefinitionError(t("app.html_not_text", uri=uri, got=type(html).__name__))
    ui: dict[str, Any] = {}
    if made_csp := check_csp(csp):
        ui["csp"] = made_csp
    if made_permissions := check_permissions(permissions):
        ui["permissions"] = made_permissions
    if prefers_border is not None:
        ui["prefersBorder"] = bool(prefers_border)
    text = html
    return ResourceEntry(
        uri,
        name or uri.removeprefix(SCHEME),
        lambda: text,
        title,
        description,
        MIME_TYPE,
        len(text.encode()),
        meta={"ui": ui} if ui else None,
    )


def ui_meta(app: str | None, visibility: tuple[Visibility, ...] | None) -> dict[str, Any] | None:
    """A tool's ``_meta.ui``: the view it is shown with, and who may call it (when not both)."""
    if app is None:
        return None
    ui: dict[str, Any] = {"resourceUri": app}
    if visibility is not None:
        ui["visibility"] = list(visibility)
    return ui


def listed(wire: dict[str, Any], app: str | None, registered: set[str]) -> dict[str, Any]:
    """What ``tools/list`` shows of a tool: without ``_meta.ui`` while its view is not registered.

    A host that follows a ``resourceUri`` nobody serves shows a broken view; without it the tool
    is a plain tool, its text result intact (the server warns the notebook's owner, and lists it
    again with its view once the view is registered).
    """
    if app is None or app in registered:
        return wire
    meta = {key: value for key, value in wire.get("_meta", {}).items() if key != "ui"}
    bare = {key: value for key, value in wire.items() if key != "_meta"}
    return {**bare, "_meta": meta} if meta else bare


def unbound(tools: Iterable[tuple[str, str | None]], registered: set[str]) -> list[tuple[str, str]]:
    """(tool, uri) for each tool bound to a view that is not registered."""
    return [(name, app) for name, app in tools if app is not None and app not in registered]


def unbound_message(missing: list[tuple[str, str]], registered: set[str]) -> str:
    """What is wrong with `missing` (from `unbound`), and what to do."""
    tools = "; ".join(f"{name!r} → {uri!r}" for name, uri in missing)
    known = ", ".join(sorted(registered)) or t("none")
    return t("app.unbound", tools=tools, known=known)
