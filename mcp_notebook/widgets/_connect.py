"""Connect an AI client: ready-to-paste configuration for this server, and a connection check."""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets

from .._text import add_messages, t

add_messages(
    {
        "connect.client": {"en": "Client", "ko": "클라이언트"},
        "connect.check": {"en": "Check connection", "ko": "연결 확인"},
    }
)


class ConnectView(widgets.VBox):
    """A client picker, its configuration (URL and token filled in), and a "check connection" button."""

    def __init__(self, server: Any) -> None:
        from .._configs import CLIENTS

        self.server = server
        self.client = widgets.Dropdown(options=list(CLIENTS), description=t("connect.client"))
        self.config = widgets.Textarea(layout=widgets.Layout(width="100%", height="9em"))
        self.usage = widgets.HTML("")  # where the text goes, and how the client then starts
        self.check_button = widgets.Button(description=t("connect.check"), icon="plug")
        self.result = widgets.HTML("")
        self.client.observe(lambda change: self._show(), names=["value"])
        self.check_button.on_click(lambda _: self.run_check())
        self._show()
        super().__init__(
            [self.client, self.config, self.usage, widgets.HBox([self.check_button, self.result])]
        )

    def _show(self) -> None:
        from .._configs import config_usage

        self.config.value = self.server.client_config(self.client.value)
        self.usage.value = f"<i>{html.escape(config_usage(self.client.value))}</i>"

    def run_check(self) -> Any:
        """Check the connection as a client would, and show the outcome (returned too)."""
        outcome = self.server.check()
        colour = "#1b6e3a" if outcome.ok else "#b3261e"
        self.result.value = f"<span style='color:{colour}'>{html.escape(outcome.message)}</span>"
        return outcome

    def __repr__(self) -> str:
        return f"<connect a client to {self.server.url}>"
