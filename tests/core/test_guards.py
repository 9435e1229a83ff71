"""Guardrails: token-bucket rate limits, output sanitizing, secret redaction, the audit log."""

from __future__ import annotations

import datetime as dt
import html
import json
import re
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook import ToolError, set_language
from mcp_notebook.core._guards import (
    RateLimited,
    TokenBucket,
    looks_secret,
    redact,
    sanitize_result,
    sanitize_text,
)
from mcp_notebook.core._visible import visible, visible_html
from mcp_notebook.server._audit import AuditLog


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


# -- rate limits -------------------------------------------------------------------------------------------


def test_bucket_allows_a_burst_then_says_how_long_to_wait() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=2, burst=3, clock=clock)
    assert [bucket.try_acquire() for _ in range(3)] == [None, None, None]
    assert bucket.try_acquire() == pytest.approx(0.5)
    clock.now += 0.25
    assert bucket.try_acquire() == pytest.approx(0.25)
    clock.now += 0.25
    assert bucket.try_acquire() is None
    assert bucket.try_acquire() == pytest.approx(0.5)


def test_bucket_refills_to_at_most_the_burst() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=1, burst=2, clock=clock)
    clock.now += 3600
    assert [bucket.try_acquire() is None for _ in range(3)] == [True, True, False]


def test_a_clock_going_backwards_adds_nothing() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=1, burst=1, clock=clock)
    assert bucket.try_acquire() is None
    clock.now -= 100
    assert bucket.try_acquire() == pytest.approx(1.0)
    clock.now += 100  # back where it was: still no time has passed since the last refill
    assert bucket.try_acquire() == pytest.approx(1.0)


def test_bucket_is_thread_safe() -> None:
    bucket = TokenBucket(rate=1, burst=100, clock=Clock())
    granted: list[bool] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def work() -> None:
        start.wait()
        for _ in range(50):
            ok = bucket.try_acquire() is None
            with lock:
                granted.append(ok)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert granted.count(True) == 100


def test_bad_bucket_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="rate"):
        TokenBucket(rate=0, burst=1)
    with pytest.raises(ValueError, match="burst"):
        TokenBucket(rate=1, burst=0)


def test_rate_limited_is_an_error_result_telling_when_to_retry() -> None:
    bucket = TokenBucket(rate=0.5, burst=2, clock=Clock())
    error = RateLimited("orders_create", 1.25, bucket)
    assert isinstance(error, ToolError) and error.retry_after == 1.25
    assert str(error) == (
        "Tool 'orders_create' is being called too often (at most 0.5 calls per second, bursts of 2). "
        "Wait 1.3 s, then call it again."
    )
    set_language("ko")
    assert "1.3초 기다린 뒤 다시 호출하세요" in str(RateLimited("orders_create", 1.25, bucket))


# -- sanitizing --------------------------------------------------------------------------------------------


def test_control_characters_are_stripped_but_newlines_and_tabs_kept() -> None:
    text = "a\tb\r\nc\x00d\x1b[31me\x7ff\x85g\x9fh\U000e0041i\n"
    assert sanitize_text(text, 1000) == "a\tb\nc" + "defghi\n"
    assert sanitize_text("한국어 ✓ emoji 🎉", 1000) == "한국어 ✓ emoji 🎉"


ESC = "\x1b"
ST = ESC + "\\"  # the string terminator: ESC and a backslash
ESCAPES = [
    # (what a tool returned, what the model gets)
    (f"{ESC}[31mred{ESC}[0m plain", "red plain"),  # colours
    (f"{ESC}[1;38;2;255;0;0mbold{ESC}[m", "bold"),  # 24-bit colour, reset without parameters
    (f"a{ESC}[2Jb{ESC}[Hc{ESC}[10;20Hd", "abcd"),  # clear the screen, move the cursor
    (f"{ESC}[?25lhidden cursor{ESC}[?1049h", "hidden cursor"),  # private parameters
    (f"x{ESC}[2 qy", "xy"),  # an intermediate byte (cursor shape)
    (f"{ESC}]8;;http://evil.example/{ST}docs{ESC}]8;;{ST}", "docs"),  # OSC 8 link, ST
    (f"{ESC}]8;id=1;http://evil.example/\x07docs{ESC}]8;;\x07", "docs"),  # OSC 8 link, BEL
    (f"{ESC}]0;pwned\x07title", "title"),  # window title
    (f"{ESC}]52;c;aGk=\x07clip", "clip"),  # writes the clipboard
    (f"{ESC}P1$r0m{ST}dcs", "dcs"),  # DCS
    (f"{ESC}_apc{ST}{ESC}^pm{ST}{ESC}Xsos{ST}rest", "rest"),  # APC, PM, SOS
    (f"{ESC}(B{ESC}7{ESC}8{ESC}c{ESC}={ESC}>{ESC}Mok", "ok"),  # charsets, save/restore, reset, keypad
    ("\x9b31mred\x9b0m", "red"),  # the one-character CSI, U+009B
    ("\x9d8;;http://evil.example/\x9clink\x9d8;;\x9c", "link"),  # C1 OSC up to C1 ST (U+009C)
    ("\x90q#0;2;0;0;0\x9csixel", "sixel"),  # C1 DCS
    ("a\x85b\x8ec\x9fd", "abcd"),  # other C1 controls
    # Broken sequences lose their ESC and introducer, never the text after them.
    (f"{ESC}]0;no terminator, all kept", "0;no terminator, all kept"),
    (f"half{ESC}[12", "half12"),
    (f"end{ESC}", "end"),
    (f"{ESC}{ESC}[31mx", "x"),
    (f"{ESC}]8;;http://a{ESC}[31m\x07b", "8;;http://ab"),
    ("이름 [31m 그대로", "이름 [31m 그대로"),  # brackets without ESC are text
]


@pytest.mark.parametrize(("text", "cleaned"), ESCAPES)
def test_terminal_escape_sequences_are_removed_whole(text: str, cleaned: str) -> None:
    assert sanitize_text(text, 1000) == cleaned
    assert sanitize_text(cleaned, 1000) == cleaned  # nothing left to remove: cleaning twice changes nothing
    structured = {"out": text, text: 1}
    result = sanitize_result(
        {"content": [{"type": "text", "text": text}], "structuredContent": structured}, 1000
    )
    assert result["content"][0]["text"] == cleaned
    assert result["structuredContent"] == {"out": cleaned, cleaned: 1}


@pytest.mark.parametrize(("text", "cleaned"), ESCAPES)
def test_an_approval_prompt_shows_a_whole_sequence_as_text(text: str, cleaned: str) -> None:
    shown = visible(text)
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", shown)  # nothing a terminal would obey
    # Every character is there: ESC and the C1 controls as markers, the rest of the sequence as text.
    assert re.sub("⟨U\\+[0-9A-F]{4}⟩", "", shown) == re.sub("[\x00-\x1f\x7f-\x9f]", "", text)
    assert "\x1b" not in html.unescape(re.sub("<[^>]+>", "", visible_html(text)))


def test_an_osc_hyperlink_reads_as_what_it_is_in_the_prompt() -> None:
    link = f"{ESC}]8;;http://evil.example/\x07docs{ESC}]8;;\x07"
    assert visible(link) == "⟨U+001B⟩]8;;http://evil.example/⟨U+0007⟩docs⟨U+001B⟩]8;;⟨U+0007⟩"
    assert visible("\x9b2J") == "⟨U+009B⟩2J"


def test_long_text_is_cut_with_an_explicit_marker() -> None:
    assert sanitize_text("x" * 120, 100) == "x" * 100 + "\n[truncated 20 characters]"
    assert sanitize_text("x" * 100, 100) == "x" * 100
    set_language("ko")
    assert sanitize_text("x" * 120, 100).endswith("[20자 잘림]")
    with pytest.raises(ValueError):
        sanitize_text("x", -1)


def test_sanitize_result_cleans_every_text_block_within_one_budget() -> None:
    result: dict[str, Any] = {
        "content": [
            {"type": "text", "text": "ab\x07cdef"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a", "text": "123456\x1b"}},
            {"type": "text", "text": "never shown"},
        ],
        "isError": False,
    }
    clean = sanitize_result(result, 10)
    assert clean["content"] == [
        {"type": "text", "text": "abcdef"},
        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        {"type": "resource", "resource": {"uri": "file:///a", "text": "1234\n[truncated 2 characters]"}},
        {"type": "text", "text": "\n[truncated 11 characters]"},
    ]
    assert clean["isError"] is False
    assert result["content"][0]["text"] == "ab\x07cdef"  # the input is not changed


def test_clean_structured_content_within_the_cap_is_left_untouched() -> None:
    data = {"note": "tab\there", "lines": "a\nb", "rtl": "שלום", "emoji": "👩\u200d💻"}
    result = {
        "content": [{"type": "text", "text": json.dumps(data)}],
        "structuredContent": data,
        "isError": False,
    }
    clean = sanitize_result(result, 1000)
    assert clean is result and clean["structuredContent"] is data  # nothing copied
    assert clean["isError"] is False


def test_structured_content_loses_control_characters_like_text_and_its_json_text_follows() -> None:
    data = {
        "bell": "\x07ding",
        "rows": [{"name": "a\x1b[2Jb", "n": 1}],
        "key\U000e0041": "\u202etxt.exe",
        "short_escapes": "\b\f\rok",  # JSON writes these three as \b \f \r, not \u00XX
    }
    result = {
        "content": [{"type": "text", "text": json.dumps(data, ensure_ascii=False, indent=2)}],
        "structuredContent": data,
        "isError": False,
    }
    clean = sanitize_result(result, 1000)
    expected = {"bell": "ding", "rows": [{"name": "ab", "n": 1}], "key": "txt.exe", "short_escapes": "ok"}
    assert clean["structuredContent"] == expected
    assert json.loads(clean["content"][0]["text"]) == expected  # the text block says the same
    assert data["bell"] == "\x07ding"  # the input is not changed


def test_structured_content_over_the_cap_becomes_an_error_asking_for_less() -> None:
    data = {"rows": list(range(1000))}
    result = {
        "content": [{"type": "text", "text": json.dumps(data)}],
        "structuredContent": data,
        "isError": False,
    }
    clean = sanitize_result(result, 500)
    assert clean["isError"] is True
    assert "structuredContent" not in clean
    [block] = clean["content"]
    assert "over the limit of 500" in block["text"] and "Ask for less" in block["text"]


# -- secrets -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "password",
        "db_password",
        "passwd",
        "token",
        "access_token",
        "apiKey",
        "API_KEY",
        "x-api-key",
        "secret",
        "client_secret",
        "private_key",
        "privateKey",
        "credentials",
        "Authorization",
        "auth_token",
        "cookie",
    ],
)
def test_secret_looking_names(name: str) -> None:
    assert looks_secret(name)


@pytest.mark.parametrize(
    "name", ["page_token", "nextToken", "max_tokens", "tokens", "user", "key", "idempotency_key", "monkey"]
)
def test_names_that_are_not_secrets(name: str) -> None:
    assert not looks_secret(name)


def test_redact_replaces_secret_values_at_any_depth_and_keeps_the_rest() -> None:
    arguments: dict[str, Any] = {
        "user": "kim",
        "password": "hunter2",
        "options": {"apiKey": {"nested": "x"}, "retries": 3},
        "accounts": [{"name": "a", "token": "t1"}, "plain", ["x"]],
    }
    assert redact(arguments) == {
        "user": "kim",
        "password": "[redacted]",
        "options": {"apiKey": "[redacted]", "retries": 3},
        "accounts": [{"name": "a", "token": "[redacted]"}, "plain", ["x"]],
    }
    assert arguments["password"] == "hunter2"  # a copy; the call still gets its arguments


# -- audit log ---------------------------------------------------------------------------------------------


def fixed_time() -> dt.datetime:
    return dt.datetime(2026, 11, 30, 3, 4, 5, 678000, tzinfo=dt.UTC)


def test_each_call_is_one_json_line_on_disk_right_away(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "audit.jsonl"
    log = AuditLog(path, clock=fixed_time)
    try:
        log.record(
            client="claude-code",
            tool="orders_create",
            arguments={"item": "책", "api_key": "sk-123"},
            decision="approved",
            outcome="ok",
            is_error=False,
            duration_ms=12.34567,
            request_id=7,
        )
        # Read back while the log is still open: the line is on disk, not in a buffer.
        assert AuditLog.read(path) == [
            {
                "time": "2026-11-30T03:04:05.678+00:00",
                "client": "claude-code",
                "tool": "orders_create",
                "arguments": {"item": "책", "api_key": "[redacted]"},
                "decision": "approved",
                "outcome": "ok",
                "is_error": False,
                "duration_ms": 12.346,
                "request_id": 7,
            }
        ]
        log.record(
            client=None,
            tool="t",
            arguments=None,
            decision="denied",
            outcome="error",
            is_error=True,
            duration_ms=0,
        )
        lines = path.read_text(encoding="utf-8").splitlines()
        assert len(lines) == 2 and all(json.loads(line) for line in lines)
        assert "sk-123" not in path.read_text(encoding="utf-8")
    finally:
        log.close()
    log.close()  # twice is fine
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_log_appends_across_reopening(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    for n in range(2):
        with AuditLog(path, clock=fixed_time) as log:
            log.record(
                client="c",
                tool=f"t{n}",
                arguments={},
                decision="auto",
                outcome="ok",
                is_error=False,
                duration_ms=1,
            )
    assert [entry["tool"] for entry in AuditLog.read(path)] == ["t0", "t1"]


def test_lines_from_many_threads_never_interleave(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    with AuditLog(path) as log:

        def work(n: int) -> None:
            for i in range(100):
                log.record(
                    client=f"c{n}",
                    tool="t",
                    arguments={"i": i, "pad": "x" * 500},
                    decision="auto",
                    outcome="ok",
                    is_error=False,
                    duration_ms=i,
                )

        threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    entries = AuditLog.read(path)
    assert len(entries) == 600
    assert sorted(e["arguments"]["i"] for e in entries if e["client"] == "c3") == list(range(100))


def test_the_default_clock_writes_utc_to_the_millisecond(tmp_path: Path) -> None:
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    with AuditLog(tmp_path / "audit.jsonl") as log:
        line = {"client": "c", "tool": "t", "arguments": {}, "decision": "auto", "outcome": "ok"}
        stamps = [log.record(**line, is_error=False, duration_ms=1.0)["time"] for _ in range(3)]
    after = dt.datetime.now(dt.UTC)
    for stamp in stamps:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", stamp), stamp
        assert before <= dt.datetime.fromisoformat(stamp) <= after


def test_default_times_are_utc_iso(tmp_path: Path) -> None:
    with AuditLog(tmp_path / "a.jsonl") as log:
        entry = log.record(
            client="c", tool="t", arguments={}, decision="auto", outcome="ok", is_error=False, duration_ms=1
        )
    assert dt.datetime.fromisoformat(entry["time"]).utcoffset() == dt.timedelta(0)
