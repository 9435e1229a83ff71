"""The kernel's side of approvals at the terminal of ``mcp-notebook serve`` (see `mcp_notebook.cli._terminal_approval`).

``mcp-notebook serve`` runs the notebook in a kernel of its own; the calls that wait for a person
wait inside that kernel. A Jupyter comm (target `TERMINAL_CHANNEL`) on the kernel's own signed channel carries
each waiting request to the serve process, which asks at its terminal, and brings the answer back.
Without a terminal, `unattended` makes such calls be declined at once, saying why.
"""

from __future__ import annotations

from typing import Any

from comm import create_comm

from ..api._serving import current_server
from ..server._approval import TERMINAL_CHANNEL


def open_channel(server: Any = None) -> Any:
    """Send the running server's approval prompts to the frontend that runs this code, take its answers.

    Called in the kernel by ``mcp-notebook serve`` when a terminal is attached. Returns the comm.
    """
    server = server if server is not None else current_server()
    policy = server.approval
    channel = create_comm(target_name=TERMINAL_CHANNEL, data={"timeout": policy.timeout})

    def closed(request: Any) -> None:
        channel.send({"event": "closed", "id": request.id, "decision": request.decision})

    def ask(request: Any) -> None:
        channel.send(
            {
                "event": "ask",
                "id": request.id,
                "tool": request.tool,
                "title": request.title,
                "description": request.description,
                "client": request.client,  # the identity its token proved
                "claimed": request.claimed,  # what the client says it is, shown as a claim
                "annotations": request.annotations,
                "arguments": request.arguments,
                "seconds_left": request.seconds_left,
                "task": request.task_id is not None,  # a task: the decision covers that task only
            }
        )
        request._on_resolve.append(closed)

    def answer(message: dict[str, Any]) -> None:
        # Runs on the kernel's shell thread: resolving a request is thread-safe.
        data = message["content"]["data"]
        request = next((r for r in list(policy.pending) if r.id == data.get("id")), None)
        decide = {"approve": "approve", "deny": "deny", "always": "always_allow"}.get(data.get("answer"))
        if request is not None and decide is not None:
            getattr(request, decide)()

    channel.on_msg(answer)
    policy.answered_in = "terminal"
    policy.listeners.append(ask)
    for request in list(policy.pending):
        ask(request)
    return channel


def unattended(server: Any = None) -> None:
    """No one can answer: calls that need approval are declined at once, saying so."""
    server = server if server is not None else current_server()
    server.approval.answered_in = None
