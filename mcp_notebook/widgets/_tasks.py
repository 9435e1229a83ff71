"""Tasks in the notebook: one task the notebook follows (`TaskCallView`), and the server's running
tasks in its panel (`RunningTasks`), each with a Cancel button.

Both only set traits, from whatever thread reports a change (the task's poller, the server's loop).
"""

from __future__ import annotations

import html
import threading
from typing import Any

import ipywidgets as widgets

from ..core._identity import claims
from ..core._text import t
from ..core._visible import visible_html
from ._result import CallProgress


class TaskCallView(widgets.VBox):
    """``call(..., task=True)`` shown in a cell: its progress bar, its status, and a Cancel button."""

    def __init__(self, task: Any) -> None:
        self.task = task
        self.bar = CallProgress(task.tool)
        self.cancel_button = widgets.Button(description=t("task_view.cancel"), button_style="warning")
        self.status = widgets.HTML("")
        # The click runs on the kernel's thread: the cancel is one request, sent from the runtime's loop.
        self.cancel_button.on_click(lambda _: threading.Thread(target=task.cancel, daemon=True).start())
        super().__init__([self.bar, widgets.HBox([self.cancel_button, self.status])])
        task.listeners.append(self.show)
        self.show(task)

    def show(self, task: Any) -> None:
        if task.progress is not None:
            self.bar.update_progress(*task.progress)
        self.status.value = (
            f"<span style='color:var(--jp-ui-font-color2)'>{visible_html(task.status)}</span>"
            + (f" {visible_html(task.message)}" if task.message else "")
        )
        if task.done:
            self.cancel_button.disabled = True
            self.bar.finish(ok=task.status == "completed")

    def __repr__(self) -> str:
        return repr(self.task)


class RunningTasks(widgets.VBox):
    """The server's running tasks: tool, client, progress, time since it began, and Cancel.

    `cancel(task_id)` is the server's own (`TaskManager.cancel_soon`), the same path as ``tasks/cancel``.
    """

    def __init__(self, manager: Any) -> None:
        self.manager = manager
        self.title = widgets.HTML("")
        self.rows = widgets.VBox([])
        self.buttons: dict[str, widgets.Button] = {}
        self._records: dict[str, Any] = {}
        self._lock = threading.Lock()
        super().__init__([self.title, self.rows])
        for run in list(manager.runs.values()):
            if run.promoted:
                self.changed(run.snapshot())
        manager.listeners.append(self.changed)

    def changed(self, record: Any) -> None:
        """A task began, changed or ended (called on the server's loop)."""
        with self._lock:
            if record.terminal:
                self._records.pop(record.task_id, None)
                self.buttons.pop(record.task_id, None)
            else:
                self._records[record.task_id] = record
            self._render()

    def _render(self) -> None:
        rows = []
        now = self.manager.book.now()
        for task_id, record in self._records.items():
            button = self.buttons.get(task_id)
            if button is None:
                button = widgets.Button(description=t("task_view.cancel"), button_style="warning")
                button.on_click(lambda _, task_id=task_id: self.manager.cancel_soon(task_id, "notebook"))
                self.buttons[task_id] = button
            elapsed = max(0, round(now - record.created))
            # The claim as the approval prompt shows it: said to be one, and cut when long.
            claim = claims(record.owner, record.claimed)
            who = record.owner + (f" ({claim})" if claim else "")
            text = t(
                "task_view.row",
                tool=record.tool,
                client=who,
                status=record.message or record.status,
                seconds=elapsed,
            )
            rows.append(widgets.HBox([widgets.HTML(visible_html(text)), button]))
        self.rows.children = rows
        count = len(rows)
        self.title.value = f"<b>{html.escape(t('task_view.title', count=count))}</b>" if count else ""

    def close(self) -> None:
        if self.changed in self.manager.listeners:
            self.manager.listeners.remove(self.changed)
        super().close()
