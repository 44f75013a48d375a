"""Determinised worlds drawn again and again (interpreter/engine/worlds.py): ``Worlds(state,
p).draw(rng)`` (which ``state.determinize(p, rng)`` now is) gives, byte for byte and drawing the
same numbers, the world of the first implementation of ``determinize`` (kept here as the
reference, :func:`_reference_determinize`: each call found the hidden places, pooled and
shuffled them anew), on every shipped ruleset and variant in both chance modes; and what a
:class:`Worlds` holds depends only on what the seat sees."""

from __future__ import annotations

import pytest

from interpreter import TapsterError, load_ruleset
from interpreter.compile.compiler import available_rulesets
from interpreter.engine import chance as chance_mod
from interpreter.engine.places import _leaves_with_path
from interpreter.engine.rng import Rng, seed_state
from interpreter.engine.rng import shuffle as rng_shuffle
from interpreter.engine.state import _rebuild
from interpreter.engine.worlds import Worlds, _by_index, _masked_record, _relabel_unseen


def _reference_determinize(real, player: int, rng):
    """``State.determinize`` as it was written before :class:`Worlds` (the reference)."""
    if type(player) is not int or not 0 <= player < real.num_players:
        raise TapsterError(f"no seat {player!r} in a game of {real.num_players}")
    st = real.clone()
    st.base = None  # set below: a world never points back at the real game
    st.history = None
    st.record = _masked_record(st.record, player)  # another seat's secret action is not in the world
    rs = st.ruleset
    # (sort key, list, alone): every place the seat cannot see, in a canonical order; alone: a
    # place whose contents the seat knows (owner_contents of its own, public_contents), redealt
    # only within itself
    places = []
    for decl in rs.zone_list:
        z = st.zones[decl.name]
        vis = decl.visibility
        if decl.keyed:
            if vis != "public":
                places.extend(((decl.name, repr(k)), sub, False) for k, sub in z.items())
        elif decl.per_player:
            for i, sub in enumerate(z):
                if vis == "hidden" or (vis in ("owner", "owner_contents") and i != player):
                    places.extend(((decl.name, i, path), leaf, False) for path, leaf in _leaves_with_path(sub, decl.depth - 1))
                elif vis == "public_contents" or (vis == "owner_contents" and i == player):
                    places.extend(((decl.name, i, path), leaf, True) for path, leaf in _leaves_with_path(sub, decl.depth - 1))
        elif vis != "public":
            alone = vis == "public_contents"
            places.extend(((decl.name, path), leaf, alone) for path, leaf in _leaves_with_path(z, decl.depth))
    places.sort(key=lambda kp: repr(kp[0]))
    pools: dict = {}  # (kind, back) or ("alone", place number) -> [slots (place, index)], [components]
    kinds = rs.kinds
    for n, (_, place, alone) in enumerate(places):
        for i, c in enumerate(place):
            back = kinds[c.kind].back
            if alone:
                key = ("alone", n)
            else:
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
        redealt = {id(place) for _, place, _ in places}
        st.lazy = {k: g for k, g in st.lazy.items() if id(chance_mod.zone_at(st, k)) not in redealt}
    st.rng = seed_state(r.below(1 << 63))
    st._outcome = None
    st.log = None
    # Rebuilt from a copy of itself if a move in it fails: not from the real game's seed and
    # moves, which an agent holding the world could otherwise reach.
    st.checkpoint()
    return st

#: Every shipped ruleset's base game and variants.
GAMES = [(n, v) for n in available_rulesets() for v in [None, *sorted(load_ruleset(n).variants)]]


def _positions(rs, seeds=2, every=9, limit=90):
    """Positions of random games (chance sampled too), every ``every`` decisions."""
    for seed in range(seeds):
        st = rs.new_game(None, seed=seed, log=True)
        rng = Rng(seed)
        k = 0
        while not st.is_terminal() and k < limit:
            if st.is_chance():
                st.apply(st.sample_chance(rng))
                continue
            if k % every == 0:
                yield st
            actions = st.legal_actions()
            st.apply(actions[rng.below(len(actions))])
            k += 1


@pytest.mark.parametrize("chance", ["sample", "explicit"])
@pytest.mark.parametrize("name,variant", GAMES)
def test_a_drawn_world_is_the_determinised_world(name, variant, chance):
    rs = load_ruleset(name, variant).with_chance(chance)
    moved = 0
    for st in _positions(rs, seeds=2 if variant is None else 1, limit=60):
        before = st.to_json()
        for p in range(st.num_players):
            worlds = Worlds(st, p)
            a, b = Rng(p), Rng(p)
            for _ in range(2):
                want, got = _reference_determinize(st, p, a), worlds.draw(b)
                assert b.state == a.state  # the same numbers drawn
                assert got.to_json() == want.to_json()
                assert got.record == want.record  # the decisions as the seat saw them
                # rebuilt, if a move in it fails, by dealing it again: the same world, from the
                # seat's Worlds (which hold only what the seat sees) and the agent's generator state
                assert got.base[0] == "world" and got.base[1] is worlds
                assert _rebuild(got.base, None).to_json() == want.base[1].to_json()
                assert got.history is None and got.log is None
                moved += got.to_json() != st.to_json()
        assert st.to_json() == before  # the real game is untouched
    if any(z.visibility != "public" for z in rs.zones.values()):
        assert moved  # some world differs from the real game: the test compares redeals, not copies


@pytest.mark.parametrize("name", ["beer_cards", "beer_knight", "belgian_beers_race", "kuhn_poker"])
def test_what_worlds_hold_depends_only_on_what_the_seat_sees(name):
    rs = load_ruleset(name)
    for st in _positions(rs, seeds=1, every=5, limit=40):
        for p in range(st.num_players):
            other = _reference_determinize(st, p, Rng(12345))  # another arrangement p cannot tell apart, another future
            mine, theirs = Worlds(st, p), Worlds(other, p)
            assert mine.canonical.to_json() == theirs.canonical.to_json()
            assert mine.canonical.record == theirs.canonical.record
            assert mine.draw(Rng(3)).to_json() == theirs.draw(Rng(3)).to_json()


def test_worlds_for_a_seat_that_is_not_in_the_game_is_a_clear_error():
    st = load_ruleset("kuhn_poker").new_game(2, seed=0)
    for bad in (2, -1, "0"):
        with pytest.raises(TapsterError, match="no seat"):
            Worlds(st, bad)


@pytest.mark.parametrize("seed", [0, 1, "x", "blake2b:" + "ab" * 32])
def test_a_redeal_draws_as_a_loop_of_below_draws(seed):
    # SplitMix64 seeds and a secure (BLAKE2b) one: the same permutation, the same state after.
    from interpreter.engine.worlds import shuffled

    for size in (0, 1, 2, 3, 7, 52, 130):
        rng = Rng(seed)
        want = list(range(size))
        for i in range(size - 1, 0, -1):
            j = rng.below(i + 1)
            want[i], want[j] = want[j], want[i]
        state, got = shuffled(Rng(seed).state, range(size))
        assert got == want and state == rng.state
        items = list(range(size))  # a game's shuffle: in place, the same draws
        assert rng_shuffle(Rng(seed).state, items) == rng.state and items == want


@pytest.mark.parametrize("name", ["beer_knight", "kuhn_poker"])
def test_a_world_is_rebuilt_by_dealing_it_again_and_replaying_its_moves(name):
    """What `apply` does when a move in a world fails (the ruleset raises): the world dealt again
    from its base, then its moves so far, is the world as it stood."""
    rs = load_ruleset(name)
    st = next(_positions(rs, seeds=1, every=7, limit=8))
    world = Worlds(st, 0).draw(Rng(5))
    rng = Rng(9)
    for _ in range(6):
        if world.is_terminal() or world.is_chance():
            break
        actions = world.legal_actions()
        world.apply(actions[rng.below(len(actions))])
    assert world.history is not None
    assert _rebuild(world.base, world.history).to_json() == world.to_json()
