"""Which `Store` a setting names: a `Store` itself, or a URL such as ``sqlite:///state.sqlite3``.

URLs, as SQLAlchemy spells them: ``sqlite:///relative/file.sqlite3``, ``sqlite:////absolute/file``
(four slashes), ``sqlite:///~/file`` (home folder), ``sqlite://`` or ``sqlite:///:memory:`` (an
in-memory SQLite database), ``memory://`` (a `MemoryStore`), and ``redis://host:port/db``,
``rediss://`` (TLS) or ``unix:///path.sock`` with an optional ``?prefix=`` (a `RedisStore`, shared
by the replicas of an exported app; the ``redis`` package, in the ``service`` extra).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from ._store import Store
from ._store_memory import MemoryStore
from ._store_sqlite import SQLiteStore
from ._text import t


def store_opener(target: Store | str) -> Callable[[], Store]:
    """A function that opens the store `target` names; a malformed `target` fails now, not when opened.

    Parameters
    ----------
    target:
        A `Store` (returned as it is), or a URL (see the module docstring).

    Raises
    ------
    ValueError
        `target` is neither a store nor a URL of a known kind, saying what to write instead.
    """
    if isinstance(target, Store):
        return lambda: target
    if not isinstance(target, str):
        raise ValueError(t("store.bad_url", got=repr(target)[:120]))
    scheme, separator, rest = target.partition("://")
    if separator and scheme == "memory" and rest in ("", "/"):
        return MemoryStore
    if separator and scheme == "sqlite":
        if rest in ("", "/", "/:memory:"):
            return lambda: SQLiteStore(":memory:")
        if rest.startswith("/") and len(rest) > 1:
            path = os.path.expanduser(rest[1:])
            return lambda: SQLiteStore(path)
    if separator and scheme in _REDIS_SCHEMES and rest:
        return lambda: _redis_store(target)
    raise ValueError(t("store.bad_url", got=repr(target)[:120]))


_REDIS_SCHEMES = ("redis", "rediss", "unix")


def _redis_store(url: str) -> Store:
    # Imported when a Redis URL is opened, not before: the `redis` package is an optional
    # dependency (the `service` extra), which a notebook that never names Redis need not install.
    try:
        from ._store_redis import RedisStore
    except ImportError as exc:
        raise ValueError(t("store.redis_missing", error=exc)) from exc
    return RedisStore(url)


def is_shared(target: Store | str) -> bool:
    """Whether `target` names a store that other machines can share (a networked one: Redis)."""
    if isinstance(target, Store):
        return target.networked
    return isinstance(target, str) and target.partition("://")[0] in _REDIS_SCHEMES


# The store and name of the server this process serves (set by `serve()` and by an exported app):
# `HandleStore(shared=True)` keeps its handles there, so they follow the server's store.
_serving: tuple[Callable[[], Store], str] | None = None


def serve_store_as(opener: Callable[[], Store], name: str) -> None:
    """Make `opener`'s store (and `name`) the one of the server this process serves."""
    global _serving
    _serving = (opener, name)


def serving_store() -> tuple[Callable[[], Store], str] | None:
    """The store opener and name of the server this process serves, or None before one starts."""
    return _serving


def open_store(target: Store | str) -> Store:
    """The store `target` names, opened (see `store_opener`)."""
    return store_opener(target)()
