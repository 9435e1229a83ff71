"""MCP060: an ``async def`` tool that calls something blocking (``time.sleep``, ``requests.get`` ...).

An async tool runs on the server's event loop, so a blocking call inside it stops the loop: every
other client and ``%mcp_call`` wait, and the tool's own timeout cannot fire. A plain ``def`` tool
would run on a worker thread instead. The function's source is read (``inspect.getsource``; IPython
keeps cell sources for it) and each call in its own body is resolved through the function's
globals, so ``from time import sleep as nap`` is found and a local helper of the same name is not.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

# Blocking callables by module and name; a module that is not imported yet is not used by the tool.
_BLOCKING: dict[str, tuple[str, ...]] = {
    "time": ("sleep",),
    "subprocess": ("run", "call", "check_call", "check_output"),
    "urllib.request": ("urlopen",),
    "requests": ("get", "post", "put", "patch", "delete", "head", "options", "request"),
    "httpx": ("get", "post", "put", "patch", "delete", "head", "options", "request", "stream"),
}


def blocking_calls(fn: Callable[..., Any]) -> list[str]:
    """The blocking calls an ``async def`` function makes in its own body, as written (``time.sleep``)."""
    if not inspect.iscoroutinefunction(fn):
        return []
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return []  # no source to read (a builtin, a lambda in a string ...): nothing to say
    function = next((n for n in ast.walk(tree) if isinstance(n, ast.AsyncFunctionDef)), None)
    if function is None:
        return []
    blocking = _known_blocking()
    namespace = getattr(fn, "__globals__", {})
    found: list[str] = []
    for call in sorted(_own_calls(function), key=lambda call: (call.lineno, call.col_offset)):
        written = _dotted(call.func)
        if written is None or written in found:
            continue
        target = _resolve(written, namespace)
        if target is not None and any(target is known for known in blocking):
            found.append(written)
    return found


def _own_calls(function: ast.AsyncFunctionDef) -> Iterator[ast.Call]:
    # Not inside nested functions or lambdas: those may well be sent to a thread on purpose.
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.Call):
            yield node
        pending.extend(ast.iter_child_nodes(node))


def _dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _resolve(dotted: str, namespace: dict[str, Any]) -> Any:
    head, *rest = dotted.split(".")
    if head not in namespace:
        return None
    value = namespace[head]
    for part in rest:
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


def _known_blocking() -> list[Any]:
    known = []
    for module_name, names in _BLOCKING.items():
        if module_name not in sys.modules:
            continue  # never import anything here: a tool that uses the module has imported it
        module = importlib.import_module(module_name)
        known += [getattr(module, name) for name in names if hasattr(module, name)]
    return known
