"""Guardrails the spec asks of servers: rate limits, output sanitizing, secret redaction.

Pure building blocks: the server decides where to call them. Nothing here starts a thread or
prints; the clock is injected so tests never sleep.

- `TokenBucket`: per-tool rate limit; `try_acquire()` says how long to wait when over the limit,
  `RateLimited` is the matching error result for the model.
- `sanitize_text` / `sanitize_result`: strip terminal escape sequences (whole) and control
  characters, and cap the size of what a tool sends back to the model (text blocks and the strings
  of ``structuredContent`` alike).
- What a person reads before approving a call gets these characters (and more) made visible
  instead (``⟨U+202E⟩``): `_visible`.
- `looks_secret` / `redact`: recognise secret-looking argument names and hide their values, and
  hide secrets by what they look like wherever they are (`redact_text`: JWTs, PEM blocks, passwords
  in URLs, well-known API key shapes, long random-looking strings). The audit log (`_audit`) and
  `srv.export_activity()` write what they keep redacted.
"""

from __future__ import annotations

import collections
import functools
import itertools
import json
import math
import re
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from ._errors import ToolError
from ._kinds import plain_kind
from ._text import t

REDACTED = "[redacted]"

# -- rate limits ------------------------------------------------------------------------------------------


class RateLimited(ToolError):
    """A call over a tool's rate limit: an error result telling the model when to retry.

    Parameters
    ----------
    tool:
        The tool's name.
    retry_after:
        Seconds until a call would be accepted (what `TokenBucket.try_acquire` returned).
    bucket:
        The bucket that refused, for its rate and burst in the message.
    """

    def __init__(self, tool: str, retry_after: float, bucket: TokenBucket) -> None:
        # Rounded up: a model that retries after the rounded time must not be refused again.
        seconds = math.ceil(retry_after * 10) / 10
        super().__init__(
            t("guard.rate_limited", tool=tool, rate=bucket.rate, burst=bucket.burst, seconds=seconds)
        )
        self.tool = tool
        self.retry_after = retry_after


class TokenBucket:
    """A token bucket: `burst` calls at once, then `rate` calls per second on average.

    Thread-safe. The bucket starts full. A clock that goes backwards adds no tokens.

    Parameters
    ----------
    rate:
        Tokens added per second (> 0).
    burst:
        Capacity of the bucket: how many calls may come at once (>= 1).
    clock:
        Seconds from a monotonic clock (injected in tests).
    """

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0:
            raise ValueError(f"rate must be > 0 tokens per second, got {rate!r}")
        if burst < 1:
            raise ValueError(f"burst must be >= 1, got {burst!r}")
        self.rate = float(rate)
        self.burst = burst
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()
        self._lock = threading.Lock()

    def try_acquire(self) -> float | None:
        """Take one token: ``None`` if there was one, else the seconds until one is available."""
        with self._lock:
            now = self._clock()
            elapsed = max(0.0, now - self._last)
            self._last = max(self._last, now)
            self._tokens = min(float(self.burst), self._tokens + elapsed * self.rate)
            if self._tokens >= 1.0:
                self._tokens -= 1.0
                return None
            return (1.0 - self._tokens) / self.rate


# -- output sanitizing -----------------------------------------------------------------------------------

# C0 controls except tab and newline, DEL, C1 controls: they can move a terminal's cursor, rewrite
# what a person sees and hide text from a reviewer. Unicode tag characters (U+E0000-U+E007F) are
# invisible and have been used to smuggle instructions to models, so they go too, as do the bidi
# embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069: "Trojan Source", text
# that reads differently from what it is). Right-to-left text needs none of them to display;
# the marks U+200E/U+200F and the joiners some scripts and emoji need are kept.
_CONTROL_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")

# Terminal escape sequences (ECMA-48) go whole, not just their ESC: "[31m" or "]8;;http://evil" left
# behind is noise at best and a half-disguised payload at worst. Tried in order at each position:
# - control strings: OSC, DCS, SOS, PM, APC (ESC ] P X ^ _, or their C1 forms U+009D U+0090 U+0098
#   U+009E U+009F) up to BEL, ESC \ or U+009C. The body stops at any ESC, BEL or C1 character, so an
#   unterminated one never swallows the text after it (it falls to the next rules) and the scan stays
#   linear;
# - CSI (ESC [ or U+009B): parameter bytes, intermediate bytes, one final byte;
# - any other escape: ESC, intermediate bytes, one final byte (ESC ( B, ESC 7, ESC c ...).
# What is left of a broken sequence loses its ESC and C1 characters to `_CONTROL_RE` afterwards, so
# the result never holds an ESC and cleaning it again changes nothing.
_ESCAPE_RE = re.compile(
    "(?:\x1b[]PX^_]|[\x90\x98\x9d-\x9f])[^\x07\x1b\x80-\x9f]*(?:\x07|\x1b\\\\|\x9c)"
    "|(?:\x1b\\[|\x9b)[0-?]*[ -/]*[@-~]"
    "|\x1b[ -/]*[0-~]"
)
# What opens a sequence (ESC, or a C1 introducer): most text has none, and skips that pass.
_OPENER_RE = re.compile("[\x1b\x90\x98\x9b\x9d-\x9f]")


def sanitize_text(text: str, max_chars: int) -> str:
    """`text` without control characters, cut to `max_chars` characters plus a visible marker.

    ``\\r\\n`` becomes ``\\n``; tab and newline are kept; terminal escape sequences are removed whole
    (colours, cursor moves, OSC hyperlinks and titles: ``"\\x1b[31mred\\x1b[0m"`` becomes ``"red"``);
    other C0/C1 controls, bidi overrides and invisible Unicode tag characters are removed. When the
    cleaned text is longer than `max_chars`, the first `max_chars` characters are kept and a line ``[truncated N characters]`` (in the current
    language) says how many were cut, so the model knows the text is incomplete.
    """
    if max_chars < 0:
        raise ValueError(f"max_chars must be >= 0, got {max_chars!r}")
    return _cap(_clean(text), max_chars)


def _clean(text: str) -> str:
    text = text.replace("\r\n", "\n")
    if _OPENER_RE.search(text):
        text = _ESCAPE_RE.sub("", text)
    return _CONTROL_RE.sub("", text)


def _cap(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + "\n" + t("guard.truncated", n=len(text) - max_chars)


# Built once: json.dumps with options builds a new encoder on every call, and this runs on every tool call.
_SIZE_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)


def sanitize_result(result: Mapping[str, Any], max_chars: int) -> dict[str, Any]:
    """`result` (a ``CallToolResult``-shaped dict) made safe to send; the input is never changed.

    - Text blocks (and the text of embedded ``resource`` blocks: wherever a block's kind says a
      model reads text, `ContentKind.text_at`) lose their control characters and share one budget
      of `max_chars` characters: blocks past the budget keep only the truncation marker. Images,
      audio and links are left as they are.
    - The strings of ``structuredContent`` (keys and values, at any depth) lose their control
      characters too, and a text block holding its JSON is written again from the cleaned value,
      so both still say the same. Whoever checks it against an output schema does so after this.
    - ``structuredContent`` cannot be cut (it must conform to the tool's output schema) or
      dropped (the spec requires it when there is an output schema), so one whose JSON is over
      `max_chars` turns the whole result into an error result asking the model to request less.

    A result that needs no change is returned as it is (a dict), else a changed copy.
    """
    structured = result.get("structuredContent")
    rewritten: dict[str, str] = {}
    if structured is not None:
        encoded = _SIZE_ENCODER.encode(structured)
        size = len(encoded)
        if size > max_chars:
            message = t("guard.too_large", size=size, limit=max_chars)
            return {"content": [{"type": "text", "text": message}], "isError": True}
        # One regex pass over the JSON says whether any string needs cleaning: the common case
        # walks nothing. (JSON escapes C0 controls as \uXXXX, so the escapes are looked for too.)
        if _CONTROL_RE.search(encoded) or _ESCAPED_CONTROL_RE.search(encoded):
            cleaned = _clean_value(structured)
            rewritten = _json_texts(result, structured, cleaned)
            result = {**result, "structuredContent": cleaned}
    budget = max_chars
    changed = bool(rewritten)
    blocks: list[Any] = []
    for block in result.get("content", []):
        path = _model_text_path(block)
        text = _text_at(block, path)
        if text is not None:
            cleaned = (rewritten.get(text) if path == ("text",) else None) or _clean(text)
            capped = _cap(cleaned, budget)
            budget -= min(budget, len(cleaned))
            if capped != text:
                block, changed = _with_text(block, path, capped), True
        blocks.append(block)
    if not changed and isinstance(result, dict) and "content" in result:
        return result
    return {**result, "content": blocks}


def _model_text_path(block: Any) -> tuple[str, ...]:
    """Where the text a model reads is in `block`, by its wire type (a kind refining it changes nothing)."""
    kind = plain_kind(block.get("type")) if isinstance(block, Mapping) else None
    return kind.text_at if kind is not None else ()


def _text_at(block: Any, path: tuple[str, ...]) -> str | None:
    node = block
    for key in path:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node if path and isinstance(node, str) else None


def _with_text(node: Mapping[str, Any], path: tuple[str, ...], text: str) -> dict[str, Any]:
    """A copy of `node` with `text` at `path` (the blocks along the way copied, never changed)."""
    head, rest = path[0], path[1:]
    return {**node, head: _with_text(node[head], rest, text) if rest else text}


# A JSON string escape of a character `_CONTROL_RE` removes: \b, \f and \r have short forms, the rest
# of C0, DEL and C1 the \u00XX form (the others are not escaped). An escaped backslash followed by one
# of those letters matches too: it only costs a walk that finds nothing.
_ESCAPED_CONTROL_RE = re.compile(r"\\(?:[bfr]|u00(?:0[0-8bcef]|1[0-9a-f]|7f|[89][0-9a-f]))", re.IGNORECASE)


def _clean_value(value: Any) -> Any:
    """`value` (JSON) with control characters removed from every string, keys included."""
    if isinstance(value, str):
        return _clean(value)
    if isinstance(value, Mapping):
        return {_clean(str(key)): _clean_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_clean_value(item) for item in value]
    return value


def _json_texts(result: Mapping[str, Any], before: Any, after: Any) -> dict[str, str]:
    """Text blocks that are the JSON of `before` (or of its ``result``), mapped to that of `after`.

    The server puts the JSON of the structured content in a text block too (the spec's SHOULD);
    cleaning only one of them would make them disagree.
    """
    views = [(before, after)]
    if isinstance(before, Mapping) and set(before) == {"result"} and isinstance(after, Mapping):
        views.append((before["result"], after.get("result")))  # a wrapped value: its text is the value
    texts: dict[str, str] = {}
    for block in result.get("content", []):
        text = block.get("text") if isinstance(block, Mapping) and block.get("type") == "text" else None
        if not isinstance(text, str) or text in texts:
            continue
        try:
            shown = json.loads(text)
        except ValueError:
            continue
        for old, new in views:
            if shown == old and not isinstance(old, str):
                pretty = "\n" in text
                texts[text] = json.dumps(new, ensure_ascii=False, indent=2 if pretty else None)
                break
    return texts


# -- secrets ---------------------------------------------------------------------------------------------

_SECRET_TOKENS = frozenset(
    {"password", "passwd", "pwd", "passphrase", "passcode", "secret", "token", "credential", "credentials"}
    | {"apikey", "authorization", "auth", "bearer", "cookie", "jwt", "pin", "otp", "totp", "hotp", "mfa"}
    | {"cvv", "cvc", "ssn", "dsn"}
)
_SECRET_COMPOUNDS = (
    "apikey", "privatekey", "privkey", "accesskey", "secretkey", "signingkey", "encryptionkey", "sshkey",
    "password", "passwd", "authtoken", "sessionid", "sessiontoken", "connectionstring",
)  # fmt: skip
# "token" alone is also a paging cursor (page_token, nextToken) or a count (max_tokens is plural).
_NOT_SECRET_WITH_TOKEN = frozenset({"page", "next", "continuation", "cursor", "sync", "max", "count", "num"})
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def name_tokens(name: str) -> list[str]:
    """`name` split into lower-case words: ``"apiKey"``, ``"api-key"`` and ``"API_KEY"`` → ``["api", "key"]``."""
    return [part.lower() for part in re.split(r"[^A-Za-z0-9]+", _CAMEL_RE.sub("_", name)) if part]


@functools.lru_cache(maxsize=4096)
def looks_secret(name: str) -> bool:
    """Whether an argument called `name` probably holds a secret (password, token, API key, PIN ...)."""
    tokens = name_tokens(name)
    compact = "".join(tokens)
    if any(part in compact for part in _SECRET_COMPOUNDS):
        return True
    hits = _SECRET_TOKENS.intersection(tokens)
    if hits == {"token"} and _NOT_SECRET_WITH_TOKEN.intersection(tokens):
        return False
    return bool(hits)


# Secrets by what they look like, wherever they sit (a free-text argument, a URL, a result).
_PEM = re.compile(r"-----BEGIN ([A-Z0-9 ]{1,60})-----.*?(?:-----END \1-----|\Z)", re.DOTALL)
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")
_URL_PASSWORD = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@]*):[^\s/@]+@")
_SCHEME_CREDENTIAL = re.compile(r"\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9._~+/-]{8,}=*", re.IGNORECASE)
_KEY_SHAPES = re.compile(
    r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}"  # OpenAI / Anthropic style
    r"|\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"  # Stripe
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"  # GitHub
    r"|\bxox[abprs]-[A-Za-z0-9-]{10,}"  # Slack
    r"|\bglpat-[A-Za-z0-9_-]{20,}"  # GitLab
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"  # AWS access key id
    r"|\bAIza[0-9A-Za-z_-]{35}"  # Google API key
    r"|\bhf_[A-Za-z0-9]{30,}"  # Hugging Face
)
_RANDOM_CANDIDATE = re.compile(r"[A-Za-z0-9+/_=.-]{24,}")
_HEX = re.compile(r"[0-9A-Fa-f-]+")
_SHORTEST_SECRET = 20  # an AWS key id; shorter text is never scanned
_MIN_ENTROPY = 3.7  # bits per character: random base64 of 24+ characters scores about 4.2 and more
_MIN_SWITCHES = 0.45  # share of neighbours that switch between lower, upper and digit


def looks_random(word: str) -> bool:
    """Whether `word` (24+ characters, no spaces) looks like a generated key rather than a name.

    Random base64/alphanumeric keys have high entropy and switch between lower case, upper case and
    digits at almost every other character; identifiers, paths, dates and snake_case do not. Hex
    strings (hashes, UUIDs) are kept: they are as often identifiers as secrets.
    """
    if len(word) < 24 or _HEX.fullmatch(word) or word.isalpha() or not any(c.isalpha() for c in word):
        return False
    counts = collections.Counter(word)
    size = len(word)
    entropy = -sum(n / size * math.log2(n / size) for n in counts.values())
    if entropy < _MIN_ENTROPY:
        return False
    kinds = [0 if c.islower() else 1 if c.isupper() else 2 for c in word if c.isalnum()]
    if len(kinds) < 2:
        return False
    switches = sum(a != b for a, b in itertools.pairwise(kinds)) / (len(kinds) - 1)
    return switches >= _MIN_SWITCHES


def redact_text(text: str) -> str:
    """`text` with every secret-looking value in it replaced by ``[redacted]`` (the rest kept)."""
    if len(text) < _SHORTEST_SECRET:
        return text
    text = _PEM.sub(REDACTED, text)
    text = _JWT.sub(REDACTED, text)
    text = _URL_PASSWORD.sub(rf"\1:{REDACTED}@", text)
    text = _SCHEME_CREDENTIAL.sub(rf"\1\2{REDACTED}", text)
    text = _KEY_SHAPES.sub(REDACTED, text)
    return _RANDOM_CANDIDATE.sub(lambda m: REDACTED if looks_random(m.group()) else m.group(), text)


def redact(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `arguments` with secrets hidden, at any depth.

    The value of every secret-looking key is replaced whole (`looks_secret`); in every other string,
    secret-looking values are replaced where they sit (`redact_text`).
    """
    return {
        key: REDACTED if looks_secret(str(key)) else redact_value(value) for key, value in arguments.items()
    }


def redact_if_needed(arguments: Mapping[str, Any]) -> Mapping[str, Any]:
    """`arguments` itself when nothing in it needs hiding, else `redact`.

    The audit log's fast path: most calls have a few short plain arguments, and copying them is waste.
    """
    for key, value in arguments.items():
        kind = type(value)
        if (
            kind not in _FLAT
            or looks_secret(str(key))
            or (kind is str and len(value) >= _SHORTEST_SECRET and redact_text(value) != value)
        ):
            return redact(arguments)
    return arguments


_FLAT = frozenset({str, int, float, bool, type(None)})


def redact_value(value: Any) -> Any:
    """Any JSON value with secrets hidden (see `redact`); a string is scanned by `redact_text`."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return redact(value)
    if isinstance(value, list | tuple):
        return [redact_value(item) for item in value]
    return value
