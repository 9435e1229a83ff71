"""Approvals at the terminal of ``mcp-notebook serve``: the notebook runs headless, a person answers there.

``mcp-notebook serve`` runs the notebook in a kernel of its own, so the calls that wait for a
person wait inside that kernel. The two processes already share an authenticated channel (the
kernel's, signed with its connection key), and a Jupyter comm on it carries the prompts:

- in the kernel, `open_channel` opens a comm (target ``mcp_notebook.approvals``) and sends every
  request as it starts to wait (``{"event": "ask", ...}``) and as it ends (``"closed"``, with the
  decision, whoever made it); an answer comes back as a comm message ``{"id": N, "answer": "approve"
  | "deny" | "always"}``. A client holding the server's token cannot answer: only the process that
  started the kernel holds its key.
- in ``mcp-notebook serve``, `TerminalApprovals` reads the kernel's IOPub, asks
  ``Approve? [y]es / [n]o / [a]lways`` for one call at a time, with the tool, the client and the
  arguments (hidden characters made visible), and sends the answer.

Only when stdin is a terminal, and never with ``--stdio`` (stdin carries the protocol then). Not
``/dev/tty`` either: a stdio server is started by a client application, whose own interface owns
that terminal if there is one; prompts there would interleave with it and take its keystrokes.
Without a terminal, `unattended` declines such calls at once, saying why, rather than after a wait
nobody can end.
"""

from __future__ import annotations

import json
import math
import queue
import threading
from collections.abc import Callable
from typing import Any, TextIO

from ..core._identity import claims
from ..core._text import t
from ..core._visible import visible
from ..server._approval import TERMINAL_CHANNEL

ANSWERS = {"y": "approve", "yes": "approve", "n": "deny", "no": "deny", "a": "always", "always": "always"}


# -- in `mcp-notebook serve` -------------------------------------------------------------------------------


class TerminalApprovals:
    """Asks at a terminal about the calls waiting in a kernel; one question at a time, oldest first.

    Call `handle` with each IOPub message of the kernel and `step` regularly (the serve loop does
    both); lines typed at the terminal are read on a thread of their own so a question can end
    (timeout, withdrawn) while nobody types.
    """

    def __init__(self, send: Callable[[str, dict[str, Any]], None], out: TextIO, lines: TextIO) -> None:
        self._send = send  # send(comm_id, data): a comm message to the kernel
        self._out = out
        self.comm_id: str | None = None
        self.waiting: dict[int, dict[str, Any]] = {}  # by request id, oldest first
        self.current: dict[str, Any] | None = None
        self._lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        threading.Thread(target=self._read, args=(lines,), daemon=True, name="approval-terminal").start()

    def _read(self, lines: TextIO) -> None:
        back = threading.Event()  # never set: a wait between tries
        while True:
            try:
                line = lines.readline()
            except OSError:  # read from the background (EIO): try again once brought back (`fg`)
                back.wait(1.0)
                continue
            if not line:
                self._lines.put(None)  # the terminal closed: nothing more will be answered here
                return
            self._lines.put(line)

    def handle(self, message: dict[str, Any]) -> None:
        """One IOPub message of the kernel: our comm's opening, a request waiting or closing."""
        content = message.get("content", {})
        kind = message.get("msg_type")
        if kind == "comm_open" and content.get("target_name") == TERMINAL_CHANNEL:
            self.comm_id = content["comm_id"]
        elif kind == "comm_msg" and content.get("comm_id") == self.comm_id and self.comm_id is not None:
            data = content.get("data", {})
            if data.get("event") == "ask":
                self.waiting[data["id"]] = data
            elif data.get("event") == "closed":
                self._closed(data["id"], str(data.get("decision")))
        self._next()

    def step(self, timeout: float) -> None:
        """Take one line typed at the terminal, if one comes within `timeout` seconds."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            return
        if line is None:
            self.current = None
            return
        if self.current is None:
            self._write(t("terminal.nothing_waits") + "\n")
            return
        answer = ANSWERS.get(line.strip().lower())
        if answer is None:
            self._write(t("terminal.again"))
            return
        request, self.current = self.current, None
        self.waiting.pop(request["id"], None)
        assert self.comm_id is not None
        self._send(self.comm_id, {"id": request["id"], "answer": answer})
        self._write(t(f"terminal.{answer}") + "\n")
        self._next()

    def _closed(self, request_id: int, decision: str) -> None:
        if self.waiting.pop(request_id, None) is None:
            return  # answered here: already said
        if self.current is not None and self.current["id"] == request_id:
            self.current = None
            self._write("\n" + t("terminal.closed", decision=decision) + "\n")

    def _next(self) -> None:
        if self.current is None and self.waiting:
            self.current = next(iter(self.waiting.values()))
            self._write(prompt(self.current))

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()


def prompt(request: dict[str, Any]) -> str:
    """The question about one waiting call, every value made visible as it is (no hidden characters)."""
    tool = request["tool"] + (f" ({request['title']})" if request.get("title") else "")
    client = request.get("client") or t("terminal.unknown_client")
    claim = claims(request.get("client"), request.get("claimed"))
    if claim:
        client += f" ({claim})"
    lines = ["", visible(t("terminal.asks", client=client, tool=tool))]
    if request.get("description"):
        lines.append(visible(t("terminal.description", text=request["description"])))
    hints = ", ".join(f"{key}={value}" for key, value in (request.get("annotations") or {}).items())
    if hints:
        lines.append(visible(t("terminal.claims", claims=hints)))
    arguments = json.dumps(request.get("arguments") or {}, ensure_ascii=False)
    lines.append(visible(t("terminal.arguments", arguments=arguments)))
    if request.get("task"):
        lines.append(t("terminal.task"))
    seconds = math.ceil(request.get("seconds_left") or 0)
    return "\n".join(lines) + "\n" + t("terminal.question", seconds=seconds)
