"""The ``mcp-notebook`` command."""

from __future__ import annotations

import argparse
import sys

from ._version import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-notebook",
        description="Build, serve, inspect and learn MCP servers from a Jupyter notebook.",
    )
    parser.add_argument("--version", action="version", version=f"mcp-notebook {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("version", help="print the version")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "version":
        sys.stdout.write(f"mcp-notebook {__version__}\n")
        return 0
    parser.print_help()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
