"""Another process on a shared store, driven line by line from a test (``python -m tests.core.store_process``).

``run-once URL KEY``: `Store.run_once` in namespace ``idempotency``; prints ``waiting`` the first
time it waits for another process's run, ``producing`` when it runs the work itself (then waits
for a line on stdin before finishing it), and at last the value it got, as JSON.

``claim URL KEY``: claims the key, prints ``claimed``, and waits for stdin (a test kills it).

``mint URL NAME CLIENT VALUE``: mints a cart handle with `HandleStore` and prints it.

``resolve URL NAME CLIENT HANDLE``: prints what the handle resolves to, as JSON, or the error.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from mcp_notebook.core._handles import HandleError, HandleStore
from mcp_notebook.core._store import IDEMPOTENCY, Scope
from mcp_notebook.core._store_url import open_store

SCOPE = Scope("shop", "alice", "orders_create", "v1")


def say(line: str) -> None:
    print(line, flush=True)


def run_once(url: str, key: str) -> None:
    store = open_store(url)
    wait = store._wait_for_others
    told = False

    def waiting(timeout: float) -> None:
        nonlocal told
        if not told:
            told = True
            say("waiting")
        wait(timeout)

    store._wait_for_others = waiting  # type: ignore[method-assign]

    def produce() -> dict[str, Any]:
        say("producing")
        sys.stdin.readline()  # the test says when the work is done
        return {"by": os.getpid()}

    value = store.run_once(IDEMPOTENCY, SCOPE, key, {"item": "tea"}, produce, ttl=3600)
    say(json.dumps(value))
    store.close()


def claim(url: str, key: str) -> None:
    store = open_store(url)
    got = store.claim(IDEMPOTENCY, SCOPE, key, {"item": "tea"})
    say(got.status.value)
    sys.stdin.readline()


def main(argv: list[str]) -> None:
    command, url, *rest = argv
    if command == "run-once":
        run_once(url, rest[0])
    elif command == "claim":
        claim(url, rest[0])
    elif command == "mint":
        name, client, value = rest
        say(HandleStore(store=url, name=name, creator="open_cart").mint(client, "cart", json.loads(value)))
    elif command == "resolve":
        name, client, handle = rest
        try:
            say(
                json.dumps(
                    HandleStore(store=url, name=name, creator="open_cart").resolve(handle, client, "cart")
                )
            )
        except HandleError as exc:
            say(f"HandleError: {exc}")
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
