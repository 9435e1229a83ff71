"""Random input against the real server: arguments for schema'd tools, and JSON-RPC envelopes of any shape.

(a) Arguments, valid and invalid (wrong types, missing and extra fields, out of bounds, enum misses,
    nested objects, unicode, huge numbers), through the SDK client in both eras: every call answers
    with the tool's result, or with ``isError: true`` naming each field that is wrong; never a
    protocol error, never a crash. Whether arguments are valid is decided by the JSON Schema the
    client was given (``tools/list``), not by the server's own checker.
(b) Envelopes: a well-formed request of each method, then up to three things made wrong (ids of
    every JSON type, no id, random methods, params of any shape, bad ``_meta``, response-shaped
    messages, batches, non-object JSON, plain bytes, chunked bodies; on 2026-07-28 mismatching
    ``MCP-Protocol-Version`` / ``Mcp-Method`` / ``Mcp-Name`` headers, on the handshake era a wrong
    session), POSTed by hand: never a 5xx, never a Python traceback in a response, and real calls
    still work afterwards, in the same handshake-era session and from new clients of both eras.

One server and one connection per test serve every example, so each test takes a second or two.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Annotated, Any, Literal, TypedDict

import httpx2
import jsonschema
import pytest
from annotated_types import Ge, Le, MaxLen
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mcp_notebook
from mcp_notebook import Catalogue, tool
from tests.conftest import serve_unattended
from tests.wire import META, TRACEBACK_MARKERS, Wire, answer

MODES = ["legacy", "auto"]  # the SDK client: handshake era, and 2026-07-28 found by discovery
WIRE_ERAS = ["2025-11-25", "2026-07-28"]
EXAMPLES = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# -- the tools under fire -----------------------------------------------------------------------------------


class Level(Enum):
    LOW = "low"
    HIGH = "high"


class Address(TypedDict):
    city: str
    zip: Annotated[str, MaxLen(5)]


@dataclass
class Item:
    name: str
    quantity: Annotated[int, Ge(1), Le(100)]
    address: Address
    tags: list[str] = field(default_factory=list)


def define_tools(catalogue: Catalogue) -> None:
    @tool(catalogue=catalogue, read_only=True)
    def forecast(
        city: str,
        unit: Literal["C", "F"] = "C",
        days: Annotated[int, Ge(1), Le(14)] = 1,
        note: str | None = None,
    ) -> dict[str, Any]:
        """Weather for one city over some days."""
        return {"city": city, "unit": unit, "days": days, "note": note}

    @tool(catalogue=catalogue, read_only=True)
    def order(item: Item, level: Level = Level.LOW) -> dict[str, Any]:
        """Place an order for one item, delivered to an address."""
        return {
            "name": item.name,
            "quantity": item.quantity,
            "city": item.address["city"],
            "zip": item.address["zip"],
            "tags": item.tags,
            "level": level.value,
        }

    @tool(catalogue=catalogue, read_only=True)
    def total(
        values: list[int],
        scale: float = 1.0,
        limit: Annotated[int, Ge(0)] | None = None,
        flags: dict[str, bool] | None = None,
    ) -> dict[str, Any]:
        """Add whole numbers up (any size), and say what else was asked."""
        return {"count": len(values), "sum": sum(values), "scale": scale, "limit": limit, "flags": flags}


# What the server strips from every string it sends back (README, "Guardrails"): terminal escape
# sequences whole, then C0 controls but tab and newline, DEL, C1 controls, bidi embeddings/overrides/
# isolates, Unicode tag characters; CRLF → LF.
_STRIPPED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")
ESC = "\x1b"


def _is_c1(char: str) -> bool:
    return "\x80" <= char <= "\x9f"


def _sequence_end(text: str, start: int) -> int | None:
    """Where the escape sequence (ECMA-48) that begins at `start` ends, read a character at a time."""
    first, size = text[start], len(text)
    second = text[start + 1] if start + 1 < size else ""
    if (first == ESC and second != "" and second in "]PX^_") or first in "\x90\x98\x9d\x9e\x9f":
        # A control string (OSC, DCS, SOS, PM, APC): up to BEL, ESC \\ or U+009C; no ESC, BEL or C1
        # inside. Without its terminator it is not one, and the rules below apply.
        end = start + (2 if first == ESC else 1)
        while end < size and text[end] not in ("\x07", ESC) and not _is_c1(text[end]):
            end += 1
        if end < size and text[end] in ("\x07", "\x9c"):
            return end + 1
        if text.startswith(ESC + "\\", end):
            return end + 2
    if (first == ESC and second == "[") or first == "\x9b":
        end = start + (2 if first == ESC else 1)
        while end < size and "0" <= text[end] <= "?":  # parameter bytes
            end += 1
        while end < size and " " <= text[end] <= "/":  # intermediate bytes
            end += 1
        if end < size and "@" <= text[end] <= "~":  # the final byte
            return end + 1
    if first == ESC:
        end = start + 1
        while end < size and " " <= text[end] <= "/":
            end += 1
        if end < size and "0" <= text[end] <= "~":
            return end + 1
    return None


def _without_escapes(text: str) -> str:
    kept: list[str] = []
    at = 0
    while at < len(text):
        end = _sequence_end(text, at)
        if end is None:
            kept.append(text[at])
            at += 1
        else:
            at = end
    return "".join(kept)


def sent_back(value: Any) -> Any:
    """`value` as a tool's structured result carries it to the client."""
    if isinstance(value, str):
        return _STRIPPED.sub("", _without_escapes(value.replace("\r\n", "\n")))
    if isinstance(value, dict):
        return {sent_back(key): sent_back(item) for key, item in value.items()}
    if isinstance(value, list):
        return [sent_back(item) for item in value]
    return value


def expected(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """What each tool returns for valid arguments, worked out independently of the server."""
    result: dict[str, Any] = sent_back(_returned(name, arguments))
    return result


def _returned(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if name == "forecast":
        return {"unit": "C", "days": 1, "note": None, **arguments}
    if name == "order":
        item = arguments["item"]
        return {
            "name": item["name"],
            "quantity": item["quantity"],
            "city": item["address"]["city"],
            "zip": item["address"]["zip"],
            "tags": item.get("tags", []),
            "level": arguments.get("level", "low"),
        }
    values = [int(value) for value in arguments["values"]]  # JSON Schema counts 2.0 as an integer
    return {
        "count": len(values),
        "sum": sum(values),
        "scale": float(arguments.get("scale", 1.0)),  # a float parameter gets a float, even from 3
        "limit": arguments.get("limit"),
        "flags": arguments.get("flags"),
    }


# -- strategies ---------------------------------------------------------------------------------------------

# Any unicode but surrogates (which JSON cannot carry as UTF-8), often the pieces of terminal escapes.
ESCAPE_PIECES = "\x1b[]\\\x07\x9b\x9c\x9dP_(1;m x"  # what terminal escape sequences are made of
TEXT = st.one_of(st.text(max_size=12), st.text(st.sampled_from(ESCAPE_PIECES), max_size=12))
HUGE = st.integers(min_value=-(10**40), max_value=10**40)
FLOATS = st.floats(allow_nan=False, allow_infinity=False)  # JSON has neither
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), HUGE, FLOATS, TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
    max_leaves=6,
)


class Parameter:
    """A parameter's valid values, and the near misses worth trying besides anything at all."""

    def __init__(self, valid: st.SearchStrategy[Any], near: st.SearchStrategy[Any] | None = None) -> None:
        self.valid = valid
        self.wrong = st.one_of(near, JSON) if near is not None else JSON


def fitting(
    required: dict[str, Parameter], optional: dict[str, Parameter]
) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {name: p.valid for name, p in required.items()},
        optional={name: p.valid for name, p in optional.items()},
    )


def objects(
    required: dict[str, Parameter], optional: dict[str, Parameter]
) -> st.SearchStrategy[dict[str, Any]]:
    """Objects that fit half of the time; otherwise fields missing, wrong or undeclared."""
    declared = {**required, **optional}
    chaos = st.builds(
        lambda present, extra: {**extra, **present},
        st.fixed_dictionaries(
            {}, optional={name: st.one_of(p.valid, p.wrong) for name, p in declared.items()}
        ),
        st.dictionaries(TEXT.filter(lambda key: key not in declared), JSON, max_size=2),
    )
    return st.one_of(fitting(required, optional), chaos)


ADDRESS = {"city": Parameter(TEXT), "zip": Parameter(st.text(max_size=5), st.text(min_size=6, max_size=8))}
ITEM_REQUIRED = {
    "name": Parameter(TEXT),
    "quantity": Parameter(
        st.integers(1, 100), st.one_of(st.integers(-3, 0), st.integers(101, 10**30), FLOATS)
    ),
    "address": Parameter(fitting(ADDRESS, {}), objects(ADDRESS, {})),
}
ITEM_OPTIONAL = {"tags": Parameter(st.lists(TEXT, max_size=3), st.lists(JSON, min_size=1, max_size=3))}
CALLS = st.one_of(
    st.tuples(
        st.just("forecast"),
        objects(
            {"city": Parameter(TEXT)},
            {
                "unit": Parameter(st.sampled_from(["C", "F"]), st.sampled_from(["K", "c", "", "CF"])),
                "days": Parameter(
                    st.integers(1, 14), st.one_of(st.integers(-2, 0), st.integers(15, 10**40), FLOATS)
                ),
                "note": Parameter(st.one_of(st.none(), TEXT)),
            },
        ),
    ),
    st.tuples(
        st.just("order"),
        objects(
            {"item": Parameter(fitting(ITEM_REQUIRED, ITEM_OPTIONAL), objects(ITEM_REQUIRED, ITEM_OPTIONAL))},
            {"level": Parameter(st.sampled_from(["low", "high"]), st.sampled_from(["LOW", "medium", ""]))},
        ),
    ),
    st.tuples(
        st.just("total"),
        objects(
            # At most 10 wrong values: an error message lists 20 problems (MAX_PROBLEMS) and says how many
            # more there are, and every problem of a call must be named in it for the check below.
            {
                "values": Parameter(
                    st.lists(HUGE, max_size=5), st.lists(st.one_of(FLOATS, TEXT), min_size=1, max_size=10)
                )
            },
            {
                "scale": Parameter(st.one_of(HUGE, FLOATS)),
                "limit": Parameter(st.one_of(st.none(), st.integers(0, 10**40)), st.integers(-(10**40), -1)),
                "flags": Parameter(
                    st.one_of(st.none(), st.dictionaries(TEXT, st.booleans(), max_size=3)),
                    st.dictionaries(TEXT, st.one_of(st.integers(), TEXT), min_size=1, max_size=2),
                ),
            },
        ),
    ),
)


# -- (a) arguments ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzzed() -> Iterator[Any]:
    """One server with the tools above for the whole module (hypothesis runs many examples per test)."""
    catalogue = Catalogue()
    define_tools(catalogue)
    srv = serve_unattended(catalogue)
    try:
        yield srv
    finally:
        srv.stop()


def dotted(path: Any) -> str:
    """A JSON path the way a person writes it: ``item.address.zip``, ``values[2]``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def field_names(error: jsonschema.ValidationError) -> list[str]:
    """How the message must name the field(s) behind one schema error."""
    if error.path:
        return [f"- {dotted(error.path)}"]  # a line "- item.address.zip: ..." (or deeper, for unions)
    if error.validator == "required":
        return [
            f"missing required argument {name!r}"
            for name in error.validator_value
            if name not in error.instance
        ]
    if error.validator == "additionalProperties":
        allowed = error.schema.get("properties", {})
        return [f"unexpected argument {name!r}" for name in error.instance if name not in allowed]
    raise AssertionError(f"an error about the arguments as a whole: {error.message}")


@pytest.mark.parametrize("mode", MODES)
def test_every_argument_gets_a_result_or_a_field_level_tool_error(fuzzed: Any, mode: str) -> None:
    target = {"url": fuzzed.url, "token": fuzzed.token, "mode": mode}
    schemas = {entry["name"]: entry["inputSchema"] for entry in mcp_notebook.list_tools(**target)}
    checkers = {name: jsonschema.Draft202012Validator(schema) for name, schema in schemas.items()}

    @EXAMPLES
    @given(CALLS)
    def check(call: tuple[str, dict[str, Any]]) -> None:
        name, args = call
        result = mcp_notebook.call(name, args, **target)  # a protocol error would raise here
        problems = list(checkers[name].iter_errors(args))
        if not problems:
            assert result.is_error is False, result.text
            assert result.structured_content == expected(name, args)
            return
        assert result.is_error is True, (args, result.structured_content)
        assert result.text.startswith(f"Invalid arguments for tool {name!r}:\n"), result.text
        for problem in problems:
            assert all(named in result.text for named in field_names(problem)), (problem.message, result.text)
        assert not any(marker in result.text for marker in TRACEBACK_MARKERS)

    check()
    assert mcp_notebook.call("forecast", {"city": "Seoul"}, **target).structured_content == {
        "city": "Seoul",
        "unit": "C",
        "days": 1,
        "note": None,
    }


# -- (b) envelopes ------------------------------------------------------------------------------------------

REQUESTS = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "server/discover",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
]
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}  # what Mcp-Name repeats
PARAM_VALUES = {
    "name": st.one_of(st.sampled_from(["forecast", "order", "total"]), TEXT),
    "arguments": st.one_of(st.dictionaries(st.sampled_from(["city", "item", "values", "x"]), JSON), JSON),
    "uri": st.one_of(st.sampled_from(["notebook://variables/x", "file:///etc/passwd", ""]), TEXT),
    "cursor": st.one_of(TEXT, JSON),
    "level": st.one_of(st.sampled_from(["debug", "info", "error"]), JSON),
    "protocolVersion": st.one_of(st.sampled_from(["2025-11-25", "2026-07-28"]), JSON),
    "capabilities": JSON,
    "clientInfo": st.one_of(st.just({"name": "fuzz", "version": "1"}), JSON),
    "requestId": st.one_of(st.integers(), TEXT),
    "progressToken": st.one_of(st.integers(), TEXT),
    "progress": st.one_of(FLOATS, JSON),
    "ref": JSON,
    "argument": JSON,
}
IDS = st.one_of(st.none(), HUGE, FLOATS, TEXT, st.booleans(), JSON)
HEADER_TEXT = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=20)
MUTATIONS = [
    "id",
    "no id",
    "jsonrpc",
    "method",
    "params",
    "meta",
    "extra key",
    "response",
    "version header",
    "method header",
    "name header",
    "session header",
    "batch",
    "other json",
    "bytes",
    "chunked",
]


def printable(value: Any) -> str:
    """`value` if it can be an HTTP header value, else an empty one."""
    return value if isinstance(value, str) and value.isascii() and value.isprintable() else ""


@st.composite
def posts(draw: st.DrawFn, era: str, base: dict[str, str]) -> tuple[bytes, dict[str, str], bool]:
    """A well-formed request of `era` (with `base` headers), then up to three things made wrong.

    Also whether to send the body chunked (without a Content-Length), as streaming clients do.
    """
    method = draw(st.sampled_from(REQUESTS))
    keys = ["name", "arguments"] if method == "tools/call" else list(PARAM_VALUES)
    params: Any = draw(
        st.fixed_dictionaries({}, optional={key: PARAM_VALUES[key] for key in keys}).filter(
            lambda value: method not in NAMED or NAMED[method] in value
        )
    )
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": draw(st.integers(0, 2**31)), "method": method}
    if method.startswith("notifications/"):
        del message["id"]
    headers = dict(base)
    if era == "2026-07-28":
        params["_meta"] = META
        headers.update({"MCP-Protocol-Version": era, "Mcp-Method": method})
        if method in NAMED:
            headers["Mcp-Name"] = printable(params[NAMED[method]])
    message["params"] = params
    body: Any = message
    chunked = False
    raw: bytes | None = None
    for mutation in draw(st.lists(st.sampled_from(MUTATIONS), max_size=3, unique=True)):
        if mutation == "id":
            message["id"] = draw(IDS)
        elif mutation == "no id":
            message.pop("id", None)
        elif mutation == "jsonrpc":
            message["jsonrpc"] = draw(JSON)
        elif mutation == "method":
            message["method"] = draw(TEXT)
        elif mutation == "params":
            message["params"] = draw(JSON)
        elif mutation == "meta" and isinstance(message["params"], dict):
            message["params"]["_meta"] = draw(JSON)
        elif mutation == "extra key":
            message[draw(TEXT)] = draw(JSON)
        elif mutation == "response":
            body = {"jsonrpc": "2.0", "id": draw(IDS), draw(st.sampled_from(["result", "error"])): draw(JSON)}
        elif mutation == "version header":
            headers["MCP-Protocol-Version"] = draw(
                st.one_of(
                    st.sampled_from(["2025-11-25", "2024-11-05", "2026-07-28", "1999-01-01"]), HEADER_TEXT
                )
            )
        elif mutation == "method header":
            headers["Mcp-Method"] = draw(HEADER_TEXT)
        elif mutation == "name header":
            headers["Mcp-Name"] = draw(HEADER_TEXT)
        elif mutation == "session header":
            headers["Mcp-Session-Id"] = draw(HEADER_TEXT)
        elif mutation == "batch":
            body = [body, *draw(st.lists(JSON, max_size=2))]
        elif mutation == "other json":
            body = draw(JSON)
        elif mutation == "chunked":
            chunked = True
        elif mutation == "bytes":
            raw = draw(st.binary(max_size=40))
    content = raw if raw is not None else json.dumps(body, ensure_ascii=False).encode()
    return content, {key: value.strip() for key, value in headers.items()}, chunked


@pytest.mark.parametrize("era", WIRE_ERAS)
def test_random_envelopes_never_break_the_server(fuzzed: Any, era: str) -> None:
    wire = Wire(fuzzed, era)
    seen: set[int] = set()

    @EXAMPLES
    @given(posts(era, {**wire.http.headers, **wire.session}))
    def check(post: tuple[bytes, dict[str, str], bool]) -> None:
        body, headers, chunked = post
        content = iter([body[:7], body[7:]]) if chunked else body
        try:
            response = wire.http.post(fuzzed.url, content=content, headers=headers)
        except httpx2.TimeoutException:  # a hang is a failure, with the request that caused it
            raise AssertionError(f"no answer to {body!r} with {headers}") from None
        seen.add(response.status_code)
        assert response.status_code < 500, (body, headers, response.text)
        assert not any(marker in response.text for marker in TRACEBACK_MARKERS), response.text

    try:
        check()
        # The handshake-era session is still there and answers real calls ...
        result = answer(wire.send("tools/call", {"name": "total", "arguments": {"values": [1, 2]}}, "total"))
        assert result["result"]["structuredContent"]["sum"] == 3
    finally:
        wire.close()
    # ... and so does a new client of either era.
    for mode in MODES:
        outcome = mcp_notebook.call(
            "total", {"values": [2, 3]}, url=fuzzed.url, token=fuzzed.token, mode=mode
        )
        assert outcome.structured_content["sum"] == 5
    assert {200, 400} <= seen  # the examples reached both the handlers and the error paths
