"""Make a kernel's MCP server findable by the Jupyter server that runs the kernel.

Inside a Jupyter kernel, `serve` publishes a `KernelLink` (see `mcp_notebook.core._kernel_link`)
next to the kernel's connection file, with a fresh forwarder credential the server accepts from
the Jupyter server extension only; `stop` withdraws both. Outside a kernel (plain IPython, a
script) nothing is published.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from pathlib import Path

from ..core._identity import Identities
from ..core._kernel_link import KernelLink, kernel_id_of, remove_link, write_link
from ..core._secrets import new_token

log = logging.getLogger("mcp_notebook")


def connection_file() -> Path | None:
    """The connection file of the Jupyter kernel this process is, or None when it is none."""
    try:
        from ipykernel.kernelapp import IPKernelApp
    except ImportError:  # pragma: no cover - ipykernel is a dependency
        return None
    if not IPKernelApp.initialized():
        return None
    app = IPKernelApp.instance()
    name = getattr(app, "abs_connection_file", None) or getattr(app, "connection_file", None)
    if not name:
        return None
    return Path(name)


def publish(url: str, server_name: str, identities: Identities) -> tuple[Callable[[], None], Path | None]:
    """Publish the link for the server at `url` if this is a Jupyter kernel.

    Returns what withdraws it, and the folder it is in (the kernel's runtime folder, where the
    Jupyter server that runs the kernel describes itself), or None when nothing was published.
    """
    found = connection_file()
    kernel_id = kernel_id_of(found) if found is not None else None
    if found is None or kernel_id is None:
        return _nothing, None
    credential = new_token()
    identities.set_forwarder(credential)
    folder = found.parent
    try:
        write_link(folder, KernelLink(kernel_id, url, credential, server_name))
    except OSError as exc:
        # The server works as before; only the Jupyter server's path to it is missing.
        identities.set_forwarder(None)
        log.warning("mcp-notebook: could not publish the server to Jupyter (%s): %s", folder, exc)
        return _nothing, None

    def withdraw() -> None:
        identities.set_forwarder(None)
        with contextlib.suppress(OSError):
            remove_link(folder, kernel_id, credential)

    return withdraw, folder


def _nothing() -> None:
    return None
