"""Worlds: states a seat cannot tell from the real one, drawn at random, for agents that search
games of hidden information (ISMCTS, determinized MCTS, the OpenSpiel adapter's resampling).

:func:`determinize` redeals what a seat may not see among the places it may not see, keeps every
reference consistent with the redeal (:func:`_relabel_unseen`) and reseeds the random generator,
so that nothing of the real hidden arrangement or the real future chance reaches an agent
holding the world.  ``State.determinize`` calls it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import TapsterError
from ..model import Action, Component
from . import chance as chance_mod
from . import flow
from .chance import CHANCE
from .places import _leaves_with_path
from .rng import seed_state

if TYPE_CHECKING:  # pragma: no cover
    from .state import State

__all__ = ["determinize"]


def determinize(real: State, player: int, rng) -> State:
    """A new state that ``player`` cannot tell from this one, drawn at random: the
    components in places ``player`` may not look into (hidden zones, other seats' ``owner``
    zones, keyed zones that are not public) are redealt uniformly among those places, each
    place keeping its count, and the random generator is reseeded from ``rng`` (an
    :class:`~interpreter.engine.rng.Rng`), so that nothing of the real hidden arrangement or of the
    real future chance reaches an agent searching the copy.

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
    if type(player) is not int or not 0 <= player < real.num_players:
        raise TapsterError(f"no seat {player!r} in a game of {real.num_players}")
    st = real.clone()
    st.base = None  # set below: a world never points back at the real game
    st.history = None
    st.record = _masked_record(st.record, player)  # another seat's secret action is not in the world
    rs = st.ruleset
    places = []  # (sort key, list): every place the seat cannot see, in a canonical order
    for decl in rs.zone_list:
        z = st.zones[decl.name]
        vis = decl.visibility
        if decl.keyed:
            if vis != "public":
                places.extend(((decl.name, repr(k)), sub) for k, sub in z.items())
        elif decl.per_player:
            for i, sub in enumerate(z):
                if vis == "hidden" or (vis == "owner" and i != player):
                    places.extend(((decl.name, i, path), leaf) for path, leaf in _leaves_with_path(sub, decl.depth - 1))
        elif vis != "public":
            places.extend(((decl.name, path), leaf) for path, leaf in _leaves_with_path(z, decl.depth))
    places.sort(key=lambda kp: repr(kp[0]))
    pools: dict = {}  # (kind, back) -> [slots (place, index)], [components]
    kinds = rs.kinds
    for _, place in places:
        for i, c in enumerate(place):
            back = kinds[c.kind].back
            key = (c.kind, tuple(repr(c.fields.get(f)) for f in back)) if back else c.kind
            slots, comps = pools.setdefault(key, ([], []))
            slots.append((place, i))
            comps.append(c)
    r = rng
    moved: dict = {}  # component that lay in a slot -> the one dealt into it
    for key in sorted(pools, key=repr):
        slots, comps = pools[key]
        old = list(comps)
        comps.sort(key=_by_index)
        for i in range(len(comps) - 1, 0, -1):  # Fisher-Yates with the agent's generator
            j = r.below(i + 1)
            comps[i], comps[j] = comps[j], comps[i]
        for (place, i), c, was in zip(slots, comps, old, strict=True):
            place[i] = c
            if c is not was:
                moved[was] = c
    if moved:
        _relabel_unseen(real, st, player, moved)
    if st.lazy:  # a redealt place is in random order already
        redealt = {id(place) for _, place in places}
        st.lazy = {k: g for k, g in st.lazy.items() if id(chance_mod.zone_at(st, k)) not in redealt}
    st.rng = seed_state(r.below(1 << 63))
    st._outcome = None
    st.log = None
    # Rebuilt from a copy of itself if a move in it fails: not from the real game's seed and
    # moves, which an agent holding the world could otherwise reach.
    st.checkpoint()
    return st


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
