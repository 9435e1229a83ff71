"""How an exported app is configured: like a service, from a TOML file and the environment.

Each setting comes from, lowest first: its default, the arguments of `mcp_notebook.asgi_app`
(what ``mcp-notebook export`` wrote into ``app.py``), the config file (``MCP_NOTEBOOK_CONFIG``, or
the ``config=`` argument), then the environment (``MCP_NOTEBOOK_...``): the operator has the
last word. A bad value is refused at start, naming where it came from, what is wrong and an
example (`ServiceConfigError`): a replica that starts is configured as meant.

Secrets never come from a command line, nor from the config file itself (which is shared and
committed): client tokens from a clients file, the ``requestState`` key from a key file or the
environment. See `SETTINGS` for every setting; README "Serving an exported app" for a file.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core._errors import MCPNotebookError, OptionError
from ..core._icons import check_icons
from ..core._identity import check_client_name
from ..core._registry import Auth, Listing
from ..core._store import default_path
from ..core._store_url import is_shared
from ..core._text import t
from ._settings import ServerSettings

CONFIG_VARIABLE = "MCP_NOTEBOOK_CONFIG"
MIN_STATE_KEY = 32


class ServiceConfigError(MCPNotebookError, ValueError):
    """A setting of an exported app that cannot work: where it came from, what is wrong, what to write."""


@dataclass(frozen=True)
class OAuthSettings:
    """An OAuth 2.1 resource server: tokens from `issuer`, checked against its keys (`jwks_url`)."""

    issuer: str
    jwks_url: str
    audience: str
    resource: str
    scopes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ServiceConfig:
    """The settings of one exported app (every replica of it should have the same)."""

    server: ServerSettings  # what it shares with a kernel's server: name, store, limits, audit log
    clients: Mapping[str, str] = field(default_factory=dict)  # client name -> token
    owner_token: str | None = None
    state_keys: tuple[bytes, ...] = ()  # the first seals, all open (rotation); empty: one per process
    approval: str = "unattended"
    allow: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    max_request_bytes: int = 4 * 1024 * 1024
    log_format: str = "json"
    log_level: str = "info"
    oauth: OAuthSettings | None = None
    listing: Listing = field(default_factory=Listing)  # the [card] table: its server.json and card
    sources: tuple[str, ...] = ()  # where settings came from, for the start message

    @property
    def auth(self) -> Auth:
        """How clients prove who they are, as its server card says: a token, OAuth, or either."""
        if self.oauth is None:
            return "token"
        return "either" if self.clients or self.owner_token else "oauth"

    @property
    def store(self) -> str:
        """The store's URL (an exported app's store is always named by one)."""
        return str(self.server.store)

    @property
    def shared_store(self) -> bool:
        """Whether replicas on several machines share the store (Redis)."""
        return is_shared(self.store)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _words(value: Any) -> tuple[str, ...] | None:
    """A list of names: a TOML array, or (from the environment) words separated by commas."""
    if isinstance(value, str):
        return tuple(word.strip() for word in value.split(",") if word.strip())
    if isinstance(value, list) and all(isinstance(word, str) for word in value):
        return tuple(value)
    return None


def _positive_int(value: Any) -> int | None:
    if isinstance(value, str):
        value = value.strip()
        if not value.isdigit():
            return None
        value = int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _positive_seconds(value: Any) -> float | None:
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < float("inf"):
        return None
    return float(value)


def _icons(value: Any) -> tuple[dict[str, Any], ...]:
    """The server's icons: a TOML array (of URLs or tables), or URLs separated by commas."""
    if isinstance(value, str):
        value = [word.strip() for word in value.split(",") if word.strip()]
    return check_icons(value, "icons")  # its ValueError says which icon and why


def _one_of(*choices: str) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        return value if value in choices else None

    check.choices = choices  # type: ignore[attr-defined]  # said when a value is not one of them
    return check


def _rule(reader: Callable[[Any], Any]) -> str:
    """What a setting read by `reader` must be, in one sentence."""
    choices = getattr(reader, "choices", None)
    if choices is not None:
        return t("service.rule_choices", choices=", ".join(repr(choice) for choice in choices))
    rules: dict[Any, str] = {
        _positive_int: "service.rule_count",
        _positive_seconds: "service.rule_seconds",
        _words: "service.rule_words",
    }
    return t(rules.get(reader, "service.rule_text"))


def _example(example: str, where: str) -> str:
    """The example of a setting, written as its source takes it: TOML, or ``VARIABLE=value``."""
    if not where.startswith("MCP_NOTEBOOK_"):
        return example
    value = example.split(" = ", 1)[1].strip()
    if value.startswith("["):
        value = ",".join(word.strip().strip('"') for word in value.strip("[]").split(","))
    return where + "=" + value.strip('"')


# setting -> (TOML path, environment variable, reader, example)
SETTINGS: dict[str, tuple[str, str, Callable[[Any], Any], str]] = {
    "name": ("name", "MCP_NOTEBOOK_NAME", _text, 'name = "orders"'),
    "store": ("store", "MCP_NOTEBOOK_STORE", _text, 'store = "redis://redis.internal:6379/0"'),
    "clients_file": (
        "clients_file",
        "MCP_NOTEBOOK_CLIENTS_FILE",
        _text,
        'clients_file = "/run/secrets/mcp-clients.json"',
    ),
    "token_file": ("token_file", "MCP_NOTEBOOK_TOKEN_FILE", _text, 'token_file = "/run/secrets/mcp-owner"'),
    "state_key_file": (
        "state_key_file",
        "MCP_NOTEBOOK_STATE_KEY_FILE",
        _text,
        'state_key_file = "/run/secrets/mcp-state-key"',
    ),
    "approval": (
        "approval.mode",
        "MCP_NOTEBOOK_APPROVAL",
        _one_of("unattended", "auto"),
        'mode = "unattended"',
    ),
    "allow": ("approval.allow", "MCP_NOTEBOOK_ALLOW_TOOLS", _words, 'allow = ["create_order"]'),
    "hosts": ("hosts", "MCP_NOTEBOOK_HOSTS", _words, 'hosts = ["mcp.example.com"]'),
    "max_sessions": ("limits.max_sessions", "MCP_NOTEBOOK_MAX_SESSIONS", _positive_int, "max_sessions = 32"),
    "session_idle_timeout": (
        "limits.session_idle_timeout",
        "MCP_NOTEBOOK_SESSION_IDLE_TIMEOUT",
        _positive_seconds,
        "session_idle_timeout = 600",
    ),
    "max_request_bytes": (
        "limits.max_request_bytes",
        "MCP_NOTEBOOK_MAX_REQUEST_BYTES",
        _positive_int,
        "max_request_bytes = 4194304",
    ),
    "result_limit": (
        "limits.result_limit",
        "MCP_NOTEBOOK_RESULT_LIMIT",
        _positive_int,
        "result_limit = 50000",
    ),
    "max_output_chars": (
        "limits.max_output_chars",
        "MCP_NOTEBOOK_MAX_OUTPUT_CHARS",
        _positive_int,
        "max_output_chars = 1000000",
    ),
    "page_size": ("limits.page_size", "MCP_NOTEBOOK_PAGE_SIZE", _positive_int, "page_size = 100"),
    "log_format": ("log.format", "MCP_NOTEBOOK_LOG_FORMAT", _one_of("json", "text"), 'format = "json"'),
    "log_level": (
        "log.level",
        "MCP_NOTEBOOK_LOG_LEVEL",
        _one_of("debug", "info", "warning", "error"),
        'level = "info"',
    ),
    "audit_log": (
        "log.audit",
        "MCP_NOTEBOOK_AUDIT_LOG",
        # "-": stdout; "off" (or "none", or the variable set empty): no audit lines; else a file.
        lambda v: ("" if v.strip().lower() in ("", "off", "none") else v) if isinstance(v, str) else None,
        'audit = "-"',
    ),
    "audit_max_bytes": (
        "log.audit_max_bytes",
        "MCP_NOTEBOOK_AUDIT_MAX_BYTES",
        _positive_int,
        "audit_max_bytes = 52428800",
    ),
    "audit_keep": ("log.audit_keep", "MCP_NOTEBOOK_AUDIT_KEEP", _positive_int, "audit_keep = 5"),
    "oauth_issuer": (
        "oauth.issuer",
        "MCP_NOTEBOOK_OAUTH_ISSUER",
        _text,
        'issuer = "https://login.example.com"',
    ),
    "oauth_jwks_url": (
        "oauth.jwks_url",
        "MCP_NOTEBOOK_OAUTH_JWKS_URL",
        _text,
        'jwks_url = "https://login.example.com/.well-known/jwks.json"',
    ),
    "oauth_audience": (
        "oauth.audience",
        "MCP_NOTEBOOK_OAUTH_AUDIENCE",
        _text,
        'audience = "https://mcp.example.com/mcp"',
    ),
    "oauth_resource": (
        "oauth.resource",
        "MCP_NOTEBOOK_OAUTH_RESOURCE",
        _text,
        'resource = "https://mcp.example.com/mcp"',
    ),
    "oauth_scopes": ("oauth.scopes", "MCP_NOTEBOOK_OAUTH_SCOPES", _words, 'scopes = ["mcp:tools"]'),
    "icons": ("icons", "MCP_NOTEBOOK_ICONS", _icons, 'icons = ["https://example.com/icon.png"]'),
    # What the app's server card and `mcp-notebook card` say (README "Registry and discovery").
    "card_name": ("card.name", "MCP_NOTEBOOK_CARD_NAME", _text, 'name = "io.github.alice/orders"'),
    "card_title": ("card.title", "MCP_NOTEBOOK_CARD_TITLE", _text, 'title = "Orders"'),
    "card_description": (
        "card.description",
        "MCP_NOTEBOOK_CARD_DESCRIPTION",
        _text,
        'description = "Look up orders and book new ones."',
    ),
    "card_version": ("card.version", "MCP_NOTEBOOK_CARD_VERSION", _text, 'version = "1.0.0"'),
    "card_url": ("card.url", "MCP_NOTEBOOK_CARD_URL", _text, 'url = "https://mcp.example.com/mcp"'),
    "card_website_url": (
        "card.website_url",
        "MCP_NOTEBOOK_CARD_WEBSITE_URL",
        _text,
        'website_url = "https://example.com/orders"',
    ),
}
_SECRETS = {  # inline in a config file: refused, with where to put them instead
    "token": ("token_file", "MCP_NOTEBOOK_TOKEN"),
    "state_key": ("state_key_file", "MCP_NOTEBOOK_STATE_KEY"),
    "clients": ("clients_file", "MCP_NOTEBOOK_CLIENTS_FILE"),
}


def load_config(
    defaults: Mapping[str, Any] | None = None,
    *,
    config: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> ServiceConfig:
    """The settings of an exported app: `defaults` (`asgi_app`'s arguments), the file, the environment.

    Raises
    ------
    ServiceConfigError
        A setting is unknown or cannot work; the message says where it came from and what to write.
    """
    env = os.environ if environ is None else environ
    values, sources = _gather(defaults, config, env)
    return _build(values, env, sources)


def card_settings(
    config: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None
) -> tuple[Listing, tuple[dict[str, Any], ...], Auth]:
    """What an app's settings say for its ``server.json`` (``mcp-notebook card``), reading no secret.

    The ``[card]`` table and the icons, as `load_config` reads them (the file, then the
    environment), and how clients prove who they are: ``oauth`` when OAuth is set up and no token
    is, ``either`` with both, else ``token``.

    Raises
    ------
    ServiceConfigError
        A setting is unknown or cannot work; the message says where it came from and what to write.
    """
    env = os.environ if environ is None else environ
    values, _ = _gather(None, config, env)

    def get(key: str, default: Any = None) -> Any:
        return values[key][0] if key in values else default

    def where(key: str) -> str:
        return values[key][1] if key in values else SETTINGS[key][1]

    icons = get("icons", ())
    tokens = any(key in values for key in ("clients_file", "token_file")) or bool(
        env.get("MCP_NOTEBOOK_TOKEN")
    )
    auth: Auth = "token"
    if get("oauth_issuer") is not None:
        auth = "either" if tokens else "oauth"
    return _listing(get, where), icons, auth


def _gather(
    defaults: Mapping[str, Any] | None, config: str | os.PathLike[str] | None, env: Mapping[str, str]
) -> tuple[dict[str, tuple[Any, str]], tuple[str, ...]]:
    """Every setting given (checked by its reader) with where it came from, and the sources in order."""
    raw: dict[str, tuple[Any, str]] = {key: (value, "asgi_app()") for key, value in (defaults or {}).items()}
    unknown = set(raw) - set(SETTINGS)
    if unknown:
        raise ServiceConfigError(
            t(
                "service.unknown_setting",
                where="asgi_app()",
                key=sorted(unknown)[0],
                known=", ".join(SETTINGS),
            )
        )
    sources = ["asgi_app()"] if raw else []
    path = config if config is not None else env.get(CONFIG_VARIABLE) or None
    if path is not None:
        raw.update(_read_file(Path(path)))
        sources.append(str(path))
    for key, (_, variable, _, _) in SETTINGS.items():
        # An empty variable counts as unset, but for the audit log, where empty says "none" (an
        # operator turning audit lines off), as the TOML's ``audit = ""`` does.
        if env.get(variable, "").strip() or (variable == "MCP_NOTEBOOK_AUDIT_LOG" and variable in env):
            raw[key] = (env[variable], variable)
            sources.append(variable)
    values: dict[str, Any] = {}
    for key, (value, where) in raw.items():
        reader, example = SETTINGS[key][2], SETTINGS[key][3]
        try:
            checked, said = reader(value), None
        except ValueError as exc:  # a reader that says itself what is wrong (the icons)
            checked, said = None, str(exc)
        if checked is None:
            rule = t("service.bad_value", key=SETTINGS[key][0], got=repr(value)[:80]) + " " + _rule(reader)
            problem = said or rule
            raise ServiceConfigError(
                t("service.bad_setting", where=where, problem=problem, example=_example(example, where))
            )
        values[key] = (checked, where)
    return values, tuple(dict.fromkeys(sources))


# Settings that name a file: relative to the config file's folder when written there.
_FILES = ("clients_file", "token_file", "state_key_file", "audit_log")


def _read_file(path: Path) -> dict[str, tuple[Any, str]]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ServiceConfigError(t("service.bad_file", path=str(path), error=exc)) from None
    by_path = {toml: key for key, (toml, *_) in SETTINGS.items()}
    found: dict[str, tuple[Any, str]] = {}

    def walk(table: Mapping[str, Any], prefix: str) -> None:
        for name, value in table.items():
            dotted = f"{prefix}{name}"
            if name in _SECRETS and not prefix:
                file_key, variable = _SECRETS[name]
                raise ServiceConfigError(
                    t(
                        "service.secret_inline",
                        where=str(path),
                        key=name,
                        file_key=file_key,
                        variable=variable,
                    )
                )
            if dotted in by_path:
                key = by_path[dotted]
                if key in _FILES and isinstance(value, str) and value not in ("", "-", "off", "none"):
                    # A file named in the config file is beside it, wherever the app is started from.
                    value = str(path.parent / Path(value).expanduser())
                found[key] = (value, f"{path} [{dotted}]")
            elif isinstance(value, dict) and not prefix:
                walk(value, f"{dotted}.")
            else:
                known = ", ".join(toml for toml, *_ in SETTINGS.values())
                raise ServiceConfigError(
                    t("service.unknown_setting", where=str(path), key=dotted, known=known)
                )

    walk(data, "")
    return found


def _build(
    values: dict[str, tuple[Any, str]], env: Mapping[str, str], sources: tuple[str, ...]
) -> ServiceConfig:
    def get(key: str, default: Any = None) -> Any:
        return values[key][0] if key in values else default

    def where(key: str) -> str:
        return values[key][1] if key in values else SETTINGS[key][1]

    server = _server_settings(get, where)
    store = str(server.store)
    clients = _read_clients(get("clients_file"), where("clients_file")) if "clients_file" in values else {}
    owner = _secret_from(env, "MCP_NOTEBOOK_TOKEN", get("token_file"), where("token_file"))
    if owner is not None and (len(owner) < 16 or any(ch.isspace() for ch in owner)):
        # The owner token opens everything: held to the clients' rule at least.
        source = "MCP_NOTEBOOK_TOKEN" if env.get("MCP_NOTEBOOK_TOKEN", "").strip() else where("token_file")
        raise ServiceConfigError(t("service.owner_token_short", where=source, got=len(owner)))
    keys = _state_keys(env, get("state_key_file"), where("state_key_file"))
    if not keys and is_shared(store):
        raise ServiceConfigError(t("service.no_state_key", store=_shown(store)))
    oauth = _oauth(get, where)
    if not clients and owner is None and oauth is None:
        raise ServiceConfigError(t("service.no_credentials"))
    return ServiceConfig(
        server=server,
        clients=clients,
        owner_token=owner,
        state_keys=keys,
        approval=get("approval", "unattended"),
        allow=get("allow", ()),
        hosts=get("hosts", ()),
        max_request_bytes=get("max_request_bytes", 4 * 1024 * 1024),
        log_format=get("log_format", "json"),
        log_level=get("log_level", "info"),
        oauth=oauth,
        listing=_listing(get, where),
        sources=sources,
    )


# The settings an exported app shares with a kernel's server, read here and checked by `ServerSettings`.
_SERVER_LIMITS = (
    "page_size",
    "result_limit",
    "max_output_chars",
    "session_idle_timeout",
    "max_sessions",
    "audit_max_bytes",
    "audit_keep",
)


def _server_settings(get: Callable[..., Any], where: Callable[[str], str]) -> ServerSettings:
    """The app's `ServerSettings`; a value they refuse is said with where it came from."""
    limits = {key: get(key) for key in _SERVER_LIMITS if get(key) is not None}
    try:
        return ServerSettings(
            name=get("name", "mcp-notebook"),
            icons=get("icons"),
            store=get("store", f"sqlite:///{default_path()}"),  # a bad URL fails now; it opens on first use
            audit_log=get("audit_log", "-") or False,  # "-": stdout, with the logs; "": none; else a file
            **limits,
        )
    except OptionError as exc:
        key = exc.option if exc.option in SETTINGS else "name"
        raise ServiceConfigError(
            t("service.bad_setting", where=where(key), problem=exc, example=SETTINGS[key][3])
        ) from None


def _listing(get: Callable[..., Any], where: Callable[[str], str]) -> Listing:
    """The ``[card]`` table as a `Listing`; a value the registry would refuse is said with its source."""
    fields = ("name", "title", "description", "version", "url", "website_url")
    try:
        return Listing(**{name: get(f"card_{name}") for name in fields})
    except OptionError as exc:
        key = f"card_{exc.option}"
        raise ServiceConfigError(
            t("service.bad_setting", where=where(key), problem=exc, example=SETTINGS[key][3])
        ) from None


def _read_private(path: str, where: str) -> str:
    """The text of a secret's file; refused when other users can read it (a secret is no secret then)."""
    try:
        with open(path, encoding="utf-8") as file:
            info = os.fstat(file.fileno())
            text = file.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ServiceConfigError(t("service.secret_unreadable", where=where, path=path, error=exc)) from None
    if os.name == "posix" and info.st_mode & (stat.S_IRWXG | stat.S_IRWXO) and not _handed_over(info):
        mode = oct(stat.S_IMODE(info.st_mode))
        raise ServiceConfigError(t("service.secret_open", where=where, path=path, mode=mode))
    return text


def _handed_over(info: os.stat_result) -> bool:
    """A secret that the platform hands to this process through its group: root's file, 0440 or 0400.

    Kubernetes secret volumes (and Docker secrets) cannot make the app's user own a file: they are
    root's, readable by the pod's group (``fsGroup``), which is this process's. Readable by that group
    only, never by others nor writable by the group, such a file is as private as 0600.
    """
    if info.st_uid != 0 or info.st_mode & (stat.S_IRWXO | stat.S_IWGRP | stat.S_IXGRP):
        return False
    return info.st_gid in {os.getegid(), *os.getgroups()}


def _secret_from(env: Mapping[str, str], variable: str, path: str | None, where: str) -> str | None:
    if env.get(variable, "").strip():
        return env[variable].strip()
    if path is None:
        return None
    text = _read_private(path, where).strip().split("\n", 1)[0].strip()
    return text or None


def _state_keys(env: Mapping[str, str], path: str | None, where: str) -> tuple[bytes, ...]:
    """The requestState keys: one per line (or comma), the first seals; each at least 32 characters."""
    text = env.get("MCP_NOTEBOOK_STATE_KEY", "").strip()
    source = "MCP_NOTEBOOK_STATE_KEY"
    if not text and path is not None:
        text, source = _read_private(path, where), where
    keys = [key.strip() for line in text.splitlines() for key in line.split(",") if key.strip()]
    for key in keys:
        if len(key) < MIN_STATE_KEY:
            raise ServiceConfigError(
                t("service.state_key_short", where=source, min=MIN_STATE_KEY, got=len(key))
            )
    return tuple(key.encode() for key in keys)


def _read_clients(path: str, where: str) -> dict[str, str]:
    """Client name -> token, from ``{"clients": {NAME: {"token": T}}}`` or ``{NAME: T}`` (JSON)."""
    text = _read_private(path, where)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ServiceConfigError(t("service.clients_file", path=path, problem=exc)) from None
    entries = data.get("clients", data) if isinstance(data, dict) else None
    if not isinstance(entries, dict) or not entries:
        raise ServiceConfigError(t("service.clients_file", path=path, problem=t("service.clients_none")))
    clients: dict[str, str] = {}
    for name, entry in entries.items():
        token = entry.get("token") if isinstance(entry, dict) else entry
        try:
            check_client_name(name)
        except ValueError as exc:
            raise ServiceConfigError(t("service.clients_file", path=path, problem=exc)) from None
        if not isinstance(token, str) or len(token) < 16 or any(ch.isspace() for ch in token):
            problem = t("service.clients_bad_token", name=name)
            raise ServiceConfigError(t("service.clients_file", path=path, problem=problem))
        clients[name] = token
    return clients


def _oauth(get: Callable[..., Any], where: Callable[[str], str]) -> OAuthSettings | None:
    parts = {key: get(f"oauth_{key}") for key in ("issuer", "jwks_url", "audience", "resource")}
    if not any(parts.values()):
        return None
    for key in ("issuer", "jwks_url", "resource"):
        if parts[key] is None:
            example = SETTINGS[f"oauth_{key}"][3]
            problem = t("service.oauth_missing", key=f"oauth.{key}", variable=SETTINGS[f"oauth_{key}"][1])
            raise ServiceConfigError(
                t("service.bad_setting", where=where("oauth_issuer"), problem=problem, example=example)
            )
    return OAuthSettings(
        issuer=parts["issuer"],
        jwks_url=parts["jwks_url"],
        audience=parts["audience"] or parts["resource"],
        resource=parts["resource"],
        scopes=tuple(get("oauth_scopes", ())),
    )


def _shown(url: str) -> str:
    """A store URL as it may be logged: without a password."""
    scheme, separator, rest = url.partition("://")
    if "@" in rest.split("/", 1)[0]:
        rest = "***@" + rest.split("@", 1)[1]
    return f"{scheme}{separator}{rest}"


shown_store = _shown
