"""The tool linter: each tool's interface against what helps a model call it right.

`lint` checks tools in this process (pure); `lint_notebook` runs a notebook in a fresh kernel and
lints the tools it defines, and `main_lint` is the ``mcp-notebook lint`` command.
"""

from ._lint import RULES, Finding, Rule, format_findings, lint, lint_icons, summary
from ._notebook import NotebookLintError, lint_notebook, main_lint

__all__ = [
    "RULES",
    "Finding",
    "NotebookLintError",
    "Rule",
    "format_findings",
    "lint",
    "lint_icons",
    "lint_notebook",
    "main_lint",
    "summary",
]
