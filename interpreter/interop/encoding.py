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
   node for a map's nodes or neighbours, the product for tuples, the union for ``+``; an ``if``
   inside a comprehension is left out, so an option may have ids no state lists;
4. only an option whose ``in:`` reads values not known without playing (a variable, a ``let``,
   an attribute) is *explored*: ``games`` seeded random playouts (the same every time) record
   the values each argument took, and each argument's domain is widened by the value's type (a
   component to every component of its kind, a whole number to every number from
   ``min(0, smallest)`` to the largest seen, a map node to every node, a tuple element by element,
   ``(x, y)`` places to the rectangle seen grown by half its size on every side,
   ``true``/``false`` to both).  Explored options are numbered after every derived one, so the
   derived ids never depend on playing; ``tapster info`` shows which is which and ``tapster
   check`` warns, naming the action.  A value never seen raises :class:`EncodingError`.

The same action text in two decisions has one index.  Chance outcomes (``Action("chance",
(value,))``) have their own space, numbered from 0: every component id in the ruleset's order
(a card drawn), then the whole numbers a chance point can give, in order (a die's faces 1 to its
sides, a ``random`` pick's indexes 0 to the seat count, and any other number seen exploring).

**The observation tensor** (float32, one flat vector, the same size in every state) is, in order:

- ``seat``: one-hot of the observing seat (``num_players``);
- ``deciding``: 1 for each seat that must decide now (``num_players``); ``finished``: 1 at the end;
- ``zones``: for every single zone in declaration order (a per-player zone seat by seat, a
  counted zone index by index), one slot per component (its position in the zone from the
  bottom, plus 1, when the seat may see it there, else 0) and one slot with the zone's count
  (which everyone sees); a zone whose contents the seat knows but not their order
  (``owner_contents``, ``public_contents``) has, in the slot of the first component of each
  look, how many of that look lie there; a keyed zone has three slots per component (its height in its stack
  plus 1, then the key's first two numbers) and its count;
- ``vars``: every scalar inside the variables (and mutable component properties) the seat may
  see, one slot each, at the places (list indexes, record keys) met while exploring; a list
  longer than any seen is cut (the observation string has everything);

where a scalar is a number itself, ``true``/``false`` 1/0, ``none`` 0, and text (a component id,
a map node, a word) 1 + its index in the sorted vocabulary of texts met while exploring, or -1
for a text never met.  :meth:`Encoding.tensor_layout` names each part's slice.

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
from ..engine.state import State, new_game
from ..errors import TapsterError
from ..model import Action, Component
from .domains import option_domain

__all__ = ["Encoding", "EncodingError", "has_chance", "static_actions", "describe_encoding", "CHANCE"]

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
        rs, n = self.ruleset, self.num_players
        seen: dict[tuple[int, str], list[set]] = {}  # (choose id, option) -> values per argument
        chance_ints: set[int] = set()
        paths: dict[tuple, None] = {}
        texts: set[str] = {c.id for c in rs.components}
        rng = Rng(f"explore:{seed}")
        for g in range(games):
            st = new_state(self, f"explore:{seed}:{g}")
            taken = 0
            step = 0
            while True:
                # one seat's view a step, in turn (observations are the costly part), every seat's at the end
                for p in range(n) if st.finished or step == 0 else (step % n,):
                    self._scan_observation(st.observation(p), paths, texts)
                step += 1
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
        self._build_actions(seen)
        self._build_chance(chance_ints)
        self._build_tensor(paths, texts)

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
    def _scan_observation(self, obs: dict, paths: dict, texts: set) -> None:
        for name, value in obs["vars"].items():
            _leaves(value, ("vars", name), paths, texts)
        for cid, props in (obs.get("props") or {}).items():
            _leaves(props, ("props", cid), paths, texts)
        for name in (d.name for d in self.ruleset.zone_list if d.keyed):
            z = obs["zones"][name]
            if isinstance(z, list):
                for key, _ in z:
                    _leaves(key, ("key",), {}, texts)
        if isinstance(obs.get("phase"), str):
            texts.add(obs["phase"])

    def _build_tensor(self, paths: dict, texts: set) -> None:
        rs, n = self.ruleset, self.num_players
        ncomp = len(rs.components)
        self.texts = {t: i + 1 for i, t in enumerate(sorted(texts))}
        layout: list[tuple[str, int, int]] = []
        at = 0

        def part(name: str, size: int) -> int:
            nonlocal at
            layout.append((name, at, at + size))
            at += size
            return at - size

        part("seat", n)
        part("deciding", n)
        part("finished", 1)
        self.zone_slots: list[tuple] = []  # (zone name, index path, keyed, start)
        for decl in rs.zone_list:
            if decl.keyed:
                self.zone_slots.append((decl.name, (), True, part(f"zones.{decl.name}", 3 * ncomp + 1)))
                continue
            for path in _zone_paths(decl.empty(n), decl.depth):
                label = decl.name + "".join(f"[{i}]" for i in path)
                self.zone_slots.append((decl.name, path, False, part(f"zones.{label}", ncomp + 1)))
        ordered = sorted(paths, key=lambda p: tuple(_sort_key(x) for x in p))
        self.var_slots = {p: i for i, p in enumerate(ordered)}
        self.var_start = part("vars", len(ordered))
        self.layout = tuple(layout)
        self.tensor_size = at
        self.info_tensor_size = at + self.max_game_length * (n + 1)

    def tensor_layout(self) -> tuple[tuple[str, int, int], ...]:
        """The tensor's parts as ``(name, start, stop)`` slices, in order."""
        return self.layout

    def scalar(self, v: Any) -> float:
        """A JSON scalar as one number (see the module's notes)."""
        if v is None:
            return 0.0
        if v is True:
            return 1.0
        if v is False:
            return 0.0
        if isinstance(v, (int, float)):
            return float(v)
        return float(self.texts.get(v, -1))

    def observation_tensor(self, st: State, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """``player``'s observation of ``st`` as a float32 vector of ``tensor_size`` (written into
        ``out`` when given), built from ``st.observation(player)`` only."""
        return self.tensor_from(st.observation(player), player, out)

    def tensor_from(self, obs: dict, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """The tensor of an observation (JSON data from ``State.observation``)."""
        t = np.zeros(self.tensor_size, np.float32) if out is None else out
        if out is not None:
            t.fill(0.0)
        n = self.num_players
        t[player] = 1.0
        for q in obs.get("deciding", ()):
            t[n + q] = 1.0
        t[2 * n] = 1.0 if obs["finished"] else 0.0
        by_id = self.ruleset.by_id
        ncomp = len(self.ruleset.components)
        zones = obs["zones"]
        for name, path, keyed, start in self.zone_slots:
            z = zones[name]
            if keyed:
                if isinstance(z, dict):
                    t[start + 3 * ncomp] = z["count"]
                    continue
                count = 0
                for key, ids in z:
                    k = _key_numbers(key, self)
                    for h, cid in enumerate(ids):
                        i = 3 * by_id[cid].index
                        t[start + i] = h + 1
                        t[start + i + 1] = k[0]
                        t[start + i + 2] = k[1]
                    count += len(ids)
                t[start + 3 * ncomp] = count
                continue
            for i in path:
                z = z[i]
            if isinstance(z, dict):
                t[start + ncomp] = z["count"]
                for cid, k in z.get("contents", ()):  # known contents, unknown order: a count per look
                    t[start + by_id[cid].index] = k
                continue
            for pos, cid in enumerate(z):
                t[start + by_id[cid].index] = pos + 1
            t[start + ncomp] = len(z)
        slots, base = self.var_slots, self.var_start
        found: dict = {}
        for name, value in obs["vars"].items():
            _leaves(value, ("vars", name), found, None)
        for cid, props in (obs.get("props") or {}).items():
            _leaves(props, ("props", cid), found, None)
        for p, v in found.items():
            i = slots.get(p)
            if i is not None:
                t[base + i] = self.scalar(v)
        return t

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
        self.tensor_from(st.observation(player), player, t[:base])
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


def _zone_paths(z: Any, depth: int, path: tuple = ()) -> list[tuple]:
    if depth == 0:
        return [path]
    out = []
    for i, sub in enumerate(z):
        out.extend(_zone_paths(sub, depth - 1, path + (i,)))
    return out


def _leaves(value: Any, path: tuple, out: dict, texts: set | None) -> None:
    """The scalars inside a JSON value (``encode_value``'s format), by path, into ``out``."""
    if isinstance(value, list):
        for i, v in enumerate(value):
            _leaves(v, path + (i,), out, texts)
        out[path + ("len",)] = len(value)
        return
    if isinstance(value, dict):
        if "c" in value and len(value) == 1:
            value = value["c"]
        elif "t" in value and len(value) == 1:
            for i, v in enumerate(value["t"]):
                _leaves(v, path + (i,), out, texts)
            return
        elif "d" in value and len(value) == 1:
            for k, v in value["d"]:
                key = k if isinstance(k, (str, int, float, bool)) or k is None else json.dumps(k, sort_keys=True)
                _leaves(v, path + ("d", str(key)), out, texts)
            return
        else:
            for k in sorted(value):
                _leaves(value[k], path + (str(k),), out, texts)
            return
    out[path] = value
    if texts is not None and isinstance(value, str):
        texts.add(value)


def _key_numbers(key: Any, enc: Encoding) -> tuple[float, float]:
    """A keyed zone's key (JSON) as two numbers: an ``(x, y)`` place's x and y, else the key's
    scalar and 0."""
    if isinstance(key, dict) and "t" in key:
        items = [enc.scalar(x["c"] if isinstance(x, dict) and "c" in x else x) for x in key["t"][:2]]
        return (items + [0.0, 0.0])[0], (items + [0.0, 0.0])[1]
    if isinstance(key, dict) and "c" in key:
        return enc.scalar(key["c"]), 0.0
    return enc.scalar(key), 0.0


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
