"""Who is calling: identities proven by a credential, never by what a client says about itself.

Every request presents a token, and the token alone decides who is calling. The HTTP gate
(`_http.Gate`) turns it into an `Identity` once per request, in O(1): one dict lookup by the
token's SHA-256, then a constant-time comparison. Three kinds of identity:

``notebook``
    The notebook's own calls (``%mcp_call``, ``mcp_notebook.call``). Its token is a per-process
    secret that never leaves the kernel. Trusted: never asked for approval, sees hidden tools.
``owner``
    The server token (``srv.token``): the notebook owner's credential, used from outside.
a named client
    ``srv.add_client("claude-code")`` mints a token for one client; ``srv.revoke_client(name)``
    ends it on that client's next request.
``jupyter:<user>``
    A person Jupyter authenticated, through the Jupyter server extension (`mcp_notebook.jupyter`):
    the extension holds the kernel server's *forwarder* credential (`Identities.set_forwarder`) and
    names the Jupyter user in the ``X-MCP-Notebook-User`` header. That header counts only next to the
    forwarder credential, which never leaves the user's own processes (a 0600 file in the Jupyter
    runtime folder): a client holding any other token that sends the header is still itself. The
    colon keeps these names apart from every client name (`add_client` allows none).

``clientInfo.name`` is only a claim: it is shown ("claims to be ...") and never used as a key.
What outlives a call (handles, idempotency keys, kept results, rate limits, "always allow") is
scoped by the identity's name.

The server has a name too (`server_name`): stored results are scoped to the notebook that made
them, so two notebooks that define a tool of the same name never see each other's.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from ._secrets import new_token
from ._text import t
from ._visible import MAX_CLAIM_CHARS

NOTEBOOK = "notebook"
"""The identity of the notebook's own calls (reserved)."""
OWNER = "owner"
"""The identity of the server token, the notebook owner's (reserved)."""
RESERVED = (NOTEBOOK, OWNER)
JUPYTER_PREFIX = "jupyter:"
"""Identities of Jupyter users, forwarded by the Jupyter server extension: ``jupyter:alice``."""
FORWARDED_USER_HEADER = "x-mcp-notebook-user"
"""The header in which the Jupyter server extension names the user (percent-encoded UTF-8)."""
STATE_KEY = "mcp_notebook.identity"
"""Where the gate puts the `Identity` of a request: ``scope["state"][STATE_KEY]``."""

_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_MAX_FORWARDED_USERS = 4096  # distinct Jupyter users remembered; a hub has far fewer per server
MIN_TOKEN = 16
_SERVER_NAME_MAX = 100


@dataclass(frozen=True)
class Identity:
    """Who made a request, as its credential proves it.

    Attributes
    ----------
    name:
        ``"notebook"``, ``"owner"`` or a client's name (``srv.add_client(name)``).
    """

    name: str

    @property
    def is_notebook(self) -> bool:
        return self.name == NOTEBOOK


@dataclass(frozen=True)
class _Credential:
    token: bytes
    identity: Identity


class Identities:
    """The credentials one server accepts, and whom each one proves.

    Thread-safe: clients are added and revoked from a cell while the server reads on its own loop.
    Tokens are held in memory (the owner may ask for a client's configuration again); only
    their SHA-256 is used to find them.

    Parameters
    ----------
    owner_token:
        The server token (identity ``"owner"``).
    notebook_token:
        The per-process secret of the notebook's own client (identity ``"notebook"``).
    """

    def __init__(self, owner_token: str, notebook_token: str | None = None) -> None:
        self._lock = threading.Lock()
        self._by_digest: dict[bytes, _Credential] = {}
        self._tokens: dict[str, str] = {}  # name -> token
        self._known: dict[str, Identity] = {}
        self._forwarder: Identity | None = None
        self._forwarder_digest: bytes | None = None
        self._jupyter_users: dict[str, Identity] = {}
        self._set(OWNER, owner_token)
        if notebook_token:
            self._set(NOTEBOOK, notebook_token)

    # -- the hot path ----------------------------------------------------------------------------
    def identify(self, credential: bytes) -> Identity | None:
        """The identity `credential` proves, or None: one hash, one lookup, one constant-time compare."""
        found = self._by_digest.get(hashlib.sha256(credential).digest())
        if found is None or not hmac.compare_digest(found.token, credential):
            return None
        return found.identity

    def forwarded(self, identity: Identity, user: bytes | None) -> Identity | None:
        """The identity of a request whose credential proved `identity` and that named `user`.

        The forwarder's credential proves nobody by itself: it stands for the Jupyter user the
        extension names (``jupyter:<user>``), and without a well-formed name it is refused (None).
        Any other identity is itself, whatever `user` says (a header anyone can send).
        """
        if identity is not self._forwarder:
            return identity
        name = _forwarded_name(user)
        if name is None:
            return None
        found = self._jupyter_users.get(name)
        if found is None:
            if len(self._jupyter_users) >= _MAX_FORWARDED_USERS:
                self._jupyter_users.clear()  # a cache: identities compare by name
            found = self._jupyter_users[name] = Identity(JUPYTER_PREFIX + name)
        return found

    def set_forwarder(self, token: str | None) -> None:
        """Accept `token` as the Jupyter server extension's credential (None: accept it no more).

        See the module's docstring: requests with it carry the Jupyter user's name in
        ``X-MCP-Notebook-User`` and are that user's (``jupyter:<user>``).
        """
        with self._lock:
            if self._forwarder_digest is not None:
                self._by_digest.pop(self._forwarder_digest, None)
                self._forwarder = self._forwarder_digest = None
            if token is None:
                return
            _check_token(token)
            encoded = token.encode()
            digest = hashlib.sha256(encoded).digest()
            holder = self._by_digest.get(digest)
            if holder is not None:
                raise ValueError(t("identity.token_taken", other=holder.identity.name))
            self._forwarder = Identity(JUPYTER_PREFIX)
            self._forwarder_digest = digest
            self._by_digest[digest] = _Credential(encoded, self._forwarder)

    # -- clients ----------------------------------------------------------------------------------
    def add(self, name: str, token: str | None = None) -> str:
        """The token of client `name`: made now, or the one it already has (see `ServerHandle.add_client`)."""
        check_client_name(name)
        if token is not None:
            _check_token(token)
        with self._lock:
            for existing in self._tokens:
                if existing != name and existing.lower() == name.lower() and existing not in RESERVED:
                    raise ValueError(t("identity.case_clash", name=name, existing=existing))
            current = self._tokens.get(name)
            if token is None:
                if current is not None:
                    return current
                token = new_token()
            elif token != current:
                holder = self._by_digest.get(hashlib.sha256(token.encode()).digest())
                if holder is not None and holder.identity.name != name:
                    raise ValueError(t("identity.token_taken", other=holder.identity.name))
            self._set(name, token)
            return token

    def revoke(self, name: str) -> None:
        """Forget client `name`'s token: its next request is refused (401)."""
        with self._lock:
            token = self._tokens.get(name) if name not in RESERVED else None
            if token is None:
                raise self.unknown(name)
            del self._tokens[name]
            self._by_digest.pop(hashlib.sha256(token.encode()).digest(), None)

    def unknown(self, name: str) -> KeyError:
        """The error for a client name this server does not know (it lists the ones it does)."""
        known = ", ".join(repr(n) for n in self.clients()) or t("none")
        return KeyError(t("identity.unknown", name=name, known=known))

    def token_of(self, name: str) -> str | None:
        """The token of `name` (a client, or ``"owner"``), or None."""
        return self._tokens.get(name) if name != NOTEBOOK else None

    def clients(self) -> list[str]:
        """The names of the clients (without ``"owner"`` and ``"notebook"``), sorted."""
        return sorted(name for name in self._tokens if name not in RESERVED)

    def _set(self, name: str, token: str) -> None:
        old = self._tokens.get(name)
        if old is not None:
            self._by_digest.pop(hashlib.sha256(old.encode()).digest(), None)
        identity = self._known.get(name)
        if identity is None:
            identity = self._known[name] = Identity(name)
        encoded = token.encode()
        self._tokens[name] = token
        self._by_digest[hashlib.sha256(encoded).digest()] = _Credential(encoded, identity)


def _forwarded_name(user: bytes | None) -> str | None:
    """The Jupyter user's name from the header's percent-encoded UTF-8, if it is a plausible name."""
    if not user or len(user) > 1024:
        return None
    try:
        name = unquote(user.decode("ascii"), errors="strict")
    except (UnicodeDecodeError, ValueError):
        return None
    if not name or len(name) > 255 or not name.isprintable() or name != name.strip():
        return None
    return name


def check_client_name(name: Any) -> None:
    """Raise ValueError, saying why and what to use, unless `name` can name a client."""
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise ValueError(t("identity.bad_name", name=name))
    if name.lower() in RESERVED:
        raise ValueError(t("identity.reserved", name=name))


def guessable(token: Any) -> bool:
    """Whether `token` cannot serve as a credential: not a string, too short, or with spaces or controls."""
    return (
        not isinstance(token, str)
        or len(token) < MIN_TOKEN
        or any(ch.isspace() or not ch.isprintable() for ch in token)
    )


def _check_token(token: Any) -> None:
    if guessable(token):
        got = f"{len(token)} characters" if isinstance(token, str) else type(token).__name__
        raise ValueError(t("identity.bad_token", min=MIN_TOKEN, got=got))


def claims(identity: str | None, claimed: str | None) -> str | None:
    """``"claims to be X"`` when a client's self-reported name differs from its identity, else None.

    A name over `MAX_CLAIM_CHARS` is cut and its length said: a client writes it, and a screenful of
    filler in it would push what a person must read first (the tool, the buttons) out of sight.
    """
    if not claimed or claimed == identity:
        return None
    if len(claimed) > MAX_CLAIM_CHARS:
        return t("identity.claims_cut", claimed=claimed[:MAX_CLAIM_CHARS], n=len(claimed))
    return t("identity.claims", claimed=claimed)


def identity_of(ctx: Any) -> Identity:
    """The identity of the request behind `ctx` (an SDK request context), as the gate proved it.

    A request with no HTTP request behind it comes from this very process (an in-memory client):
    the notebook's own. An HTTP request the gate did not see (an app mounted without it) is nobody's
    and never trusted.
    """
    request = getattr(ctx, "request", None)
    if request is None:
        return _NOTEBOOK_IDENTITY
    state = request.scope.get("state")
    identity = state.get(STATE_KEY) if isinstance(state, dict) else None
    return identity if isinstance(identity, Identity) else _NOBODY


_NOTEBOOK_IDENTITY = Identity(NOTEBOOK)
_NOBODY = Identity("unauthenticated")


# -- the server's own name ----------------------------------------------------------------------------
def notebook_path(environ: Any = None) -> Path | None:
    """The path of the notebook this kernel runs, when the frontend said (else None).

    Jupyter servers (JupyterLab, Notebook 7) and ``mcp-notebook serve`` start the kernel with
    ``JPY_SESSION_NAME`` set to the notebook's path; nbclient and plain IPython do not.
    """
    env = os.environ if environ is None else environ
    value = env.get("JPY_SESSION_NAME", "").strip()
    if not value:
        return None
    path = Path(value)
    return path if path.is_absolute() else Path.cwd() / path.name


def default_server_name(environ: Any = None) -> str:
    """A stable name for this notebook's server: the notebook's file name and a digest of its path.

    ``orders-3f9a2c1d`` for ``.../shop/orders.ipynb``: the same after a kernel restart, different
    for an ``orders.ipynb`` in another folder. Without a known notebook path, ``untitled-<digest of
    the working folder>``.
    """
    path = notebook_path(environ)
    if path is not None:
        stem, where = path.stem, str(path)
    else:
        stem, where = "untitled", str(Path.cwd())
    readable = re.sub(r"[^\w.-]+", "-", stem).strip("-")[:60] or "notebook"
    return f"{readable}-{hashlib.sha256(where.encode()).hexdigest()[:8]}"


def check_server_name(name: Any) -> str:
    """`name` if it can name a server, else ValueError saying what to use."""
    if (
        not isinstance(name, str)
        or not name.strip()
        or len(name) > _SERVER_NAME_MAX
        or not name.isprintable()
    ):
        raise ValueError(t("server.bad_name", max=_SERVER_NAME_MAX, got=repr(name)[:120]))
    return name
