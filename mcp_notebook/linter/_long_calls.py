"""MCP061: a tool that reports progress over a long loop, but cannot run as a task.

Clients give up on a plain call after about 60 s, whatever progress it reports (Claude Code, the
TypeScript SDK). A tool whose own body calls its `Context`'s ``progress`` inside a ``for`` or
``while`` loop says it expects to run long; with ``@tool(task="optional")`` a client that supports
tasks polls for its result instead of timing out, and can cancel it. The function's source is read
as MCP060 reads it (`_blocking`), and only calls on the `Context` parameter itself count.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable
from typing import Any

_PROGRESS = frozenset({"progress", "aprogress"})


def progress_in_loop(fn: Callable[..., Any], context: str | None) -> bool:
    """Whether `fn` calls ``<context>.progress(...)`` (or ``aprogress``) inside a loop of its own body."""
    if context is None:
        return False
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False  # no source to read: nothing to say
    function = next(
        (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)), None
    )
    if function is None:
        return False
    loops = [n for n in ast.walk(function) if isinstance(n, ast.For | ast.AsyncFor | ast.While)]
    for loop in loops:
        for node in ast.walk(loop):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _PROGRESS
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == context
            ):
                return True
    return False
