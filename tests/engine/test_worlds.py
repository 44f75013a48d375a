"""Determinised worlds drawn again and again (interpreter/engine/worlds.py): ``Worlds(state,
p).draw(rng)`` is ``state.determinize(p, rng)``, byte for byte, drawing the same numbers, on
every shipped ruleset and variant in both chance modes; and what a :class:`Worlds` holds
depends only on what the seat sees."""

from __future__ import annotations

import pytest

from interpreter import TapsterError, load_ruleset
from interpreter.compile.compiler import available_rulesets
from interpreter.engine.rng import Rng
from interpreter.engine.worlds import Worlds

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
                want, got = st.determinize(p, a), worlds.draw(b)
                assert b.state == a.state  # the same numbers drawn
                assert got.to_json() == want.to_json()
                assert got.record == want.record  # the decisions as the seat saw them
                assert got.base[0] == "state" and got.base[1].to_json() == want.base[1].to_json()  # rebuilt from itself
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
            other = st.determinize(p, Rng(12345))  # another arrangement p cannot tell apart, another future
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
