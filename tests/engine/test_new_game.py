"""A new game whose start no seed changes is a copy of the first one (``state._keep_start``):
the same state as a game built from scratch, on every shipped ruleset, variant and seat count,
in both chance modes, with and without a log, and the same game played on."""

from __future__ import annotations

import pytest

from interpreter import load_ruleset
from interpreter.engine.rng import Rng, secure_seed

from .test_playout import CONFIGURATIONS, _flat, _same

SEEDS = (0, 7, "a text seed", 2**64 - 1)


def _from_scratch(rs, players, seed, log):
    """The new game built by running the setup and the flow, with no kept start."""
    kept = rs.__dict__.pop("_starts", None)
    try:
        return rs.new_game(players, seed=seed, log=log)
    finally:
        rs.__dict__.pop("_starts", None)
        if kept is not None:
            rs._starts = kept


def _play_on(st, seed: int, moves: int = 30) -> None:
    agent = Rng(seed)
    for _ in range(moves):
        if st.finished:
            return
        if st.is_chance():
            st.apply(st.sample_chance(agent))
            continue
        legal = st.legal_actions()
        st.apply(legal[agent.below(len(legal))])


@pytest.mark.parametrize("chance", ["sample", "explicit"])
@pytest.mark.parametrize("name,variant,players", CONFIGURATIONS, ids=[f"{n}-{v or 'base'}-{p}p" for n, v, p in CONFIGURATIONS])
def test_a_kept_start_is_the_game_built_from_scratch(name, variant, players, chance):
    rs = load_ruleset(name, variant)
    if chance != rs.chance:
        rs = rs.with_chance(chance)
    for log in (False, True):
        for i, seed in enumerate(SEEDS):
            fast = rs.new_game(players, seed=seed, log=log)  # the kept start's copy once there is one
            slow = _from_scratch(rs, players, seed, log)
            assert fast.base[:4] == ("new", rs, players, seed) and fast.rng == slow.rng
            _same(fast, slow)
            _play_on(fast, i)
            _play_on(slow, i)
            _same(fast, slow)


def test_a_start_is_kept_only_when_no_seed_changes_it():
    ttt = load_ruleset("tic_tac_toe")
    ttt.__dict__.pop("_starts", None)
    a = ttt.new_game(2, seed=1)
    assert set(ttt._starts) == {(2, False)}  # nothing drawn before the first decision
    b = ttt.new_game(2, seed=secure_seed())
    assert b.rng != a.rng and b.rng > (1 << 64)  # each copy its own generator, a secure one too
    b.apply(b.legal_actions()[4])
    assert ttt._starts[(2, False)].vars["board"] == [-1] * 9 and a.vars["board"] == [-1] * 9  # copies share nothing
    assert _flat(ttt.new_game(2, seed=1).history) == []
    knight = load_ruleset("beer_knight")
    knight.__dict__.pop("_starts", None)
    knight.new_game(2, seed=1)
    assert knight._starts == {}  # the setup shuffles: every seed its own start


def test_a_scenario_position_never_makes_or_takes_a_kept_start():
    rs = load_ruleset("tic_tac_toe")
    rs.__dict__.pop("_starts", None)

    def position(st):
        st.vars["board"][4] = 0

    st = rs.new_game(2, seed=3, position=position)
    assert st.vars["board"][4] == 0 and rs._starts == {}
    assert rs.new_game(2, seed=3).vars["board"][4] == -1
    assert rs.new_game(2, seed=3, position=position).vars["board"][4] == 0
