"""Exercises of chapter 07 (실제 AI 클라이언트 연결): reading a failed connection, a VS Code
configuration the checker connects with for real, which stretch of each connection is HTTP and
which is stdio, what works from a Binder kernel, a configuration that survives a restart, and a
kernel on the class's JupyterHub.

>>> from mcp_notebook.lessons.ch07 import q1, q2, q3, q4, q5, q6

Their content is data: ``content/ch07/exercises.toml``; the kind of q2 is defined here.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..core._text import clip, t
from ._content import load_exercises
from ._exercise import Exercise, NotAttempted, is_blank

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6"]

# -- q2: a configuration the checker connects with ---------------------------------------------------

CHECK_TIMEOUT = 10.0
_LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1"}


def _all_blank(value: Any) -> bool:
    """True when a template was left as it is: only ``...`` (or empty values) in its leaves.

    An empty dict is not blank: someone emptied it on purpose, and is told what belongs there.
    """
    if isinstance(value, dict):
        return bool(value) and all(_all_blank(v) for v in value.values())
    return is_blank(value)


class ClientConfigExercise(Exercise):
    """The learner writes a VS Code ``.vscode/mcp.json`` as a dict; the checker uses it for real.

    Shape problems a client would trip over (the top-level key, ``type``, a URL that is not a
    local HTTP address, a token in the query) are named without connecting. Otherwise the checker
    does what VS Code does: it connects to the URL with exactly the headers written and lists
    the tools, and a failure is explained by the HTTP status a plain request gets (the
    connection check of ``srv.check()``), with advice about the learner's own headers.
    """

    kind = "client_config"

    def __init__(self, chapter: str, name: str, *, timeout: float = CHECK_TIMEOUT, **texts: Any) -> None:
        super().__init__(chapter, name, **texts)
        self.timeout = timeout
        self._tools = 0

    def template(self) -> str:
        return (
            f"{self.variable} = {{\n"
            '    "servers": {\n'
            '        "notebook": {\n'
            '            "type": ...,\n'
            '            "url": ...,\n'
            '            "headers": ...,\n'
            "        }\n"
            "    }\n"
            "}"
        )

    def evaluate(self, answer: Any) -> list[str]:
        config = answer
        if isinstance(config, str):
            try:
                config = json.loads(config)
            except ValueError as exc:
                return [t("lessons.ch07.q2.bad_json", error=exc)]
        if not isinstance(config, dict):
            return [t("lessons.ch07.q2.not_a_dict", kind=type(config).__name__)]
        if _all_blank(config):
            raise NotAttempted
        servers = config.get("servers")
        if servers is None:
            keys = ", ".join(repr(k) for k in config)
            if "mcpServers" in config:
                return [t("lessons.ch07.q2.mcp_servers")]
            if {"type", "url", "headers", "command"} & set(config):
                return [t("lessons.ch07.q2.not_wrapped", keys=keys)]
            return [t("lessons.ch07.q2.no_servers", keys=keys)]
        if not isinstance(servers, dict) or len(servers) != 1:
            return [t("lessons.ch07.q2.servers_shape")]
        (name, entry), *_ = servers.items()
        if not isinstance(entry, dict):
            return [t("lessons.ch07.q2.entry_not_dict", name=name, kind=type(entry).__name__)]
        if _all_blank(entry):
            raise NotAttempted
        problems = self._shape_problems(entry)
        if problems:
            return problems
        headers = {} if is_blank(entry.get("headers")) else dict(entry["headers"])
        return self._connect_problems(entry["url"], headers)

    @staticmethod
    def _shape_problems(entry: dict[str, Any]) -> list[str]:
        problems = []
        if "command" in entry:
            problems.append(t("lessons.ch07.q2.command"))
        kind = entry.get("type")
        if is_blank(kind):
            problems.append(t("lessons.ch07.q2.no_type"))
        elif kind == "sse":
            problems.append(t("lessons.ch07.q2.sse"))
        elif kind == "stdio":
            problems.append(t("lessons.ch07.q2.stdio"))
        elif kind != "http":
            problems.append(t("lessons.ch07.q2.bad_type", given=kind))
        url = entry.get("url")
        if is_blank(url) or not isinstance(url, str):
            problems.append(t("lessons.ch07.q2.no_url"))
        else:
            parts = urlsplit(url.strip())
            if parts.scheme == "https":
                problems.append(t("lessons.ch07.q2.https"))
            elif parts.scheme != "http":
                problems.append(t("lessons.ch07.q2.not_http", url=url))
            elif (parts.hostname or "") not in _LOOPBACK_NAMES:
                problems.append(t("lessons.ch07.q2.not_local", host=parts.hostname or ""))
            elif "token" in parse_qs(parts.query):
                problems.append(t("lessons.ch07.q2.token_in_url"))
        headers = entry.get("headers")
        if not is_blank(headers) and not (
            isinstance(headers, dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())
        ):
            problems.append(t("lessons.ch07.q2.headers_shape", given=clip(repr(headers), 120)))
        return problems

    def _connect_problems(self, url: str, headers: dict[str, str]) -> list[str]:
        outcome = connect_with(url.strip(), headers, timeout=self.timeout)
        if outcome.ok:
            self._tools = outcome.tools or 0
            return []
        problems = [outcome.message]
        if outcome.kind == "token":
            authorization = next((v for k, v in headers.items() if k.lower() == "authorization"), None)
            if authorization is None:
                problems.append(t("lessons.ch07.q2.no_auth_header"))
            elif not authorization.lower().startswith("bearer "):
                problems.append(t("lessons.ch07.q2.no_bearer"))
            else:
                problems.append(t("lessons.ch07.q2.wrong_token"))
        elif outcome.kind == "refused":
            port = urlsplit(url.strip()).port
            running = _running_port()
            if running is not None and port != running:
                problems.append(t("lessons.ch07.q2.port", port=port))
        return problems

    def praise(self) -> list[str]:
        return [t("lessons.ch07.q2.connected", tools=self._tools), *super().praise()]


def _running_port() -> int | None:
    import sys

    runtime = sys.modules.get("mcp_notebook.api._serving")
    server = runtime.current_server() if runtime is not None else None
    return server.port if server is not None else None


def connect_with(url: str, headers: dict[str, str], *, timeout: float = CHECK_TIMEOUT) -> Any:
    """Connect to `url` sending exactly `headers`, as a configured client would; a `CheckResult`.

    Like ``srv.check()``, but with the learner's headers instead of a token (a client sends what its
    configuration says, right or wrong).
    """
    from ..client._configs import check_connection

    return check_connection(url, None, headers=headers, timeout=timeout)


q1, q2, q3, q4, q5, q6 = load_exercises("07", __all__, kinds={"client_config": ClientConfigExercise})
