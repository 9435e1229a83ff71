"""``python -m mcp_notebook.cli``: the same command as ``mcp-notebook``."""

from ._main import main

raise SystemExit(main())
