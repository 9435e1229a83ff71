"""What the MCP registry (``server.json``) and a server card say about a server: `RegistryEntry`.

A registry entry names a server (reverse-DNS, ``io.github.alice/orders``), says what it is
(title, description, version, icons) and where clients reach it: a ``streamable-http`` remote
with the headers a client must send. The token itself is never in it: the header is described
(``isRequired``, ``isSecret``) with a ``{token}`` variable each client fills in.

`Listing` holds the fields a person chooses, each checked where it is given; `registry_entry`
fills in what was not given, and says so (`RegistryEntry.notes`): a name or a URL it had to make
up is a placeholder to change before publishing. The server card (`RegistryEntry.card`) is the
same data in the shape of the server-card draft (SEP-2127, an experimental extension, not part
of the 2026-07-28 specification), marked as such in its ``_meta``.

Pure: no `mcp` import, no HTTP.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ._errors import OptionError
from ._icons import Icons
from ._text import t

SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
# The draft's own schema URL: versioned by its vN segment, not by date (experimental-ext-server-card).
CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
CARD_MEDIA_TYPE = "application/mcp-server-card+json"
DRAFT_KEY = "io.github.mcp-notebook/server-card"
PLACEHOLDER_NAMESPACE = "io.github.your-github-name"
PLACEHOLDER_URL = "https://mcp.example.com/mcp"
DEFAULT_VERSION = "0.1.0"
# What the registry's schema (2025-12-11) takes in an icon: https only, at most 255 characters.
_REGISTRY_ICON_TYPES = ("image/png", "image/jpeg", "image/jpg", "image/svg+xml", "image/webp")
_NAME = re.compile(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+")
_URL = re.compile(r"https?://[^\s/?#]+[^\s]*")
_RANGE = re.compile(r"^[\^~<>=]|\*|\|\||\s-\s|(^|\.)[xX](\.|$)")

Auth = Literal["token", "oauth", "either"]


@dataclass(frozen=True)
class Listing:
    """How a server is listed in the registry and its card; what is left out is made up (and said).

    name:
        Reverse-DNS name, one ``/``: ``io.github.<GitHub name>/<server>`` or ``com.example/<server>``
        for a domain you own (the registry checks that you own the namespace).
    title, description:
        A display name, and what the server does (each 1-100 characters).
    version:
        This release's version, e.g. ``"1.0.0"`` (not a range); a new one for every publication.
    url:
        The MCP endpoint clients reach, e.g. ``https://mcp.example.com/mcp``.
    website_url:
        A page about the server.
    """

    name: str | None = None
    title: str | None = None
    description: str | None = None
    version: str | None = None
    url: str | None = None
    website_url: str | None = None

    def __post_init__(self) -> None:
        name, version, url, site = self.name, self.version, self.url, self.website_url
        if name is not None and not (_text(name) and 3 <= len(name) <= 200 and _NAME.fullmatch(name)):
            raise OptionError(t("registry.bad_name", got=name), "name")
        for option in ("title", "description"):
            value = getattr(self, option)
            if value is not None and not (_text(value) and 1 <= len(value) <= 100):
                got = len(value) if isinstance(value, str) else type(value).__name__
                raise OptionError(t("registry.bad_text", option=option, got=got), option)
        if version is not None and not (
            _text(version) and len(version) <= 255 and version != "latest" and not _RANGE.search(version)
        ):
            raise OptionError(t("registry.bad_version", got=version), "version")
        if url is not None and not (_text(url) and _URL.fullmatch(url)):
            raise OptionError(t("registry.bad_url", got=url), "url")
        if site is not None and not (_text(site) and _URL.fullmatch(site)):
            raise OptionError(t("registry.bad_website", got=site), "website_url")


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip()) and value == value.strip()


@dataclass(frozen=True)
class RegistryEntry:
    """A ``server.json`` for the MCP registry, and what to change before publishing it.

    Attributes
    ----------
    data:
        The ``server.json`` document (valid against the registry's 2025-12-11 schema).
    notes:
        One line per thing to know before publishing: a placeholder name or URL, a default
        version, a made-up description, an icon left out.
    placeholders:
        The fields that are placeholders (``"name"``, ``"url"``): publishing them as they are
        would list a server nobody can reach, under a name that is not yours.
    """

    data: dict[str, Any]
    notes: tuple[str, ...] = ()
    placeholders: tuple[str, ...] = ()

    def json(self) -> str:
        """The ``server.json`` text (indented, ending with a line break)."""
        return json.dumps(self.data, ensure_ascii=False, indent=2) + "\n"

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the ``server.json`` text to `path` and return it."""
        target = Path(path)
        target.write_text(self.json(), encoding="utf-8")
        return target

    def card(self, versions: Sequence[str] = ()) -> dict[str, Any]:
        """The same data as a server card (SEP-2127 draft), with the protocol versions served.

        The draft is an experimental extension that may still change; the card says so in its
        ``_meta`` (`DRAFT_KEY`), and clients must not trust it over what the server answers.
        """
        card = copy.deepcopy(self.data)
        card["$schema"] = CARD_SCHEMA
        for remote in card.get("remotes", []):
            if versions:
                remote["supportedProtocolVersions"] = list(versions)
        card["_meta"] = {
            DRAFT_KEY: {
                "draft": "SEP-2127",
                "status": "experimental",
                "note": "Follows the server-card draft (modelcontextprotocol/experimental-ext-server-card); "
                "its shape may change. What the server answers once connected is authoritative.",
            }
        }
        return card

    def __repr__(self) -> str:
        notes = "".join(f"! {note}\n" for note in self.notes)
        return notes + self.json().rstrip("\n")


def registry_entry(
    listing: Listing,
    *,
    slug: str,
    tools: Iterable[str] = (),
    icons: Icons = (),
    auth: Auth = "token",
) -> RegistryEntry:
    """The registry entry of a server: `listing`, and what it leaves out made up and said.

    `slug`: the server's part of a made-up name (the notebook's file name); `tools`: their names,
    for a made-up description; `icons`: the server's (those the registry refuses are left out);
    `auth`: how clients prove who they are: a bearer ``token`` in the ``Authorization`` header,
    ``oauth`` (the client signs in; no header to configure), or ``either``.
    """
    notes: list[str] = []
    placeholders: list[str] = []
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", slug).strip("-.")[:100] or "notebook"
    name = listing.name
    if name is None:
        name = f"{PLACEHOLDER_NAMESPACE}/{slug}"
        placeholders.append("name")
        notes.append(t("registry.placeholder_name", name=name, slug=slug))
    url = listing.url
    if url is None:
        url = PLACEHOLDER_URL
        placeholders.append("url")
        notes.append(t("registry.placeholder_url", url=url))
    version = listing.version
    if version is None:
        version = DEFAULT_VERSION
        notes.append(t("registry.default_version", version=version))
    description = listing.description
    if description is None:
        description = _description(slug, list(tools))
        notes.append(t("registry.made_description"))
    data: dict[str, Any] = {"$schema": SCHEMA, "name": name}
    if listing.title is not None:
        data["title"] = listing.title
    data["description"] = description
    data["version"] = version
    if listing.website_url is not None:
        data["websiteUrl"] = listing.website_url
    kept = []
    for icon in icons:
        if _registry_takes(icon):
            kept.append(dict(icon))
        else:
            shown = str(icon.get("src", ""))
            notes.append(t("registry.icon_left_out", src=shown if len(shown) <= 60 else shown[:57] + "..."))
    if kept:
        data["icons"] = kept
    remote: dict[str, Any] = {"type": "streamable-http", "url": url}
    if auth != "oauth":
        remote["headers"] = [_authorization(required=auth == "token")]
    data["remotes"] = [remote]
    return RegistryEntry(data, tuple(notes), tuple(placeholders))


def _description(slug: str, tools: list[str]) -> str:
    text = (
        t("registry.description", slug=slug, tools=", ".join(tools))
        if tools
        else t("registry.description_empty", slug=slug)
    )
    return text if len(text) <= 100 else text[:99].rstrip(", ") + "…"


def _registry_takes(icon: dict[str, Any]) -> bool:
    src = str(icon.get("src", ""))
    mime = icon.get("mimeType")
    return src.startswith("https://") and len(src) <= 255 and (mime is None or mime in _REGISTRY_ICON_TYPES)


def _authorization(*, required: bool) -> dict[str, Any]:
    """The ``Authorization`` header, described: never a token, only where each client's goes."""
    return {
        "name": "Authorization",
        "description": t("registry.header" if required else "registry.header_or_oauth"),
        "isRequired": required,
        "isSecret": True,
        "value": "Bearer {token}",
        "variables": {
            "token": {"description": t("registry.token"), "isRequired": required, "isSecret": True},
        },
    }
