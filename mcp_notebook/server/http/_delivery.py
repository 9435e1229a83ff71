"""`DeliveryWatch`: whether each response reached its client whole, under any ASGI server.

The in-kernel server's own connection (`_connections`) sees its socket; an exported app runs under
whatever server its operator chose (uvicorn, with or without ``--workers``, gunicorn's uvicorn
workers, ...), and sees only ASGI's ``send`` and ``receive``. What those say when a client leaves
mid-answer:

- uvicorn (both of its HTTP implementations) marks the request disconnected when its connection is
  lost; a ``send`` after that returns at once and writes nothing (no error), and a ``receive`` returns
  ``http.disconnect``. A ``send`` whose bytes are still above the write buffer's high-water mark waits
  until they drain below it, or until the connection is lost.
- a server that follows ASGI 2.4 raises `OSError` from a ``send`` on a closed connection.

So, for each POST (a tools/call among them), once its request body has been read, one task listens
for ``http.disconnect``: it is the only reader of ``receive`` from then on, and hands what it heard to
the app's own listeners (Starlette's and the SDK's), so that no listener takes the message from
another on a server whose ``receive`` is a queue. The last body of the response is sent as its bytes,
then an empty end: the end waits for the bytes to drain, so a client that leaves mid-body is heard
before the response counts as sent. The response is delivered when its end was sent with no
``http.disconnect`` heard and no error; otherwise it is not. What is still in the server's write
buffer (below uvicorn's 64 KiB mark) or the system's socket buffer when a client leaves after that
counts as delivered: TCP says no more, as for the in-kernel server.

The request's `_pipeline.Delivery` goes in its scope, where the pipeline finds it for the audit line.
A scope that has one already (the in-kernel server's connection tracks it itself) passes through.
"""

from __future__ import annotations

import anyio
from anyio.abc import TaskGroup
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .._pipeline import DELIVERY, Delivery

_DRAINED_FIRST = 64 * 1024  # a last body above uvicorn's high-water mark: its end waits for it to drain
_GONE: Message = {"type": "http.disconnect"}


class DeliveryWatch:
    """ASGI middleware: a `Delivery` for each POST, settled when its response is sent whole or cut."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or DELIVERY in scope:
            await self.app(scope, receive, send)
            return
        delivery = Delivery()
        scope[DELIVERY] = delivery
        failed: Exception | None = None
        async with anyio.create_task_group() as group:
            watch = _Watch(receive, send, delivery, group)
            try:
                await self.app(scope, watch.receive, watch.send)
            except Exception as exc:  # raised after the group, as itself (not in an exception group)
                failed = exc
            finally:
                delivery.settle(
                    False
                )  # no-op once settled; an app that never ended its response did not deliver
                group.cancel_scope.cancel()  # the listener: nothing more to hear
        if failed is not None:
            raise failed


class _Watch:
    """One request's ``receive`` and ``send`` as the app sees them, and what they tell of its client."""

    def __init__(self, receive: Receive, send: Send, delivery: Delivery, group: TaskGroup) -> None:
        self._receive, self._send = receive, send
        self.delivery = delivery
        self.group = group
        self.gone = False  # the server said the client left (or sending failed)
        self.listening = False  # the body is read: only the listener reads `receive` now
        self.heard = anyio.Event()  # the listener heard the end (or the response ended)

    async def receive(self) -> Message:
        if self.listening:
            await self.heard.wait()
            return _GONE
        message = await self._receive()
        if message["type"] == "http.disconnect":
            self.gone = True
        elif not message.get("more_body", False):
            self.listening = True
            self.group.start_soon(self._listen)
        return message

    async def _listen(self) -> None:
        try:
            message = await self._receive()
        except Exception:  # a server that says it by raising: the connection is gone either way
            message = _GONE
        if message["type"] == "http.disconnect" and self.delivery.delivered is None:
            self.gone = True
        self.heard.set()

    async def send(self, message: Message) -> None:
        last = message["type"] == "http.response.body" and not message.get("more_body", False)
        if not last:
            await self._sent(message)
            return
        body = message.get("body", b"")
        if len(body) > _DRAINED_FIRST:
            await self._sent({**message, "more_body": True})
            message = {"type": "http.response.body", "body": b"", "more_body": False}
        await self._sent(message)
        # Settled now, before anything else runs: once the response has ended, uvicorn's `receive`
        # says ``http.disconnect`` whether or not the client left. A connection lost while the end
        # waited to drain woke the listener first (uvicorn sets the request's message event before
        # it resumes writing), so `gone` already says so.
        self.delivery.settle(not self.gone)
        self.heard.set()  # the app's own listeners: the response has ended, as uvicorn would say

    async def _sent(self, message: Message) -> None:
        try:
            await self._send(message)
        except OSError:  # ASGI 2.4: sending on a closed connection
            self.gone = True
            self.delivery.settle(False)
            raise
