"""What a question to the client and its answer look like on the wire (elicitation, sampling, roots).

Pure: no `mcp` import. `Context` (`_context.py`) asks; this module holds the shapes: the answers a
client sends back (``inputResponses`` on 2026-07-28, results on 2025-11-25) as tool code gets them,
the server's own record inside a ``requestState`` (which the SDK seals before it leaves), and the
`RoundLedger` that lets each such state be answered once. The form of an elicitation, and the class
an answer is validated into, are `_forms.py`'s.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from ._store import KEY_MAX, ROUNDS, Scope, Store
from ._text import t

ELICIT = "elicitation/create"
SAMPLE = "sampling/createMessage"
ROOTS = "roots/list"
CAPABILITY = {ELICIT: "elicitation", SAMPLE: "sampling", ROOTS: "roots"}
KEY_PREFIX = {ELICIT: "elicit", SAMPLE: "sample", ROOTS: "roots"}


FormT = TypeVar("FormT")


@dataclass(frozen=True)
class Elicitation(Generic[FormT]):
    """A person's answer to `Context.elicit`: ``action`` is accept, decline or cancel.

    Attributes
    ----------
    action:
        ``"accept"`` (the form was filled in and sent), ``"decline"`` or ``"cancel"``.
    content:
        The accepted answer as the client sent it: JSON values by field name (``None`` otherwise).
    data:
        With a class as the form (a pydantic model, a dataclass or a TypedDict): the accepted answer
        validated into it, e.g. a ``Party`` whose ``people`` is an ``int``. ``None`` when the answer
        was declined or cancelled, and for a form given as a mapping or a JSON Schema.
    """

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None
    data: FormT | None = None

    @property
    def accepted(self) -> bool:
        return self.action == "accept"

    def get(self, field: str, default: Any = None) -> Any:
        """One field of the accepted form (``default`` if declined, cancelled or left empty)."""
        return (self.content or {}).get(field, default)


class InputRequired(BaseException):
    """Ends a 2026-07-28 round: the client must answer `requests`; `answers` so far ride the state."""

    def __init__(self, requests: dict[str, dict[str, Any]], answers: dict[str, Any]) -> None:
        super().__init__(sorted(requests))
        self.requests = requests
        self.answers = answers


class ProtocolRefusal(Exception):
    """The request cannot be served as asked (e.g. a client capability is missing): a protocol error."""

    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


UNANSWERED = object()


def parse_answer(method: str, raw: Any) -> Any:
    """A client's answer in the shape tool code gets, or `UNANSWERED` if it is not a valid answer."""
    if not isinstance(raw, Mapping):
        return UNANSWERED
    if method == ELICIT:
        action = raw.get("action")
        content = raw.get("content")
        if action not in ("accept", "decline", "cancel") or not (
            content is None or isinstance(content, Mapping)
        ):
            return UNANSWERED
        return Elicitation(action, dict(content) if content is not None else None)
    if method == SAMPLE:
        content = raw.get("content")
        blocks = content if isinstance(content, list) else [content]
        texts = [b.get("text") for b in blocks if isinstance(b, Mapping) and b.get("type") == "text"]
        if not blocks or not all(isinstance(text, str) for text in texts):
            return UNANSWERED
        return "".join(str(text) for text in texts)
    roots = raw.get("roots")
    if not isinstance(roots, list) or not all(isinstance(r, Mapping) and "uri" in r for r in roots):
        return UNANSWERED
    return [dict(r) for r in roots]


_STATE_VERSION = 2  # 2 added the round id and the questions asked: a state without them is refused


def state_of(plaintext: Any) -> dict[str, Any]:
    """The server's own record inside a (verified, unsealed) ``requestState``; ``{}`` if none."""
    if not isinstance(plaintext, str):
        return {}
    try:
        state = json.loads(plaintext)
    except ValueError:
        return {}
    return state if isinstance(state, dict) and state.get("v") == _STATE_VERSION else {}


def new_state(answers: Mapping[str, Any], *, approved: bool, asked: list[str], round_id: str) -> str:
    """The plaintext ``requestState`` of the next round (the SDK seals it before it leaves).

    `asked`: the keys of this round's questions (only their answers are read next round);
    `round_id`: the round's entry in the `RoundLedger` (the state can be answered once).
    """
    state = {
        "v": _STATE_VERSION,
        "answers": dict(answers),
        "approved": approved,
        "asked": list(asked),
        "round": round_id,
    }
    return json.dumps(state, separators=(",", ":"))


def this_rounds_answers(state: Mapping[str, Any], responses: Any) -> dict[str, Any] | None:
    """The ``inputResponses`` a round may use: with a state, only the answers to that round's questions.

    An answer is bound to its round: once a state names the questions of a round, a response to
    any other question (a later one, sent early, or an earlier one, rewritten) is never read (spec
    2026-07-28 basic/patterns/mrtr: unexpected responses SHOULD be ignored). A first call carries
    no state and may bring answers up front; the tool reads those it asks for and nothing else (the
    conformance suite's ``input-required-result-ignore-extra-params`` expects exactly that).
    """
    if not isinstance(responses, dict):
        return None
    asked = state.get("asked")
    if not isinstance(asked, list):
        return dict(responses)  # the first round: no earlier answers to protect
    return {key: responses[key] for key in asked if isinstance(key, str) and key in responses}


class RoundLedger:
    """The rounds of 2026-07-28 calls that wait for answers; each round can be answered once.

    The SDK's seal proves the server issued a ``requestState``, to whom, and for which call, but not
    that it is unused: within its lifetime the same state could come back again and again with new
    answers, and a call a person approved once would run each time. So each state names a round,
    and answering takes the round out of this ledger (spec 2026-07-28 basic/patterns/mrtr: a state
    that must be consumed at most once MUST be enforced server-side).

    Thread-safe and bounded: at most `max_open` rounds wait at once; past that the oldest are
    forgotten, and answering one of those asks the client to start again (never a second run).

    Parameters
    ----------
    ttl:
        Seconds a round stays open (the sealed state's own lifetime).
    max_open:
        How many rounds may wait at once.
    clock:
        Seconds from a monotonic clock (injected in tests).
    """

    def __init__(
        self, ttl: float = 600.0, max_open: int = 10_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self.max_open = max_open
        self._clock = clock
        self._open: OrderedDict[str, tuple[str, float]] = OrderedDict()  # round -> (identity, expires)
        self._lock = threading.Lock()

    def open(self, identity: str) -> str:
        """A new round for `identity`: its id, to go inside the sealed state."""
        round_id = secrets.token_urlsafe(16)
        with self._lock:
            now = self._clock()
            while self._open and next(iter(self._open.values()))[1] <= now:
                self._open.popitem(last=False)
            while len(self._open) >= self.max_open:
                self._open.popitem(last=False)
            self._open[round_id] = (identity, now + self.ttl)
        return round_id

    def close(self, round_id: Any, identity: str) -> bool:
        """Answer the round: True the first time, by the identity it was opened for, before it expires."""
        if not isinstance(round_id, str):
            return False
        with self._lock:
            entry = self._open.get(round_id)
            if entry is None or entry[0] != identity:
                return False
            del self._open[round_id]
            return self._clock() < entry[1]

    shared = False
    """Whether the ledger lives in a shared store (then it is asked off the server's loop)."""

    def __len__(self) -> int:
        with self._lock:
            return len(self._open)


class StoredRounds(RoundLedger):
    """A `RoundLedger` in a `Store` (namespace `ROUNDS`), for replicas: each round is answered once,
    by whichever replica its answer reaches (the store's `delete` is true once).

    Parameters
    ----------
    store:
        Opens the store on first use (the server's `Guardrails.store`).
    server:
        The server's name, which scopes the rounds (with the identity they were opened for).
    ttl:
        Seconds a round stays open (the sealed state's own lifetime).
    """

    shared = True

    def __init__(self, store: Callable[[], Store], server: str, ttl: float = 600.0) -> None:
        super().__init__(ttl=ttl)
        self._store = store
        self.server = server

    def open(self, identity: str) -> str:
        round_id = secrets.token_urlsafe(16)
        self._store().put(ROUNDS, Scope(self.server, identity), round_id, True, ttl=self.ttl)
        return round_id

    def close(self, round_id: Any, identity: str) -> bool:
        if not isinstance(round_id, str) or not 0 < len(round_id) <= KEY_MAX:
            return False
        return self._store().delete(ROUNDS, Scope(self.server, identity), round_id)

    def __len__(self) -> int:
        return self._store().count(ROUNDS, self.server)


def answer_round(ledger: RoundLedger, plaintext: Any, identity: str) -> dict[str, Any]:
    """The server's record in a verified ``requestState``, its round now answered; refused if it was.

    Raises `ProtocolRefusal` (-32602, saying to start again) for a state whose round is unknown,
    already answered, another identity's or expired.
    """
    state = state_of(plaintext)
    if not ledger.close(state.get("round"), identity):
        raise ProtocolRefusal(-32602, t("state.used"), {"reason": "request_state_used"})
    return state
