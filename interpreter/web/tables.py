"""``tapster serve``: a browser table for hot-seat and networked play (Starlette + uvicorn).

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
  message when the table changes; ``POST /t/<t>/<k>/act`` with JSON ``{"action": TEXT,
  "version": N}`` (:data:`ACT_SCHEMA`) takes an action: 200 ``{"version": N}``; 409 with
  ``error`` when the action is not legal now, it is not the seat's turn, or ``version`` is
  stale (nothing changes).  ``GET /t/<t>/<k>/log`` the replay log (``tapster replay``), with
  the seed, once the game is over (403 before).
- ``GET /d/<t>/<k>`` asks to confirm; ``POST /d/<t>/<k>`` deletes the table.
- Any request with an unknown table or a token that is not a seat's gets the same 403 body
  (nothing tells a wrong token from a missing table).

Security (docs/security.md is the full account): a table's chance comes from a
secure seed (:func:`interpreter.engine.rng.secure_seed`, 256 bits, BLAKE2b counter mode) that never
leaves the server while the game runs; every request body is capped (:class:`Limits`) before it
is read, must be JSON (or the form) and is checked against a JSON Schema before use; a POST from
another site's page is refused (``Origin``); agents think in a bounded pool of worker threads,
apart from request handling, within ``max_agent_seconds`` / ``max_agent_iterations``; table
creation is limited per client; finished and idle tables expire.

Tables live in a :class:`~interpreter.web.store.TableStore` (SQLite by default): each action is
committed with the state it led to, and every table is restored when the server starts, its
agents moving on where they stopped.  Agents are seeded per decision (``agent_seed(seed, seat)``
and the action count), so a game restored after a restart goes on exactly as it would have.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import hmac
import json
import logging
import re
import secrets
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import Future
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from ..agents.core import make_agent, parse_agent
from ..agents.search import PARAMS as AGENT_PARAMS
from ..analysis.simulate import agent_seed
from ..compile.compiler import available_rulesets, load_ruleset
from ..compile.ruleset import Ruleset
from ..engine import rng as rng_mod
from ..engine.state import State
from ..errors import IllegalActionError, TapsterError
from ..loader.load import load_yaml_text
from ..views.render import view_observation
from ..views.webview import seat_html
from .store import SQLiteStore, StaleTableError, TableRecord, TableStore

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
           "CREATOR_SEED_NOTE"]

log = logging.getLogger("tapster.serve")

#: The body of every refused request (wrong, missing or foreign token; unknown table).
FORBIDDEN = "403 Forbidden: this link is not a seat at a table here."

#: What every seat's page says when the table's creator chose its seed.
CREATOR_SEED_NOTE = "Seeded by the creator: hidden cards are known to whoever knows the seed."

#: Limits on what a form may ask for.
MAX_PARAMS_TEXT = 4000
#: The longest message text echoed back (anything longer is cut, with an ellipsis).
MAX_MESSAGE = 300
MAX_SEED = 2**64 - 1

_SCALAR = {"type": ["string", "number", "boolean"], "maxLength": 200}

#: The JSON body of ``POST /api/tables`` (the form's fields are converted to the same data).
CREATE_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "a new table",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "ruleset": {"type": "string", "minLength": 1, "maxLength": 100},
        "variant": {"type": ["string", "null"], "maxLength": 200},
        "players": {"type": ["integer", "null"], "minimum": 1, "maximum": 64},
        "agents": {"oneOf": [
            {"type": "array", "maxItems": 64, "items": {"type": "string", "maxLength": 100}},
            {"type": "string", "maxLength": 2000},
        ]},
        "seed": {"type": ["integer", "null"], "minimum": 0, "maximum": MAX_SEED},
        "params": {"oneOf": [
            {"type": "object", "maxProperties": 32, "propertyNames": {"minLength": 1, "maxLength": 64},
             "additionalProperties": {"oneOf": [_SCALAR, {"type": "array", "maxItems": 64, "items": _SCALAR}]}},
            {"type": "string", "maxLength": MAX_PARAMS_TEXT},
            {"type": "null"},
        ]},
    },
}

#: The JSON body of ``POST /t/<t>/<k>/act``.
ACT_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "an action",
    "type": "object",
    "additionalProperties": False,
    "required": ["action"],
    "properties": {
        "action": {"type": "string", "minLength": 1, "maxLength": 500},
        "version": {"type": ["integer", "null"], "minimum": 0, "maximum": 2**53},
    },
}

_CREATE_CHECK = jsonschema.Draft202012Validator(CREATE_SCHEMA)
_ACT_CHECK = jsonschema.Draft202012Validator(ACT_SCHEMA)


@dataclass(frozen=True)
class Limits:
    """What one server allows each client (the ``tapster serve`` options of the same names).

    ``max_agent_seconds``: the longest an agent may think (``mcts:seconds=``); ``max_agent_iterations``:
    the most iterations it may ask for; ``agent_workers``: threads moving agents (a bounded pool
    apart from request handling); ``tables_per_client``: live tables one client address may hold;
    ``creations_per_hour``: tables one client address may create in an hour; ``max_tables``: all
    live tables; ``finished_ttl`` / ``idle_ttl``: seconds after which a finished / untouched table
    is deleted; ``max_body``: bytes of a request body; ``compiled_cache``: compiled rulesets kept
    (least recently used dropped); ``custom_rulesets``: distinct parameter settings the live tables
    may hold (each is a compiled ruleset of a few MB); ``max_connections`` / ``connections_per_client``: open
    connections in all / from one client address (more are closed at once);
    ``request_timeout``: seconds a connection may take to send a whole request.
    """

    max_agent_seconds: float = 3.0
    max_agent_iterations: int = 5000
    agent_workers: int = 2
    tables_per_client: int = 20
    creations_per_hour: int = 60
    max_tables: int = 10_000
    finished_ttl: float = 24 * 3600.0
    idle_ttl: float = 7 * 24 * 3600.0
    max_body: int = 8192
    compiled_cache: int = 32
    custom_rulesets: int = 32
    max_connections: int = 200
    connections_per_client: int = 64
    request_timeout: float = 10.0


def require_web() -> None:
    """Raise TapsterError when the optional web packages are missing."""
    if Starlette is None:
        raise TapsterError("`tapster serve` needs Starlette and uvicorn: pip install 'tapster[web]'")


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


_PATH = re.compile(r"(?<![\w.:/])(?:[A-Za-z]:\\|/)[^\s'\"]*[/\\]([^\s/\\'\"]+)")


def _say(message: object) -> str:
    """A message fit to send back: no server file-system path (a path is cut to its file's
    name) and at most :data:`MAX_MESSAGE` characters."""
    text = _PATH.sub(lambda m: m.group(1), str(message))
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "\u2026"


def _schema_error(validator, data) -> str | None:
    """The first problem of ``data`` against a request schema, short and without the data."""
    err = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if err is None:
        return None
    where = "/".join(str(x) for x in err.absolute_path) or "the body"
    expected = {"type": "of another kind", "maxLength": "too long", "minLength": "empty", "maximum": "too large",
                "minimum": "too small", "additionalProperties": "not a field here", "required": "missing a field",
                "maxItems": "too long a list", "maxProperties": "too many entries", "oneOf": "of another kind",
                "propertyNames": "a name too long or empty"}.get(err.validator, "not valid")
    kind, value = err.validator, err.validator_value
    detail = ""
    if kind == "type":
        detail = f" (expected {' or '.join(value) if isinstance(value, list) else value})"
    elif kind in ("maximum", "minimum"):
        detail = f" ({'at most' if kind == 'maximum' else 'at least'} {value})"
    elif kind == "maxLength":
        detail = f" (at most {value} characters)"
    elif kind == "required" and isinstance(value, list):
        detail = f" ({', '.join(map(str, value))})"
    elif kind == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {}))) if isinstance(err.instance, dict) else []
        detail = f" ({', '.join(repr(_say(k)[:40]) for k in extra[:3])})" if extra else ""
        where = "/".join(str(x) for x in err.absolute_path) or "the request"
    return _say(f"{where}: {expected}{detail}")


def _no_surrogates(value: Any, depth: int = 0) -> None:
    """Raise TapsterError for text that is not Unicode (a lone surrogate such as ``\\ud800``)."""
    if depth > 8:
        raise TapsterError("the request is nested too deeply")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise TapsterError("the request holds text that is not Unicode (a lone surrogate)") from None
    elif isinstance(value, dict):
        for k, v in value.items():
            _no_surrogates(k, depth + 1)
            _no_surrogates(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _no_surrogates(v, depth + 1)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def parse_json(body: bytes, validator) -> dict:
    """Decode a request body and check it against a request schema.

    Raises:
        TapsterError: not UTF-8, not JSON (``NaN``/``Infinity`` included), nested too deeply, a
            number too long, text that is not Unicode, or anything the schema refuses (a short
            message naming the field, never echoing the body).
    """
    try:
        data = json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError:
        raise TapsterError("the body is not UTF-8 text") from None
    except RecursionError:
        raise TapsterError("the JSON is nested too deeply") from None
    except ValueError as exc:
        why = "a number in it is too long" if "digits" in str(exc) else "NaN and Infinity are not numbers" \
            if "not a JSON number" in str(exc) else "it is not valid JSON"
        raise TapsterError(f"expected a JSON object: {why}") from None
    if not isinstance(data, dict):
        raise TapsterError("expected a JSON object")
    _no_surrogates(data)
    problem = _schema_error(validator, data)
    if problem:
        raise TapsterError(problem)
    return data


def _agent_within(spec: str, limits: Limits) -> str:
    """``spec`` checked as an agent within the server's effort limits; returns it stripped.

    Raises:
        TapsterError: an unknown agent or parameter, or more seconds or iterations than allowed.
    """
    name, params = parse_agent(spec)
    declared = AGENT_PARAMS.get(name, {})
    if "seconds" in declared and params.get("seconds", 0.0) > limits.max_agent_seconds:
        raise TapsterError(f"agent {name}: at most {limits.max_agent_seconds:g} seconds a move here")
    if "iterations" in declared and params.get("iterations", declared["iterations"][1]) > limits.max_agent_iterations:
        raise TapsterError(f"agent {name}: at most {limits.max_agent_iterations} iterations a move here")
    if "worlds" in declared and params.get("worlds", 1) > limits.max_agent_iterations:
        raise TapsterError(f"agent {name}: at most {limits.max_agent_iterations} worlds here")
    return spec.strip()


def restore_state(rs: Ruleset, data: dict) -> State:
    """``State.from_json`` for a served table's stored state, whose generator may be the secure one
    (:mod:`interpreter.engine.rng`; ``from_json`` itself takes only the 64-bit generator).

    Raises:
        TapsterError: the state does not fit the ruleset, or its generator state is not valid.
    """
    try:
        value = int(data["rng"])
    except (KeyError, TypeError, ValueError):
        raise TapsterError("a stored table's state has no generator state") from None
    if not rng_mod.is_state(value):
        raise TapsterError("a stored table's generator state is not valid")
    if not rng_mod.is_secure(value):
        return State.from_json(rs, data)
    st = State.from_json(rs, {**data, "rng": "0"})
    st.rng = value
    return st


class Table:
    """A live table: its stored record, ruleset, state, and what waits for its changes.

    ``lock`` guards ``state`` and ``record`` (taken by request handlers and agent workers);
    ``job`` is the agent move queued or under way (None when none); ``updated`` is the time
    (seconds since the epoch) of the last change; ``deleted`` is set when the table is deleted;
    ``failure`` holds an agent's error (the table then waits); ``retries`` counts the failed
    writes of the agent move under way.
    """

    def __init__(self, record: TableRecord, rs: Ruleset, state: State):
        self.record = record
        self.rs = rs
        self.state = state
        self.lock = threading.RLock()
        self.job: Future | None = None
        self.updated = record.updated or time.time()
        self.deleted = False
        self.failure: str | None = None
        self.retries = 0
        self._waiters: set = set()
        self._waiters_lock = threading.Lock()

    @property
    def version(self) -> int:
        return self.record.version

    @property
    def creator_seeded(self) -> bool:
        """Whether the table's creator chose its seed (a practice table)."""
        return self.record.settings.get("seeded_by") == "creator"

    def seat_of(self, token: str) -> int | None:
        """The seat whose token this is, or None (constant-time comparisons)."""
        h = _hash(token)
        seat = None
        for p, stored in enumerate(self.record.token_hashes):
            if stored is not None and hmac.compare_digest(stored, h):
                seat = p
        return seat

    def is_creator(self, token: str) -> bool:
        """Whether ``token`` is the creator's (the delete link's), compared in constant time."""
        stored = self.record.settings.get("delete_hash") or ""
        return hmac.compare_digest(stored, _hash(token)) and bool(stored)

    def names(self, me: int) -> list[str]:
        agents = self.record.settings["agents"]
        return [f"P{p + 1}" + (" (you)" if p == me else "" if a == "human" else f" ({a})") for p, a in enumerate(agents)]

    def view(self, seat: int, link: str = "") -> dict:
        """The seat's view: ``{"version", "html", "finished", "yours"}``.  ``link`` is the seat's
        page path (for the replay link of a finished game)."""
        from html import escape

        with self.lock:
            st = self.state
            obs = view_observation(st, seat)
            html = seat_html(self.rs, obs, st.visible_log(seat), self.names(seat))
            version, finished = self.version, st.finished
        if self.creator_seeded:
            html = f'<p class="warning creator-seed" role="note">{escape(CREATOR_SEED_NOTE)}</p>' + html
        if self.failure:
            html = f'<p class="error" role="alert">{escape(self.failure)}</p>' + html
        if finished:
            seed = escape(str(self.record.settings["seed"]))
            href = escape(link + "/log", quote=True) if link else "log"
            html += (f'<p class="replay">The game is over. Its seed was <code class="seed">{seed}</code>; '
                     f'<a href="{href}" download="tapster-game.json">the replay log</a> (<code>tapster replay</code>).</p>')
        return {"version": version, "html": html, "finished": finished, "yours": "decision" in obs}

    # -- waiting for changes (from any thread) --------------------------------------------------

    def notify(self) -> None:
        """Wake every stream waiting for a change (safe from any thread)."""
        with self._waiters_lock:
            waiters = list(self._waiters)
        for loop, event in waiters:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # that event loop has closed
                with self._waiters_lock:
                    self._waiters.discard((loop, event))

    async def wait_change(self, timeout: float) -> bool:
        """Wait until :meth:`notify` or ``timeout`` seconds; True when notified."""
        key = (asyncio.get_running_loop(), asyncio.Event())
        with self._waiters_lock:
            self._waiters.add(key)
        try:
            await asyncio.wait_for(key[1].wait(), timeout)
            return True
        except TimeoutError:
            return False
        finally:
            with self._waiters_lock:
                self._waiters.discard(key)


def _like(default: Any, value: Any) -> bool:
    """Whether a client's parameter ``value`` is of its default's kind: a whole number for a whole
    number, a number for a number, text, true/false, or a list whose items are all like the
    default's first item (a ruleset's declaration then checks its range)."""
    if type(default) is bool or type(value) is bool:
        return type(default) is type(value)
    if type(default) is int:
        return type(value) is int
    if type(default) is float:
        return type(value) in (int, float)
    if isinstance(default, list):
        return isinstance(value, list) and (not default or all(_like(default[0], v) for v in value))
    return type(default) is type(value)


def _rules_key(settings: dict) -> str:
    """The compiled ruleset a table's settings name: ruleset, variant and parameters as JSON."""
    return json.dumps([settings["ruleset"], settings.get("variant") or None, settings.get("params") or {}], sort_keys=True)


def client_address(address: str) -> str:
    """The client a connection's address counts as for the quotas: an IPv4 address itself, an
    IPv6 address its /64 network (one subscriber's share; anything else as given)."""
    import ipaddress

    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/64", strict=False))


class FairPool:
    """A fixed pool of worker threads that takes its jobs from one queue per client in turn
    (round robin), so one client's many tables cannot make another's wait behind all of them.

    ``workers``: the threads (named ``tapster-agent-N``, started at the first job).  :meth:`submit` returns a
    :class:`concurrent.futures.Future`; :meth:`shutdown` lets the jobs under way finish and
    cancels the queued ones.
    """

    def __init__(self, workers: int):
        self._queues: OrderedDict = OrderedDict()  # client -> deque of (future, fn, args)
        self._ready = threading.Condition()
        self._stopping = False
        self._workers = workers
        self._threads: list[threading.Thread] = []

    def submit(self, client: str, fn, *args) -> Future:
        """Queue ``fn(*args)`` behind ``client``'s earlier jobs.  Raises RuntimeError after
        :meth:`shutdown`."""
        future: Future = Future()
        with self._ready:
            if self._stopping:
                raise RuntimeError("the pool is shut down")
            self._queues.setdefault(client, deque()).append((future, fn, args))
            if not self._threads:
                self._threads = [threading.Thread(target=self._work, name=f"tapster-agent-{i}", daemon=True)
                                 for i in range(self._workers)]
                for t in self._threads:
                    t.start()
            self._ready.notify()
        return future

    def _next(self):
        with self._ready:
            while not self._stopping and not self._queues:
                self._ready.wait()
            if self._stopping:
                return None
            client, queue = next(iter(self._queues.items()))
            job = queue.popleft()
            del self._queues[client]
            if queue:
                self._queues[client] = queue  # to the back of the line
            return job

    def _work(self) -> None:
        while (job := self._next()) is not None:
            future, fn, args = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args))
            except BaseException as exc:  # noqa: BLE001 - handed to the future
                future.set_exception(exc)

    def shutdown(self) -> None:
        """Stop taking jobs: those under way finish, queued ones are cancelled."""
        with self._ready:
            self._stopping = True
            for queue in self._queues.values():
                for future, _, _ in queue:
                    future.cancel()
            self._queues.clear()
            self._ready.notify_all()
            threads = list(self._threads)
        for t in threads:
            if t is not threading.current_thread():
                t.join()


class _TooMany(TapsterError):
    """A client has reached a quota (answered 429)."""


class TableServer:
    """The tables of one server, kept in ``store`` and restored from it on creation.

    ``rulesets``: the rulesets a table may be created with (names or paths; default the shipped
    ones); ``limits``: what each client may ask for (:class:`Limits`).  On creation, every
    stored table is restored, expired ones are deleted, and the agents of a table that was
    waiting for them move on.  Raises TapsterError when a stored table no longer loads.
    """

    def __init__(self, store: TableStore, rulesets: list[str] | None = None, limits: Limits | None = None):
        self.store = store
        self.limits = limits or Limits()
        self._compiled: OrderedDict = OrderedDict()
        self._sources: dict[str, str] = {}  # the name a client uses -> what loads it (a name, or the operator's path)
        self.rulesets: list[str] = []
        for source in rulesets or available_rulesets():
            name = load_ruleset(source).name if ("/" in source or "\\" in source or source.endswith((".yaml", ".yml"))) else source
            self._sources[name] = source
            self.rulesets.append(name)
        self._compile_lock = threading.Lock()
        self._created: OrderedDict = OrderedDict()  # client -> deque of creation times
        self._tables_lock = threading.Lock()
        self.pool = FairPool(self.limits.agent_workers)
        self.tables: dict[str, Table] = {}
        for rec in store.load_all():
            rs = self.ruleset(rec.settings)
            self.tables[rec.id] = Table(rec, rs, restore_state(rs, rec.state))
        self.sweep()
        for table in list(self.tables.values()):
            self.schedule_agents(table)

    def close(self) -> None:
        """Stop the agent workers (moves under way finish) and close the store."""
        self.pool.shutdown()
        self.store.close()

    # -- rulesets -------------------------------------------------------------------------------

    def source(self, name: str) -> str:
        """What loads the ruleset clients call ``name`` (a ruleset given as a path is offered by its
        own name, so no server path reaches a client)."""
        return self._sources.get(name, name)

    def ruleset(self, settings: dict) -> Ruleset:
        """The compiled ruleset of a table's settings, from a bounded cache (least recently used
        dropped).  Raises TapsterError as ``load_ruleset`` does."""
        params = settings.get("params") or {}
        key = _rules_key(settings)
        with self._compile_lock:
            rs = self._compiled.get(key)
            if rs is not None:
                self._compiled.move_to_end(key)
                return rs
        if not isinstance(params, dict):
            raise TapsterError("params: expected NAME: VALUE pairs")
        try:
            rs = load_ruleset(self.source(settings["ruleset"]), settings.get("variant") or None, {"params": params} if params else None)
        except TapsterError as exc:
            errors = getattr(exc, "errors", None)  # a ruleset's problems: the first one says what is wrong
            if errors:
                raise TapsterError(_say(getattr(errors[0], "message", errors[0]))) from None
            raise
        with self._compile_lock:
            self._compiled[key] = rs
            while len(self._compiled) > self.limits.compiled_cache:
                self._compiled.popitem(last=False)
        return rs

    def _validated_ruleset(self, ruleset: str, variant: str | None, params: dict) -> Ruleset:
        """The ruleset a request asks for, compiled only once its name, variant and parameters
        are known to be among those offered.  Raises TapsterError."""
        if ruleset not in self.rulesets:
            raise TapsterError(f"ruleset {_say(ruleset)!r} is not offered here; rulesets: {', '.join(map(_say, self.rulesets))}")
        base = self.ruleset({"ruleset": ruleset})
        if variant:
            known = getattr(base, "variants", {}) or {}
            for part in variant.split(","):
                if part.strip() not in known:
                    raise TapsterError(f"{base.title} has no variant {_say(part.strip())!r}; variants: {', '.join(known) or 'none'}")
        rs = self.ruleset({"ruleset": ruleset, "variant": variant}) if variant else base
        for name, value in params.items():
            if name not in rs.params:
                raise TapsterError(f"{rs.title} has no parameter {_say(name)!r}; parameters: {', '.join(rs.params) or 'none'}")
            if not _like(rs.params[name], value):
                raise TapsterError(f"parameter {name} must be like its default {_say(json.dumps(rs.params[name]))}")
        return rs

    # -- tables ---------------------------------------------------------------------------------

    def _admit(self, client: str, now: float) -> None:
        """Raise _TooMany when ``client`` may not create a table now (its live tables, its
        creations in the last hour, the server's total)."""
        lim = self.limits
        if len(self.tables) >= lim.max_tables:
            raise _TooMany(f"this server holds {lim.max_tables} tables already; try again later")
        mine = sum(1 for t in self.tables.values() if t.record.settings.get("client") == client)
        if mine >= lim.tables_per_client:
            raise _TooMany(f"you have {lim.tables_per_client} tables here already (the most one client may hold); "
                           "delete one or wait until one expires")
        times = self._created.get(client)
        if times is not None:
            while times and times[0] < now - 3600:
                times.popleft()
            if len(times) >= lim.creations_per_hour:
                raise _TooMany(f"you created {lim.creations_per_hour} tables in the last hour (the most allowed); try again later")

    def _count_creation(self, client: str, now: float) -> None:
        times = self._created.pop(client, None) or deque()
        times.append(now)
        self._created[client] = times
        while len(self._created) > 10_000:
            self._created.popitem(last=False)

    def create(self, ruleset: str, variant: str | None, players: int | None, agents: list[str],
               seed: int | None = None, params: dict | None = None, client: str = "local") -> tuple[Table, dict[int, str]]:
        """A new table and the token of each human seat (seat -> token); the creator's token
        (to delete the table) is ``tokens["delete"]``.

        ``agents``: one entry per seat (``"human"`` or an agent spec; the last repeats).
        ``seed``: None for a secure seed (:func:`interpreter.engine.rng.secure_seed`); a number makes
        a practice table whose every page says its creator chose the seed.  ``client``: who
        asks (their address, for the quotas).
        Raises TapsterError: a ruleset not offered here, a bad variant, parameter, player count
        or agent, an agent beyond the limits, no human seat; _TooMany: a quota reached.
        """
        now = time.time()
        client_key = _hash(f"client:{client_address(client)}")[:32]
        params = params or {}
        with self._tables_lock:
            self._admit(client_key, now)
        rs = self._validated_ruleset(ruleset, variant or None, params)
        agents = [a.strip() for a in agents if a.strip()] or ["human"]
        agents = [a if a == "human" else _agent_within(a, self.limits) for a in agents]
        n = rs.default_players if players is None else players
        if type(n) is not int or not rs.min_players <= n <= rs.max_players:
            raise TapsterError(f"{rs.title} is for {rs.min_players} to {rs.max_players} players, not {_say(n)}")
        if len(agents) > n:
            raise TapsterError(f"{len(agents)} seats given for {n} players")
        agents = agents + [agents[-1]] * (n - len(agents))
        if "human" not in agents:
            raise TapsterError("at least one seat must be a person (human)")
        if params:
            key = _rules_key({"ruleset": ruleset, "variant": variant or None, "params": params})
            with self._tables_lock:
                custom = {_rules_key(t.record.settings) for t in self.tables.values() if t.record.settings.get("params")}
            if key not in custom and len(custom) >= self.limits.custom_rulesets:
                raise _TooMany(f"this server holds tables with {self.limits.custom_rulesets} different parameter settings already "
                               "(the most it keeps); play with the defaults or a variant, or try again later")
            rs = self.ruleset({"ruleset": ruleset, "variant": variant or None, "params": params})
        if seed is None:
            seed_value: int | str = rng_mod.secure_seed()
            seeded_by = "server"
        else:
            if type(seed) is not int or not 0 <= seed <= MAX_SEED:
                raise TapsterError("the seed is a whole number from 0 to 2**64 - 1")
            seed_value, seeded_by = seed, "creator"
        tokens: dict[Any, str] = {p: secrets.token_urlsafe(32) for p, a in enumerate(agents) if a == "human"}
        hashes = [(_hash(tokens[p]) if p in tokens else None) for p in range(n)]
        tokens["delete"] = secrets.token_urlsafe(32)
        settings: dict[str, Any] = {"ruleset": ruleset, "variant": variant or None, "params": params, "players": n,
                                    "agents": agents, "seed": seed_value, "seeded_by": seeded_by, "client": client_key,
                                    "delete_hash": _hash(tokens["delete"])}
        st = rs.new_game(n, seed=seed_value, log=True)
        tid = secrets.token_urlsafe(9)
        rec = TableRecord(tid, settings, hashes, st.to_json(), updated=now)
        with self._tables_lock:
            self._admit(client_key, now)  # again: another request may have come in meanwhile
            try:
                self.store.create(rec)
            except TapsterError:
                raise
            except Exception as exc:  # the database refused the write (locked, full, gone)
                log.warning("a new table could not be written: %s", exc)
                raise TapsterError("the table could not be saved just now; try again") from None
            self._count_creation(client_key, now)
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

    def delete(self, table: Table) -> None:
        """Delete a table: from the store, from memory; its streams end."""
        with self._tables_lock:
            self.store.delete(table.record.id)
            self.tables.pop(table.record.id, None)
        table.deleted = True
        table.notify()

    def sweep(self, now: float | None = None) -> int:
        """Delete the tables that expired: finished ``finished_ttl`` seconds ago, or untouched
        for ``idle_ttl`` seconds.  Returns how many were deleted."""
        now = time.time() if now is None else now
        gone = 0
        for table in list(self.tables.values()):
            age = now - table.updated
            if age > self.limits.idle_ttl or (table.state.finished and age > self.limits.finished_ttl):
                try:
                    self.delete(table)
                except Exception as exc:  # noqa: BLE001 - a busy database: the next sweep deletes it
                    log.warning("table %s could not be deleted yet: %s", table.record.id, exc)
                    continue
                gone += 1
        return gone

    def take(self, table: Table, seat: int, action: str, version: int | None) -> None:
        """Take ``action`` for ``seat`` and commit it with the new state (no agents).

        Raises:
            IllegalActionError: not the seat's turn, a stale ``version``, an illegal action,
                the game is over (nothing changes).
            TapsterError: the table could not be written (nothing changes).
        """
        with table.lock:
            st = table.state
            if table.deleted:
                raise IllegalActionError("this table was deleted", ())
            if st.is_terminal():
                raise IllegalActionError("the game is over: no action can be taken", ())
            if version is not None and version != table.version:
                raise IllegalActionError(f"this page was out of date (the table moved on to move {table.version}); "
                                         "the view is refreshed, choose again", ())
            if seat not in st.current_players():
                raise IllegalActionError("it is not your turn", ())
            self._commit(table, seat, action)
            self.schedule_agents(table)

    def _commit(self, table: Table, seat: int, action: Any) -> None:
        new = table.state.clone()
        new.apply(action)  # raises IllegalActionError with nothing changed
        text = str(action) if not isinstance(action, str) else str(_found(table.state, action))
        try:
            self.store.record(table.record.id, table.version, seat, text, new.to_json())
        except StaleTableError as exc:
            raise IllegalActionError(str(exc), ()) from None
        except TapsterError:
            raise
        except Exception as exc:  # the database refused the write (locked, full, gone): nothing changed
            log.warning("table %s: the move could not be written: %s", table.record.id, exc)
            raise TapsterError("the table could not be saved just now (nothing changed); try again") from None
        table.record.version += 1
        table.record.actions.append([seat, text])
        table.state = new
        table.updated = time.time()

    # -- agents ---------------------------------------------------------------------------------

    def waiting_for_agent(self, table: Table) -> bool:
        """Whether an agent is to move at ``table`` now."""
        st = table.state
        if table.deleted or table.failure or st.is_terminal():
            return False
        return table.record.settings["agents"][st.current_players()[0]] != "human"

    def schedule_agents(self, table: Table, delay: float = 0.0, wait: bool = True) -> None:
        """Queue the next agent move of ``table`` in the worker pool when an agent is to move
        and none is queued; each move queues the next, so the tables' agents take turns in the
        pool (and clients in turn: :class:`FairPool`).  ``delay`` seconds first (a retry after a failed write); ``wait=False`` gives up
        at once when the table is busy (a check from the event loop, which must not block)."""
        if delay > 0:
            timer = threading.Timer(delay, self.schedule_agents, (table,))
            timer.daemon = True
            timer.start()
            return
        if not table.lock.acquire(blocking=wait):
            return
        try:
            if table.job is not None or not self.waiting_for_agent(table):
                return
            try:
                table.job = self.pool.submit(table.record.settings.get("client", ""), self._agent_job, table)
            except RuntimeError:  # the pool is shut down: the server is stopping
                table.job = None
        finally:
            table.lock.release()

    def _agent_job(self, table: Table) -> None:
        moved, again = False, 0.0
        try:
            moved = self._agent_move(table)
            table.retries = 0
        except IllegalActionError:
            moved = True  # the table moved on meanwhile: think again
        except TapsterError as exc:
            if getattr(exc, "retry", False):  # the move could not be written: again after 0.5, 1, 2 ... 30 s
                again = min(30.0, 0.5 * 2 ** table.retries)
                table.retries += 1
            else:
                table.failure = _say(f"an agent failed: {exc.message}")
                log.warning("table %s: %s", table.record.id, table.failure)
        except Exception as exc:  # noqa: BLE001 - a worker must never die silently
            table.failure = _say(f"an agent failed: {type(exc).__name__}")
            log.exception("table %s: agent move failed", table.record.id)
        finally:
            with table.lock:  # the next move is queued before this one is seen done
                table.job = None
                if moved and not again:
                    self.schedule_agents(table)
        table.notify()
        if again:
            self.schedule_agents(table, again)

    def _agent_move(self, table: Table) -> bool:
        """One agent's move at ``table`` (thought outside the table's lock, committed under it
        when the table has not moved meanwhile).  Returns whether it moved."""
        with table.lock:
            if not self.waiting_for_agent(table):
                return False
            st = table.state.clone()
            version = table.version
            p = st.current_players()[0]
            spec = table.record.settings["agents"][p]
        seed = f"{agent_seed(table.record.settings['seed'], p)}:{version}"
        action = make_agent(spec, seed).act(st, p)
        with table.lock:
            if table.version != version or table.deleted:
                return True
            try:
                self._commit(table, p, action)
            except TapsterError as exc:
                if isinstance(exc, IllegalActionError):
                    raise
                exc.retry = True
                raise
            table.rs.check_length(table.state, table.version)
        return True

    def agents_move(self, table: Table) -> int:
        """Let the agents take their turns, here and now, until a person must decide or the game
        ends; each action is committed.  Returns the number of actions taken."""
        taken = 0
        while self._agent_move(table):
            taken += 1
        return taken

    async def settle(self, table: Table, timeout: float) -> None:
        """Wait (without holding a thread) until no agent move of ``table`` is queued or under
        way, or ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while table.job is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            await table.wait_change(min(left, 0.2))


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
            raise TapsterError(f"parameter {_say(line.strip())!r} is not NAME=VALUE (e.g. turns=5)")
        try:
            out[name.strip()] = load_yaml_text(value, f"param {name.strip()}").data
        except (ValueError, OverflowError, RecursionError) as exc:
            raise TapsterError(f"the value of {_say(name.strip())} cannot be read: {_say(exc)}") from None
    return out


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
    return JSONResponse({"error": _say(message), **extra}, status_code=status, headers={"Cache-Control": "no-store"})


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


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


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
    if default_ruleset is not None and default_ruleset not in server.rulesets:
        default_ruleset = next((n for n, src in server._sources.items() if src == default_ruleset), default_ruleset)

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
        err = f'<p class="error" role="alert">{escape(_say(error))}</p>' if error else ""
        lim = server.limits
        body = f"""<main class="create"><h1>Tapster: a new table</h1>{err}
<form method="post" action="/tables">
<label>Ruleset <select name="ruleset" id="ruleset">{''.join(opts)}</select></label>
<label>Variant <input name="variant" id="variant" placeholder="none" maxlength="200"></label>
<label>Players <input name="players" id="players" type="number" min="1" max="16" placeholder="the ruleset's"></label>
<label>Seats <input name="agents" id="agents" value="human,human" size="40" maxlength="2000"></label>
<p class="hint">One entry per seat, comma-separated: <code>human</code> for a person with a link,
or an agent (<code>random</code>, <code>first</code>, <code>mcts:iterations=200</code>...); the last one repeats.
Agents here think at most {lim.max_agent_seconds:g} seconds or {lim.max_agent_iterations} iterations a move.</p>
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
        """``data`` checked against :data:`CREATE_SCHEMA` already."""
        agents = data.get("agents") or ["human"]
        if isinstance(agents, str):
            agents = agents.split(",")
        params = data.get("params") or {}
        if isinstance(params, str):
            params = _parse_params(params)
            _no_surrogates(params)
            problem = _schema_error(_CREATE_CHECK, {"params": params})
            if problem:
                raise TapsterError(problem)
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
            raise TapsterError(f"the form has no field {_say(unknown[0])[:40]!r}")
        _no_surrogates(data)
        problem = _schema_error(_CREATE_CHECK, data)
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
        except _TooMany as exc:
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
            for p, tok in sorted((p, t) for p, t in tokens.items() if p != "delete"))
        agents = table.record.settings["agents"]
        others = "".join(f"<li>P{p + 1}: {escape(a)}</li>" for p, a in enumerate(agents) if a != "human")
        note = f'<p class="warning" role="note">{escape(CREATOR_SEED_NOTE)}</p>' if table.creator_seeded else ""
        body = (f'<main class="created"><h1>{escape(table.rs.title)}: table ready</h1>{note}<p>Give each player their own link '
                f'(it is the key to that seat: whoever has it sees that seat\'s hand and plays for it).</p><ul class="links">{links}</ul>'
                + (f"<p>Agents:</p><ul>{others}</ul>" if others else "")
                + f'<p>Keep this link to delete the table: <a class="delete-link" href="/d/{tid}/{tokens["delete"]}">'
                  f'{escape(base)}/d/{tid}/{tokens["delete"]}</a> (finished tables are deleted after '
                  f'{server.limits.finished_ttl / 3600:g} hours, untouched ones after {server.limits.idle_ttl / 3600:g}).</p></main>')
        return _page("Tapster: table ready", body)

    async def create_api(request: Request) -> Response:
        if _media_type(request) != "application/json":
            return _error("the body must be JSON (Content-Type: application/json)", 415)
        try:
            data = parse_json(await request.body(), _CREATE_CHECK)
            table, tokens = await _created(data, _client(request))
        except _TooMany as exc:
            return _error(exc.message, 429)
        except TapsterError as exc:
            return _error(exc.message)
        tid = table.record.id
        return JSONResponse({"table": tid, "seats": {str(p): f"/t/{tid}/{tok}" for p, tok in sorted(
                                (p, t) for p, t in tokens.items() if p != "delete")},
                             "delete": f"/d/{tid}/{tokens['delete']}", "creator_seeded": table.creator_seeded},
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

        async def stream():
            last = -1
            yield "retry: 1000\n\n"  # after a restart, pages reconnect within a second
            while not table.deleted:
                if table.version != last:
                    last = table.version
                    yield f"data: {last}\n\n"
                if not await table.wait_change(15):
                    yield ": keep-alive\n\n"
            yield "event: deleted\ndata: deleted\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def act(request: Request) -> Response:
        found = _seat(request)
        if found is None:
            return _forbidden()
        table, seat = found
        if _media_type(request) != "application/json":
            return _error("the body must be JSON (Content-Type: application/json)", 415)
        try:
            data = parse_json(await request.body(), _ACT_CHECK)
        except TapsterError as exc:
            return _error(f'{exc.message}; expected {{"action": TEXT, "version": N}}')
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
            _hash(request.path_params["token"])
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
        Route("/t/{rest:path}", refuse, methods=["GET", "POST"]),  # a link without a token, or malformed
        Route("/t", refuse, methods=["GET", "POST"]),
        Route("/d/{rest:path}", refuse, methods=["GET", "POST"]),
        Mount("/static", app=StaticFiles(directory=str(static)), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
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


def guarded_protocol(max_connections: int, request_timeout: float, per_client: int | None = None):
    """uvicorn's h11 protocol class with the guards uvicorn lacks: a connection beyond
    ``max_connections`` open ones, or beyond ``per_client`` from one client address, is closed
    at once, and one that has not sent a whole request
    (headers and body) ``request_timeout`` seconds after it opened or after its last response
    is closed (a half-open connection cannot hold a slot for long)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        def connection_made(self, transport):
            super().connection_made(transport)
            self._deadline = None
            host = self.client[0] if self.client else None
            live = [c for c in self.connections if not c.transport.is_closing()]  # those refused are gone already
            if len(live) > max_connections or (per_client and sum(1 for c in live if c.client and c.client[0] == host) > per_client):
                transport.close()
                return
            self._arm()

        def _arm(self):
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self.loop.call_later(request_timeout, self._expire)

        def _expire(self):
            cycle = self.cycle
            waiting = cycle is None or cycle.response_complete or (cycle.more_body and not cycle.response_started)
            if waiting and not self.transport.is_closing():
                try:
                    self.conn.send(h11.ConnectionClosed())
                except h11.LocalProtocolError:
                    pass
                self.transport.close()

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
                    http=guarded_protocol(limits.max_connections, limits.request_timeout, limits.connections_per_client),
                    limit_concurrency=limits.max_connections, timeout_keep_alive=5, h11_max_incomplete_event_size=16 * 1024,
                    backlog=256, proxy_headers=bool(proxies), forwarded_allow_ips=list(proxies) or None)
    finally:
        server.close()
