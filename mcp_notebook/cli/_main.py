"""The ``mcp-notebook`` command: serve a notebook headless, bridge to stdio, client configs, checks, lint.

Only the URL of ``serve`` (and the text of ``config``) goes to stdout; everything else is logged
to stderr, so the output can be read by scripts and, with ``--stdio``/``bridge``, stdout carries
nothing but the protocol.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Any

from .._version import __version__
from ..core._secrets import TokenFileError, read_token_file, token_on_argv_warning
from ..server._approval import MODES, seconds_argument

_SERVE_HELP = """\
Run NOTEBOOK in a fresh Jupyter kernel (working directory: the notebook's folder), cell by cell,
and serve the tools, resources and prompts it defines. The server starts before the cells run,
so cells that call %mcp_serve or %mcp_call work as in JupyterLab. Once every cell has run, the
endpoint URL is printed as the only line on stdout; logs and cell output go to stderr. Stop with
Ctrl-C or SIGTERM (exit status 0).

Cells that should not run headless: tag them `mcp-skip`, or start them with the line `# mcp: skip`.
A cell tagged `raises-exception` may fail; any other failing cell stops the command (non-zero
exit, the cell number and error on stderr).

Approval (--approval ask, the default, or always): with a terminal on stdin, each outside call that
needs a person's approval is asked about there (the tool, the client, the arguments; y / n / a for
always allow that tool); without one (stdin redirected, started in the background with `&`, or
--stdio, whose stdin is the protocol), such calls are declined at once and the client is told why.
--approval auto runs every call without asking.

Token: MCP_NOTEBOOK_TOKEN, or --token-file PATH (a file readable by you only), else a new random
one, printed to stderr as "mcp-notebook: token: ..." (not with --stdio, whose client needs none).
Clients send it as 'Authorization: Bearer <token>'; `mcp-notebook config CLIENT --url URL` writes it
in (MCP_NOTEBOOK_TOKEN or --token-file again). Never put a token on a command line: other users of
this machine can read every command line (ps); --token still works, and warns.
That is the owner's token (identity "owner"). Better, give each client its own: --client NAME
(repeatable) makes a token for NAME, written to a file only you can read (its path is logged;
--clients-file chooses it) and reused by later runs. The server knows each client by its token:
what it says about itself (clientInfo.name) is only shown as a claim. With --stdio, the stdio
client is the first --client.

Name: --name, else the notebook's file name and a digest of its path. The name keeps this
notebook's stored results (idempotency keys) apart from other notebooks' that define a tool of
the same name; the same notebook keeps its name across restarts.
"""

_EXPORT_HELP = """\
Write NOTEBOOK's tools, resources and prompts as a plain Python module that defines `app`, an ASGI
application: `uvicorn app:app --workers 4` or `gunicorn -k uvicorn.workers.UvicornWorker app:app`
serve it without a kernel (pip install 'mcp-notebook[service]' for Redis and OAuth). The module is
the notebook's code cells in order, then `app = asgi_app(name=...)`; cells tagged `mcp-skip` (or
starting with `# mcp: skip`) are left out, and so are set-up magics such as %load_ext.

Every line that cannot run outside a kernel (a magic with an effect such as %mcp_serve or %pip, a
shell command, get_ipython(), top-level await, widgets, the lessons' exercises, the in-kernel
server's API, a name that only a skipped cell or a refused line defines, read at the top level or in
a tool's body) is reported, all in one run, by cell and line with the reason and the fix, and
nothing is written; so is a notebook with no tool, resource or prompt. A file a cell reads by a
relative path is a warning: the app finds it only when started in the notebook's folder.
-o never writes over the notebook nor any other .ipynb.
Configure the app with a TOML file (MCP_NOTEBOOK_CONFIG) and MCP_NOTEBOOK_... variables: see the
README, "Serving an exported app".
"""

_CARD_HELP = """\
Write the server.json of NOTEBOOK's exported app for the MCP registry (schema 2025-12-11), without
running the notebook: the title and description from its first markdown cell, the name, version,
URL and icons from the app's settings (--config or MCP_NOTEBOOK_CONFIG: the [card] table and
icons; MCP_NOTEBOOK_CARD_... variables), overridden by the options below. The remote it names
needs 'Authorization: Bearer {token}' (required, secret; never a token itself), or OAuth when
that is how the app's clients sign in. What is left out is made up and said on stderr: a name or
URL that is a placeholder must be changed before publishing (mcp-publisher publish). The served
app shows the same data as its server card (a draft, SEP-2127) at /mcp/server-card and
/.well-known/mcp/server-card.json.
"""

_TOKEN_HELP = "the token (default: MCP_NOTEBOOK_TOKEN); read from a file readable by you only"
_TOKEN_ON_ARGV_HELP = "the token itself: visible to other users of this machine (ps); prefer the two above"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-notebook",
        description="Build, serve, inspect and learn MCP servers from a Jupyter notebook.",
    )
    parser.add_argument("--version", action="version", version=f"mcp-notebook {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("version", help="print the version")
    _add_serve(
        _notebook_command(sub, "serve", "run a notebook headless and serve what it defines", _SERVE_HELP)
    )
    _add_client_commands(sub)
    export = _notebook_command(
        sub,
        "export",
        "write a notebook's tools as an ASGI app (app.py) to serve without a kernel",
        _EXPORT_HELP,
    )
    export.add_argument(
        "-o", "--output", metavar="app.py", help="where to write the module (default: stdout)"
    )
    export.add_argument(
        "--name", help="the app's name, which scopes its stored state (default: from the notebook)"
    )
    _add_card(sub)
    sub.add_parser("lint", help="check a notebook's tools (see `mcp-notebook lint --help`)", add_help=False)
    return parser


def _notebook_command(sub: Any, name: str, summary: str, description: str) -> argparse.ArgumentParser:
    """A command that takes a notebook, with its long help shown as written."""
    command: argparse.ArgumentParser = sub.add_parser(
        name, help=summary, description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    command.add_argument("notebook", metavar="NOTEBOOK.ipynb")
    return command


def _add_serve(serve: argparse.ArgumentParser) -> None:
    """The options of ``serve``: the server's settings it passes on (`ServerSettings`), and its own."""
    serve.add_argument("--port", type=int, default=0, help="TCP port (default: a free one)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    _token_options(serve)
    serve.add_argument("--approval", choices=MODES, help="approval of outside tool calls (default: ask)")
    serve.add_argument(
        "--approval-timeout",
        type=seconds_argument,
        metavar="SECONDS",
        help="seconds a call waits for a person's approval before it counts as declined (default: 120)",
    )
    serve.add_argument(
        "--stdio", action="store_true", help="speak MCP on stdin/stdout instead of printing the URL"
    )
    serve.add_argument(
        "--client",
        action="append",
        metavar="NAME",
        help="let the client NAME in with a token of its own (repeatable; tokens go to --clients-file)",
    )
    serve.add_argument(
        "--clients-file",
        metavar="PATH",
        help="where to write the client tokens, readable only by you (default: in the cache folder)",
    )
    serve.add_argument(
        "--name",
        help="the server's name, which scopes its stored results (default: from the notebook's path)",
    )
    serve.add_argument(
        "--audit-max-bytes",
        type=int,
        metavar="BYTES",
        help="rotate the audit log when it would pass this size (default: 52428800, 50 MiB)",
    )
    serve.add_argument(
        "--audit-keep", type=int, metavar="N", help="how many rotated audit files to keep (default: 5)"
    )
    serve.add_argument("--kernel", default="python3", help="kernel name (default: python3)")
    serve.add_argument("--cell-timeout", type=float, help="seconds a cell may run (default: no limit)")


def _add_client_commands(sub: Any) -> None:
    """``bridge``, ``config`` and ``check``: the commands a client of a running server uses."""
    bridge = sub.add_parser(
        "bridge",
        help="serve a Streamable HTTP MCP server over stdio (for Claude Desktop)",
        description="A stdio MCP server that forwards everything to the Streamable HTTP server at URL.",
    )
    bridge.add_argument("url", metavar="URL")
    _token_options(bridge)

    config = sub.add_parser("config", help="print a ready-to-paste client configuration")
    config.add_argument(
        "client", metavar="CLIENT", help="claude-code, claude-desktop, cursor, vscode or inspector"
    )
    config.add_argument("--url", required=True, help="the server's URL (srv.url)")
    _token_options(config)
    config.add_argument("--name", default="notebook", help="the name the client shows (default: notebook)")

    check = sub.add_parser("check", help="check that a client can reach a server; exit 0 if it can")
    check.add_argument("--url", required=True, help="the server's URL (srv.url)")
    _token_options(check)
    check.add_argument("--timeout", type=float, default=10.0, help="seconds to wait (default: 10)")


def _add_card(sub: Any) -> None:
    """The ``card`` command: a notebook's exported app as a registry entry."""
    card = _notebook_command(
        sub, "card", "write the server.json of a notebook's exported app, for the MCP registry", _CARD_HELP
    )
    card.add_argument("-o", "--output", metavar="server.json", help="where to write it (default: stdout)")
    card.add_argument(
        "--config", metavar="app.toml", help="the app's settings (default: MCP_NOTEBOOK_CONFIG)"
    )
    card.add_argument("--name", help="reverse-DNS name, e.g. io.github.alice/orders (default: a placeholder)")
    card.add_argument("--title", help="display name (default: the notebook's first heading)")
    card.add_argument("--description", help="what the server does, at most 100 characters")
    card.add_argument("--version", help="this release's version, e.g. 1.0.0 (default: 0.1.0)")
    card.add_argument("--url", help="the deployed app's MCP endpoint, e.g. https://mcp.example.com/mcp")
    card.add_argument("--website-url", help="a page about the server")
    card.add_argument("--icon", action="append", metavar="URL", help="an icon's https:// URL (repeatable)")


def _token_options(command: argparse.ArgumentParser) -> None:
    group = command.add_mutually_exclusive_group()
    group.add_argument("--token-file", metavar="PATH", help=_TOKEN_HELP)
    group.add_argument("--token", help=_TOKEN_ON_ARGV_HELP)


def _log_to_stderr() -> None:
    """For the long-running commands, which own their process: our logs, and warnings of others."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="mcp-notebook: %(message)s")
    logging.getLogger("mcp_notebook").setLevel(logging.INFO)


def _token(args: argparse.Namespace, parser: argparse.ArgumentParser) -> str | None:
    """The token from --token-file, --token (warned about) or MCP_NOTEBOOK_TOKEN; None if none is set."""
    if args.token_file:
        try:
            token, warning = read_token_file(args.token_file)
        except TokenFileError as exc:
            parser.error(str(exc))
        if warning:
            sys.stderr.write(f"mcp-notebook: {warning}\n")
        return token
    if args.token:
        sys.stderr.write(f"mcp-notebook: {token_on_argv_warning()}\n")
        return str(args.token)
    return os.environ.get("MCP_NOTEBOOK_TOKEN") or None


def main(argv: list[str] | None = None) -> int:
    # Each command imports what it runs when it runs: `mcp-notebook version` or `config` must not
    # pay for the SDK, a kernel client or nbclient.
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "lint":
        from ..linter._notebook import main_lint

        return int(main_lint(argv[1:]) or 0)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "version":
        sys.stdout.write(f"mcp-notebook {__version__}\n")
        return 0
    if args.command in ("serve", "bridge", "config", "check"):
        token = _token(args, parser)
    if args.command == "export":
        from ._export import main_export

        return main_export(args.notebook, args.output, args.name)
    if args.command == "card":
        from ._card import main_card

        return main_card(args)
    if args.command == "serve":
        from ._headless import main_serve

        _log_to_stderr()
        return main_serve(args, token)
    if args.command == "bridge":
        import anyio

        from ._bridge import run_bridge

        _log_to_stderr()
        return anyio.run(run_bridge, args.url, token)
    if args.command == "config":
        from ..client._configs import client_config, config_usage, is_remote_kernel, remote_warning

        try:
            text = client_config(args.client, args.url, token, server_name=args.name, remote=False)
        except ValueError as exc:
            parser.error(str(exc))
        if is_remote_kernel():
            sys.stderr.write(remote_warning() + "\n")
        sys.stderr.write(config_usage(args.client, server_name=args.name) + "\n")
        sys.stdout.write(text + "\n")
        return 0
    if args.command == "check":
        from ..client._configs import check_connection

        result = check_connection(args.url, token, timeout=args.timeout)
        sys.stdout.write(result.message + "\n")
        return 0 if result.ok else 1
    parser.print_help()
    return 0
