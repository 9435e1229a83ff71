"""``%load_ext mcp_notebook`` and ``%unload_ext mcp_notebook``: what the extension installs, and undoes.

Loading registers the magics and the linter that runs on every ``@tool`` a cell defines (shown
compactly under the cell), and nothing heavier: the SDK and the server load on first use. Unloading
removes both and closes the runtime (the server stops and frees its port, client connections
close), so ``%reload_ext`` starts clean.
"""

from __future__ import annotations

import html
import sys
from typing import Any

from IPython.display import display

from ..core._catalogue import DEFINE_HOOKS
from ..linter._lint import lint
from ._magics import MAGIC_NAMES, MCPMagics


def load(ipython: Any) -> None:
    ipython.register_magics(MCPMagics)
    if lint_on_define not in DEFINE_HOOKS:
        DEFINE_HOOKS.append(lint_on_define)


def unload(ipython: Any) -> None:
    line_magics = ipython.magics_manager.magics["line"]
    for name in MAGIC_NAMES:
        line_magics.pop(name, None)
    ipython.magics_manager.registry.pop("MCPMagics", None)
    if lint_on_define in DEFINE_HOOKS:
        DEFINE_HOOKS.remove(lint_on_define)
    # Only if something started it: unloading must not import the loop (and anyio) just to close it.
    loop = sys.modules.get("mcp_notebook.runtime._loop")
    if loop is not None:
        loop.runtime.close()


class LintReport:
    """The linter's findings for a tool just defined, shown compactly under the cell."""

    def __init__(self, findings: list[Any]) -> None:
        self.findings = findings

    def __repr__(self) -> str:
        return "\n".join(str(finding) for finding in self.findings)

    def _repr_html_(self) -> str:
        rows = "".join(f"<li><code>{html.escape(str(finding))}</code></li>" for finding in self.findings)
        return f"<details><summary>{len(self.findings)} × lint</summary><ul>{rows}</ul></details>"


def lint_on_define(entry: Any, catalogue: Any) -> None:
    """Shown under a cell that defines a tool: the errors and warnings the linter finds in it."""
    findings = [f for f in lint(entry, among=catalogue.tools()) if f.severity in ("error", "warning")]
    if findings:
        display(LintReport(findings))
