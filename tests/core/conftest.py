"""What the store tests share: one real redis-server for the session (Debian's, on a free port)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.services import RedisServer


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    try:
        yield server
    finally:
        server.stop()
