"""The authorization server's signing keys (its JWKS), fetched in a way no stranger can drive.

A token names its signing key by id (``kid``), and anyone can send a token: its key id, like the
rest of it, is unverified until its signature checks out with a key we already trust. So:

- A key already fetched is answered from memory at once: no lock, and no waiting on a fetch that
  is under way (a valid token is never held up by strangers' tokens).
- A key id we do not hold may start a fetch, but at most one fetch runs at a time (the others wait
  for it, on the event loop, holding no worker thread), at most one starts every `min_interval`
  seconds, and each is cut after `timeout` seconds (`failure_backoff` seconds pass before the next
  after one that failed). A key id that a completed fetch did not have is refused for
  `unknown_ttl` seconds without another look.
- The key set is fetched again after `max_age` seconds (a key the server withdrew stops being
  trusted); when that fetch fails, the keys from before stay in use.

One `SigningKeys` serves one event loop (the app's): its bookkeeping is plain attributes changed
only between awaits.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable

import anyio
import anyio.to_thread
import jwt

logger = logging.getLogger(__name__)

_KID_MAX = 256  # longer key ids are refused, so the list of unknown ones stays small
_UNKNOWN_MAX = 4096


class KeyUnavailable(Exception):
    """No key for a token's key id: why, for the refusal's ``error_description``."""


class SigningKeys:
    """The keys at `url`, by key id.

    Parameters
    ----------
    url:
        The authorization server's JWKS URL.
    timeout:
        Seconds after which a fetch is given up.
    max_age:
        Seconds after which the key set is fetched again.
    min_interval:
        Least seconds between two fetches for key ids we do not hold.
    failure_backoff:
        Seconds without a fetch after one that failed.
    unknown_ttl:
        Seconds a key id missing from a fetched key set is refused without another fetch.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 3.0,
        max_age: float = 300.0,
        min_interval: float = 30.0,
        failure_backoff: float = 10.0,
        unknown_ttl: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # Only its download (`fetch_data`) is used: its own caches hold a lock across the fetch.
        self._client = jwt.PyJWKClient(url, cache_keys=False, cache_jwk_set=False, timeout=timeout)
        self.timeout = timeout
        self.max_age = max_age
        self.min_interval = min_interval
        self.failure_backoff = failure_backoff
        self.unknown_ttl = unknown_ttl
        self._clock = clock
        self._keys: dict[str, jwt.PyJWK] = {}
        self._fetched_at = -math.inf
        self._fetched = 0  # key sets fetched so far
        self._next_fetch = -math.inf
        self._failure: str | None = None  # why the last fetch failed; None after one that worked
        self._unknown: dict[str, float] = {}  # key id -> until when it is refused without a fetch
        self._fetching: anyio.Event | None = None

    async def key(self, kid: str) -> jwt.PyJWK:
        """The key named `kid`; raises `KeyUnavailable` saying why there is none."""
        if len(kid) > _KID_MAX:
            raise KeyUnavailable("its key id is too long")
        now = self._clock()
        held = self._keys.get(kid)
        if held is not None:
            if now - self._fetched_at > self.max_age and self._fetching is None and now >= self._next_fetch:
                await self._fetch()  # once per max_age, by whoever comes first; the rest go on
                held = self._keys.get(kid)
                if held is None:
                    raise KeyUnavailable(f"the authorization server no longer lists the key {kid!r}")
            return held
        if self._unknown.get(kid, -math.inf) > now:
            raise KeyUnavailable(f"the authorization server lists no key {kid!r}")
        fetched = self._fetched
        if self._fetching is not None:
            with anyio.move_on_after(self.timeout + 1):
                await self._fetching.wait()
        elif now >= self._next_fetch:
            await self._fetch()
        held = self._keys.get(kid)
        if held is not None:
            return held
        if self._failure is not None:
            raise KeyUnavailable(f"the authorization server's keys could not be fetched: {self._failure}")
        if self._fetched != fetched:
            self._remember_unknown(kid, now)  # the key set fetched while this token waited lacks it
        raise KeyUnavailable(f"the authorization server lists no key {kid!r}")

    async def _fetch(self) -> None:
        done = self._fetching = anyio.Event()
        try:
            keys = await anyio.to_thread.run_sync(self._download)
        except (jwt.PyJWTError, OSError, ValueError) as exc:
            self._failure = str(exc)[:200] or type(exc).__name__
            self._next_fetch = self._clock() + self.failure_backoff
            logger.warning("could not fetch the authorization server's keys: %s", self._failure)
        else:
            self._keys, self._failure = keys, None
            self._fetched += 1
            self._fetched_at = self._clock()
            self._next_fetch = self._fetched_at + self.min_interval
        finally:
            self._fetching = None
            done.set()

    def _download(self) -> dict[str, jwt.PyJWK]:
        keys = jwt.PyJWKSet.from_dict(self._client.fetch_data()).keys
        return {key.key_id: key for key in keys if key.key_id and key.public_key_use in ("sig", None)}

    def _remember_unknown(self, kid: str, now: float) -> None:
        if len(self._unknown) >= _UNKNOWN_MAX:
            self._unknown = {k: until for k, until in self._unknown.items() if until > now}
            while len(self._unknown) >= _UNKNOWN_MAX:
                del self._unknown[next(iter(self._unknown))]
        self._unknown[kid] = now + self.unknown_ttl
