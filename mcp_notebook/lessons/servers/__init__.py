"""MCP servers the lessons run over stdio (each a script that imports nothing of this package)."""
