"""A ruleset as numbers, for learning libraries (the OpenSpiel and PettingZoo adapters).

:class:`Encoding` gives one ruleset (a variant, a player count) a fixed index space of actions
and of chance outcomes, a fixed-size observation tensor, observation and information-state
strings, returns and bounds.  It reads a game only through what a seat may see
(``State.observation(p)``, ``State.visible_log(p)``, the actions that seat saw taken), never
through the whole state.

**How the index spaces are built.**  Every action any decision can produce is listed once, in a
fixed order, and numbered from 0, without playing:

1. decisions in the order the compiler meets them (procedures' before the flow's), their
   options in order;
2. an option without ``for`` is one action (``check``);
3. an option with ``for`` gives the values its ``in:`` can ever produce (with ``merge_identical:
   true``, one id per look of identical components, the copies of one row, which every copy's
   action maps to), derived from the
   expression (:mod:`interpreter.interop.domains`): a constant's items exactly (``range(9)``, a
   parameter's list, a comprehension over constant ranges), every component for a zone, every
   node for a map's nodes or neighbours, the product for tuples, the union for ``+``, a ``let``
   name bound before the decision by its expression, a loop's or an enclosing option's name by
   its items, a variable by its static type when that is finite (components, seats, truth
   values, texts or numbers the rules spell out); an ``if`` inside a comprehension is left out,
   so an option may have ids no state lists (they are masked out), but never lacks one;
4. only an option whose ``in:`` reads values not known without playing (an attribute, a number
   or a keyed zone's key the moves compute, such as Drink & Beat's places) is *explored*:
   ``games`` seeded random playouts (the same every time) record
   the values each argument took, and each argument's domain is widened by the value's type (a
   component to every component of its kind, a whole number to every number from
   ``min(0, smallest)`` to the largest seen, a map node to every node, a tuple element by element,
   ``(x, y)`` places to the rectangle seen grown by half its size on every side,
   ``true``/``false`` to both).  Explored options are numbered after every derived one, so the
   derived ids never depend on playing; ``tapster info`` shows which is which and ``tapster
   check`` warns, naming the action.  A value never seen raises :class:`EncodingError`.
   What the playouts find (these values and the chance numbers) is remembered by content in ``$TAPSTER_CACHE_DIR/results``
   (:mod:`interpreter.loader.results`: the engine's source, the ruleset's files, the seats,
   ``games`` and the seed), so a later load of the same ruleset builds the same spaces without
   playing them.

The same action text in two decisions has one index.  Chance outcomes (``Action("chance",
(value,))``) have their own space, numbered from 0: every component id in the ruleset's order
(a card drawn), then the whole numbers a chance point can give, in order (a die's faces 1 to its
sides, a ``random`` pick's indexes 0 to the seat count, and any other number seen exploring).

**The observation tensor** (float32, one flat vector, the same size in every state and for every
``explore``) is laid out from the ruleset's declarations by
:class:`~interpreter.interop.layout.TensorLayout` (its notes document it part by part: seats,
turn counters, phase, zones, every visible variable by its statically derived type, one-hot
for seats, truth values, components and enumerated texts), and filled from the state for one
seat without building any text (the fast observation path).  Its version is
:data:`~interpreter.interop.layout.LAYOUT_VERSION`.  :meth:`Encoding.legal_mask` writes the
legal-action mask without labels.  A zone whose contents a seat knows but not their order
(``owner_contents``, ``public_contents``) shows that seat 1 in the slot of each component that
lies there (the observation's ``ids``; its per-look counts, ``contents``, follow from them),
never their positions, then the zone's count, as every zone.

**Returns** are the outcome's scores.  The utility bounds, the utility's kind and the longest game
are the game's exact facts (:func:`interpreter.compile.facts.game_facts`): declared in the ruleset
(``outcome: {range: [lo, hi], sum: S}``, ``limits: {actions: N}``) or derived by enumerating the
tree of a small game, never sampled.  The utility is zero-sum when the scores' sum is 0,
constant-sum when it is another constant, else general-sum; the longest game counts decisions
(chance outcomes are not counted).  A ruleset with neither cannot be encoded
(:class:`interpreter.compile.facts.FactsError` says what to declare).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..compile.compiler import load_ruleset
from ..compile.facts import game_facts, outcome_problem
from ..compile.ruleset import Ruleset
from ..engine.chance import CHANCE
from ..engine.rng import Rng
from ..engine.saved import decode_value, encode_value
from ..engine.state import State, new_game
from ..errors import TapsterError
from ..loader.load import recording
from ..loader.results import lookup, store
from ..model import Action, Component
from .domains import option_domain
from .layout import TensorLayout

__all__ = ["Encoding", "EncodingError", "FactoredActions", "has_chance", "static_actions", "describe_encoding", "CHANCE"]

_CHANCE_ONLY = (CHANCE,)

#: Default number of seeded random playouts explored to build the index spaces.
EXPLORE_GAMES = 32


#: Encodings built in this process (see :meth:`Encoding.of`).
_CACHE: dict[tuple, Encoding] = {}


class EncodingError(TapsterError):
    """An action, chance outcome or option outside the index space built by exploring."""


def has_chance(rs: Ruleset) -> bool:
    """True when anything in ``rs`` meets chance (a ``shuffle``, ``roll``, ``random``, a deck
    refilled by shuffling): the effects the explicit-chance compilation wraps."""
    return bool(rs.with_chance("explicit").chance_effects)


def new_state(enc: Encoding, seed: int | str) -> State:
    """A logged new game of ``enc``'s ruleset and seats, chance as explicit outcomes (if any)."""
    return new_game(enc.ruleset, enc.num_players, seed=seed, log=True, chance=enc.ruleset.chance)


def is_chance(st: State) -> bool:
    """True when ``st`` waits for a chance outcome (explicit chance only)."""
    return st.is_chance()


def _sort_key(v: Any) -> tuple:
    """A total order over argument values of mixed types (components by table order)."""
    if isinstance(v, Component):
        return (0, v.index)
    if type(v) is bool:
        return (1, int(v))
    if isinstance(v, (int, float)):
        return (2, v)
    if isinstance(v, str):
        return (3, v)
    if isinstance(v, tuple):
        return (4, len(v), tuple(_sort_key(x) for x in v))
    if v is None:
        return (5,)
    return (6, repr(v))


class Encoding:
    """The index spaces, observation tensor and utility of one ruleset for ``num_players`` seats.

    Args:
        rs: the compiled ruleset (a variant is compiled into it).
        num_players: the seat count (within the ruleset's range).
        games: how many seeded random playouts to explore (at least 1).
        seed: the exploration's seed (the index spaces depend on it and ``games`` only).

    Raises:
        FactsError: the ruleset neither declares nor lets the engine derive its utility bounds
            and longest game (the message says what to declare).
        TapsterError: the seat count is outside the ruleset's range; a ruleset error while
            exploring; an explored game outside the declared facts.

    Attributes: ``actions`` (index -> :class:`Action`), ``chance_values`` (index -> outcome
    value), ``num_distinct_actions``, ``max_chance_outcomes``, ``tensor_size``, ``utility``
    (``"zero_sum"``, ``"constant_sum"`` or ``"general_sum"``), ``utility_sum``,
    ``min_utility``/``max_utility``, ``max_game_length``, ``perfect_information``, ``chance``
    (``"explicit"``: the games play chance as explicit outcomes; ``"none"``: no chance at all).
    """

    def __init__(self, rs: Ruleset, num_players: int, games: int = EXPLORE_GAMES, seed: int = 0):
        if not isinstance(games, int) or games < 1:
            raise TapsterError(f"exploring needs at least 1 game, not {games!r}")
        self.chance = "explicit" if has_chance(rs) else "none"
        # the compilation the games are played with (its decisions are the states' decisions)
        self.ruleset = rs = rs.with_chance("explicit" if self.chance == "explicit" else "sample")
        self.num_players = num_players
        self.games = games
        self.perfect_information = (
            all(z.visibility == "public" for z in rs.zone_list)
            and all(v.visibility == "public" for v in rs.vars.values())
            and not any(c.secret for c in rs.chooses)
        )
        facts = game_facts(rs, num_players)
        self.facts = facts
        self.max_game_length = facts.actions
        self.min_utility, self.max_utility = float(facts.range[0]), float(facts.range[1])
        if facts.sum is None:
            self.utility, self.utility_sum = "general_sum", None
        else:
            self.utility, self.utility_sum = ("zero_sum" if facts.sum == 0 else "constant_sum"), float(facts.sum)
        self._explore(games, seed)

    @classmethod
    def of(cls, rs: Ruleset, num_players: int, games: int = EXPLORE_GAMES) -> Encoding:
        """The encoding of ``rs`` for ``num_players`` (chance explicit where it has chance), built
        once per ruleset file, variant, seat count and ``games`` in a process and shared."""
        key = (str(rs.path), rs.variant, getattr(rs, "load_args", None) and repr(rs.load_args[2]), num_players, games)
        enc = _CACHE.get(key)
        if enc is None:
            enc = _CACHE[key] = cls(rs, num_players, games=games)
        return enc

    def __reduce__(self):
        """Pickled as its ruleset, seat count and explored games (rebuilt once per process)."""
        return (Encoding.of, (self.ruleset, self.num_players, self.games))

    def __deepcopy__(self, memo) -> Encoding:
        """An encoding never changes once built: a deep copy of anything holding one shares it."""
        return self

    # -- exploring -------------------------------------------------------------------------
    def _explore(self, games: int, seed: int) -> None:
        """Build the index spaces from ``games`` seeded playouts, or from what the same playouts
        found before (:meth:`_remembered`), and the tensor layout from the declarations."""
        found = self._remembered(games, seed)
        if found is None:
            with recording() as reads:  # a ruleset compiled elsewhere: its own files
                found = self._play(games, seed)
            self._remember(games, seed, found, [*self.ruleset.files, *reads])
        seen, chance_ints = found
        self._build_actions(seen)
        self._build_chance(chance_ints)
        self.layout = TensorLayout(self.ruleset, self.num_players)
        self.tensor_size = self.layout.size
        self.info_tensor_size = self.tensor_size + self.max_game_length * (self.num_players + 1)
        # id(listed actions) -> (those actions, their ids): a decision's listing is often the same tuple again
        self._ids_cache: dict[int, tuple] = {}

    def _cache_parts(self, games: int, seed: int) -> list | None:
        """What decides the playouts' findings, besides the engine's source and the ruleset's
        files (:mod:`interpreter.loader.results` adds those); None for a ruleset not loaded
        from a file."""
        rs = self.ruleset
        if not rs.files or rs.load_args is None:
            return None
        path, variant, overrides = rs.load_args
        return [str(path), variant, json.dumps(overrides, sort_keys=True, default=repr), rs.chance,
                self.num_players, games, seed]

    def _remembered(self, games: int, seed: int) -> tuple | None:
        """The findings of :meth:`_play` stored by an earlier load of the same ruleset files with
        the same engine, seats, ``games`` and ``seed`` (JSON data, decoded against this
        ruleset), or None: none stored, or an entry that does not decode (a miss, never an
        error)."""
        parts = self._cache_parts(games, seed)
        hit = lookup("encoding", parts) if parts is not None else None
        if not isinstance(hit, dict):
            return None
        rs = self.ruleset
        try:
            seen = {(int(cid), str(name)): [{decode_value(v, rs) for v in slot} for slot in slots]
                    for cid, name, slots in hit["seen"]}
            chance_ints = {int(x) for x in hit["chance_ints"]}
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
            return None
        return seen, chance_ints

    def _remember(self, games: int, seed: int, found: tuple, reads: list[str]) -> None:
        """Store the findings of :meth:`_play` (JSON data only) for :meth:`_remembered`."""
        parts = self._cache_parts(games, seed)
        if parts is None:
            return
        seen, chance_ints = found
        value = {"seen": [[cid, name, [[encode_value(v) for v in sorted(slot, key=_sort_key)] for slot in slots]]
                          for (cid, name), slots in seen.items()],
                 "chance_ints": sorted(chance_ints)}
        store("encoding", parts, reads, value)

    def _play(self, games: int, seed: int) -> tuple:
        """Play ``games`` seeded random playouts and return what they met: ``(seen, chance_ints)``
        — each explored option's values per argument, and the whole numbers chance gave.

        Raises:
            EncodingError: a playout ended outside the declared facts.
            FlowError: a playout went past the longest game.
        """
        rs, n = self.ruleset, self.num_players
        seen: dict[tuple[int, str], list[set]] = {}  # (choose id, option) -> values per argument
        chance_ints: set[int] = set()
        rng = Rng(f"explore:{seed}")
        for g in range(games):
            st = new_state(self, f"explore:{seed}:{g}")
            taken = 0
            while True:
                if st.finished:
                    problem = outcome_problem(rs, n, self.returns(st), taken)
                    if problem is not None:
                        raise EncodingError(f"{rs.name}: {problem}")
                    break
                if is_chance(st):
                    outcomes = st.chance_outcomes()
                    for a, _ in outcomes:
                        if type(a.args[0]) is int:
                            chance_ints.add(a.args[0])
                    st.apply(st.sample_chance(rng))
                    continue
                legal = st.legal_actions()
                choose = st.pending[0]
                for a in legal:
                    if a.args:
                        slots = seen.setdefault((choose.id, a.name), [set() for _ in a.args])
                        for slot, v in zip(slots, a.args):
                            slot.add(v)
                st.apply(legal[rng.below(len(legal))])
                taken += 1
                rs.check_length(st, taken)
        return seen, chance_ints

    def _build_actions(self, seen: dict) -> None:
        rs = self.ruleset
        actions: list[Action] = []
        index: dict[Action, int] = {}
        #: one row per option: (choose, option, "derived" or "explored", its ids, in order)
        self.action_rows: list[tuple] = []

        def add(a: Action) -> int:
            if a not in index:
                index[a] = len(actions)
                actions.append(a)
            return index[a]

        def ids(o, arg_lists) -> list[int]:
            if not o.merge:
                return [add(Action(o.name, args)) for args in arg_lists]
            # identical components merged: one id per look, the action of its first copy;
            # every copy's action has that id (the legal one is the top copy's)
            out: list[int] = []
            for args in arg_lists:
                a = Action(o.name, args)
                i = add(Action(o.name, tuple(_first_look(v) for v in args)))
                index.setdefault(a, i)
                if i not in out:
                    out.append(i)
            return out

        static = static_actions(rs, self.num_players)
        for choose, o, derived in static:  # first every derived id: they do not depend on playing
            if derived is not None:
                self.action_rows.append((choose, o, "derived", ids(o, derived)))
        for choose, o, derived in static:  # then the options whose values only playing shows
            if derived is None:
                slots = seen.get((choose.id, o.name))
                widened = _product([sorted(self._widen(s), key=_sort_key) for s in slots]) if slots else []
                self.action_rows.append((choose, o, "explored", ids(o, widened)))
        self.actions = tuple(actions)
        self.action_index = index
        self.num_distinct_actions = len(actions)

    def _widen(self, values: set, margin: bool = False) -> set:
        """Every value of the kinds in ``values`` (see the module's notes); with ``margin``
        (the numbers inside a tuple: places), numbers reach half the seen span further on each
        side."""
        rs = self.ruleset
        out: set = set()
        ints = [v for v in values if type(v) is int]
        if ints:
            lo, hi = min(0, min(ints)), max(ints)
            m = (hi - lo + 2) // 2 if margin else 0
            out.update(range(lo - m, hi + m + 1))
        for v in values:
            if isinstance(v, Component):
                out.update(rs.kinds[v.kind].components)
            elif type(v) is bool:
                out.update((False, True))
            elif isinstance(v, str):
                for m in getattr(rs, "maps", {}).values():
                    if v in m.graph:
                        out.update(n for n in m.graph.nodes if isinstance(n, str))
                out.add(v)
            elif isinstance(v, tuple):
                pass
            elif type(v) is not int:
                out.add(v)
        tuples = [v for v in values if isinstance(v, tuple)]
        for length in sorted({len(t) for t in tuples}):
            same = [t for t in tuples if len(t) == length]
            domains = [sorted(self._widen({t[i] for t in same}, True), key=_sort_key) for i in range(length)]
            out.update(_product(domains))
        return out

    def _build_chance(self, ints: set) -> None:
        rs = self.ruleset
        numbers = set(ints)
        for effect in getattr(rs, "chance_effects", ()):
            inner = getattr(effect, "inner", effect)
            verb = getattr(inner, "verb", None)
            if verb == "roll":
                sides = getattr(inner.sides, "constant", None)
                if type(sides) is int:  # a die's faces, 1 to sides
                    numbers.update(range(1, sides + 1))
            elif verb == "random":  # an index into the list: at least one per seat
                numbers.update(range(self.num_players))
        values: list = [c.id for c in rs.components] if self.chance != "none" else []
        values += sorted(numbers)
        self.chance_values = tuple(values)
        self.chance_index = {(type(v), v): i for i, v in enumerate(values)}
        self.max_chance_outcomes = len(values)

    # -- the observation tensor ------------------------------------------------------------
    def tensor_layout(self) -> tuple[tuple[str, int, int], ...]:
        """The tensor's parts as ``(name, start, stop)`` slices, in order (the full table with
        what each part holds and its encoding: ``layout.describe()``)."""
        return tuple((name, start, start + size) for name, start, size, _w, _e in self.layout.parts)

    def observation_tensor(self, st: State, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """``player``'s observation of ``st`` as a float32 vector of ``tensor_size`` (written into
        ``out`` when given), from what the seat may see only, without building the JSON
        observation (:meth:`TensorLayout.fill <interpreter.interop.layout.TensorLayout.fill>`).

        Raises:
            IndexError: ``player`` is not a seat.
            ValueError: ``out`` is not a float32 vector of ``tensor_size`` values.
        """
        if out is None:
            out = np.zeros(self.tensor_size, np.float32)
        elif out.shape != (self.tensor_size,) or out.dtype != np.float32:
            raise ValueError(f"`out` must be a float32 vector of {self.tensor_size} values, not an array of shape "
                             f"{out.shape} ({out.dtype})")
        if not 0 <= player < self.num_players:
            raise IndexError(f"no seat {player} in a game of {self.num_players}")
        return self.layout.fill(st, player, out)

    def legal_ids(self, st: State) -> tuple[int, ...]:
        """The ids of the pending decision's legal actions, in the decision's order (empty at the
        end or at a chance point), without labels; the same listing again is looked up once.

        Raises:
            EncodingError: a legal action is outside the index space.
        """
        p = st.pending
        if p is None or p[3] == _CHANCE_ONLY:
            return ()
        actions = p[2]
        cached = self._ids_cache.get(id(actions))
        if cached is not None and cached[0] is actions:
            return cached[1]
        try:
            ids = tuple(map(self.action_index.__getitem__, actions))
        except KeyError:
            ids = tuple(self.index(a) for a in actions)
        if len(self._ids_cache) > 4096:
            self._ids_cache.clear()
        self._ids_cache[id(actions)] = (actions, ids)
        return ids

    def legal_mask(self, st: State, out: np.ndarray | None = None) -> np.ndarray:
        """The legal-action mask of ``st`` (int8, ``num_distinct_actions``: 1 for each legal
        action id; all 0 at the end or at a chance point), written into ``out`` when given.

        Raises:
            EncodingError: a legal action is outside the index space.
        """
        if out is None:
            out = np.zeros(self.num_distinct_actions, np.int8)
        else:
            out.fill(0)
        ids = self.legal_ids(st)
        if ids:
            out[list(ids)] = 1
        return out

    # -- strings ---------------------------------------------------------------------------
    @staticmethod
    def observation_string(st: State, player: int) -> str:
        """``player``'s observation of ``st`` as one line of JSON (sorted keys)."""
        return json.dumps(st.observation(player), sort_keys=True, separators=(",", ":"))

    @staticmethod
    def information_state_string(st: State, player: int) -> str:
        """``player``'s information state: :meth:`State.information_state` (the observation and
        the decisions the seat saw taken), the one key of the native API and both adapters."""
        return st.information_state(player)

    def information_state_tensor(self, st: State, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """``player``'s information state as a float32 vector of ``info_tensor_size``: the
        observation tensor, then the public history, one slot of ``num_players + 1`` numbers per
        decision up to ``max_game_length`` (the deciding seat one-hot, then 1 + the action's
        index, or -1 for another seat's ``secret`` action; empty slots 0)."""
        size, base = self.info_tensor_size, self.tensor_size
        t = np.zeros(size, np.float32) if out is None else out
        self.observation_tensor(st, player, t[:base])
        t[base:] = 0.0
        entries = []
        r = st.record
        while r is not None:
            entries.append(r[0])
            r = r[1]
        n, width, index = self.num_players, self.num_players + 1, self.action_index
        for k, (players, action, secret) in enumerate(reversed(entries[-self.max_game_length:] if len(entries) > self.max_game_length
                                                              else entries)):
            at = base + k * width
            t[at + players[0]] = 1.0
            t[at + n] = -1.0 if secret and player not in players else float(index.get(action, -2) + 1)
        return t

    # -- factored actions --------------------------------------------------------------------
    def action_factors(self) -> tuple[dict, ...]:
        """The options whose ids are the full product of their arguments' values, numbered in
        order (row-major: the last argument varies fastest), so an action can be chosen one
        argument at a time: Beer Knight's ``last_call(a, b)``, 14,400 flat ids, is 120 × 120.
        One entry per such option with at least two arguments: ``action`` (its name),
        ``decision``, ``first`` (its first id), ``sizes`` (values per argument) and
        ``values`` (each argument's values, in order).  The adapters' action spaces stay flat
        (OpenSpiel numbers each action once; PettingZoo's and Gymnasium's masks are flat): a
        factored policy maps its choice with :meth:`unfactor` and reads a flat id with
        :meth:`factor`."""
        out = getattr(self, "_factors", None)
        if out is not None:
            return out
        rows = []
        for choose, o, _how, ids in self.action_rows:
            if len(o.names) < 2 or not ids or ids != list(range(ids[0], ids[0] + len(ids))):
                continue
            args = [self.actions[i].args for i in ids]
            values = [list(dict.fromkeys(a[k] for a in args)) for k in range(len(o.names))]
            sizes = tuple(len(v) for v in values)
            if list(args) != _product(values):
                continue  # not a full product in row-major order: flat ids only
            rows.append({"action": o.name, "decision": choose.name, "first": ids[0], "sizes": sizes, "values": values})
        self._factors = out = tuple(rows)
        return out

    def factor(self, action_id: int) -> tuple[str, tuple[int, ...]] | None:
        """The flat id ``action_id`` as ``(action name, one index per argument)`` when its option
        is factored (:meth:`action_factors`), else None.

        Raises:
            EncodingError: ``action_id`` is not an id of the action space.
        """
        if type(action_id) is not int or not 0 <= action_id < self.num_distinct_actions:
            raise EncodingError(f"action id {action_id!r} is not an id from 0 to {self.num_distinct_actions - 1}")
        for row in self.action_factors():
            k = action_id - row["first"]
            total = 1
            for size in row["sizes"]:
                total *= size
            if 0 <= k < total:
                out = []
                for size in reversed(row["sizes"]):
                    out.append(k % size)
                    k //= size
                return row["action"], tuple(reversed(out))
        return None

    def unfactor(self, action: str, indexes) -> int:
        """The flat id of factored option ``action`` with one value index per argument
        (the inverse of :meth:`factor`).

        Raises:
            EncodingError: ``action`` is not a factored option, or an index is out of range
                or of the wrong count.
        """
        for row in self.action_factors():
            if row["action"] == action:
                sizes = row["sizes"]
                indexes = tuple(indexes)
                if len(indexes) != len(sizes) or not all(type(i) is int and 0 <= i < s for i, s in zip(indexes, sizes)):
                    raise EncodingError(f"`{action}` takes {len(sizes)} argument indexes within {' × '.join(map(str, sizes))}, "
                                        f"not {indexes!r}")
                k = 0
                for i, size in zip(indexes, sizes):
                    k = k * size + i
                return row["first"] + k
        names = ", ".join(r["action"] for r in self.action_factors()) or "none"
        raise EncodingError(f"{self.ruleset.name}: `{action}` is not a factored action (factored: {names})")

    # -- indices ---------------------------------------------------------------------------
    def index(self, action: Action) -> int:
        """The index of a player's ``action``.

        Raises:
            EncodingError: the action is not in the index space (see the module's notes).
        """
        i = self.action_index.get(action)
        if i is None:
            raise EncodingError(
                f"{self.ruleset.name}: action `{action}` is outside the action index built from exploring; "
                "explore more games (the `explore` parameter)")
        return i

    def legal_action(self, st: State, index: int) -> Action:
        """The action of ``st`` numbered ``index``: its legal action with that index (an option
        with ``merge_identical: true`` numbers every copy of a look alike, and the legal action
        is on the copy listed, a pile's top card), else ``actions[index]`` (which
        ``State.apply`` then refuses as illegal).

        Raises:
            IndexError: ``index`` is outside the action index space.
        """
        a = self.actions[index]
        legal = st.legal_actions()
        if a in legal:
            return a
        get = self.action_index.get
        return next((b for b in legal if get(b) == index), a)

    def chance_index_of(self, action: Action) -> int:
        """The index of a chance outcome ``Action("chance", (value,))``.

        Raises:
            EncodingError: the value is not in the chance index space.
        """
        v = action.args[0]
        i = self.chance_index.get((type(v), v))
        if i is None:
            raise EncodingError(f"{self.ruleset.name}: chance outcome `{v}` is outside the chance index space")
        return i

    def legal_indices(self, st: State) -> list[int]:
        """The indices of ``st``'s legal actions (or chance outcomes at a chance point), sorted."""
        if is_chance(st):
            return sorted(self.chance_index_of(a) for a, _ in st.chance_outcomes())
        index = self.index
        return sorted(index(a) for a in st.legal_actions())

    def chance_action(self, index: int) -> Action:
        """The chance outcome numbered ``index``."""
        return Action("chance", (self.chance_values[index],))

    def returns(self, st: State) -> list[float]:
        """The outcome's scores as floats once the game has ended, zeros before.

        Raises:
            EncodingError: a score is not a number.
        """
        if not st.finished:
            return [0.0] * self.num_players
        scores = st.outcome().scores
        if not all(isinstance(x, (int, float)) for x in scores):
            raise EncodingError(f"{self.ruleset.name}: returns are the outcome's scores, which must be numbers; found {list(scores)!r}")
        return [float(x) for x in scores]


class FactoredActions:
    """An encoding's flat action ids as factors ``(head, arg1, ..., argK)``, for a
    ``MultiDiscrete`` action space (the adapters' ``factored=True``).

    The *heads* are, in id order, each factored option of :meth:`Encoding.action_factors` (one
    head for all its ids) and every other flat id (one head each); ``argk`` is the index of the
    option's k-th argument's value.  ``nvec`` (int64, ``1 + K``): the number of heads, then for
    each argument position the most values any factored option has there (``K`` is the largest
    factored arity, 0 when no option is factored: then the factors are the flat id alone).
    An argument position a head does not use is ignored (written 0 by :meth:`encode`).
    """

    def __init__(self, enc: Encoding):
        self.encoding = enc
        rows = enc.action_factors()
        width = max((len(r["sizes"]) for r in rows), default=0)
        starts = {r["first"]: r for r in rows}
        #: per head: (first flat id, sizes or () for a single id)
        self.heads: list[tuple[int, tuple[int, ...]]] = []
        self.head_of = np.zeros(enc.num_distinct_actions, np.int64)  # flat id -> its head
        i = 0
        while i < enc.num_distinct_actions:
            row = starts.get(i)
            if row is None:
                self.head_of[i] = len(self.heads)
                self.heads.append((i, ()))
                i += 1
                continue
            total = int(np.prod(row["sizes"]))
            self.head_of[i:i + total] = len(self.heads)
            self.heads.append((i, tuple(row["sizes"])))
            i += total
        arg_sizes = [max([r["sizes"][k] for r in rows if len(r["sizes"]) > k], default=1) for k in range(width)]
        self.nvec = np.array([len(self.heads), *arg_sizes], np.int64)
        self.width = width

    def encode(self, action_id: int) -> np.ndarray:
        """The factors (int64, ``len(nvec)``) of the flat id ``action_id``.

        Raises:
            EncodingError: ``action_id`` is not an id of the action space.
        """
        enc = self.encoding
        if type(action_id) not in (int, np.int64) or not 0 <= action_id < enc.num_distinct_actions:
            raise EncodingError(f"action id {action_id!r} is not an id from 0 to {enc.num_distinct_actions - 1}")
        out = np.zeros(len(self.nvec), np.int64)
        head = int(self.head_of[action_id])
        out[0] = head
        first, sizes = self.heads[head]
        k = action_id - first
        for j in range(len(sizes) - 1, -1, -1):
            out[1 + j] = k % sizes[j]
            k //= sizes[j]
        return out

    def decode(self, factors) -> int:
        """The flat id of ``factors`` (a sequence of ``len(nvec)`` whole numbers), or -1 when
        they name no action (a head or an argument index outside its option's values)."""
        try:
            f = [int(x) for x in np.asarray(factors).reshape(-1)]
        except (TypeError, ValueError):
            return -1
        if len(f) != len(self.nvec) or not 0 <= f[0] < len(self.heads):
            return -1
        first, sizes = self.heads[f[0]]
        k = 0
        for j, size in enumerate(sizes):
            if not 0 <= f[1 + j] < size:
                return -1
            k = k * size + f[1 + j]
        return first + k

    def mask(self, ids, out: np.ndarray | None = None) -> np.ndarray:
        """The per-factor masks of the legal flat ``ids``, one after the other (int8,
        ``sum(nvec)``; the layout sb3-contrib's MaskablePPO reads for a ``MultiDiscrete``):
        the heads with a legal action, then for each argument position the indexes some legal
        action of a head using that position takes (index 0 when a legal head does not use
        it).  Each factor's mask is the marginal of the legal actions: a combination of
        allowed factors may still be illegal (the flat ``action_mask`` is exact)."""
        size = int(self.nvec.sum())
        if out is None:
            out = np.zeros(size, np.int8)
        else:
            out.fill(0)
        offsets = np.concatenate(([0], np.cumsum(self.nvec)[:-1]))
        for i in ids:
            f = self.encode(int(i))
            head_sizes = self.heads[int(f[0])][1]
            out[offsets[0] + f[0]] = 1
            for j in range(self.width):
                out[offsets[1 + j] + (f[1 + j] if j < len(head_sizes) else 0)] = 1
        return out


def _first_look(v: Any) -> Any:
    """``v`` with each component replaced by the first component of its look (its row's first
    copy): the value one encoding id stands for under ``merge_identical: true``."""
    if type(v) is Component:
        return v.look
    if type(v) is tuple:
        return tuple(_first_look(x) for x in v)
    return v


def static_actions(rs: Ruleset, num_players: int) -> list[tuple]:
    """Every option of every decision of ``rs`` (compiled as the encoding plays it) with the
    argument tuples it can produce, derived without playing: ``(choose, option, args)``, where
    ``args`` is ``[()]`` for an option without ``for`` and None when its ``in:`` reads values not
    known without playing (:func:`interpreter.interop.domains.option_domain`)."""
    out = []
    for choose in rs.chooses:
        for o in choose.options:
            out.append((choose, o, [()] if not o.names else option_domain(rs, o, num_players)))
    return out


def describe_encoding(rs: Ruleset, num_players: int) -> dict:
    """The action and chance-outcome encoding of ``rs`` for ``num_players``, as far as it is known
    without playing (``tapster info``), as JSON data: ``actions``: one entry per option (``decision``,
    ``action``, ``arguments``: per ``for`` name its number of values and up to six of them,
    ``ids``: ``[first, last]``, ``count``, ``derived``: false for an explored option, whose ids
    come after every derived one); ``derived_actions``: how many ids are derived;
    ``chance``: ``[first id, last id, what]`` runs of chance outcome ids, from 0."""
    from ..model import render

    ers = rs.with_chance("explicit") if has_chance(rs) else rs
    index: dict[Action, int] = {}
    rows, explored = [], []
    for choose, o, derived in static_actions(ers, num_players):
        decision = choose.name or "(unnamed)"
        if derived is None:
            explored.append({"decision": decision, "action": o.name, "arguments": [{"name": n} for n in o.names],
                             "ids": None, "count": None, "derived": False})
            continue
        if o.merge:  # one id per look of identical components
            derived = list(dict.fromkeys(tuple(_first_look(v) for v in a) for a in derived))
        ids = [index.setdefault(Action(o.name, args), len(index)) for args in derived]
        args = []
        for k, name in enumerate(o.names):
            vals = list(dict.fromkeys(a[k] for a in derived))
            args.append({"name": name, "count": len(vals), "values": [v.id if isinstance(v, Component) else render(v) for v in vals[:6]]})
        rows.append({"decision": decision, "action": o.name, "arguments": args,
                     "ids": [min(ids), max(ids)] if ids else None, "count": len(ids), "derived": True})
    chance = []
    if has_chance(rs):
        comps = [c.id for c in ers.components]
        if comps:
            chance.append([0, len(comps) - 1, f"the components, in the ruleset's order ({comps[0]} ... {comps[-1]})"])
        numbers = set()
        for effect in getattr(ers, "chance_effects", ()):
            inner = getattr(effect, "inner", effect)
            verb = getattr(inner, "verb", None)
            sides = getattr(getattr(inner, "sides", None), "constant", None)
            if verb == "roll" and type(sides) is int:
                numbers.update(range(1, sides + 1))
            elif verb == "random":
                numbers.update(range(num_players))
        if numbers:
            ns = sorted(numbers)
            chance.append([len(comps), len(comps) + len(ns) - 1, f"the numbers {ns[0]} ... {ns[-1]} (die faces, random picks' indexes)"])
    return {"players": num_players, "actions": rows + explored, "derived_actions": len(index), "chance": chance}


def _product(domains: list[list]) -> list[tuple]:
    out: list[tuple] = [()]
    for d in domains:
        out = [t + (v,) for t in out for v in d]
    return out


def encoding_for(ruleset: str, players: int | None, variant: str | None, explore: int, params: dict) -> Encoding:
    """The :class:`Encoding` an environment plays: ``ruleset`` (a name or path) with ``variant``
    and the ruleset parameters ``params`` (keywords of PettingZoo's and Gymnasium's
    constructors), for ``players`` seats (None: the ruleset's default).

    Raises:
        TapsterError: an unknown parameter (naming the ruleset's), a player count outside the
            ruleset's range, or any load error.
    """
    rs = load_ruleset(ruleset, variant)
    unknown = sorted(set(params) - set(rs.params))
    if unknown:
        raise TapsterError(f"{rs.title} has no parameter {', '.join(unknown)}; its parameters: {', '.join(rs.params) or 'none'}")
    if params:
        rs = load_ruleset(ruleset, variant, {"params": params})
    n = rs.default_players if players is None else players
    if not isinstance(n, int) or not rs.min_players <= n <= rs.max_players:
        raise TapsterError(f"{rs.title} is for {rs.min_players} to {rs.max_players} players, not {players}")
    return Encoding.of(rs, n, explore)
