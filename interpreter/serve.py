"""``tapster serve``: a browser table for hot-seat and networked play (Starlette + uvicorn).

Players create a table (ruleset, variant, players, the agent of every seat that is not a person)
on ``/`` and get one link per human seat, ``/t/<table>/<token>``: the token is unguessable
(:func:`secrets.token_urlsafe`, 256 bits) and only its SHA-256 is stored.  A seat's page shows
that seat's view (:func:`interpreter.webview.seat_html`, built from ``State.observation(p)`` and
``State.visible_log(p)`` only) with the legal actions as buttons; the page learns of new moves
from server-sent events and fetches its view again.

Routes (``<t>`` a table id, ``<k>`` a seat's token):

- ``GET /`` the form; ``POST /tables`` creates a table and shows the seats' links;
  ``POST /api/tables`` the same with JSON in (``ruleset``, ``variant``, ``players``, ``agents``
  by seat with ``"human"`` for a person, ``seed``, ``params``) and out (``table``, ``seats``:
  seat -> link path, for human seats).
- ``GET /t/<t>/<k>`` the seat's page; ``GET /t/<t>/<k>/view`` its view as JSON
  (``version``, ``html``); ``GET /t/<t>/<k>/events`` server-sent events, one ``data: VERSION``
  message when the table changes; ``POST /t/<t>/<k>/act`` with JSON ``{"action": TEXT,
  "version": N}`` takes an action: 200 ``{"version": N}``; 409 with ``error`` when the action is
  not legal now, it is not the seat's turn, or ``version`` is stale (nothing changes).
- Any request with an unknown table or a token that is not a seat's gets the same 403 body
  (nothing tells a wrong token from a missing table).

Tables live in a :class:`~interpreter.store.TableStore` (SQLite by default): each action is
committed with the state it led to, and every table is restored when the server starts.  Agents
are seeded per decision (``agent_seed(seed, seat)`` and the action count), so a game restored
after a restart goes on exactly as it would have.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import hmac
import json
import secrets
from importlib import resources
from typing import Any

from .agents import make_agent, parse_agent
from .analysis import agent_seed
from .compiler import available_rulesets, load_ruleset
from .errors import IllegalActionError, TapsterError
from .load import load_yaml_text
from .render import view_observation
from .ruleset import Ruleset
from .state import State
from .store import SQLiteStore, StaleTableError, TableRecord, TableStore
from .webview import seat_html

try:
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles
except ImportError:  # pragma: no cover - reported by require_web()
    Starlette = None

__all__ = ["TableServer", "build_app", "serve", "require_web", "FORBIDDEN"]

#: The body of every refused request (wrong, missing or foreign token; unknown table).
FORBIDDEN = "403 Forbidden: this link is not a seat at a table here."

#: Limits on what a form may ask for.
MAX_PARAMS_TEXT = 4000
MAX_TABLES = 10_000


def require_web() -> None:
    """Raise TapsterError when the optional web packages are missing."""
    if Starlette is None:
        raise TapsterError("`tapster serve` needs Starlette and uvicorn: pip install 'tapster[web]'")


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class Table:
    """A live table: its stored record, ruleset, state, and what waits for its changes."""

    def __init__(self, record: TableRecord, rs: Ruleset, state: State):
        self.record = record
        self.rs = rs
        self.state = state
        self.lock = asyncio.Lock()
        self.changed = asyncio.Condition()

    @property
    def version(self) -> int:
        return self.record.version

    def seat_of(self, token: str) -> int | None:
        """The seat whose token this is, or None (constant-time comparisons)."""
        h = _hash(token)
        seat = None
        for p, stored in enumerate(self.record.token_hashes):
            if stored is not None and hmac.compare_digest(stored, h):
                seat = p
        return seat

    def names(self, me: int) -> list[str]:
        agents = self.record.settings["agents"]
        return [f"P{p + 1}" + (" (you)" if p == me else "" if a == "human" else f" ({a})") for p, a in enumerate(agents)]

    def view(self, seat: int) -> dict:
        """The seat's view: ``{"version", "html", "finished", "yours"}``."""
        st = self.state
        obs = view_observation(st, seat)
        return {"version": self.version, "html": seat_html(self.rs, obs, st.visible_log(seat), self.names(seat)),
                "finished": st.finished, "yours": "decision" in obs}


class TableServer:
    """The tables of one server, kept in ``store`` and restored from it on creation.

    ``rulesets``: the rulesets a table may be created with (names or paths; default the shipped
    ones).  Raises TapsterError when a stored table no longer loads.
    """

    def __init__(self, store: TableStore, rulesets: list[str] | None = None):
        self.store = store
        self.rulesets = list(rulesets) if rulesets else available_rulesets()
        self._compiled: dict = {}
        self.tables: dict[str, Table] = {}
        for rec in store.load_all():
            rs = self.ruleset(rec.settings)
            self.tables[rec.id] = Table(rec, rs, State.from_json(rs, rec.state))

    def ruleset(self, settings: dict) -> Ruleset:
        """The compiled ruleset of a table's settings (cached)."""
        key = json.dumps([settings["ruleset"], settings.get("variant"), settings.get("params") or {}], sort_keys=True)
        rs = self._compiled.get(key)
        if rs is None:
            params = settings.get("params") or {}
            if not isinstance(params, dict):
                raise TapsterError("params: expected NAME: VALUE pairs")
            rs = load_ruleset(settings["ruleset"], settings.get("variant") or None)
            for name in params:
                if name not in rs.params:
                    raise TapsterError(f"{rs.title} has no parameter {name!r}; parameters: {', '.join(rs.params) or 'none'}")
            if params:
                rs = load_ruleset(settings["ruleset"], settings.get("variant") or None, {"params": params})
            self._compiled[key] = rs
        return rs

    def create(self, ruleset: str, variant: str | None, players: int | None, agents: list[str],
               seed: int | None = None, params: dict | None = None) -> tuple[Table, dict[int, str]]:
        """A new table and the token of each human seat (seat -> token).

        ``agents``: one entry per seat (``"human"`` or an agent spec; the last repeats).
        Raises TapsterError: a ruleset not offered here, a bad variant, parameter, player count
        or agent, no human seat.
        """
        if ruleset not in self.rulesets:
            raise TapsterError(f"ruleset {ruleset!r} is not offered here; rulesets: {', '.join(self.rulesets)}")
        if len(self.tables) >= MAX_TABLES:
            raise TapsterError(f"this server holds {MAX_TABLES} tables already")
        settings: dict[str, Any] = {"ruleset": ruleset, "variant": variant or None, "params": params or {}}
        rs = self.ruleset(settings)
        n = rs.default_players if players is None else int(players)
        if not rs.min_players <= n <= rs.max_players:
            raise TapsterError(f"{rs.title} is for {rs.min_players} to {rs.max_players} players, not {n}")
        agents = [a.strip() for a in agents if a.strip()] or ["human"]
        if len(agents) > n:
            raise TapsterError(f"{len(agents)} seats given for {n} players")
        agents = agents + [agents[-1]] * (n - len(agents))
        for a in agents:
            if a != "human":
                parse_agent(a)
        if "human" not in agents:
            raise TapsterError("at least one seat must be a person (human)")
        seed = secrets.randbelow(2**32) if seed is None else int(seed)
        settings.update(players=n, agents=agents, seed=seed)
        tokens = {p: secrets.token_urlsafe(32) for p, a in enumerate(agents) if a == "human"}
        hashes = [(_hash(tokens[p]) if p in tokens else None) for p in range(n)]
        st = rs.new_game(n, seed=seed, log=True)
        tid = secrets.token_urlsafe(9)
        rec = TableRecord(tid, settings, hashes, st.to_json())
        self.store.create(rec)
        table = Table(rec, rs, st)
        self.tables[tid] = table
        return table, tokens

    def find(self, tid: str, token: str) -> tuple[Table, int] | None:
        """The table and seat of a link, or None for any unknown table or token."""
        table = self.tables.get(tid)
        if table is None:
            _hash(token)  # the same work as a known table
            return None
        seat = table.seat_of(token)
        return None if seat is None else (table, seat)

    def take(self, table: Table, seat: int, action: str, version: int | None) -> None:
        """Take ``action`` for ``seat`` and commit it with the new state (no agents).

        Raises:
            IllegalActionError: not the seat's turn, a stale ``version``, an illegal action,
                the game is over (nothing changes).
        """
        st = table.state
        if st.is_terminal():
            raise IllegalActionError("the game is over: no action can be taken", ())
        if version is not None and version != table.version:
            raise IllegalActionError(f"this page was out of date (the table moved on to move {table.version}); "
                                     "the view is refreshed, choose again", ())
        if seat not in st.current_players():
            raise IllegalActionError("it is not your turn", ())
        self._commit(table, seat, action)

    def _commit(self, table: Table, seat: int, action: Any) -> None:
        new = table.state.clone()
        new.apply(action)  # raises IllegalActionError with nothing changed
        text = str(action) if not isinstance(action, str) else str(_found(table.state, action))
        try:
            self.store.record(table.record.id, table.version, seat, text, new.to_json())
        except StaleTableError as exc:
            raise IllegalActionError(str(exc), ()) from None
        table.record.version += 1
        table.record.actions.append([seat, text])
        table.state = new

    def agents_move(self, table: Table) -> int:
        """Let the agents take their turns until a person must decide or the game ends; each
        action is committed.  Returns the number of actions taken."""
        taken = 0
        while _one_agent(self, table):
            taken += 1
        return taken


def _found(st: State, text: str) -> Any:
    """The legal action a text names (its canonical text is what the log records)."""
    for a in st.legal_actions():
        if str(a) == text:
            return a
    d = st.decision()
    found = d.find(text) if d else None
    return found if found is not None else text


def _parse_params(text: str) -> dict:
    """``NAME=VALUE`` lines (values read as plain YAML) -> dict.  Raises TapsterError."""
    if len(text) > MAX_PARAMS_TEXT:
        raise TapsterError(f"parameters: at most {MAX_PARAMS_TEXT} characters")
    out = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        name, sep, value = line.partition("=")
        if not sep or not name.strip():
            raise TapsterError(f"parameter {line.strip()!r} is not NAME=VALUE (e.g. turns=5)")
        try:
            out[name.strip()] = load_yaml_text(value, f"param {name.strip()}").data
        except (ValueError, OverflowError) as exc:
            raise TapsterError(f"the value of {name.strip()} cannot be read: {exc}") from None
    return out


# -- the web application --------------------------------------------------------------------------

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{title}</title><link rel="stylesheet" href="/static/table.css"></head>
<body>{body}</body></html>"""


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    from html import escape

    return HTMLResponse(_PAGE.format(title=escape(title), body=body), status_code=status,
                        headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
                                 "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'"})


def _forbidden() -> Response:
    return PlainTextResponse(FORBIDDEN, status_code=403, headers={"Cache-Control": "no-store"})


def build_app(server: TableServer, default_ruleset: str | None = None) -> Starlette:
    """The Starlette application serving ``server``'s tables (see the module's routes).

    Raises TapsterError when Starlette is not installed.
    """
    require_web()
    from html import escape

    def form_page(error: str = "") -> HTMLResponse:
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
        err = f'<p class="error" role="alert">{escape(error)}</p>' if error else ""
        body = f"""<main class="create"><h1>Tapster: a new table</h1>{err}
<form method="post" action="/tables">
<label>Ruleset <select name="ruleset" id="ruleset">{''.join(opts)}</select></label>
<label>Variant <input name="variant" id="variant" placeholder="none"></label>
<label>Players <input name="players" id="players" type="number" min="1" max="16" placeholder="the ruleset's"></label>
<label>Seats <input name="agents" id="agents" value="human,human" size="40"></label>
<p class="hint">One entry per seat, comma-separated: <code>human</code> for a person with a link,
or an agent (<code>random</code>, <code>first</code>, <code>mcts:iterations=200</code>...); the last one repeats.</p>
<label>Seed <input name="seed" id="seed" type="number" min="0" placeholder="random"></label>
<label>Parameters <textarea name="params" id="params" rows="2" placeholder="NAME=VALUE, one a line"></textarea></label>
<button type="submit" id="create">Create the table</button></form></main>"""
        return _page("Tapster: a new table", body, 400 if error else 200)

    async def index(request: Request) -> Response:
        return form_page()

    def _create(data: dict) -> tuple[Table, dict]:
        agents = data.get("agents") or ["human"]
        if isinstance(agents, str):
            agents = agents.split(",")
        players = data.get("players")
        seed = data.get("seed")
        params = data.get("params") or {}
        if isinstance(params, str):
            params = _parse_params(params)
        try:
            players = int(players) if players not in (None, "") else None
            seed = int(seed) if seed not in (None, "") else None
        except (TypeError, ValueError):
            raise TapsterError("players and seed must be whole numbers") from None
        if seed is not None and not 0 <= seed < 2**64:
            raise TapsterError("the seed is a whole number from 0 to 2**64 - 1")
        return server.create(str(data.get("ruleset") or default_ruleset or ""), data.get("variant") or None, players,
                             [str(a) for a in agents], seed, params)

    async def _created(data: dict) -> tuple[Table, dict]:
        table, tokens = await run_in_threadpool(_create, data)
        async with table.lock:
            await run_in_threadpool(server.agents_move, table)
        return table, tokens

    async def create_form(request: Request) -> Response:
        form = await request.form()
        try:
            table, tokens = await _created(dict(form))
        except TapsterError as exc:
            return form_page(exc.message if hasattr(exc, "message") else str(exc))
        base = str(request.base_url).rstrip("/")
        links = "".join(
            f'<li>P{p + 1}: <a class="seat-link" data-seat="{p}" href="/t/{table.record.id}/{tok}">'
            f'{escape(base)}/t/{table.record.id}/{tok}</a></li>'
            for p, tok in sorted(tokens.items()))
        agents = table.record.settings["agents"]
        others = "".join(f"<li>P{p + 1}: {escape(a)}</li>" for p, a in enumerate(agents) if a != "human")
        body = (f'<main class="created"><h1>{escape(table.rs.title)}: table ready</h1><p>Give each player their own link '
                f'(it is the key to that seat: whoever has it sees that seat\'s hand and plays for it).</p><ul class="links">{links}</ul>'
                + (f"<p>Agents:</p><ul>{others}</ul>" if others else "") + "</main>")
        return _page("Tapster: table ready", body)

    async def create_api(request: Request) -> Response:
        try:
            data = await request.json()
            if not isinstance(data, dict):
                raise TapsterError("expected a JSON object")
            table, tokens = await _created(data)
        except json.JSONDecodeError:
            return JSONResponse({"error": "expected a JSON object"}, status_code=400)
        except TapsterError as exc:
            return JSONResponse({"error": getattr(exc, "message", str(exc))}, status_code=400)
        return JSONResponse({"table": table.record.id,
                             "seats": {str(p): f"/t/{table.record.id}/{tok}" for p, tok in sorted(tokens.items())}})

    def _seat(request: Request) -> tuple[Table, int] | None:
        return server.find(request.path_params["tid"], request.path_params["token"])

    async def page(request: Request) -> Response:
        found = _seat(request)
        if found is None:
            return _forbidden()
        table, seat = found
        v = table.view(seat)
        body = (f'<main class="seat" data-version="{v["version"]}"><div id="message" role="status"></div>'
                f'<div id="view">{v["html"]}</div></main><script src="/static/table.js"></script>')
        return _page(f"{table.rs.title}: P{seat + 1}", body)

    async def view(request: Request) -> Response:
        found = _seat(request)
        if found is None:
            return _forbidden()
        table, seat = found
        return JSONResponse(table.view(seat), headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        found = _seat(request)
        if found is None:
            return _forbidden()
        table, _ = found

        async def stream():
            last = -1
            yield "retry: 1000\n\n"  # after a restart, pages reconnect within a second
            while True:
                if table.version != last:
                    last = table.version
                    yield f"data: {last}\n\n"
                async with table.changed:
                    try:
                        await asyncio.wait_for(table.changed.wait(), timeout=15)
                    except TimeoutError:
                        yield ": keep-alive\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def act(request: Request) -> Response:
        found = _seat(request)
        if found is None:
            return _forbidden()
        table, seat = found
        try:
            data = await request.json()
        except json.JSONDecodeError:
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("action"), str):
            return JSONResponse({"error": 'expected JSON {"action": TEXT, "version": N}'}, status_code=400)
        version = data.get("version")
        if version is not None and type(version) is not int:
            return JSONResponse({"error": "version must be a whole number"}, status_code=400)
        async with table.lock:
            try:
                await run_in_threadpool(server.take, table, seat, data["action"], version)
            except IllegalActionError as exc:
                return JSONResponse({"error": exc.message, "version": table.version}, status_code=409)
            await _notify(table)
            try:
                while not table.state.is_terminal():
                    if await run_in_threadpool(_one_agent, server, table) == 0:
                        break
                    await _notify(table)
            except TapsterError as exc:
                return JSONResponse({"error": f"an agent failed: {exc.message}", "version": table.version}, status_code=500)
        return JSONResponse({"version": table.version})

    async def refuse(request: Request) -> Response:
        return _forbidden()

    async def _notify(table: Table) -> None:
        async with table.changed:
            table.changed.notify_all()

    static = resources.files("interpreter") / "static"
    routes = [
        Route("/", index),
        Route("/tables", create_form, methods=["POST"]),
        Route("/api/tables", create_api, methods=["POST"]),
        Route("/t/{tid}/{token}", page),
        Route("/t/{tid}/{token}/view", view),
        Route("/t/{tid}/{token}/events", events),
        Route("/t/{tid}/{token}/act", act, methods=["POST"]),
        Route("/t/{rest:path}", refuse, methods=["GET", "POST"]),  # a link without a token, or malformed
        Route("/t", refuse, methods=["GET", "POST"]),
        Mount("/static", app=StaticFiles(directory=str(static)), name="static"),
    ]
    return Starlette(routes=routes)


def _one_agent(server: TableServer, table: Table) -> int:
    """One agent's action (0 when a person must decide or the game is over)."""
    st = table.state
    if st.is_terminal():
        return 0
    p = st.current_players()[0]
    agents = table.record.settings["agents"]
    if agents[p] == "human":
        return 0
    seed = f"{agent_seed(table.record.settings['seed'], p)}:{table.version}"
    action = make_agent(agents[p], seed).act(st.clone(), p)
    server._commit(table, p, action)
    table.rs.check_length(table.state, table.version)
    return 1


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


def serve(ruleset: str | None, host: str, port: int, db: str) -> None:
    """Run the server until interrupted (uvicorn), tables kept in the SQLite file ``db``.

    Raises TapsterError: the web packages are missing, ``ruleset`` does not load, the port is
    in use, the database cannot be opened, or a stored table no longer loads.
    """
    require_web()
    import uvicorn

    rulesets = None
    if ruleset is not None:
        load_ruleset(ruleset)  # a clear error now rather than on the form
        rulesets = [ruleset]
    _check_port(host, port)
    store = SQLiteStore(db)
    server = TableServer(store, rulesets)
    app = build_app(server, ruleset)
    print(f"tapster serve: {len(server.tables)} table(s) restored from {db}; open http://{host}:{port}/", flush=True)
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=1)
    finally:
        store.close()
