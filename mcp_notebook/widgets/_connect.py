"""Connect an AI client: ready-to-paste configuration for this server, and a connection check.

Each client picked here gets a token of its own (`ServerHandle.client_config`), made when it is
picked, never when the panel is merely shown. The configuration and the command to run are
read-only blocks with a copy button (a stray key pressed in an editable box corrupted them); "Save
as" writes the configuration into a file of the kernel's folder, readable by its owner only.
"""

from __future__ import annotations

import contextlib
import html
import os
import shlex
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from ..client._configs import CLIENTS, INSPECTOR_FILE, config_usage, inspector_command
from ..core._text import t
from ._check import CheckView
from ._style import CodeBlock, scoped, style_sheet

# Where each client reads its configuration, relative to the folder it starts in (Claude Desktop's
# lives in its own settings folder: the entry is saved beside the notebook, to be added there).
CONFIG_FILES = {
    "claude-code": ".mcp.json",
    "claude-desktop": "claude-desktop-mcp.json",
    "cursor": ".cursor/mcp.json",
    "vscode": ".vscode/mcp.json",
    "inspector": INSPECTOR_FILE,
}
LABEL = {"description_width": "initial"}


def write_private(path: str | os.PathLike[str], text: str) -> Path:
    """Write `text` to `path` (its folders made), readable and writable by its owner only.

    Written to a temporary file created 0600 and renamed into place: the token in it is never in a
    file anyone else may read, not even for an instant, and a link at `path` is replaced, not followed.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with open(fd, "w", encoding="utf-8") as out:
            if hasattr(os, "fchmod"):
                os.fchmod(out.fileno(), 0o600)  # a temporary file left over with wider permissions
            out.write(text if text.endswith("\n") else text + "\n")
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    return target


def split_note(text: str) -> tuple[str, str]:
    """A configuration's note (a remote kernel's warning, the hub's token steps) and its JSON."""
    if text.lstrip().startswith("{") or "\n\n{" not in text:
        return "", text
    note, _, config = text.rpartition("\n\n{")
    return note, "{" + config


class ConnectView(widgets.VBox):
    """A client picker, its configuration (URL and its own token filled in), and a "check connection" button."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.client = widgets.Dropdown(
            options=list(CLIENTS), value=None, description=t("connect.client"), style=LABEL
        )
        # Kernel or Jupyter, shown only where both work; the way `client_config` picks by itself first.
        routes = server.routes
        self.through = widgets.ToggleButtons(
            options=[(t(f"connect.through_{route}"), route) for route in routes],
            value=routes[0],
            tooltips=[t(f"connect.through_{route}_tip") for route in routes],
            description=t("connect.through"),
            style={**LABEL, "button_width": "auto"},
        )
        if len(routes) < 2:
            self.through.layout.display = "none"
        self.usage = widgets.HTML("")  # where the text goes, and how the client then starts
        self.config = CodeBlock(label=t("connect.configuration"))
        self.file = widgets.Text(
            description=t("connect.file"), style=LABEL, layout=widgets.Layout(width="auto", flex="1 1 12em")
        )
        self.save_button = widgets.Button(description=t("connect.save"), icon="save")
        self.saved = widgets.HTML("")
        self._replace: Path | None = None  # a file that exists, to be replaced on a second click
        self.save_row = widgets.HBox(
            [self.file, self.save_button, self.saved], layout=widgets.Layout(flex_flow="row wrap")
        )
        self.command = CodeBlock(label=t("connect.command"))
        self.check_button = widgets.Button(description=t("connect.check"), icon="plug")
        self.result = CheckView(None)
        self.client.observe(lambda change: self._show(), names=["value"])
        self.through.observe(lambda change: self._show(), names=["value"])
        self.file.observe(lambda change: self._forget_replace(), names=["value"])
        self.save_button.on_click(lambda _: self.save())
        self.check_button.on_click(lambda _: self.run_check())
        super().__init__(
            [
                style_sheet(),
                self.client,
                self.through,
                self.usage,
                self.config,
                self.save_row,
                self.command,
                widgets.VBox(
                    [self.check_button, self.result], layout=widgets.Layout(align_items="flex-start")
                ),
            ]
        )
        scoped(self).add_class("mcp-connect")
        self._show()

    def _show(self) -> None:
        chosen = self.client.value
        self.saved.value = ""
        self._replace = None
        if chosen is None:  # nothing picked yet: no client, so no token made
            self.config.value = self.command.value = ""
            self.usage.value = f"<div class='mcp-muted'>{html.escape(t('connect.pick'))}</div>"
            self.save_row.layout.display = "none"
            return
        note, config = split_note(self.server.client_config(chosen, via=self.through.value))
        self.config.label = CONFIG_FILES[chosen]
        self.config.value = config
        self.file.value = CONFIG_FILES[chosen]
        self.save_row.layout.display = None
        if chosen == "inspector":
            usage = t("connect.usage.inspector", file=INSPECTOR_FILE)
            self.command.value = shlex.join([*inspector_command(), "--method", "tools/list"])
        else:
            usage, self.command.value = config_usage(chosen), ""
        shown = f"<div class='mcp-warn'>{html.escape(note)}</div>" if note else ""
        self.usage.value = f"{shown}<div>{html.escape(usage)}</div>"

    def _forget_replace(self) -> None:
        self._replace = None

    def save(self) -> Path | None:
        """Write the configuration shown into the file named beside it (owner-only); the path, or None.

        A file already there is replaced only on a second click, once the person has read that it exists.
        """
        name = str(self.file.value).strip()
        if not self.config.value or not name:
            return None
        path = Path(name).expanduser()
        if path.exists() and self._replace != path.resolve():
            self._replace = path.resolve()
            self.saved.value = f"<span class='mcp-warn'>{html.escape(t('connect.exists', path=name))}</span>"
            return None
        try:
            write_private(path, self.config.value)
        except OSError as exc:
            error = html.escape(t("connect.save_failed", path=name, error=exc.strerror or exc))
            self.saved.value = f"<span class='mcp-error'>{error}</span>"
            return None
        self._replace = None
        self.saved.value = f"<span class='mcp-ok'>{html.escape(t('connect.saved', path=name))}</span>"
        return path

    def run_check(self) -> Any:
        """Check the connection as the picked client would (or with the server token), and show the outcome."""
        # Through Jupyter (or a hub) clients come in with Jupyter's credentials, not a client token of
        # the server's: check that path (the handle knows it).
        via = self.through.value
        outcome = self.server.check(identity=None if via == "jupyter" else self.client.value, via=via)
        self.result.show(outcome)
        return outcome

    def __repr__(self) -> str:
        return f"<connect a client to {self.server.url}>"
