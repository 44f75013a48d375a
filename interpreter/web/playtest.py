"""The browser table's playtesting routes (issue 48): take-back, spectating and the replay viewer.

- ``POST /t/<t>/<k>/undo`` with JSON ``{"answer": "ask" | "agree" | "refuse" | "redo"}``
  (default ``ask``): the seat takes back its last move (with the agents' moves after it), free
  while nothing it did not know has been shown to it since; otherwise every other person at the
  table must agree (their pages ask them; they answer with ``agree`` or ``refuse``); ``redo``
  takes again what the seat took back, while nothing else was played.  200
  ``{"done", "version", "waiting_for"}``; 409 with ``error`` when there is nothing to take
  back or to answer (:meth:`interpreter.web.tables.TableServer.take_back`).
- ``GET /w/<t>/<s>`` the spectator's page (``<s>`` the ``spectate`` link's token, given to the
  creator), its ``/view`` and ``/events``: public information only
  (:func:`interpreter.views.spectator.public_observation`), the seed once the game is over.
- ``GET /t/<t>/<k>/replay`` the replay viewer once the game is over (403 before): step
  forward and back, jump to a step or a turn, as the seat saw it or (``all``) everything; its
  steps from ``GET /t/<t>/<k>/replay/step?n=N[&all=1]`` as JSON.

Every answer to an unknown table or token is the same 403 as the server's other routes.
"""

from __future__ import annotations

from html import escape
from typing import Any

import jsonschema

from ..errors import IllegalActionError, TapsterError

__all__ = ["UNDO_SCHEMA", "routes", "replay_page", "log_app", "serve_log"]

#: The body of ``POST /t/<t>/<k>/undo``.
UNDO_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"enum": ["ask", "agree", "refuse", "redo"]}},
    "additionalProperties": False,
}
_UNDO_CHECK = jsonschema.Draft202012Validator(UNDO_SCHEMA)
#: The most digits of a replay step (a game holds at most MAX_LOG_ACTIONS actions).
_STEP_DIGITS = 7


def replay_page(title: str, total: int, data_url: str) -> str:
    """The replay viewer's body: controls (first, back, forward, last, a step to jump to, the
    turns) and the view, filled by ``/static/replay.js`` from ``data_url``."""
    return (f'<main class="replay-viewer" data-url="{escape(data_url, quote=True)}" data-total="{total}">'
            f'<h1>{escape(title)}: replay</h1>'
            '<nav class="replay-controls" aria-label="replay">'
            '<button type="button" class="replay-first">|◀ start</button> '
            '<button type="button" class="replay-back">◀ back</button> '
            '<button type="button" class="replay-forward">forward ▶</button> '
            '<button type="button" class="replay-last">end ▶|</button> '
            f'<label>step <input type="number" class="replay-step" min="0" max="{total}" value="0"></label> '
            f'<span class="replay-of">of {total}</span> '
            '<label>turn <select class="replay-turn"></select></label> '
            '<label><input type="checkbox" class="replay-all"> everything</label>'
            '</nav><div id="message" role="status"></div><div id="view"></div></main>'
            '<script src="/static/replay.js"></script>')


def routes(server, agent_wait: float) -> list:
    """The routes of this module for ``server`` (a :class:`~interpreter.web.tables.TableServer`)."""
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    from .server import _error, _forbidden, _json_body, _page

    def _seat(request: Request):
        return server.find(request.path_params["tid"], request.path_params["token"])

    async def undo(request: Request) -> Response:
        found = _seat(request)
        if found is None:
            return _forbidden()
        table, seat = found
        data = await _json_body(request, _UNDO_CHECK, '{"answer": "ask" | "agree" | "refuse" | "redo"}')
        if isinstance(data, Response):
            return data
        try:
            answer = await run_in_threadpool(server.take_back, table, seat, data.get("answer", "ask"))
        except IllegalActionError as exc:
            return _error(exc.message, 409, version=table.version)
        except TapsterError as exc:
            return _error(exc.message, 503, version=table.version)
        table.notify()
        server.schedule_agents(table)
        await server.settle(table, agent_wait)
        return JSONResponse({**answer, "version": table.version}, headers={"Cache-Control": "no-store"})

    def _watched(request: Request):
        return server.find_spectator(request.path_params["tid"], request.path_params["token"])

    async def watch_page(request: Request) -> Response:
        table = _watched(request)
        if table is None:
            return _forbidden()
        v = await run_in_threadpool(table.spectator_view)
        body = (f'<main class="seat spectator" data-version="{v["version"]}"><div id="message" role="status"></div>'
                f'<div id="view">{v["html"]}</div></main><script src="/static/table.js"></script>')
        return _page(f"{table.rs.title}: watching", body)

    async def watch_view(request: Request) -> Response:
        table = _watched(request)
        if table is None:
            return _forbidden()
        return JSONResponse(await run_in_threadpool(table.spectator_view), headers={"Cache-Control": "no-store"})

    async def watch_events(request: Request) -> Response:
        table = _watched(request)
        if table is None:
            return _forbidden()

        async def stream():
            last = -1
            yield "retry: 1000\n\n"
            while not table.deleted:
                if table.version != last:
                    last = table.version
                    yield f"data: {last}\n\n"
                if not await table.wait_change(15):
                    yield ": keep-alive\n\n"
            yield "event: deleted\ndata: deleted\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def replay(request: Request) -> Response:
        found = _seat(request)
        if found is None:
            return _forbidden()
        table, _ = found
        if not table.state.finished:
            return _page("Tapster: replay", '<main><p class="error">The replay is given once the game is over.</p></main>', 403)
        total = table.record.version
        link = f"/t/{request.path_params['tid']}/{request.path_params['token']}/replay/step"
        return _page(f"{table.rs.title}: replay", replay_page(table.rs.title, total, link))

    async def replay_step(request: Request) -> Response:
        found = _seat(request)
        if found is None:
            return _forbidden()
        table, seat = found
        n: Any = request.query_params.get("n", "0")
        everything = request.query_params.get("all", "") in ("1", "true")
        if not (isinstance(n, str) and n.isascii() and n.isdigit() and len(n) <= _STEP_DIGITS):
            return _error("n: a step number (0 to the number of actions)")
        if not table.state.finished:
            return _error("the replay is given once the game is over", 403)
        try:
            data = await run_in_threadpool(table.replay_step, None if everything else seat, int(n))
        except TapsterError as exc:
            return _error(exc.message, 403)
        return JSONResponse(data, headers={"Cache-Control": "no-store"})

    return [
        Route("/t/{tid}/{token}/undo", undo, methods=["POST"]),
        Route("/t/{tid}/{token}/replay", replay),
        Route("/t/{tid}/{token}/replay/step", replay_step),
        Route("/w/{tid}/{token}", watch_page),
        Route("/w/{tid}/{token}/view", watch_view),
        Route("/w/{tid}/{token}/events", watch_events),
    ]


def log_app(rs, data: dict):
    """A Starlette application showing the replay viewer of a finished game's log (``tapster
    replay LOG --serve``): ``GET /`` the viewer, ``GET /step?n=N[&all=1]`` a step as JSON (the
    first player's view, or everything).  ``data``: a checked replay log whose game has ended."""
    from pathlib import Path

    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    from .server import _error, _page
    from .tables import replay_step

    actions = [str(a) for a in data["actions"]]
    agents = [str(a) for a in data.get("agents") or ["human"] * data["players"]]

    async def index(request: Request) -> Response:
        return _page(f"{rs.title}: replay", replay_page(rs.title, len(actions), "/step"))

    async def step(request: Request) -> Response:
        n = request.query_params.get("n", "0")
        if not (n.isascii() and n.isdigit() and len(n) <= _STEP_DIGITS):
            return _error("n: a step number (0 to the number of actions)")
        seat = None if request.query_params.get("all", "") in ("1", "true") else 0
        return JSONResponse(await run_in_threadpool(replay_step, rs, data["players"], data["seed"], agents, actions, seat, int(n)),
                            headers={"Cache-Control": "no-store"})

    static = Path(__file__).resolve().parent / "static"
    return Starlette(routes=[Route("/", index), Route("/step", step),
                             Mount("/static", app=StaticFiles(directory=str(static)), name="static")])


def serve_log(rs, data: dict, host: str, port: int) -> None:
    """Serve :func:`log_app` on ``host:port`` until interrupted."""
    import uvicorn

    uvicorn.run(log_app(rs, data), host=host, port=port, log_level="warning")
