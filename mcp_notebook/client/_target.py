"""Which server a client call goes to, and how: the in-kernel server, a URL or a stdio command.

Every public function of the client (`call`, `read_resource`, `list_tools`, ...) and every client
magic (``--url``, ``--token``, ``--stdio``, ``--mode``, ``--timeout``) takes the same five options;
they are written, documented and checked once, here. A result keeps the target it came from, so
what it links to is read from that server again (`Target.read`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core._errors import OptionError
from ..core._options import build
from ..core._text import t

if TYPE_CHECKING:
    from ._results import ReadResult

DEFAULT_TIMEOUT = 60.0
MODES = ("auto", "legacy", "2026-07-28")


@dataclass(frozen=True)
class Target:
    """A server to call, reached the same way every time (`mcp_notebook.call` takes these as keywords).

    Neither `url` nor `stdio`: the in-kernel server, as the notebook itself (identity
    ``"notebook"``), or, given a `token`, as the identity that token proves (a client's, from
    ``srv.add_client``).

    Attributes
    ----------
    url:
        Reach any Streamable HTTP server (``http://`` or ``https://``) instead of the in-kernel one.
    token:
        The token to send (``Authorization: Bearer``). With `stdio`, the command gets it in its
        environment as ``MCP_NOTEBOOK_TOKEN`` (how ``mcp-notebook bridge`` reads it), never on its
        command line. Never shown.
    stdio:
        A command line that starts a stdio MCP server, instead of a URL.
    mode:
        ``"auto"`` (default), ``"legacy"`` (the 2025-11-25 handshake) or ``"2026-07-28"``.
    timeout:
        Seconds to wait for the answer (default 60).
    """

    url: str | None = None
    token: str | None = field(default=None, repr=False)
    stdio: str | None = None
    mode: str = "auto"
    timeout: float = DEFAULT_TIMEOUT

    def __post_init__(self) -> None:
        if self.url is not None and not (
            isinstance(self.url, str) and self.url.startswith(("http://", "https://"))
        ):
            raise OptionError(t("target.bad_url", value=self.url), "url")
        if self.stdio is not None and not (isinstance(self.stdio, str) and self.stdio.strip()):
            raise OptionError(t("target.bad_stdio", value=self.stdio), "stdio")
        if self.url is not None and self.stdio is not None:
            raise OptionError(t("target.url_and_stdio", url=self.url, stdio=self.stdio))
        if self.token is not None and not isinstance(self.token, str):
            raise OptionError(t("target.bad_token", got=type(self.token).__name__), "token")
        if self.mode not in MODES:
            raise OptionError(t("target.bad_mode", value=self.mode), "mode")
        timeout = self.timeout
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout < math.inf:
            raise OptionError(t("target.bad_timeout", value=timeout), "timeout")

    @classmethod
    def of(cls, options: Mapping[str, Any], where: str) -> Target:
        """The target named by a function's keywords (`where`: the function, for the message)."""
        return build(cls, options, where)

    @property
    def in_kernel(self) -> bool:
        """Whether this is the notebook's own server."""
        return self.url is None and self.stdio is None

    def describe(self) -> str:
        """The server, as a person knows it: the URL, the stdio command, or the in-kernel server."""
        if self.url is not None:
            return self.url
        if self.stdio is not None:
            return t("view.origin_stdio", command=self.stdio)
        return t("view.origin_kernel")

    def read(self, uri: str) -> ReadResult:
        """Read `uri` from this server (``resources/read``), with the same credential."""
        from ._calls import read_resource  # _calls makes results: imported here, when a link is read

        return read_resource(uri, **self.options())

    def options(self) -> dict[str, Any]:
        """The keywords that name this target to `mcp_notebook.call` and its siblings."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}
