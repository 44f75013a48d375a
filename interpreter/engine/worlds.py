"""Worlds: states a seat cannot tell from the real one, drawn at random, for agents that search
games of hidden information (ISMCTS, determinized MCTS, the OpenSpiel adapter's resampling).

:class:`Worlds` finds what a seat may not see once per position (the hidden places in a
canonical order, the pools of look-alike components, the record with other seats' secrets
masked, a canonical world holding nothing the seat cannot see); each :meth:`Worlds.draw` then
copies that world, redeals every pool among its places (:func:`shuffled`), keeps every
reference consistent with the redeal (:func:`_relabel_unseen`) and reseeds the random
generator, so that nothing of the real hidden arrangement or the real future chance reaches an
agent holding the world.  An information-set search draws a hundred or more worlds from one
position; :func:`determinize` (``State.determinize``) draws one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import TapsterError
from ..model import Action, Component, sees_contents
from . import chance as chance_mod
from . import flow
from .chance import CHANCE
from .places import _leaves_with_path
from .rng import below as rng_below
from .rng import seed_state
from .rng import shuffle as rng_shuffle

if TYPE_CHECKING:  # pragma: no cover
    from .rng import Rng
    from .state import State

__all__ = ["Worlds", "determinize", "shuffled"]


def determinize(real: State, player: int, rng) -> State:
    """A new state that ``player`` cannot tell from this one, drawn at random: the
    components in places ``player`` may not look into (hidden zones, other seats' ``owner``
    zones, keyed zones that are not public) are redealt uniformly among those places, each
    place keeping its count, and the random generator is reseeded from ``rng`` (an
    :class:`~interpreter.engine.rng.Rng`), so that nothing of the real hidden arrangement or of the
    real future chance reaches an agent searching the copy.  A place whose contents ``player``
    knows but not their order (its own ``owner_contents`` zone, a ``public_contents`` zone: a
    deck-builder's draw pile) keeps its own components, in a new order: it neither gives nor
    takes a component from any other place.

    Components are exchangeable when they are of one kind and alike in the fields their kind
    shows face down (``back:``, e.g. the deck a card belongs to): a Weapon card is never
    redealt into the Mount deck.  The result depends only on what ``player`` sees and on
    ``rng``: two states that differ only in what ``player`` cannot see give the same world
    for the same ``rng``.  What the world says about a redealt component follows its slot:
    a reference to the component that lay there, in what ``player`` cannot see (hidden
    variables, other seats' ``owner`` values, the names and loops of the flow's frames, a
    decision pending for other seats), and its mutable properties become the new
    component's, so the world stays consistent (Beer Cards' owner-only ``face_down`` list
    names the cards now in that hand) and leaks nothing.  Not modelled (an approximation
    that never cheats, it forgets): what the seat saw earlier and no longer sees (a card it
    passed face down, a card it saw drawn) is redealt like any other.  The world keeps no
    log (lines for other seats), and is rebuilt, if a move in it fails, from a copy of itself made
    when it was drawn (never from the real game's seed and moves).

    Raises:
        TapsterError: ``player`` is not a seat of this game.
    """
    return Worlds(real, player).draw(rng)


def shuffled(s: int, items) -> tuple[int, list]:
    """``items`` as a new list shuffled from generator state ``s`` (:func:`~interpreter.engine.
    rng.shuffle`, the same numbers and order as a loop of ``below`` draws); returns (the new
    state, the list)."""
    out = list(items)
    return rng_shuffle(s, out), out


class Worlds:
    """The worlds seat ``player`` cannot tell from ``state``, ready to be drawn.

    Built once from a copy of ``state`` taken now (later changes to ``state`` do not reach it):
    the places ``player`` cannot see, in the canonical order of :meth:`State.determinize`; their
    components grouped in pools of look-alikes (one kind, the same ``back:`` fields), each
    pool's slots in that order and its components sorted by index, from which every draw
    starts its shuffle; and ``canonical``, the world where every pool lies in that sorted order
    (references the seat cannot see and mutable properties following the components as
    :meth:`State.determinize` has them follow, no log, the record with other seats' secret
    actions masked, a generator state of its own).  A draw copies ``canonical`` and deals each
    pool shuffled.  ``canonical`` depends only on what ``player`` sees, as every world does:
    a :class:`Worlds` holds nothing of the real arrangement of what the seat cannot see, nor of
    the real generator.

    Raises:
        TapsterError: ``player`` is not a seat of this game.
    """

    __slots__ = ("player", "canonical", "places", "pools")

    def __init__(self, state: State, player: int):
        if type(player) is not int or not 0 <= player < state.num_players:
            raise TapsterError(f"no seat {player!r} in a game of {state.num_players}")
        st = state.clone()
        st.log = None  # a world keeps no log
        st.base = None  # and never points back at the real game
        st.history = None
        st.record = _masked_record(st.record, player)  # another seat's secret action is not in a world
        st._outcome = None
        st.rng = seed_state(0)  # not the real generator: every draw reseeds its world
        rs = st.ruleset
        # (sort key, how to find the place in a copy, list, alone): every place the seat cannot
        # see, or whose contents it knows but not their order (alone: redealt within itself)
        found = []
        for decl in rs.zone_list:
            name = decl.name
            z = st.zones[name]
            vis = decl.visibility
            if decl.keyed:
                if vis != "public":
                    found.extend(((name, repr(k)), (name, k, ()), sub, False) for k, sub in z.items())
            elif decl.per_player:
                for i, sub in enumerate(z):
                    if vis == "public" or (vis == "owner" and i == player):
                        continue
                    alone = sees_contents(vis, i == player)
                    found.extend(((name, i, path), (name, None, (i, *path)), leaf, alone)
                                 for path, leaf in _leaves_with_path(sub, decl.depth - 1))
            elif vis != "public":
                alone = sees_contents(vis, False)
                found.extend(((name, path), (name, None, path), leaf, alone) for path, leaf in _leaves_with_path(z, decl.depth))
        found.sort(key=lambda f: repr(f[0]))
        #: How to find each place in a copy: (zone name, the key in a keyed zone or None, indexes).
        self.places = tuple(where for _, where, _, _ in found)
        # (kind, back) -> [slots (place number, index)], [components]; ("alone", n) for a place
        # whose contents the seat knows: its own components, in another order
        pools: dict = {}
        kinds = rs.kinds
        for n, (_, _, place, alone) in enumerate(found):
            for i, c in enumerate(place):
                if alone:
                    key = ("alone", n)
                else:
                    back = kinds[c.kind].back
                    key = (c.kind, tuple(repr(c.fields.get(f)) for f in back)) if back else c.kind
                slots, comps = pools.setdefault(key, ([], []))
                slots.append((n, i))
                comps.append(c)
        #: Each pool in the canonical order: (its slots, its components sorted by index).
        self.pools = tuple((tuple(slots), tuple(sorted(comps, key=_by_index)))
                           for slots, comps in (pools[key] for key in sorted(pools, key=repr)))
        moved: dict = {}  # the real component in a slot -> the one the canonical world has there
        for slots, ordered in self.pools:
            for (n, i), c in zip(slots, ordered, strict=True):
                place = found[n][2]
                was = place[i]
                place[i] = c
                if c is not was:
                    moved[was] = c
        if moved:
            _relabel_unseen(state, st, player, moved)
        if st.lazy:  # a redealt place is in random order already
            redealt = {id(f[2]) for f in found}
            st.lazy = {k: g for k, g in st.lazy.items() if id(chance_mod.zone_at(st, k)) not in redealt}
        self.player = player
        self.canonical = st

    def draw(self, rng: Rng) -> State:
        """A new world, the same as ``state.determinize(player, rng)`` would give (see
        :meth:`State.determinize <interpreter.engine.state.State.determinize>`), drawing the same
        numbers from ``rng`` (an :class:`~interpreter.engine.rng.Rng`)."""
        r = rng.state
        st, rng.state = self.deal(r)
        # Rebuilt, if a move in it fails, by dealing it again from ``r`` (no copy is kept: one
        # clone less a world): not from the real game's seed and moves, which an agent holding
        # the world could otherwise reach.
        st.base = ("world", self, r)
        st.history = None
        return st

    def deal(self, r: int) -> tuple[State, int]:
        """The world drawn from generator state ``r`` (see :meth:`draw`), and the state after."""
        canonical = self.canonical
        st = canonical.clone()
        zones = st.zones
        places = []
        for name, key, path in self.places:
            z = zones[name]
            if key is not None:
                z = z[key]
            for i in path:
                z = z[i]
            places.append(z)
        moved: dict = {}  # the component in a slot of the canonical world -> the one dealt there
        for slots, ordered in self.pools:
            r, comps = shuffled(r, ordered)
            for (n, i), c, was in zip(slots, comps, ordered, strict=True):
                places[n][i] = c
                if c is not was:
                    moved[was] = c
        if moved:
            _relabel_unseen(canonical, st, self.player, moved)
        r, seed = rng_below(r, 1 << 63)
        st.rng = seed_state(seed)
        return st, r


def _by_index(c: Component) -> int:
    return c.index


def _relabel(v: Any, moved: dict) -> Any:
    """``v`` with every component in ``moved`` replaced by the one it maps to, inside lists,
    tuples, dicts and sets (other values as they are; containers unchanged are returned as is)."""
    t = type(v)
    if t is Component:
        return moved.get(v, v)
    if t is list:
        return [_relabel(x, moved) for x in v]
    if t is tuple:
        return tuple(_relabel(x, moved) for x in v)
    if t is dict:
        return {_relabel(k, moved): _relabel(x, moved) for k, x in v.items()}
    if t is set or t is frozenset:
        return t(_relabel(x, moved) for x in v)
    return v


def _relabel_unseen(real: State, st: State, player: int, moved: dict) -> None:
    """In the world ``st`` (see :meth:`State.determinize`): the references ``player`` cannot
    see follow the redeal ``moved`` (the component that lay in a slot -> the one dealt there),
    and so do the mutable properties of the redealt components."""
    rs = st.ruleset
    for decl in rs.vars.values():
        if decl.visibility == "hidden":
            st.vars[decl.name] = _relabel(st.vars[decl.name], moved)
        elif decl.visibility == "owner" and decl.per_player:
            value = st.vars[decl.name]
            st.vars[decl.name] = [x if i == player else _relabel(x, moved) for i, x in enumerate(value)]
    frames = []
    for block, pc, loc, loop in st.stack:
        if loop is not None and loop[0] == flow.EACH:
            loop = (loop[0], _relabel(loop[1], moved)) + tuple(loop[2:])
        frames.append((block, pc, _relabel(loc, moved), loop))
    st.stack = frames
    p = st.pending
    if p is not None and player not in p[3] and p[3] != (CHANCE,):
        choose, loc, actions, players = p
        actions = tuple(Action(a.name, _relabel(a.args, moved)) for a in actions)
        st.pending = (choose, _relabel(loc, moved), actions, players)
    if st.props:
        for was, now in moved.items():
            if was.index in real.props:
                st.props[now.index] = real.props[was.index].copy()


def _masked_record(record, player: int):
    """``record`` with every secret action another seat than ``player`` took replaced by None."""
    entries = []
    while record is not None:
        (players, action, secret), record = record
        entries.append((players, None if secret and player not in players else action, secret))
    out = None
    for e in reversed(entries):
        out = (e, out)
    return out
