"""`RedisStore`: a `Store` in Redis, shared by the replicas of an exported app behind a load balancer.

Each primitive is one Lua script, which Redis runs atomically: two replicas never both claim a
key, and a value, its expiry and its place in the indexes change together. How, each a choice:

- **An entry is a hash** (definition, value or claim, request digest, expiry), at a key built from
  digests of its address (namespace, server, identity, tool, key): any text is a safe address, and
  the scripts can read the namespace and server back from an index's members.
- **Expiry follows the store's clock** (``time.time``, injected in tests), stored in the entry and
  compared by the scripts, so every replica and the contract agree on it; Redis also expires each
  entry itself a minute after that (``PEXPIRE``), so a store nobody purges never keeps a value for
  long past its time.
- **Indexes are sorted sets**: every entry by expiry (`purge`), the values of a namespace by
  expiry, for all servers and for each (`count`), and by age (`trim`, oldest first; an age is a
  counter, so replicas agree on the order).
- **A claim names its holder**: host, process, store instance and the Redis connection the
  instance keeps open for it. A holder whose connection is gone (a killed replica) has abandoned
  its claim, which the next claim takes over at once rather than after its lease; closing a store
  releases its claims. A Redis server whose ``CLIENT LIST`` is denied (an ACL) leaves only the lease.

One Redis server (or a primary with replicas, behind Sentinel): not Redis Cluster, where a script
may only touch keys of one slot. Values are JSON.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import redis

from ._changes import ChangeFeed
from ._store import Claim, ClaimStatus, Slot, Store, StoreError, StoreValueError
from ._text import t

DEFAULT_PREFIX = "mcp-notebook:"
_GRACE_MS = 60_000  # Redis's own expiry of an entry comes this long after the store's
_HOST = socket.gethostname()

# The index keys of an entry, in the order every script takes them.
_KEYS = "entry, all-by-expiry, namespace-values, server-values, server-ages, age-counter"

_PUT = """
local expires = string.format('%.17g', tonumber(ARGV[3]) + tonumber(ARGV[4]))
local age = redis.call('INCR', KEYS[6])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'd', ARGV[1], 'v', ARGV[2], 'g', ARGV[6], 'r', ARGV[7], 'x', expires)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], expires, KEYS[1])
redis.call('ZADD', KEYS[3], expires, KEYS[1])
redis.call('ZADD', KEYS[4], expires, KEYS[1])
redis.call('ZADD', KEYS[5], age, KEYS[1])
if ARGV[8] == '1' then
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
  for _, member in ipairs(expired) do
    forget(member, KEYS[2], ARGV[9])
  end
end
return 1
"""

# Forget one entry (its hash and its index entries), by its key: the namespace and the server's
# digest are read back from the key itself.
_FORGET = """
local function forget(member, by_expiry, prefix)
  local ns, sid = string.match(member, 'e:([a-z0-9-]+):(%x+):%x+$')
  redis.call('DEL', member)
  redis.call('ZREM', by_expiry, member)
  if ns then
    redis.call('ZREM', prefix .. 'v:' .. ns, member)
    redis.call('ZREM', prefix .. 'v:' .. ns .. ':' .. sid, member)
    redis.call('ZREM', prefix .. 'a:' .. ns .. ':' .. sid, member)
  end
end
"""

_DELETE = """
local found = redis.call('HMGET', KEYS[1], 'h', 'x')
if found[2] and not found[1] and tonumber(found[2]) > tonumber(ARGV[1]) then
  forget(KEYS[1], KEYS[2], ARGV[2])
  return 1
end
return 0
"""

_CLAIM = """
local now = tonumber(ARGV[4])
local e = redis.call('HMGET', KEYS[1], 'd', 'v', 'h', 'g', 'r', 'x')
if e[6] then
  if tonumber(e[6]) <= now or (e[3] and e[3] == ARGV[8]) then
    forget(KEYS[1], KEYS[2], ARGV[9])
  else
    return {'found', e[1], e[2] or false, e[3] or false, e[4] or false, e[5] or false}
  end
end
local expires = string.format('%.17g', now + tonumber(ARGV[5]))
redis.call('HSET', KEYS[1], 'd', ARGV[1], 'h', ARGV[6], 'g', ARGV[2], 'r', ARGV[3], 'x', expires)
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('ZADD', KEYS[2], expires, KEYS[1])
return {'claimed'}
"""

_COMPLETE = """
local e = redis.call('HMGET', KEYS[1], 'h', 'x')
if e[2] and not e[1] and tonumber(e[2]) > tonumber(ARGV[3]) then
  return 0
end
"""

_RELEASE = """
if redis.call('HGET', KEYS[1], 'h') == ARGV[1] then
  forget(KEYS[1], KEYS[2], ARGV[2])
  return 1
end
return 0
"""

_TRIM = """
local limit = tonumber(ARGV[2])
if redis.call('ZCARD', KEYS[2]) <= limit then
  return 0
end
local removed = 0
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])) do
  forget(member, KEYS[3], ARGV[3])
  removed = removed + 1
end
local over = redis.call('ZCARD', KEYS[2]) - limit
if over > 0 then
  for _, member in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do
    forget(member, KEYS[3], ARGV[3])
    removed = removed + 1
  end
end
return removed
"""

_PURGE = """
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, member in ipairs(expired) do
  forget(member, KEYS[1], ARGV[2])
end
return #expired
"""

# A bucket of tokens (rate limits): refilled at `rate` per second up to `burst`, one taken per call.
_TAKE = """
local now = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local found = redis.call('HMGET', KEYS[1], 'n', 't')
local tokens, last = burst, now
if found[1] then
  tokens, last = tonumber(found[1]), tonumber(found[2])
  tokens = math.min(burst, tokens + math.max(0, now - last) * rate)
  last = math.max(last, now)
end
local wait = -1
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = (1 - tokens) / rate
end
-- %.17g: Lua's tostring keeps 14 digits, too few for a token count at today's time in seconds
redis.call('HSET', KEYS[1], 'n', string.format('%.17g', tokens), 't', string.format('%.17g', last))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return string.format('%.17g', wait)
"""


class RedisStore(Store):
    """A `Store` in a Redis server, shared by every process (and replica) that opens it.

    Parameters
    ----------
    url:
        ``redis://[[user]:password@]host[:port][/db]``, ``rediss://`` for TLS, or
        ``unix:///path/redis.sock``; ``?prefix=...`` sets `prefix`.
    prefix:
        Put before every key this store writes: two apps on one Redis database keep apart.
    clock:
        Wall-clock seconds (``time.time``): replicas must agree on it.
    client:
        A ``redis.Redis`` to use instead of one made from `url` (it must return ``str``).
    """

    networked = True

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str | None = None,
        clock: Callable[[], float] = time.time,
        client: Any = None,
    ) -> None:
        super().__init__(clock=clock)
        address, url_prefix = _split_prefix(url)
        self.prefix = prefix if prefix is not None else (url_prefix or DEFAULT_PREFIX)
        self._shown = _without_password(address)
        self._redis = client if client is not None else redis.Redis.from_url(address, decode_responses=True)
        self._token = secrets.token_hex(8)
        self._lock = threading.Lock()
        self._held: dict[str, str] = {}  # entry key -> holder, for the claims this instance runs now
        self._presence: Any = None  # the connection whose life says this instance is alive
        self._holder = ""
        try:
            self._scripts = {
                name: self._redis.register_script(_FORGET + body if "forget(" in body else body)
                for name, body in (
                    ("put", _PUT),
                    ("delete", _DELETE),
                    ("claim", _CLAIM),
                    ("release", _RELEASE),
                    ("trim", _TRIM),
                    ("purge", _PURGE),
                    ("take", _TAKE),
                )
            }
            self._scripts["complete"] = self._redis.register_script(
                _FORGET + _COMPLETE + _PUT.replace("ARGV[8] == '1'", "false")
            )
            self._redis.ping()
        except redis.RedisError as exc:
            raise StoreError(t("store.redis_unreachable", url=self._shown, error=exc)) from exc

    def __repr__(self) -> str:
        return f"RedisStore({self._shown!r}, prefix={self.prefix!r})"

    # -- addresses ------------------------------------------------------------------------------------
    def _keys(self, slot: Slot) -> list[str]:
        p, ns = self.prefix, slot.namespace
        server = _digest(slot.server, 24)
        rest = _digest(json.dumps([slot.identity, slot.tool, slot.key], ensure_ascii=False), 32)
        return [
            f"{p}e:{ns}:{server}:{rest}",
            f"{p}x",
            f"{p}v:{ns}",
            f"{p}v:{ns}:{server}",
            f"{p}a:{ns}:{server}",
            f"{p}age",
        ]

    def _json(self, value: Any) -> str:
        try:
            return json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            got = f"{type(value).__name__} {value!r}"[:120]
            raise StoreValueError(t("store.not_json", store="RedisStore", got=got)) from exc

    def _call(self, name: str, keys: list[str], args: list[Any]) -> Any:
        try:
            return self._scripts[name](keys=keys, args=args)
        except redis.RedisError as exc:
            raise StoreError(t("store.redis_failed", url=self._shown, error=exc)) from exc

    # -- the primitives -------------------------------------------------------------------------------
    def _get(self, slot: Slot, definition: str, default: Any) -> Any:
        try:
            found = self._redis.hmget(self._keys(slot)[0], "d", "v", "h", "x")
        except redis.RedisError as exc:
            raise StoreError(t("store.redis_failed", url=self._shown, error=exc)) from exc
        stored_definition, value, holder, expires = found
        if value is None or holder is not None or expires is None or float(expires) <= self.now():
            return default
        if stored_definition != definition:
            return default
        return json.loads(value)

    def _write_args(self, definition: str, text: str, now: float, ttl: float) -> list[Any]:
        return [definition, text, repr(now), repr(ttl), _native_ms(ttl)]

    def _put(self, slot: Slot, definition: str, value: Any, ttl: float) -> None:
        text = self._json(value)
        now = self.now()
        purge = "1" if self._purge_due(now) else "0"
        args = [*self._write_args(definition, text, now, ttl), "", "", purge, self.prefix]
        self._call("put", self._keys(slot), args)

    def _delete(self, slot: Slot) -> bool:
        return bool(self._call("delete", self._keys(slot)[:2], [repr(self.now()), self.prefix]))

    def _claim(self, slot: Slot, definition: str, digest: str, request: Any, lease: float) -> Claim:
        keys = self._keys(slot)
        request_json = json.dumps(request, ensure_ascii=False)  # JSON already: its digest was taken
        holder = self._claimant()
        dead = ""
        while True:
            now = self.now()
            args = [definition, digest, request_json, repr(now), repr(lease), holder, _native_ms(lease)]
            found = self._call("claim", keys[:2], [*args, dead, self.prefix])
            if found[0] == "claimed":
                with self._lock:
                    self._held[keys[0]] = holder
                return Claim(slot, ClaimStatus.CLAIMED, definition, holder, request=request, digest=digest)
            _, stored_definition, value, stored_holder, stored_digest, stored_request = found
            if stored_holder and not dead and not self._alive(stored_holder):
                dead = stored_holder  # its process is gone: take the claim over, if it still holds it
                continue
            running = bool(stored_holder)
            return self._classify(
                slot,
                definition,
                digest,
                stored_definition=stored_definition,
                stored_digest=stored_digest or None,
                stored_request=json.loads(stored_request) if stored_request else None,
                running=running,
                value=None if running else json.loads(value),
            )

    def _complete(self, claim: Claim, value: Any, ttl: float) -> None:
        text = self._json(value)
        keys = self._keys(claim.slot)
        request = json.dumps(claim.request, ensure_ascii=False)
        args = [*self._write_args(claim.definition, text, self.now(), ttl), claim.digest, request, "0", ""]
        self._call("complete", keys, args)
        with self._lock:
            self._held.pop(keys[0], None)

    def _release(self, claim: Claim) -> None:
        keys = self._keys(claim.slot)
        self._call("release", keys[:2], [claim.holder, self.prefix])
        with self._lock:
            self._held.pop(keys[0], None)

    def _count(self, namespace: str, server: str | None) -> int:
        key = f"{self.prefix}v:{namespace}"
        if server is not None:
            key += f":{_digest(server, 24)}"
        try:
            return int(self._redis.zcount(key, f"({self.now()!r}", "+inf"))
        except redis.RedisError as exc:
            raise StoreError(t("store.redis_failed", url=self._shown, error=exc)) from exc

    def _trim(self, namespace: str, server: str, limit: int) -> int:
        sid = _digest(server, 24)
        keys = [
            f"{self.prefix}v:{namespace}:{sid}",
            f"{self.prefix}a:{namespace}:{sid}",
            f"{self.prefix}x",
        ]
        return int(self._call("trim", keys, [repr(self.now()), limit, self.prefix]))

    def _purge(self, now: float) -> int:
        return int(self._call("purge", [f"{self.prefix}x"], [repr(now), self.prefix]))

    def _take(self, slot: Slot, rate: float, burst: int) -> float | None:
        key = self._keys(slot)[0]
        keep = _native_ms(burst / rate)  # a bucket left alone that long is full again: gone is the same
        wait = float(self._call("take", [key], [repr(self.now()), repr(rate), burst, keep]))
        return None if wait < 0 else wait

    def _close(self) -> None:
        with self._lock:
            held, self._held = dict(self._held), {}
        try:
            for key, holder in held.items():  # runs that never finished free their keys now
                self._scripts["release"](keys=[key, f"{self.prefix}x"], args=[holder, self.prefix])
        except redis.RedisError:
            pass  # an unreachable server: the claims are abandoned with the presence connection
        finally:
            if self._presence is not None:
                self._presence.disconnect()
            self._redis.close()

    # -- changes: pub/sub ------------------------------------------------------------------------------
    def changes(self, channel: str) -> ChangeFeed:
        """Follow `channel` through Redis pub/sub: what any process on this Redis publishes."""
        self._check_open()
        name = f"{self.prefix}changes:{channel}"
        try:
            listener = self._redis.pubsub(ignore_subscribe_messages=True)
            listener.subscribe(name)
        except redis.RedisError as exc:
            raise StoreError(t("store.redis_failed", url=self._shown, error=exc)) from exc
        return _PubSubFeed(self, name, listener)

    def _publish_change(self, name: str, event: Any) -> None:
        self._check_open()
        try:
            self._redis.publish(name, self._json(event))
        except redis.RedisError as exc:
            raise StoreError(t("store.redis_failed", url=self._shown, error=exc)) from exc

    # -- who holds a claim --------------------------------------------------------------------------------
    def _claimant(self) -> str:
        """This instance's holder name, naming the connection that stays open while it lives."""
        with self._lock:
            if self._presence is None or not self._holder:
                client_id = ""
                try:
                    connection = self._redis.connection_pool.make_connection()
                    connection.connect()
                    connection.send_command("CLIENT", "SETNAME", f"mcp-notebook-{self._token}")
                    connection.read_response()
                    connection.send_command("CLIENT", "ID")
                    client_id = str(connection.read_response())
                    self._presence = connection
                except redis.RedisError:
                    client_id = ""  # no CLIENT command here: only the lease can tell
                self._holder = f"{_HOST}|{os.getpid()}|{self._token}|{client_id}"
            return self._holder

    def _alive(self, holder: str) -> bool:
        """Whether the holder of a claim may still be running it (True when it cannot be told)."""
        parts = holder.split("|")
        if len(parts) != 4 or not parts[3].isdigit():
            return True
        try:
            listed = self._redis.client_list(client_id=[int(parts[3])])
        except redis.RedisError:
            return True
        return any(client.get("name") == f"mcp-notebook-{parts[2]}" for client in listed)


class _PubSubFeed(ChangeFeed):
    """A Redis pub/sub channel, heard on a connection of its own."""

    def __init__(self, store: RedisStore, name: str, listener: Any) -> None:
        self._store, self._name, self._listener = store, name, listener
        self._closed = False

    def publish(self, event: Mapping[str, Any]) -> None:
        self._store._publish_change(self._name, dict(event))

    def read(self, wait: float) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        deadline = time.monotonic() + wait
        while not self._closed:
            # Once one event is here, only what has already arrived; before, up to the deadline (a
            # None may also be a subscribe confirmation, which redis-py swallows).
            timeout = 0.0 if events else deadline - time.monotonic()
            if timeout < 0:
                break
            try:
                message = self._listener.get_message(timeout=timeout)
            except (redis.RedisError, ValueError, AttributeError, RuntimeError):
                # Closed meanwhile, or the connection broke: redis-py reconnects and subscribes again
                # on the next read (what was published in between is lost: subscribers re-read).
                break
            if message is None:
                if events:
                    break
                continue
            if message.get("type") == "message":
                try:
                    events.append(json.loads(message["data"]))
                except ValueError:
                    continue  # not one of ours
        return events

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            with contextlib.suppress(Exception):
                self._listener.close()


def _digest(text: str, size: int) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:size]


def _native_ms(seconds: float) -> int:
    return math.ceil(seconds * 1000) + _GRACE_MS


def _split_prefix(url: str) -> tuple[str, str | None]:
    """The URL without its ``prefix`` query parameter, and that parameter."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    prefix = next((value for key, value in query if key == "prefix"), None)
    rest = urlencode([(key, value) for key, value in query if key != "prefix"])
    return urlunsplit(parts._replace(query=rest)), prefix


def _without_password(url: str) -> str:
    """`url` as it may be shown: a password in it is replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = f"{parts.username}:" if parts.username else ":"
    host = parts.hostname or ""
    if parts.port is not None:
        host += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=f"{user}***@{host}"))
