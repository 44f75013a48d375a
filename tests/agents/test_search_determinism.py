"""The search agents are reproducible (interpreter/agents/search.py): the same ruleset, seeds and
agents give the same choices, byte for byte, in one process and across processes; and the
speed-ups of the search (issue 24) left every choice as it was.

``RECORDED`` holds, for every shipped ruleset in both chance modes, a digest of the first 40
actions of one game played by an ``ismcts``, an ``mcts`` (three determinised worlds) and a
``greedy`` seat (seats in that order, round the table), recorded with the search code as it was
before it was made faster (branch ``search``, parent of the commit that added this file).  A
change that alters any choice of a seeded agent changes a digest: it must then say why in its
commit and record the new digests.
"""

from __future__ import annotations

import hashlib

import pytest

from interpreter import load_ruleset
from interpreter.agents.core import make_agent
from interpreter.engine.rng import Rng

SPECS = ["ismcts:iterations=12:depth=30", "mcts:iterations=12:depth=30:worlds=3", "greedy"]

RECORDED = {
    ("beer_cards", "sample"): "7267adbf2dc9469d",
    ("beer_cards", "explicit"): "804b189ae6fddc11",
    ("beer_flights", "sample"): "72e54b934753396a",
    ("beer_flights", "explicit"): "0885a505f069d78b",
    # issue 43: Beer Knight's rules changed (the dice of a reroll picked, the lowest die rerolled
    # alone, no Card Swap before a Baron Battle's re-deal): the searches' playouts meet the new
    # decisions, so seat 0's ISMCTS picks other Combo cards (sample: from the first action; explicit:
    # from action 22); the old ruleset still gives 10dcf0ca81994109 and b9ca137f14892f79
    ("beer_knight", "sample"): "32a0f15d5bd864e0",
    ("beer_knight", "explicit"): "9d7c639ea52e1aa0",
    ("belgian_beers_race", "sample"): "c48d703b51ae735f",
    ("belgian_beers_race", "explicit"): "05ae3fbc5c9508cf",
    # issue 47's Brewers' Yard, recorded when it was shipped
    ("brewers_yard", "sample"): "409fbfe40ca242b6",
    ("brewers_yard", "explicit"): "34ae716d6c92488e",
    # issue 47: the deck-builder, whose draw piles are owner_contents (worlds reshuffle only a
    # seat's own pile) and whose buys merge identical cards
    ("brewhouse", "sample"): "8e85333657325c5f",
    ("brewhouse", "explicit"): "c32d50399e34a233",
    ("connect_four", "sample"): "50b41b20cac649cc",
    ("connect_four", "explicit"): "50b41b20cac649cc",
    ("drink_and_beat", "sample"): "d5551dc3d62b252a",
    ("drink_and_beat", "explicit"): "d4b41fd9abaf804b",
    # issue 46 renamed Kuhn's actions to OpenSpiel's pass and bet: the same choices (bet, call
    # was 41706349ec9df82e and 06248e5d1b0dfe0d), now written bet, bet
    ("kuhn_poker", "sample"): "3a272f28920c86aa",
    ("kuhn_poker", "explicit"): "e77629604218a2b0",
    ("little_railways", "sample"): "1788bcb2760738f8",
    ("little_railways", "explicit"): "5780b7f733f61531",
    ("tic_tac_toe", "sample"): "d87ac8a9021509a6",
    ("tic_tac_toe", "explicit"): "d87ac8a9021509a6",
}


def _game(name: str, chance: str, seed: int, limit: int = 40) -> list[str]:
    """The first ``limit`` actions of a game with the search agents of :data:`SPECS` round the
    table (explicit chance sampled from a generator seeded with ``seed``)."""
    rs = load_ruleset(name).with_chance(chance)
    n = rs.default_players
    st = rs.new_game(n, seed=seed)
    agents = [make_agent(SPECS[p % len(SPECS)], f"{seed}:{p}") for p in range(n)]
    rng = Rng(seed)
    taken: list[str] = []
    while not st.is_terminal() and len(taken) < limit:
        if st.is_chance():
            a = st.sample_chance(rng)
        else:
            p = st.current_players()[0]
            before = st.to_json()
            a = agents[p].act(st, p)
            assert st.to_json() == before  # an agent never changes the state it is asked about
        taken.append(str(a))
        st.apply(a)
    return taken


def _digest(actions: list[str]) -> str:
    return hashlib.sha256(" ".join(actions).encode()).hexdigest()[:16]


@pytest.mark.parametrize("name,chance", sorted(RECORDED))
def test_seeded_search_agents_choose_as_recorded(name, chance):
    assert _digest(_game(name, chance, 7)) == RECORDED[name, chance]


@pytest.mark.parametrize("name", ["beer_knight", "belgian_beers_race"])
def test_a_seeded_ismcts_game_is_reproducible(name):
    rs = load_ruleset(name)

    def play(seed: str) -> list[str]:
        st = rs.new_game(None, seed=seed)
        agents = [make_agent("ismcts:iterations=10" if p == 0 else "random", f"{seed}:{p}") for p in range(st.num_players)]
        taken = []
        while not st.is_terminal() and len(taken) < 60:
            p = st.current_players()[0]
            a = agents[p].act(st, p)
            taken.append(str(a))
            st.apply(a)
        return taken

    first = play("a")
    assert play("a") == first  # the same seeds: the same game, action for action
    assert play("b") != first  # and the seed matters
