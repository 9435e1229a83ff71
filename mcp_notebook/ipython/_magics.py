"""IPython magics: parse the line, make one call of the public API, return what it returns.

Every line magic reads its line as a shell does: ``srv = %mcp_serve  # a note`` ignores the note
(`MCPMagics` strips it before anything else reads the line). ``%mcp_call`` takes JSON, so it is
``@no_var_expand``: ``$name`` is resolved on purpose, only where a value is expected, and braces
are never mistaken for IPython's ``{expr}`` expansion.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
from collections.abc import Callable
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import (
    MAGIC_NO_VAR_EXPAND_ATTR,
    Magics,
    line_magic,
    magics_class,
    no_var_expand,
)
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display
from IPython.utils.text import DollarFormatter

from ..core._catalogue import default_catalogue
from ..core._errors import MCPNotebookError, ProtocolError
from ..core._primitives import publish
from ..core._text import t
from ..server._approval import seconds_argument
from ._magic_args import (
    TARGET_VALUES,
    lookup,
    parse_arguments,
    strip_comment,
    target,
    target_options,
    tokens,
)

MAGIC_NAMES = (
    "mcp_serve",
    "mcp_stop",
    "mcp_status",
    "mcp_tools",
    "mcp_call",
    "mcp_read",
    "mcp_prompt",
    "mcp_publish",
)


@magics_class
class MCPMagics(Magics):
    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell, **kwargs)
        # The one place every line magic of this class passes through, those to come included.
        self.magics["line"] = {
            name: _reads_like_a_shell(magic, shell) for name, magic in self.magics["line"].items()
        }

    @magic_arguments()
    @argument("--port", type=int, default=0, help="TCP port (default 0: any free port).")
    @argument("--host", default="127.0.0.1", help="Address to bind (default 127.0.0.1, loopback only).")
    @argument(
        "--token", default=None, help="Token clients must send (default: MCP_NOTEBOOK_TOKEN or random)."
    )
    @argument(
        "--run-in",
        choices=("thread", "kernel"),
        default="thread",
        help="Where tools run: a worker thread (default) or the kernel's main thread between cells.",
    )
    @argument(
        "--approval",
        choices=("ask", "always", "auto"),
        default="ask",
        help="Ask a person before outside calls of tools not marked read-only (ask, default), of every tool "
        "(always), or never (auto: for tests and demos).",
    )
    @argument(
        "--approval-timeout",
        type=seconds_argument,
        default=120.0,
        metavar="SECONDS",
        help="Seconds a call waits for Approve/Deny before it counts as declined (default 120).",
    )
    @argument("--allow-remote", action="store_true", help="Allow a non-loopback --host (warns).")
    @argument(
        "--audit-max-bytes",
        type=int,
        default=argparse.SUPPRESS,  # not given: serve()'s default
        metavar="BYTES",
        help="Rotate the audit log when it would pass this size (default 52428800: 50 MiB).",
    )
    @argument(
        "--audit-keep",
        type=int,
        default=argparse.SUPPRESS,
        metavar="N",
        help="How many rotated audit files to keep (default 5).",
    )
    @argument(
        "--name",
        default=None,
        help="The server's name, which keeps this notebook's stored results (idempotency keys) apart "
        "from other notebooks' (default: from the notebook's file name and path).",
    )
    @line_magic
    def mcp_serve(self, line: str) -> Any:
        """Serve this notebook's tools to MCP clients over Streamable HTTP.

        Starts a background server inside the kernel, shows its panel (approval prompts and the
        activity log) in this cell, and returns its handle (``srv.url``, ``srv.token``,
        ``srv.stop()``, ``srv.pending``). Running it again returns the server already running.
        By default an outside client's call of a tool not marked read-only waits for Approve/Deny.

            srv = %mcp_serve
            srv = %mcp_serve --port 8765 --run-in kernel
            srv = %mcp_serve --approval-timeout 600       # ten minutes to answer each prompt
            srv = %mcp_serve --name orders
            srv = %mcp_serve --audit-max-bytes 10000000 --audit-keep 3

        Give each AI client a token of its own: ``srv.add_client("claude-code")``, or paste
        ``srv.client_config("claude-code")``.
        """
        args = parse_argstring(self.mcp_serve, line)
        from ..api._serving import serve  # the server imports the SDK: on first use, not on %load_ext

        try:
            server = serve(**vars(args))  # each option of the line is a setting of the same name
        except (MCPNotebookError, ValueError) as exc:  # a bad option value: say what to change
            raise UsageError(str(exc)) from None
        # The panel shows approval prompts and activity; it lives in this cell's output.
        display(server.panel())
        return server

    @line_magic
    def mcp_stop(self, line: str) -> None:
        """Stop the in-kernel MCP server and free its port."""
        from ..api._serving import stop  # the server imports the SDK: on first use, not on %load_ext

        stop()

    @line_magic
    def mcp_status(self, line: str) -> None:
        """Show whether the in-kernel MCP server runs, where, and how many tools it serves."""
        from ..api._serving import current_server  # the SDK: on first use, not on %load_ext

        server = current_server()
        print(server.status() if server is not None else t("serve.status_stopped"))

    @line_magic
    def mcp_tools(self, line: str) -> Any:
        """Show this notebook's tools, resources and prompts (who controls each, and lint findings).

        The view follows the catalogue live as cells define or redefine things.
        """
        from ..widgets import CatalogueView  # ipywidgets: on first use, not on %load_ext

        return CatalogueView(default_catalogue)

    @magic_arguments()
    @argument("name", help="The tool to call.")
    @argument("pairs", nargs="*", help="Arguments as key=value (values read as JSON when they parse).")
    @argument(
        "--confirm",
        action="store_true",
        help="Show Approve / Deny first and call only when approved (returns a pending call at once).",
    )
    @argument(
        "--task",
        action="store_true",
        help="Run the call as a task (a tool with task support): returns at once a task with a progress "
        "bar and Cancel, .status, .result(timeout), await and .cancel().",
    )
    @target_options
    @no_var_expand
    @line_magic
    def mcp_call(self, line: str) -> Any:
        """Call an MCP tool and show its result.

            %mcp_call forecast city=Seoul unit=C
            %mcp_call forecast {"city": "Seoul"}
            %mcp_call forecast city=$my_city
            %mcp_call add a=1 b=2 --url http://127.0.0.1:8000/mcp --token T
            pending = %mcp_call delete_row row=3 --confirm     # Approve / Deny first
            job = %mcp_call train epochs=20 --task              # a task: job.result(), job.cancel()

        By default the in-kernel server is called. A JSON-RPC error (e.g. an unknown tool)
        raises ProtocolError with its code; a tool execution error is shown as a result.
        """
        args, arguments = self._parse_with_arguments(self.mcp_call, line)
        if args.task:
            return self._client("call", args.name, arguments, task=True, **target(args, self._namespace()))
        progress = _ProgressBar(args.name)
        return self._client(
            "call",
            args.name,
            arguments,
            confirm=args.confirm,
            on_progress=progress.update,
            **target(args, self._namespace()),
        )

    @magic_arguments()
    @argument("uri", help="The resource to read, e.g. data://sales/north.")
    @target_options
    @no_var_expand
    @line_magic
    def mcp_read(self, line: str) -> Any:
        """Read a resource (resources/read) and show its contents.

        %mcp_read notebook://variables/sales
        %mcp_read data://sales/north --url http://127.0.0.1:8000/mcp --token T
        """
        args = self.mcp_read.parser.parse_args(tokens(line))
        return self._client("read_resource", args.uri, **target(args, self._namespace()))

    @magic_arguments()
    @argument("name", help="The prompt to get.")
    @argument("pairs", nargs="*", help="Arguments as key=value (sent as strings).")
    @target_options
    @no_var_expand
    @line_magic
    def mcp_prompt(self, line: str) -> Any:
        """Get a prompt (prompts/get) filled with arguments, and show its messages.

        %mcp_prompt review_code language=python
        %mcp_prompt summarize {"topic": "sales"}
        """
        args, arguments = self._parse_with_arguments(self.mcp_prompt, line)
        return self._client("get_prompt", args.name, arguments, **target(args, self._namespace()))

    @magic_arguments()
    @argument("variable", help="The notebook variable to publish.")
    @argument("--uri", default=None, help="Where to serve it (default notebook://variables/<variable>).")
    @argument("--name", default=None, help="The resource's name (default: the variable's name).")
    @argument("--description", default=None, help="What it is (default: derived, e.g. a table's columns).")
    @line_magic
    def mcp_publish(self, line: str) -> str:
        """Publish a notebook variable as a resource; run it again after the value changes.

            %mcp_publish sales
            %mcp_publish sales --uri data://sales/latest --description "Sales of this quarter"

        Clients that subscribed to it are told it changed. A DataFrame is served as CSV and JSON.
        """
        args = self.mcp_publish.parser.parse_args(tokens(line))
        namespace = self.shell.user_ns if self.shell is not None else {}
        try:
            value = lookup(namespace, args.variable)
            return publish(value, args.uri, name=args.name or args.variable, description=args.description)
        except MCPNotebookError as exc:
            raise UsageError(str(exc)) from None

    def _parse_with_arguments(self, magic: Any, line: str) -> tuple[Any, dict[str, Any]]:
        words = tokens(line)
        # A token that is a JSON object, or a bare $variable, is the whole arguments object (unless it
        # is the value of --url, --token or --stdio).
        positions = [
            i
            for i, tok in enumerate(words)
            if i > 0
            and (tok.startswith("{") or (tok.startswith("$") and "=" not in tok))
            and words[i - 1] not in TARGET_VALUES
        ]
        whole = [words[i] for i in positions]
        args = magic.parser.parse_args([tok for i, tok in enumerate(words) if i not in positions])
        if len(whole) > 1:
            raise UsageError(t("magic.bad_json", error="more than one JSON object"))
        return args, parse_arguments(self._namespace(), args.pairs, whole[0] if whole else None)

    def _namespace(self) -> dict[str, Any]:
        return self.shell.user_ns if self.shell is not None else {}

    def _client(self, function: str, *args: Any, **kwargs: Any) -> Any:
        from ..client import _calls as _client  # its loop (anyio): on first use, not on %load_ext

        try:
            return getattr(_client, function)(*args, **kwargs)
        except ProtocolError:
            raise
        except MCPNotebookError as exc:
            raise UsageError(str(exc)) from None


def _reads_like_a_shell(magic: Callable[[str], Any], shell: Any) -> Callable[..., Any]:
    """`magic`, reading its line as a shell does: the trailing ``# comment`` is gone before anything else.

    IPython expands ``$name`` and ``{expr}`` before a magic sees its line, so a comment would be
    expanded (and a ``#`` inside an expanded value taken for one). Hence the wrapper opts out of
    IPython's expansion, strips the comment from the line as written, and then expands what is left
    as IPython would have (for magics that did not opt out themselves), with the caller's locals.
    """
    expands = not getattr(magic, MAGIC_NO_VAR_EXPAND_ATTR, False)
    formatter = DollarFormatter()

    @functools.wraps(magic)
    def run(line: str, local_ns: dict[str, Any] | None = None) -> Any:
        line = strip_comment(line)
        if expands and shell is not None:
            namespace = {**shell.user_ns, **(local_ns or {})}
            # As IPython's own expansion: a line it cannot expand stays as written.
            with contextlib.suppress(Exception):
                line = formatter.vformat(line, args=[], kwargs=namespace)
        return magic(line)

    setattr(run, MAGIC_NO_VAR_EXPAND_ATTR, True)
    run.needs_local_scope = True  # type: ignore[attr-defined]  # IPython passes the caller's locals
    return run


class _ProgressBar:
    """Shows a progress bar under the running %mcp_call cell once the first notification arrives.

    Quick calls show nothing. The cell is still running when notifications come (it waits for the
    result), so displaying from the client's thread lands in the right cell.
    """

    def __init__(self, tool: str) -> None:
        self.tool = tool
        self.bar: Any = None

    def update(self, progress: float, total: float | None, message: str | None) -> None:
        if self.bar is None:
            from ..widgets import CallProgress  # ipywidgets: on first use, not on %load_ext

            self.bar = CallProgress(self.tool)
            display(self.bar)
        self.bar.update_progress(progress, total, message)
