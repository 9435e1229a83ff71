"""The ``mcp-notebook`` command: serve a notebook headless, bridge to stdio, client configs, checks, lint."""

from ._main import main

__all__ = ["main"]
