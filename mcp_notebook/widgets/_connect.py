"""Connect an AI client: ready-to-paste configuration for this server, and a connection check.

Each client picked here gets a token of its own (`ServerHandle.client_config`), made when it is
picked, never when the panel is merely shown.
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets

from ..client._configs import CLIENTS, config_usage
from ..client._hub import hub_location
from ..core._text import t


class ConnectView(widgets.VBox):
    """A client picker, its configuration (URL and its own token filled in), and a "check connection" button."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.client = widgets.Dropdown(options=list(CLIENTS), value=None, description=t("connect.client"))
        self.config = widgets.Textarea(
            placeholder=t("connect.pick"), layout=widgets.Layout(width="100%", height="9em")
        )
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
        chosen = self.client.value
        if chosen is None:  # nothing picked yet: no client, so no token made
            self.config.value = self.usage.value = ""
            return
        self.config.value = self.server.client_config(chosen)
        self.usage.value = f"<i>{html.escape(config_usage(chosen))}</i>"

    def run_check(self) -> Any:
        """Check the connection as the picked client would (or with the server token), and show the outcome."""
        # On JupyterHub clients come in through the hub with hub tokens, not a client token of the
        # server's: check that path (the handle knows it).
        on_hub = hub_location() is not None
        outcome = self.server.check(identity=None if on_hub else self.client.value)
        colour = "#1b6e3a" if outcome.ok else "#b3261e"
        self.result.value = f"<span style='color:{colour}'>{html.escape(outcome.message)}</span>"
        return outcome

    def __repr__(self) -> str:
        return f"<connect a client to {self.server.url}>"
