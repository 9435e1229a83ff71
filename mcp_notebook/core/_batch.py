"""Partial success for batch tools: which items were made, which failed, why, and what to do.

A tool that adds many independent items (cards, rows, invitations) should keep the ones that
worked and say exactly which did not, by index, so the model resends only those instead of
redoing everything and making duplicates.

The `isError` rule:

- every item failed → ``isError: true`` (nothing happened; the model must change its request);
- some items failed → ``isError: false``, and the failures are listed in the text and in
  ``structuredContent.failed``;
- none failed (or the batch was empty) → ``isError: false``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._text import t


class BatchResult:
    """The outcome of a batch tool, item by item.

    Return it from a tool (the server turns it into a result through `__mcp_result__`), or call
    `to_result` yourself.

    Parameters
    ----------
    label:
        What the items are called, in the text the model reads: ``"cards"`` gives
        ``cards[2]: ...``. Default: "items" in the current language.

    Examples
    --------
    >>> batch = BatchResult("cards")
    >>> batch.add_ok(0, {"cardId": "c_a1"})
    >>> batch.add_failure(1, "GRID_OVERFLOW", "col + colSpan = 14, over 12.", hint="col + colSpan <= 12")
    >>> batch.to_result()["isError"]
    False
    """

    def __init__(self, label: str | None = None) -> None:
        self.label = label
        self.created: list[dict[str, Any]] = []
        self.failed: list[dict[str, Any]] = []
        self._seen: set[int] = set()

    def add_ok(self, index: int, item: Any = None) -> None:
        """Record that item `index` succeeded; a mapping `item` (``{"cardId": ...}``) is merged in."""
        self._claim(index)
        if isinstance(item, Mapping):
            self.created.append({"index": index, **{k: v for k, v in item.items() if k != "index"}})
        elif item is None:
            self.created.append({"index": index})
        else:
            self.created.append({"index": index, "result": item})

    def add_failure(self, index: int, code: str, message: str, hint: str | None = None) -> None:
        """Record that item `index` failed.

        Parameters
        ----------
        index:
            The item's position in the request (0-based).
        code:
            A stable reason code the model can match, e.g. ``"GRID_OVERFLOW"``.
        message:
            What is wrong with this item, with the offending values.
        hint:
            How to fix it (``"col + colSpan <= 12"``).
        """
        self._claim(index)
        failure: dict[str, Any] = {"index": index, "reason": code, "message": message}
        if hint:
            failure["hint"] = hint
        self.failed.append(failure)

    @property
    def is_error(self) -> bool:
        """True only when there were items and every one failed."""
        return bool(self.failed) and not self.created

    def structured(self) -> dict[str, Any]:
        """``{"created": [...], "failed": [...]}``, each list in index order."""
        return {
            "created": sorted(self.created, key=lambda entry: entry["index"]),
            "failed": sorted(self.failed, key=lambda entry: entry["index"]),
        }

    def summary(self) -> str:
        """The readable text: counts, one line per failure, and what to do next."""
        label = self.label or t("batch.default_label")
        data = self.structured()
        ok, failed = len(data["created"]), len(data["failed"])
        total = ok + failed
        if total == 0:
            return t("batch.empty", label=label)
        if not failed:
            return t("batch.all_ok", total=total, label=label)
        if ok:
            indexes = ", ".join(str(entry["index"]) for entry in data["created"])
            lines = [
                t("batch.some_failed", failed=failed, total=total, ok=ok, ok_indexes=indexes, label=label)
            ]
        else:
            lines = [t("batch.all_failed", total=total, label=label)]
        for entry in data["failed"]:
            line = f"- {label}[{entry['index']}] {entry['reason']}: {entry['message']}"
            if "hint" in entry:
                line += " " + t("batch.hint", hint=entry["hint"])
            lines.append(line)
        lines.append(t("batch.resend_failed" if ok else "batch.fix_all", label=label))
        return "\n".join(lines)

    def to_result(self) -> dict[str, Any]:
        """A ``CallToolResult``-shaped dict: the summary, the JSON, ``structuredContent``, ``isError``.

        The JSON is repeated in a text block, as the spec advises for clients that ignore
        ``structuredContent``.
        """
        data = self.structured()
        return {
            "content": [
                {"type": "text", "text": self.summary()},
                {"type": "text", "text": json.dumps(data, ensure_ascii=False)},
            ],
            "structuredContent": data,
            "isError": self.is_error,
        }

    def __mcp_result__(self) -> dict[str, Any]:
        """The protocol hook: what to send when a tool returns this object."""
        return self.to_result()

    @staticmethod
    def output_schema(item_properties: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """An output schema for tools that return a `BatchResult` (pass it as ``output_schema=``).

        Parameters
        ----------
        item_properties:
            JSON Schema properties of a created item besides ``index`` (``{"cardId": {"type": "string"}}``).
        """
        created = {"index": {"type": "integer", "minimum": 0}, **(item_properties or {})}
        failed = {
            "index": {"type": "integer", "minimum": 0},
            "reason": {"type": "string"},
            "message": {"type": "string"},
            "hint": {"type": "string"},
        }
        return {
            "type": "object",
            "properties": {
                "created": {
                    "type": "array",
                    "items": {"type": "object", "properties": created, "required": ["index"]},
                },
                "failed": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": failed,
                        "required": ["index", "reason", "message"],
                    },
                },
            },
            "required": ["created", "failed"],
            "additionalProperties": False,
        }

    def __repr__(self) -> str:
        return f"BatchResult(created={len(self.created)}, failed={len(self.failed)})"

    def _claim(self, index: int) -> None:
        # Reporting one item twice is a bug in the tool; the model would get a contradiction.
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise ValueError(f"index must be an int >= 0, got {index!r}")
        if index in self._seen:
            raise ValueError(f"item {index} was already reported")
        self._seen.add(index)
