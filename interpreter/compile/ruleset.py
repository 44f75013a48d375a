"""The compiled ruleset: what the compiler (:mod:`interpreter.compile.compiler`) makes and a game
(:mod:`interpreter.engine.state`) runs — the declarations of zones, variables, procedures, triggers
and component kinds, and the immutable :class:`Ruleset` that holds them with the compiled
flow, the outcome and the generated code's sources.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from ..engine import flow
from ..engine.state import Keyed, State, encode_value, new_game
from ..errors import ExpressionError, FlowError, TapsterError
from ..lang.expression import Compiled, Env
from ..model import CONTENTS_VISIBILITIES, Component, Outcome, contents_of, render

__all__ = ["Ruleset", "ZoneDecl", "VarDecl", "Procedure", "Trigger", "Kind"]


# ---------------------------------------------------------------------------------------------
# Declarations


class ZoneDecl:
    """A declared zone: ``name``; ``per_player`` (one per seat); ``count`` (that many zones,
    per seat if per-player); ``visibility`` public | owner | hidden; ``refill_from`` (a
    ZoneRef refilling this zone when empty), ``refill_shuffle`` and ``refill_when``
    (``"on_draw"``: when a move draws from it empty; ``"immediately"``: as soon as a move leaves
    it empty, or puts components in its source while it is empty); ``depth`` how many
    indexes reach a single zone; ``keyed`` (a :class:`~interpreter.engine.state.Keyed` dict from keys
    to stacks, e.g. the places ``(x, y)`` of a grid: one index, the key, reaches a stack)."""

    __slots__ = (
        "name", "per_player", "count", "visibility", "refill_from", "refill_shuffle", "refill_when", "depth", "description",
        "keyed",
    )  # fmt: skip

    def empty(self, n: int) -> list | Keyed:
        """The zone's empty contents for ``n`` players."""
        if self.keyed:
            return Keyed()
        if self.per_player and self.count is not None:
            return [[[] for _ in range(self.count)] for _ in range(n)]
        if self.per_player:
            return [[] for _ in range(n)]
        if self.count is not None:
            return [[] for _ in range(self.count)]
        return []

    def observe(self, z: list, player: int | None) -> Any:
        """The zone as ``player`` may see it (None: an observer, who sees every zone's
        contents): component ids, or ``{"count": n}``.  Another
        seat's ``owner`` zone (a hand held up) also shows its components' backs when their kind
        declares ``back:`` fields: ``{"count": n, "backs": [[back, k], ...]}``, the backs in
        order with how many show each (a hand's order is its owner's secret).  A zone whose
        contents the seat knows but not their order (``owner_contents`` to its owner,
        ``public_contents`` to everyone) shows ``{"count": n, "contents": [[id, k], ...], "ids":
        [id, ...]}``: each kind of look-alike components once, by the id of the first of them in
        the ruleset (:attr:`Component.look`), with how many of them lie there, and the
        components themselves, both in the ruleset's order, never the zone's."""
        vis = "public" if player is None else self.visibility
        if self.keyed:
            if vis != "public":
                return {"count": sum(len(s) for s in z.values())}
            return [[encode_value(k), [c.id for c in s]] for k, s in z.items()]
        if vis in CONTENTS_VISIBILITIES:
            if self.per_player:
                return [self._shown(sub, *_seen_as(vis, i == player)) for i, sub in enumerate(z)]
            return self._shown(z, *_seen_as(vis, False))
        if self.per_player:  # public, owner, hidden: written out (observations are a hot path)
            return [self._shown(sub, vis == "public" or (vis == "owner" and i == player), vis == "owner")
                    for i, sub in enumerate(z)]
        return self._shown(z, vis == "public")

    def _shown(self, z: list, visible: bool, backs: bool = False, contents: bool = False) -> Any:
        if z and type(z[0]) is list:
            return [self._shown(s, visible, backs, contents) for s in z]
        if visible:
            return [c.id for c in z]
        if contents:  # which components, in the ruleset's order (not the zone's), and a count per look
            return {"count": len(z), "contents": contents_of(z), "ids": [c.id for c in sorted(z, key=_by_index)]}
        if backs and z and z[0].back is not None:
            seen: dict = {}
            for c in z:
                if c.back is not None:
                    seen[c.back] = seen.get(c.back, 0) + 1
            return {"count": len(z), "backs": [[b, seen[b]] for b in sorted(seen)]}
        return {"count": len(z)}


def _by_index(c: Component) -> int:
    return c.index


def _seen_as(vis: str, own: bool) -> tuple[bool, bool, bool]:
    """How a seat sees one part of a zone of visibility ``vis`` (``own``: the part is the
    seat's): (every component in order, backs only, the contents without their order)."""
    if vis == "public" or (vis == "owner" and own):
        return True, False, False
    if vis == "public_contents" or (vis == "owner_contents" and own):
        return False, False, True
    return False, vis == "owner", False



class VarDecl:
    """A declared variable: ``name``, ``per_player``, ``initial`` value, ``visibility``;
    ``shown``: people see it in the generic view of a ruleset without a display."""

    __slots__ = ("name", "per_player", "value", "visibility", "description", "shown")

    def initial(self, n: int) -> Any:
        """The initial value for ``n`` players (a fresh copy)."""
        if self.per_player:
            return [_fresh(self.value) for _ in range(n)]
        return _fresh(self.value)


_NESTED = (list, dict, tuple)


def _fresh(v: Any) -> Any:
    """A copy of the plain data ``v`` (YAML's lists, mappings, scalars): every list and dict
    new, everything else shared (immutable): a game never shares the ruleset's data."""
    t = type(v)
    if t is list:
        for x in v:
            if type(x) in _NESTED:
                return [_fresh(x) for x in v]
        return v[:]
    if t is dict:
        return {k: _fresh(x) for k, x in v.items()}
    if t is tuple:
        return tuple(_fresh(x) for x in v)
    return v


class Procedure:
    """A named block with parameters (``params``); ``block`` is filled in after compiling."""

    __slots__ = ("name", "params", "block", "spec", "path")


@dataclass
class Trigger:
    """A trigger: ``event`` it listens to, condition ``cond`` (or None) and ``block``."""

    event: str
    params: tuple
    cond: Compiled | None
    block: flow.Block


class Kind:
    """A component kind: ``name``, its ``components``, ``fields``, ``mutable`` property names,
    ``start`` zone name, ``back`` the fields its components show face down."""

    __slots__ = ("name", "components", "fields", "mutable", "start", "description", "back")


# ---------------------------------------------------------------------------------------------
# The compiled ruleset


class GameFacts(NamedTuple):
    """What a ruleset declares about every game for one seat count: ``actions`` (``limits:
    {actions: N}``, the most decisions a game takes, or None), ``range`` (``outcome: {range:
    [lo, hi]}``, every score's bounds, or None) and ``sum`` (``outcome: {sum: S}``, every
    outcome's scores' sum, or None)."""

    actions: int | None
    range: tuple[float, float] | None
    sum: float | None


class MetricDecl(NamedTuple):
    """A declared metric (``metrics: {NAME: {value, description, per_player}}``): ``name``,
    ``description``, ``per_player`` (evaluated per seat, the seat bound to ``p``), ``value``
    (the compiled expression) and ``mark`` (where its text starts)."""

    name: str
    description: str
    per_player: bool
    value: Compiled
    mark: Any


class Ruleset:
    """A compiled, immutable ruleset.  Create with :func:`load_ruleset`.

    ``name`` (its folder's name), ``title``, ``variant`` (None for the base game),
    ``min_players``/``max_players``, ``params`` (dict), ``kinds``, ``components`` (all, by
    index), ``by_id``, ``zones``/``vars`` (declarations by name), ``procedures``,
    ``variants`` (name -> description), ``scenarios`` (raw scenario data), ``doc`` (the
    Document with marks), ``path``; ``templates``: every text template compiled (labels,
    prompts, log lines, ``end_game`` reasons, display lines) as ``(function, mark, text,
    written)``, for ``tapster check``.
    """

    #: The function that loads a ruleset (``interpreter.compile.compiler.load_ruleset``, set there), for
    #: :meth:`with_chance`; ``load_args`` is (path, variant, overrides) of this one.
    loader = None
    chance = "sample"
    load_args = None
    files: tuple = ()  # every file the loader read for it (the ruleset, its tables), by path
    facts: dict = {}  # seat count -> GameFacts (set by the compiler)
    metrics: tuple = ()  # MetricDecl, in the order written (set by the compiler)
    cap_reasons: tuple = ()  # `limits: {caps}`: end reasons that mean a cap in the rules stopped the game

    def new_game(
        self, num_players: int | None = None, seed: int | str = 0, log: bool = False, position=None, chance: str | None = None
    ) -> State:
        """A new :class:`State` (see :func:`interpreter.engine.state.new_game`)."""
        n = num_players if num_players is not None else self.default_players
        return new_game(self, n, seed, log, position, chance=chance or self.chance)

    def with_chance(self, mode: str) -> Ruleset:
        """This ruleset played in chance mode ``mode`` (``sample`` or ``explicit``: see
        :mod:`interpreter.engine.chance`), compiled once and remembered.

        Raises:
            TapsterError: an unknown mode, or a ruleset not loaded from a file.
        """
        if mode == self.chance:
            return self
        siblings = self.__dict__.setdefault("siblings", {self.chance: self})
        if mode not in siblings:
            if self.loader is None or self.load_args is None:
                raise TapsterError(f"{self.name}: cannot compile for chance mode {mode!r} (not loaded from a file)")
            path, variant, overrides = self.load_args
            other = type(self).loader(path, variant, overrides, chance=mode)
            other.siblings = siblings
            siblings[mode] = other
        return siblings[mode]

    # used by the state ------------------------------------------------------------------------
    def place_components(self, st: State) -> None:
        """Put every component in its kind's ``start`` zone and set its mutable properties."""
        for kind in self.kinds.values():
            if kind.start is not None:
                st.zones[kind.start].extend(kind.components)
        for c, props in self.initial_props.items():
            st.props[c] = dict(props)

    def score_of(self, st: State, player: int) -> Any:
        """The score expression for ``player``."""
        env = Env(st, {"p": player})
        return self.score_expr(env)

    def outcome_of(self, st: State) -> Outcome:
        """The outcome of a finished state: scores, tiebreaks, ranking, winners."""
        n = st.num_players
        scores = []
        keys = []
        env = Env(st, {})
        for p in range(n):
            env.loc = {"p": p}
            env.refill()  # each seat's score evaluated with a fresh budget, as in an Env of its own
            s = self.score_expr(env)
            scores.append(s)
            keys.append((s, *[t(env) for t in self.tiebreaks]))
        try:
            ranking = tuple(sorted(range(n), key=lambda p: keys[p], reverse=True))
        except TypeError:  # a score of one kind, another's of another (a number and `none`)
            shown = "; ".join(f"P{p + 1}: {render(list(k) if len(k) > 1 else k[0])}" for p, k in enumerate(keys))
            raise ExpressionError(
                f"cannot rank the players: scores (and tie-breaks) must be alike to compare, numbers for one; "
                f"found {shown}", self.score_expr.mark) from None
        if self.winners_expr is not None:
            env.loc = {}
            env.refill()
            w = self.winners_expr(env)
            if not isinstance(w, (list, tuple)):  # one seat where a list is expected (the load catches most)
                raise ExpressionError(f"`winners` must give a list of seats from 0 to {n - 1}, found {render(w)!r}: "
                                      f"write `[...]` around one winner", self.winners_expr.mark)
            winners = tuple(w)
            if not all(type(x) is int and 0 <= x < n for x in winners):
                raise ExpressionError(
                    f"`winners` must give a list of seats from 0 to {n - 1}, found {render(w)!r}", self.winners_expr.mark)
            winners = tuple(sorted(winners))
        else:
            best = keys[ranking[0]]
            winners = tuple(p for p in range(n) if keys[p] == best)
        return Outcome(tuple(scores), ranking, winners, st.reason)

    def metric_values(self, st: State) -> dict[str, float | list[float]]:
        """Every declared metric of the game ``st`` (read, never changed; meant for a finished
        game): name -> a number, or for a ``per_player`` metric a list of one number per seat.
        true/false count as 1/0.

        Raises:
            ExpressionError: a metric's expression fails, or gives something other than a number
                or true/false (at the metric's file:line:column).
        """
        out: dict[str, float | list[float]] = {}
        for m in self.metrics:
            seats = range(st.num_players) if m.per_player else (None,)
            values = []
            for p in seats:
                v = m.value(Env(st, {"p": p} if p is not None else {}))
                if isinstance(v, bool):
                    v = int(v)
                if not isinstance(v, (int, float)) or v != v or v in (float("inf"), float("-inf")):
                    who = f" for P{p + 1}" if p is not None else ""
                    shown = f"a list [{render(v)}]" if isinstance(v, (list, tuple)) else repr(render(v))
                    raise ExpressionError(f"metric `{m.name}` gave {shown}{who}: a metric is a finite number "
                                          f"(or true/false, counted 1/0)", m.mark)
                values.append(float(v))
            out[m.name] = values if m.per_player else values[0]
        return out

    def visible_indexes(self, st: State, player: int | None) -> set[int]:
        """The indexes of the components ``player`` may see in ``st``: those in public zones and
        in the player's own ``owner`` zones (every zone for None, an observer; one pass over the
        zones, O(components)).  A component in a zone whose contents the seat knows but not
        their order (``owner_contents``, ``public_contents``) is not seen one by one: the seat
        sees how many of each look lie there (:meth:`ZoneDecl.observe`)."""
        seen: set[int] = set()
        for decl in self.zone_list:
            vis = "public" if player is None else decl.visibility
            if vis == "hidden":
                continue
            z = st.zones[decl.name]
            if decl.keyed:
                if vis == "public":
                    for stack in z.values():
                        seen.update(c.index for c in stack)
            elif decl.per_player:
                for i, sub in enumerate(z):
                    if vis == "public" or (vis == "owner" and i == player):
                        _collect(sub, decl.depth - 1, seen)
            elif vis == "public":
                _collect(z, decl.depth, seen)
        return seen

    def visible_component(self, st: State, comp: Component, player: int) -> bool:
        """True when ``player`` may see ``comp`` (it is in a zone they may look into)."""
        for decl in self.zone_list:
            z = st.zones[decl.name]
            if decl.keyed:
                if any(comp in s for s in z.values()):
                    return decl.visibility == "public"
            elif decl.per_player:
                for i, sub in enumerate(z):
                    if _contains(sub, comp, decl.depth - 1):
                        return decl.visibility == "public" or (decl.visibility == "owner" and i == player)
            elif _contains(z, comp, decl.depth):
                return decl.visibility == "public"
        return False

    def length_limit(self, num_players: int) -> int:
        """The most actions a game of ``num_players`` may take before a driver calls it endless
        (:meth:`check_length`): the declared longest game for that count, else ``limits:
        {actions: N}`` (default 100000)."""
        declared = self.facts.get(num_players)
        return declared.actions if declared is not None and declared.actions is not None else self.action_limit

    def check_length(self, st: State, actions: int) -> None:
        """For drivers playing a game out: raise when ``actions`` actions have been taken and
        the game asks for another decision (``limits: {actions: N}``, default 100000).  A chance
        point after the last decision (a card drawn once the last worker is placed) is no
        decision: the limit counts decisions, as the declared longest game does.

        Raises:
            FlowError: at the decision pending, which an endless loop keeps asking.
        """
        limit = self.length_limit(st.num_players)
        if actions >= limit and not st.finished and not st.is_chance():
            where = st.pending[0].mark if st.pending is not None else None
            raise FlowError(
                f"the game has not ended after {actions} actions (`limits: {{actions: {limit}}}` with {st.num_players} players): "
                "is this decision inside a loop that never ends, or is the declared longest game too short?", where)

    def __deepcopy__(self, memo) -> Ruleset:
        """A ruleset is immutable: a deep copy of anything holding one shares it."""
        return self

    def __reduce__(self):
        """Pickled as how it was loaded (path, variant, overrides, chance mode): loading it again
        in a process compiles it once (:func:`_unpickle_ruleset`).

        Raises:
            TypeError: the ruleset was not loaded from a file.
        """
        if self.load_args is None:
            raise TypeError(f"cannot pickle {self!r}: it was not loaded from a file")
        path, variant, overrides = self.load_args
        return (_unpickle_ruleset, (str(path), variant, overrides, self.chance))

    def __copy__(self) -> Ruleset:
        return self

    def __repr__(self) -> str:
        return f"<Ruleset {self.name}{' variant ' + self.variant if self.variant else ''}>"


_UNPICKLED: dict = {}  # (path, variant, overrides, chance) -> Ruleset, for pickled states and games


def _unpickle_ruleset(path: str, variant, overrides, chance: str) -> Ruleset:
    """A pickled :class:`Ruleset`, loaded (and compiled) once per process."""
    key = (path, variant, repr(overrides), chance)
    rs = _UNPICKLED.get(key)
    if rs is None:
        rs = _UNPICKLED[key] = Ruleset.loader(path, variant, overrides, chance=chance)
    return rs


def _collect(z, depth: int, out: set) -> None:
    if depth == 0:
        out.update(c.index for c in z)
    else:
        for s in z:
            _collect(s, depth - 1, out)


def _contains(z, comp, depth) -> bool:
    if depth == 0:
        return comp in z
    return any(_contains(s, comp, depth - 1) for s in z)
