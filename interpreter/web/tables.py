"""The browser table's live tables: :class:`Table` (one table's stored record, compiled ruleset,
state, and the streams waiting for its changes) and :class:`TableServer` (all of one server's
tables): create a table (quotas, the ruleset, variant and parameters offered, a secure seed, one
unguessable token per human seat and one to delete it), restore every stored table when the
server starts, expire finished and idle ones, delete one, commit a seat's action, and let the
agents take their turns in the fair worker pool (:class:`interpreter.web.guards.FairPool`).
Nothing here knows HTTP: the routes over these tables are in :mod:`interpreter.web.server`.

Shapes: a table's ``record.settings`` is ``{"ruleset", "variant", "params", "players", "agents"
(one spec a seat, "human" for a person), "seed", "seeded_by" ("server" or "creator"), "client"
(a hash of the creator's address), "delete_hash"}``; :meth:`TableServer.create` returns the table
and its tokens ``{seat: token, "delete": token}`` (only their SHA-256 is kept);
:meth:`Table.view` returns ``{"version", "html", "finished", "yours"}`` built from the seat's
observation only.

Tables live in a :class:`~interpreter.web.store.TableStore` (SQLite by default): each action is
committed with the state it led to, and every table is restored when the server starts, its
agents moving on where they stopped.  Agents are seeded per decision (``agent_seed(seed, seat)``
and the action count), so a game restored after a restart goes on exactly as it would have.

Errors: :class:`~interpreter.errors.TapsterError` for a request that cannot be met (a ruleset,
variant, parameter, player count or agent not offered; a table the store could not write, marked
``retry`` for an agent's move) and for a stored table that no longer loads; ``TooMany`` (a
TapsterError, answered 429) for a quota reached; :class:`~interpreter.errors.IllegalActionError`
for an action that is not legal now, not the seat's turn, or sent from a stale page.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import Future
from typing import Any

from ..agents.core import make_agent
from ..analysis.simulate import agent_seed
from ..compile.compiler import available_rulesets, find_ruleset, load_ruleset
from ..compile.ruleset import Ruleset
from ..engine import rng as rng_mod
from ..engine.state import State
from ..errors import IllegalActionError, TapsterError
from ..loader.load import load_yaml
from ..loader.params import variant_chain
from ..views.render import view_observation
from ..views.spectator import public_log, public_observation
from ..views.takeback import news_since
from ..views.webview import seat_html
from .guards import (
    MAX_SEED,
    FairPool,
    Limits,
    RefusalBudget,
    agent_within,
    client_address,
    fit_message,
    lower_agent,
    network_address,
    token_hash,
)
from .store import StaleTableError, TableRecord, TableStore

__all__ = ["Table", "TableServer", "TooMany", "restore_state", "CREATOR_SEED_NOTE", "WEAK_SEED_NOTE"]

log = logging.getLogger("tapster.serve")

#: What every seat's page says when the table's creator chose its seed.
CREATOR_SEED_NOTE = "Seeded by the creator: hidden cards are known to whoever knows the seed."
#: What every seat's page says at a table made before the secure generator (a 64-bit seed).
WEAK_SEED_NOTE = ("This table was made before the secure seed: its hidden cards are not protected by a secure seed "
                  "(a 64-bit seed can be searched). Start a new table for a game that matters.")


def restore_state(rs: Ruleset, data: dict) -> State:
    """``State.from_json`` for a served table's stored state (whose generator is the secure one,
    :mod:`interpreter.engine.rng`, unless its creator chose the seed).

    Raises:
        TapsterError: the state does not fit the ruleset, or its generator state is not valid.
    """
    return State.from_json(rs, data)


def replay_table(rs: Ruleset, rec: TableRecord) -> State:
    """The game of the stored table ``rec`` played again in ``rs``: a new game with the table's
    seat count and seed, then every action it records, each by the seat that took it.

    Raises:
        TapsterError: an action is not legal in the replay, or not the recording seat's to take.
    """
    st = rs.new_game(rec.settings["players"], seed=rec.settings["seed"], log=True)
    for k, (seat, text) in enumerate(rec.actions, 1):
        if st.is_terminal() or seat not in st.current_players():
            raise TapsterError(f"action {k} ({text}) was taken by seat {seat}, who is not to move in the replay")
        try:
            st.apply(text)
        except TapsterError as exc:
            raise TapsterError(f"action {k} ({text}) does not replay: {exc}") from None
    return st


def _restored(rs: Ruleset, rec: TableRecord) -> State:
    """A stored table's game: its saved state, or when that no longer loads (its ruleset was
    edited since: :func:`interpreter.engine.saved.layout`), its actions replayed in the ruleset
    as it is now (:func:`replay_table`; the same seed and decisions, under the new rules).

    Raises:
        TapsterError: neither works (naming the table and both reasons).
    """
    try:
        return restore_state(rs, rec.state)
    except TapsterError as exc:
        try:
            st = replay_table(rs, rec)
        except TapsterError as again:
            raise TapsterError(f"stored table {rec.id}: its saved state does not load ({exc}), "
                               f"and its {len(rec.actions)} actions do not replay ({again})") from None
        log.warning("table %s: its saved state does not load (%s); its %d actions were replayed", rec.id, exc, len(rec.actions))
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
        #: A take-back waiting for the other people's agreement: {"seat", "keep", "why", "agreed": set,
        #: "version"} (dropped when the table moves on).
        self.request: dict | None = None
        self.takebacks: list[str] = []  # who took back what, the last ones (shown on every page)
        #: The moves of the last take-back, for redo while nothing else is played: {"seat", "actions", "version"}.
        self.redo: dict | None = None

    @property
    def version(self) -> int:
        """The table's revision, what pages follow: every action and every action taken back
        counts, so it only grows (``record.version`` is the number of actions taken)."""
        return self.record.version + self.record.undone

    @property
    def creator_seeded(self) -> bool:
        """Whether the table's creator chose its seed (a practice table)."""
        return self.record.settings.get("seeded_by") == "creator"

    @property
    def weak_seed(self) -> bool:
        """Whether the server seeded the table before the secure generator (a 64-bit seed, not
        a ``blake2b:`` one): its hidden cards are not protected by a secure seed."""
        seed = self.record.settings.get("seed")
        return not self.creator_seeded and not (isinstance(seed, str) and seed.startswith("blake2b:"))

    def seat_of(self, token: str) -> int | None:
        """The seat whose token this is, or None (constant-time comparisons)."""
        h = token_hash(token)
        seat = None
        for p, stored in enumerate(self.record.token_hashes):
            if stored is not None and hmac.compare_digest(stored, h):
                seat = p
        return seat

    def is_creator(self, token: str) -> bool:
        """Whether ``token`` is the creator's (the delete link's), compared in constant time."""
        stored = self.record.settings.get("delete_hash") or ""
        return hmac.compare_digest(stored, token_hash(token)) and bool(stored)

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
            html = self._takeback_html(seat) + html
        if self.creator_seeded:
            html = f'<p class="warning creator-seed" role="note">{escape(CREATOR_SEED_NOTE)}</p>' + html
        elif self.weak_seed:
            html = f'<p class="warning weak-seed" role="note">{escape(WEAK_SEED_NOTE)}</p>' + html
        lowered = self.record.settings.get("lowered")
        if lowered:
            html = f'<p class="warning lowered" role="note">{escape(fit_message(lowered))}</p>' + html
        if self.failure:
            html = f'<p class="error" role="alert">{escape(self.failure)}</p>' + html
        if finished:
            seed = escape(str(self.record.settings["seed"]))
            href = escape(link + "/log", quote=True) if link else "log"
            replay = escape(link + "/replay", quote=True) if link else "replay"
            html += (f'<p class="replay">The game is over. Its seed was <code class="seed">{seed}</code>; '
                     f'<a href="{href}" download="tapster-game.json">the replay log</a> (<code>tapster replay</code>); '
                     f'<a class="replay-link" href="{replay}">step through the game</a>.</p>')
        return {"version": version, "html": html, "finished": finished, "yours": "decision" in obs}

    def _takeback_html(self, seat: int) -> str:
        """The take-back control of ``seat``'s page (under the lock): a request waiting for this
        seat's agreement, one of its own waiting for others, or the button to ask."""
        from html import escape

        req = self.request
        said = "".join(f'<li>{escape(t)}</li>' for t in self.takebacks[-3:])
        said = f'<ul class="takebacks">{said}</ul>' if said else ""
        if self.state.finished:
            return said
        if req is not None and req["version"] == self.version:
            asker = f"P{req['seat'] + 1}"
            if req["seat"] == seat:
                waiting = ", ".join(f"P{p + 1}" for p in self.people() if p != seat and p not in req["agreed"])
                return said + (f'<p class="takeback-request mine" role="status">You asked to take back your last move '
                               f'({escape(req["why"])}); waiting for {escape(waiting)} to agree.</p>')
            if seat in req["agreed"]:
                return said + f'<p class="takeback-request" role="status">You agreed that {asker} takes back their last move.</p>'
            why = req["why"].replace("you had not seen", f"{asker} had not seen").replace("told you", f"told {asker}")
            return said + (f'<div class="takeback-request" role="alert">{asker} asks to take back their last move '
                           f'({escape(why)}). <button type="button" class="takeback-agree">Agree</button> '
                           f'<button type="button" class="takeback-refuse">Refuse</button></div>')
        again = ""
        if self.redo is not None and self.redo["seat"] == seat and self.redo["version"] == self.version:
            again = '<button type="button" class="takeback-redo">Take it again</button>'
        if any(s == seat for s, _ in self.record.actions):
            return said + f'<p class="takeback"><button type="button" class="takeback-ask">Take back my last move</button> {again}</p>'
        return said + (f'<p class="takeback">{again}</p>' if again else "")

    def people(self) -> list[int]:
        """The seats people play (not agents)."""
        return [p for p, a in enumerate(self.record.settings["agents"]) if a == "human"]

    def spectator_view(self) -> dict:
        """What a spectator sees: ``{"version", "html", "finished"}`` from public information only
        (:func:`~interpreter.views.spectator.public_observation`, the public lines of the account);
        the seed only once the game is over."""
        from html import escape

        with self.lock:
            st = self.state
            obs = public_observation(st)
            names = [f"P{p + 1}" + ("" if a == "human" else f" ({a})") for p, a in enumerate(self.record.settings["agents"])]
            html = seat_html(self.rs, obs, public_log(st), names)
            version, finished = self.version, st.finished
        if finished:
            seed = escape(str(self.record.settings["seed"]))
            html += f'<p class="replay">The game is over. Its seed was <code class="seed">{seed}</code>.</p>'
        return {"version": version, "html": html, "finished": finished, "yours": False}

    def replay_step(self, seat: int | None, step: int) -> dict:
        """The finished game after its first ``step`` actions as ``seat`` saw it (None: everything):
        ``{"step", "total", "html", "marks"}``; ``marks``: the step at which each turn began, as
        ``[step, "P2's turn 3"]``.  Only once the game is over (the caller checks).

        Raises:
            TapsterError: the game is not over.
        """
        with self.lock:
            if not self.state.finished:
                raise TapsterError("the replay is given once the game is over")
            actions = [a for _, a in self.record.actions]
            settings = self.record.settings
        return replay_step(self.rs, settings["players"], settings["seed"], settings["agents"], actions, seat, step)

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


class TooMany(TapsterError):
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
        self.refusals = RefusalBudget(self.limits.refusal_seconds)
        self.tables: dict[str, Table] = {}
        for rec in store.load_all():
            rs = self.ruleset(rec.settings)
            self._within_limits(rec)
            self.tables[rec.id] = Table(rec, rs, _restored(rs, rec))
        self.sweep()
        for table in list(self.tables.values()):
            self.schedule_agents(table)

    def _within_limits(self, rec: TableRecord) -> None:
        """Bring a stored table's agents within today's limits (:func:`lower_agent`): the lowered
        specs and a note naming them (shown on the table's pages) are written back to the store
        when it can (``update_settings``), else kept for this run."""
        agents = rec.settings.get("agents") or []
        lowered = [a if a == "human" else lower_agent(a, self.limits) for a in agents]
        if lowered == agents:
            return
        changed = [f"P{p + 1} {old} -> {new}" for p, (old, new) in enumerate(zip(agents, lowered)) if old != new]
        note = ("This server's limits are lower than when the table was made: its agents think less now ("
                + "; ".join(changed) + f"; at most {self.limits.max_agent_seconds:g} s a move).")
        rec.settings = {**rec.settings, "agents": lowered, "lowered": note}
        log.warning("table %s: agents lowered to today's limits: %s", rec.id, "; ".join(changed))
        update = getattr(self.store, "update_settings", None)
        if update is not None:
            try:
                update(rec.id, rec.settings)
            except Exception as exc:  # noqa: BLE001 - lowered again at the next start
                log.warning("table %s: the lowered agents could not be written: %s", rec.id, exc)

    def close(self) -> None:
        """Stop the agent workers (moves under way finish) and close the store."""
        self.pool.shutdown()
        self.store.close()

    # -- rulesets -------------------------------------------------------------------------------

    def source(self, name: str) -> str:
        """What loads the ruleset clients call ``name`` (a ruleset given as a path is offered by its
        own name, so no server path reaches a client)."""
        return self._sources.get(name, name)

    def name_for(self, source: str) -> str:
        """The name clients use for ``source`` (a ruleset name or the operator's path), or
        ``source`` itself when none is offered under a name."""
        return next((n for n, src in self._sources.items() if src == source), source)

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
                raise TapsterError(fit_message(getattr(errors[0], "message", errors[0]))) from None
            raise
        with self._compile_lock:
            self._compiled[key] = rs
            while len(self._compiled) > self.limits.compiled_cache:
                self._compiled.popitem(last=False)
        return rs

    def _declared_players(self, ruleset: str, base: Ruleset, variant: str | None) -> tuple[int, int, int]:
        """(min, max, default) players of ``ruleset`` with ``variant`` overlaid, read from the
        ruleset's declarations (its YAML, read once and cached), nothing compiled; when those
        cannot be read as numbers (the variant's own compile then says why), the compiled
        variant's.  Raises TapsterError."""
        if not variant:
            return base.min_players, base.max_players, base.default_players
        data = load_yaml(find_ruleset(self.source(ruleset))).data
        players = dict(data.get("players") or {}) if isinstance(data.get("players"), dict) else {}
        variants = data.get("variants") or {}
        try:
            chain = variant_chain(variants, [v.strip() for v in variant.split(",")])
        except ValueError as exc:
            raise TapsterError(fit_message(exc)) from None
        for name in chain:
            over = (variants[name] or {}).get("players") if isinstance(variants[name] or {}, dict) else None
            if isinstance(over, dict):
                players.update(over)
        try:
            low = int(players.get("min", base.min_players))
            high = int(players.get("max", low))
            return low, high, int(players.get("default", low))
        except (TypeError, ValueError):
            rs = self.ruleset({"ruleset": ruleset, "variant": variant})
            return rs.min_players, rs.max_players, rs.default_players

    def _validated_ruleset(self, ruleset: str, variant: str | None, params: dict,
                           players: int | None = None) -> tuple[Ruleset, int]:
        """The base ruleset a request asks for and its player count, once the ruleset's name, the
        variant, the player count and the parameters are known to be among those declared (only the
        base ruleset is compiled, once, and kept).  Raises TapsterError."""
        if ruleset not in self.rulesets:
            offered = ", ".join(map(fit_message, self.rulesets))
            raise TapsterError(f"ruleset {fit_message(ruleset)!r} is not offered here; rulesets: {offered}")
        base = self.ruleset({"ruleset": ruleset})
        if variant:
            known = getattr(base, "variants", {}) or {}
            for part in variant.split(","):
                if part.strip() not in known:
                    raise TapsterError(f"{base.title} has no variant {fit_message(part.strip())!r}; variants: {', '.join(known) or 'none'}")
        low, high, default = self._declared_players(ruleset, base, variant)
        n = default if players is None else players
        if type(n) is not int or not low <= n <= high:
            raise TapsterError(f"{base.title} is for {low} to {high} players, not {fit_message(n)}")
        for name, value in params.items():
            if name not in base.params:
                raise TapsterError(f"{base.title} has no parameter {fit_message(name)!r}; parameters: {', '.join(base.params) or 'none'}")
            if not _like(base.params[name], value):
                raise TapsterError(f"parameter {name} must be like its default {fit_message(json.dumps(base.params[name]))}")
        return base, n

    # -- tables ---------------------------------------------------------------------------------

    def _admit(self, client: str, now: float, network: str | None = None) -> None:
        """Raise TooMany when ``client`` may not create a table now (its live tables, its
        network's, its creations and refused requests in the last hour, the server's total)."""
        lim = self.limits
        if len(self.tables) >= lim.max_tables:
            raise TooMany(f"this server holds {lim.max_tables} tables already (its cap; one network may hold "
                          f"{lim.tables_per_network}, one client {lim.tables_per_client}); try again later")
        mine = sum(1 for t in self.tables.values() if t.record.settings.get("client") == client)
        if mine >= lim.tables_per_client:
            raise TooMany(f"you have {lim.tables_per_client} tables here already (the most one client may hold); "
                           "delete one or wait until one expires")
        if network is not None:
            ours = sum(1 for t in self.tables.values() if t.record.settings.get("network") == network)
            if ours >= lim.tables_per_network:
                raise TooMany(f"your network holds {lim.tables_per_network} tables here already (the share of the server's "
                              f"{lim.max_tables} that one network, an IPv4 /24 or IPv6 /48, may hold); try again later")
        if self.refusals.over(client, now):
            raise TooMany(f"your refused requests used this server's CPU for {lim.refusal_seconds:g} s in the last hour "
                          "(the most one client's may); check the settings and try again later")
        times = self._created.get(client)
        if times is not None:
            while times and times[0] < now - 3600:
                times.popleft()
            if len(times) >= lim.creations_per_hour:
                raise TooMany(f"you asked for {lim.creations_per_hour} tables in the last hour, created or refused "
                              "(the most allowed); try again later")

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
        Every refusal (TapsterError) counts as a creation in the client's hourly quota and charges
        the CPU it took to the client's refusal budget (:class:`~interpreter.web.guards.RefusalBudget`);
        a configuration refused once is refused again from memory, without the work.

        Raises TapsterError: a ruleset not offered here, a bad variant, parameter, player count
        or agent, an agent beyond the limits, no human seat, a setup that cannot run; TooMany: a
        quota reached (the client's tables, its network's, its creations or refusals in the
        last hour, the server's tables, the parameter settings kept).
        """
        now = time.time()
        client_key = token_hash(f"client:{client_address(client)}")[:32]
        network_key = token_hash(f"network:{network_address(client)}")[:32]
        params = params or {}
        if variant:
            variant = ",".join(dict.fromkeys(v.strip() for v in variant.split(",")))  # one spelling of each variant list
        with self._tables_lock:
            self._admit(client_key, now, network_key)
        key = token_hash(json.dumps([ruleset, variant or None, players, agents, params, seed], sort_keys=True, default=str))
        known = self.refusals.answer(key)
        if known is not None:  # refused before: the same answer, none of the work
            self.refusals.charge(client_key, now, 0.0)
            with self._tables_lock:
                self._count_creation(client_key, now)
            raise TapsterError(known)
        started = time.thread_time()
        try:
            rs, n, agents = self._checked(ruleset, variant, players, agents, params)
            if params:
                rs_key = _rules_key({"ruleset": ruleset, "variant": variant or None, "params": params})
                with self._tables_lock:
                    custom = {_rules_key(t.record.settings) for t in self.tables.values() if t.record.settings.get("params")}
                if rs_key not in custom and len(custom) >= self.limits.custom_rulesets:
                    raise TooMany(f"this server holds tables with {self.limits.custom_rulesets} different parameter settings already "
                                  "(the most it keeps); play with the defaults or a variant, or try again later")
            if params or variant:
                rs = self.ruleset({"ruleset": ruleset, "variant": variant or None, "params": params})
            if seed is not None and (type(seed) is not int or not 0 <= seed <= MAX_SEED):
                raise TapsterError("the seed is a whole number from 0 to 2**64 - 1")
            seed_value: int | str = rng_mod.secure_seed() if seed is None else seed
            st = rs.new_game(n, seed=seed_value, log=True)
        except TooMany:
            raise
        except TapsterError as exc:  # a refusal: counted against the client, and remembered
            self.refusals.charge(client_key, now, time.thread_time() - started)
            self.refusals.remember(key, exc.message)
            with self._tables_lock:
                self._count_creation(client_key, now)
            raise
        seeded_by = "server" if seed is None else "creator"
        tokens: dict[Any, str] = {p: secrets.token_urlsafe(32) for p, a in enumerate(agents) if a == "human"}
        hashes = [(token_hash(tokens[p]) if p in tokens else None) for p in range(n)]
        tokens["delete"] = secrets.token_urlsafe(32)
        tokens["spectate"] = secrets.token_urlsafe(32)
        settings: dict[str, Any] = {"ruleset": ruleset, "variant": variant or None, "params": params, "players": n,
                                    "agents": agents, "seed": seed_value, "seeded_by": seeded_by, "client": client_key,
                                    "network": network_key, "delete_hash": token_hash(tokens["delete"]),
                                    "spectate_hash": token_hash(tokens["spectate"])}
        tid = secrets.token_urlsafe(9)
        rec = TableRecord(tid, settings, hashes, st.to_json(), updated=now)
        with self._tables_lock:
            self._admit(client_key, now, network_key)  # again: another request may have come in meanwhile
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

    def admit(self, client: str) -> None:
        """Raise TooMany when ``client`` (its address) may not ask for a table now (see
        :meth:`create`'s quotas), before any of its request is read."""
        with self._tables_lock:
            self._admit(token_hash(f"client:{client_address(client)}")[:32], time.time(),
                        token_hash(f"network:{network_address(client)}")[:32])

    def refused(self, client: str, cpu: float) -> None:
        """Count a table request of ``client`` (its address) refused before it reached
        :meth:`create` (a body or parameters that could not be read), which took ``cpu`` seconds:
        against its hourly creations and its refusals' CPU, as :meth:`create` counts its own."""
        now = time.time()
        key = token_hash(f"client:{client_address(client)}")[:32]
        self.refusals.charge(key, now, cpu)
        with self._tables_lock:
            self._count_creation(key, now)

    def _checked(self, ruleset: str, variant: str | None, players: int | None, agents: list[str],
                 params: dict) -> tuple[Ruleset, int, list[str]]:
        """A request's base ruleset, player count and agents (one a seat), checked against the
        limits and the ruleset's declarations before any variant or parameter is compiled.
        Raises TapsterError."""
        agents = [a.strip() for a in agents if a.strip()] or ["human"]
        agents = [a if a == "human" else agent_within(a, self.limits) for a in agents]
        if "human" not in agents:
            raise TapsterError("at least one seat must be a person (human)")
        rs, n = self._validated_ruleset(ruleset, variant or None, params, players)
        if len(agents) > n:
            raise TapsterError(f"{len(agents)} seats given for {n} players")
        return rs, n, agents + [agents[-1]] * (n - len(agents))

    def find(self, tid: str, token: str) -> tuple[Table, int] | None:
        """The table and seat of a link, or None for any unknown table or token."""
        table = self.tables.get(tid)
        if table is None:
            token_hash(token)  # the same work as a known table
            return None
        seat = table.seat_of(token)
        return None if seat is None else (table, seat)

    def find_spectator(self, tid: str, token: str) -> Table | None:
        """The table a spectator link opens, or None for any unknown table or token."""
        table = self.tables.get(tid)
        stored = table.record.settings.get("spectate_hash") if table is not None else None
        h = token_hash(token)
        return table if stored and hmac.compare_digest(stored, h) else None

    def take_back(self, table: Table, seat: int, answer: str) -> dict:
        """A person's take-back: ``answer`` ``"ask"`` (take back ``seat``'s last move, with the
        agents' moves after it), ``"agree"`` or ``"refuse"`` (another person's answer to a
        request waiting for agreement), ``"redo"`` (take again what ``seat`` last took back,
        while nothing else was played: the same moves, committed again).  Free while nothing ``seat`` did not know has been
        shown to it since and no other person has moved since
        (:func:`~interpreter.views.takeback.news_since`); otherwise every other person at the
        table must agree.  The table returns to a state it has been in (replayed from its seed),
        so nobody is shown a card they had not seen.  Returns ``{"done": bool, "version",
        "waiting_for": [seats]}``.

        Raises:
            IllegalActionError: nothing to take back, no request to answer, the game is over.
            TapsterError: the table could not be written (nothing changes).
        """
        with table.lock:
            st = table.state
            if table.deleted:
                raise IllegalActionError("this table was deleted", ())
            if st.is_terminal():
                raise IllegalActionError("the game is over: nothing can be taken back", ())
            req = table.request if table.request is not None and table.request["version"] == table.version else None
            if answer == "redo":
                again = table.redo
                if again is None or again["seat"] != seat or again["version"] != table.version:
                    raise IllegalActionError("nothing to take again: nothing was taken back since the last move", ())
                for who, text in again["actions"]:  # the same moves, agents' included, as they were taken
                    self._commit(table, who, text)
                table.takebacks = [*table.takebacks, f"P{seat + 1} took it again"][-20:]
                return {"done": True, "version": table.version, "waiting_for": []}
            if answer in ("agree", "refuse"):
                if req is None or req["seat"] == seat:
                    raise IllegalActionError("no take-back is waiting for your answer", ())
                if answer == "refuse":
                    table.request = None
                    table.updated = time.time()
                    self._bump(table, seat)
                    return {"done": False, "refused": True, "version": table.version, "waiting_for": []}
                req["agreed"].add(seat)
                waiting = [p for p in table.people() if p != req["seat"] and p not in req["agreed"]]
                if waiting:
                    self._bump(table, seat)
                    return {"done": False, "version": table.version, "waiting_for": waiting}
                self._rewind(table, req["seat"], req["keep"])
                return {"done": True, "version": table.version, "waiting_for": []}
            acts = table.record.actions
            mine = [k for k, (s, _) in enumerate(acts) if s == seat]
            if not mine:
                raise IllegalActionError("you have no move to take back", ())
            keep = mine[-1]
            before = replay_table(table.rs, _prefix(table.record, keep))
            after = [a for _, a in acts[keep:]]
            others = sorted({s for s, _ in acts[keep + 1:] if s != seat and table.record.settings["agents"][s] == "human"})
            why = (f"P{others[0] + 1} has moved since" if others else news_since(before, after, st, seat))
            if why is None or (len(table.people()) == 1 and table.creator_seeded):  # free, or a practice table
                self._rewind(table, seat, keep, before)
                return {"done": True, "version": table.version, "waiting_for": []}
            if len(table.people()) == 1:
                raise IllegalActionError(f"you cannot take back your last move: {why} (nobody else at the table to agree)", ())
            if req is not None and req["seat"] != seat:
                raise IllegalActionError(f"P{req['seat'] + 1} has asked for a take-back already: answer it first", ())
            table.request = {"seat": seat, "keep": keep, "why": why, "agreed": set(), "version": table.version + 1}
            self._bump(table, seat)
            waiting = [p for p in table.people() if p != seat]
            return {"done": False, "version": table.version, "waiting_for": waiting}

    def _bump(self, table: Table, seat: int) -> None:
        """A change the pages must show that is not a move (a take-back asked or answered): the
        revision grows by one (stored; the request itself is dropped on a restart)."""
        try:
            self.store.note(table.record.id, seat)
        except Exception as exc:  # noqa: BLE001 - the revision still grows in memory
            log.warning("table %s: a take-back request could not be noted: %s", table.record.id, exc)
        table.record.undone += 1
        if table.request is not None:
            table.request["version"] = table.version

    def _rewind(self, table: Table, seat: int, keep: int, state: State | None = None) -> None:
        st = state if state is not None else replay_table(table.rs, _prefix(table.record, keep))
        undone = table.record.version - keep
        try:
            self.store.rewind(table.record.id, table.record.version, keep, seat, st.to_json())
        except StaleTableError as exc:
            raise IllegalActionError(str(exc), ()) from None
        except TapsterError:
            raise
        except Exception as exc:  # the database refused the write: nothing changed
            log.warning("table %s: the take-back could not be written: %s", table.record.id, exc)
            raise TapsterError("the table could not be saved just now (nothing changed); try again") from None
        taken = table.record.actions[keep][1]
        removed = [list(a) for a in table.record.actions[keep:]]
        decision = st.decision()
        found = decision.find(taken) if decision is not None else None
        if found is not None and decision.labels:
            taken = decision.labels[decision.actions.index(found)]  # the seat's own move, in words
        del table.record.actions[keep:]
        table.record.version = keep
        table.record.undone += 2 * undone + 1  # the revision grows (as the store counts it)
        table.request = None
        table.state = st
        table.redo = {"seat": seat, "actions": removed, "version": table.version}
        table.takebacks = [*table.takebacks, f"P{seat + 1} took back {taken}"
                           + (f" and {undone - 1} move{'s' * (undone > 2)} after it" if undone > 1 else "")][-20:]
        table.updated = time.time()

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
            self.store.record(table.record.id, table.record.version, seat, text, new.to_json())
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
        table.request = None  # the table moved on: a take-back waiting for agreement is dropped
        table.redo = None  # and what was taken back cannot be taken again
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
                table.failure = fit_message(f"an agent failed: {exc.message}")
                log.warning("table %s: %s", table.record.id, table.failure)
        except Exception as exc:  # noqa: BLE001 - a worker must never die silently
            table.failure = fit_message(f"an agent failed: {type(exc).__name__}")
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
        when the table has not moved meanwhile), a search cut at ``max_agent_seconds`` (its
        best action so far).  Returns whether it moved."""
        with table.lock:
            if not self.waiting_for_agent(table):
                return False
            st = table.state.clone()
            version = table.version
            moves = table.record.version
            p = st.current_players()[0]
            spec = table.record.settings["agents"][p]
        seed = f"{agent_seed(table.record.settings['seed'], p)}:{moves}"  # a take-back replays the same moves
        agent = make_agent(spec, seed)
        limit = getattr(agent, "limit_time", None)
        if limit is not None:  # a search: its move ends by the deadline, whatever its iterations
            limit(self.limits.max_agent_seconds)
        action = agent.act(st, p)
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
            table.rs.check_length(table.state, table.record.version)
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


def replay_step(rs: Ruleset, players: int, seed: Any, agents: list[str], actions: list[str], seat: int | None,
                step: int) -> dict:
    """A finished game (``actions`` from ``seed``) after its first ``step`` actions, as ``seat``
    saw it (None: everything): ``{"step", "total", "html", "marks"}``, ``marks`` the step at which
    each turn began (``[step, "P2's turn 3"]``).  For the replay viewer of a finished table and of
    ``tapster replay LOG --serve``; never for a game under way (the callers check).

    Raises:
        TapsterError: an action does not replay.
    """
    total = len(actions)
    step = max(0, min(step, total))
    st = rs.new_game(players, seed=seed, log=True)
    marks: list = [[0, "the start"]]
    last = None
    shown = st.clone() if step == 0 else None
    for i, text in enumerate(actions):
        st.apply(text)
        if i + 1 == step:
            shown = st.clone()
        turn = (st.current, st.turns[st.current]) if not st.finished else None
        if turn is not None and turn != last and turn[1]:
            marks.append([i + 1, f"P{turn[0] + 1}'s turn {turn[1]}"])
            last = turn
    names = [f"P{p + 1}" + (" (you)" if p == seat else "" if a == "human" else f" ({a})") for p, a in enumerate(agents)]
    obs = view_observation(shown, seat)
    obs.pop("decision", None)
    if seat is None:
        obs["player"] = None
    html = seat_html(rs, obs, shown.visible_log(seat), names)
    return {"step": step, "total": total, "html": html, "marks": marks[-500:]}


def _prefix(rec: TableRecord, keep: int) -> TableRecord:
    """``rec`` with only its first ``keep`` actions (to replay the game up to them)."""
    return TableRecord(rec.id, rec.settings, rec.token_hashes, rec.state, keep, rec.actions[:keep])


def _found(st: State, text: str) -> Any:
    """The legal action a text names (its canonical text is what the log records)."""
    for a in st.legal_actions():
        if str(a) == text:
            return a
    d = st.decision()
    found = d.find(text) if d else None
    return found if found is not None else text

