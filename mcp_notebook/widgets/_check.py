"""`srv.check()` as a widget: connected or not, why, and what to do next, instead of a dataclass."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from ..core._text import t
from ._style import esc, scoped, style_sheet


def check_html(outcome: Any) -> str:
    """One connection check: a mark and a headline, then the message (the fix when it failed)."""
    if outcome.ok:
        head = f"<b class='mcp-ok'>✔ {esc(t('check.view.ok'))}</b>"
    else:
        head = f"<b class='mcp-error'>✘ {esc(t('check.view.failed', kind=outcome.kind))}</b>"
    return f"<div class='mcp-card'>{head}<div>{esc(outcome.message)}</div></div>"


class CheckView(widgets.VBox):
    """The outcome of a connection check (`CheckResult`), or nothing until there is one; `value` is its HTML."""

    def __init__(self, outcome: Any = None) -> None:
        self.outcome = outcome
        self.view = widgets.HTML("")
        super().__init__([style_sheet(), self.view])
        scoped(self)
        if outcome is not None:
            self.show(outcome)

    @property
    def value(self) -> str:
        return str(self.view.value)

    def show(self, outcome: Any) -> None:
        self.outcome = outcome
        self.view.value = check_html(outcome)

    def __repr__(self) -> str:
        # What text-only frontends and nbval see: the outcome in a line, then its message.
        if self.outcome is None:
            return "<connection check>"
        mark = "✔" if self.outcome.ok else "✘"
        return f"{mark} {self.outcome.kind}: {self.outcome.message}"
