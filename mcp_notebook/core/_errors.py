"""The exceptions mcp-notebook raises.

    MCPNotebookError
    ├── ToolDefinitionError    a function cannot become a tool (bad name, unsupported type hint)
    ├── ServerError            the in-kernel server cannot start or is not running
    ├── ProtocolError          a server answered with a JSON-RPC error (carries .code, .data)
    ├── InvalidResultError     a server's answer broke the protocol (e.g. output schema not honoured)
    ├── ClientConnectionError  the client could not reach or talk to a server
    ├── InvalidAnswerError     an accepted answer does not fit the class a tool asked with (a ValueError)
    └── OptionError            an option of serve() or of the client's target cannot work (a ValueError)
    ToolError                  raised *by tool code* to return an error result to the model

    AuditLogWarning            (a UserWarning) the audit log could not be written
    ProtocolDeprecationWarning (a DeprecationWarning) a tool uses what 2026-07-28 deprecates

`ToolError` deliberately does not derive from `MCPNotebookError`: it is not a failure of
this package but a message from a tool to the model (`isError: true`).
"""

from __future__ import annotations

from typing import Any


class MCPNotebookError(Exception):
    """Base class of every error raised by mcp-notebook itself."""


class ToolDefinitionError(MCPNotebookError, ValueError):
    """A Python function cannot be turned into an MCP tool as written."""


class OptionError(MCPNotebookError, ValueError):
    """An option's value that cannot work (`core._options`); `option` names it (None: several together)."""

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option


class ServerError(MCPNotebookError, RuntimeError):
    """The in-kernel server could not start, or is not running."""


class ClientConnectionError(MCPNotebookError, ConnectionError):
    """The client could not reach the server, or the connection broke."""


class InvalidResultError(MCPNotebookError):
    """A server answered, but the answer breaks the protocol, so the client rejected it.

    For example, a tool with an output schema returned no (or non-conforming) structured content.
    """


class ProtocolError(MCPNotebookError):
    """A server answered a request with a JSON-RPC error (a protocol-layer error).

    Parameters
    ----------
    code:
        The JSON-RPC error code, e.g. ``-32602`` for an unknown tool.
    message:
        The server's message.
    data:
        The error's optional ``data`` member.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message
        self.data = data

    def _render_traceback_(self) -> list[str]:
        # IPython shows this instead of a traceback: the layer and the code are what matter.
        return [f"ProtocolError (JSON-RPC {self.code}): {self.message}"]


class InvalidAnswerError(MCPNotebookError, ValueError):
    """A person accepted a form, but the answer does not fit the class the tool asked with.

    Raised in a tool by `Context.elicit` (and `Context.ask`) when the form is a class (a pydantic
    model, a dataclass or a TypedDict) and the content the client sent fails its validation. A
    ``ValueError``, as the official SDK's ``elicit`` raises for the same case. Left uncaught, it ends
    the call with an error result (``isError``) saying what did not fit; caught, the tool may ask
    again or answer the model with what to fix.

    Attributes
    ----------
    answer:
        The `Elicitation` as the client sent it (``answer.content`` holds the raw content).
    problems:
        What did not fit, one line each as ``field: why``.
    """

    def __init__(self, message: str, *, answer: Any, problems: list[str]) -> None:
        super().__init__(message)
        self.answer = answer
        self.problems = problems


class ToolError(Exception):
    """Raise inside a tool to return a tool execution error (``isError: true``) to the model.

    The message is sent as is, so write it for the model: what went wrong and what to do next.

    Examples
    --------
    >>> raise ToolError("No order 'A-17'. List orders with list_orders, then retry with a listed id.")
    """


class AuditLogWarning(UserWarning):
    """The server's audit log could not be written, so tool calls are not on record there.

    Warned once each time writing starts to fail (and again after it has recovered and fails anew);
    the server panel shows it for as long as it lasts. The calls themselves still run.
    """


class ProtocolDeprecationWarning(DeprecationWarning):
    """A tool uses a feature that MCP 2026-07-28 deprecates (SEP-2577), in a 2026-07-28 request.

    Sampling (``ctx.sample``) and roots (``ctx.list_roots``) still work in both eras, and will in
    every revision released within a year of 2026-07-28; the warning (once per feature and process)
    says what to move to. Filter it like any warning::

        warnings.filterwarnings("ignore", category=mcp_notebook.ProtocolDeprecationWarning)
    """
