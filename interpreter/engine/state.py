"""A game in progress: :class:`State`, plain data plus the flow's stack of frames.

Everything a game needs to continue lives here: the zones and their components, variables,
components' mutable properties, the random generator's state (one integer), where the flow
stands (frames), and the pending decision.  ``clone()`` copies it cheaply (components are
immutable and shared); ``to_json()``/``from_json()`` round-trip exactly, and a restored state
has the same future under the same actions.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..errors import FlowError, IllegalActionError, TapsterError
from ..lang.expression import Env
from ..model import Action, Component, Decision, Outcome, render
from . import chance as chance_mod
from . import flow
from .chance import CHANCE
from .places import Keyed, SeatZoneRef, _leaves, _leaves_with_path, seat_of  # noqa: F401 - re-exported
from .rng import seed_state
from .rng import shuffle as rng_shuffle
from .saved import decode_value, encode_value, state_from_json, state_to_json
from .worlds import _masked_record, _relabel, _relabel_unseen, determinize  # noqa: F401 - re-exported

_CHANCE_ONLY = (CHANCE,)
_CHOOSE = flow.Choose  # apply writes its resume out

if TYPE_CHECKING:  # pragma: no cover
    from ..compile.ruleset import Ruleset

__all__ = ["State", "Keyed", "new_game", "encode_value", "decode_value"]


class State:
    """One game in progress.  Create with :func:`new_game` or ``Ruleset.new_game``.

    Public data: ``num_players``; ``zones`` (name -> list, or nested lists for per-player and
    counted zones, or a :class:`Keyed` dict of stacks for keyed zones); ``vars`` (name -> value;
    per-player variables are lists indexed by seat);
    ``props`` (component index -> dict of mutable properties); ``current`` (the seat whose turn
    it is); ``turns`` (turns begun per seat); ``order`` (the seats in the order they began their
    first turn: ``order[0]`` moved first, whoever the ruleset picked); ``phase``; ``rng`` (generator state);
    ``log`` (list of (visible_to, text), or None when not recorded); ``chance`` the chance mode
    (``sample`` or ``explicit``, see :mod:`interpreter.engine.chance`) and ``lazy`` (explicit mode: zone
    path -> groups of its components whose order is not yet revealed); ``where`` and ``places``
    the index from components to the zones that hold them (hints, see :meth:`locate`).

    ``base`` and ``history`` say how to rebuild this state: ``base`` how it was made (a new game,
    a saved state, a determinised world) and ``history`` the actions applied since, as a linked
    list ``(last action, (previous, (...)))``.  :meth:`apply` uses them to put the state back as
    it was when the ruleset fails in the middle of a move (rebuilding is rare and costs a replay;
    recording costs one tuple per action).  Code that edits a state by hand (a scenario's
    ``position``) calls :meth:`checkpoint` afterwards.

    ``record`` is the game's decisions as the table saw them, for :meth:`information_state`: a
    linked list ``((players, action, secret), previous)`` (chance outcomes are not in it: what a
    seat sees of them is in its observation).  A state restored from JSON starts a new record.
    """

    __slots__ = (
        "ruleset", "num_players", "zones", "vars", "props", "rng", "stack", "pending",
        "current", "turns", "order", "phase", "finished", "reason", "log", "env", "_outcome", "chance", "lazy",
        "base", "history", "where", "places", "record",
    )  # fmt: skip

    # -- queries ---------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        """True when the game has ended."""
        return self.finished

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions of the pending decision, in the ruleset's order (empty at the end).
        No side effects."""
        p = self.pending
        return p[2] if p is not None else ()

    def current_players(self) -> tuple[int, ...]:
        """The seats that must decide now (empty at the end; ``(CHANCE,)`` at a chance point)."""
        p = self.pending
        return p[3] if p is not None else ()

    def is_chance(self) -> bool:
        """True at a chance point (explicit chance mode only): chance moves next."""
        p = self.pending
        return p is not None and p[3] == (CHANCE,)

    def chance_outcomes(self) -> tuple[tuple[Action, float], ...]:
        """At a chance point, its outcomes with their probabilities (summing to 1):
        ``((Action("chance", (value,)), p), ...)``; empty elsewhere."""
        p = self.pending
        if p is None or p[3] != (CHANCE,):
            return ()
        return tuple(zip(p[2], p[0].probs))

    def sample_chance(self, rng=None) -> Action:
        """An outcome of the pending chance point, drawn with its probability from ``rng`` (an
        :class:`~interpreter.engine.rng.Rng`) or, without one, from the state's own generator.

        Raises:
            IllegalActionError: the state is not at a chance point.
        """
        if not self.is_chance():
            raise IllegalActionError("no chance point is pending", self.legal_actions())
        return chance_mod.sample(self, rng)

    def decision(self) -> Decision | None:
        """The pending decision with readable labels, or None when the game has ended."""
        p = self.pending
        if p is None:
            return None
        choose, loc, actions, players = p
        env = Env(self, dict(loc))
        labels = tuple(choose.label(self, loc, a) for a in actions)
        return Decision(players, actions, labels, choose.prompt(env), choose.name)

    def outcome(self) -> Outcome | None:
        """The outcome (scores, ranking, winners, reason) once the game has ended, else None."""
        if not self.finished:
            return None
        if self._outcome is None:
            self._outcome = self.ruleset.outcome_of(self)
        return self._outcome

    def score(self, player: int) -> Any:
        """The ruleset's score expression for ``player`` now (also before the end)."""
        return self.ruleset.score_of(self, player)

    def observation(self, player: int | None) -> dict:
        """What ``player`` may see, as JSON data.

        Zones a player may not look into show ``{"count": n}`` instead of their contents:
        ``hidden`` zones for everyone, ``owner`` zones for all but their owner.  Variables
        declared ``visibility: owner`` show only the player's own value.  The pending decision
        is included with its legal actions when ``player`` is deciding.  ``player`` None is an
        observer who sees everything (every zone, variable and property; no decision): for the
        omniscient account and ``tapster replay --all``, never for a seat.
        """
        rs = self.ruleset
        zones: dict = {}
        for decl in rs.zones.values():
            zones[decl.name] = decl.observe(self.zones[decl.name], player)
        vars_: dict = {}
        for decl in rs.vars.values():
            value = self.vars[decl.name]
            if player is not None:
                if decl.visibility == "hidden":
                    continue
                if decl.visibility == "owner" and decl.per_player:
                    value = [v if i == player else None for i, v in enumerate(value)]
            vars_[decl.name] = encode_value(value)
        props = {}
        if rs.initial_props:
            seen = rs.visible_indexes(self, player)
            for c in rs.components:
                if c.mutable and c.index in seen:
                    props[c.id] = encode_value(self.props[c.index])
        obs = {
            "player": player,
            "num_players": self.num_players,
            "current": self.current,
            "phase": self.phase,
            "turns": list(self.turns),
            "zones": zones,
            "vars": vars_,
            "finished": self.finished,
        }
        if props:
            obs["props"] = props
        if self.pending is not None:
            obs["deciding"] = list(self.pending[3])
            if player in self.pending[3]:  # labels only for a seat that decides (they are templates to render)
                d = self.decision()
                obs["decision"] = {
                    "prompt": d.prompt,
                    "actions": [str(a) for a in d.actions],
                    "labels": list(d.labels),
                }
        if self.finished:
            obs["outcome"] = self.outcome().to_json()
        return obs

    def visible_log(self, player: int | None = None) -> list[str]:
        """The log lines ``player`` may read (all lines for None, the omniscient narrator)."""
        if self.log is None:
            return []
        return [text for to, text in self.log if to is None or player is None or player in to]

    def seen_actions(self, player: int) -> list[str]:
        """The decisions taken so far as seat ``player`` saw them, in order: ``P2:bet`` (the seat
        that decided and the action), ``P2:?`` for another seat's action at a ``secret: true``
        decision.  Chance outcomes are not listed (what a seat sees of them is in its observation)."""
        out = []
        r = self.record
        while r is not None:
            (players, action, secret), r = r
            actor = f"P{players[0] + 1}:"
            out.append(actor + ("?" if secret and player not in players else str(action)))
        out.reverse()
        return out

    def information_state(self, player: int) -> str:
        """Seat ``player``'s information state, as one string: two states give the same string
        exactly when the seat cannot tell them apart from what it sees now (its
        :meth:`observation`) and the decisions it saw taken (:meth:`seen_actions`).  The one key
        of an information set, for the native API, ``tapster perft --infosets`` and the OpenSpiel
        (``information_state_string``) and PettingZoo adapters.  Perfect recall holds when what
        a seat once saw stays in its view or in the actions (a card seen and passed face down is
        forgotten, as by :meth:`determinize`); the log is left out (it is optional).

        Raises:
            TapsterError: ``player`` is not a seat of this game.
        """
        if type(player) is not int or not 0 <= player < self.num_players:
            raise TapsterError(f"no seat {player!r} in a game of {self.num_players}")
        obs = json.dumps(self.observation(player), sort_keys=True, separators=(",", ":"))
        return obs + " | " + " ".join(self.seen_actions(player))

    # -- the transition ----------------------------------------------------------------------
    def apply(self, action: Action | str) -> None:
        """Take ``action`` (an :class:`Action` or its canonical text) and run the flow to the
        next decision or the end.

        Raises:
            IllegalActionError: the action is not legal now (or the game is over); the state is
                unchanged and ``error.legal`` lists the legal actions.
            FlowError, ExpressionError: the ruleset failed while running (a ruleset bug).
        """
        p = self.pending
        if p is None:
            raise IllegalActionError("the game is over: no action can be taken", ())
        choose, loc, actions, players = p
        if type(action) is not Action:
            text = str(action)
            found = None
            for a in actions:
                if str(a) == text:
                    found = a
                    break
            if found is None:
                d = self.decision()
                found = d.find(text) if d else None
            if found is None:
                raise IllegalActionError(self._illegal_message(text, actions), actions)
            action = found
        else:
            try:
                found = actions[actions.index(action)]
            except ValueError:
                found = None
            # Python's 4.0 == 4 and True == 1: an action is legal only with the same types as
            # the legal one (a log written with `mark(4.0)` could not be replayed), which may
            # come after an equal one of other types (`pick(1)`, then `pick(true)`).
            if found is not None and found is not action and not _same_types(action.args, found.args):
                found = next((a for a in actions if a == action and _same_types(action.args, a.args)), None)
            if found is None:
                raise IllegalActionError(self._illegal_message(str(action), actions), actions)
            action = found
        self.pending = None
        history = self.history
        self.history = (action, history)
        if players != _CHANCE_ONLY:
            self.record = ((players, action, choose.secret), self.record)
        try:
            if choose.__class__ is _CHOOSE:  # Choose.resume written out: every decision runs it
                o = choose.by_name[action.name]
                if o.body.effects:
                    if o.names:
                        loc = dict(loc)
                        loc.update(zip(o.names, action.args))  # values: copied where listed, if they may share
                    self.stack.append((o.body, 0, loc, None))
            else:
                choose.resume(self, loc, action)
            if self.pending is None:  # a chance point may ask for the next outcome at once
                flow.run(self)
        except flow.PYTHON_ERRORS as exc:  # a ruleset's value of the wrong kind: never a traceback
            self._restore(history)
            raise flow.unexpected(exc) from None
        except BaseException:  # whatever it raises, the state is as it was before the action
            self._restore(history)
            raise

    def _restore(self, history) -> None:
        """Put this state back as it was after ``history`` (a failed move leaves no trace)."""
        base = self.base
        back = _rebuild(base, history)
        for name in State.__slots__:
            setattr(self, name, getattr(back, name))
        self.base = base
        self.env = Env(self, {})

    def checkpoint(self) -> None:
        """Make the state as it is now the base :meth:`apply` rebuilds from (after editing it
        by hand, as a scenario's ``position`` does)."""
        self.base = ("state", self.clone())
        self.history = None

    @staticmethod
    def _illegal_message(text: str, actions: tuple) -> str:
        shown = ", ".join(str(a) for a in actions[:20])
        more = f" and {len(actions) - 20} more" if len(actions) > 20 else ""
        return f"`{text}` is not a legal action now; legal: {shown}{more}"

    # -- used by effects ---------------------------------------------------------------------
    def finish(self, reason: str) -> None:
        """End the game with ``reason`` (the flow stops, no decision is pending)."""
        self.finished = True
        self.reason = reason
        self.pending = None
        self.stack.clear()

    def shuffle(self, items: list) -> None:
        """Shuffle ``items`` in place (Fisher-Yates with the state's generator:
        :func:`~interpreter.engine.rng.shuffle`)."""
        self.rng = rng_shuffle(self.rng, items)

    def refill(self, decl, zone: list, env: Env, key: tuple | None = None) -> None:
        """Refill an empty ``zone`` from its declaration's ``refill_from`` zone, shuffled (with
        explicit chance and the zone's ``key``, a lazy deal: its order left unknown)."""
        source_ref = decl.refill_from
        if source_ref is None:
            return
        seat = None
        if type(source_ref) is SeatZoneRef:  # `refill_from: discard` of a per-player zone: its own seat's
            seat = seat_of(self.zones[decl.name], zone)
            if seat is None:  # pragma: no cover - the zone is always one of its declaration's lists
                return
            source = source_ref.for_seat(self, seat)
        else:
            source = source_ref.get(env)
        if not source:
            return
        zone.extend(source)
        source.clear()
        if decl.refill_shuffle and key is not None and self.chance == "explicit":
            if len(zone) > 1:
                self.lazy[key] = [set(zone)]
        elif decl.refill_shuffle:
            self.shuffle(zone)
        if self.log is not None:
            if seat is not None:  # every seat reads whose pile it was
                verb = "shuffles" if decl.refill_shuffle else "puts"
                self.log.append((None, f"P{seat + 1} {verb} their {source_ref.decl.name.replace('_', ' ')} into "
                                       f"their {decl.name.replace('_', ' ')}"))
            else:
                self.log.append((None, f"{decl.name} was empty: {source_ref.text} shuffled into it"))

    def refill_immediately(self, env: Env) -> None:
        """Refill every zone declared ``refill_when: immediately`` that is empty now (run after
        each move of a ruleset that declares one): a shared zone, or each seat's empty zone of a
        per-player one (from that seat's own source)."""
        zones = self.zones
        for decl in self.ruleset.immediate_zones:
            z = zones[decl.name]
            if decl.per_player:
                for seat, part in enumerate(z):
                    if not part:
                        self.refill(decl, part, env, (decl.name, seat))
            elif not z:
                self.refill(decl, z, env, (decl.name,))

    def remove_anywhere(self, comp: Component, mark=None) -> None:
        """Take ``comp`` out of whichever zone holds it (found through :meth:`locate`).

        Raises:
            FlowError: no zone holds it.
        """
        lst = self.locate(comp)
        if lst is None:
            raise FlowError(f"{comp.id} is in no zone", mark)
        lst.remove(comp)
        if not lst:
            keyed = self.places[id(lst)][1]
            if keyed is not None and keyed[0].get(keyed[1]) is lst:  # the Keyed invariant
                del keyed[0][keyed[1]]

    def zone_of(self, comp: Component) -> str | None:
        """The name of the zone that holds ``comp`` (``name[i][j]`` for nested zones), or None."""
        lst = self.locate(comp)
        return None if lst is None else self.places[id(lst)][2]

    def locate(self, comp: Component) -> list | None:
        """The zone (the leaf list) that holds ``comp``, or None.

        ``where`` maps components to the list they were last seen in (moves write it as they
        go: :class:`~interpreter.engine.flow.Move`) and ``places`` maps ``id`` of each leaf list to
        ``(list, (keyed dict, key) or None, name text)``.  Both are hints, checked on every use
        (the component must be in the list, the list a known place); a wrong or missing hint
        (a refill, a lazy deal, a scenario's hand edit, a new keyed stack) makes one pass over
        every zone to rebuild both.  A component lies in exactly one place, so a list that holds
        it is its place.
        """
        lst = self.where.get(comp)
        if lst is not None and comp in lst:
            place = self.places.get(id(lst))
            if place is not None and place[0] is lst:
                return lst
        self._reindex()
        return self.where.get(comp)

    def _reindex(self) -> None:
        """Rebuild :attr:`where` and :attr:`places` from the zones (one pass over every zone)."""
        where: dict = {}
        places: dict = {}
        for decl in self.ruleset.zone_list:
            name = decl.name
            z = self.zones[name]
            if decl.keyed:
                for key, sub in z.items():
                    places[id(sub)] = (sub, (z, key), f"{name}[{_key_text(key)}]")
                    for c in sub:
                        where[c] = sub
                continue
            for path, sub in _leaves_with_path(z, decl.depth):
                places[id(sub)] = (sub, None, name + "".join(f"[{i}]" for i in path))
                for c in sub:
                    where[c] = sub
        self.where = where
        self.places = places

    # -- copies ------------------------------------------------------------------------------
    def clone(self) -> State:
        """An independent copy with the same future under the same actions."""
        rs = self.ruleset
        st = State.__new__(State)
        st.ruleset = rs
        st.num_players = self.num_players
        zones = {}
        for name, depth in rs.zone_depths:
            z = self.zones[name]
            if depth == 0:
                zones[name] = z[:]
            elif depth < 0:  # a keyed zone
                zones[name] = z.copy_stacks()
            elif depth == 1:
                zones[name] = [x[:] for x in z]
            else:
                zones[name] = _deep_copy(z, depth)
        st.zones = zones
        # Every variable holding a list or a record gets its own, whatever it held at first (`y: 0`
        # then `set: {y: "[1, 2]"}`): an item `set` or `add` changes it in place.  Only the top:
        # nothing changes a value inside one in place (a stored value shares nothing with the
        # state, and names keep snapshots: LValue.set, places.snapshot).
        v = self.vars.copy()
        for name, x in v.items():
            if x.__class__ is list:
                v[name] = x[:]
            elif x.__class__ is dict:
                v[name] = x.copy()
        st.vars = v
        st.props = {k: d.copy() for k, d in self.props.items()} if self.props else {}
        st.rng = self.rng
        st.stack = self.stack[:]
        st.pending = self.pending
        st.current = self.current
        st.turns = self.turns[:]
        st.order = self.order
        st.phase = self.phase
        st.finished = self.finished
        st.reason = self.reason
        st.log = self.log[:] if self.log is not None else None
        st.env = env = Env(st, {})
        env.chance_run, env.chance_since = self.env.chance_run, self.env.chance_since  # a run of chance goes on in a copy
        st._outcome = self._outcome
        st.chance = self.chance
        st.lazy = {k: [set(g) for g in v] for k, v in self.lazy.items()} if self.lazy else {}
        st.base = self.base
        st.history = self.history
        st.where = {}  # the copy's lists are new: its index is rebuilt when first needed
        st.places = {}
        st.record = self.record
        return st

    def determinize(self, player: int, rng) -> State:
        """A new state that ``player`` cannot tell from this one, drawn at random with ``rng``
        (an :class:`~interpreter.engine.rng.Rng`): what ``player`` may not see is redealt among the
        places it may not see (a place whose contents it knows but not their order, only within
        itself), and the random generator reseeded
        (:func:`interpreter.engine.worlds.determinize`, which says how).

        Raises:
            TapsterError: ``player`` is not a seat of this game.
        """
        return determinize(self, player, rng)

    def __deepcopy__(self, memo) -> State:
        """``copy.deepcopy(state)`` is :meth:`clone` (OpenSpiel copies Python states by deep
        copy): the ruleset is shared, never copied."""
        st = self.clone()
        memo[id(self)] = st
        return st

    def __reduce__(self):
        """Pickled as its ruleset (by how it was loaded), :meth:`to_json` and its record of
        decisions: the unpickled state has the same future and the same information states."""
        record = []
        r = self.record
        while r is not None:
            (players, action, secret), r = r
            record.append((list(players), action.name, encode_value(list(action.args)), secret))
        return (_unpickle_state, (self.ruleset, self.to_json(), record[::-1]))

    def __copy__(self) -> State:
        """``copy.copy(state)`` is :meth:`clone` too: a state sharing its zones with another
        would change with it."""
        return self.clone()

    def to_json(self) -> dict:
        """The whole state as JSON data (components as ids, blocks as ids;
        :func:`interpreter.engine.saved.state_to_json`)."""
        return state_to_json(self)

    @classmethod
    def from_json(cls, ruleset: Ruleset, data: dict) -> State:
        """Rebuild a state saved by :meth:`to_json` for the same (compiled) ruleset
        (:func:`interpreter.engine.saved.state_from_json`: the data is checked against the
        published ``schemas/state.schema.json`` and the ruleset before anything is built).

        Raises:
            TapsterError: the data is for another ruleset or variant, or is malformed (never
                a raw Python error, whatever the document holds).
        """
        return state_from_json(cls, ruleset, data)

    def __repr__(self) -> str:
        status = "finished" if self.finished else f"deciding: {self.current_players()}"
        return f"<State {self.ruleset.name} {self.num_players}p {status}>"

    def describe(self) -> str:
        """A short text of the zones, for people."""
        lines = []
        for decl in self.ruleset.zone_list:
            lines.append(f"{decl.name}: {render(self.zones[decl.name])}")
        return "\n".join(lines)


def _same_types(a: tuple, b: tuple) -> bool:
    """The two argument tuples (already equal) hold values of the same types, nested too."""
    for x, y in zip(a, b):
        if type(x) is not type(y):
            return False
        if type(x) is tuple and not _same_types(x, y):
            return False
    return True


def _key_text(key: Any) -> str:
    """A keyed zone's key as expression text: ``(0, 1)``, ``"ghent"``, ``component("mat-3")``."""
    if isinstance(key, Component):
        return f'component("{key.id}")'
    if isinstance(key, str):
        return '"' + key + '"'
    if isinstance(key, tuple):
        return "(" + ", ".join(_key_text(k) for k in key) + ("," if len(key) == 1 else "") + ")"
    return str(key)


def _deep_copy(z: list, depth: int) -> list:
    if depth == 0:
        return z[:]
    return [_deep_copy(x, depth - 1) for x in z]


def new_game(
    ruleset: Ruleset, num_players: int, seed: int | str = 0, log: bool = False, position=None, chance: str = "sample"
) -> State:
    """A new game of ``ruleset`` for ``num_players`` seats, its chance drawn from ``seed``.

    Runs ``setup``; applies ``position`` (a callable ``f(state)`` used by scenarios) between
    setup and flow; then runs the flow to the first decision.  ``log`` records the game's
    account (``State.log``).  ``chance="explicit"`` plays with chance points (see
    :mod:`interpreter.engine.chance`; the setup's chance events are chance points too, so the new state
    may be at one, and ``position`` is not available).

    Raises:
        TapsterError: ``num_players`` outside the ruleset's range; an unknown chance mode, or
            ``position`` with explicit chance; errors from the setup.
    """
    if chance != ruleset.chance:
        if chance not in chance_mod.MODES:
            raise TapsterError(f"chance mode {chance!r}: expected one of {', '.join(chance_mod.MODES)}")
        ruleset = ruleset.with_chance(chance)
    lo, hi = ruleset.min_players, ruleset.max_players
    if not isinstance(num_players, int) or not lo <= num_players <= hi:
        raise TapsterError(f"{ruleset.title} is for {lo} to {hi} players, not {num_players}")
    rng = seed_state(seed)
    starts = ruleset.__dict__.get("_starts")
    if starts is None:
        starts = ruleset._starts = {}
    key = (num_players, log)
    if position is None:
        start = starts.get(key)
        if start is not None:  # a start no seed changes: a copy of it (see below)
            st = start.clone()
            st.rng = rng
            st.base = ("new", ruleset, num_players, seed, log, position)
            return st
    st = State.__new__(State)
    st.ruleset = ruleset
    st.num_players = num_players
    st.zones = {decl.name: decl.empty(num_players) for decl in ruleset.zone_list}
    st.vars = {decl.name: decl.initial(num_players) for decl in ruleset.vars.values()}
    st.props = {}
    st.rng = rng
    st.stack = []
    st.pending = None
    st.current = 0
    st.turns = [0] * num_players
    st.order = ()
    st.phase = ""
    st.finished = False
    st.reason = ""
    st.log = [] if log else None
    st.env = Env(st, {})
    st._outcome = None
    st.chance = ruleset.chance
    st.lazy = {}
    st.base = ("new", ruleset, num_players, seed, log, position)
    st.history = None
    st.where = {}
    st.places = {}
    st.record = None
    ruleset.place_components(st)
    try:
        if st.chance == "explicit":
            if position is not None:
                raise TapsterError("a scenario's position cannot be set up with explicit chance")
            # setup may stop at chance points: it runs on top of the flow, in one go
            if ruleset.flow.effects:
                st.stack.append((ruleset.flow, 0, {}, None))
            if ruleset.setup.effects:
                st.stack.append((ruleset.setup, 0, {}, None))
            flow.run(st)
            _keep_start(starts, key, st, rng, position)
            return st
        if ruleset.setup.effects:
            st.stack.append((ruleset.setup, 0, {}, None))
            _run_setup(st)
        if position is not None:
            position(st)
        if ruleset.flow.effects:
            st.stack.append((ruleset.flow, 0, {}, None))
        flow.run(st)
    except flow.PYTHON_ERRORS as exc:  # a ruleset's value of the wrong kind: never a traceback
        raise flow.unexpected(exc) from None
    _keep_start(starts, key, st, rng, position)
    return st


def _keep_start(starts: dict, key: tuple, st: State, rng: int, position) -> None:
    """Keep a copy of the new game ``st`` as the start of every later new game with the same
    seats and log setting (``starts[key]``) when no seed can change it: the setup and the flow up
    to the first decision drew nothing from the generator (its state is still the seed's,
    ``rng``), and the seed is the only thing that differs between two new games of one ruleset,
    so a run that never read it is the same run for every seed.  A later :func:`new_game` is then
    that copy cloned, its generator seeded and its ``base`` its own (tic-tac-toe, Connect Four: a
    third of the time a new game took); the same state, as ``tests/engine/test_new_game.py``
    checks against games built from scratch.  A scenario's ``position`` is never kept."""
    if position is None and st.rng == rng and key not in starts:
        starts[key] = st.clone()


def _unpickle_state(ruleset: Ruleset, data: dict, record: list) -> State:
    """A pickled :class:`State` (see ``State.__reduce__``)."""
    st = State.from_json(ruleset, data)
    out = None
    for players, name, args, secret in record:
        out = ((tuple(players), Action(name, tuple(decode_value(args, ruleset))), secret), out)
    st.record = out
    return st


def _rebuild(base: tuple, history) -> State:
    """The state made as ``base`` says, then every action of ``history`` applied (see
    :attr:`State.base`).  Replaying what succeeded once succeeds again: the engine is
    deterministic."""
    kind = base[0]
    if kind == "new":
        _, ruleset, n, seed, log, position = base
        st = new_game(ruleset, n, seed, log, position, chance=ruleset.chance)
    elif kind == "data":
        st = State.from_json(base[1], base[2])
    elif kind == "world":  # a determinized world: dealt again from the same generator state
        st = base[1].deal(base[2])[0]
    else:  # "state": a checkpoint, kept as a clone nobody plays on
        st = base[1].clone()
    actions = []
    while history is not None:
        actions.append(history[0])
        history = history[1]
    for a in reversed(actions):
        st.apply(a)
    return st


def _run_setup(st: State) -> None:
    """Run ``setup`` to completion; a decision there is a ruleset error."""
    flow.run(st, finish=False)
    if st.pending is not None:
        raise FlowError("`setup` cannot ask for a decision: move the `choose` into `flow`", st.pending[0].mark)
