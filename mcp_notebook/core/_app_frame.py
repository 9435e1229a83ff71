"""What an app may reach, decided before its frame is drawn: its policy, its document, its permissions.

An MCP App (``io.modelcontextprotocol/ui``) is a server's HTML shown in the notebook page, which
holds the person's kernels and Jupyter's credentials. The frame that shows it has an opaque origin
(``sandbox="allow-scripts"``, never ``allow-same-origin``: `SANDBOX`), so it reaches nothing of the
page's but the messages it posts; its document starts with a Content-Security-Policy made here from
the resource's ``_meta.ui.csp`` (`policy`): no network unless the resource names domains, then only
those, each checked (`domain_ok`) so that a value cannot add a source or a directive of its own; and
browser permissions (``_meta.ui.permissions``) reach the frame's ``allow`` only once the person
allows them (`allow_attribute`). A link the app asks to open is shown only if it is a plain web
address (`link_ok`). Pure: the widget (`widgets._app`) draws what these return. The server's side
of the same extension (what a notebook's own views declare) is `core._apps`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._apps import EXTENSION as EXTENSION_ID
from ._apps import MIME_TYPE as APP_MIME_TYPE
from ._apps import SCHEME

__all__ = [
    "APP_MIME_TYPE",
    "EXTENSION_ID",
    "PERMISSIONS",
    "SANDBOX",
    "FramePolicy",
    "allow_attribute",
    "app_visible",
    "domain_ok",
    "link_ok",
    "policy",
    "requested_permissions",
    "resource_uri",
    "srcdoc",
]

SANDBOX = "allow-scripts"
"""The frame's only sandbox flag. Without ``allow-same-origin`` its origin is opaque ("null"): no
cookie, no storage, no DOM of the page, no request the page's credentials would go with."""

# A source the resource may name: a scheme, a host (its first label may be ``*`` for "any
# subdomain"), a port and a path, nothing else: no quote, space, ``;`` or ``,`` that would end the
# source or the directive, no keyword, no bare ``*`` or scheme that would open every host.
_DOMAIN = re.compile(
    r"(?:https?|wss?)://(?:\*\.)?(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*"
    r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?::[0-9]{1,5})?(?:/[A-Za-z0-9._~%/-]*)?"
)
_MAX_DOMAINS = 32  # per list: a policy of thousands of sources is not a reviewable request
_MAX_LINK = 2048

# _meta.ui.permissions key -> Permissions Policy feature in the frame's `allow`.
PERMISSIONS = {
    "camera": "camera",
    "microphone": "microphone",
    "geolocation": "geolocation",
    "clipboardWrite": "clipboard-write",
}


@dataclass(frozen=True)
class FramePolicy:
    """The Content-Security-Policy of an app's document, and the domains refused on the way."""

    text: str
    refused: tuple[str, ...] = ()


def domain_ok(value: Any) -> bool:
    """Whether `value` is a source an app may name: ``https://api.example.com``, ``wss://*.example.com``."""
    if not isinstance(value, str) or len(value) > 253 or "*" in value.replace("://*.", "", 1):
        return False
    return _DOMAIN.fullmatch(value) is not None and value.split("://", 1)[1] not in ("", "*")


def _domains(csp: Mapping[str, Any], key: str, refused: list[str]) -> list[str]:
    listed = csp.get(key)
    if not isinstance(listed, Sequence) or isinstance(listed, str):
        if listed is not None:
            refused.append(f"{key}: {str(listed)[:80]}")
        return []
    kept: list[str] = []
    for value in listed:
        if domain_ok(value) and len(kept) < _MAX_DOMAINS:
            if value not in kept:
                kept.append(value)
        else:
            refused.append(f"{key}: {str(value)[:80]}")
    return kept


def policy(csp: Mapping[str, Any] | None) -> FramePolicy:
    """The policy for an app whose resource declared `csp` (its ``_meta.ui.csp``; None: declared none).

    Nothing from the network unless declared: inline scripts and styles, and ``data:`` / ``blob:``
    images and media, are the app's own document. ``'self'`` is left out: in an opaque origin it
    would match nothing an app needs.
    """
    csp = csp if isinstance(csp, Mapping) else {}
    refused: list[str] = []
    resources = _domains(csp, "resourceDomains", refused)
    connect = _domains(csp, "connectDomains", refused)
    frames = _domains(csp, "frameDomains", refused)
    bases = _domains(csp, "baseUriDomains", refused)

    def sources(*items: str, listed: list[str]) -> str:
        return " ".join([*items, *listed]) or "'none'"

    inline = sources("'unsafe-inline'", listed=resources)
    directives = [
        "default-src 'none'",
        f"script-src {inline}",
        f"style-src {inline}",
        f"img-src {sources('data:', 'blob:', listed=resources)}",
        f"font-src {sources('data:', listed=resources)}",
        f"media-src {sources('data:', 'blob:', listed=resources)}",
        f"connect-src {sources(listed=connect)}",
        f"frame-src {sources(listed=frames)}",
        f"base-uri {sources(listed=bases)}",
        "object-src 'none'",
        "form-action 'none'",
    ]
    return FramePolicy("; ".join(directives), tuple(refused))


def srcdoc(document: str, frame_policy: FramePolicy) -> str:
    """The app's `document` with `frame_policy` as the first element of its head.

    The policy comes before anything of the app's, ahead of its own doctype: a ``<meta>`` policy
    governs only what is parsed after it, and the parser puts a script written before ``<head>``
    into the head, so putting the policy after the app's ``<head>`` tag would let such a script run
    unchecked. The app's later doctype, ``<html>`` and ``<head>`` are then ignored by the parser,
    its attributes kept.
    """
    content = html.escape(frame_policy.text, quote=True)
    return (
        '<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" '
        f'content="{content}"><meta charset="utf-8">' + document
    )


def requested_permissions(permissions: Mapping[str, Any] | None) -> list[str]:
    """The Permissions Policy features an app asks for (``camera``, ``clipboard-write`` ...), known ones only."""
    if not isinstance(permissions, Mapping):
        return []
    return [feature for key, feature in PERMISSIONS.items() if key in permissions]


def allow_attribute(granted: Sequence[str]) -> str:
    """The frame's ``allow`` for the features the person granted (only known features)."""
    known = set(PERMISSIONS.values())
    return "; ".join(feature for feature in granted if feature in known)


def link_ok(url: Any) -> str | None:
    """`url` if it is a plain web address a person may be offered (``http:`` / ``https:``), else None."""
    if not isinstance(url, str) or len(url) > _MAX_LINK:
        return None
    if not re.fullmatch(r"https?://[^\s\x00-\x1f\x7f\"'<>\\]+", url, flags=re.IGNORECASE):
        return None
    return url


def resource_uri(tool: Mapping[str, Any] | None) -> str | None:
    """The ``ui://`` resource a tool definition names (``_meta.ui.resourceUri``), or None."""
    meta = tool.get("_meta") if isinstance(tool, Mapping) else None
    if not isinstance(meta, Mapping):
        return None
    ui = meta.get("ui")
    uri = ui.get("resourceUri") if isinstance(ui, Mapping) else None
    if uri is None:
        uri = meta.get("ui/resourceUri")  # the spelling before the extension's first release
    return uri if isinstance(uri, str) and uri.startswith(SCHEME) else None


def app_visible(tool: Mapping[str, Any] | None) -> bool:
    """Whether an app may call the tool defined so: its ``_meta.ui.visibility`` (default both) names
    ``"app"``. A tool the server does not list is no app's to call."""
    if not isinstance(tool, Mapping):
        return False
    meta = tool.get("_meta")
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    visibility = ui.get("visibility") if isinstance(ui, Mapping) else None
    if visibility is None:
        return True
    return isinstance(visibility, Sequence) and not isinstance(visibility, str) and "app" in visibility
