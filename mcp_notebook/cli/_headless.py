"""``mcp-notebook serve NOTEBOOK.ipynb``: run a notebook in a real kernel, headless, and serve it.

The notebook runs in a fresh Jupyter kernel (jupyter_client), in its own folder, cell by cell:
the same kernel, the same package and the same server as in JupyterLab, so the notebook behaves
the same. The server is started *before* the cells run: a cell's ``%mcp_serve`` then returns it
(rather than starting a second one on another port) and ``%mcp_call`` cells work. After the last
cell it is asked for again, which restarts it should a cell have stopped it.

Cells that should not run headless carry the tag ``mcp-skip`` or start with the line
``# mcp: skip``. A cell tagged ``raises-exception`` (the nbval/nbclient convention) may fail; any
other failing cell ends the command with its number and error.

stdout carries only the URL (or, with ``--stdio``, only the protocol); logs, cell output and the
kernel's own output go to stderr.

``--client NAME`` (repeatable) lets a client in with a token of its own. Tokens never go on a
command line or into a log: they are written to a file readable only by its owner (0600, in a
0700 folder), whose path is logged; a later run of the same notebook reuses the tokens in it, so
a client set up once keeps working across restarts (delete the file, or the client's line, to
make new ones).
"""

from __future__ import annotations

import argparse
import ast
import json
import logging
import os
import queue
import re
import signal
import stat
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any, TextIO

from ..core._errors import ServerError
from ..core._idempotency import default_path as _idempotency_path
from ..core._identity import check_client_name, default_server_name
from ..core._secrets import new_token
from ..core._text import t
from ..server._settings import ServerSettings, is_loopback
from ._terminal_approval import TerminalApprovals

logger = logging.getLogger(__name__)


SKIP_TAG = "mcp-skip"
MAY_RAISE_TAG = "raises-exception"
_SKIP_LINE = re.compile(r"#\s*mcp\s*:\s*skip\b", re.IGNORECASE)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@dataclass
class Cell:
    number: int  # 1-based position in the notebook, markdown cells included
    source: str
    tags: list[str] = field(default_factory=list)

    @property
    def skipped(self) -> bool:
        first = self.source.lstrip().split("\n", 1)[0]
        return SKIP_TAG in self.tags or bool(_SKIP_LINE.match(first.strip()))


class HeadlessError(Exception):
    """The notebook cannot be served: a cell failed, the file is unreadable, the kernel died."""


def read_cells(path: Path) -> list[Cell]:
    """The code cells of a notebook (nbformat 4), numbered as they appear."""
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HeadlessError(f"cannot read the notebook {str(path)!r}: {exc}") from None
    if not isinstance(notebook, dict) or notebook.get("nbformat") != 4:
        raise HeadlessError(
            f"{str(path)!r} is not an nbformat 4 notebook; convert it with "
            "`jupyter nbconvert --to notebook --nbformat 4`."
        )
    cells = []
    for number, cell in enumerate(notebook.get("cells", []), start=1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        cells.append(Cell(number, source, list(cell.get("metadata", {}).get("tags", []))))
    return cells


class HeadlessKernel:
    """One kernel for one notebook: start, run cells, serve, stop."""

    def __init__(
        self,
        notebook: Path,
        *,
        kernel_name: str = "python3",
        token: str,
        client_tokens: dict[str, str] | None = None,
    ) -> None:
        self.notebook = notebook
        self.kernel_name = kernel_name
        self.token = token
        self.client_tokens = dict(client_tokens or {})
        self.manager: Any = None
        self.client: Any = None

    def start(self) -> None:
        from jupyter_client.manager import start_new_kernel

        # Tokens reach the kernel by environment, never in code (code lands in the history).
        # JPY_SESSION_NAME: the notebook's path, as a Jupyter server tells its kernels.
        env = {
            **os.environ,
            "MCP_NOTEBOOK_TOKEN": self.token,
            _CLIENT_TOKENS: json.dumps(self.client_tokens),
            "JPY_SESSION_NAME": str(self.notebook),
        }
        # The kernel's own stdout goes to our stderr: stdout is for the URL or the protocol only.
        stderr = sys.stderr.fileno()
        options: dict[str, Any] = {
            "cwd": str(self.notebook.parent),
            "env": env,
            "stdout": stderr,
            "stderr": stderr,
        }
        major, minor = (int(part) for part in version("jupyter_client").split(".")[:2])
        if (major, minor) >= (8, 10):
            options["transport_encryption"] = "auto"  # CurveZMQ where pyzmq has it (else a warning per start)
        self.manager, self.client = start_new_kernel(kernel_name=self.kernel_name, **options)

    def execute(
        self,
        code: str,
        *,
        timeout: float | None = None,
        on_message: Callable[[dict[str, Any]], None] | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """Run `code`; cell output goes to stderr. Returns the execute_reply content."""

        def show(message: dict[str, Any]) -> None:
            if message["msg_type"] == "stream":
                sys.stderr.write(message["content"]["text"])
                sys.stderr.flush()
            if on_message is not None:
                on_message(message)

        reply = self.client.execute_interactive(
            code, allow_stdin=False, timeout=timeout, output_hook=show, **options
        )
        content: dict[str, Any] = reply["content"]
        return content

    def run_cells(self, cells: list[Cell], *, timeout: float | None = None) -> None:
        for cell in cells:
            if cell.skipped:
                logger.info("cell %d skipped", cell.number)
                continue
            try:
                reply = self.execute(cell.source, timeout=timeout)
            except TimeoutError:
                raise HeadlessError(f"cell {cell.number} did not finish within {timeout} s") from None
            if reply["status"] == "ok":
                continue
            error = f"{reply.get('ename', 'Error')}: {reply.get('evalue', '')}"
            if MAY_RAISE_TAG in cell.tags:
                logger.info("cell %d raised %s, as its tag %r allows", cell.number, error, MAY_RAISE_TAG)
                continue
            trace = _ANSI.sub("", "\n".join(reply.get("traceback", [])))
            raise HeadlessError(f"cell {cell.number} failed: {error}\n{trace}".rstrip())

    def serve(self, options: Mapping[str, Any]) -> str:
        """Start the server in the kernel with `options` (`mcp_notebook.serve`'s keywords), or return
        the running one, with its clients; its URL."""
        # The client tokens are taken out of the environment once (cells' subprocesses need not
        # inherit them) and added to the server on every start: adding the same token is a no-op.
        code = (
            "import mcp_notebook as _mcp_notebook\n"
            f"_mcp_srv = _mcp_notebook.serve(**{dict(options)!r})\n"
            "if '_mcp_client_tokens' not in globals():\n"
            f"    _mcp_client_tokens = __import__('json').loads(__import__('os').environ.pop({_CLIENT_TOKENS!r}, '{{}}'))\n"
            "for _mcp_name, _mcp_token in _mcp_client_tokens.items():\n"
            "    _mcp_srv.add_client(_mcp_name, token=_mcp_token)"
        )
        info = "__import__('json').dumps({'url': _mcp_srv.url, 'token': _mcp_srv.token})"
        reply = self.execute(code, store_history=False, user_expressions={"info": info}, timeout=60)
        if reply["status"] != "ok":
            raise HeadlessError(f"the server did not start: {reply.get('ename')}: {reply.get('evalue')}")
        served = json.loads(ast.literal_eval(reply["user_expressions"]["info"]["data"]["text/plain"]))
        if served["token"] != self.token:
            logger.warning("a cell started its own server; its token is %s", served["token"])
        return str(served["url"])

    def approvals_at(self, terminal: TerminalApprovals | None) -> None:
        """Who answers approval prompts: `terminal`, or nobody (such calls are then declined at once)."""
        module = "import mcp_notebook.ipython._approval_channel as _mcp_approval\n"
        if terminal is None:
            reply = self.execute(module + "_mcp_approval.unattended()", store_history=False, timeout=60)
        else:
            code = module + "_mcp_approval.open_channel()"
            reply = self.execute(code, store_history=False, timeout=60, on_message=terminal.handle)
        if reply["status"] != "ok":
            raise HeadlessError(f"approvals could not be set up: {reply.get('ename')}: {reply.get('evalue')}")

    def send_comm(self, comm_id: str, data: dict[str, Any]) -> None:
        """A comm message to the kernel, as a Jupyter frontend sends one."""
        message = self.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.client.shell_channel.send(message)

    def alive(self) -> bool:
        return self.manager is not None and bool(self.manager.is_alive())

    def shutdown(self) -> None:
        """Stop the server, then the kernel (which frees the port). Safe to call twice."""
        manager, client, self.manager, self.client = self.manager, self.client, None, None
        if manager is None:
            return
        if client is not None:
            if manager.is_alive():
                try:
                    client.execute_interactive(
                        "import mcp_notebook as _m; _m.stop()",
                        store_history=False,
                        timeout=10,
                        output_hook=lambda message: None,
                    )
                except Exception:  # a busy or dying kernel: the shutdown below frees the port anyway
                    logger.debug("could not stop the server before shutdown", exc_info=True)
            client.stop_channels()
        manager.shutdown_kernel(now=False)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


_CLIENT_TOKENS = "MCP_NOTEBOOK_CLIENT_TOKENS"


def clients_file(server_name: str) -> Path:
    """Where ``mcp-notebook serve --client`` keeps the client tokens of the server `server_name`."""
    safe = re.sub(r"[^\w.-]+", "-", server_name).strip("-.") or "notebook"
    return _idempotency_path().parent / "clients" / f"{safe}.json"


def _serve_options(args: argparse.Namespace, server_name: str) -> dict[str, Any]:
    """The settings `mcp_notebook.serve` gets in the kernel: the command line's, checked before a
    kernel starts (`ServerSettings`), so a setting that cannot work fails at once."""
    options: dict[str, Any] = {
        "port": args.port,
        "host": args.host,
        "approval": args.approval or "ask",
        "name": server_name,
    }
    if args.approval_timeout is not None:
        options["approval_timeout"] = args.approval_timeout
    for name in ("audit_max_bytes", "audit_keep"):
        if getattr(args, name, None) is not None:
            options[name] = getattr(args, name)
    if not is_loopback(args.host):
        options["allow_remote"] = True  # asked for on the command line; serve() warns
    ServerSettings.of(options, "mcp-notebook serve")
    return options


def _client_tokens(names: list[str], path: Path) -> dict[str, str]:
    """A token for each client: the one kept in `path` by an earlier run (if the file is private), else new."""
    kept: dict[str, Any] = {}
    try:
        info = path.stat()
        if info.st_uid == os.getuid() and info.st_mode & 0o077 == 0:
            kept = json.loads(path.read_text(encoding="utf-8")).get("clients", {})
    except (OSError, ValueError, AttributeError):
        kept = {}
    tokens = {}
    for name in names:
        entry = kept.get(name)
        token = entry.get("token") if isinstance(entry, dict) else None
        tokens[name] = token if isinstance(token, str) and len(token) >= 16 else new_token()
    return tokens


def check_clients_file(path: Path) -> None:
    """Refuse a clients file that is a link, not a plain file, or another user's.

    Written through a link, the tokens would land wherever it points (a file others read), or
    overwrite a file of yours; another user's file is theirs to read.
    """
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise HeadlessError(t("headless.clients_file_unusable", path=str(path), error=exc)) from None
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
        raise HeadlessError(t("headless.clients_file_unsafe", path=str(path)))


def _write_clients_file(path: Path, url: str, tokens: dict[str, str]) -> None:
    """Write the client tokens where only their owner can read them (0600 in a 0700 folder)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    check_clients_file(path)
    content = {
        "url": url,
        "clients": {
            name: {"token": token, "header": f"Authorization: Bearer {token}"}
            for name, token in tokens.items()
        },
    }
    try:
        # O_NOFOLLOW: a link put there after the check is refused too (ELOOP), never followed.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise HeadlessError(t("headless.clients_file_unusable", path=str(path), error=exc)) from None
    try:
        if os.fstat(fd).st_uid != os.getuid():
            raise HeadlessError(t("headless.clients_file_unsafe", path=str(path)))
        os.fchmod(fd, 0o600)  # a file that existed with wider permissions is narrowed first
        os.ftruncate(fd, 0)
        os.write(fd, (json.dumps(content, indent=2) + "\n").encode())
    finally:
        os.close(fd)


def main_serve(args: argparse.Namespace, token: str | None = None) -> int:
    """The ``serve`` command (see ``mcp-notebook serve --help``).

    `token`: what the command line resolved (``--token-file``, ``MCP_NOTEBOOK_TOKEN``); None makes one.
    """
    signal.signal(signal.SIGTERM, _interrupt)
    notebook = Path(args.notebook).resolve()
    generated = not token
    token = token or new_token()
    names = list(dict.fromkeys(getattr(args, "client", None) or []))
    try:
        cells = read_cells(notebook)
        for name in names:
            check_client_name(name)
        server_name = getattr(args, "name", None) or default_server_name({"JPY_SESSION_NAME": str(notebook)})
        tokens_path = (
            Path(args.clients_file) if getattr(args, "clients_file", None) else clients_file(server_name)
        )
        if names:
            check_clients_file(tokens_path)
        options = _serve_options(args, server_name)
    except (HeadlessError, ValueError, ServerError) as exc:
        logger.error("%s", exc)
        return 2
    client_tokens = _client_tokens(names, tokens_path) if names else {}
    kernel = HeadlessKernel(notebook, kernel_name=args.kernel, token=token, client_tokens=client_tokens)
    serving = False
    # A person answers at this terminal only if there is one, and stdin is not the protocol's.
    terminal = None
    if not args.stdio and sys.stdin is not None and sys.stdin.isatty() and _in_foreground(sys.stdin):
        if hasattr(signal, "SIGTTIN"):
            # Put in the background later (Ctrl-Z, bg), a read of the terminal would stop the whole
            # server; ignored, it fails instead, and the prompts wait for `fg`.
            signal.signal(signal.SIGTTIN, signal.SIG_IGN)
        terminal = TerminalApprovals(kernel.send_comm, _terminal_out(), sys.stdin)
    try:
        kernel.start()
        kernel.serve(options)
        kernel.run_cells(cells, timeout=args.cell_timeout)
        url = kernel.serve(options)
        kernel.approvals_at(terminal)
        serving = True
        if client_tokens:
            _write_clients_file(tokens_path, url, client_tokens)
            logger.warning(
                "client tokens (%s) are in %s, readable only by you; clients send "
                "'Authorization: Bearer <token>'",
                ", ".join(client_tokens),
                tokens_path,
            )
        if options["approval"] != "auto":
            key = "headless.asks_here" if terminal is not None else "headless.declines"
            logger.warning("%s", t(key, mode=options["approval"]))
        if args.stdio:
            # The stdio client is the first --client when there is one: its calls are that client's.
            return _serve_stdio(kernel, url, next(iter(client_tokens.values()), kernel.token))
        if generated:
            sys.stderr.write(
                f"mcp-notebook: token: {token}  (clients send 'Authorization: Bearer <token>')\n"
            )
        sys.stderr.write(f"mcp-notebook: serving {notebook.name} at {url}\n")
        sys.stdout.write(url + "\n")
        sys.stdout.flush()
        return _wait(kernel, terminal)
    except HeadlessError as exc:
        logger.error("%s", exc)
        return 1
    except KeyboardInterrupt:
        return 0 if serving else 130
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):  # a second signal must not cut the clean stop short
            signal.signal(signum, signal.SIG_IGN)
        kernel.shutdown()


def _wait(kernel: HeadlessKernel, terminal: TerminalApprovals | None = None) -> int:
    """Serve until SIGINT/SIGTERM (exit 0), or until the kernel dies (exit 1).

    With a terminal, read what the kernel sends meanwhile (approval prompts) and ask there.
    """
    # A signal only asks this loop to end. Raised as KeyboardInterrupt wherever the main thread is,
    # it could land inside the kernel manager's process poll, between taking its lock and releasing
    # it, and the shutdown after it would then wait on that lock for ever.
    asked_to_stop: list[int] = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda signum, frame: asked_to_stop.append(signum))
    ticker = threading.Event()  # never set: a pause of at most a second between looks
    while not asked_to_stop:
        if not kernel.alive():
            break
        if terminal is None:
            ticker.wait(1.0)
            continue
        try:
            while True:  # every message already there, then a moment for a typed answer
                terminal.handle(kernel.client.get_iopub_msg(timeout=0))
        except queue.Empty:
            pass
        terminal.step(timeout=0.2)
    if asked_to_stop:
        return 0
    logger.error("the kernel died; the server is gone")
    return 1


def _in_foreground(stream: TextIO) -> bool:
    """Whether this process may read `stream`'s terminal: not started in the background (``serve ... &``)."""
    if not hasattr(os, "tcgetpgrp"):
        return True
    try:
        return os.tcgetpgrp(stream.fileno()) == os.getpgrp()
    except OSError:  # not our controlling terminal: no job control that could stop us
        return True


def _terminal_out() -> TextIO:
    """Where prompts are written: stderr, unless it was redirected away from the terminal of stdin."""
    if sys.stderr.isatty():
        return sys.stderr
    return open(os.ttyname(sys.stdin.fileno()), "w", encoding="utf-8")  # lives as long as serve


def _serve_stdio(kernel: HeadlessKernel, url: str, token: str) -> int:
    import anyio

    from ._bridge import run_bridge  # the SDK's client and server: only when serving on stdio

    # The bridge handles SIGINT/SIGTERM itself while it runs (and ends when stdin closes).
    return anyio.run(run_bridge, url, token)
