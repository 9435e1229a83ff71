"""The HTTP clients this package opens to MCP servers, all made one way.

httpx builds a TLS context for every client it makes, reading the system's certificate store each
time (about 20 ms and a few hundred kB of work), even for a plain ``http://127.0.0.1`` URL that
never uses it. A notebook opens a client for each connection of its pool, each check of a lesson and
each connection test, so the context is made once per process and shared: an `ssl.SSLContext` is
safe to share across clients and threads. Certificate settings read from the environment
(``SSL_CERT_FILE``) are read when the first client is made.
"""

from __future__ import annotations

import functools
import ssl
from typing import Any

import httpx2


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's own default TLS context, made once."""
    return httpx2.create_ssl_context()


def http_client(**options: Any) -> httpx2.AsyncClient:
    """An `httpx2.AsyncClient` with `options` (headers, timeout, auth ...) and the shared TLS context."""
    return httpx2.AsyncClient(verify=tls_context(), **options)
