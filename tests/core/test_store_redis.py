"""What is particular to `RedisStore` (the contract it shares with every store is in test_store_contract)."""

from __future__ import annotations

import pytest

from mcp_notebook.core._store import IDEMPOTENCY, Scope, StoreError
from mcp_notebook.core._store_redis import RedisStore
from mcp_notebook.core._store_url import is_shared, open_store, store_opener
from tests.services import RedisServer, free_port

SCOPE = Scope("shop", "alice", "orders_create", "v1")


def test_a_redis_url_opens_a_redis_store_with_its_prefix(redis_server: RedisServer) -> None:
    with open_store(f"{redis_server.url}?prefix=shop:") as store:
        assert isinstance(store, RedisStore) and store.prefix == "shop:"
        store.put(IDEMPOTENCY, SCOPE, "k-000000000001", {"v": 1}, ttl=60)
        with open_store(f"{redis_server.url}?prefix=other:") as other:
            assert other.get(IDEMPOTENCY, SCOPE, "k-000000000001") is None  # apps apart on one database
    assert is_shared(redis_server.url) and not is_shared("sqlite:///x.sqlite3") and not is_shared("memory://")


def test_a_password_never_shows() -> None:
    port = free_port()  # nothing listens there
    with pytest.raises(StoreError) as caught:
        RedisStore(f"redis://app:s3cret-passw0rd@127.0.0.1:{port}/0")
    message = str(caught.value)
    assert "s3cret" not in message and f"redis://app:***@127.0.0.1:{port}/0" in message
    assert "Cannot reach the Redis server" in message and "MCP_NOTEBOOK_STORE" in message


def test_a_bad_url_fails_when_named_and_an_unreachable_server_when_opened() -> None:
    opener = store_opener(f"redis://127.0.0.1:{free_port()}/0")  # well formed: nothing opens yet
    with pytest.raises(StoreError, match="Check that it runs"):
        opener()
