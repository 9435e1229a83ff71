"""The pure core: what a notebook function becomes, and what a call produces.

Schemas from type hints and docstrings, tool/resource/prompt entries and the catalogue, argument
checks, results, batches, handles, idempotency, the `Store` that keeps what outlives a call (and
its SQLite and in-memory implementations), the questions a tool may ask, the `Context` a tool
sees, the approval requests a person decides on, identities, guard building blocks (rate limits, sanitizing, redaction), messages in both
languages, and the errors of the package. No `mcp.server`, no IPython, no ipywidgets, and nothing
here starts a thread: the layers above decide where things run and how they reach the wire.
"""
