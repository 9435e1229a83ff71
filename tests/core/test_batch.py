"""Partial success: per-item created / failed, the isError rule, a readable summary."""

from __future__ import annotations

import json

import jsonschema
import pytest

from mcp_notebook import set_language
from mcp_notebook.core._batch import BatchResult


def cards(ok: list[int], failed: list[int]) -> BatchResult:
    batch = BatchResult("cards")
    for index in ok:
        batch.add_ok(index, {"cardId": f"c_{index}"})
    for index in failed:
        batch.add_failure(
            index, "GRID_OVERFLOW", f"col=10, colSpan=4: {index} exceeds 12.", "col + colSpan <= 12"
        )
    return batch


def test_none_failed_is_ok() -> None:
    result = cards([0, 1, 2], []).to_result()
    assert result["isError"] is False
    assert result["content"][0] == {"type": "text", "text": "All 3 cards succeeded."}
    assert result["structuredContent"] == {
        "created": [
            {"index": 0, "cardId": "c_0"},
            {"index": 1, "cardId": "c_1"},
            {"index": 2, "cardId": "c_2"},
        ],
        "failed": [],
    }


def test_some_failed_is_not_an_error_and_lists_the_failures() -> None:
    result = cards([0, 1], [2]).to_result()
    assert result["isError"] is False
    text = result["content"][0]["text"]
    assert text.splitlines() == [
        "1 of 3 cards failed; the other 2 succeeded (indexes 0, 1).",
        "- cards[2] GRID_OVERFLOW: col=10, colSpan=4: 2 exceeds 12. Hint: col + colSpan <= 12",
        "Resend only the failed cards, fixed; do not resend the ones that succeeded.",
    ]
    assert result["structuredContent"]["failed"] == [
        {
            "index": 2,
            "reason": "GRID_OVERFLOW",
            "message": "col=10, colSpan=4: 2 exceeds 12.",
            "hint": "col + colSpan <= 12",
        }
    ]


def test_all_failed_is_an_error() -> None:
    result = cards([], [0, 1]).to_result()
    assert result["isError"] is True
    lines = result["content"][0]["text"].splitlines()
    assert lines[0] == "All 2 cards failed; nothing was done."
    assert lines[-1] == "Fix the cards as described and send them again."


def test_an_empty_batch_is_not_an_error() -> None:
    result = BatchResult().to_result()
    assert result["isError"] is False
    assert result["content"][0]["text"] == "No items were given, so nothing was done."


def test_the_json_is_repeated_in_a_text_block() -> None:
    result = cards([1], [0]).to_result()
    assert json.loads(result["content"][1]["text"]) == result["structuredContent"]


def test_items_are_listed_in_index_order_whatever_the_order_they_were_added() -> None:
    batch = BatchResult()
    batch.add_failure(3, "BAD", "three")
    batch.add_ok(2)
    batch.add_failure(0, "BAD", "zero")
    batch.add_ok(1, "plain value")
    data = batch.structured()
    assert data["created"] == [{"index": 1, "result": "plain value"}, {"index": 2}]
    assert [entry["index"] for entry in data["failed"]] == [0, 3]
    assert "hint" not in data["failed"][0]
    assert "- items[0] BAD: zero" in batch.summary()


def test_reporting_an_item_twice_or_a_bad_index_is_a_bug() -> None:
    batch = BatchResult()
    batch.add_ok(0)
    with pytest.raises(ValueError, match="already reported"):
        batch.add_failure(0, "BAD", "again")
    for index in (-1, True, 1.0):
        with pytest.raises(ValueError, match="index must be"):
            batch.add_ok(index)  # type: ignore[arg-type]


def test_mcp_result_hook_is_to_result() -> None:
    batch = cards([0], [1])
    assert batch.__mcp_result__() == batch.to_result()
    assert repr(batch) == "BatchResult(created=1, failed=1)"


def test_output_schema_accepts_what_to_result_produces() -> None:
    schema = BatchResult.output_schema({"cardId": {"type": "string"}})
    jsonschema.Draft202012Validator.check_schema(schema)
    for batch in (cards([0, 1], [2]), cards([], [0]), BatchResult()):
        jsonschema.validate(batch.to_result()["structuredContent"], schema)


def test_korean_summary() -> None:
    set_language("ko")
    batch = BatchResult()
    batch.add_ok(0)
    batch.add_failure(1, "GRID_OVERFLOW", "col + colSpan = 14", "col을 8 이하로")
    assert batch.summary().splitlines() == [
        "항목 2개 중 1개가 실패했고 나머지 1개는 성공했습니다(인덱스 0).",
        "- 항목[1] GRID_OVERFLOW: col + colSpan = 14 힌트: col을 8 이하로",
        "실패한 항목만 고쳐서 다시 보내고, 성공한 것은 다시 보내지 마세요.",
    ]
