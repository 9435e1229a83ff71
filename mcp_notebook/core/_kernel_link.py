"""The link between a Jupyter kernel's MCP server and the Jupyter server that runs the kernel.

When ``%mcp_serve`` starts inside a kernel that a Jupyter server launched, the kernel writes one
small JSON file next to its connection file (the Jupyter runtime folder): the in-kernel server's
URL, its server name, and the *forwarder* credential that the Jupyter server extension
(`mcp_notebook.jupyter`) presents when it forwards a request for an authenticated Jupyter user.
The file is named after the kernel's id, so the extension finds it from a kernel it manages
itself, never from anything a browser says; it is created readable by its owner only (0600,
like the connection file beside it, which holds the kernel's own keys) and removed when the
server stops.

Why a file and not a message over the kernel's channels: the extension must reach the server
while the kernel is busy running a cell (the server answers on its own thread; the kernel's
shell channel does not until the cell ends), and the connection file already sets the pattern:
the runtime folder is where a Jupyter server and its kernels share secrets.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

LINK_PREFIX = "mcp-notebook-kernel-"
_KERNEL_FILE = re.compile(r"kernel-(.+)\.json")
_KERNEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


@dataclass(frozen=True)
class KernelLink:
    """What the extension needs to forward to one kernel's MCP server.

    Attributes
    ----------
    kernel_id:
        The Jupyter kernel id (from the kernel's connection file name).
    url:
        The in-kernel server's MCP endpoint, on loopback (``http://127.0.0.1:PORT/mcp``).
    credential:
        The forwarder credential the server accepts from the extension (`Identities.set_forwarder`).
    name:
        The server's name (``srv.name``): a kernel's address that stays the same across restarts.
    """

    kernel_id: str
    url: str
    credential: str
    name: str

    def __repr__(self) -> str:  # never the credential
        return f"KernelLink(kernel_id={self.kernel_id!r}, url={self.url!r}, name={self.name!r})"


def kernel_id_of(connection_file: str | os.PathLike[str]) -> str | None:
    """The kernel id in a connection file's name (``kernel-<id>.json``), or None for another name."""
    matched = _KERNEL_FILE.fullmatch(Path(connection_file).name)
    if matched is None or not _KERNEL_ID.fullmatch(matched.group(1)):
        return None
    return matched.group(1)


def link_path(folder: str | os.PathLike[str], kernel_id: str) -> Path:
    """Where the link of kernel `kernel_id` lives in the runtime folder `folder`."""
    if not _KERNEL_ID.fullmatch(kernel_id):
        raise ValueError(f"not a kernel id: {kernel_id!r}")
    return Path(folder) / f"{LINK_PREFIX}{kernel_id}.json"


def write_link(folder: str | os.PathLike[str], link: KernelLink) -> Path:
    """Write `link` for its kernel, readable and writable by its owner only, and return its path.

    Written to a temporary file created 0600 and renamed into place: a reader never sees half a
    file, and the credential is never in a file anyone else may read, not even for an instant.
    """
    path = link_path(folder, link.kernel_id)
    payload = {"kernel_id": link.kernel_id, "url": link.url, "credential": link.credential, "name": link.name}
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with open(fd, "w", encoding="utf-8") as out:
            if hasattr(os, "fchmod"):
                os.fchmod(out.fileno(), 0o600)  # a temporary file left over with wider permissions
            json.dump(payload, out)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    return path


def remove_link(folder: str | os.PathLike[str], kernel_id: str, credential: str) -> None:
    """Remove the link of `kernel_id` if it is still the one holding `credential` (a restarted kernel's is not)."""
    path = link_path(folder, kernel_id)
    found = read_link(folder, kernel_id)
    if found is not None and found.credential == credential:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def read_link(folder: str | os.PathLike[str], kernel_id: str) -> KernelLink | None:
    """The link of kernel `kernel_id`, or None when there is none or it cannot be trusted.

    Trusted means: a regular file of this process's user, not readable or writable by anyone else,
    and a URL on loopback. In a folder others can write to, anyone could plant a file that sends a
    user's requests (and the user's name) to a server of their choosing.
    """
    try:
        path = link_path(folder, kernel_id)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except (OSError, ValueError):
        return None
    with open(fd, encoding="utf-8") as source:
        info = os.fstat(source.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077:
            return None
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            return None
        try:
            data = json.load(source)
        except ValueError:
            return None
    if not isinstance(data, dict):
        return None
    fields = [data.get(key) for key in ("kernel_id", "url", "credential", "name")]
    strings = [value for value in fields if isinstance(value, str) and value]
    if len(strings) != len(fields):
        return None
    link = KernelLink(*strings)
    if link.kernel_id != kernel_id or not _loopback_url(link.url):
        return None
    return link


def _loopback_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost", "::1")
