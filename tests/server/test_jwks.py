"""`SigningKeys`: the issuer's keys over real HTTP (`tests.oauth`), with a clock the test moves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mcp_notebook.server.http._jwks import KeyUnavailable, SigningKeys
from tests.oauth import KEY_ID, AuthorizationServer


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def authority() -> Iterator[AuthorizationServer]:
    server = AuthorizationServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.anyio
async def test_keys_are_fetched_again_when_old_and_kept_when_that_fails(
    authority: AuthorizationServer,
) -> None:
    clock = Clock()
    keys = SigningKeys(authority.jwks_url, max_age=300, failure_backoff=10, clock=clock)
    assert (await keys.key(KEY_ID)).key_id == KEY_ID
    clock.now += 100
    await keys.key(KEY_ID)
    assert authority.fetched == 1  # from memory

    clock.now += 201  # older than max_age: fetched again
    authority.failing = True
    assert (await keys.key(KEY_ID)).key_id == KEY_ID  # the refresh failed: the keys from before serve
    assert authority.fetched == 2
    await keys.key(KEY_ID)
    assert authority.fetched == 2  # not again before failure_backoff

    clock.now += 11
    authority.failing = False
    await keys.key(KEY_ID)
    assert authority.fetched == 3


@pytest.mark.anyio
async def test_an_unknown_key_id_is_refused_for_a_while_without_a_fetch(
    authority: AuthorizationServer,
) -> None:
    clock = Clock()
    keys = SigningKeys(authority.jwks_url, min_interval=30, unknown_ttl=300, clock=clock)
    with pytest.raises(KeyUnavailable, match="lists no key 'made-up'"):
        await keys.key("made-up")
    assert authority.fetched == 1
    clock.now += 60  # past min_interval, but this key id was missing from the last key set
    with pytest.raises(KeyUnavailable):
        await keys.key("made-up")
    with pytest.raises(KeyUnavailable):
        await keys.key("x" * 257)
    assert authority.fetched == 1
    clock.now += 250  # past unknown_ttl: it may be a new key
    with pytest.raises(KeyUnavailable):
        await keys.key("made-up")
    assert authority.fetched == 2
    assert (await keys.key(KEY_ID)).key_id == KEY_ID
