"""The class's progress, for its instructor: a JupyterHub service that collects exercise checks.

Run by the hub (see ``classroom/jupyterhub_config.py``)::

    c.JupyterHub.services = [{
        "name": "mcp-progress",
        "url": "http://127.0.0.1:10101",
        "command": [sys.executable, "-m", "mcp_notebook.jupyter.progress_service"],
        "oauth_no_confirm": True,
        "environment": {"MCP_NOTEBOOK_PROGRESS_GROUP": "instructors"},
    }]
    c.JupyterHub.load_roles = [{"name": "mcp-progress", "scopes": ["read:users"], "services": ["mcp-progress"]}]
    c.Spawner.environment = {"MCP_NOTEBOOK_PROGRESS_URL": "http://127.0.0.1:10101/services/mcp-progress/"}

- ``POST {prefix}api/records``: a learner's kernel sends its checks (`mcp_notebook.lessons._progress`)
  with the hub token of the learner's server. The hub says whose token it is; the records are
  that user's, whatever they say. Records carry chapter, exercise, outcome, attempts and time,
  never an answer, and are checked for shape and size.
- ``GET {prefix}`` (a page) and ``GET {prefix}api/table`` (JSON): the class table, students ×
  exercises. Only hub admins and members of the group ``MCP_NOTEBOOK_PROGRESS_GROUP``
  (default ``instructors``) may read it; anyone else gets 403. In a browser, the hub's login
  (OAuth) identifies the reader; a script uses an API token.

The records live in SQLite (``MCP_NOTEBOOK_PROGRESS_DB``, default ``progress.sqlite3`` in the
service's working folder).
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import os
import re
import signal
import sqlite3
import threading
from typing import Any
from urllib.parse import quote

from jupyterhub.services.auth import HubOAuth, HubOAuthCallbackHandler
from jupyterhub.utils import url_path_join
from tornado import web
from tornado.httpclient import AsyncHTTPClient

from ..core._text import t

GROUP_VARIABLE = "MCP_NOTEBOOK_PROGRESS_GROUP"
DB_VARIABLE = "MCP_NOTEBOOK_PROGRESS_DB"
MAX_RECORDS = 500
MAX_BODY = 1024 * 1024  # 500 records of short fields take well under a tenth of it
log = logging.getLogger("mcp_notebook.progress")
_SHORT = re.compile(r"[A-Za-z0-9_.-]{1,32}")
_TIME = re.compile(r"[0-9T:.+\-Z]{10,40}")


class Records:
    """The class's checks in SQLite; a record sent twice (resent after a lost answer) is kept once."""

    def __init__(self, path: str) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False)
        with self._db:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS records (user TEXT, chapter TEXT, exercise TEXT, outcome TEXT,"
                " attempts INTEGER, time TEXT, UNIQUE (user, chapter, exercise, outcome, attempts, time))"
            )

    def add(self, user: str, records: list[dict[str, Any]]) -> int:
        rows = [(user, r["chapter"], r["exercise"], r["outcome"], r["attempts"], r["time"]) for r in records]
        with self._lock, self._db:
            before = self._db.total_changes
            self._db.executemany("INSERT OR IGNORE INTO records VALUES (?, ?, ?, ?, ?, ?)", rows)
            return self._db.total_changes - before

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def table(self) -> dict[str, Any]:
        """``{"exercises": ["01/q1", ...], "students": {user: {"01/q1": {"outcome", "attempts"}}}}``."""
        with self._lock:
            rows = self._db.execute(
                "SELECT user, chapter, exercise, outcome, attempts FROM records ORDER BY time"
            ).fetchall()
        students: dict[str, dict[str, dict[str, Any]]] = {}
        exercises: set[tuple[str, str]] = set()
        for user, chapter, exercise, outcome, attempts in rows:
            exercises.add((chapter, exercise))
            cell = students.setdefault(user, {}).setdefault(
                f"{chapter}/{exercise}", {"outcome": outcome, "attempts": 0}
            )
            cell["attempts"] = max(cell["attempts"], attempts)
            if outcome == "correct":
                cell["outcome"] = "correct"  # once right, right: later slips do not undo it
        ordered = [f"{c}/{e}" for c, e in sorted(exercises, key=lambda ce: (ce[0], _number(ce[1])))]
        return {"exercises": ordered, "students": dict(sorted(students.items()))}


def _number(exercise: str) -> tuple[int, str]:
    digits = re.sub(r"\D", "", exercise)
    return (int(digits) if digits else 0, exercise)


def check_records(body: Any) -> list[dict[str, Any]]:
    """The records of a POST body, or ValueError saying what is wrong."""
    records = body.get("records") if isinstance(body, dict) else None
    if not isinstance(records, list) or not 0 < len(records) <= MAX_RECORDS:
        raise ValueError(t("progress.record.list"))
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise ValueError(t("progress.record.object", index=index))
        for key in ("chapter", "exercise"):
            if not isinstance(record.get(key), str) or not _SHORT.fullmatch(record[key]):
                raise ValueError(t("progress.record.short", index=index, key=key))
        if record.get("outcome") not in ("correct", "incorrect"):
            raise ValueError(t("progress.record.outcome", index=index))
        attempts = record.get("attempts")
        if not isinstance(attempts, int) or isinstance(attempts, bool) or not 0 <= attempts <= 100_000:
            raise ValueError(t("progress.record.attempts", index=index))
        if not isinstance(record.get("time"), str) or not _TIME.fullmatch(record["time"]):
            raise ValueError(t("progress.record.time", index=index))
    return [
        {key: record[key] for key in ("chapter", "exercise", "outcome", "attempts", "time")}
        for record in records
    ]


class _Handler(web.RequestHandler):
    hub_auth: HubOAuth
    records: Records

    def initialize(self, hub_auth: HubOAuth, records: Records) -> None:
        self.hub_auth = hub_auth
        self.records = records

    async def hub_user(self) -> dict[str, Any] | None:
        """The hub user behind the request's token or login cookie, or None."""
        user: dict[str, Any] | None = await self.hub_auth.get_user(self, sync=False)
        return user

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None))[1]
        message = exc.log_message if isinstance(exc, web.HTTPError) and exc.log_message else self._reason
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps({"message": message}, ensure_ascii=False))


@web.stream_request_body
class RecordsHandler(_Handler):
    """``POST {prefix}api/records``: a learner's checks, as the hub identifies the learner.

    The body is read only once its sender is known and its size is announced and small: the
    service is reachable through the hub's proxy by anyone, and Tornado would otherwise hold up to
    100 MB of every request in memory before asking for a token.
    """

    _user: dict[str, Any]
    _body: bytearray

    def check_xsrf_cookie(self) -> None:
        # Records come with an API token, never with the service's login cookie (see `prepare`), so
        # a page elsewhere cannot make a browser send them.
        return None

    async def prepare(self) -> None:
        if self.request.method != "POST":
            return
        length = self.request.headers.get("Content-Length", "")
        if not length.isdigit() or int(length) > MAX_BODY:
            raise web.HTTPError(413, t("progress.too_large", limit=MAX_BODY, records=MAX_RECORDS))
        self.request.connection.set_max_body_size(MAX_BODY)  # type: ignore[union-attr]
        token = self.hub_auth.get_token(self, in_cookie=False)
        if not token:
            raise web.HTTPError(401, t("progress.token_required"))
        user = await self.hub_auth.user_for_token(token, sync=False)
        if not user or user.get("kind", "user") != "user":
            raise web.HTTPError(403, t("progress.not_a_user"))
        self._user, self._body = user, bytearray()

    def data_received(self, chunk: bytes) -> None:
        self._body.extend(chunk)

    async def post(self) -> None:
        try:
            records = check_records(json.loads(bytes(self._body) or b"null"))
        except ValueError as problem:
            raise web.HTTPError(400, t("progress.bad_records", limit=MAX_RECORDS, problem=problem)) from None
        added = self.records.add(str(self._user["name"]), records)
        self.finish({"added": added})


class _InstructorsOnly(_Handler):
    async def instructor(self, *, browser: bool) -> str:
        user = await self.hub_user()
        if user is None:
            if browser:
                self.redirect(self.hub_auth.login_url + "?next=" + self.request.uri)  # the hub's login
                raise web.Finish()
            raise web.HTTPError(401, t("progress.login_required"))
        group = os.environ.get(GROUP_VARIABLE, "instructors")
        model = await self._model(str(user["name"]))
        if not (model.get("admin") or group in (model.get("groups") or [])):
            raise web.HTTPError(403, t("progress.forbidden", group=group))
        return str(user["name"])

    async def _model(self, name: str) -> dict[str, Any]:
        """The user's admin flag and groups, asked of the hub with the service's own token."""
        answer = await AsyncHTTPClient().fetch(
            url_path_join(self.hub_auth.api_url, "users", quote(name, safe="")),
            headers={"Authorization": f"token {self.hub_auth.api_token}"},
            raise_error=False,
        )
        if answer.code != 200:
            return {}
        model: dict[str, Any] = json.loads(answer.body)
        return model


class TableHandler(_InstructorsOnly):
    """``GET {prefix}api/table``: the class table as JSON."""

    async def get(self) -> None:
        await self.instructor(browser=False)
        self.finish(self.records.table())


class PageHandler(_InstructorsOnly):
    """``GET {prefix}``: the class table as a page."""

    async def get(self) -> None:
        await self.instructor(browser=True)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(render(self.records.table()))


def render(table: dict[str, Any]) -> str:
    """The class table as a small HTML page; every name and value is escaped."""
    exercises: list[str] = table["exercises"]
    head = "".join(f"<th>{html.escape(name)}</th>" for name in exercises)
    rows = []
    for student, cells in table["students"].items():
        tds = []
        for name in exercises:
            cell = cells.get(name)
            if cell is None:
                tds.append("<td></td>")
            else:
                mark = "✔" if cell["outcome"] == "correct" else "✘"
                colour = "#1b6e3a" if cell["outcome"] == "correct" else "#b3261e"
                tds.append(f"<td style='color:{colour}'>{mark} {int(cell['attempts'])}</td>")
        rows.append(f"<tr><th>{html.escape(student)}</th>{''.join(tds)}</tr>")
    body = (
        f"<table border='1' cellpadding='4'><tr><th>{html.escape(t('progress.student'))}</th>{head}</tr>"
        f"{''.join(rows)}</table><p>{html.escape(t('progress.legend'))}</p>"
        if rows
        else f"<p>{html.escape(t('progress.empty'))}</p>"
    )
    title = html.escape(t("progress.title"))
    return f"<!doctype html><meta charset='utf-8'><title>{title}</title><h1>{title}</h1>{body}"


def make_app(hub_auth: HubOAuth, records: Records) -> web.Application:
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX") or "/"
    options = {"hub_auth": hub_auth, "records": records}
    return web.Application(
        [
            (prefix, PageHandler, options),
            (url_path_join(prefix, "api/table"), TableHandler, options),
            (url_path_join(prefix, "api/records"), RecordsHandler, options),
            (url_path_join(prefix, "oauth_callback"), HubOAuthCallbackHandler),
        ],
        cookie_secret=os.urandom(32),
        hub_auth=hub_auth,  # what HubOAuthCallbackHandler reads
        xsrf_cookies=False,
    )


def main() -> None:
    """Run the service as the hub starts it (its settings come from the hub's environment)."""
    from urllib.parse import urlsplit

    # Its own lines go to stderr, which the hub writes into its log. Only its own: tornado's access
    # log would write each request's URL there, an OAuth callback's code among them.
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("[%(levelname).1s %(asctime)s mcp-progress] %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    hub_auth = HubOAuth(cache_max_age=60)
    path = os.environ.get(DB_VARIABLE) or "progress.sqlite3"
    records = Records(path)
    address = urlsplit(os.environ.get("JUPYTERHUB_SERVICE_URL") or "http://127.0.0.1:10101")
    app = make_app(hub_auth, records)
    try:
        asyncio.run(_serve(app, address.hostname or "127.0.0.1", address.port or 80))
    finally:
        records.close()
    log.info(t("progress.stopped", path=os.path.abspath(path)))


async def _serve(app: web.Application, host: str, port: int) -> None:
    """Serve until the hub stops the service.

    The hub stops a service with SIGINT, then SIGTERM after 10 s. Both end the service at once,
    without a traceback in the hub's log, also where the hub was started with SIGINT ignored (a
    background job of a shell without job control): the handlers are set here, not inherited.
    """
    server = app.listen(port, host)
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stopped.set)
    url = f"http://{host}:{port}{os.environ.get('JUPYTERHUB_SERVICE_PREFIX') or '/'}"
    log.info(t("progress.serving", url=url))  # in the hub's log: up, and where
    await stopped.wait()
    server.stop()


if __name__ == "__main__":
    main()
