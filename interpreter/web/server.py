"""``tapster serve``: a browser table for hot-seat and networked play (Starlette + uvicorn).

This module is the browser table's HTTP side: the routes and pages (:func:`build_app`), the
request guard in front of them (:class:`RequestGuard`: body size, ``Origin``), the connection
guard uvicorn lacks (:func:`guarded_protocol`) and :func:`serve`.  The live tables are in
:mod:`interpreter.web.tables`, the limits, request checks and agent pool in
:mod:`interpreter.web.guards`; the names other code imports from here (``TableServer``,
``Limits``, ``CREATE_SCHEMA``, ``restore_state``, ...) are re-exported.

Players create a table (ruleset, variant, players, the agent of every seat that is not a person)
on ``/`` and get one link per human seat, ``/t/<table>/<token>``, and a link to delete the table,
``/d/<table>/<token>``: each token is unguessable (:func:`secrets.token_urlsafe`, 256 bits) and
only its SHA-256 is stored.  A seat's page shows that seat's view
(:func:`interpreter.views.webview.seat_html`, built from ``State.observation(p)`` and
``State.visible_log(p)`` only) with the legal actions as buttons; the page learns of new moves
from server-sent events and fetches its view again.

Routes (``<t>`` a table id, ``<k>`` a seat's token):

- ``GET /`` the form; ``POST /tables`` creates a table and shows the links;
  ``POST /api/tables`` the same with JSON in (:data:`CREATE_SCHEMA`: ``ruleset``, ``variant``,
  ``players``, ``agents`` by seat with ``"human"`` for a person, ``params``, and ``seed`` only
  for a practice table whose creator chooses its chance) and out (``table``, ``seats``: seat ->
  link path, for human seats; ``delete``: the creator's link to delete the table).
- ``GET /t/<t>/<k>`` the seat's page; ``GET /t/<t>/<k>/view`` its view as JSON
  (``version``, ``html``); ``GET /t/<t>/<k>/events`` server-sent events, one ``data: VERSION``
  message when the table changes (the stream ends after ``stream_seconds`` and the page
  reconnects; 429 beyond the client's or the server's streams); ``POST /t/<t>/<k>/act`` with JSON ``{"action": TEXT,
  "version": N}`` (:data:`ACT_SCHEMA`) takes an action: 200 ``{"version": N}``; 409 with
  ``error`` when the action is not legal now, it is not the seat's turn, or ``version`` is
  stale (nothing changes).  ``GET /t/<t>/<k>/log`` the replay log (``tapster replay``), with
  the seed, once the game is over (403 before).
- ``GET /d/<t>/<k>`` asks to confirm; ``POST /d/<t>/<k>`` deletes the table.
- Take-back, the spectator's page (``/w/<t>/<s>``, the ``spectate`` link of the creation
  answer) and the replay viewer: :mod:`interpreter.web.playtest`.
- Any request with an unknown table or a token that is not a seat's gets the same 403 body
  (nothing tells a wrong token from a missing table).

Security (docs/security.md is the full account): a table's chance comes from a
secure seed (:func:`interpreter.engine.rng.secure_seed`, 256 bits, BLAKE2b counter mode) that never
leaves the server while the game runs; every request body is capped (:class:`Limits`) before it
is read, must be JSON (or the form) and is checked against a JSON Schema before use; a POST from
another site's page is refused (``Origin``); agents think in a bounded pool of worker threads,
apart from request handling, every move ending by ``max_agent_seconds`` (the search's deadline)
and none asking for more than ``max_agent_iterations``; table creation is limited per client and
per network, refusals are cheap and counted; event streams and waiting connections have budgets
of their own (:func:`guarded_protocol`); finished and idle tables expire.

Tables are kept in a :class:`~interpreter.web.store.TableStore` (SQLite by default) and restored
when the server starts (:mod:`interpreter.web.tables`).

Errors: no request gets a traceback.  An unknown table or token gets :data:`FORBIDDEN` (403,
plain text); any other refusal is JSON ``{"error": MESSAGE}`` (at most 300 characters, no server
path) or the form again with the message: 400 a request the checks refuse, 403 a foreign
``Origin`` or a log asked for before the end, 409 an action not legal now, 413 a body over
``max_body``, 415 a body of the wrong media type, 429 a quota reached (tables, creations, refusals, event
streams), 500 an agent failed, 503
the database refused a write (nothing changed).  :func:`serve` raises
:class:`~interpreter.errors.TapsterError` before serving when it cannot (see there).
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import time
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..compile.compiler import load_ruleset
from ..errors import IllegalActionError, TapsterError
from .guards import (
    ACT_CHECK,
    ACT_SCHEMA,
    CREATE_CHECK,
    CREATE_SCHEMA,
    MAX_MESSAGE,
    MAX_PARAMS_TEXT,
    MAX_SEED,
    FairPool,
    Limits,
    StreamBudget,
    check_unicode,
    client_address,
    fit_message,
    parse_json,
    parse_params_text,
    schema_error,
    token_hash,
)
from .store import SQLiteStore
from .tables import CREATOR_SEED_NOTE, Table, TableServer, TooMany, restore_state

if TYPE_CHECKING:  # pragma: no cover - the playtest routes import this module's helpers: imported where the app is made
    from .playtest import routes as _playtest_routes  # noqa: F401

try:
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles
except ImportError:  # pragma: no cover - reported by require_web()
    Starlette = None

__all__ = ["TableServer", "Limits", "build_app", "serve", "require_web", "FORBIDDEN", "CREATE_SCHEMA", "ACT_SCHEMA",
           "CREATOR_SEED_NOTE", "RequestGuard", "guarded_protocol",
           # re-exported from .guards and .tables, where they were moved from here:
           "restore_state", "client_address", "parse_json", "Table", "FairPool", "MAX_PARAMS_TEXT", "MAX_MESSAGE", "MAX_SEED"]

log = logging.getLogger("tapster.serve")

#: The body of every refused request (wrong, missing or foreign token; unknown table).
FORBIDDEN = "403 Forbidden: this link is not a seat at a table here."


def require_web() -> None:
    """Raise TapsterError when the optional web packages are missing."""
    if Starlette is None:
        raise TapsterError("`tapster serve` needs Starlette and uvicorn: pip install 'tapster[web]'")



# -- the web application --------------------------------------------------------------------------

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>{title}</title><link rel="stylesheet" href="/static/table.css"></head>
<body>{body}</body></html>"""

# ``same-origin``: a seat's link (its token) is never sent to another site, and the browser still
# sends this server's own Origin with the page's POSTs (with ``no-referrer`` it sends ``null``).
_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "same-origin", "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
            "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'"}


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    from html import escape

    return HTMLResponse(_PAGE.format(title=escape(title), body=body), status_code=status, headers=_HEADERS)


def _forbidden() -> Response:
    return PlainTextResponse(FORBIDDEN, status_code=403, headers={"Cache-Control": "no-store"})


def _error(message: str, status: int = 400, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": fit_message(message), **extra}, status_code=status, headers={"Cache-Control": "no-store"})


class _TooLarge(Exception):
    """A request body longer than the server's limit."""


class RequestGuard:
    """ASGI middleware in front of every route: a request body longer than ``max_body`` bytes is
    answered 413 before it is read whole (its ``Content-Length``, else as it arrives), and a POST
    from another site's page (an ``Origin`` other than the server's own or ``origins``, or
    ``Sec-Fetch-Site: cross-site``) is answered 403."""

    def __init__(self, app, max_body: int, origins: tuple[str, ...] = ()):
        self.app = app
        self.max_body = max_body
        self.origins = {o.rstrip("/").lower() for o in origins}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return await self._refuse(send, 413, f"the request body is limited to {self.max_body} bytes")
        if scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            origin = headers.get("origin")
            own = f"{scope.get('scheme', 'http')}://{headers.get('host', '')}".lower()
            if (origin is not None and origin.lower() not in (own, *self.origins)) or headers.get("sec-fetch-site") == "cross-site":
                return await self._refuse(send, 403, "a request from another site's page is refused (Origin)")
        seen = 0
        started = False

        async def limited_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise _TooLarge
            return message

        async def tracking_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._refuse(send, 413, f"the request body is limited to {self.max_body} bytes")

    @staticmethod
    async def _refuse(send, status: int, message: str) -> None:
        body = json.dumps({"error": message}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"cache-control", b"no-store"), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


class _Stream(StreamingResponse if Starlette is not None else object):
    """A streaming response that calls ``release()`` once it ends, however it ends (finished,
    the client gone, the server stopping): an event stream gives its place back."""

    def __init__(self, content, release, **kw):
        super().__init__(content, **kw)
        self._release = release

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


async def _json_body(request: Request, check, expected: str = "") -> dict | Response:
    """The request's JSON body checked against ``check`` (a validator of :mod:`.guards`), or the
    answer to send instead: 415 for another media type, 400 for a body that is no JSON or fails
    the check (the message followed by ``; expected EXPECTED`` when given)."""
    if _media_type(request) != "application/json":
        return _error("the body must be JSON (Content-Type: application/json)", 415)
    try:
        return parse_json(await request.body(), check)
    except TapsterError as exc:
        return _error(f"{exc.message}; expected {expected}" if expected else exc.message)


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def build_app(server: TableServer, default_ruleset: str | None = None, allowed_hosts: list[str] | None = None,
              origins: tuple[str, ...] = ()) -> Starlette:
    """The Starlette application serving ``server``'s tables (see the module's routes).

    ``allowed_hosts``: the ``Host`` names answered (others get 400; None: any, for tests and
    servers behind a proxy that checks them); ``origins``: other origins whose pages may POST.
    Raises TapsterError when Starlette is not installed.
    """
    require_web()
    from html import escape

    agent_wait = max(30.0, server.limits.max_agent_seconds * 4)
    streams = StreamBudget(server.limits.stream_cap, server.limits.streams_per_client)
    if default_ruleset is not None and default_ruleset not in server.rulesets:
        default_ruleset = server.name_for(default_ruleset)

    def form_page(error: str = "", status: int = 400) -> HTMLResponse:
        opts = []
        for name in server.rulesets:
            try:
                rs = server.ruleset({"ruleset": name})
            except TapsterError:
                continue
            sel = " selected" if name == default_ruleset else ""
            variants = ", ".join(getattr(rs, "variants", {}) or {}) or "none"
            opts.append(f'<option value="{escape(name, quote=True)}"{sel}>{escape(rs.title)} '
                        f'({rs.min_players}-{rs.max_players} players; variants: {escape(variants)})</option>')
        err = f'<p class="error" role="alert">{escape(fit_message(error))}</p>' if error else ""
        lim = server.limits
        body = f"""<main class="create"><h1>Tapster: a new table</h1>{err}
<form method="post" action="/tables">
<label>Ruleset <select name="ruleset" id="ruleset">{''.join(opts)}</select></label>
<label>Variant <input name="variant" id="variant" placeholder="none" maxlength="200"></label>
<label>Players <input name="players" id="players" type="number" min="1" max="16" placeholder="the ruleset's"></label>
<label>Seats <input name="agents" id="agents" value="human,human" size="40" maxlength="2000"></label>
<p class="hint">One entry per seat, comma-separated: <code>human</code> for a person with a link,
or an agent (<code>random</code>, <code>first</code>, <code>mcts:iterations=200</code>...); the last one repeats.
Agents here think at most {lim.max_agent_seconds:g} seconds a move (and at most {lim.max_agent_iterations} iterations).</p>
<label>Parameters <textarea name="params" id="params" rows="2" placeholder="NAME=VALUE, one a line"></textarea></label>
<fieldset class="practice"><legend>Practice table (optional)</legend>
<label>Seed <input name="seed" id="seed" type="number" min="0" placeholder="chosen by the server, secret"></label>
<p class="hint">Leave it empty for a real game. A seed you choose makes the game reproducible, and every
seat's page then says: &ldquo;{escape(CREATOR_SEED_NOTE)}&rdquo;</p></fieldset>
<button type="submit" id="create">Create the table</button></form></main>"""
        return _page("Tapster: a new table", body, status if error else 200)

    async def index(request: Request) -> Response:
        return form_page()

    def _create(data: dict, client: str) -> tuple[Table, dict]:
        """``data`` checked against :data:`CREATE_SCHEMA` already; parameters given as text that
        cannot be read count as a refusal of ``client`` (:meth:`TableServer.refused`)."""
        agents = data.get("agents") or ["human"]
        if isinstance(agents, str):
            agents = agents.split(",")
        params = data.get("params") or {}
        if isinstance(params, str):
            server.admit(client)  # a client over its quotas: 429 before its text is read
            started = time.thread_time()
            try:
                params = parse_params_text(params)
                check_unicode(params)
                problem = schema_error(CREATE_CHECK, {"params": params})
                if problem:
                    raise TapsterError(problem)
            except TapsterError:
                server.refused(client, time.thread_time() - started)
                raise
        players, seed = data.get("players"), data.get("seed")
        return server.create(str(data.get("ruleset") or default_ruleset or ""), data.get("variant") or None,
                             None if players is None else int(players), [str(a) for a in agents],
                             None if seed is None else int(seed), params, client)

    def _create_and_start(data: dict, client: str) -> tuple[Table, dict]:
        table, tokens = _create(data, client)
        server.schedule_agents(table)
        return table, tokens

    async def _created(data: dict, client: str) -> tuple[Table, dict]:
        table, tokens = await run_in_threadpool(_create_and_start, data, client)
        await server.settle(table, agent_wait)
        return table, tokens

    def _form_data(form) -> dict:
        """The form's fields as the JSON body's data (numbers read; empty fields left out)."""
        data: dict[str, Any] = {}
        for key in ("ruleset", "variant", "players", "agents", "seed", "params"):
            value = form.get(key)
            if value is None or value == "" or not isinstance(value, str):
                continue
            if key in ("players", "seed"):
                if not value.strip().isdigit() or len(value.strip()) > 25:
                    raise TapsterError("players and seed must be whole numbers")
                value = int(value.strip())
            data[key] = value
        unknown = [k for k in form.keys() if k not in ("ruleset", "variant", "players", "agents", "seed", "params")]
        if unknown:
            raise TapsterError(f"the form has no field {fit_message(unknown[0])[:40]!r}")
        check_unicode(data)
        problem = schema_error(CREATE_CHECK, data)
        if problem:
            raise TapsterError(problem)
        return data

    async def create_form(request: Request) -> Response:
        if _media_type(request) != "application/x-www-form-urlencoded":
            return form_page("the form is sent as application/x-www-form-urlencoded", 415)
        try:
            async with request.form(max_files=0, max_fields=20, max_part_size=MAX_PARAMS_TEXT * 2) as form:
                data = _form_data(form)
            table, tokens = await _created(data, _client(request))
        except TooMany as exc:
            return form_page(exc.message, 429)
        except TapsterError as exc:
            return form_page(exc.message)
        except Exception as exc:  # noqa: BLE001 - a malformed form body (python-multipart)
            if isinstance(exc, _TooLarge):
                raise
            return form_page("the form could not be read")
        base = str(request.base_url).rstrip("/")
        tid = table.record.id
        links = "".join(
            f'<li>P{p + 1}: <a class="seat-link" data-seat="{p}" href="/t/{tid}/{tok}">'
            f'{escape(base)}/t/{tid}/{tok}</a></li>'
            for p, tok in sorted((p, t) for p, t in tokens.items() if isinstance(p, int)))
        agents = table.record.settings["agents"]
        others = "".join(f"<li>P{p + 1}: {escape(a)}</li>" for p, a in enumerate(agents) if a != "human")
        note = f'<p class="warning" role="note">{escape(CREATOR_SEED_NOTE)}</p>' if table.creator_seeded else ""
        body = (f'<main class="created"><h1>{escape(table.rs.title)}: table ready</h1>{note}<p>Give each player their own link '
                f'(it is the key to that seat: whoever has it sees that seat\'s hand and plays for it).</p><ul class="links">{links}</ul>'
                + (f"<p>Agents:</p><ul>{others}</ul>" if others else "")
                + f'<p>A link to watch the table (public information only): <a class="spectate-link" '
                  f'href="/w/{tid}/{tokens["spectate"]}">{escape(base)}/w/{tid}/{tokens["spectate"]}</a></p>'
                + f'<p>Keep this link to delete the table: <a class="delete-link" href="/d/{tid}/{tokens["delete"]}">'
                  f'{escape(base)}/d/{tid}/{tokens["delete"]}</a> (finished tables are deleted after '
                  f'{server.limits.finished_ttl / 3600:g} hours, untouched ones after {server.limits.idle_ttl / 3600:g}).</p></main>')
        return _page("Tapster: table ready", body)

    async def create_api(request: Request) -> Response:
        if _media_type(request) != "application/json":
            return _error("the body must be JSON (Content-Type: application/json)", 415)
        try:
            data = parse_json(await request.body(), CREATE_CHECK)
            table, tokens = await _created(data, _client(request))
        except TooMany as exc:
            return _error(exc.message, 429)
        except TapsterError as exc:
            return _error(exc.message)
        tid = table.record.id
        return JSONResponse({"table": tid, "seats": {str(p): f"/t/{tid}/{tok}" for p, tok in sorted(
                                (p, t) for p, t in tokens.items() if isinstance(p, int))},
                             "delete": f"/d/{tid}/{tokens['delete']}", "spectate": f"/w/{tid}/{tokens['spectate']}",
                             "creator_seeded": table.creator_seeded},
                            headers={"Cache-Control": "no-store"})

    def _seat(request: Request) -> tuple[Table, int] | None:
        found = server.find(request.path_params["tid"], request.path_params["token"])
        if found is not None:
            server.schedule_agents(found[0], wait=False)  # an agent move lost (a failed write) starts again
        return found

    def _link(request: Request) -> str:
        return f"/t/{request.path_params['tid']}/{request.path_params['token']}"

    async def page(request: Request) -> Response:
        found = _seat(request)
        if found is None:
            return _forbidden()
        table, seat = found
        v = await run_in_threadpool(table.view, seat, _link(request))
        body = (f'<main class="seat" data-version="{v["version"]}"><div id="message" role="status"></div>'
                f'<div id="view">{v["html"]}</div></main><script src="/static/table.js"></script>')
        return _page(f"{table.rs.title}: P{seat + 1}", body)

    async def view(request: Request) -> Response:
        found = _seat(request)
        if found is None:
            return _forbidden()
        table, seat = found
        return JSONResponse(await run_in_threadpool(table.view, seat, _link(request)), headers={"Cache-Control": "no-store"})

    def _log(table: Table) -> Response:
        with table.lock:
            if not table.state.finished:
                return _error("the replay log (with the seed) is given once the game is over", 403)
            s = table.record.settings
            data = {"format": "tapster-log/1", "ruleset": table.rs.name, "variant": s.get("variant"), "params": s.get("params") or {},
                    "players": s["players"], "seed": s["seed"], "agents": s["agents"],
                    "actions": [a for _, a in table.record.actions], "outcome": table.state.outcome().to_json()}
        return JSONResponse(data, headers={"Cache-Control": "no-store", "Content-Disposition": 'attachment; filename="tapster-game.json"'})

    async def replay_log(request: Request) -> Response:
        found = _seat(request)
        if found is None:
            return _forbidden()
        return await run_in_threadpool(_log, found[0])

    async def events(request: Request) -> Response:
        found = _seat(request)
        if found is None:
            return _forbidden()
        table, _ = found
        who = client_address(_client(request))
        refused = streams.open(who)
        if refused:
            return _error(refused, 429)
        end = time.monotonic() + server.limits.stream_seconds

        async def stream():
            last = -1
            yield "retry: 1000\n\n"  # after a restart, or the stream's lifetime, pages reconnect within a second
            while not table.deleted:
                if table.version != last:
                    last = table.version
                    yield f"data: {last}\n\n"
                left = end - time.monotonic()
                if left <= 0:
                    return  # the stream's lifetime is over: the page opens a new one
                if not await table.wait_change(min(15.0, left)):
                    yield ": keep-alive\n\n"
            yield "event: deleted\ndata: deleted\n\n"

        return _Stream(stream(), lambda: streams.close(who), media_type="text/event-stream",
                       headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def act(request: Request) -> Response:
        found = _seat(request)
        if found is None:
            return _forbidden()
        table, seat = found
        data = await _json_body(request, ACT_CHECK, '{"action": TEXT, "version": N}')
        if isinstance(data, Response):
            return data
        version = data.get("version")
        action = data["action"]
        try:
            await run_in_threadpool(server.take, table, seat, action, None if version is None else int(version))
        except IllegalActionError as exc:  # the action's text is cut in the answer: it is the sender's own
            shown = action if len(action) <= 60 else action[:59] + "\u2026"
            return _error(exc.message.replace(action, shown), 409, version=table.version)
        except TapsterError as exc:
            return _error(exc.message, 503, version=table.version)
        table.notify()
        await server.settle(table, agent_wait)
        if table.failure:
            return _error(table.failure, 500, version=table.version)
        return JSONResponse({"version": table.version})

    def _creator(request: Request) -> Table | None:
        table = server.tables.get(request.path_params["tid"])
        if table is None or not table.is_creator(request.path_params["token"]):
            token_hash(request.path_params["token"])
            return None
        return table

    async def delete_page(request: Request) -> Response:
        table = _creator(request)
        if table is None:
            return _forbidden()
        body = (f'<main class="delete"><h1>Delete this {escape(table.rs.title)} table?</h1><p>Every seat\'s link stops working '
                f'and the game is gone for good.</p><form method="post"><button type="submit" id="delete">Delete the table</button>'
                f'</form></main>')
        return _page("Tapster: delete a table", body)

    async def delete(request: Request) -> Response:
        table = _creator(request)
        if table is None:
            return _forbidden()
        try:
            await run_in_threadpool(server.delete, table)
        except Exception as exc:  # noqa: BLE001 - the database refused the write: nothing was deleted
            log.warning("table %s could not be deleted: %s", table.record.id, exc)
            return _error("the table could not be deleted just now; try again", 503)
        if _media_type(request) == "application/json":
            return JSONResponse({"deleted": table.record.id})
        return _page("Tapster: table deleted", '<main class="delete"><h1>The table is deleted.</h1></main>')

    async def refuse(request: Request) -> Response:
        return _forbidden()

    async def sweeper():
        while True:
            await asyncio.sleep(60)
            await run_in_threadpool(server.sweep)

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app):
        task = asyncio.get_running_loop().create_task(sweeper())
        try:
            yield
        finally:
            task.cancel()

    static = resources.files("interpreter.web") / "static"
    from .playtest import routes as _playtest_routes

    routes = [
        Route("/", index),
        Route("/tables", create_form, methods=["POST"]),
        Route("/api/tables", create_api, methods=["POST"]),
        Route("/t/{tid}/{token}", page),
        Route("/t/{tid}/{token}/view", view),
        Route("/t/{tid}/{token}/events", events),
        Route("/t/{tid}/{token}/log", replay_log),
        Route("/t/{tid}/{token}/act", act, methods=["POST"]),
        Route("/d/{tid}/{token}", delete_page, methods=["GET"]),
        Route("/d/{tid}/{token}", delete, methods=["POST"]),
        *_playtest_routes(server, agent_wait),  # take-back, spectating, the replay viewer (issue 48)
        Route("/t/{rest:path}", refuse, methods=["GET", "POST"]),  # a link without a token, or malformed
        Route("/t", refuse, methods=["GET", "POST"]),
        Route("/d/{rest:path}", refuse, methods=["GET", "POST"]),
        Route("/w/{rest:path}", refuse, methods=["GET", "POST"]),
        Mount("/static", app=StaticFiles(directory=str(static)), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.streams = streams
    if allowed_hosts:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))
    app.add_middleware(RequestGuard, max_body=server.limits.max_body, origins=tuple(origins))
    return app


def _check_port(host: str, port: int) -> None:
    """Raise a clear TapsterError when ``host:port`` cannot be served (in use, or no such
    address), rather than uvicorn's log line and exit code 3."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise TapsterError(f"cannot serve on {host}: {exc.strerror or exc} (--host takes an address such as 127.0.0.1)") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise TapsterError(f"port {port} on {host} is in use (another server?): choose another with --port") from None
            raise TapsterError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None


def guarded_protocol(max_connections: int, request_timeout: float, per_client: int | None = None,
                     idle_per_client: int | None = None):
    """uvicorn's h11 protocol class with the guards uvicorn lacks.  Clients are counted by
    :func:`client_address` (an IPv4 address, an IPv6 /64).

    - A connection beyond ``per_client`` open ones from its client is closed at once.
    - A connection is *waiting* while it has not sent a whole request (headers and body), since
      it opened or since its last response: one waiting ``request_timeout`` seconds is closed
      (a half-open connection cannot hold a slot for long), and a client may keep at most
      ``idle_per_client`` waiting (a new one closes its oldest waiting one, so a client that
      reconnects gains nothing).
    - A connection beyond ``max_connections`` closes the oldest waiting connection of the client
      with the most waiting ones, or, when none waits, is closed itself (connections in a
      request or a stream are never cut for it).
    """
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        def connection_made(self, transport):
            super().connection_made(transport)
            self._deadline = None
            self._key = client_address(self.client[0]) if self.client else None
            self._since = self.loop.time()
            live = [c for c in self.connections if not c.transport.is_closing()]  # those refused are gone already
            mine = [c for c in live if getattr(c, "_key", None) == self._key]
            if per_client and len(mine) > per_client:
                self._drop()
                return
            if idle_per_client:
                waiting = [c for c in mine if c is not self and c._waiting()]
                if len(waiting) >= idle_per_client:
                    min(waiting, key=lambda c: c._since)._drop()
                    live = [c for c in live if not c.transport.is_closing()]
            if len(live) > max_connections:
                victim = self._victim(live)
                if victim is None:
                    self._drop()
                    return
                victim._drop()
            self._arm()

        def _waiting(self) -> bool:
            cycle = self.cycle
            return cycle is None or cycle.response_complete or (cycle.more_body and not cycle.response_started)

        def _victim(self, live):
            by_client: dict = {}
            for c in live:
                if c is not self and getattr(c, "_key", None) is not None and c._waiting():
                    by_client.setdefault(c._key, []).append(c)
            if not by_client:
                return None
            most = max(by_client.values(), key=len)
            return min(most, key=lambda c: c._since)

        def _arm(self):
            if self._deadline is not None:
                self._deadline.cancel()
            self._since = self.loop.time()
            self._deadline = self.loop.call_later(request_timeout, self._expire)

        def _drop(self):
            if not self.transport.is_closing():
                try:
                    self.conn.send(h11.ConnectionClosed())
                except h11.LocalProtocolError:
                    pass
                self.transport.close()
            self.connections.discard(self)  # no longer counted (uvicorn's own limit counts this set)

        def _expire(self):
            if self._waiting() and not self.transport.is_closing():
                self._drop()

        def on_response_complete(self):
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc):
            if getattr(self, "_deadline", None) is not None:
                self._deadline.cancel()
            super().connection_lost(exc)

    return GuardedH11Protocol


def _loopback(host: str) -> bool:
    return host in ("127.0.0.1", "::1", "localhost") or host.startswith("127.")


def serve(ruleset: str | None, host: str, port: int, db: str, limits: Limits | None = None,
          allowed_hosts: list[str] | None = None, origins: tuple[str, ...] = (), proxies: tuple[str, ...] = ()) -> None:
    """Run the server until interrupted (uvicorn), tables kept in the SQLite file ``db``.

    ``limits``: what each client may do (:class:`Limits`); ``allowed_hosts``: the ``Host``
    names answered (default: the loopback names when ``host`` is a loopback address, else any);
    ``origins``: other sites whose pages may POST here; ``proxies``: the addresses of reverse
    proxies whose ``X-Forwarded-For`` / ``X-Forwarded-Proto`` are believed (the client address the
    per-client limits count, and the scheme the ``Origin`` check expects); none by default.

    Raises TapsterError: the web packages are missing, ``ruleset`` does not load, the port is
    in use, the database cannot be opened, or a stored table no longer loads.
    """
    require_web()
    import uvicorn

    limits = limits or Limits()
    rulesets = None
    if ruleset is not None:
        load_ruleset(ruleset)  # a clear error now rather than on the form
        rulesets = [ruleset]
    _check_port(host, port)
    if not allowed_hosts and _loopback(host):
        allowed_hosts = ["127.0.0.1", "localhost", "[::1]", host]
    store = SQLiteStore(db)
    server = TableServer(store, rulesets, limits)
    app = build_app(server, ruleset, allowed_hosts, origins)
    print(f"tapster serve: {len(server.tables)} table(s) restored from {Path(db).name}; open http://{host}:{port}/", flush=True)
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=1,
                    http=guarded_protocol(limits.max_connections, limits.request_timeout, limits.connections_per_client,
                                          limits.idle_per_client),
                    limit_concurrency=limits.max_connections + 1, timeout_keep_alive=5, h11_max_incomplete_event_size=16 * 1024,
                    backlog=256, proxy_headers=bool(proxies), forwarded_allow_ips=list(proxies) or None)
    finally:
        server.close()
