"""When a server the notebook calls asks for input, a person answers it.

Both eras reach the same callbacks of the SDK client: 2025-11-25 pushes ``elicitation/create`` and
``sampling/createMessage`` requests; 2026-07-28 answers ``input_required`` and the client retries.
The form that asks comes from the UI layer (display kinds ``"elicitation_form"`` and
``"sampling_form"``: an object with an ``answer`` future on the client's loop). A cell cannot wait
for a click, so each question goes to the `inbox` and wakes the waiting cell, which stops waiting
and shows the questions with the call's result to come (`mcp_notebook.client._requests`).
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from typing import Any

from ..core import _ui

inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
_wakers: list[Callable[[], None]] = []


def on_request(waker: Callable[[], None]) -> Callable[[], None]:
    """Call `waker()` whenever a request for input arrives (a waiting cell stops waiting)."""
    _wakers.append(waker)
    return lambda: _wakers.remove(waker) if waker in _wakers else None


def _asked(question: Any) -> Any:
    inbox.put(question)
    for waker in list(_wakers):
        waker()
    return question


async def elicitation_callback(context: Any, params: Any) -> Any:
    return await _asked(_ui.make("elicitation_form", params)).answer


async def sampling_callback(context: Any, params: Any) -> Any:
    return await _asked(_ui.make("sampling_form", params)).answer


def take_questions() -> list[Any]:
    questions = []
    while True:
        try:
            questions.append(inbox.get_nowait())
        except queue.Empty:
            return questions
