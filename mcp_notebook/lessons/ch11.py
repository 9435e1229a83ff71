"""Exercises of chapter 11 (인가): where a client looks for the authorization server, what the
resource server answers to which token, why a token on a command line leaks, and a tool that says
what the resource server will do with a token, judged through the real app.

>>> from mcp_notebook.lessons.ch11 import q1, q2, q3, q4

Their content is data: ``content/ch11/exercises.toml``; the kind of q4 is defined here, and so is
`lesson_servers`, the chapter's authorization server and the exported app it protects.
"""

from __future__ import annotations

import functools
import json
import random
import threading
import time
from typing import Any

from ..core._jsonschema import load_jsonschema
from ..core._text import clip, t
from ._behaviour import Verdict
from ._content import load_exercises
from ._judge import check_seed, current
from ._outcomes import Outcome
from ._toolcheck import ToolExercise

__all__ = ["lesson_servers", "q1", "q2", "q3", "q4"]

REDIRECT_URI = "http://127.0.0.1:8765/callback"
"""Where the chapter's client says it takes the user back (nothing listens: the notebook reads the
redirect itself, as a desktop app's small local listener would)."""

CLIENT_ID = "notebook-app"

_servers: tuple[Any, Any] | None = None
_starting = threading.Lock()


def lesson_servers() -> tuple[Any, Any]:
    """The chapter's authorization server and the exported app it protects, started once per process.

    The app serves its own catalogue (``app.catalogue``), empty at first: the notebook defines its
    tools there. Both stop with the process.
    """
    global _servers
    with _starting:
        if _servers is None:
            # The app's first call would import the argument checker's library (seconds on a busy
            # machine) while a client waits for its answer: imported here, before anyone waits.
            load_jsonschema()

            from ..core._catalogue import Catalogue
            from .servers.authorization import AuthorizationServer
            from .servers.protected import ProtectedApp

            authority = AuthorizationServer(
                scopes=("mcp:tools", "mcp:admin"), clients={CLIENT_ID: REDIRECT_URI}
            )
            _servers = (authority, ProtectedApp(Catalogue(), authority))
        return _servers


# -- q4: what the resource server does with a token, judged through the real app ------------------------

FAR_FUTURE, FAR_PAST = 4_102_444_800, 946_684_800  # 2100-01-01 and 2000-01-01, UTC
REQUIRED_SCOPE = "mcp:tools"
_REQUEST = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/list",
    "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "lesson-checker", "version": "1.0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    },
}


class TokenVerdictExercise(ToolExercise):
    """The learner's tool says what the chapter's app answers to a token with the given claims.

    Each check mints tokens with claims of the question's examples and drawn ones (fresh for every
    check, from a seed the feedback shows; every kind of fault, alone and together), sends each to the
    real app and calls the learner's tool with the same claims through the notebook's server: its
    ``status`` and ``error`` must be the app's. The app is the referee, not a model answer.
    """

    kind = "token_verdict"

    def _judged_problems(self, name: str, definition: dict[str, Any]) -> list[str]:
        assert self.judge is not None
        self.verdict = None
        authority, app = lesson_servers()
        places = {"$ISSUER": authority.issuer, "$RESOURCE": app.url}
        seed = check_seed()
        rng = random.Random(seed)
        cases = [{k: places.get(v, v) for k, v in example.items()} for example in self.judge.examples]
        cases += [draw_claims(rng, authority.issuer, app.url) for _ in range(current().draws)]
        for made, claims in enumerate(cases, 1):
            expected = app_verdict(authority, app, claims)
            mine = Outcome.of(functools.partial(self.call_tool, name, claims))
            problem = _differs(mine, expected)
            if problem is not None:
                shown = json.dumps(claims, ensure_ascii=False)
                return [
                    t("lessons.judge.differs", call=f"{name} {clip(shown, 240)}", problem=problem),
                    t("lessons.judge.seed", seed=seed, name=self.name, count=made),
                ]
        self.verdict = Verdict([], len(cases), seed)
        return []

    def praise(self) -> list[str]:
        if self.verdict is None:  # pragma: no cover - praise follows a passed check
            return super().praise()
        checked = t("lessons.ch11.checked", calls=self.verdict.calls, seed=self.verdict.seed)
        return [checked, f"{t('lessons.solution.why')}: {self.text('explanation')}"]


def _differs(mine: Outcome, expected: dict[str, Any]) -> str | None:
    app = json.dumps(expected)
    if mine.kind != "ok":
        return t("lessons.ch11.not_ok", mine=mine.shown(), app=app)
    data = mine.data if isinstance(mine.data, dict) else {}
    got = {key: data.get(key) for key in ("status", "error")}
    if got != expected:
        return t("lessons.ch11.differs", mine=json.dumps(got, ensure_ascii=False), app=app)
    return None


def draw_claims(rng: random.Random, issuer: str, resource: str) -> dict[str, Any]:
    """Claims of one token: right, or wrong in one or two ways (the issuer, the audience, the expiry,
    the scope), each way as likely; wrong values are the near misses a real deployment meets."""
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": issuer,
        "aud": resource,
        "exp": rng.choice([now + rng.randint(60, 3600), now + rng.randint(3600, 86_400), FAR_FUTURE]),
        "scope": rng.choice([REQUIRED_SCOPE, f"{REQUIRED_SCOPE} mcp:admin", f"profile {REQUIRED_SCOPE}"]),
    }
    wrong: dict[str, list[Any]] = {
        "iss": [issuer.rstrip("/"), "http://127.0.0.1:1/", issuer.replace("127.0.0.1", "localhost")],
        "aud": [resource + "/", resource.replace("/mcp", "/other/mcp"), "http://127.0.0.1:1/mcp", issuer],
        "exp": [now - rng.randint(60, 3600), now - rng.randint(3600, 86_400), FAR_PAST],
        "scope": ["", "mcp:admin", "mcp:tool", "mcp:toolsx", "MCP:TOOLS", "profile", "mcp:tools:read"],
    }
    faults = rng.choice([0, 1, 1, 1, 1, 2])
    for field in rng.sample(sorted(wrong), faults):
        claims[field] = rng.choice(wrong[field])
    return claims


def app_verdict(authority: Any, app: Any, claims: dict[str, Any]) -> dict[str, Any]:
    """What the app answers to a token with `claims`: its status, and the ``error`` of its
    ``WWW-Authenticate`` challenge ("" when it lets the request through)."""
    import httpx2

    from ..client._http import tls_context

    token = authority.mint(
        audience=claims["aud"],
        scope=claims["scope"],
        issuer=claims["iss"],
        expires_at=int(claims["exp"]),
    )
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/list",
    }
    # Hundreds of these in one check: each would build a TLS context of its own (most of its time).
    response = httpx2.post(app.url, json=_REQUEST, headers=headers, timeout=10, verify=tls_context())
    challenge = response.headers.get("www-authenticate", "")
    error = ""
    for part in challenge.removeprefix("Bearer ").split(", "):
        key, _, value = part.partition("=")
        if key == "error":
            error = value.strip('"')
    return {"status": response.status_code, "error": error}


q1, q2, q3, q4 = load_exercises("11", ["q1", "q2", "q3", "q4"], kinds={"token_verdict": TokenVerdictExercise})
